"""DAM (Documento de Arrecadação Municipal) in the store: the collection, issue, read, cancel.

A DAM gets the next number of its municipality and year, a due date moved to the next business
day (CTN art. 210, parágrafo único; Lei 9.784/1999, art. 66, §1) and the barcode, linha digitável
and PIX "copia e cola" from the parameters in force on its issue date (``rules/dam``). Stored
status is ``emitido``, ``pago`` or ``cancelado``; ``vencido`` is never stored: it is an issued DAM
whose due date has passed, computed when read. Each change appends to the DAM's history and to
the audit log; issue and cancel each write the DAM, its number and its audit entry in one
``store.transaction``.

The other stages of a DAM have modules of their own: the 2ª via of an overdue DAM
(:mod:`services.dam.reissue`), the payment by hand (:mod:`services.dam.payments`) or by the bank's
return file (:mod:`services.dam.bank_import`), the follow-up that tells the record a DAM pays
(:mod:`services.dam.outbox`), the list and its exports (:mod:`services.dam.lists`) and the PDF
(:mod:`services.dam.documents`).
"""
from __future__ import annotations

import weakref
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import fmt
from rules.base import cents
from rules.dam.barcode import MAX_AMOUNT
from rules.dam.dates import due_date, due_date_finding
from rules.dam.late import late_rates
from rules.dam.parameters import REVENUE_KINDS, DamSettings, dam_settings, revenue_code
from rules.params import ParameterMissing
from services import store
from services.dam import charges
from services.shared import audit, authenticity, clock, fields, parameter_labels, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "dams"
INDEXES = {
    COLLECTION: [
        ([("municipality", 1), ("barcode", 1)], {"unique": True, "name": "u_dam_barcode"}),
        ([("municipality", 1), ("year", 1), ("sequence", 1)], {"unique": True, "name": "u_dam_number"}),
        ([("municipality", 1), ("status", 1), ("due_on", 1)], {"name": "i_dam_status_due"}),
        ([("municipality", 1), ("issued_on", 1)], {"name": "i_dam_issued"}),
        # the list's filters followed by its sort (services.dam.lists.SORT), so a filtered page is read in index order
        ([("municipality", 1), ("status", 1), ("year", 1), ("sequence", 1)], {"name": "i_dam_status_number"}),
        ([("municipality", 1), ("revenue_kind", 1), ("year", 1), ("sequence", 1)], {"name": "i_dam_kind_number"}),
        # a taxpayer's own DAMs on the portal, newest number first (services.dam.own_dams)
        ([("municipality", 1), ("taxpayer_document", 1), ("year", -1), ("sequence", -1)],
         {"name": "i_dam_taxpayer_number"}),
        # the outbox: paid DAMs whose handlers have not completed
        ([("handlers_pending", 1)], {"name": "i_dam_handlers_pending"}),
    ]
}

ISSUED, PAID, CANCELLED = "emitido", "pago", "cancelado"
OVERDUE = "vencido"  # computed on read: issued and due date before today
SITUATIONS = {ISSUED: "Emitido (a vencer)", OVERDUE: "Vencido", PAID: "Pago", CANCELLED: "Cancelado"}

STANDARD_INSTRUCTION = (
    "Pague até o vencimento nos bancos conveniados, seus correspondentes ou aplicativos, "
    "pela linha digitável ou pelo código de barras."
)
PIX_INSTRUCTION = "Pelo PIX, leia o QR code ou use o código copia e cola ao lado."


class DamNotCancellable(ServiceError):
    """A paid or already cancelled DAM cannot be cancelled."""


class DamParametersMissing(ServiceError):
    """The municipality lacks a DAM parameter (FEBRABAN code, PIX key...) in force."""


_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """Create the DAM indexes (idempotent) once per database handle; called before writes and
    before the outbox is read at start."""
    if db in _prepared:
        return
    ensure_indexes(db, INDEXES)
    _prepared.add(db)


# ---- reading ----

def _object_id(dam_id: str) -> ObjectId:
    try:
        return ObjectId(dam_id)
    except (InvalidId, TypeError):
        raise NotFound("DAM não encontrado.") from None


def situation(doc: dict, today: date) -> str:
    """The status as shown: an issued DAM whose due date has passed is overdue (vencido)."""
    if doc["status"] == ISSUED and doc["due_on"] < today:
        return OVERDUE
    return doc["status"]


def plain(doc: dict) -> dict:
    """A stored DAM (or the projected part of it) as plain Python values, with ``id`` and the
    computed ``situation``."""
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    for key in ("issued_on", "requested_due", "due_on"):
        if key in doc:
            doc[key] = parse_date(doc.get(key))
    payment = doc.get("payment")
    if payment:
        payment["paid_on"] = parse_date(payment.get("paid_on"))
        payment["credited_on"] = parse_date(payment.get("credited_on"))
    if "status" in doc and "due_on" in doc:
        doc["situation"] = situation(doc, clock.today())
    return doc


def _load(db: Database, municipality: str, dam_id: str) -> dict:
    """A DAM of ``municipality`` read by ``_id`` alone (the cheapest lookup on every store); one of
    another municipality is not found."""
    doc = db[COLLECTION].find_one({"_id": _object_id(dam_id)})
    if doc is None or doc.get("municipality") != municipality:
        raise NotFound("DAM não encontrado.")
    return plain(doc)


@checked
def get(db: Database, actor: Actor, municipality: str, dam_id: str) -> dict:
    """One DAM of the municipality, as plain values."""
    authorize(actor, "read", municipality)
    return _load(db, municipality, dam_id)



# ---- issuing ----

def _clean_issue(values: dict[str, Any], issued_on: date) -> dict[str, Any]:
    """Checked values of a new DAM; every bad field is reported at once."""
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for name, label in (("taxpayer_name", "Contribuinte"), ("taxpayer_address", "Endereço"),
                        ("description", "Discriminação da receita"), ("legal_basis", "Fundamentação legal")):
        text = str(values.get(name) or "").strip()
        if not text:
            errors[name] = f"{label}: campo obrigatório."
        clean[name] = text
    try:
        clean["taxpayer_document"] = fields.parse("cpf_cnpj", values.get("taxpayer_document") or "")
    except ValueError as exc:
        errors["taxpayer_document"] = f"CPF/CNPJ: {exc}."
    if values.get("revenue_kind") not in REVENUE_KINDS:
        errors["revenue_kind"] = "Tipo de receita: escolha uma das opções."
    clean["revenue_kind"] = values.get("revenue_kind")
    amount = values.get("amount")
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount != cents(amount):
        errors["amount"] = "Valor: informe reais e centavos, p.ex. 1.234,56."
    elif not Decimal("0") < amount <= MAX_AMOUNT:
        errors["amount"] = f"Valor: deve ser maior que zero e até {fmt.brl(MAX_AMOUNT)}."
    clean["amount"] = amount
    due = values.get("due")
    if not isinstance(due, date):
        errors["due"] = "Vencimento: informe a data."
    elif due < issued_on:
        errors["due"] = f"Vencimento: não pode ser anterior à data de emissão ({fmt.day(issued_on)})."
    clean["due"] = due
    pays = values.get("pays")
    if pays is not None and not (isinstance(pays, dict) and pays.get("collection") and pays.get("id")):
        errors["pays"] = "Registro pago pelo DAM: informe a coleção e o identificador."
    elif pays is not None:
        clean["pays"] = {"collection": pays["collection"], "id": str(pays["id"]), "label": pays.get("label", "")}
    clean.setdefault("pays", None)
    discount = values.get("discount", Decimal("0"))
    if not isinstance(discount, Decimal) or not discount.is_finite() or discount != cents(discount) or discount < 0:
        errors["discount"] = "Desconto: informe reais e centavos, zero ou mais."
    clean["discount"] = discount
    if errors:
        raise ValidationFailed(errors)
    return clean


def _settings(db: Database, municipality: str, on: date) -> DamSettings:
    try:
        return dam_settings(parameters.book(db, municipality), on)
    except ParameterMissing as exc:
        name = exc.value[0] if isinstance(exc.value, tuple) else exc.value
        raise DamParametersMissing(
            f"O município não tem «{parameter_labels.label(name)}» em vigor em {fmt.day(on)}; "
            "peça à TI municipal para cadastrá-lo em Administração (TI) › Implantação antes de emitir DAMs."
        ) from None


def _after_due_text(book, due_on: date) -> str:
    """What the DAM says of a payment after ``due_on``: the municipality's multa and juros, or (rates
    not set yet) only that a 2ª via is needed (services.dam.slip_pdf.AFTER_DUE_NEUTRAL)."""
    try:
        return late_rates(book, due_on).text()
    except ParameterMissing:
        return ""


def _instructions(typed: str, moved_note: str | None, pays_label: str, pix: bool) -> list[str]:
    lines = [line.strip() for line in typed.splitlines() if line.strip()]
    if pays_label:
        lines.append(f"Referente a: {pays_label}.")
    if moved_note:
        lines.append(moved_note + ".")
    lines.append(STANDARD_INSTRUCTION)
    if pix:
        lines.append(PIX_INSTRUCTION)
    return lines


@checked
def issue(
    db: Database,
    actor: Actor,
    municipality: str,
    *,
    taxpayer_name: str,
    taxpayer_document: str,
    taxpayer_address: str,
    revenue_kind: str,
    description: str,
    legal_basis: str,
    amount: Decimal | None,
    due: date | None,
    pays: dict | None = None,
    instructions: str = "",
    reference: str = "",
    discount: Decimal = Decimal("0"),
    registered_taxpayer: bool = False,
) -> dict:
    """Issue a DAM dated today (Cuiabá) and return it.

    ``registered_taxpayer``: the taxpayer must be in Contribuintes (a DAM typed by hand names a
    registered record, never a typed CPF/CNPJ); the services that issue DAMs of their own records
    (fees, fines, bookings) name the person of that record instead.

    ``amount`` is the principal; the DAM charges it less ``discount`` (its stored ``amount`` is the
    total). ``reference`` is the exercise or period it refers to (default: the year of issue). The
    due date moves to the next business day of the legal calendar; barcode, linha digitável, PIX,
    the revenue code and what happens after the due date come from the parameters in force today.
    Every input is checked, and the parameters and barcode are tried, before the number is taken,
    so numbers have no gaps.
    """
    authorize(actor, "write", municipality)
    issued_on = clock.today()
    clean = _clean_issue(dict(
        taxpayer_name=taxpayer_name, taxpayer_document=taxpayer_document, taxpayer_address=taxpayer_address,
        revenue_kind=revenue_kind, description=description, legal_basis=legal_basis, amount=amount, due=due,
        pays=pays, discount=discount,
    ), issued_on)
    if registered_taxpayer and not db["taxpayers"].find_one(
            {"municipality": municipality, "document": clean["taxpayer_document"]}, {"_id": 1}):
        raise ValidationFailed({"taxpayer_document": "CPF/CNPJ: não está em Contribuintes. Escolha o contribuinte "
                                "acima ou cadastre-o antes em Cadastros › Contribuintes."})
    return _issue(db, actor, municipality, clean, issued_on, instructions,
                  reference=(reference or "").strip() or str(issued_on.year))


def _issue(db: Database, actor: Actor, municipality: str, clean: dict, issued_on: date, instructions: str,
           reference: str, late: dict | None = None, replaces: dict | None = None, charge_id: str | None = None,
           role: str = "original") -> dict:
    """Number, barcode and store a checked DAM (``clean``); ``late`` adds multa and juros to the
    principal, ``replaces`` links a 2ª via to the DAM it replaces. The DAM opens its charge
    (:mod:`services.dam.charges`) or, with ``charge_id``, joins that one as its live DAM (``role``:
    "2a_via", "diferenca"). Runs inside the caller's unit of work when there is one."""
    late = late or {"fine": Decimal("0"), "interest": Decimal("0")}
    principal = clean["amount"]
    total = principal - clean["discount"] + late["fine"] + late["interest"]
    calendar = parameters.calendar(db, municipality, issued_on)
    # CTN art. 210, parágrafo único; Lei 9.784/1999, art. 66, §1: due date on a business day
    due_on = due_date(clean["due"], calendar)
    finding = due_date_finding(clean["due"], calendar)
    settings = _settings(db, municipality, issued_on)
    book = parameters.book(db, municipality)
    after_due = _after_due_text(book, due_on)
    if total <= 0:
        raise ValidationFailed({"discount": "Desconto: não pode igualar ou superar o valor principal."})
    settings.barcode(total, due_on, issued_on.year, 1)  # parameters that cannot print fail here
    settings.pix_payload(total, issued_on.year, 1)
    prepare(db)
    code = revenue_code(book, issued_on, clean["revenue_kind"])
    with store.transaction(db):  # charge, number, document and audit entry: one unit of work
        if charge_id is None:
            charge_id = charges.open_charge(db, municipality, clean, due_on, issued_on, code, reference,
                                            actor.username)
        number = next_number(db, municipality, "dam", issued_on.year)
        barcode = settings.barcode(total, due_on, number.year, number.sequence)
        pix = settings.pix_payload(total, number.year, number.sequence)
        moved = finding.message if due_on != clean["due"] else None
        now = clock.now_utc()
        doc = {
            "municipality": municipality,
            "number": number.text,
            "year": number.year,
            "sequence": number.sequence,
            "taxpayer_name": clean["taxpayer_name"],
            "taxpayer_document": clean["taxpayer_document"],
            "taxpayer_address": clean["taxpayer_address"],
            "revenue_kind": clean["revenue_kind"],
            "description": clean["description"],
            "legal_basis": clean["legal_basis"],
            "amount": total,
            "principal": principal,
            "discount": clean["discount"],
            "fine": late["fine"],
            "interest": late["interest"],
            "reference": reference,
            "revenue_code": code,
            "after_due": after_due,
            "issued_on": issued_on,
            "requested_due": clean["due"],
            "due_on": due_on,
            "due_note": finding.text(),
            "barcode": barcode.digits,
            "line": barcode.line,
            "pix_payload": pix,
            "instructions": _instructions(instructions, moved, (clean["pays"] or {}).get("label", ""), pix is not None),
            "pays": clean["pays"],
            "charge_id": charge_id,
            "charge_role": role,
            **({"replaces": replaces, "chain_root": replaces["chain_root"]} if replaces else {}),
            "status": ISSUED,
            "history": [{"at": now, "status": ISSUED, "by": actor.username,
                         "note": f"Emitido com vencimento em {fmt.day(due_on)}" + (f" ({moved})" if moved else "")}],
            "payment": None,
            "cancel_reason": None,
            "created_at": now,
            "created_by": actor.username,
        }
        inserted = insert_one(db[COLLECTION], encode(doc))
        audit.record(db, actor, municipality, "create", COLLECTION, inserted, {},
                     {k: v for k, v in doc.items() if k not in ("history", "created_at")},
                     note=f"DAM {number.text} emitido")
        stored = _load(db, municipality, str(inserted))
        charges.attach_dam(db, charge_id, stored)
    return stored


# ---- cancelling ----

@checked
def cancel(db: Database, actor: Actor, municipality: str, dam_id: str, reason: str,
           withdraw: bool | None = None) -> dict:
    """Cancel an issued DAM; the reason is required. Paid DAMs are never cancelled.

    Its charge stays owed for a new DAM (the record keeps its place) unless ``withdraw`` (nothing was
    owed: the charge is cancelled too); not given, only a DAM typed by hand withdraws its charge."""
    authorize(actor, "write", municipality)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationFailed({"reason": "Informe o motivo do cancelamento."})
    dam = _load(db, municipality, dam_id)
    if dam["status"] == PAID:
        raise DamNotCancellable(
            f"O DAM {dam['number']} está pago e não pode ser cancelado. "
            "Devolução de valor pago segue o processo de restituição."
        )
    if dam["status"] == CANCELLED:
        raise DamNotCancellable(f"O DAM {dam['number']} já está cancelado.")
    entry = {"at": clock.now_utc(), "status": CANCELLED, "by": actor.username, "note": reason}
    with store.transaction(db):
        if not _transition(db, dam, {"status": ISSUED}, {"status": CANCELLED, "cancel_reason": reason}, entry):
            raise DamNotCancellable(
                f"O DAM {dam['number']} mudou de situação enquanto era cancelado; confira e tente de novo."
            )
        audit.record(db, actor, municipality, "cancel", COLLECTION, dam["id"],
                     {"status": dam["status"], "cancel_reason": None}, {"status": CANCELLED, "cancel_reason": reason},
                     note=f"DAM {dam['number']} cancelado: {reason}")
        if withdraw if withdraw is not None else not dam.get("pays"):
            charges.withdraw(db, dam.get("charge_id"), dam["id"])
        else:
            charges.dam_cancelled(db, dam.get("charge_id"), dam["id"])  # the charge waits for a new DAM
    return _load(db, municipality, dam_id)


def _transition(db: Database, dam: dict, expected: dict, changes: dict, entry: dict) -> bool:
    """Change a DAM only if it still matches ``expected`` (two clerks at once: one wins); the
    history entry is appended atomically. A DAM cancelled marks its printed documents cancelled (replaced,
    when a 2ª via replaces it) for the public verification."""
    result = db[COLLECTION].update_one(
        {"_id": _object_id(dam["id"]), **expected},
        {"$set": encode({**changes, "updated_at": entry["at"]}), "$push": {"history": encode(entry)}},
    )
    if result.modified_count == 1 and changes.get("status") == CANCELLED:
        # the reason is the clerk's free text (it may name a person): the public record keeps only the fact
        authenticity.mark(db, dam.get("municipality", ""), (COLLECTION, dam["id"]), authenticity.REPLACED
                          if changes.get("replaced_by") else authenticity.CANCELLED)
    return result.modified_count == 1

