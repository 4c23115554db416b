"""Trip data the platforms owe the municipality: requests for it and the files they hand in
(rules in rules/ridehailing/obligations.py).

- Data requests (CG art. 11 §2º; MP art. 4º §2º): justification, notification instant (UTC stored,
  Cuiabá shown) and the 24-hour deadline, late to the minute; an unanswered one goes to the work
  queue (:func:`pending`). A platform with an active electronic domicile receives the request there
  (its PDF, ``data_request_pdf``) and the 24 hours run from the delivery, to the minute; it answers on
  the portal with a signed file (``services.ridehailing.data_answers``).
- Trip data (CG art. 11 §1º; MP art. 4º §1º): CSV import with a dry run reporting each bad row
  (line, column, pt-BR message), then commit. The ISSQN of each vehicle and month is computed from
  these trips (``services.ridehailing.issqn``).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date, datetime, time

from bson import ObjectId
from pymongo.database import Database

from rules import fmt
from rules.fmt import moment
from rules.ridehailing import obligations as rule
from services import store
from services.ridehailing import platform_files, registry
from services.ridehailing.queue_item import Pendencia
from services.shared import audit, authenticity, clock, domicile, entities, fields, municipalities
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.entity_files import RowError
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.store import decode, encode, insert_one

REQUESTS, TRIPS, TRIP_IMPORTS = "platform_data_requests", "platform_trips", "platform_trip_imports"

INDEXES = {
    REQUESTS: [([("municipality", 1), ("answered_at", 1), ("notified_at", -1)], {"name": "i_platform_requests"}),
               # the platform person's own requests on the portal (data_answers): the list and one by its code
               ([("municipality", 1), ("platform_id", 1), ("notified_at", -1), ("_id", -1)],
                {"name": "i_platform_requests_own"})],
    TRIPS: [([("municipality", 1), ("platform_id", 1), ("competence", 1), ("plate", 1)], {"name": "i_platform_trips"})],
    TRIP_IMPORTS: [([("municipality", 1), ("platform_id", 1), ("file_sha", 1)],
                     {"unique": True, "name": "u_platform_trip_imports"})],
}


def prepare(db: Database) -> None:
    """Indexes of this module's collections (idempotent; called from bootstrap.prepare)."""
    store.ensure_indexes(db, INDEXES)


class TripsAlreadyImported(Conflict):
    """The same trip file was imported for the platform before."""


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
    channel: str = "registrado pelo servidor"
    answer: dict | None = None

    @property
    def situation(self) -> str:
        if self.answered_at is not None:
            return "Respondido com atraso" if self.late else "Respondido no prazo"
        return "Atrasado" if self.late else "Aguardando resposta"


def _aware(value: datetime, name: str, label: str) -> datetime:
    if not isinstance(value, datetime):
        raise ValidationFailed({name: f"{label}: informe data e hora."})
    return value if value.tzinfo else value.replace(tzinfo=clock.LOCAL_TZ)


CATEGORY = "pedido_de_dados"
DOMICILE_CHANNEL = "domicílio eletrônico"
name_codes("category", {CATEGORY: "Pedido de dados de viagem"})  # the Auditoria names the domicile's category


def _period_errors(period_from: date | None, period_to: date | None) -> dict[str, str]:
    if period_from and period_to and period_from > period_to:
        return {"period_to": "Período: o fim não pode ser anterior ao início."}
    return {}


@checked
def request_data(db: Database, actor: Actor, municipality: str, platform_id: str, justification: str,
                 notified_at: datetime | None = None, period_from: date | None = None,
                 period_to: date | None = None) -> str:
    """Record a justified request for trip data; the deadline is 24 hours from the notification (CG art.
    11 §2º; MP art. 4º §2º). A platform with an active electronic domicile receives it there now (the
    request's PDF) and the 24 hours run from that delivery, to the minute; otherwise ``notified_at`` is the
    instant the clerk notified it by other means (a naive instant is Cuiabá time)."""
    authorize(actor, "write", municipality)
    errors = _period_errors(period_from, period_to)
    if not (justification or "").strip():
        errors["justification"] = "Justificativa: obrigatória (CG art. 11 caput; MP art. 4º caput)."
    platform = entities.get(db, actor, "platforms", municipality, platform_id)
    electronic = domicile.active(db, municipality, "plataforma", platform.get("cnpj") or "")
    notified = None
    if not electronic:
        try:
            notified = _aware(notified_at, "notified_at", "Notificada em")
            if notified > clock.now_utc():
                errors["notified_at"] = "Notificada em: não pode ser posterior a agora."
        except ValidationFailed as exc:
            errors.update(exc.errors)
    if errors:
        raise ValidationFailed(errors)
    oid = ObjectId()
    doc = {"_id": oid, "municipality": municipality, "platform_id": platform_id, "platform_name": platform["name"],
           "justification": fields.parse("textarea", justification), "period_from": period_from,
           "period_to": period_to, "notified_at": notified, "answered_at": None, "code": secrets.token_urlsafe(9),
           "channel": DOMICILE_CHANNEL if electronic else "", "created_at": clock.now_utc(),
           "created_by": actor.username, "version": 1}
    with store.transaction(db):
        if electronic:
            doc["notified_at"] = clock.now_utc()
            message = domicile.deliver(db, actor, municipality, "plataforma", platform["cnpj"],
                                       title="Pedido de dados de viagem (prazo de 24 horas)", category=CATEGORY,
                                       pdf=_request_pdf(db, actor, municipality, platform, doc),
                                       ref={"collection": REQUESTS, "id": str(oid)})
            doc.update(notified_at=message["delivered_at"], message_id=message["id"])
        doc["deadline_at"] = rule.data_request_deadline(doc["notified_at"])
        insert_one(db[REQUESTS], encode(doc))
        audit.record(db, actor, municipality, "create", REQUESTS, oid, {}, {k: v for k, v in doc.items() if k != "_id"},
                     note=f"Pedido de dados de viagem a {platform['name']}"
                          + (" entregue no domicílio eletrônico" if electronic else ""))
    return str(oid)


def _request_pdf(db: Database, actor: Actor, municipality: str, platform: dict, doc: dict) -> bytes:
    # here: the panel's start imports this module, and its first page loads no PDF library (tests/test_startup_imports.py)
    from services.ridehailing.data_request_pdf import DataRequestPrint, render_data_request

    town = municipalities.get(db, municipality)
    delivered = clock.to_local(clock.now_utc())
    data = DataRequestPrint(
        municipality_name=town.name, secretariat=town.secretariat, municipality_address=town.address,
        platform_name=platform["name"], platform_cnpj=fields.show("cnpj", platform["cnpj"]),
        justification=doc["justification"], period_from=doc["period_from"], period_to=doc["period_to"],
        delivered_at=delivered, deadline=rule.data_request_deadline(delivered),
        legal_basis=registry.rules_of(municipality).ref("data_request"), head=municipalities.letterhead(db, municipality))
    item = authenticity.Item("pedido_dados", platform["name"], (REQUESTS, str(doc["_id"])), data)
    return authenticity.issue(db, actor, municipality, item, lambda stamp: render_data_request(data, stamp))


@checked
def answer_data_request(db: Database, actor: Actor, municipality: str, request_id: str, answered_at: datetime) -> None:
    """Record when the platform handed the data over (once)."""
    authorize(actor, "write", municipality)
    answered = _aware(answered_at, "answered_at", "Respondido em")
    doc = db[REQUESTS].find_one({"_id": platform_files.object_id(request_id, "Pedido não encontrado."),
                                 "municipality": municipality})
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


@checked
def data_requests(db: Database, actor: Actor, municipality: str, now: datetime | None = None,
                  open_only: bool = False) -> list[DataRequestRow]:
    """Data requests, newest first, with the deadline and whether each is late at ``now``."""
    authorize(actor, "read", municipality)
    now = now or clock.now_utc()
    ref = registry.rules_of(municipality).ref("data_request")
    query = {"municipality": municipality, **({"answered_at": None} if open_only else {})}
    rows = []
    for doc in map(platform_files.plain, db[REQUESTS].find(query).sort([("notified_at", -1), ("_id", -1)])):
        rows.append(DataRequestRow(doc["id"], doc["platform_name"], doc["justification"], doc["notified_at"],
                                   doc["deadline_at"], doc["answered_at"],
                                   rule.data_request_late(doc["notified_at"], doc["answered_at"], now), ref,
                                   doc.get("channel") or "registrado pelo servidor", doc.get("answer")))
    return rows


# ---- trip data ----

def _trip_rows(municipality: str, rows: list[dict[str, str]]) -> tuple[list[dict], list[RowError], int]:
    names = {c.name: c.label for c in rule.TRIP_COLUMNS if c.required}
    errors = platform_files.missing_columns(rows, names)
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


@checked
def import_trips(db: Database, actor: Actor, municipality: str, platform_id: str, data: bytes, file_name: str,
                 commit: bool = False) -> platform_files.FileReport:
    """Check a trip data file (dry run, every bad row with line, column and message); with ``commit``
    and no bad row, keep the file and every trip. The same file twice for a platform is refused."""
    authorize(actor, "write", municipality)
    platform = entities.get(db, actor, "platforms", municipality, platform_id)
    return import_checked(db, actor, municipality, platform_id, platform["name"], data, file_name, commit)


def import_checked(db: Database, actor: Actor, municipality: str, platform_id: str, platform_name: str, data: bytes,
                   file_name: str, commit: bool, signature: dict | None = None) -> platform_files.FileReport:
    """:func:`import_trips` for a service that has already authorized its actor and found the platform (the
    portal's signed trip file, ``data_answers.send_trip_file``, which hands its verified ``signature``)."""
    rows, errors, count = _trip_rows(municipality, platform_files.read_table(data, file_name, "trip_file"))
    report = platform_files.FileReport(count, tuple(errors))
    if errors or not commit:
        return report
    sha = store.put_file(db, data, file_name)
    if store.exists(db[TRIP_IMPORTS], {"municipality": municipality, "platform_id": platform_id, "file_sha": sha}):
        raise TripsAlreadyImported("Este arquivo de viagens já foi importado para esta plataforma.")
    now = clock.now_utc()
    with store.transaction(db):
        batch = {"municipality": municipality, "platform_id": platform_id, "platform_name": platform_name,
                 "file_sha": sha, "file_name": file_name, "trips": len(rows), "created_at": now,
                 "created_by": actor.username, **({"signature": signature} if signature else {})}
        try:
            import_id = str(insert_one(db[TRIP_IMPORTS], encode(batch)))
        except store.DuplicateKeyError:
            raise TripsAlreadyImported("Este arquivo de viagens já foi importado para esta plataforma.") from None
        if rows:
            db[TRIPS].insert_many([encode({**r, "municipality": municipality, "platform_id": platform_id,
                                           "import_id": import_id}) for r in rows])
        audit.record(db, actor, municipality, "import", TRIP_IMPORTS, import_id, {}, batch,
                     note=f"{fmt.count(len(rows), 'viagem', 'viagens')} de {platform_name} "
                          + fmt.plural(len(rows), "importada", "importadas"))
    return platform_files.FileReport(len(rows), (), import_id)


# ---- the work queue ----

def _end_of(on: date) -> datetime:
    return datetime.combine(on, time(23, 59), tzinfo=clock.LOCAL_TZ)


@checked
def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """Data requests unanswered (late ones flagged at the current minute when ``on`` is today, else at
    the end of ``on``)."""
    authorize(actor, "read", municipality)
    items = []
    now = clock.now_utc() if on == clock.today() else _end_of(on)
    for r in data_requests(db, actor, municipality, now, open_only=True):
        deadline = clock.to_local(r.deadline)
        items.append(Pendencia(deadline.date(), "Dados de viagem", "", "", "",
                               f"{r.platform_name}: dados devidos até {moment(deadline)} (Cuiabá)", r.reference,
                               r.late, "", (REQUESTS, r.id)))
    return items
