"""Payment by DAM of the public machinery services (Decreto 017/2026, Nova Lacerda, art. 8).

- §1: quantities known in advance (loads, bus or van hire, truck days) are paid in full before
  the service, by the DAM's due date;
- §2: machine hours are estimated; 50% of the estimate is paid before, the balance on the hours
  actually worked within 15 days after completion (a credit to return when the advance was more);
- §3: with an express justification the Secretaria may set the full payment or any instalment due
  up to 30 days after completion, especially (I) for non-profits or vulnerable people, or (II) for
  emergency or public-interest services previously authorized by the competent authority;
- §4: any unpaid instalment suspends new requests until settled.
Each DAM is a document of a charge (débito, ``rules/dam/charges.py``): the service may start only
when the charge of every instalment due before it is paid in full (:func:`service_may_start`); a
charge paid short is still owed, a cancelled DAM leaves its charge waiting for a new DAM
(:func:`charge_situation` says which, in pt-BR).
Periods in days are counted by the LegalCalendar (Lei 9.784/1999, art. 66).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import Enum

from rules.base import Decision, Finding, Level, RuleError, cents
from rules.calendar import LegalCalendar
from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from rules.machinery.prices import DECREE
from rules.machinery.quote import MACHINE_ITEMS, Quote, UnknownItem, checked_quantity
from rules.params import ParameterBook

ART_8 = f"{DECREE}, art. 8"
FULL, ADVANCE, BALANCE = "integral", "adiantamento", "saldo"


class ExtensionGround(str, Enum):
    """Why the Secretaria extends a due date (art. 8, §3: the list is "especialmente", not closed)."""

    NON_PROFIT_OR_VULNERABLE = "Entidade sem fins lucrativos ou pessoa em vulnerabilidade, sem liquidez imediata"
    EMERGENCY_OR_PUBLIC_INTEREST = "Serviço emergencial ou de relevante interesse público"
    OTHER = "Outra hipótese justificada"


class ExtensionRefused(RuleError):
    """A due-date extension that art. 8, §3 does not allow."""


class ExtensionWithoutJustification(ExtensionRefused):
    """Art. 8, §3 requires an express justification."""


class ExtensionBeyondLimit(ExtensionRefused):
    """Art. 8, §3 allows at most 30 days after completion."""


class EmergencyWithoutAuthorization(ExtensionRefused):
    """Art. 8, §3, II requires the competent authority's prior authorization."""


class ExecutedHoursMissing(RuleError):
    """Art. 8, §2 settles on the hours actually worked: a quoted machine without them cannot settle."""


@dataclass(frozen=True)
class DueExtension:
    """The Secretaria's authorization to let instalments fall due after completion (art. 8, §3)."""

    ground: ExtensionGround
    justification: str
    days_after_completion: int
    instalments: tuple[str, ...] = (FULL, ADVANCE, BALANCE)
    prior_authorization: str = ""


@dataclass(frozen=True)
class Instalment:
    """One DAM to pay: amount, due date (None until completion is known) and its rule."""

    key: str
    label: str
    amount: Decimal
    due: date | None
    due_rule: str
    reference: str


@dataclass(frozen=True)
class PaymentPlan:
    quote: Quote
    instalments: tuple[Instalment, ...]
    findings: tuple[Finding, ...] = ()

    def instalment(self, key: str) -> Instalment | None:
        return next((i for i in self.instalments if i.key == key), None)


@dataclass(frozen=True)
class BalanceSettlement:
    """The balance on the hours worked: an amount due, or a credit to return (art. 8, §2)."""

    executed: Decimal
    advance: Decimal
    amount_due: Decimal
    credit_to_return: Decimal
    due: date | None
    message: str
    reference: str


def _check_extension(extension: DueExtension, book: ParameterBook, on: date) -> list[Finding]:
    reference = f"{ART_8}, §3"
    limit = int(book.get("extended_due_max_days", on))
    if not extension.justification.strip():
        raise ExtensionWithoutJustification("A prorrogação exige justificativa expressa", extension, reference)
    if not 0 < extension.days_after_completion <= limit:
        raise ExtensionBeyondLimit(f"O vencimento pode ser de até {limit} dias após a conclusão",
                                   extension.days_after_completion, reference)
    if extension.ground is ExtensionGround.EMERGENCY_OR_PUBLIC_INTEREST and not extension.prior_authorization.strip():
        # Art. 8, §3, II: "com prévia autorização da autoridade competente"
        raise EmergencyWithoutAuthorization("Serviço emergencial exige prévia autorização da autoridade competente",
                                            extension, f"{reference}, II")
    findings = [Finding(True, f"Vencimento prorrogado: {extension.ground.value}", reference, Level.INFO)]
    if extension.ground is ExtensionGround.OTHER:
        findings.append(Finding(False, "Hipótese fora dos incisos I e II; conferir a justificativa",
                                reference, Level.WARNING))
    return findings


def _extended(key: str, label: str, amount: Decimal, extension: DueExtension,
              completion: date | None, calendar: LegalCalendar) -> Instalment:
    days = extension.days_after_completion
    due = calendar.add_days(completion, days) if completion else None
    return Instalment(key, label, amount, due, f"até {days} dias após a conclusão dos serviços",
                      f"{ART_8}, §3")


def payment_plan(
    quote: Quote, issued_on: date, calendar: LegalCalendar, book: ParameterBook, *,
    service_start: date | None = None, completion: date | None = None,
    extension: DueExtension | None = None,
) -> PaymentPlan:
    """The DAMs of a quote: full payment before the service (§1), 50% of machine hours before (§2)."""
    findings = _check_extension(extension, book, issued_on) if extension else []
    dam_due = calendar.add_days(issued_on, int(book.get("dam_due_days", issued_on)))
    if service_start is not None and dam_due >= service_start:
        # Art. 8, §1: paid before the service is carried out
        dam_due = max(issued_on, calendar.subtract_business_days(service_start, 1))
    upfront_rule = f"antes da realização dos serviços, até {dam_due:%d/%m/%Y} (vencimento do DAM)"
    share = Decimal(book.get("advance_share_machine_hours", issued_on))
    balance_days = int(book.get("balance_due_days", issued_on))
    hours = quote.machine_hours_total
    advance = cents(hours * share)
    drafts = []
    if quote.known_total > 0:
        drafts.append((FULL, "Pagamento integral antecipado", quote.known_total, dam_due, upfront_rule, f"{ART_8}, §1"))
    if hours > 0:
        drafts.append((ADVANCE, f"Adiantamento de {share * 100:.0f}% das horas-máquina estimadas", advance,
                       dam_due, upfront_rule, f"{ART_8}, §2"))
        balance_due = calendar.add_days(completion, balance_days) if completion else None
        drafts.append((BALANCE, "Saldo estimado das horas-máquina (acerto pelas horas executadas)",
                       hours - advance, balance_due,
                       f"até {balance_days} dias após a conclusão dos serviços", f"{ART_8}, §2"))
    instalments = []
    for key, label, amount, due, rule, reference in drafts:
        if extension and key in extension.instalments:
            instalments.append(_extended(key, label, amount, extension, completion, calendar))
        else:
            instalments.append(Instalment(key, label, amount, due, rule, reference))
    return PaymentPlan(quote, tuple(instalments), tuple(findings))


def _worked_hours(value: object, ceiling: Decimal) -> Decimal:
    """Hours actually worked by one machine; zero when an estimated machine was not used."""
    exact = isinstance(value, (int, Decimal)) and not isinstance(value, bool)
    if exact and Decimal(value).is_finite() and value == 0:
        return Decimal(0)
    return checked_quantity(value, "Horas executadas", ceiling, reference=f"{ART_8}, §2")


def settle_balance(
    plan: PaymentPlan, worked_hours: Mapping[str, Decimal], completion: date,
    calendar: LegalCalendar, book: ParameterBook, extension: DueExtension | None = None,
) -> BalanceSettlement:
    """The balance on the hours actually worked, priced by the quote's own table (art. 8, §2)."""
    table = plan.quote.price_table
    ceiling = Decimal(book.get("quote_quantity_ceiling", plan.quote.on))
    executed = Decimal("0.00")
    for item, hours in worked_hours.items():
        if item not in MACHINE_ITEMS:
            raise UnknownItem("Horas executadas só dos itens 01 a 04", item, f"{ART_8}, §2")
        executed += cents(table.price(item) * _worked_hours(hours, ceiling))
    # Art. 8, §2: "com base na quantidade efetivamente executada" — each estimated machine's hours
    # must be reported (0 when it was not used); a missing one is not taken as zero
    missing = sorted({line.item for line in plan.quote.lines if line.item in MACHINE_ITEMS} - set(worked_hours))
    if missing:
        raise ExecutedHoursMissing("Informe as horas executadas de cada máquina orçada (0 se não usada): item "
                                   + ", ".join(missing), tuple(missing), f"{ART_8}, §2")
    advance_instalment = plan.instalment(ADVANCE)
    advance = advance_instalment.amount if advance_instalment else Decimal("0.00")
    reference = f"{ART_8}, §2"
    if extension and BALANCE in extension.instalments:
        _check_extension(extension, book, completion)
        days, reference = extension.days_after_completion, f"{ART_8}, §3"
    else:
        days = int(book.get("balance_due_days", plan.quote.on))
    balance = executed - advance
    if balance < 0:
        # Art. 8, §2: the advance exceeded the hours worked; the difference is returned
        return BalanceSettlement(executed, advance, Decimal("0.00"), -balance, None,
                                 f"Crédito de {brl(-balance)} a devolver ao interessado", f"{ART_8}, §2")
    due = calendar.add_days(completion, days) if balance > 0 else None
    message = (f"Saldo de {brl(balance)} a pagar até {due:%d/%m/%Y}" if due
               else "Adiantamento igual ao valor executado: nada a pagar")
    return BalanceSettlement(executed, advance, balance, Decimal("0.00"), due, message, reference)


@dataclass(frozen=True)
class InstalmentStatus:
    """An instalment already issued to the requester, for the art. 8, §4 check."""

    label: str
    amount: Decimal
    due: date
    paid_on: date | None = None


def is_overdue(status: InstalmentStatus, today: date) -> bool:
    """Unpaid and past its due date (a payment on the due date itself is on time)."""
    return status.paid_on is None and today > status.due


def new_requests_allowed(statuses: Iterable[InstalmentStatus], today: date) -> Decision:
    """Art. 8, §4: any unpaid instalment past due suspends new requests until settled."""
    overdue = [s for s in statuses if is_overdue(s, today)]
    if not overdue:
        return Decision((Finding(True, "Sem parcelas em atraso", f"{ART_8}, §4", Level.INFO),))
    return Decision(tuple(
        Finding(False, f"Parcela em atraso: {s.label}, {brl(s.amount)}, vencida em {s.due:%d/%m/%Y}; "
                       "novas solicitações suspensas até a regularização", f"{ART_8}, §4")
        for s in overdue))


# ---- what the instalments' charges allow (art. 8 §1-§2) ----

@dataclass(frozen=True)
class ChargeState:
    """Where the charge (débito) of one instalment stands: its status in ``rules.dam.charges``, what
    is still open, any credit, the day it was paid in full, and whether a DAM to pay it is out."""

    label: str
    reference: str
    status: str
    open: Decimal
    credit: Decimal = Decimal("0.00")
    paid_on: date | None = None
    has_dam: bool = True


def charge_situation(state: ChargeState) -> str:
    """The instalment's payment as the screens and documents say it (pt-BR)."""
    if charge_rules.settled(state.status):
        paid = f"pago em {day(state.paid_on)}" if state.paid_on else "pago"
        return paid + (f"; crédito de {brl(state.credit)} a restituir" if state.credit > 0 else "")
    if state.status == charge_rules.CANCELLED:
        return "débito cancelado"
    if state.status == charge_rules.SHORT:
        return f"pago a menor, falta {brl(state.open)}" + ("" if state.has_dam else " — emitir DAM da diferença")
    if state.status == charge_rules.INSCRIBED:
        return f"inscrito em dívida ativa, {brl(state.open)} em aberto"
    if not state.has_dam:
        return "DAM cancelado — emitir novo DAM"
    return "em aberto"


def service_may_start(upfront: Iterable[ChargeState]) -> Decision:
    """Art. 8 §1-§2: the service may start only when its charge is paid in full — the full payment
    (§1) and the advance of the machine hours (§2) are paid before the service. A charge paid short
    still owes the difference and holds the service; instalments deferred by §3 are not upfront."""
    findings = []
    for state in upfront:
        if charge_rules.settled(state.status):
            findings.append(Finding(True, f"{state.label}: {charge_situation(state)}", state.reference, Level.INFO))
        else:
            findings.append(Finding(False, f"{state.label}: {charge_situation(state)}; o serviço só é agendado "
                                           "após o pagamento integral", state.reference))
    if not findings:
        # Art. 8, §3: every instalment falls due after completion
        return Decision((Finding(True, "Sem pagamento antecipado: vencimento após a conclusão",
                                 f"{ART_8}, §3", Level.INFO),))
    return Decision(tuple(findings))
