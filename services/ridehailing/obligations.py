"""Platforms' obligations in the store: lists received and reconciled, trip data requests, trip data
imports and ISSQN per vehicle and month, each with its article (rules/ridehailing/obligations.py).

- Lists (CG art. 5º VIII every 60 days; MP art. 5º IX monthly) are received with their file
  (``store.put_file``); the rows (CPF, placa, nome) are reconciled against the register in one pass
  (one ``$in`` query for the authorizations of the list's CPFs and plates): every row without an
  active authorization of that driver and vehicle (CG art. 30; MP art. 12 XXV / art. 26 III d)
  becomes a draft (``platform_drafts``) for the clerk to review; :func:`_draft` hands it to the
  autos de infração service when there is one.
- Data requests (CG art. 11 §2º; MP art. 4º §2º): justification, notification instant (UTC stored,
  Cuiabá shown) and the 24-hour deadline, late to the minute.
- Trip data (CG art. 11 §1º; MP art. 4º §1º): CSV import with a dry run reporting each bad row
  (line, column, pt-BR message), then commit.
- ISSQN (CG art. 19; MP art. 10): per vehicle and month from the reported trip values at the rate
  in force (``issqn_rate``, dated), DAM to the platform (``services.dam.dams.issue``), paid by the
  DAM-paid event.
"""
from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.fmt import brl, day, moment
from rules.params import ParameterMissing
from rules.ridehailing import obligations as rule
from services import store
from services.dam import dams
from services.ridehailing import platforms, registry
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import audit, clock, entities, events, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.entity_files import RowError
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import decode, encode, insert_one, parse_date

LISTS, DRAFTS, REQUESTS = "platform_lists", "platform_drafts", "platform_data_requests"
TRIPS, TRIP_IMPORTS, ISSQN = "platform_trips", "platform_trip_imports", "platform_issqn"
RATE_PARAMETER = "issqn_rate"  # fraction of the trip value (CTM); no default: TI sets it (Implantação)
ISSQN_REVENUE = "outras"  # services.dam.dams has no ISSQN revenue kind yet
RECONCILIATION_INFRACTION = {"chapada": "CG-30", "matupa": "MP-12-XXV"}  # CG art. 30; MP art. 12 XXV
DRAFT, AUTO_DRAFTED = "rascunho", "auto_em_rascunho"
LIST_COLUMNS = {"cpf": "CPF", "placa": "Placa", "nome": "Nome"}

INDEXES = {
    LISTS: [([("municipality", 1), ("platform_id", 1), ("received_on", -1)], {"name": "i_platform_lists"})],
    DRAFTS: [([("municipality", 1), ("status", 1), ("list_id", 1)], {"name": "i_platform_drafts"})],
    REQUESTS: [([("municipality", 1), ("answered_at", 1), ("notified_at", -1)], {"name": "i_platform_requests"})],
    TRIPS: [([("municipality", 1), ("platform_id", 1), ("competence", 1), ("plate", 1)], {"name": "i_platform_trips"})],
    TRIP_IMPORTS: [([("municipality", 1), ("platform_id", 1), ("file_sha", 1)],
                     {"unique": True, "name": "u_platform_trip_imports"})],
    ISSQN: [([("municipality", 1), ("platform_id", 1), ("competence", 1), ("plate", 1)],
             {"unique": True, "name": "u_platform_issqn"})],
}


def prepare(db: Database) -> None:
    """Indexes of this module's collections (idempotent; called from bootstrap.prepare)."""
    store.ensure_indexes(db, INDEXES)


class TripsAlreadyImported(Conflict):
    """The same trip file was imported for the platform before."""


@dataclass(frozen=True)
class FileReport:
    """A dry run or a commit of a received file: rows read, bad rows, and what was written."""

    rows: int
    errors: tuple[RowError, ...]
    record_id: str = ""
    hits: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


# ---- shared helpers ----

def _oid(doc_id: str, missing: str) -> ObjectId:
    try:
        return ObjectId(str(doc_id))
    except (InvalidId, TypeError):
        raise NotFound(missing) from None


def _plain(doc: dict) -> dict:
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def _platform(db: Database, actor: Actor, municipality: str, platform_id: str) -> dict:
    return entities.get(db, actor, "platforms", municipality, platform_id)


def _table(data: bytes, file_name: str) -> list[dict[str, str]]:
    """Rows of a CSV (``;`` or ``,``, UTF-8) or XLSX file as {lower-case heading: text}."""
    if not data:
        raise ValidationFailed({"file": "O arquivo está vazio."})
    if file_name.lower().endswith(".xlsx"):
        import pandas as pd

        try:
            frame = pd.read_excel(io.BytesIO(data), dtype=str, engine="openpyxl").fillna("")
        except Exception:  # noqa: BLE001 — any unreadable workbook is the same answer to the user
            raise ValidationFailed({"file": "Não foi possível ler a planilha XLSX; confira o arquivo."}) from None
        return [{str(k).strip().lower(): str(v).strip() for k, v in row.items()} for row in frame.to_dict("records")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed({"file": "O arquivo não está em UTF-8; salve o CSV como UTF-8 e envie de novo."}) from None
    lines = text.splitlines()
    if not lines:
        raise ValidationFailed({"file": "O arquivo está vazio."})
    reader = csv.DictReader(io.StringIO(text), delimiter=";" if ";" in lines[0] else ",")
    return [{str(k).strip().lower(): (v or "").strip() for k, v in row.items() if k is not None} for row in reader]


def _missing_columns(rows: list[dict[str, str]], names: dict[str, str]) -> list[RowError]:
    if not rows:
        return [RowError(1, "arquivo", "nenhuma linha de dados")]
    present = set(rows[0])
    return [RowError(1, label, "coluna obrigatória ausente") for name, label in names.items() if name not in present]


# ---- lists and reconciliation ----

def _list_rows(rows: list[dict[str, str]]) -> tuple[list[dict], list[RowError]]:
    errors = _missing_columns(rows, LIST_COLUMNS)
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
    for raw in db["authorizations"].find(query, registry.ROW_FIELDS).sort([("protocol_date", 1), ("_id", 1)]):
        doc = decode(raw)
        found.append(rule.Registered(doc["driver_cpf"], doc["plate"], doc.get("number") or doc["protocol"],
                                     scope.state(doc, on)))
    return found


def receive_list(db: Database, actor: Actor, municipality: str, platform_id: str, received_on: date, data: bytes,
                 file_name: str, commit: bool = False) -> FileReport:
    """Check a list of drivers and vehicles (dry run); with ``commit`` and no bad row, keep the file,
    the list and its reconciliation on ``received_on``; each hit becomes a draft."""
    authorize(actor, "write", municipality)
    platform = _platform(db, actor, municipality, platform_id)
    if not isinstance(received_on, date) or received_on > clock.today():
        raise ValidationFailed({"received_on": "Recebida em: informe uma data até hoje."})
    rows, errors = _list_rows(_table(data, file_name))
    report = FileReport(len(rows), tuple(errors))
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
               "version": 1}
        list_id = str(insert_one(db[LISTS], encode(doc)))
        audit.record(db, actor, municipality, "create", LISTS, list_id, {},
                     {k: v for k, v in doc.items() if k != "rows"},
                     note=f"Relação de {platform['name']} recebida: {len(rows)} linhas, {len(hits)} irregulares")
        drafts = [{"municipality": municipality, "list_id": list_id, "platform_id": platform_id,
                   "platform_name": platform["name"], "on": received_on, "line": row["line"], "cpf": row["cpf"],
                   "plate": row["placa"], "name": row["name"], "message": finding.message,
                   "reference": finding.reference, "infraction_code": RECONCILIATION_INFRACTION.get(municipality),
                   "status": DRAFT, "auto_id": None, "created_at": now, "version": 1} for row, finding in hits]
        if drafts:
            db[DRAFTS].insert_many([encode(d) for d in drafts])
        platforms.add_report(db, actor, municipality, platform["cnpj"], "lista", received_on,
                                         f"Arquivo {file_name}")
    draft_autos(db, actor, municipality)
    return FileReport(len(rows), (), list_id, len(hits))


def reconciliation_reference(municipality: str) -> str:
    """The article of the infraction a reconciliation hit points at (CG art. 30; MP art. 12 XXV)."""
    rules = registry.rules_of(municipality)
    code = RECONCILIATION_INFRACTION.get(municipality)
    return next((i.reference for i in rules.catalogue if i.code == code), rules.act)


def _draft(db: Database, actor: Actor, municipality: str, draft: dict) -> str | None:
    """Hand one hit to the autos de infração service as a draft auto; None while there is none."""
    try:
        from services.ridehailing.enforcement import (
            autos,  # written by another part of the project
        )
    except ImportError:
        return None
    facts = (f"Relação da plataforma {draft['platform_name']} recebida em {day(parse_date(draft['on']))}, linha "
             f"{draft['line']}: {draft['name']} (CPF {fields.show('cpf', draft['cpf'])}), veículo "
             f"{fields.show('plate', draft['plate'])} — {draft['message']} ({draft['reference']}).")
    # The auto is against the driver; an unregistered plate is a fact of it, not a party to look up.
    registered = db["vehicles"].find_one({"municipality": municipality, "plate": draft["plate"]}, {"_id": 1})
    return autos.draft_auto(db, actor, municipality, target_kind="driver", driver_cpf=draft["cpf"],
                                  plate=draft["plate"] if registered else "", platform_id=draft["platform_id"],
                                  infraction_code=draft["infraction_code"], facts=facts,
                                  origin=f"Conciliação da relação de {draft['platform_name']}, linha {draft['line']}")


def draft_autos(db: Database, actor: Actor, municipality: str) -> int:
    """Turn every reconciliation hit still without an auto into a draft auto (when the autos service
    exists); returns how many were drafted now. A hit is drafted once (conditional on its version)."""
    authorize(actor, "write", municipality)
    drafted = 0
    for raw in db[DRAFTS].find({"municipality": municipality, "status": DRAFT}):
        draft = _plain(raw)
        try:
            with store.transaction(db):
                auto_id = _draft(db, actor, municipality, draft)
                if auto_id is None:
                    return drafted
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


def drafts(db: Database, actor: Actor, municipality: str, list_id: str = "") -> list[dict]:
    """Reconciliation hits (drafts for the clerk), newest list first; of one list when given."""
    authorize(actor, "read", municipality)
    query = {"municipality": municipality, **({"list_id": list_id} if list_id else {})}
    return [{**d, "on": parse_date(d["on"])} for d in map(_plain, db[DRAFTS].find(query).sort([("on", -1), ("line", 1)]))]


def received_lists(db: Database, actor: Actor, municipality: str) -> list[dict]:
    """Lists received, newest first (without their rows)."""
    authorize(actor, "read", municipality)
    docs = db[LISTS].find({"municipality": municipality}, {"rows": 0}).sort([("received_on", -1), ("_id", -1)])
    return [{**d, "received_on": parse_date(d["received_on"])} for d in map(_plain, docs)]


def list_file(db: Database, actor: Actor, municipality: str, list_id: str) -> tuple[str, bytes]:
    """The file of a received list, as received: (name, bytes)."""
    authorize(actor, "read", municipality)
    doc = db[LISTS].find_one({"_id": _oid(list_id, "Relação não encontrada."), "municipality": municipality})
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
        doc = _plain(raw)
        credentialed = parse_date(doc.get("credentialed_on"))
        if credentialed is None or credentialed > on:
            continue
        found = rule.list_due(received[doc["id"]], credentialed, on, rules.list_period, calendar, rules.ref("lists"))
        last = max((d for d in received[doc["id"]] if d <= on), default=None)
        out.append(ListStatus(doc["id"], doc["name"], last, found.due, found.late, found.finding.message,
                              found.finding.reference))
    return out


# ---- data requests ----

@dataclass(frozen=True)
class DataRequestRow:
    id: str
    platform_name: str
    justification: str
    notified_at: datetime
    deadline: datetime
    answered_at: datetime | None
    late: bool
    reference: str

    @property
    def situation(self) -> str:
        if self.answered_at is not None:
            return "Respondido com atraso" if self.late else "Respondido no prazo"
        return "Atrasado" if self.late else "Aguardando resposta"


def _aware(value: datetime, name: str, label: str) -> datetime:
    if not isinstance(value, datetime):
        raise ValidationFailed({name: f"{label}: informe data e hora."})
    return value if value.tzinfo else value.replace(tzinfo=clock.LOCAL_TZ)


def request_data(db: Database, actor: Actor, municipality: str, platform_id: str, justification: str,
                 notified_at: datetime) -> str:
    """Record a justified request for trip data and the instant the platform was notified (a naive
    instant is Cuiabá time); the deadline is 24 hours later (CG art. 11 §2º; MP art. 4º §2º)."""
    authorize(actor, "write", municipality)
    errors = {}
    if not (justification or "").strip():
        errors["justification"] = "Justificativa: obrigatória (CG art. 11 caput; MP art. 4º caput)."
    try:
        notified = _aware(notified_at, "notified_at", "Notificada em")
        if notified > clock.now_utc():
            errors["notified_at"] = "Notificada em: não pode ser posterior a agora."
    except ValidationFailed as exc:
        errors.update(exc.errors)
    if errors:
        raise ValidationFailed(errors)
    platform = _platform(db, actor, municipality, platform_id)
    doc = {"municipality": municipality, "platform_id": platform_id, "platform_name": platform["name"],
           "justification": fields.parse("textarea", justification), "notified_at": notified,
           "deadline_at": rule.data_request_deadline(notified), "answered_at": None,
           "created_at": clock.now_utc(), "created_by": actor.username, "version": 1}
    with store.transaction(db):
        request_id = str(insert_one(db[REQUESTS], encode(doc)))
        audit.record(db, actor, municipality, "create", REQUESTS, request_id, {}, doc,
                     note=f"Pedido de dados de viagem a {platform['name']}")
    return request_id


def answer_data_request(db: Database, actor: Actor, municipality: str, request_id: str, answered_at: datetime) -> None:
    """Record when the platform handed the data over (once)."""
    authorize(actor, "write", municipality)
    answered = _aware(answered_at, "answered_at", "Respondido em")
    doc = db[REQUESTS].find_one({"_id": _oid(request_id, "Pedido não encontrado."), "municipality": municipality})
    if doc is None:
        raise NotFound("Pedido não encontrado.")
    notified = decode(doc["notified_at"])
    if answered < notified or answered > clock.now_utc():
        raise ValidationFailed({"answered_at": "Respondido em: entre a notificação e agora."})
    with store.transaction(db):
        done = db[REQUESTS].update_one({"_id": doc["_id"], "version": doc["version"], "answered_at": None},
                                       {"$set": {"answered_at": encode(answered)}, "$inc": {"version": 1}})
        if not done.modified_count:
            raise Conflict("Este pedido já foi respondido ou mudou enquanto era editado; recarregue.")
        audit.record(db, actor, municipality, "update", REQUESTS, request_id, {"answered_at": None},
                     {"answered_at": answered}, note="Resposta da plataforma registrada")


def data_requests(db: Database, actor: Actor, municipality: str, now: datetime | None = None,
                  open_only: bool = False) -> list[DataRequestRow]:
    """Data requests, newest first, with the deadline and whether each is late at ``now``."""
    authorize(actor, "read", municipality)
    now = now or clock.now_utc()
    ref = registry.rules_of(municipality).ref("data_request")
    query = {"municipality": municipality, **({"answered_at": None} if open_only else {})}
    rows = []
    for doc in map(_plain, db[REQUESTS].find(query).sort([("notified_at", -1), ("_id", -1)])):
        rows.append(DataRequestRow(doc["id"], doc["platform_name"], doc["justification"], doc["notified_at"],
                                   doc["deadline_at"], doc["answered_at"],
                                   rule.data_request_late(doc["notified_at"], doc["answered_at"], now), ref))
    return rows


# ---- trip data ----

def _trip_rows(municipality: str, rows: list[dict[str, str]]) -> tuple[list[dict], list[RowError], int]:
    names = {c.name: c.label for c in rule.TRIP_COLUMNS if c.required}
    errors = _missing_columns(rows, names)
    if errors:
        return [], errors, 0
    fields_of_law = registry.rules_of(municipality).trip_data_fields
    now_local = clock.to_local(clock.now_utc()).replace(tzinfo=None)
    clean, count = [], 0
    for line, row in enumerate(rows, start=2):
        if not any(row.values()):
            continue
        count += 1
        bad = [RowError(line, column, message) for column, message in rule.trip_errors(row, fields_of_law, now_local)]
        parsed = {}
        for name, kind, label in (("cpf_condutor", "cpf", "CPF do condutor"), ("placa", "plate", "Placa")):
            if row.get(name):
                try:
                    parsed[name] = fields.parse(kind, row[name])
                except ValueError as exc:
                    bad.append(RowError(line, label, str(exc)))
        errors.extend(bad)
        if bad:
            continue
        start = rule.trip_moment(row["data_hora"]).replace(tzinfo=clock.LOCAL_TZ)
        clean.append({"line": line, "started_at": start, "trip_on": start.date(), "competence": f"{start:%Y-%m}",
                      "origin": row["origem"], "destination": row["destino"],
                      "duration_min": int(rule.trip_value(row["duracao_min"])),
                      "distance_km": rule.trip_value(row["distancia_km"]), "route_map": row["mapa"],
                      "driver_cpf": parsed["cpf_condutor"], "plate": parsed["placa"],
                      "fare": rule.trip_value(row["valor_total"]), "fare_composition": row["composicao_valor"],
                      "rating": int(row["avaliacao"]) if row.get("avaliacao") else None})
    return clean, errors, count


def import_trips(db: Database, actor: Actor, municipality: str, platform_id: str, data: bytes, file_name: str,
                 commit: bool = False) -> FileReport:
    """Check a trip data file (dry run, every bad row with line, column and message); with ``commit``
    and no bad row, keep the file and every trip. The same file twice for a platform is refused."""
    authorize(actor, "write", municipality)
    platform = _platform(db, actor, municipality, platform_id)
    rows, errors, count = _trip_rows(municipality, _table(data, file_name))
    report = FileReport(count, tuple(errors))
    if errors or not commit:
        return report
    sha = store.put_file(db, data, file_name)
    if store.exists(db[TRIP_IMPORTS], {"municipality": municipality, "platform_id": platform_id, "file_sha": sha}):
        raise TripsAlreadyImported("Este arquivo de viagens já foi importado para esta plataforma.")
    now = clock.now_utc()
    with store.transaction(db):
        batch = {"municipality": municipality, "platform_id": platform_id, "platform_name": platform["name"],
                 "file_sha": sha, "file_name": file_name, "trips": len(rows), "created_at": now,
                 "created_by": actor.username}
        try:
            import_id = str(insert_one(db[TRIP_IMPORTS], encode(batch)))
        except store.DuplicateKeyError:
            raise TripsAlreadyImported("Este arquivo de viagens já foi importado para esta plataforma.") from None
        if rows:
            db[TRIPS].insert_many([encode({**r, "municipality": municipality, "platform_id": platform_id,
                                           "import_id": import_id}) for r in rows])
        audit.record(db, actor, municipality, "import", TRIP_IMPORTS, import_id, {}, batch,
                     note=f"{len(rows)} viagens de {platform['name']} importadas")
    return FileReport(len(rows), (), import_id)


# ---- ISSQN per vehicle and month ----

@dataclass(frozen=True)
class IssqnMonth:
    id: str
    platform_name: str
    plate: str
    competence: str  # "2026-03"
    trips: int
    base: Decimal
    amount: Decimal
    due: date
    dam_number: str
    paid_on: date | None
    situation: str
    reference: str


def _competence(value: date) -> str:
    return f"{value:%Y-%m}"


def assess_issqn(db: Database, actor: Actor, municipality: str, platform_id: str, competence: date) -> int:
    """Compute the ISSQN of each vehicle of the platform in the month of ``competence`` from the
    reported trips at the rate in force on each trip's day; a month whose DAM was issued is kept as
    it is. Returns how many vehicle-months were written."""
    authorize(actor, "write", municipality)
    platform = _platform(db, actor, municipality, platform_id)
    month = _competence(competence)
    book = parameters.book(db, municipality)
    by_plate: dict[str, list[tuple[date, Decimal]]] = defaultdict(list)
    for trip in db[TRIPS].find({"municipality": municipality, "platform_id": platform_id, "competence": month},
                               {"plate": 1, "trip_on": 1, "fare": 1}):
        by_plate[trip["plate"]].append((parse_date(trip["trip_on"]), decode(trip["fare"])))
    if not by_plate:
        raise ServiceError(f"Nenhuma viagem importada de {platform['name']} em {month[5:]}/{month[:4]}.")
    try:
        amounts = {plate: rule.issqn_amount(trips, lambda on: book.get(RATE_PARAMETER, on))
                   for plate, trips in by_plate.items()}
        due_day = int(book.get("issqn_due_day", competence))
    except ParameterMissing as exc:
        raise ServiceError(f"{exc.message}: peça à TI para cadastrar a alíquota do ISSQN ({RATE_PARAMETER}) "
                           "em Parâmetros.") from None
    due = rule.issqn_due(competence, due_day, parameters.calendar(db, municipality, competence))
    existing = {d["plate"]: d for d in db[ISSQN].find({"municipality": municipality, "platform_id": platform_id,
                                                       "competence": month})}
    written = 0
    with store.transaction(db):
        for plate, trips in sorted(by_plate.items()):
            values = {"trips": len(trips), "base": sum((v for _d, v in trips), Decimal("0")),
                      "amount": amounts[plate], "due_on": due}
            current = existing.get(plate)
            if current is None:
                doc = {"municipality": municipality, "platform_id": platform_id, "platform_name": platform["name"],
                       "platform_cnpj": platform["cnpj"], "plate": plate, "competence": month, **values,
                       "dam_id": None, "dam_number": "", "paid_on": None, "created_at": clock.now_utc(),
                       "version": 1}
                doc_id = insert_one(db[ISSQN], encode(doc))
                audit.record(db, actor, municipality, "create", ISSQN, doc_id, {}, doc, note="ISSQN apurado")
            elif current.get("dam_id") is None:
                done = db[ISSQN].update_one({"_id": current["_id"], "version": current["version"], "dam_id": None},
                                            {"$set": encode(values), "$inc": {"version": 1}})
                if not done.modified_count:
                    raise Conflict("O ISSQN deste mês mudou enquanto era apurado; tente de novo.")
                audit.record(db, actor, municipality, "update", ISSQN, current["_id"], decode(current), values,
                             note="ISSQN reapurado")
            else:
                continue
            written += 1
    return written


def issqn_months(db: Database, actor: Actor, municipality: str, on: date) -> list[IssqnMonth]:
    """Every assessed vehicle-month, newest first, shown as paid, overdue or open on ``on``."""
    authorize(actor, "read", municipality)
    ref = registry.rules_of(municipality).ref("issqn")
    out = []
    for doc in map(_plain, db[ISSQN].find({"municipality": municipality}).sort([("competence", -1), ("plate", 1)])):
        due, paid = parse_date(doc["due_on"]), parse_date(doc.get("paid_on"))
        out.append(IssqnMonth(doc["id"], doc["platform_name"], doc["plate"], doc["competence"], doc["trips"],
                              doc["base"], doc["amount"], due, doc.get("dam_number") or "", paid,
                              rule.issqn_situation(due, paid, on), ref))
    return out


def issue_issqn_dam(db: Database, actor: Actor, municipality: str, issqn_id: str, address: str = "") -> dict:
    """Issue the DAM of one vehicle-month to the platform (its address from the taxpayers register by
    CNPJ, or ``address``). Due on the legal due date, or today when that has passed (a DAM is never
    due before its issue; the month stays overdue)."""
    authorize(actor, "write", municipality)
    doc = db[ISSQN].find_one({"_id": _oid(issqn_id, "ISSQN não encontrado."), "municipality": municipality})
    if doc is None:
        raise NotFound("ISSQN não encontrado.")
    doc = _plain(doc)
    if doc.get("dam_id"):
        raise Conflict(f"O DAM {doc['dam_number']} deste mês já foi emitido.")
    if doc["amount"] <= 0:
        raise ServiceError("ISSQN zero: não há DAM a emitir.")
    taxpayer = db["taxpayers"].find_one({"municipality": municipality, "document": doc["platform_cnpj"]}) or {}
    address = (address or ", ".join(p for p in (taxpayer.get("address"), taxpayer.get("district")) if p)).strip()
    if not address:
        raise ValidationFailed({"address": "Endereço da plataforma: informe (não há contribuinte com este CNPJ)."})
    rules = registry.rules_of(municipality)
    month = f"{doc['competence'][5:]}/{doc['competence'][:4]}"
    label = f"ISSQN {month}, veículo {fields.show('plate', doc['plate'])}"
    with store.transaction(db):
        dam = dams.issue(
            db, actor, municipality, taxpayer_name=doc["platform_name"], taxpayer_document=doc["platform_cnpj"],
            taxpayer_address=address, revenue_kind=ISSQN_REVENUE,
            description=f"ISSQN do transporte por aplicativo, competência {month}, veículo "
                        f"{fields.show('plate', doc['plate'])}: {doc['trips']} viagens, base {brl(doc['base'])}",
            legal_basis=rules.ref("issqn"), amount=doc["amount"], due=max(parse_date(doc["due_on"]), clock.today()),
            pays={"collection": ISSQN, "id": doc["id"], "label": label})
        done = db[ISSQN].update_one({"_id": ObjectId(doc["id"]), "version": doc["version"], "dam_id": None},
                                    {"$set": {"dam_id": dam["id"], "dam_number": dam["number"]}, "$inc": {"version": 1}})
        if not done.modified_count:
            raise Conflict("O ISSQN deste mês mudou enquanto o DAM era emitido; recarregue.")
        audit.record(db, actor, municipality, "update", ISSQN, doc["id"], {"dam_id": None},
                     {"dam_id": dam["id"], "dam_number": dam["number"]}, note=f"DAM {dam['number']} emitido")
    return dam


@events.on_dam_paid(ISSQN)
def issqn_paid(db: Database, dam: dict) -> None:
    """A paid ISSQN DAM marks its vehicle-month paid on the payment date. Idempotent: the DAM is read
    from the store and must be paid and point at the month; a month already paid changes nothing."""
    try:
        stored = db[dams.COLLECTION].find_one({"_id": ObjectId(str(dam.get("id") or dam.get("_id") or "")),
                                               "status": dams.PAID})
    except (InvalidId, TypeError):
        return
    if stored is None or (stored.get("pays") or {}).get("collection") != ISSQN:
        return
    stored = dams.plain(stored)
    paid_on = (stored.get("payment") or {}).get("paid_on") or clock.today()
    target = {"_id": ObjectId(stored["pays"]["id"]), "dam_id": stored["id"], "paid_on": None}
    done = db[ISSQN].update_one(target, {"$set": {"paid_on": encode(paid_on)}, "$inc": {"version": 1}})
    if done.modified_count:
        audit.record(db, registry.DAM_ACTOR, stored["municipality"], "update", ISSQN, stored["pays"]["id"],
                     {"paid_on": None}, {"paid_on": paid_on}, note=f"DAM {stored['number']} pago")


# ---- pendências ----

def _end_of(on: date) -> datetime:
    return datetime.combine(on, time(23, 59), tzinfo=clock.LOCAL_TZ)


def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[Any]:
    """Lists late or due within the queue's horizon, and data requests unanswered (late ones
    flagged at the current minute when ``on`` is today, else at the end of ``on``)."""
    authorize(actor, "read", municipality)
    items = [Pendencia(s.due, "Relação da plataforma", "", "", "", f"{s.platform_name}: {s.message}", s.reference,
                       s.late, "")
             for s in list_statuses(db, actor, municipality, on) if s.late or s.due <= on + timedelta(days=HORIZON_DAYS)]
    now = clock.now_utc() if on == clock.today() else _end_of(on)
    for r in data_requests(db, actor, municipality, now, open_only=True):
        deadline = clock.to_local(r.deadline)
        items.append(Pendencia(deadline.date(), "Dados de viagem", "", "", "",
                               f"{r.platform_name}: dados devidos até {moment(deadline)} (Cuiabá)", r.reference,
                               r.late, ""))
    return items
