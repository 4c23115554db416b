"""DAM (Documento de Arrecadação Municipal) in the store: issue, read, list, cancel, pay, print.

A DAM gets the next number of its municipality and year, a due date moved to the next business
day (CTN art. 210, parágrafo único; Lei 9.784/1999, art. 66, §1) and the barcode, linha digitável
and PIX "copia e cola" from the parameters in force on its issue date (``rules/dam``). Stored
status is ``emitido``, ``pago`` or ``cancelado``; ``vencido`` is never stored: it is an issued DAM
whose due date has passed, computed when read. Each change appends to the DAM's history and to
the audit log.

A payment that differs is flagged, never silently accepted: an amount other than the DAM's or a
payment after the due date still marks the DAM paid (the bank did receive money for that
barcode), with flags the screen shows for the treasury to review (docs/LEITURAS.md, seção 4, "Baixa").
Paying a DAM tells the record it pays (:func:`services.shared.events.dam_paid`) through an outbox: the
same conditional update that marks the DAM paid sets ``handlers_pending``; the handlers run after
it and clear the mark. A crash or a failing handler in between leaves the mark, and the handlers
run again at start (:func:`services.shared.events.resume_pending`) or when a user retries the payment
(handlers are idempotent). Issue, cancel and payment each write the DAM, its number and its audit
entry in one ``store.transaction``. The bank return file is imported by :mod:`services.dam.bank_import`.

An overdue DAM is reissued as a 2ª via (:func:`reissue`): principal plus multa and juros de mora of
the municipality's Código Tributário (``rules/dam/late.py``) up to a new due date, linked to the
original (``replaces`` / ``replaced_by`` / ``chain_root``), which is cancelled in the same unit of
work. A chain receives one payment: paying the original after its 2ª via pays the original and
cancels the 2ª via; any later payment of the chain is kept on a cancelled DAM for refund
(docs/LEITURAS.md, seção 9).
"""
from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import fmt
from rules.base import cents
from rules.dam.barcode import MAX_AMOUNT
from rules.dam.dates import due_date, due_date_finding, payment_on_time
from rules.dam.late import LateCharges, late_charges, late_rates
from rules.dam.parameters import DamSettings, dam_settings, revenue_code
from rules.params import ParameterMissing
from services import store
from services.dam.slip_pdf import DamPrint, render_dams
from services.shared import (
    audit,
    clock,
    events,
    exports,
    fields,
    municipalities,
    parameter_labels,
    parameters,
)
from services.shared.auth import Actor, authorize
from services.shared.errors import NotFound, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.shared.pdf.letterhead import Letterhead
from services.shared.schema import Page
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "dams"
INDEXES = {
    COLLECTION: [
        ([("municipality", 1), ("barcode", 1)], {"unique": True, "name": "u_dam_barcode"}),
        ([("municipality", 1), ("year", 1), ("sequence", 1)], {"unique": True, "name": "u_dam_number"}),
        ([("municipality", 1), ("status", 1), ("due_on", 1)], {"name": "i_dam_status_due"}),
        ([("municipality", 1), ("issued_on", 1)], {"name": "i_dam_issued"}),
        # the list's filters followed by its sort (SORT), so a filtered page is read in index order
        ([("municipality", 1), ("status", 1), ("year", 1), ("sequence", 1)], {"name": "i_dam_status_number"}),
        ([("municipality", 1), ("revenue_kind", 1), ("year", 1), ("sequence", 1)], {"name": "i_dam_kind_number"}),
        # the outbox: paid DAMs whose handlers have not completed
        ([("handlers_pending", 1)], {"name": "i_dam_handlers_pending"}),
    ]
}

ISSUED, PAID, CANCELLED = "emitido", "pago", "cancelado"
OVERDUE = "vencido"  # computed on read: issued and due date before today
SITUATIONS = {ISSUED: "Emitido (a vencer)", OVERDUE: "Vencido", PAID: "Pago", CANCELLED: "Cancelado"}

REVENUE_KINDS = {
    "taxa_autorizacao": "Taxa de autorização",
    "taxa_vistoria": "Taxa de vistoria",
    "multa": "Multa (auto de infração)",
    "preco_publico": "Preço público por item",
    "parcela": "Parcela de preço público",
    "outras": "Outras receitas municipais",
}

FLAG_AMOUNT = "valor_divergente"
FLAG_LATE = "pago_em_atraso"
FLAG_CANCELLED = "dam_cancelado"
FLAGS = {
    FLAG_AMOUNT: "Valor divergente",
    FLAG_LATE: "Pago em atraso",
    FLAG_CANCELLED: "Pago após cancelamento",
}

STANDARD_INSTRUCTION = (
    "Pague até o vencimento nos bancos conveniados, seus correspondentes ou aplicativos, "
    "pela linha digitável ou pelo código de barras."
)
PIX_INSTRUCTION = "Pelo PIX, leia o QR code ou use o código copia e cola ao lado."


class DamNotPayable(ServiceError):
    """Only an issued (or overdue) DAM receives a payment by hand."""


class DamNotCancellable(ServiceError):
    """A paid or already cancelled DAM cannot be cancelled."""


class DamNotPrintable(ServiceError):
    """A cancelled DAM is not printed: someone could still pay it."""


class DamParametersMissing(ServiceError):
    """The municipality lacks a DAM parameter (FEBRABAN code, PIX key...) in force."""


@dataclass(frozen=True)
class DamQuery:
    """Filters of the DAM list. ``status`` is a key of SITUATIONS; the period applies to
    ``date_field`` (``issued_on`` or ``due_on``), both ends included."""

    search: str = ""
    status: str = ""
    revenue_kind: str = ""
    start: date | None = None
    end: date | None = None
    date_field: str = "issued_on"
    page: int = 1
    per_page: int = 25


@dataclass(frozen=True)
class PaymentCheck:
    """What a payment is flagged for, with the pt-BR reason of each flag."""

    flags: tuple[str, ...]
    notes: tuple[str, ...]


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


def get(db: Database, actor: Actor, municipality: str, dam_id: str) -> dict:
    """One DAM of the municipality, as plain values."""
    authorize(actor, "read", municipality)
    return _load(db, municipality, dam_id)


def _mongo_query(municipality: str, query: DamQuery, today: date) -> dict:
    mongo: dict[str, Any] = {"municipality": municipality}
    ranges: dict[str, dict[str, str]] = {}
    if query.status == OVERDUE:
        mongo["status"] = ISSUED
        ranges.setdefault("due_on", {})["$lt"] = today.isoformat()
    elif query.status == ISSUED:
        mongo["status"] = ISSUED
        ranges.setdefault("due_on", {})["$gte"] = today.isoformat()
    elif query.status:
        mongo["status"] = query.status
    if query.revenue_kind:
        mongo["revenue_kind"] = query.revenue_kind
    field = query.date_field if query.date_field in ("issued_on", "due_on") else "issued_on"
    if query.start:
        earliest = ranges.setdefault(field, {}).get("$gte", "")
        ranges[field]["$gte"] = max(query.start.isoformat(), earliest)  # "a vencer" and a period on due_on: later start
    if query.end:
        ranges.setdefault(field, {})["$lte"] = query.end.isoformat()
    mongo.update(ranges)
    term = query.search.strip()
    if term:
        ors: list[dict] = [{name: {"$regex": re.escape(term), "$options": "i"}} for name in ("taxpayer_name", "number")]
        digits = fields.digits(term)
        if digits:
            ors.append({"taxpayer_document": {"$regex": re.escape(digits)}})
        mongo["$or"] = ors
    return mongo


SORT = [("year", -1), ("sequence", -1)]
# What the list shows (table, labels, batch choice): read nothing else from the store.
LIST_FIELDS = {name: 1 for name in ("number", "taxpayer_name", "taxpayer_document", "revenue_kind", "amount",
                                    "issued_on", "due_on", "status", "payment")}
EXPORT_FIELDS = {**LIST_FIELDS, "description": 1, "line": 1}


def list_page(db: Database, actor: Actor, municipality: str, query: DamQuery) -> Page:
    """One page of DAMs matching the filters, newest number first, paged and counted in the store,
    with only the fields the list shows (``get`` reads a whole DAM)."""
    authorize(actor, "read", municipality)
    mongo = _mongo_query(municipality, query, clock.today())
    total = db[COLLECTION].count_documents(mongo)
    page = max(1, min(query.page, max(1, -(-total // query.per_page))))
    cursor = (db[COLLECTION].find(mongo, LIST_FIELDS).sort(SORT)
              .skip((page - 1) * query.per_page).limit(query.per_page))
    return Page([plain(d) for d in cursor], total, page, query.per_page)


def list_all(db: Database, actor: Actor, municipality: str, query: DamQuery,
             fields_shown: dict[str, int] | None = None) -> list[dict]:
    """Every DAM matching the filters (export, batch print), in the list's order, with the list's
    fields (or ``fields_shown``)."""
    authorize(actor, "read", municipality)
    cursor = db[COLLECTION].find(_mongo_query(municipality, query, clock.today()), fields_shown or LIST_FIELDS)
    return [plain(d) for d in cursor.sort(SORT)]


def ids_to_print(db: Database, actor: Actor, municipality: str, query: DamQuery) -> list[str]:
    """The ids of the DAMs of the filter that can be printed (not cancelled), in the list's order."""
    authorize(actor, "read", municipality)
    mongo = {**_mongo_query(municipality, query, clock.today())}
    if mongo.get("status") == CANCELLED:
        return []
    mongo.setdefault("status", {"$ne": CANCELLED})
    return [str(d["_id"]) for d in db[COLLECTION].find(mongo, {"_id": 1}).sort(SORT)]


def flag_text(payment: dict | None) -> str:
    """The payment's flags as one pt-BR line ("" when none)."""
    return "; ".join(FLAGS.get(flag, flag) for flag in (payment or {}).get("flags", []))


EXPORT_COLUMNS = ("Número", "Contribuinte", "CPF/CNPJ", "Receita", "Descrição", "Valor", "Emissão", "Vencimento",
                  "Situação", "Pago em", "Valor pago", "Alertas do pagamento", "Linha digitável")


def _export_rows(db: Database, actor: Actor, municipality: str, query: DamQuery) -> list[dict[str, Any]]:
    """Exactly the DAMs the filter shows, one typed row each (pt-BR headers; dates, money as Decimal)."""
    rows = []
    for dam in list_all(db, actor, municipality, query, EXPORT_FIELDS):
        payment = dam.get("payment") or {}
        rows.append(dict(zip(EXPORT_COLUMNS, (
            dam["number"], dam["taxpayer_name"], fields.show("cpf_cnpj", dam["taxpayer_document"]),
            REVENUE_KINDS.get(dam["revenue_kind"], dam["revenue_kind"]), dam["description"],
            dam["amount"], dam["issued_on"], dam["due_on"], SITUATIONS[dam["situation"]],
            payment.get("paid_on"), payment.get("amount"), flag_text(payment), dam["line"],
        ))))
    return rows


def export_csv(db: Database, actor: Actor, municipality: str, query: DamQuery) -> bytes:
    """Exactly the DAMs the filter shows, pt-BR formats, ';' separated, UTF-8 with BOM."""
    return exports.to_csv(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS)


def export_xlsx(db: Database, actor: Actor, municipality: str, query: DamQuery) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet (dates as dates, amounts in R$)."""
    return exports.to_xlsx(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS, sheet="DAMs")


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
    not set yet) only that a 2ª via is needed (services/pdf/dam.AFTER_DUE_NEUTRAL)."""
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
    amount: Decimal,
    due: date,
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
           reference: str, charges: dict | None = None, replaces: dict | None = None) -> dict:
    """Number, barcode and store a checked DAM (``clean``); ``charges`` adds multa and juros to the
    principal, ``replaces`` links a 2ª via to the DAM it replaces. Runs inside the caller's unit of
    work when there is one."""
    charges = charges or {"fine": Decimal("0"), "interest": Decimal("0")}
    principal = clean["amount"]
    total = principal - clean["discount"] + charges["fine"] + charges["interest"]
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
    with store.transaction(db):  # number, document and audit entry: one unit of work
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
            "fine": charges["fine"],
            "interest": charges["interest"],
            "reference": reference,
            "revenue_code": revenue_code(book, issued_on, clean["revenue_kind"]),
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
    return _load(db, municipality, str(inserted))


# ---- 2ª via ----

class DamNotReissuable(ServiceError):
    """Only an overdue, unpaid DAM is reissued as a 2ª via."""


def _late_charges_of(db: Database, dam: dict, on: date) -> LateCharges:
    """Multa and juros the DAM owes if paid on ``on``, from its chain's original due date (a 2ª via of a
    2ª via still counts from the first one) and the rates of the Código Tributário in force on ``on``."""
    original = dam.get("replaces") or {}
    principal = dam.get("principal", dam["amount"]) - (dam.get("discount") or Decimal("0")) if not original \
        else original["principal"]
    calendar = parameters.calendar(db, dam["municipality"], on)
    # CTN art. 210, parágrafo único: the period ends on the first business day
    limit = due_date(parse_date(original.get("due_on")) if original else dam["due_on"], calendar)
    try:
        rates = late_rates(parameters.book(db, dam["municipality"]), on)
    except ParameterMissing:
        raise DamParametersMissing(
            "A multa e os juros de mora do Código Tributário Municipal não estão cadastrados para este município; "
            "peça à TI para cadastrá-los (Implantação → Parâmetros) antes de emitir a 2ª via.") from None
    return late_charges(principal, limit, on, rates)


@dataclass(frozen=True)
class ReissueQuote:
    """What the 2ª via of a DAM would charge with a new due date."""

    due_on: date
    principal: Decimal
    fine: Decimal
    interest: Decimal
    total: Decimal
    reasons: tuple[str, ...]


def quote_reissue(db: Database, actor: Actor, municipality: str, dam_id: str, due: date) -> ReissueQuote:
    """The updated amount of the 2ª via for the new due date ``due`` (moved to a business day), with
    the reasons of the multa and juros; nothing is written."""
    authorize(actor, "read", municipality)
    dam = _load(db, municipality, dam_id)
    due_on = due_date(due, parameters.calendar(db, municipality, clock.today()))
    charges = _late_charges_of(db, dam, due_on)
    return ReissueQuote(due_on, charges.principal, charges.fine, charges.interest, charges.total,
                        tuple(f"{f.message} ({f.reference})" for f in charges.findings))


def reissue(db: Database, actor: Actor, municipality: str, dam_id: str, due: date) -> dict:
    """Issue the 2ª via of an overdue DAM: the principal with multa and juros de mora up to the new due
    date, linked to the original, which is cancelled in the same unit of work. The record the DAM pays
    is now paid by the 2ª via; if the taxpayer still pays the original, the bank return pays the
    original and cancels the 2ª via (one payment per chain)."""
    authorize(actor, "write", municipality)
    dam = _load(db, municipality, dam_id)
    today = clock.today()
    if dam["status"] != ISSUED:
        raise DamNotReissuable(f"O DAM {dam['number']} está {SITUATIONS[dam['situation']].lower()}: "
                               "só um DAM vencido e não pago tem 2ª via.")
    calendar = parameters.calendar(db, municipality, today)
    if not today > due_date(dam["due_on"], calendar):
        raise DamNotReissuable(f"O DAM {dam['number']} ainda não venceu (vencimento {fmt.day(dam['due_on'])}): "
                               "pague-o como está.")
    if not isinstance(due, date):
        raise ValidationFailed({"due": "Novo vencimento: informe a data."})
    if due < today:
        raise ValidationFailed({"due": f"Novo vencimento: não pode ser anterior a hoje ({fmt.day(today)})."})
    new_due = due_date(due, calendar)
    charges = _late_charges_of(db, dam, new_due)
    original = dam.get("replaces") or {}
    root = dam.get("chain_root") or dam["id"]
    via = int(original.get("via", 1)) + 1
    replaces = {"id": dam["id"], "number": dam["number"], "via": via, "chain_root": root,
                "due_on": original.get("due_on") or dam["due_on"], "principal": charges.principal}
    clean = {key: dam[key] for key in ("taxpayer_name", "taxpayer_document", "taxpayer_address", "revenue_kind",
                                       "description", "legal_basis", "pays")}
    clean.update(amount=charges.principal, discount=Decimal("0"), due=due)
    typed = "\n".join(line for line in dam.get("instructions", []) if line not in (STANDARD_INSTRUCTION, PIX_INSTRUCTION)
                      and not re.match(r"(Referente a:|\d+ª via|Vencimento em)", line))
    note = (f"{via}ª via do DAM {dam['number']} (vencido em {fmt.day(parse_date(replaces['due_on']))}): "
            + "; ".join(f.message for f in charges.findings) + ".")
    with store.transaction(db):  # the 2ª via, the original's cancellation and both audit entries
        new = _issue(db, actor, municipality, clean, today, "\n".join(filter(None, (note, typed))),
                     reference=dam.get("reference") or str(dam["year"]),
                     charges={"fine": charges.fine, "interest": charges.interest}, replaces=replaces)
        reason = f"Substituído pela {via}ª via, DAM {new['number']}"
        entry = {"at": clock.now_utc(), "status": CANCELLED, "by": actor.username, "note": reason}
        changes = {"status": CANCELLED, "cancel_reason": reason, "chain_root": root,
                   "replaced_by": {"id": new["id"], "number": new["number"]}}
        if not _transition(db, dam, {"status": ISSUED}, changes, entry):
            raise DamNotReissuable(f"O DAM {dam['number']} mudou de situação enquanto a 2ª via era emitida; confira.")
        audit.record(db, actor, municipality, "cancel", COLLECTION, dam["id"], {"status": ISSUED},
                     {"status": CANCELLED, "cancel_reason": reason}, note=f"DAM {dam['number']} cancelado: {reason}")
    return _load(db, municipality, new["id"])


# ---- cancelling ----

def cancel(db: Database, actor: Actor, municipality: str, dam_id: str, reason: str) -> dict:
    """Cancel an issued DAM; the reason is required. Paid DAMs are never cancelled."""
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
    return _load(db, municipality, dam_id)


def _transition(db: Database, dam: dict, expected: dict, changes: dict, entry: dict) -> bool:
    """Change a DAM only if it still matches ``expected`` (two clerks at once: one wins); the
    history entry is appended atomically."""
    result = db[COLLECTION].update_one(
        {"_id": _object_id(dam["id"]), **expected},
        {"$set": encode({**changes, "updated_at": entry["at"]}), "$push": {"history": encode(entry)}},
    )
    return result.modified_count == 1


# ---- payments ----

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


FLAG_REPLACED = "dam_substituido"
FLAGS[FLAG_REPLACED] = "Pago o DAM substituído pela 2ª via"


def _claim_chain(db: Database, dam: dict) -> bool:
    """A DAM of a 2ª via chain (the original and its reissues) is paid once: the first payment of any
    of them claims the chain on its original's document (conditional update); the others cannot."""
    root = dam.get("chain_root")
    if not root:
        return True
    claimed = db[COLLECTION].update_one({"_id": _object_id(root), "chain_paid_by": {"$exists": False}},
                                        {"$set": {"chain_paid_by": dam["id"]}})
    return claimed.modified_count == 1


def _cancel_rest_of_chain(db: Database, actor: Actor, dam: dict, entry_at) -> None:
    """The original was paid after its 2ª via was issued: the 2ª via (any issued DAM of the chain) is
    cancelled, so the record it pays is told once and nobody pays twice."""
    reason = f"O DAM {dam['number']}, substituído por esta via, foi pago"
    entry = {"at": entry_at, "status": CANCELLED, "by": actor.username, "note": reason}
    for doc in db[COLLECTION].find({"chain_root": dam["chain_root"], "status": ISSUED}, {"_id": 1, "number": 1}):
        other = {"id": str(doc["_id"]), "number": doc["number"]}
        if _transition(db, other, {"status": ISSUED}, {"status": CANCELLED, "cancel_reason": reason}, entry):
            audit.record(db, actor, dam["municipality"], "cancel", COLLECTION, other["id"], {"status": ISSUED},
                         {"status": CANCELLED, "cancel_reason": reason}, note=f"DAM {other['number']} cancelado: {reason}")


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
            replaced = dam["status"] == CANCELLED and bool(dam.get("replaced_by")) and _claim_chain(db, dam)
            if dam["status"] == CANCELLED and not replaced:
                return CANCELLED, _pay_cancelled(db, actor, dam, payment, where)
            if replaced:
                payment = {**payment, "flags": [*payment["flags"], FLAG_REPLACED],
                           "notes": [*payment["notes"], f"DAM {dam['number']} substituído pela 2ª via "
                                     f"{dam['replaced_by']['number']}, que foi cancelada"]}
            elif dam["status"] != ISSUED or not _claim_chain(db, dam):
                raise _Changed
            entry = {"at": payment["recorded_at"], "status": PAID, "by": actor.username,
                     "note": _payment_note(payment, where)}
            # the outbox mark goes in the same conditional update that marks the DAM paid
            changes = {"status": PAID, "payment": payment, **({"handlers_pending": True} if dam.get("pays") else {})}
            if not _transition(db, dam, {"status": dam["status"], "payment": None}, changes, entry):
                raise _Changed
            audit.record(db, actor, dam["municipality"], "pay", COLLECTION, dam["id"],
                         {"status": dam["status"], "payment": None}, {"status": PAID, "payment": payment},
                         note=f"DAM {dam['number']}: {entry['note']}")
            if replaced:
                _cancel_rest_of_chain(db, actor, dam, payment["recorded_at"])
    except _Changed:
        return None
    if dam.get("pays"):
        events.dam_paid(db, dam["id"])
    return PAID, payment


def _pay_cancelled(db: Database, actor: Actor, dam: dict, payment: dict, where: str) -> dict:
    """A payment of a cancelled DAM is kept on it, flagged for refund or reuse; the DAM stays cancelled."""
    payment = {**payment, "flags": [*payment["flags"], FLAG_CANCELLED],
               "notes": [*payment["notes"],
                         f"DAM {dam['number']} estava cancelado: {dam.get('cancel_reason') or ''}".rstrip(": ")]}
    entry = {"at": payment["recorded_at"], "status": CANCELLED, "by": actor.username,
             "note": _payment_note(payment, where)}
    if not _transition(db, dam, {"status": CANCELLED, "payment": None}, {"payment": payment}, entry):
        raise _Changed
    audit.record(db, actor, dam["municipality"], "pay", COLLECTION, dam["id"], {"payment": None},
                 {"payment": payment}, note=f"DAM {dam['number']} (cancelado): {entry['note']}")
    return payment


def _payment_note(payment: dict, where: str) -> str:
    note = f"Pago em {fmt.day(payment['paid_on'])}, {fmt.brl(payment['amount'])} ({where})"
    if payment["notes"]:
        note += ". Alertas: " + "; ".join(payment["notes"])
    return note


def record_payment(
    db: Database, actor: Actor, municipality: str, dam_id: str, paid_on: date, amount: Decimal, bank: str
) -> dict:
    """Record a payment by hand (PIX, a bank without return file). A different amount or a late
    payment marks the DAM paid with flags (``payment["flags"]``, ``payment["notes"]``)."""
    authorize(actor, "write", municipality)
    dam = _load(db, municipality, dam_id)
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
    if dam["status"] == PAID and dam.get("handlers_pending"):  # a retry: the payment stands, its handlers run again
        events.dam_paid(db, dam["id"])
        return _load(db, municipality, dam_id)
    if dam["status"] == PAID:
        raise DamNotPayable(f"O DAM {dam['number']} já está pago (em {fmt.day(dam['payment']['paid_on'])}).")
    if dam["status"] == CANCELLED:
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
    return _load(db, municipality, dam_id)


def retry_linked_update(db: Database, actor: Actor, municipality: str, dam_id: str) -> dict:
    """Run again the update of the record a paid DAM pays, when it was left pending (a handler
    failed or the process stopped); returns the DAM (``handlers_pending`` gone when it worked)."""
    authorize(actor, "write", municipality)
    dam = _load(db, municipality, dam_id)
    if dam["status"] == PAID and dam.get("handlers_pending"):
        events.dam_paid(db, dam["id"])
        dam = _load(db, municipality, dam_id)
    return dam


PENDING_MESSAGE = ("Pagamento do DAM {number} registrado; a atualização do registro vinculado ({label}) ficou "
                   "pendente e será refeita automaticamente. Você também pode tentar de novo agora.")


def pending_message(dam: dict) -> str:
    """What the screen says of a paid DAM whose linked record was not updated yet."""
    return PENDING_MESSAGE.format(number=dam["number"], label=(dam.get("pays") or {}).get("label") or "registro pago")


# ---- printing ----

def printable(dam: dict, municipality: municipalities.Municipality, head: Letterhead | None = None) -> DamPrint:
    """What the PDF shows of a stored DAM (``head``: the municipality's letterhead)."""
    replaces = dam.get("replaces") or {}
    return DamPrint(
        municipality_name=f"Prefeitura Municipal de {municipality.name}",
        secretariat=municipality.secretariat,
        municipality_address=" · ".join(part for part in (municipality.address, municipality.phone) if part),
        number=dam["number"],
        taxpayer_name=dam["taxpayer_name"],
        taxpayer_document=dam["taxpayer_document"],
        taxpayer_address=dam["taxpayer_address"],
        description=dam["description"],
        legal_basis=dam["legal_basis"],
        amount=dam["amount"],
        issued_on=dam["issued_on"],
        due_on=dam["due_on"],
        barcode=dam["barcode"],
        instructions=tuple(dam.get("instructions", [])),
        pix_payload=dam.get("pix_payload"),
        head=head,
        revenue_code=dam.get("revenue_code", ""),
        revenue_name=REVENUE_KINDS.get(dam["revenue_kind"], ""),
        reference=dam.get("reference", ""),
        principal=dam.get("principal"),
        discount=dam.get("discount") or Decimal("0"),
        fine=dam.get("fine") or Decimal("0"),
        interest=dam.get("interest") or Decimal("0"),
        after_due=dam.get("after_due", ""),
        via=f"{replaces['via']}ª via do DAM {replaces['number']}" if replaces else "",
    )


PRINT_CHUNK = 200  # DAMs read per $in query when printing


def _load_many(db: Database, municipality: str, dam_ids: Sequence[str]) -> list[dict]:
    """The DAMs of ``dam_ids`` in that order, read with one ``$in`` query per chunk."""
    keys = [_object_id(dam_id) for dam_id in dam_ids]
    found: dict[str, dict] = {}
    for start in range(0, len(keys), PRINT_CHUNK):
        # by _id alone (the cheapest lookup on every store); the municipality is checked on each DAM
        chunk = keys[start:start + PRINT_CHUNK]
        docs = [db[COLLECTION].find_one({"_id": chunk[0]})] if len(chunk) == 1 else \
            db[COLLECTION].find({"_id": {"$in": chunk}})
        found.update((str(doc["_id"]), doc) for doc in docs if doc and doc.get("municipality") == municipality)
    missing = [dam_id for dam_id in dam_ids if str(dam_id) not in found]
    if missing:
        raise NotFound("DAM não encontrado.")
    return [plain(found[str(dam_id)]) for dam_id in dam_ids]


def pdf_batch(
    db: Database, actor: Actor, municipality: str, dam_ids: Sequence[str],
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """One PDF with a page per DAM, in the order given; cancelled DAMs are refused. The DAMs are
    read with one ``$in`` query per chunk; ``progress(done, total)`` is told after each page."""
    authorize(actor, "read", municipality)
    if not dam_ids:
        raise ValidationFailed({"dam_ids": "Escolha ao menos um DAM para imprimir."})
    dams = _load_many(db, municipality, dam_ids)
    cancelled = [d["number"] for d in dams if d["status"] == CANCELLED]
    if cancelled:
        raise DamNotPrintable("DAM cancelado não é impresso: " + ", ".join(cancelled) + ".")
    place = municipalities.get(db, municipality)
    head = municipalities.letterhead(db, municipality, with_phone=True)
    return render_dams([printable(d, place, head) for d in dams], progress)


def pdf(
    db: Database, actor: Actor, municipality: str, dam_ids: Sequence[str],
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """One PDF with a page per DAM, in the order given (see :func:`pdf_batch`)."""
    return pdf_batch(db, actor, municipality, dam_ids, progress)
