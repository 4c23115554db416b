"""The payment of a DAM (baixa): by hand here, from the bank's return file in :mod:`services.dam.bank_import`.

A payment that differs is flagged, never silently accepted: an amount other than the DAM's or a
payment after the due date (CTN art. 210, parágrafo único) still marks the DAM paid (the bank did
receive money for that barcode), with flags the screen shows for the treasury to review
(docs/LEITURAS.md, seção 4, "Baixa"). The DAM, its history and its audit entry are written in one
``store.transaction``.

Paying a DAM tells the record it pays (:func:`services.dam.outbox.dam_paid`) through an outbox: the
same conditional update that marks the DAM paid sets ``handlers_pending``; the handlers run after
it and clear the mark. A crash or a failing handler in between leaves the mark, and the handlers
run again at start (:func:`services.dam.outbox.resume_pending`) or when a user retries the payment.

Every payment counts on the DAM's charge (:mod:`services.dam.charges`), whichever of its DAMs it
paid: the original after its 2ª via was issued pays the charge and cancels the 2ª via; a payment
beyond what the charge owes is a credit to refund, one short leaves the difference open for a new
DAM (docs/LEITURAS.md, seções 9 e 19).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules import fmt
from rules.base import cents
from rules.dam import charges as charge_rules
from rules.dam.dates import payment_on_time
from services import store
from services.dam import charges, dams, outbox
from services.shared import audit, clock, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed

FLAG_AMOUNT = "valor_divergente"
FLAG_LATE = "pago_em_atraso"
FLAG_CANCELLED = "dam_cancelado"
FLAG_REPLACED = "dam_substituido"
FLAG_SHORT = "debito_pago_a_menor"
FLAG_CREDIT = "credito_a_restituir"
FLAGS = {
    FLAG_AMOUNT: "Valor divergente",
    FLAG_LATE: "Pago em atraso",
    FLAG_CANCELLED: "Pago após cancelamento",
    FLAG_REPLACED: "Pago o DAM substituído pela 2ª via",
    FLAG_SHORT: "Débito pago a menor",
    FLAG_CREDIT: "Crédito a restituir",
}


class DamNotPayable(ServiceError):
    """Only an issued (or overdue) DAM receives a payment by hand."""


@dataclass(frozen=True)
class PaymentCheck:
    """What a payment is flagged for, with the pt-BR reason of each flag."""

    flags: tuple[str, ...]
    notes: tuple[str, ...]


def flag_text(payment: dict | None) -> str:
    """The payment's flags as one pt-BR line ("" when none)."""
    return "; ".join(FLAGS.get(flag, flag) for flag in (payment or {}).get("flags", []))


def check_payment(db: Database, dam: dict, paid_on: date, amount: Decimal, calendar: Any = None) -> PaymentCheck:
    """Flags of a payment: amount different from the DAM's, or paid after the due date. ``calendar``:
    the legal calendar of ``paid_on`` when the caller already has it (an import checks thousands)."""
    flags, notes = [], []
    if amount != dam["amount"]:
        difference = amount - dam["amount"]
        side = "a maior" if difference > 0 else "a menor"
        flags.append(FLAG_AMOUNT)
        notes.append(f"Valor pago {fmt.brl(amount)} difere do valor do DAM {fmt.brl(dam['amount'])} "
                     f"({fmt.brl(abs(difference))} {side})")
    # CTN art. 210, parágrafo único: on time up to the due date or the next business day
    calendar = calendar if calendar is not None else parameters.calendar(db, dam["municipality"], paid_on)
    on_time = payment_on_time(dam["due_on"], paid_on, calendar)
    if not on_time.ok:
        flags.append(FLAG_LATE)
        notes.append(on_time.message)
    return PaymentCheck(tuple(flags), tuple(notes))


class _Changed(Exception):
    """The DAM changed between reading and paying it: the unit of work is undone."""




def _cancel_rest(db: Database, actor: Actor, dam: dict, charge: dict, entry_at) -> None:
    """The charge is paid in full: any other DAM of it still issued (the 2ª via when the original was
    paid, the original of a chain paid by its 2ª via is already cancelled) is cancelled, so nobody
    pays twice."""
    others = [entry["id"] for entry in charge.get("dams", []) if entry["id"] != dam["id"]]
    if not others:
        return
    reason = f"Débito quitado pelo DAM {dam['number']}"
    entry = {"at": entry_at, "status": dams.CANCELLED, "by": actor.username, "note": reason}
    cancelled = {"status": dams.CANCELLED, "cancel_reason": reason}
    for doc in db[dams.COLLECTION].find({"_id": {"$in": [dams._object_id(i) for i in others]},
                                         "status": dams.ISSUED}, {"_id": 1, "number": 1}):
        other = {"id": str(doc["_id"]), "number": doc["number"]}
        if dams._transition(db, other, {"status": dams.ISSUED}, cancelled, entry):
            audit.record(db, actor, dam["municipality"], "cancel", dams.COLLECTION, other["id"],
                         {"status": dams.ISSUED}, cancelled, note=f"DAM {other['number']} cancelado: {reason}")


def _charge_notes(charge: dict | None, dam: dict, payment: dict) -> tuple[list[str], list[str]]:
    """Flags and notes of what the payment leaves on the DAM's charge: a difference still open, or a
    credit owed back (never silently settled; docs/LEITURAS.md, seção 19)."""
    if charge is None:
        return [], []
    late = charge["late"] + charges.late_of(charge, dam)
    state = charge_rules.standing(charges.principal_owed(charge), late, charge["paid"] + payment["amount"],
                                  inscribed=bool(charge.get("inscription")))
    if state.open > 0 and payment["amount"] < dam["amount"]:
        return [FLAG_SHORT], [f"Débito pago a menor: falta {fmt.brl(state.open)}; emita o DAM da diferença"]
    if state.credit > charge["credit"]:
        return [FLAG_CREDIT], [f"Crédito de {fmt.brl(state.credit - charge['credit'])} a restituir ao contribuinte "
                               f"({charge_rules.LEGAL_BASIS_REFUND})"]
    return [], []


def _apply_payment(db: Database, actor: Actor, dam: dict, payment: dict) -> tuple[str, dict] | None:
    """Store ``payment`` on the DAM, count it on the DAM's charge and tell the record the charge
    belongs to; returns the status the DAM ends with and the payment as stored, with its flags (None
    when the DAM or its charge changed meanwhile and nothing was written).

    An issued DAM becomes paid. An original replaced by a 2ª via, paid while its charge is still owed
    (the taxpayer paid the old slip), becomes paid too, flagged. Any other cancelled DAM keeps its
    status and the payment is flagged. Every payment counts on the charge (:mod:`services.dam.charges`):
    paid in full, the charge's other issued DAMs are cancelled; beyond what is owed, the excess is a
    credit to refund.

    Private: the callers (:func:`record_payment`, :func:`services.dam.bank_import.import_return_file`)
    authorize the actor to write in the DAM's municipality.
    """
    origin = payment["origin"]
    where = ("baixa manual" if origin["kind"] == "manual"
             else f"arquivo retorno NSA {origin['file_sequence']}, linha {origin['line_number']}")
    try:
        with store.transaction(db):
            if dam["status"] not in (dams.ISSUED, dams.CANCELLED):
                raise _Changed
            charge = charges.load(db, dam["charge_id"]) if dam.get("charge_id") else None
            flags, notes = _charge_notes(charge, dam, payment)
            payment = {**payment, "flags": [*payment["flags"], *flags], "notes": [*payment["notes"], *notes]}
            owed = charge is not None and charge["status"] in charges.OWING
            superseded = dam["status"] == dams.CANCELLED and bool(dam.get("replaced_by")) and owed
            if dam["status"] == dams.CANCELLED and not superseded:
                status, payment = dams.CANCELLED, _pay_cancelled(db, actor, dam, payment, where)
            else:
                if superseded:
                    payment = {**payment, "flags": [*payment["flags"], FLAG_REPLACED],
                               "notes": [*payment["notes"], f"DAM {dam['number']} substituído pela 2ª via "
                                         f"{dam['replaced_by']['number']}, que foi cancelada"]}
                entry = {"at": payment["recorded_at"], "status": dams.PAID, "by": actor.username,
                         "note": _payment_note(payment, where)}
                # the outbox mark goes in the same conditional update that marks the DAM paid
                changes = {"status": dams.PAID, "payment": payment,
                           **({"handlers_pending": True} if dam.get("pays") else {})}
                if not dams._transition(db, dam, {"status": dam["status"], "payment": None}, changes, entry):
                    raise _Changed
                audit.record(db, actor, dam["municipality"], "pay", dams.COLLECTION, dam["id"],
                             {"status": dam["status"], "payment": None}, {"status": dams.PAID, "payment": payment},
                             note=f"DAM {dam['number']}: {entry['note']}")
                status = dams.PAID
            if charge is not None:
                after = charges.record_payment(db, charge["id"], dam, payment)
                if after["status"] == charge_rules.PAID:
                    _cancel_rest(db, actor, dam, after, payment["recorded_at"])
    except (_Changed, charges.ChargeChanged):
        return None
    if dam.get("pays"):
        outbox.dam_paid(db, dam["id"])
    return status, payment


def _pay_cancelled(db: Database, actor: Actor, dam: dict, payment: dict, where: str) -> dict:
    """A payment of a cancelled DAM is kept on it, flagged for refund or reuse; the DAM stays cancelled."""
    payment = {**payment, "flags": [*payment["flags"], FLAG_CANCELLED],
               "notes": [*payment["notes"],
                         f"DAM {dam['number']} estava cancelado: {dam.get('cancel_reason') or ''}".rstrip(": ")]}
    entry = {"at": payment["recorded_at"], "status": dams.CANCELLED, "by": actor.username,
             "note": _payment_note(payment, where)}
    changes = {"payment": payment, **({"handlers_pending": True} if dam.get("pays") else {})}
    if not dams._transition(db, dam, {"status": dams.CANCELLED, "payment": None}, changes, entry):
        raise _Changed
    audit.record(db, actor, dam["municipality"], "pay", dams.COLLECTION, dam["id"], {"payment": None},
                 {"payment": payment}, note=f"DAM {dam['number']} (cancelado): {entry['note']}")
    return payment


def _payment_note(payment: dict, where: str) -> str:
    note = f"Pago em {fmt.day(payment['paid_on'])}, {fmt.brl(payment['amount'])} ({where})"
    if payment["notes"]:
        note += ". Alertas: " + "; ".join(payment["notes"])
    return note


@checked
def record_payment(
    db: Database, actor: Actor, municipality: str, dam_id: str, paid_on: date | None, amount: Decimal | None,
    bank: str
) -> dict:
    """Record a payment by hand (PIX, a bank without return file). A different amount or a late
    payment marks the DAM paid with flags (``payment["flags"]``, ``payment["notes"]``)."""
    authorize(actor, "write", municipality)
    dam = dams._load(db, municipality, dam_id)
    errors = {}
    today = clock.today()
    if not isinstance(paid_on, date):
        errors["paid_on"] = "Data do pagamento: informe a data."
    elif paid_on > today:
        errors["paid_on"] = f"Data do pagamento: não pode ser posterior a hoje ({fmt.day(today)})."
    elif paid_on < dam["issued_on"]:
        errors["paid_on"] = f"Data do pagamento: anterior à emissão do DAM ({fmt.day(dam['issued_on'])})."
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount != cents(amount) or amount <= 0:
        errors["amount"] = "Valor pago: informe um valor maior que zero, em reais e centavos."
    if not (bank or "").strip():
        errors["bank"] = "Banco ou agente arrecadador: campo obrigatório."
    if errors:
        raise ValidationFailed(errors)
    # a retry: the payment stands, its handlers run again
    if dam["status"] == dams.PAID and dam.get("handlers_pending"):
        outbox.dam_paid(db, dam["id"])
        return dams._load(db, municipality, dam_id)
    if dam["status"] == dams.PAID:
        raise DamNotPayable(f"O DAM {dam['number']} já está pago (em {fmt.day(dam['payment']['paid_on'])}).")
    if dam["status"] == dams.CANCELLED:
        raise DamNotPayable(
            f"O DAM {dam['number']} está cancelado: não recebe baixa manual. "
            "Pagamento feito em banco aparece no arquivo retorno e fica marcado para restituição."
        )
    check = check_payment(db, dam, paid_on, amount)
    payment = {
        "paid_on": paid_on, "amount": amount, "bank": bank.strip(), "origin": {"kind": "manual"},
        "flags": list(check.flags), "notes": list(check.notes),
        "recorded_at": clock.now_utc(), "recorded_by": actor.username,
    }
    if not _apply_payment(db, actor, dam, payment):
        raise DamNotPayable(f"O DAM {dam['number']} mudou de situação enquanto a baixa era registrada; confira.")
    return dams._load(db, municipality, dam_id)


@checked
def retry_linked_update(db: Database, actor: Actor, municipality: str, dam_id: str) -> dict:
    """Run again the update of the record a paid DAM pays, when it was left pending (a handler
    failed or the process stopped); returns the DAM (``handlers_pending`` gone when it worked)."""
    authorize(actor, "write", municipality)
    dam = dams._load(db, municipality, dam_id)
    if dam["status"] == dams.PAID and dam.get("handlers_pending"):
        outbox.dam_paid(db, dam["id"])
        dam = dams._load(db, municipality, dam_id)
    return dam


PENDING_MESSAGE = ("Pagamento do DAM {number} registrado; a atualização do registro vinculado ({label}) ficou "
                   "pendente e será refeita automaticamente. Você também pode tentar de novo agora.")


def pending_message(dam: dict) -> str:
    """What the screen says of a paid DAM whose linked record was not updated yet."""
    return PENDING_MESSAGE.format(number=dam["number"], label=(dam.get("pays") or {}).get("label") or "registro pago")

