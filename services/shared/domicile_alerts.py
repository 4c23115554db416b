"""The e-mail alert of a message delivered to the electronic domicile (issue 36 item 2): who gets it,
what it says, and whether it went.

On delivery (``domicile.deliver``), in the delivery's unit of work, one e-mail per address on file is
queued in the outbox (``services.shared.mail``): the e-mail of the register behind each ACTIVE account
of the addressee — the driver; for a platform, each authorized person with an active login — or, with no
active account yet (a domicile opened by the secretariat), the e-mail the domicile was opened with. The
alert carries only the message's title and the portal's address (``config.portal_url``), never the
notice's content: the notice is the message in the domicile, which the alert neither replaces nor
delays (its receipt is the opening or the tacit day, ``rules/notice.py``). A failed send stays in the
outbox and is retried (``mail.send_pending``); :func:`line` says where it stands, for the case and the
staff screens, and :data:`BOUNCING_ATTEMPTS` failed tries in a row make it "bouncing" on the Início.
"""
from __future__ import annotations

from typing import Any

from bson import ObjectId
from pymongo.database import Database

from services.shared import clock, config, mail, regulated_accounts

PURPOSE = "domicilio_alerta"
BOUNCING_ATTEMPTS = 3  # failed tries in a row after which the Início lists the alert as bouncing
INDEXES = {
    mail.OUTBOX: [([("purpose", 1), ("municipality", 1), ("status", 1), ("attempts", 1)],
                   {"name": "i_outbox_purpose"})],
}


def recipients(db: Database, municipality: str, kind: str, document: str, domicile_email: str = "") -> list[str]:
    """The addresses on file of the addressee's active accounts (a platform: each authorized person with
    an active login), or the domicile's own e-mail when no account is active; lower case, no repeats."""
    found = []
    accounts = db[regulated_accounts.ACCOUNTS].find(
        {"municipality": municipality, "kind": kind, "document": document, "status": "ativa"}, {"person_cpf": 1})
    for account in accounts:
        entry = regulated_accounts.register_entry(db, municipality, kind, document, account.get("person_cpf") or "")
        if entry and entry.get("email"):
            found.append(entry["email"].strip().lower())
    if not found and domicile_email.strip():
        found.append(domicile_email.strip().lower())
    return list(dict.fromkeys(found))


def subject(title: str) -> str:
    return f"Nova mensagem no seu domicílio eletrônico: {title}"


def body(title: str) -> str:
    """Only the title and the portal's address: the content is read in the portal, where the opening is
    recorded."""
    return (f"Há uma nova mensagem no seu domicílio eletrônico: {title}.\n\n"
            f"Para lê-la, entre no portal de serviços da prefeitura: {config.portal_url()}\n\n"
            "Por segurança, o conteúdo não é enviado por e-mail.\n")


def queue(db: Database, municipality: str, message_id: Any, title: str, to: list[str]) -> list[Any]:
    """Queue the alert of one delivered message to each address (in the caller's unit of work)."""
    ref = {"collection": "domicile_messages", "id": str(message_id)}
    return [mail.queue(db, municipality, address, subject(title), body(title), PURPOSE, ref=ref) for address in to]


def _ids(message: dict) -> list[ObjectId]:
    out = []
    for value in message.get("alert_ids") or ():
        try:
            out.append(value if isinstance(value, ObjectId) else ObjectId(str(value)))
        except Exception:  # noqa: BLE001 — an id that is not one names no e-mail
            continue
    return out


def status(db: Database, message: dict) -> dict:
    """Where the message's alert stands: ``state`` (``enviado``, ``falhou``, ``pendente``, ``sem_email``),
    the last send (``sent_at``), the next try (``next_try_at``), the tries and the last error."""
    ids = _ids(message)
    if not ids:
        return {"state": "sem_email", "sent_at": None, "next_try_at": None, "attempts": 0, "error": None}
    rows = list(db[mail.OUTBOX].find({"_id": {"$in": ids}}, {"status": 1, "sent_at": 1, "next_try_at": 1,
                                                               "attempts": 1, "last_error": 1}))
    sent = [r for r in rows if r.get("status") == mail.SENT]
    failing = [r for r in rows if r.get("status") != mail.SENT and r.get("attempts")]
    if sent and not failing:
        return {"state": "enviado", "sent_at": max(r["sent_at"] for r in sent), "next_try_at": None,
                "attempts": max(r.get("attempts") or 0 for r in sent), "error": None}
    if failing:
        worst = max(failing, key=lambda r: r.get("attempts") or 0)
        return {"state": "falhou", "sent_at": None, "next_try_at": worst.get("next_try_at"),
                "attempts": worst.get("attempts") or 0, "error": worst.get("last_error")}
    return {"state": "pendente", "sent_at": None, "next_try_at": None, "attempts": 0, "error": None}


def line(db: Database, message: dict) -> str:
    """'alerta por e-mail: enviado em …' / 'falhou, nova tentativa em …' / 'na fila' (pt-BR, local time)."""
    state = status(db, message)
    if state["state"] == "enviado":
        return f"alerta por e-mail: enviado em {clock.to_local(state['sent_at']):%d/%m/%Y às %H:%M}"
    if state["state"] == "falhou":
        tries = "1 tentativa" if state["attempts"] == 1 else f"{state['attempts']} tentativas"
        when = (f", nova tentativa em {clock.to_local(state['next_try_at']):%d/%m/%Y às %H:%M}"
                if state["next_try_at"] else "")
        return f"alerta por e-mail: falhou ({tries}){when}"
    if state["state"] == "sem_email":
        return "alerta por e-mail: não enviado (sem e-mail no cadastro)"
    return "alerta por e-mail: na fila de envio"
