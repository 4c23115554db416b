"""ISSQN of ride-hailing per vehicle and month (CG art. 19; MP art. 10; rules in
rules/ridehailing/obligations.py).

Computed from the trip values the platform reported (``services.ridehailing.trip_data``) at the rate in
force on each trip's day (``issqn_rate``, dated), due on the rule set's day of the next month; its
DAM goes to the platform (``services.dam.dams.issue``) and is settled by the DAM-paid event
(:func:`issqn_paid`).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from bson import ObjectId
from pymongo.database import Database

from rules.fmt import brl
from rules.params import ParameterMissing
from rules.ridehailing import obligations as rule
from rules.ridehailing import settlement
from services import store
from services.dam import dams, rebill
from services.ridehailing import charge_links, platform_files, registry, trip_data
from services.shared import audit, clock, entities, events, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import decode, encode, insert_one, parse_date

ISSQN = "platform_issqn"
RATE_PARAMETER = "issqn_rate"  # fraction of the trip value (CTM); no default: TI sets it (Implantação)
ISSQN_REVENUE = "outras"  # services.dam.dams has no ISSQN revenue kind yet

INDEXES = {
    ISSQN: [([("municipality", 1), ("platform_id", 1), ("competence", 1), ("plate", 1)],
             {"unique": True, "name": "u_platform_issqn"})],
}


def prepare(db: Database) -> None:
    """Indexes of this module's collections (idempotent; called from bootstrap.prepare)."""
    store.ensure_indexes(db, INDEXES)


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
    needs_dam: bool = False  # no DAM yet, or its charge is owed with no DAM to pay (cancelled, paid short)
    payment: str = ""  # the charge's standing: paid on, paid short, the DAM to pay


def _competence(value: date) -> str:
    return f"{value:%Y-%m}"


@checked
def assess_issqn(db: Database, actor: Actor, municipality: str, platform_id: str, competence: date) -> int:
    """Compute the ISSQN of each vehicle of the platform in the month of ``competence`` from the
    reported trips at the rate in force on each trip's day; a month whose DAM was issued is kept as
    it is. Returns how many vehicle-months were written."""
    authorize(actor, "write", municipality)
    platform = entities.get(db, actor, "platforms", municipality, platform_id)
    month = _competence(competence)
    book = parameters.book(db, municipality)
    by_plate: dict[str, list[tuple[date, Decimal]]] = defaultdict(list)
    for trip in db[trip_data.TRIPS].find({"municipality": municipality, "platform_id": platform_id,
                                          "competence": month},
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


@checked
def issqn_months(db: Database, actor: Actor, municipality: str, on: date) -> list[IssqnMonth]:
    """Every assessed vehicle-month, newest first, shown as paid, overdue or open on ``on``; its DAM
    and payment as its charge (débito) has them: the live DAM (a 2ª via), a short payment, a
    cancelled DAM waiting for a new one."""
    authorize(actor, "read", municipality)
    ref = registry.rules_of(municipality).ref("issqn")
    docs = list(map(platform_files.plain, db[ISSQN].find({"municipality": municipality}).sort(
        [("competence", -1), ("plate", 1)])))
    found = charge_links.by_id(db, [d.get("charge_id") for d in docs])
    out = []
    for doc in docs:
        due, paid = parse_date(doc["due_on"]), parse_date(doc.get("paid_on"))
        charge = found.get(doc.get("charge_id") or "")
        current = charge_links.live(charge) if charge else None
        number = current["number"] if current else doc.get("dam_number") or ""
        needs = not doc.get("dam_id") or (paid is None and charge_links.reissuable(charge))
        out.append(IssqnMonth(doc["id"], doc["platform_name"], doc["plate"], doc["competence"], doc["trips"],
                              doc["base"], doc["amount"], due, number, paid, rule.issqn_situation(due, paid, on), ref,
                              needs, charge_links.standing_text(charge) if charge else ""))
    return out


@checked
def issue_issqn_dam(db: Database, actor: Actor, municipality: str, issqn_id: str, address: str = "") -> dict:
    """Issue the DAM of one vehicle-month to the platform (its address from the taxpayers register by
    CNPJ, or ``address``). Due on the legal due date, or today when that has passed (a DAM is never
    due before its issue; the month stays overdue). The month is one charge (débito): when its DAM was
    cancelled or paid short, the new DAM is of that charge and charges what is still open."""
    authorize(actor, "write", municipality)
    doc = db[ISSQN].find_one({"_id": platform_files.object_id(issqn_id, "ISSQN não encontrado."),
                              "municipality": municipality})
    if doc is None:
        raise NotFound("ISSQN não encontrado.")
    doc = platform_files.plain(doc)
    due = max(parse_date(doc["due_on"]), clock.today())
    if doc.get("dam_id"):
        charge = charge_links.of_link(db, doc, "dam_id")
        if not charge_links.reissuable(charge):
            raise Conflict(f"O DAM {doc['dam_number']} deste mês já foi emitido.")
        with store.transaction(db):
            return _link(db, actor, municipality, doc, rebill.issue_open(db, actor, municipality, charge["id"], due))
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
            legal_basis=rules.ref("issqn"), amount=doc["amount"], due=due,
            pays={"collection": ISSQN, "id": doc["id"], "label": label})
        return _link(db, actor, municipality, doc, dam)


def _link(db: Database, actor: Actor, municipality: str, doc: dict, dam: dict) -> dict:
    """The month keeps its charge and its latest DAM (conditional on the version read)."""
    link = {"dam_id": dam["id"], "dam_number": dam["number"], "charge_id": dam["charge_id"]}
    done = db[ISSQN].update_one({"_id": ObjectId(doc["id"]), "version": doc["version"], "dam_id": doc.get("dam_id")},
                                {"$set": link, "$inc": {"version": 1}})
    if not done.modified_count:
        raise Conflict("O ISSQN deste mês mudou enquanto o DAM era emitido; recarregue.")
    audit.record(db, actor, municipality, "update", ISSQN, doc["id"], {"dam_id": doc.get("dam_id")}, link,
                 note=f"DAM {dam['number']} emitido")
    return dam


@events.on_dam_paid(ISSQN)
def issqn_paid(db: Database, charge_id: str) -> None:
    """The month's charge paid in full (``rules.ridehailing.settlement.issqn_settled``; CG art. 19, MP
    art. 10) marks the vehicle-month paid on the date the charge was settled, with the DAM that settled
    it (the original, a 2ª via or the DAM of a difference). Only the stored charge counts: an unknown
    id, a charge of another record or one not paid in full changes nothing. Idempotent: a month already
    paid changes nothing (a later payment is a credit on the charge)."""
    charge = charge_links.owned(db, charge_id, ISSQN)
    if charge is None or not settlement.issqn_settled(charge["status"]):
        return
    month_id = charge["owner"]["id"]
    if not ObjectId.is_valid(month_id):
        return
    settling = charge_links.settling_payment(charge)
    ours = [entry["id"] for entry in charge["dams"]]
    target = {"_id": ObjectId(month_id), "municipality": charge["municipality"], "paid_on": None,
              "$or": [{"charge_id": charge["id"]}, {"charge_id": {"$in": [None, ""]}, "dam_id": {"$in": ours}}]}
    paid = {"paid_on": charge["paid_on"], "paid_amount": charge["paid"], "charge_id": charge["id"],
            "dam_id": settling["dam_id"], "dam_number": settling["dam_number"]}
    done = db[ISSQN].update_one(target, {"$set": encode(paid), "$inc": {"version": 1}})
    if done.modified_count:
        audit.record(db, registry.DAM_ACTOR, charge["municipality"], "update", ISSQN, month_id,
                     {"paid_on": None}, paid, note=f"DAM {settling['dam_number']} pago")
