"""Execution and completion of a service request (Decreto 017/2026, Nova Lacerda, art. 8 §2-§3): the
team starts (machines 'em serviço'), reports dates, meters, loads and hours (:class:`ExecutionInput`);
completion settles the machine hours — the balance DAM due 15 days after completion or the credit
to return — and issues the DAMs deferred by art. 8 §3 (each DAM opens a charge whose id the part
keeps); the credit returned closes the settlement.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.base import RuleError
from rules.dam import charges as charge_rules
from rules.fmt import day as show_day
from rules.machinery.payment import ADVANCE, BALANCE, Instalment, PaymentPlan, settle_balance
from rules.machinery.prices import DECREE
from rules.machinery.statement import balance_description, instalment_description
from services import store
from services.dam import charges
from services.machinery import booking_requests, ledger, payment, protocol, quotes
from services.machinery.booking_requests import ASSETS, BOOKINGS, OPERATORS, WrongStep
from services.machinery.payment import PAID_UPFRONT, ExtensionInput
from services.shared import clock, parameters
from services.shared.auth import Actor
from services.shared.errors import ValidationFailed
from services.store import parse_date


@dataclass(frozen=True)
class ExecutionInput:
    """What the team reports: dates, operator, meters per asset, loads delivered, hours per item."""

    started_on: date
    ended_on: date
    operator_id: str
    meters: tuple[tuple[str, Decimal, Decimal], ...] = ()  # (asset_id, start, end)
    loads_delivered: int | None = None
    worked_hours: tuple[tuple[str, Decimal], ...] = ()  # (item "01".."04", hours)
    photos: tuple[str, ...] = ()  # sha256 from store.put_file
    notes: str = ""


LOADS_MISSING = "Informe as cargas entregues (0 se nenhuma)."


def _set_assets_status(db: Database, municipality: str, doc: dict, status: str, current: str) -> None:
    """The booked machines' register status follows the service (disponível ↔ em serviço)."""
    for booking in (doc.get("schedule") or {}).get("bookings", []):
        db[ASSETS].update_one({"_id": booking_requests._oid(booking["asset_id"]), "municipality": municipality,
                               "status": current}, {"$set": {"status": status}})


@booking_requests.module_service("write")
def start_execution(db: Database, actor: Actor, municipality: str, request_id: str, started_on: date) -> dict:
    """The team started the service: the booked machines are 'em serviço'."""

    def build(doc: dict) -> dict:
        if not isinstance(started_on, date) or started_on > clock.today():
            raise ValidationFailed({"started_on": "Início: informe uma data até hoje."})
        _set_assets_status(db, municipality, doc, "em_servico", "disponivel")
        return {"status": "em_execucao", "execution": {"started_on": started_on}}

    with store.transaction(db):
        return booking_requests._change(db, actor, municipality, request_id, ("agendado",), build, "start")


def _execution_doc(db: Database, municipality: str, doc: dict, execution: ExecutionInput) -> dict:
    errors = {}
    today = clock.today()
    if execution.ended_on < execution.started_on:
        errors["ended_on"] = "A data de conclusão não pode ser anterior à de início."
    if execution.ended_on > today:
        errors["ended_on"] = "A data de conclusão não pode ser posterior a hoje."
    meters = []
    for asset_id, start, end in execution.meters:
        if Decimal(end) < Decimal(start):
            errors["meters"] = "A leitura final do horímetro/odômetro não pode ser menor que a inicial."
        meters.append({"asset_id": asset_id, "start": Decimal(start), "end": Decimal(end)})
    quoted_loads = sum(s.get("loads") or 0 for s in doc["services"] if s["kind"] == "earth_loads")
    has_loads = any(s["kind"] == "earth_loads" for s in doc["services"])
    if has_loads and execution.loads_delivered is None:  # as the hours of a machine: empty is not 0
        errors["loads_delivered"] = LOADS_MISSING
    elif execution.loads_delivered is not None and not 0 <= execution.loads_delivered <= quoted_loads:
        errors["loads_delivered"] = f"Cargas entregues: de 0 a {quoted_loads} (as pedidas e pagas)."
    if errors:
        raise ValidationFailed(errors)
    operator = booking_requests._record(db, OPERATORS, municipality, execution.operator_id, "Operador ou motorista")
    return {"started_on": execution.started_on, "ended_on": execution.ended_on, "operator_id": operator["id"],
            "operator": operator["name"], "meters": meters, "loads_delivered": execution.loads_delivered,
            "worked_hours": {item: Decimal(hours) for item, hours in execution.worked_hours},
            "photos": list(execution.photos), "notes": execution.notes.strip()}


def _advance_charge(instalments: list[dict]) -> str | None:
    return next((i.get("charge_id") for i in instalments if i["key"] == ADVANCE), None)


def _abate_advance(db: Database, actor: Actor, instalments: list[dict], credit: Decimal, protocol_: str) -> bool:
    """Art. 8, §2: the hours executed cost less than the advance paid; its charge owes the executed
    value only, and the difference becomes the charge's credit owed back (the one money loop).
    False when the advance was not paid (deferred by art. 8 §3): nothing to give back on it."""
    charge_id = _advance_charge(instalments)
    if not charge_id or not charge_rules.settled(charges.load(db, charge_id)["status"]):
        return False
    charges.abate(db, charge_id, credit, f"Pedido {protocol_}: acerto pelas horas executadas ({DECREE}, art. 8, §2)",
                  actor.username)
    return True


@booking_requests.module_service("write")
def complete(db: Database, actor: Actor, municipality: str, request_id: str, execution: ExecutionInput) -> dict:
    """Record the execution and complete: the real amount, the balance DAM due 15 days after
    completion (art. 8 §2) or the credit to return; instalments deferred by art. 8 §3 get their DAM."""
    book_ = parameters.book(db, municipality)
    completion = execution.ended_on
    calendar = parameters.calendar(db, municipality, completion)

    def build(doc: dict) -> dict:
        record = _execution_doc(db, municipality, doc, execution)
        payment_doc = doc.get("payment") or {}
        ext = payment._extension(ExtensionInput(**{k: v for k, v in payment_doc["extension"].items()
                                                   if k in ExtensionInput.__dataclass_fields__})) \
            if payment_doc.get("extension") else None
        quote_ = quotes._quote_of(doc)
        instalments = payment_doc.get("instalments", [])
        plan = PaymentPlan(quote_, tuple(Instalment(i["key"], i["label"], i["amount"], parse_date(i["due"]),
                                                    i["due_rule"], i["reference"]) for i in instalments))
        for inst in instalments:  # art. 8, §3: deferred full payment or advance, due after completion
            if inst["key"] in PAID_UPFRONT and inst.get("deferred") and not inst.get("dam_id") and inst["amount"] > 0:
                due = calendar.add_days(completion, ext.days_after_completion)
                dam = payment._issue_dam(db, actor, municipality, doc, inst["key"],
                                         instalment_description(inst["key"], inst["label"], doc["protocol"], quote_),
                                         inst["amount"], due, f"{DECREE}, art. 8, §3")
                inst.update(dam_id=dam["id"], dam_number=dam["number"], charge_id=dam["charge_id"], due=dam["due_on"])
        settlement = None
        if quote_.machine_hours_total > 0:
            try:
                result = settle_balance(plan, record["worked_hours"], completion, calendar, book_, ext)
            except RuleError as error:
                raise protocol._refused(error, "worked_hours") from None
            settlement = {"executed": result.executed, "advance": result.advance, "amount_due": result.amount_due,
                          "credit_to_return": result.credit_to_return, "due": result.due, "message": result.message,
                          "reference": result.reference, "completed_on": completion, "dam_id": None,
                          "dam_number": None, "charge_id": None, "paid_on": None, "credit_returned_on": None}
            if result.amount_due > 0:
                description = balance_description(doc["protocol"], record["worked_hours"], result.executed,
                                                  result.advance)
                dam = payment._issue_dam(db, actor, municipality, doc, BALANCE, description, result.amount_due,
                                         result.due, result.reference)
                settlement.update(dam_id=dam["id"], dam_number=dam["number"], charge_id=dam["charge_id"],
                                  due=dam["due_on"])
        if settlement and settlement["credit_to_return"] > 0:
            settlement["credit_on_charge"] = _abate_advance(db, actor, instalments, settlement["credit_to_return"],
                                                            doc["protocol"])
        _set_assets_status(db, municipality, doc, "disponivel", "em_servico")
        for meter in record["meters"]:
            db[ASSETS].update_one({"_id": booking_requests._oid(meter["asset_id"]), "municipality": municipality},
                                  {"$set": {"meter_reading": int(meter["end"])}})
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": doc["id"],
                                  "day": {"$gt": completion.isoformat()}})
        # money still open after completion: the balance DAM, a credit to return, or an instalment
        # deferred by art. 8 §3 (its DAM issued now) or otherwise unpaid
        unpaid = any(i.get("charge_id") and not i.get("paid_on") for i in instalments)
        money_open = unpaid or bool(settlement and (settlement["dam_id"] or settlement["credit_to_return"] > 0))
        return {"status": "concluido", "execution": record, "settlement": settlement, "settlement_open": money_open,
                "payment": {**payment_doc, "instalments": instalments} if payment_doc else None}

    with store.transaction(db):
        return booking_requests._change(db, actor, municipality, request_id, ("agendado", "em_execucao"), build,
                                        "complete")


@booking_requests.module_service("write")
def record_credit_returned(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                           note: str) -> dict:
    """The credit to return was paid back to the requester: recorded as a refund of the advance's
    charge (the one money loop), and the request's settlement says when and by which document."""
    if not note.strip():
        raise ValidationFailed({"note": "Informe o documento da devolução (ordem de pagamento ou "
                                        "restituição nº)."})

    def build(doc: dict) -> dict:
        settlement = doc.get("settlement") or {}
        credit = Decimal(settlement.get("credit_to_return") or 0)
        if not credit:
            raise WrongStep(f"O pedido {doc['protocol']} não tem crédito a devolver.")
        if settlement.get("credit_returned_on"):
            raise WrongStep(f"O crédito do pedido {doc['protocol']} já foi devolvido em "
                            f"{show_day(parse_date(settlement['credit_returned_on']))}.")
        completed = parse_date(settlement.get("completed_on"))
        if not isinstance(on, date) or on > clock.today() or (completed and on < completed):
            raise ValidationFailed({"on": "Data da devolução: da conclusão do serviço até hoje."})
        charge_id = _advance_charge((doc.get("payment") or {}).get("instalments", []))
        if not charge_id:
            raise WrongStep(f"O pedido {doc['protocol']} não tem o débito do adiantamento para restituir.")
        before = charges.load(db, charge_id, municipality)
        if before["credit"] < credit:  # completed before the settlement abated the advance's charge
            charges.abate(db, charge_id, credit - before["credit"],
                          f"Pedido {doc['protocol']}: acerto pelas horas executadas ({DECREE}, art. 8, §2)",
                          actor.username)
        ledger.refund(db, actor, municipality, charge_id, credit, on, note.strip(),
                      f"Pedido {doc['protocol']}: crédito devolvido ({note.strip()})", before)
        owing = any(row.owing for row in ledger.request_rows(db, municipality, doc))
        return {"settlement": {**settlement, "credit_returned_on": on, "credit_note": note.strip(),
                               "credit_on_charge": True}, "settlement_open": owing}

    return booking_requests._change(db, actor, municipality, request_id, ("concluido",), build, "credit_returned")
