"""A driver candidate's application for the ride-hailing authorization on the public portal (issue 38 item 1;
CG Decreto 06/2026 art. 9, 10 and 12; MP Lei 1.552/2025 art. 3, 8 and 11).

The person of kind "condutor" (their CPF is ``addressee(actor)[2]``) fills, at their own pace, a draft of
three parts: their data (the fields of the clerk's driver form, ``entities.spec_for("drivers")``, less the
CPF, which is the account's, and less :data:`SECRETARIA_FINDINGS`), the vehicle (the fields of the clerk's
vehicle form, less the driver's CPF) and one copy per document of the municipality's act
(``rules_of(municipality).documents``: each with its issue date and printed validity, through the upload
guard, the bytes kept once by ``store.put_file``). Every read of the draft answers at once, article by
article, what the municipality's rule set (the one the clerk's screen asks) finds on what was given:
"Falta: ..." (not presented or not proven), "Não atende: ..." (refused), "Atende: ...".

Complete (every required field valid, every document sent with a valid issue date), the draft is sent:
in ONE unit of work the driver, the vehicle and the documents (with their copies) are created through the
clerk's services (``entities.create_checked``) and the request is protocoled by the clerk's own
``authorizations.request_checked`` (the municipal counter's number): it lands in the clerk's queue like a
request typed at the counter. Every write is audited with the person as actor. Staff roles are refused:
they work on the panel's screens. The later steps are read by ``application_status``.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pymongo.database import Database

from rules.base import Finding, Level, RuleError
from rules.fmt import count
from rules.ridehailing import eligibility
from rules.ridehailing.concepts import Document
from services import store
from services.ridehailing import authorization_records, authorizations, registry
from services.shared import audit, clock, entities, fields, record_files, regulated_accounts
from services.shared.auth import ALL_MUNICIPALITIES, Actor
from services.shared.boundary import checked
from services.shared.errors import Conflict, PermissionDenied, ValidationFailed
from services.shared.record_files import Sent
from services.shared.regulated_accounts import DRIVER, addressee
from services.shared.schema import Field
from services.store import decode, encode, ensure_indexes

COLLECTION = "driver_applications"
DRAFT, SENT = "rascunho", "enviado"
PARTS = {"condutor": "drivers", "veiculo": "vehicles"}
# the account's own: its CPF, and the e-mail its activation code proved (the register's e-mail is the one the
# portal account stands on: another one there would end the person's access, regulated_accounts.email_changed)
OWN_KEYS = {"drivers": ("cpf", "email"), "vehicles": ("driver_cpf",)}
# What the Secretaria concludes when it reads a certificate, never what the candidate types: the draft's
# verdict takes the aptitude as shown by the medical certificate sent and no impeding record while the
# criminal certificate is its proof; the record is created without them, for the clerk to set on reading
# (docs/LEITURAS.md, "Pedido de credenciamento pelo portal").
SECRETARIA_FINDINGS = ("fit_for_duty", "disqualifying_criminal_record", "ctb_303_306_record")
TYPED_MAX = 300  # characters kept of a typed value
REFUSED = "Só o próprio condutor faz e acompanha o seu pedido de credenciamento no portal."
INDEXES = {COLLECTION: [([("draft_key", 1)], {"unique": True, "sparse": True, "name": "u_application_draft"}),
                        ([("municipality", 1), ("driver_cpf", 1)], {"name": "i_application_driver"})]}
_prepared: weakref.WeakSet = weakref.WeakSet()
WORDS = {"ok": "Atende", "missing": "Falta", "refused": "Não atende", "info": "Observação"}


@dataclass(frozen=True)
class Line:
    """One requirement of the law as the person reads it: ``state`` of :data:`WORDS`, the text with its article."""

    state: str
    text: str


def line_of(finding: Finding) -> Line:
    state = "ok" if finding.ok else "info" if finding.level is not Level.ERROR else \
        "missing" if finding.unproven else "refused"
    return Line(state, f"{WORDS[state]}: {finding.text()}")


@dataclass(frozen=True)
class Part:
    """The person's data or the vehicle: the form's fields, what was typed, the errors under each field and
    the labels of the required fields still empty."""

    fields: tuple[Field, ...]
    values: dict[str, str]
    errors: dict[str, str]
    missing: tuple[str, ...]
    clean: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.errors and not self.missing

    def summary(self, done: str) -> str:
        """Where the part stands in a few words: ``done``, or what is missing and whether to correct."""
        said = [f"{'falta' if len(self.missing) == 1 else 'faltam'} {count(len(self.missing), 'campo', 'campos')}"
                ] if self.missing else []
        said += ["há campos a corrigir"] if self.errors else []
        return "; ".join(said) or done


@dataclass(frozen=True)
class Slot:
    """One document the act asks: its copy sent (name and size), the dates typed, the errors under its fields
    and what the law finds of it."""

    code: str
    label: str
    reference: str
    sent: str
    issued_on: str
    valid_until: str
    errors: dict[str, str]
    lines: tuple[Line, ...]

    @property
    def complete(self) -> bool:
        return bool(self.sent) and not self.errors and bool(self.issued_on)


@dataclass(frozen=True)
class Application:
    """The person's draft as the portal shows it (``protocol`` once sent), with the law's verdict."""

    act: str
    driver: Part
    vehicle: Part
    documents: tuple[Slot, ...]
    lines: tuple[Line, ...]
    registered: bool  # already in the driver register: a new request is made at the Secretaria
    started: bool

    @property
    def complete(self) -> bool:
        return self.driver.complete and self.vehicle.complete and all(s.complete for s in self.documents)

    def missing(self) -> list[str]:
        """What still keeps the draft from being sent, each as the person reads it."""
        found = [f"Falta: {label} (seus dados)" for label in self.driver.missing]
        found += [f"Falta: {label} (veículo)" for label in self.vehicle.missing]
        if self.driver.errors or self.vehicle.errors:
            found.append("Corrija os campos indicados nos dados e no veículo.")
        found += [f"Falta: {s.label} ({s.reference})" for s in self.documents if not s.complete]
        return found


@checked
def applicant(actor: Actor) -> tuple[str, str]:
    """(municipality, CPF) of the driver an actor is — the ONE ownership check of the applications."""
    whose = addressee(actor)
    if whose is None or whose[1] != DRIVER or whose[0] == ALL_MUNICIPALITIES:
        raise PermissionDenied(REFUSED)
    cpf = fields.digits(whose[2])
    if len(cpf) != 11:
        raise PermissionDenied(REFUSED)
    return whose[0], cpf


def form_fields(db: Database, municipality: str, collection: str) -> tuple[Field, ...]:
    """The fields of the clerk's form of ``collection`` the candidate fills (custom fields included)."""
    spec = entities.spec_for(db, collection, municipality)
    return tuple(f for f in spec.fields if f.in_form and f.kind != "file" and f.name not in OWN_KEYS[collection]
                 and f.name not in SECRETARIA_FINDINGS)


def _part(db: Database, municipality: str, collection: str, typed: dict[str, str]) -> Part:
    shown = form_fields(db, municipality, collection)
    values = {f.name: str(typed.get(f.name) or "") for f in shown}
    spec = entities.spec_for(db, collection, municipality)
    present = {k: v for k, v in values.items() if v.strip()}
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    try:
        clean = entities.validate(spec, present, partial=True)
    except ValidationFailed as exc:
        errors = dict(exc.errors)
    errors.update(_taken(db, municipality, collection, spec.fields, clean))
    missing = tuple(f.label for f in shown if f.required and f.name not in present)
    return Part(shown, values, errors, missing, clean)


def _taken(db: Database, municipality: str, collection: str, spec_fields: tuple[Field, ...],
           clean: dict[str, Any]) -> dict[str, str]:
    """Errors of the values the register already holds (a plate of another's vehicle) or that name no
    registered record (a platform's CNPJ): the same checks the clerk's form meets, shown before sending."""
    errors = {name: text for name, text in entities.check_references(db, entities.spec_for(db, collection, municipality),
                                                                      municipality, [clean]).get(0, {}).items()}
    for f in spec_fields:
        if f.unique and clean.get(f.name) is not None and db[collection].find_one(
                {"municipality": municipality, f.name: encode(clean[f.name]), **entities.NOT_REMOVED}, {"_id": 1}):
            errors[f.name] = f"{f.label}: já consta no cadastro do município; procure a Secretaria."
    return errors


def _draft(db: Database, municipality: str, cpf: str) -> dict | None:
    if db not in _prepared:
        ensure_indexes(db, INDEXES)
        _prepared.add(db)
    raw = db[COLLECTION].find_one({"draft_key": f"{municipality}|{cpf}"})
    return decode(raw) if raw else None


def _sent_documents(slots: tuple[Slot, ...]) -> tuple[Document, ...]:
    found = []
    for slot in slots:
        if slot.complete:
            until = fields.parse_date_input(slot.valid_until) if slot.valid_until else None
            found.append(Document(slot.code, fields.parse_date_input(slot.issued_on), until))
    return tuple(found)


def _slots(db: Database, municipality: str, raw: dict, upload_errors: dict[str, str]) -> tuple[Slot, ...]:
    spec = entities.spec_for(db, "driver_documents", municipality)
    slots = []
    for req in registry.rules_of(municipality).documents:
        kept = (raw.get("documents") or {}).get(req.code) or {}
        errors = {f"{req.code}-file": upload_errors[f"{req.code}-file"]} if f"{req.code}-file" in upload_errors else {}
        for name in ("issued_on", "valid_until"):
            if str(kept.get(name) or "").strip():
                try:
                    spec.field(name).clean(kept[name])
                except ValueError as exc:
                    errors[f"{req.code}-{name}"] = f"{spec.field(name).label}: {exc}."
        if kept.get("file") and not str(kept.get("issued_on") or "").strip():
            errors[f"{req.code}-issued_on"] = "Emissão: informe a data de emissão do documento."
        sent = spec.field("file").show(kept["file"]) if kept.get("file") else ""
        slots.append(Slot(req.code, req.label, req.reference, sent, str(kept.get("issued_on") or ""),
                          str(kept.get("valid_until") or ""), errors, ()))
    return tuple(slots)


def _verdict(db: Database, municipality: str, cpf: str, driver: Part, vehicle: Part, slots: tuple[Slot, ...],
             on: date) -> tuple[tuple[Line, ...], tuple[Slot, ...]]:
    """The rule set's findings on what was given, the same the clerk's screen asks: the driver's (when their
    data is complete) and the vehicle's (when complete) as lines, each document's beside its slot."""
    scope = registry.Scope(db, municipality)
    rules, documents = scope.rules, _sent_documents(slots)
    sent = {d.code for d in documents}
    values = {**driver.clean, "cpf": cpf, "name": driver.clean.get("name") or "",
              "fit_for_duty": "medical" in sent, "disqualifying_criminal_record": False, "ctb_303_306_record": False}
    lines: list[Line] = []
    try:
        if driver.complete:
            decision = rules.driver_eligibility(registry.driver_concept_of(values, documents), on, scope.book,
                                                scope.calendar(on))
            findings = list(decision.findings)
            data, of_documents = findings[:-len(rules.documents)], findings[-len(rules.documents):]
            lines += [line_of(f) for f in data]
        else:
            bare = registry.driver_concept_of({"cpf": cpf, "name": "", "cnh_category": "", "cnh_first_license": on,
                                               "cnh_valid_until": on}, documents)
            of_documents = eligibility.documents(bare, rules.documents, on, scope.book)
        if vehicle.complete:
            car = {**vehicle.clean, "driver_cpf": cpf}
            others = registry.authorized_plates(db, municipality, cpf, on, scope)
            lines += [line_of(f) for f in rules.vehicle_eligibility(registry.vehicle_concept(car), on, scope.book,
                                                                    others).findings]
    except RuleError as problem:
        return (Line("refused", f"Não atende: {problem}"),), slots
    slots = tuple(Slot(s.code, s.label, s.reference, s.sent, s.issued_on, s.valid_until, s.errors, (line_of(f),))
                  for s, f in zip(slots, of_documents, strict=True))
    return tuple(lines), slots


def _view(db: Database, municipality: str, cpf: str, raw: dict | None,
          upload_errors: dict[str, str] | None = None) -> Application:
    raw = raw or {}
    driver = _part(db, municipality, "drivers", raw.get("driver") or {})
    vehicle = _part(db, municipality, "vehicles", raw.get("vehicle") or {})
    slots = _slots(db, municipality, raw, upload_errors or {})
    lines, slots = _verdict(db, municipality, cpf, driver, vehicle, slots, clock.today())
    registered = db["drivers"].find_one({"municipality": municipality, "cpf": cpf, **entities.NOT_REMOVED},
                                        {"_id": 1}) is not None
    return Application(registry.rules_of(municipality).act, driver, vehicle, slots, lines, registered, bool(raw))


@checked
def application(db: Database, actor: Actor) -> Application:
    """The person's draft (an empty one when none was saved) with the law's verdict on it."""
    municipality, cpf = applicant(actor)
    return _view(db, municipality, cpf, _draft(db, municipality, cpf))


def _write(db: Database, actor: Actor, municipality: str, cpf: str, changes: dict[str, Any], note: str) -> dict:
    """Save ``changes`` into the person's draft (creating it), with its audit entry."""
    now = clock.now_utc()
    with store.transaction(db):
        current = _draft(db, municipality, cpf)
        if current is None:
            doc = {"municipality": municipality, "driver_cpf": cpf, "status": DRAFT, "draft_key": f"{municipality}|{cpf}",
                   "driver": {}, "vehicle": {}, "documents": {}, "version": 1, "created_at": now, "updated_at": now,
                   **changes}
            doc_id = store.insert_one(db[COLLECTION], encode(doc))
        else:
            doc_id = current["_id"]
            done = db[COLLECTION].update_one({"_id": doc_id, "version": current["version"]},
                                             {"$set": encode({**changes, "updated_at": now}), "$inc": {"version": 1}})
            if not done.modified_count:
                raise Conflict("O pedido foi alterado em outra janela; recarregue a página.")
        audit.record(db, actor, municipality, "draft", COLLECTION, doc_id, {}, {"status": DRAFT}, note)
    return _draft(db, municipality, cpf) or {}


def _refuse_when_registered(db: Database, municipality: str, cpf: str) -> None:
    if db["drivers"].find_one({"municipality": municipality, "cpf": cpf, **entities.NOT_REMOVED}, {"_id": 1}):
        raise Conflict("Você já está no cadastro de condutores deste município: um novo pedido de autorização é "
                       "feito na Secretaria, que confere os seus dados já cadastrados.")


@checked
def save_part(db: Database, actor: Actor, part: str, values: dict[str, str]) -> Application:
    """Keep what was typed in the person's data (``part`` "condutor") or the vehicle's ("veiculo"), valid or
    not: the errors are shown under their fields, and the draft can be completed later."""
    municipality, cpf = applicant(actor)
    if part not in PARTS:
        raise ValidationFailed({"part": "Parte do pedido desconhecida."})
    _refuse_when_registered(db, municipality, cpf)
    typed = {f.name: str(values.get(f.name) or "")[:TYPED_MAX] for f in form_fields(db, municipality, PARTS[part])}
    note = "Dados pessoais salvos no pedido de credenciamento (portal)" if part == "condutor" else \
        "Dados do veículo salvos no pedido de credenciamento (portal)"
    raw = _write(db, actor, municipality, cpf, {"driver" if part == "condutor" else "vehicle": typed}, note)
    return _view(db, municipality, cpf, raw)


@checked
def save_documents(db: Database, actor: Actor, values: dict[str, str], files: dict[str, tuple[bytes, str]]) -> Application:
    """Keep the documents' dates as typed (``<code>-issued_on``, ``<code>-valid_until``) and each copy sent
    (``<code>-file``: bytes and name) that passes the upload guard; a refused copy is reported under its
    field and the one kept before stays."""
    municipality, cpf = applicant(actor)
    _refuse_when_registered(db, municipality, cpf)
    current = (_draft(db, municipality, cpf) or {}).get("documents") or {}
    documents, refused = {}, {}
    for req in registry.rules_of(municipality).documents:
        entry = {**(current.get(req.code) or {})}
        for name in ("issued_on", "valid_until"):
            entry[name] = str(values.get(f"{req.code}-{name}") or "")[:20]
        data, name = files.get(f"{req.code}-file", (b"", ""))
        if data:
            try:
                kept = record_files.value(Sent(name, bytes(data)), f"{req.code}-file")
            except ValidationFailed as exc:
                refused.update({key: f"Cópia não aceita: {text}" for key, text in exc.errors.items()})
            else:
                store.put_file(db, bytes(data), kept["name"])
                entry["file"] = kept
        documents[req.code] = entry
    raw = _write(db, actor, municipality, cpf, {"documents": documents},
                 "Documentos salvos no pedido de credenciamento (portal)")
    return _view(db, municipality, cpf, raw, refused)


@checked
def submit(db: Database, actor: Actor) -> str:
    """Send the complete draft: the driver, the vehicle and the documents created and the request protocoled
    (today, the municipal counter's number) in one unit of work; returns the protocol ("0001/2026")."""
    municipality, cpf = applicant(actor)
    _refuse_when_registered(db, municipality, cpf)
    raw = _draft(db, municipality, cpf)
    view = _view(db, municipality, cpf, raw)
    if raw is None or not view.complete:
        raise ValidationFailed({"_form": "; ".join(view.missing()) or "Preencha o pedido antes de enviá-lo."})
    on = clock.today()
    account = regulated_accounts.find_account(db, municipality, DRIVER, cpf, cpf) or {}
    driver = {**view.driver.clean, "cpf": cpf, "email": account.get("email") or None}
    vehicle = {**view.vehicle.clean, "driver_cpf": cpf}
    with store.transaction(db):
        entities.create_checked(db, actor, "drivers", municipality, driver)
        entities.create_checked(db, actor, "vehicles", municipality, vehicle)
        for slot in view.documents:
            kept = raw["documents"][slot.code]
            copy = Sent(kept["file"]["name"], store.get_file(db, kept["file"]["sha256"]))
            entities.create_checked(db, actor, "driver_documents", municipality, {
                "driver_cpf": cpf, "code": slot.code, "issued_on": slot.issued_on,
                "valid_until": slot.valid_until or None, "file": copy})
        auth_id = authorizations.request_checked(db, actor, municipality, cpf, vehicle["plate"], on)
        protocol = authorization_records.load(db, municipality, auth_id)["protocol"]
        done = db[COLLECTION].update_one(
            {"_id": raw["_id"], "version": raw["version"]},
            {"$set": encode({"status": SENT, "protocol": protocol, "sent_at": clock.now_utc()}),
             "$unset": {"draft_key": ""}, "$inc": {"version": 1}})
        if not done.modified_count:
            raise Conflict("O pedido foi alterado em outra janela; recarregue a página.")
        audit.record(db, actor, municipality, "requested", COLLECTION, raw["_id"], {"status": DRAFT},
                     {"status": SENT, "protocol": protocol}, f"Pedido de credenciamento enviado pelo portal: "
                                                             f"protocolo {protocol}")
    return protocol
