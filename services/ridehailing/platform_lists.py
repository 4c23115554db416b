"""Platforms' lists of drivers and vehicles, received and reconciled against the register
(rules in rules/ridehailing/obligations.py).

Lists (CG art. 5º VIII every 60 days; MP art. 5º IX monthly) are received with their file
(``store.put_file``); the rows (CPF, placa, nome) are reconciled against the register in one pass
(one ``$in`` query for the authorizations of the list's CPFs and plates): every row without an
active authorization of that driver and vehicle (CG art. 30; MP art. 12 XXV / art. 26 III d)
becomes a draft (``platform_drafts``) for the clerk to review, which :func:`_draft` hands to the
autos de infração service as a draft auto. Each credentialed platform's next list is due by the
rule set's period; a late or near one goes to the work queue (:func:`pending`). The clerk registers a
list (:func:`receive_list`); the platform's authorized person sends it signed on the portal
(``data_answers.send_driver_list``); both go through :func:`receive_checked`.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from rules import fmt
from rules.fmt import day
from rules.ridehailing import obligations as rule
from services import store
from services.ridehailing import (
    authorization_lists,
    platform_files,
    platforms,
    registry,
)
from services.ridehailing.enforcement import lavratura
from services.ridehailing.enforcement.auto_input import AutoInput
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import audit, clock, entities, fields, parameters
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.entity_files import RowError
from services.shared.errors import NotFound, ServiceError, ValidationFailed
from services.store import decode, encode, insert_one, parse_date

LISTS, DRAFTS = "platform_lists", "platform_drafts"
RECONCILIATION_INFRACTION = {"chapada": "CG-30", "matupa": "MP-12-XXV"}  # CG art. 30; MP art. 12 XXV
DRAFT, AUTO_DRAFTED = "rascunho", "auto_em_rascunho"
name_codes("status", {DRAFT: "Rascunho", AUTO_DRAFTED: "Auto de infração em rascunho"})  # the Auditoria's words
LIST_COLUMNS = {"cpf": "CPF", "placa": "Placa", "nome": "Nome"}

INDEXES = {
    LISTS: [([("municipality", 1), ("platform_id", 1), ("received_on", -1)], {"name": "i_platform_lists"})],
    DRAFTS: [([("municipality", 1), ("status", 1), ("list_id", 1)], {"name": "i_platform_drafts"})],
}


def prepare(db: Database) -> None:
    """Indexes of this module's collections (idempotent; called from bootstrap.prepare)."""
    store.ensure_indexes(db, INDEXES)


def _list_rows(rows: list[dict[str, str]]) -> tuple[list[dict], list[RowError]]:
    errors = platform_files.missing_columns(rows, LIST_COLUMNS)
    if errors:
        return [], errors
    clean, seen = [], {}
    for line, row in enumerate(rows, start=2):
        if not any(row.values()):
            continue
        cpf = row.get("cpf", "")
        if cpf.isdigit() and len(cpf) < 11:  # a spreadsheet keeps a CPF typed as a number without its leading zeros
            cpf = cpf.zfill(11)
        item = {"line": line}
        for name, kind, raw in (("cpf", "cpf", cpf), ("placa", "plate", row.get("placa", "")),
                                ("name", "text", row.get("nome", ""))):
            try:
                item[name] = fields.parse(kind, raw)
            except ValueError as exc:
                errors.append(RowError(line, LIST_COLUMNS.get(name, "Nome"), str(exc)))
        if "cpf" in item and "placa" in item:
            pair = (item["cpf"], item["placa"])
            if pair in seen:
                errors.append(RowError(line, "CPF", f"repetido na linha {seen[pair]} do arquivo"))
            seen.setdefault(pair, line)
            clean.append(item)
    return clean, errors


def _register(db: Database, municipality: str, rows: list[dict], on: date) -> list[rule.Registered]:
    """The authorizations of the list's CPFs and plates with their status on ``on``: one query."""
    scope = registry.Scope(db, municipality)
    cpfs, plates = sorted({r["cpf"] for r in rows}), sorted({r["placa"] for r in rows})
    query = {"municipality": municipality, "$or": [{"driver_cpf": {"$in": cpfs}}, {"plate": {"$in": plates}}]}
    found = []
    raws = db["authorizations"].find(query, authorization_lists.ROW_FIELDS).sort([("protocol_date", 1), ("_id", 1)])
    for raw in raws:
        doc = decode(raw)
        found.append(rule.Registered(doc["driver_cpf"], doc["plate"], doc.get("number") or doc["protocol"],
                                     scope.state(doc, on)))
    return found


@checked
def receive_list(db: Database, actor: Actor, municipality: str, platform_id: str, received_on: date, data: bytes,
                 file_name: str, commit: bool = False) -> platform_files.FileReport:
    """Check a list of drivers and vehicles (dry run); with ``commit`` and no bad row, keep the file,
    the list and its reconciliation on ``received_on``; each hit becomes a draft."""
    authorize(actor, "write", municipality)
    platform = entities.get(db, actor, "platforms", municipality, platform_id)
    if not isinstance(received_on, date) or received_on > clock.today():
        raise ValidationFailed({"received_on": "Recebida em: informe uma data até hoje."})
    return receive_checked(db, actor, municipality, platform, received_on, data, file_name, commit)


def receive_checked(db: Database, actor: Actor, municipality: str, platform: dict, received_on: date, data: bytes,
                    file_name: str, commit: bool, signature: dict | None = None) -> platform_files.FileReport:
    """:func:`receive_list` for a service that has already authorized its actor and found the platform (its
    record, ``id`` or ``_id``): the clerk's import, and the list the platform's person sends signed on the
    portal (``data_answers.send_driver_list``), which hands its verified ``signature`` (kept on the list)."""
    platform_id = str(platform.get("id") or platform["_id"])
    rows, errors = _list_rows(platform_files.read_table(data, file_name, "platform_list"))
    report = platform_files.FileReport(len(rows), tuple(errors))
    if errors or not commit:
        return report
    ref = reconciliation_reference(municipality)
    register = _register(db, municipality, rows, received_on)
    verdicts = [(row, rule.reconcile_row(row["cpf"], row["placa"], register, ref)) for row in rows]
    hits = [(row, finding) for row, finding in verdicts if not finding.ok]
    now = clock.now_utc()
    sha = store.put_file(db, data, file_name)
    with store.transaction(db):
        doc = {"municipality": municipality, "platform_id": platform_id, "platform_name": platform["name"],
               "platform_cnpj": platform["cnpj"], "received_on": received_on, "file_sha": sha,
               "file_name": file_name, "rows": [{"line": r["line"], "cpf": r["cpf"], "plate": r["placa"],
                                                 "name": r["name"]} for r in rows],
               "row_count": len(rows), "hit_count": len(hits), "created_at": now, "created_by": actor.username,
               "version": 1, **({"signature": signature} if signature else {})}
        list_id = str(insert_one(db[LISTS], encode(doc)))
        audit.record(db, actor, municipality, "create", LISTS, list_id, {},
                     {k: v for k, v in doc.items() if k != "rows"},
                     note=f"Relação de {platform['name']} recebida{' pelo portal, assinada' if signature else ''}: "
                          f"{fmt.count(len(rows), 'linha', 'linhas')}, "
                          f"{fmt.count(len(hits), 'irregular', 'irregulares')}")
        drafts = [{"municipality": municipality, "list_id": list_id, "platform_id": platform_id,
                   "platform_name": platform["name"], "on": received_on, "line": row["line"], "cpf": row["cpf"],
                   "plate": row["placa"], "name": row["name"], "message": finding.message,
                   "reference": finding.reference, "infraction_code": RECONCILIATION_INFRACTION.get(municipality),
                   "status": DRAFT, "auto_id": None, "created_at": now, "version": 1} for row, finding in hits]
        if drafts:
            db[DRAFTS].insert_many([encode(d) for d in drafts])
        platforms.report_checked(db, actor, municipality, platform["cnpj"], received_on, f"Arquivo {file_name}")
    # the clerk's reception drafts every hit still waiting; the platform's person only their own list's
    autos_checked(db, actor, municipality, list_id if signature else "")
    return platform_files.FileReport(len(rows), (), list_id, len(hits))


def reconciliation_reference(municipality: str) -> str:
    """The article of the infraction a reconciliation hit points at (CG art. 30; MP art. 12 XXV)."""
    rules = registry.rules_of(municipality)
    code = RECONCILIATION_INFRACTION.get(municipality)
    return next((i.reference for i in rules.catalogue if i.code == code), rules.act)


def _draft(db: Database, actor: Actor, municipality: str, draft: dict) -> str:
    """Hand one hit to the autos de infração service as a draft auto."""
    facts = (f"Relação da plataforma {draft['platform_name']} recebida em {day(parse_date(draft['on']))}, linha "
             f"{draft['line']}: {draft['name']} (CPF {fields.show('cpf', draft['cpf'])}), veículo "
             f"{fields.show('plate', draft['plate'])} — {draft['message']} ({draft['reference']}).")
    origin = f"Conciliação da relação de {draft['platform_name']}, linha {draft['line']}"
    if db["drivers"].find_one({"municipality": municipality, "cpf": draft["cpf"]}, {"_id": 1}) is None:
        # ausência de cadastro: transporte ilegal by someone outside the register (CG art. 30; MP art. 27),
        # identified as the platform listed them (docs/LEITURAS.md §6 item 2, §7)
        return lavratura.draft_checked(db, actor, municipality, AutoInput(
            target_kind="unregistered", driver_cpf=draft["cpf"], plate=draft["plate"],
            platform_id=draft["platform_id"], offender_name=draft["name"] or "Nome não informado na relação",
            infraction_code=_unregistered_code(municipality), facts=facts, origin=origin))
    # The auto is against the driver; an unregistered plate is a fact of it, not a party to look up.
    registered = db["vehicles"].find_one({"municipality": municipality, "plate": draft["plate"]}, {"_id": 1})
    return lavratura.draft_checked(db, actor, municipality, AutoInput(
        target_kind="driver", driver_cpf=draft["cpf"], plate=draft["plate"] if registered else "",
        platform_id=draft["platform_id"], infraction_code=draft["infraction_code"], facts=facts, origin=origin))


def _unregistered_code(municipality: str) -> str:
    """The catalogue's transporte ilegal, the offence of someone outside the register (CG art. 30; MP art. 27)."""
    return next(i.code for i in registry.rules_of(municipality).catalogue if i.unregistered)


@checked
def draft_autos(db: Database, actor: Actor, municipality: str) -> int:
    """Turn every reconciliation hit still without an auto into a draft auto; returns how many were
    drafted now. A hit is drafted once (conditional on its version)."""
    authorize(actor, "write", municipality)
    return autos_checked(db, actor, municipality)


def autos_checked(db: Database, actor: Actor, municipality: str, list_id: str = "") -> int:
    """:func:`draft_autos` for a service that has already authorized its actor (:func:`receive_checked`);
    with ``list_id``, only that list's hits."""
    drafted = 0
    query = {"municipality": municipality, "status": DRAFT, **({"list_id": list_id} if list_id else {})}
    for raw in db[DRAFTS].find(query):
        draft = platform_files.plain(raw)
        try:
            with store.transaction(db):
                auto_id = _draft(db, actor, municipality, draft)
                done = db[DRAFTS].update_one({"_id": raw["_id"], "version": draft["version"]},
                                             {"$set": {"status": AUTO_DRAFTED, "auto_id": str(auto_id)},
                                              "$inc": {"version": 1}})
                if done.modified_count:
                    audit.record(db, actor, municipality, "update", DRAFTS, draft["id"], {"status": DRAFT},
                                 {"status": AUTO_DRAFTED, "auto_id": str(auto_id)},
                                 note="Auto de infração em rascunho")
                    drafted += 1
        except ServiceError:  # the auto service refused this one: it stays a draft for the clerk
            continue
    return drafted


@checked
def drafts(db: Database, actor: Actor, municipality: str, list_id: str = "") -> list[dict]:
    """Reconciliation hits (drafts for the clerk), newest list first; of one list when given."""
    authorize(actor, "read", municipality)
    query = {"municipality": municipality, **({"list_id": list_id} if list_id else {})}
    docs = db[DRAFTS].find(query).sort([("on", -1), ("line", 1)])
    return [{**d, "on": parse_date(d["on"])} for d in map(platform_files.plain, docs)]


@checked
def received_lists(db: Database, actor: Actor, municipality: str) -> list[dict]:
    """Lists received, newest first (without their rows)."""
    authorize(actor, "read", municipality)
    docs = db[LISTS].find({"municipality": municipality}, {"rows": 0}).sort([("received_on", -1), ("_id", -1)])
    return [{**d, "received_on": parse_date(d["received_on"])} for d in map(platform_files.plain, docs)]


@checked
def list_file(db: Database, actor: Actor, municipality: str, list_id: str) -> tuple[str, bytes]:
    """The file of a received list, as received: (name, bytes)."""
    authorize(actor, "read", municipality)
    doc = db[LISTS].find_one({"_id": platform_files.object_id(list_id, "Relação não encontrada."),
                              "municipality": municipality})
    if doc is None:
        raise NotFound("Relação não encontrada.")
    return doc["file_name"], store.get_file(db, doc["file_sha"])


@dataclass(frozen=True)
class ListStatus:
    platform_id: str
    platform_name: str
    last_received: date | None
    due: date
    late: bool
    message: str
    reference: str


@checked
def list_statuses(db: Database, actor: Actor, municipality: str, on: date) -> list[ListStatus]:
    """Each credentialed platform's next list and whether it is late on ``on`` (two queries)."""
    authorize(actor, "read", municipality)
    rules = registry.rules_of(municipality)
    calendar = parameters.calendar(db, municipality, on)
    received = defaultdict(list)
    for doc in db[LISTS].find({"municipality": municipality}, {"platform_id": 1, "received_on": 1}):
        received[doc["platform_id"]].append(parse_date(doc["received_on"]))
    out = []
    for raw in db["platforms"].find({"municipality": municipality, "status": "ativo"}).sort("name", 1):
        doc = platform_files.plain(raw)
        credentialed = parse_date(doc.get("credentialed_on"))
        if credentialed is None or credentialed > on:
            continue
        found = rule.list_due(received[doc["id"]], credentialed, on, rules.list_period, calendar, rules.ref("lists"))
        last = max((d for d in received[doc["id"]] if d <= on), default=None)
        out.append(ListStatus(doc["id"], doc["name"], last, found.due, found.late, found.finding.message,
                              found.finding.reference))
    return out


@checked
def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """Lists late or due within the queue's horizon on ``on``."""
    authorize(actor, "read", municipality)
    return [Pendencia(s.due, "Relação da plataforma", "", "", "", f"{s.platform_name}: {s.message}", s.reference,
                      s.late, "", ("platforms", s.platform_id))
            for s in list_statuses(db, actor, municipality, on) if s.late or s.due <= on + timedelta(days=HORIZON_DAYS)]
