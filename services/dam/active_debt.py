"""Dívida ativa: the charges overdue past the municipality's term, their export for inscription, and
marking them inscribed.

Lei 4.320/1964, art. 39, §1: the credits of the municipality not paid by their due date are inscribed
as dívida ativa, in a register of its own, after their liquidity and certainty are checked; the term
after the due date is the municipality's (its Código Tributário), the dated parameter
:data:`TERM_PARAMETER`, which has no default (a made-up term would inscribe real taxpayers). A charge
em aberto or pago a menor overdue for more than that many days may be inscribed
(``rules.dam.charges.inscribable``). The export has what the inscription and its certidão need
(Lei 6.830/1980, art. 2º, §§5º-6º: the debtor and their address, the amount originally owed, the
date it fell due, its origin and legal basis). The clerk then marks the exported charges inscribed
with the book or reference of the register; each charge is re-read and re-checked, written on its
version, with an audit entry, all in one unit of work. An inscribed charge is still owed: a later
payment settles it as any other (``services.dam.charges``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from pymongo.database import Database

from rules import fmt
from rules.dam import charges as rules
from rules.params import ParameterMissing
from services import store
from services.dam import charges
from services.dam.debts import kind_label
from services.shared import audit, clock, exports, fields, parameter_labels, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ServiceError, ValidationFailed
from services.store import encode

TERM_PARAMETER = "active_debt_days"
MAX_BATCH = 1000  # charges per export and inscription: the oldest first, the next batch after these are marked
MAX_BOOK = 200
INSCRIBABLE = (rules.OPEN, rules.SHORT)
SORT = [("due_on", 1), ("_id", 1)]


class InscriptionTermMissing(ServiceError):
    """The municipality has no term for inscription in dívida ativa in force."""


@dataclass(frozen=True)
class Candidates:
    """The charges that may be inscribed on ``on`` (overdue more than ``term_days``), oldest first, at
    most :data:`MAX_BATCH` of them; ``total`` counts them all."""

    on: date
    term_days: int
    rows: tuple[dict, ...]
    total: int

    @property
    def ids(self) -> list[str]:
        return [row["id"] for row in self.rows]


@dataclass(frozen=True)
class InscriptionResult:
    """What marking a batch did: the charges inscribed and those left out, each with who, its due date
    and the reason (pt-BR)."""

    inscribed: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]


def term_days(db: Database, municipality: str, on: date) -> int:
    """The days after the due date before a charge may be inscribed, in force on ``on``."""
    try:
        value = parameters.value(db, municipality, TERM_PARAMETER, on)
    except ParameterMissing:
        raise InscriptionTermMissing(
            f"O município não tem «{parameter_labels.label(TERM_PARAMETER)}» em vigor em {fmt.day(on)}; peça à TI "
            "para cadastrá-lo em Administração (TI) › Parâmetros (o prazo é do Código Tributário Municipal)."
        ) from None
    days = _whole_days(value)
    if days is None:
        raise InscriptionTermMissing(f"«{parameter_labels.label(TERM_PARAMETER)}» em vigor não é um número inteiro "
                                     f"de dias ({value}); peça à TI para corrigi-lo em Parâmetros.")
    return days


def _whole_days(value: Any) -> int | None:
    """A parameter typed as a whole number of days (int, decimal or text), or None."""
    if isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value() or number < 0:
        return None
    return int(number)


def _query(municipality: str, on: date, days: int) -> dict:
    # overdue more than ``days`` days: due before on - days (rules.dam.charges.inscribable)
    return {"municipality": municipality, "status": {"$in": list(INSCRIBABLE)},
            "due_on": {"$lt": encode(on - timedelta(days=days))}}


@checked
def candidates(db: Database, actor: Actor, municipality: str) -> Candidates:
    """The charges that may be inscribed today, oldest due first (at most :data:`MAX_BATCH`)."""
    authorize(actor, "read", municipality)
    charges.prepare(db)
    today = clock.today()
    days = term_days(db, municipality, today)
    mongo = _query(municipality, today, days)
    total = db[charges.COLLECTION].count_documents(mongo)
    found = db[charges.COLLECTION].find(mongo).sort(SORT).limit(MAX_BATCH)
    rows = tuple(row for row in map(charges.plain, found)
                 if rules.inscribable(row["status"], row["due_on"], today, days))
    return Candidates(today, days, rows, total)


EXPORT_COLUMNS = ("Débito", "Contribuinte", "CPF/CNPJ", "Endereço", "Origem", "Código da receita", "Receita",
                  "Descrição", "Fundamentação legal", "Exercício", "Vencimento", "Dias de atraso", "Principal",
                  "Multa e juros", "Pago", "Em aberto", "DAMs", "Fundamento da inscrição")


def rows_of(found: Candidates) -> list[dict[str, Any]]:
    """One typed row per charge, with what the inscription needs (pt-BR headers)."""
    out = []
    for charge in found.rows:
        taxpayer, owner = charge.get("taxpayer") or {}, charge.get("owner") or {}
        out.append(dict(zip(EXPORT_COLUMNS, (
            charge["id"], taxpayer.get("name", ""), fields.show("cpf_cnpj", taxpayer.get("document", "")),
            taxpayer.get("address", ""), owner.get("label", "") or charge.get("description", ""),
            charge.get("revenue_code") or "", kind_label(charge.get("revenue_kind")), charge.get("description", ""),
            charge.get("legal_basis", ""), charge.get("reference", ""), charge["due_on"],
            rules.days_overdue(charge["due_on"], found.on), charge["principal"], charge["late"], charge["paid"],
            charge["open"], ", ".join(d["number"] for d in charge.get("dams", [])), rules.LEGAL_BASIS_ACTIVE_DEBT,
        ))))
    return out


@checked
def export_csv(db: Database, actor: Actor, municipality: str) -> bytes:
    """The charges that may be inscribed today, for the register of dívida ativa (CSV)."""
    return exports.to_csv(rows_of(candidates(db, actor, municipality)), EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Actor, municipality: str) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet."""
    return exports.to_xlsx(rows_of(candidates(db, actor, municipality)), EXPORT_COLUMNS, sheet="Dívida ativa")


def _clean(charge_ids: Any, book: Any) -> tuple[list[str], str]:
    errors = {}
    book = str(book or "").strip()
    if not book:
        errors["book"] = "Livro, folha ou número da inscrição: campo obrigatório."
    elif len(book) > MAX_BOOK:
        errors["book"] = f"Livro, folha ou número da inscrição: até {MAX_BOOK} caracteres."
    ids = list(dict.fromkeys(str(i) for i in charge_ids)) if isinstance(charge_ids, (list, tuple)) else []
    if not ids:  # more than MAX_BATCH is refused at the boundary (ITEM_LIMITS)
        errors["charge_ids"] = "Nenhum débito a inscrever: exporte a relação antes de marcá-la."
    if errors:
        raise ValidationFailed(errors)
    return ids, book


@checked
def mark_inscribed(db: Database, actor: Actor, municipality: str, charge_ids: list[str], book: str) -> InscriptionResult:
    """Mark the charges of an exported list inscribed in dívida ativa today, with the ``book`` (livro,
    folha or number) of the register. Each is read again: one paid, already inscribed or no longer past
    the term meanwhile is left out with the reason. All in one unit of work: a charge changed while it
    was written undoes the whole batch (``charges.ChargeChanged``)."""
    authorize(actor, "write", municipality)
    ids, book = _clean(charge_ids, book)
    today = clock.today()
    days = term_days(db, municipality, today)
    inscribed, skipped = [], []
    with store.transaction(db):
        for charge_id in ids:
            try:
                charge = charges.load(db, charge_id, municipality)
            except NotFound:
                skipped.append((charge_id, "débito não encontrado"))
                continue
            if not rules.inscribable(charge["status"], charge["due_on"], today, days):
                who = (charge.get("taxpayer") or {}).get("name", "")
                why = _why_not(charge, today, days)
                skipped.append((charge_id, f"{who}, vencimento {fmt.day(charge['due_on'])}: {why}"))
                continue
            inscription = {"on": today, "by": actor.username, "by_name": actor.name, "book": book,
                           "term_days": days, "legal_basis": rules.LEGAL_BASIS_ACTIVE_DEBT}
            charges.set_inscription(db, charge, inscription)
            audit.record(db, actor, municipality, "inscribe", charges.COLLECTION, charge_id,
                         {"status": charge["status"], "inscription": None},
                         {"status": rules.INSCRIBED, "inscription": inscription},
                         note=f"Débito de {(charge.get('taxpayer') or {}).get('name', '')} inscrito em dívida ativa "
                              f"({book}): {fmt.brl(charge['open'])} em aberto")
            inscribed.append(charge_id)
    return InscriptionResult(tuple(inscribed), tuple(skipped))


def _why_not(charge: dict, today: date, days: int) -> str:
    if charge["status"] not in INSCRIBABLE:
        return f"está {rules.STATUSES.get(charge['status'], charge['status']).lower()}"
    late = max(rules.days_overdue(charge["due_on"], today), 0)
    return f"vencido há {fmt.count(late, 'dia', 'dias')}, prazo de {days}"
