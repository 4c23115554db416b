"""Shared setup of the enforcement tests: an active authorization and autos taken stage by stage."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from rules.params import ParameterVersion
from services.dam import payments
from services.ridehailing import authorizations, fees
from services.ridehailing.enforcement import autos, lavratura, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.setup import bootstrap
from services.shared import parameters
from tests.ridehailing_data import ACTORS, inspected, register, set_fee

UPFM = Decimal("100.00")


def set_upfm(db) -> None:
    bootstrap.ensure_parameter(db, "chapada", ParameterVersion("upfm_value", date(2026, 1, 1), UPFM, "Ato de teste"))


def active_authorization(db, today, municipality: str, issued_on: date = date(2026, 2, 23)) -> tuple[str, str, str]:
    """(authorization id, CPF, plate) of an authorization whose fee was paid on ``issued_on``."""
    set_fee(db, municipality)
    set_upfm(db)
    today.set(issued_on)
    auth = inspected(db, municipality)
    doc = authorizations.get_authorization(db, ACTORS[municipality], municipality, auth)
    dam = fees.issue_fee_dam(db, ACTORS[municipality], municipality, auth, issued_on)
    payments.record_payment(db, ACTORS[municipality], municipality, dam["id"], issued_on, dam["amount"], "Banco do Brasil")
    return auth, doc["driver_cpf"], doc["plate"]


def driver(db, municipality: str, seed: int, protocol: date = date(2026, 2, 1)) -> tuple[str, str]:
    set_upfm(db)
    return register(db, municipality, protocol, seed=seed)


def lavrado(db, today, municipality: str, code: str, committed_on: date, cpf: str = "", plate: str = "",
            **extra) -> str:
    today.set(max(today.value, committed_on))
    return lavratura.lavrar(db, ACTORS[municipality], municipality, AutoInput(
        target_kind=extra.pop("target_kind", "driver"), driver_cpf=cpf, plate=plate, infraction_code=code,
        facts="Constatado em fiscalização", committed_on=committed_on, auto_on=committed_on, time="10:30",
        place="Avenida Brasil, 100", agent_registration="AF-0042", agent_name="Agente Fiscal", **extra))


def defence_deadline(db, municipality: str, juntada: date) -> date:
    return parameters.calendar(db, municipality, juntada).add_days(juntada, 30)


def notified(db, today, municipality: str, auto_id: str, auto_on: date) -> date:
    """Notified by post 2 days after the auto, received on the 5th, juntada on the 6th; returns the
    last day of the defence."""
    received, juntada = auto_on + timedelta(days=5), auto_on + timedelta(days=6)
    today.set(max(today.value, juntada))
    process.notify(db, ACTORS[municipality], municipality, auto_id, method="post",
                   sent_on=auto_on + timedelta(days=2), received_on=received, juntada_on=juntada)
    return defence_deadline(db, municipality, juntada)


def decided(db, today, municipality: str, auto_id: str, auto_on: date, outcome: str = "mantido") -> date:
    """Notified, defence period run out, decided the day after; returns the decision date."""
    last = notified(db, today, municipality, auto_id, auto_on)
    decided_on = last + timedelta(days=1)
    today.set(max(today.value, decided_on))
    process.decide(db, ACTORS[municipality], municipality, auto_id, outcome=outcome,
                   reasons="Fatos comprovados pelo relatório do agente", authority="Secretário de Finanças",
                   decided_on=decided_on)
    return decided_on


def definitive(db, today, municipality: str, auto_id: str, auto_on: date) -> date:
    """Decided as :func:`decided`, then its appeal term run out with no appeal; returns the first day the
    decision counts for recurrence (the day after the term, LEITURAS §7)."""
    decided(db, today, municipality, auto_id, auto_on)
    doc = autos._load(db, municipality, auto_id)
    first_day = autos.appeal_deadline(db, municipality, doc) + timedelta(days=1)
    today.set(max(today.value, first_day))
    return first_day
