"""A regulated person's own steps on the public portal: open an account of their own (a requerente, or a
driver candidate the register does not hold yet: :func:`sign_up`), ask for a code (sent to the e-mail on
file), activate the account with it (password of their own and the LGPD consent), log in, reset the
password, and the portal's sessions. The accounts and the secretariat's side: ``services.shared.regulated_accounts``.

The same answer for an unknown identity as for a known one wherever an answer would tell who is
registered; the same bcrypt cost for an unknown account as for a wrong password; the staff lockout
(``services.shared.sessions.claim_attempt``: 5 wrong passwords, 15 minutes). A code is kept only hashed,
expires in 30 minutes and allows 5 attempts. Every step is audited with the person as actor.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pymongo.database import Database

from services import store
from services.shared import clock, config, domicile, sessions
from services.shared import regulated_accounts as accounts
from services.shared.auth import Actor
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.regulated_accounts import ACCOUNTS, ACTIVATION, CODE_ATTEMPTS, RESET, Person
from services.shared.sessions import AccountLocked, InvalidCredentials
from services.store import decode, encode, insert_one

SESSIONS = "regulated_sessions"
PURPOSE = b"painel-portal-session"
WRONG_CREDENTIALS = "CPF, CNPJ ou senha incorretos."
WRONG_CODE = "Código inválido ou vencido. Peça um novo código."
NO_LONGER = "Seu acesso foi encerrado: o cadastro da prefeitura não o autoriza mais. Procure a secretaria."
CODE_SENT = ("Se os dados estiverem no cadastro da prefeitura com um e-mail, enviamos a esse e-mail um código "
             "que vale por 30 minutos. Confira também a caixa de spam.")
SIGN_UP_SENT = ("Se este CPF ou CNPJ ainda não tiver conta neste município, enviamos ao e-mail informado um código "
                "que vale por 30 minutos. Confira também a caixa de spam. Se você já tem conta, use «Esqueci a "
                "senha».")
OTHER_EMAIL = ("O cadastro da prefeitura tem outro e-mail para este CPF. Crie uma nova senha com o código que "
               "enviaremos a esse e-mail (em «Esqueci a senha»).")


class CodeRefused(ServiceError):
    """A wrong, expired, used-up or unknown code (one message for all)."""


def _stranger(kind: str, document: str, person_cpf: str) -> Actor:
    return Person("", kind, document, person_cpf, "(desconhecido)").actor


def request_code(db: Database, municipality: str, kind: str, document: str, person_cpf: str, purpose: str) -> str:
    """Send an activation (``ativacao``) or a new-password (``senha``) code to the e-mail on file in the
    register. Returns the one pt-BR answer shown whether or not anything was sent."""
    kind, document, person_cpf = accounts.identity(kind, document, person_cpf)
    municipality = accounts.check_municipality(db, municipality, kind)
    entry = accounts.register_entry(db, municipality, kind, document, person_cpf)
    who = _stranger(kind, document, person_cpf)
    if entry is None or not entry["email"]:
        accounts.record(db, who, None, "code_refused", "sem cadastro ou sem e-mail no cadastro", municipality)
        return CODE_SENT
    now = clock.now_utc()
    with store.transaction(db):
        doc = accounts.ensure_account(db, municipality, kind, document, person_cpf, entry["name"], "a própria pessoa")
        active = doc["status"] == "ativa"
        if (purpose == ACTIVATION) == active:  # an active account resets; a pending one activates
            accounts.record(db, who, doc, "code_refused", "conta já ativa" if active else "conta ainda não ativada")
            return CODE_SENT
        accounts.send_code(db, doc, entry["email"], purpose, now)
        accounts.record(db, accounts.person_of(doc).actor, doc, "code_sent", "código enviado ao e-mail do cadastro")
    return CODE_SENT


def sign_up(db: Database, municipality: str, kind: str, document: str, person_cpf: str, name: str,
            email: str) -> str:
    """Open an account of one's own: a requerente (CPF, or CNPJ and the representative's CPF) in any
    municipality, or a driver candidate whose CPF the driver register does not hold yet. The activation
    code goes to the e-mail typed, which the code proves. Returns the one pt-BR answer shown whatever
    happened, so the page never tells whether a CPF or CNPJ is registered or has an account."""
    if kind not in accounts.SELF_SIGN_UP:
        raise ValidationFailed({"kind": "Escolha: condutor (quero me credenciar) ou cidadão/entidade."})
    errors: dict[str, str] = {}
    try:
        kind, document, person_cpf = accounts.identity(kind, document, person_cpf)
    except ValidationFailed as refused:
        errors.update(refused.errors)
    name, email = accounts.contact(name, email, errors)
    municipality = accounts.check_municipality(db, municipality, kind)
    who = _stranger(kind, document, person_cpf)
    held = accounts.register_entry(db, municipality, kind, document, person_cpf, {}) if kind == accounts.DRIVER else None
    doc = accounts.find_account(db, municipality, kind, document, person_cpf)
    if held is not None or (doc is not None and (doc["status"] == "ativa" or not doc.get("self_registered"))):
        accounts.record(db, who, doc, "sign_up_refused",
                        "CPF já no cadastro de condutores" if held is not None else "conta já existe", municipality)
        return SIGN_UP_SENT
    now = clock.now_utc()
    with store.transaction(db):
        if doc is None:
            doc = accounts.ensure_account(db, municipality, kind, document, person_cpf, name, "a própria pessoa", email)
        else:  # an earlier sign-up never proved its e-mail: the newest one typed replaces it
            db[ACCOUNTS].update_one({"_id": doc["_id"]}, {"$set": {"name": name, "email": email}})
            doc = {**doc, "name": name, "email": email}
        accounts.send_code(db, doc, email, ACTIVATION, now)
        accounts.record(db, accounts.person_of(doc).actor, doc, "sign_up", "conta aberta pela própria pessoa; "
                        "código enviado ao e-mail informado")
    return SIGN_UP_SENT


def _use_code(db: Database, doc: dict | None, purpose: str, code: str, now: datetime) -> bool:
    """Count one attempt of the account's code atomically, then check it; True when it is right."""
    if doc is None or not doc.get("code") or doc["code"].get("purpose") != purpose:
        sessions.check_password(code, None, None)
        return False
    claim = db[ACCOUNTS].find_one_and_update(
        {"_id": doc["_id"], "code.purpose": purpose, "code.attempts": {"$lt": CODE_ATTEMPTS}},
        {"$inc": {"code.attempts": 1}})
    stored = decode(claim.get("code")) if claim else None
    if stored is None or stored["expires_at"] <= now:
        sessions.check_password(code, None, None)
        return False
    return sessions.check_password(str(code).strip(), stored["hash"], sessions.HASH_SCHEME)


def _set_password(db: Database, municipality: str, kind: str, document: str, person_cpf: str, code: str,
                  password: str, purpose: str, consent: bool) -> Person:
    kind, document, person_cpf = accounts.identity(kind, document, person_cpf)
    municipality = accounts.check_municipality(db, municipality, kind)
    errors = {}
    if problem := accounts.password_problem(password, kind, document, person_cpf):
        errors["password"] = problem
    if purpose == ACTIVATION and consent is not True:
        errors["consent"] = "Para ativar a conta, leia o aviso de privacidade e marque que concorda."
    if errors:
        raise ValidationFailed(errors)
    now = clock.now_utc()
    doc = accounts.find_account(db, municipality, kind, document, person_cpf)
    right = _use_code(db, doc, purpose, str(code or ""), now)
    entry = accounts.register_entry(db, municipality, kind, document, person_cpf) if right else None
    if doc is None or not right or entry is None:
        accounts.record(db, _stranger(kind, document, person_cpf), doc, "code_failed",
                        "código errado ou vencido" if doc is None or not right else "fora do cadastro", municipality)
        raise CodeRefused(WRONG_CODE)
    update: dict[str, Any] = {"status": "ativa", "password_hash": sessions.hash_password(password),
                              "hash_scheme": sessions.HASH_SCHEME, "code": None, "failed_logins": 0,
                              "locked_until": None, "name": entry["name"]}
    if doc.get("self_registered"):
        update["email"] = entry["email"]  # the e-mail the code just went to is the proved one
    if purpose == ACTIVATION:
        update.update(activated_at=now, consent={"version": accounts.LGPD_VERSION, "at": now})
    person = accounts.person_of({**doc, "name": entry["name"]})
    with store.transaction(db):
        db[ACCOUNTS].update_one({"_id": doc["_id"]}, {"$set": encode(update), "$inc": {"session_generation": 1}})
        if purpose == ACTIVATION:
            accounts.record(db, person.actor, doc, "activate", "senha escolhida pela pessoa")
            accounts.record(db, person.actor, doc, "consent",
                            f"aviso de privacidade (LGPD), versão {accounts.LGPD_VERSION}")
            if kind in accounts.RIDE_HAILING_KINDS:  # the electronic domicile's address (CG art. 25 §1 IV; MP art. 21 §1)
                domicile.open_domicile(db, person.actor, municipality, kind, document, entry["email"])
        else:
            accounts.record(db, person.actor, doc, "password_reset",
                            "nova senha com código enviado ao e-mail do cadastro")
    return person


def activate(db: Database, municipality: str, kind: str, document: str, person_cpf: str, code: str, password: str,
             consent: bool) -> Person:
    """Activate a pending account with the e-mailed code, a password of their own and the LGPD consent."""
    return _set_password(db, municipality, kind, document, person_cpf, code, password, ACTIVATION, consent)


def reset_password(db: Database, municipality: str, kind: str, document: str, person_cpf: str, code: str,
                   password: str) -> Person:
    """A new password with the e-mailed code; every open session of the account ends."""
    return _set_password(db, municipality, kind, document, person_cpf, code, password, RESET, True)


def login(db: Database, municipality: str, kind: str, document: str, person_cpf: str,
          password: str) -> tuple[Person, str, datetime]:
    """Check the credentials and open a portal session: (the person, the signed cookie value, its expiry)."""
    if not isinstance(password, str):
        raise ValidationFailed({"password": "Senha: informe um texto."})
    kind, document, person_cpf = accounts.identity(kind, document, person_cpf)
    municipality = accounts.check_municipality(db, municipality, kind)
    now = clock.now_utc()
    doc = accounts.find_account(db, municipality, kind, document, person_cpf)
    if doc is None or doc["status"] != "ativa":
        sessions.check_password(password, None, None)
        accounts.record(db, _stranger(kind, document, person_cpf), doc, "login_failed",
                        "conta inexistente ou não ativada", municipality)
        raise InvalidCredentials(WRONG_CREDENTIALS)
    person = accounts.person_of(doc)
    claim = sessions.claim_attempt(db, ACCOUNTS, doc, now)
    if claim is None:
        until = decode(db[ACCOUNTS].find_one({"_id": doc["_id"]}, {"locked_until": 1}).get("locked_until"))
        accounts.record(db, person.actor, doc, "login_failed", "conta bloqueada")
        raise _locked(until or now + timedelta(minutes=sessions.LOCK_MINUTES))
    if not sessions.check_password(password, doc["password_hash"], doc.get("hash_scheme")):
        locked = claim["failed_logins"] >= sessions.MAX_FAILED_LOGINS
        with store.transaction(db):
            accounts.record(db, person.actor, doc, "login_failed", "senha incorreta")
            if locked:
                accounts.record(db, person.actor, doc, "lock", "5 senhas erradas seguidas")
        if locked:
            raise _locked(decode(claim.get("locked_until")))
        raise InvalidCredentials(WRONG_CREDENTIALS)
    entry = accounts.register_entry(db, municipality, kind, document, person_cpf, doc)
    if entry is None:
        accounts.record(db, person.actor, doc, "login_failed", "não autorizado no cadastro")
        raise InvalidCredentials(NO_LONGER)
    if accounts.email_changed(doc, entry):
        accounts.record(db, person.actor, doc, "login_failed", "o cadastro tem outro e-mail")
        raise InvalidCredentials(OTHER_EMAIL)
    expires_at = now + timedelta(hours=config.session_max_hours())
    key, cookie = sessions.signed_token(expires_at, PURPOSE)
    with store.transaction(db):
        db[ACCOUNTS].update_one({"_id": doc["_id"]}, {"$set": encode({"failed_logins": 0, "locked_until": None,
                                                                       "last_login": now})})
        insert_one(db[SESSIONS], encode({"_id": key, "account": doc["_id"],
                                         "generation": doc.get("session_generation", 0), "created_at": now,
                                         "last_seen": now, "expires_at": expires_at, "ended_at": None}))
        accounts.record(db, person.actor, doc, "login")
    return person, cookie, expires_at


def _locked(until: datetime) -> AccountLocked:
    refused = AccountLocked(until)
    local = clock.to_local(until)
    refused.message = (f"Conta bloqueada por excesso de tentativas até {local:%d/%m/%Y %H:%M}. "
                       "Aguarde ou crie uma nova senha com o código enviado ao seu e-mail.")
    return refused


def resume(db: Database, cookie: object) -> Person | None:
    """The person of a request's portal cookie; None for a forged, expired, ended or idle session, or
    when the account changed (new password, authorization revoked) or the register no longer holds it."""
    now = clock.now_utc()
    key = sessions.key_of_cookie(cookie, now, PURPOSE)
    stored = decode(db[SESSIONS].find_one({"_id": key})) if key else None
    if stored is None or stored.get("ended_at") is not None:
        return None
    doc = decode(db[ACCOUNTS].find_one({"_id": stored["account"]}))
    reason = None
    if doc is None or doc["status"] != "ativa" or doc.get("session_generation", 0) != stored["generation"]:
        reason = "acesso alterado"
    elif now - stored["last_seen"] > timedelta(minutes=config.session_idle_minutes()):
        reason = "inatividade"
    else:
        entry = accounts.register_entry(db, doc["municipality"], doc["kind"], doc["document"], doc["person_cpf"], doc)
        if entry is None:
            reason = "não autorizado no cadastro"
        elif accounts.email_changed(doc, entry):
            reason = "o cadastro tem outro e-mail"
    if reason:
        with store.transaction(db):
            db[SESSIONS].update_one({"_id": key}, {"$set": {"ended_at": encode(now)}})
            if doc is not None:
                accounts.record(db, accounts.person_of(doc).actor, doc, "session_expired", reason)
        return None
    db[SESSIONS].update_one({"_id": key}, {"$set": {"last_seen": encode(now)}})
    return accounts.person_of(doc)


def logout(db: Database, cookie: object) -> None:
    """End the portal session of the cookie (a copy of it opens nothing afterwards) and record the exit."""
    now = clock.now_utc()
    key = sessions.key_of_cookie(cookie, now, PURPOSE)
    stored = decode(db[SESSIONS].find_one({"_id": key, "ended_at": None})) if key else None
    if stored is None:
        return
    doc = decode(db[ACCOUNTS].find_one({"_id": stored["account"]}))
    with store.transaction(db):
        db[SESSIONS].update_one({"_id": key}, {"$set": {"ended_at": encode(now)}})
        if doc is not None:
            accounts.record(db, accounts.person_of(doc).actor, doc, "logout")
