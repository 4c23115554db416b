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

A 2ª via chain (:mod:`services.dam.reissue`) receives one payment: paying the original after its
2ª via pays the original and cancels the 2ª via; any later payment of the chain is kept on a
cancelled DAM for refund (docs/LEITURAS.md, seção 9).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.base import cents
from rules.dam.dates import payment_on_time
from services import store
from services.dam import dams, outbox
from services.shared import audit, clock, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed

FLAG_AMOUNT = "valor_divergente"
FLAG_LATE = "pago_em_atraso"
FLAG_CANCELLED = "dam_cancelado"
FLAG_REPLACED = "dam_substituido"
FLAGS = {
    FLAG_AMOUNT: "Valor divergente",
    FLAG_LATE: "Pago em atraso",
    FLAG_CANCELLED: "Pago após cancelamento",
    FLAG_REPLACED: "Pago o DAM substituído pela 2ª via",
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


def check_payment(db: Database, dam: dict, paid_on: date, amount: Decimal) -> PaymentCheck:
    """Flags of a payment: amount different from the DAM's, or paid after the due date."""
    flags, notes = [], []
    if amount != dam["amount"]:
        difference = amount - dam["amount"]
        side = "a maior" if difference > 0 else "a menor"
        flags.append(FLAG_AMOUNT)
        notes.append(f"Valor pago {fmt.brl(amount)} difere do valor do DAM {fmt.brl(dam['amount'])} "
                     f"({fmt.brl(abs(difference))} {side})")
    # CTN art. 210, parágrafo único: on time up to the due date or the next business day
    on_time = payment_on_time(dam["due_on"], paid_on, parameters.calendar(db, dam["municipality"], paid_on))
    if not on_time.ok:
        flags.append(FLAG_LATE)
        notes.append(on_time.message)
    return PaymentCheck(tuple(flags), tuple(notes))


class _Changed(Exception):
    """The DAM changed between reading and paying it: the unit of work is undone."""




def _claim_chain(db: Database, dam: dict) -> bool:
    """A DAM of a 2ª via chain (the original and its reissues) is paid once: the first payment of any
    of them claims the chain on its original's document (conditional update); the others cannot."""
    root = dam.get("chain_root")
    if not root:
        return True
    claimed = db[dams.COLLECTION].update_one({"_id": dams._object_id(root), "chain_paid_by": {"$exists": False}},
                                        {"$set": {"chain_paid_by": dam["id"]}})
    return claimed.modified_count == 1


def _cancel_rest_of_chain(db: Database, actor: Actor, dam: dict, entry_at) -> None:
    """The original was paid after its 2ª via was issued: the 2ª via (any issued DAM of the chain) is
    cancelled, so the record it pays is told once and nobody pays twice."""
    reason = f"O DAM {dam['number']}, substituído por esta via, foi pago"
    entry = {"at": entry_at, "status": dams.CANCELLED, "by": actor.username, "note": reason}
    cancelled = {"status": dams.CANCELLED, "cancel_reason": reason}
    for doc in db[dams.COLLECTION].find({"chain_root": dam["chain_root"], "status": dams.ISSUED},
                                        {"_id": 1, "number": 1}):
        other = {"id": str(doc["_id"]), "number": doc["number"]}
        if dams._transition(db, other, {"status": dams.ISSUED}, cancelled, entry):
            audit.record(db, actor, dam["municipality"], "cancel", dams.COLLECTION, other["id"],
                         {"status": dams.ISSUED}, cancelled, note=f"DAM {other['number']} cancelado: {reason}")


def _apply_payment(db: Database, actor: Actor, dam: dict, payment: dict) -> tuple[str, dict] | None:
    """Store ``payment`` on the DAM and tell the record it pays; returns the status the DAM ends with
    and the payment as stored, with its flags (None when the DAM changed meanwhile and nothing was
    written).

    An issued DAM becomes paid. An original replaced by a 2ª via and paid late (the taxpayer paid the
    old slip) becomes paid too, flagged, and its 2ª via is cancelled; only one DAM of a chain is ever
    paid (:func:`_claim_chain`). Any other cancelled DAM keeps its status and the payment is flagged
    for refund or reuse; it tells no one.

    Private: the callers (:func:`record_payment`, :func:`services.dam.bank_import.import_return_file`)
    authorize the actor to write in the DAM's municipality.
    """
    origin = payment["origin"]
    where = ("baixa manual" if origin["kind"] == "manual"
             else f"arquivo retorno NSA {origin['file_sequence']}, linha {origin['line_number']}")
    try:
        with store.transaction(db):
            replaced = dam["status"] == dams.CANCELLED and bool(dam.get("replaced_by")) and _claim_chain(db, dam)
            if dam["status"] == dams.CANCELLED and not replaced:
                return dams.CANCELLED, _pay_cancelled(db, actor, dam, payment, where)
            if replaced:
                payment = {**payment, "flags": [*payment["flags"], FLAG_REPLACED],
                           "notes": [*payment["notes"], f"DAM {dam['number']} substituído pela 2ª via "
                                     f"{dam['replaced_by']['number']}, que foi cancelada"]}
            elif dam["status"] != dams.ISSUED or not _claim_chain(db, dam):
                raise _Changed
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
            if replaced:
                _cancel_rest_of_chain(db, actor, dam, payment["recorded_at"])
    except _Changed:
        return None
    if dam.get("pays"):
        outbox.dam_paid(db, dam["id"])
    return dams.PAID, payment


def _pay_cancelled(db: Database, actor: Actor, dam: dict, payment: dict, where: str) -> dict:
    """A payment of a cancelled DAM is kept on it, flagged for refund or reuse; the DAM stays cancelled."""
    payment = {**payment, "flags": [*payment["flags"], FLAG_CANCELLED],
               "notes": [*payment["notes"],
                         f"DAM {dam['number']} estava cancelado: {dam.get('cancel_reason') or ''}".rstrip(": ")]}
    entry = {"at": payment["recorded_at"], "status": dams.CANCELLED, "by": actor.username,
             "note": _payment_note(payment, where)}
    if not dams._transition(db, dam, {"status": dams.CANCELLED, "payment": None}, {"payment": payment}, entry):
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
    db: Database, actor: Actor, municipality: str, dam_id: str, paid_on: date, amount: Decimal, bank: str
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

