"""What the rules make of an infraction: the second stage of a lavratura (CG Decreto 06/2026 arts. 25, 27
and 28–30; MP Lei 1.552/2025 arts. 23–27).

The catalogue the clerk picks from, and the assessment of an offence given the offender's earlier autos:
severity after recurrence, fine, penalties, measures and the findings that say why, with the earlier
auto that made the recurrence. :func:`assess` shows it before lavrar; :mod:`.lavratura` stores
:func:`evaluate`'s result on the auto (and again when a recurrence is reviewed).
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.params import ParameterMissing
from rules.ridehailing.concepts import OffenceRecord
from rules.ridehailing.errors import UnknownInfraction
from rules.ridehailing.process import Ruling, final_for_recurrence
from services.ridehailing.enforcement import autos
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import clock, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import decode, encode, parse_date


def catalogue(municipality: str) -> list[dict]:
    """The municipality's infractions as the clerk picks them: code, article, inciso, text, severity."""
    rows = []
    for item in autos._rules(municipality).catalogue:
        article = item.reference.split(", ", 1)[1] if ", " in item.reference else item.reference
        rows.append({"code": item.code, "text": item.text, "reference": item.reference, "article": article,
                     "inciso": item.code.split("-", 2)[-1] if item.code.count("-") >= 2 else "",
                     "severity": item.severity.value, "offender": item.offender, "unregistered": item.unregistered,
                     "label": f"{article} — {item.text} ({item.severity.value})"})
    return rows


@checked
def assess(db: Database, actor: Actor, municipality: str, values: AutoInput) -> dict:
    """What the rules make of the infraction typed (shown before lavrar): severity after recurrence,
    fine, penalties, measures, the findings and the earlier auto counted. Earlier decisions count as
    definitive on ``values.auto_on``, the auto's date (today when not given)."""
    authorize(actor, "read", municipality)
    if values.target_kind not in autos.TARGETS:
        raise ValidationFailed({"target_kind": "Autuado: escolha condutor, veículo, plataforma ou sem cadastro."})
    if not isinstance(values.committed_on, date):
        raise ValidationFailed({"committed_on": "Data da infração: informe a data."})
    driver_cpf = values.driver_cpf
    if values.target_kind == "unregistered":  # typed, not picked: the CPF as the register keeps it
        driver_cpf = fields.digits(driver_cpf)
    who = {"target_kind": values.target_kind, "driver_cpf": driver_cpf, "plate": values.plate,
           "platform_id": values.platform_id}
    return evaluate(db, municipality, who, values.infraction_code, values.committed_on,
                    values.auto_on or clock.today())


def evaluate(db: Database, municipality: str, who: dict, code: str, committed_on: date, on: date) -> dict:
    """The assessment of ``code`` committed on ``committed_on`` by ``who`` (an auto as stored, or its
    ``target_kind`` and key), counting the earlier decisions definitive on ``on``."""
    rules, book = autos._rules(municipality), parameters.book(db, municipality)
    try:
        rules.infraction(code)
    except UnknownInfraction as exc:
        raise ValidationFailed({"infraction_code": f"Infração: {exc.message}."}) from None
    records = _records(db, municipality, _history(db, municipality, who, committed_on), on)
    history = [r for r, _ in records]
    try:
        sanction = rules.sanction(code, committed_on, history, book)
    except ParameterMissing as exc:
        raise ServiceError(f"Parâmetro ausente para calcular a multa: {exc}") from None
    counted = None
    if sanction.recurrent:  # the most recent earlier auto that alone makes the recurrence
        for record, prior in reversed(records):
            if record.final and rules.sanction(code, committed_on, [record], book).recurrent:
                counted = {"id": str(prior["_id"]), "number": prior["number"], "code": prior["infraction_code"],
                           "committed_on": parse_date(prior["committed_on"])}
                break
    return {
        "infraction_text": sanction.infraction.text, "infraction_reference": sanction.infraction.reference,
        "base_severity": sanction.infraction.severity.value, "severity": sanction.severity.value,
        "fine_amount": sanction.fine.amount, "penalties": [p.value for p in sanction.penalties],
        "measures": [m.value for m in sanction.measures], "suspension_days": sanction.suspension_days,
        "suspension_months": sanction.suspension_months, "recurrent": sanction.recurrent, "recurrence_of": counted,
        "findings": [{"ok": f.ok, "message": f.message, "reference": f.reference} for f in sanction.findings],
    }


def _history(db: Database, municipality: str, who: dict, committed_on: date) -> list[dict]:
    """Earlier autos of the same offender (same CPF, plate or platform) that could count as recurrence."""
    key = autos.OFFENDER_KEY[who["target_kind"]]
    query = {"municipality": municipality, key: who[key], "status": "lavrado",
             "committed_on": {"$lt": encode(committed_on)}}
    fields_ = {"number": 1, "infraction_code": 1, "committed_on": 1, "decision": 1, "appeal": 1, "status": 1,
               "decision_notification": 1}
    return [decode(r) for r in db[autos.COLLECTION].find(query, fields_).sort("committed_on", 1)]


def _records(db: Database, municipality: str, earlier: list[dict], on: date) -> list[tuple[OffenceRecord, dict]]:
    """Earlier autos as the rules count them on ``on`` (the later auto's lavratura): final only when
    upheld and no longer open to appeal (CG art. 25 and art. 27; MP art. 23 §2 and art. 25 §4)."""
    reference = autos._rules(municipality).ref("due_process")
    out = []
    for prior in earlier:
        decision, appeal = prior.get("decision") or {}, prior.get("appeal") or {}
        ruled = appeal.get("decision") or {}
        ruling = Ruling(decision.get("outcome"), parse_date(decision.get("decided_on")),
                        autos.appeal_deadline(db, municipality, prior, on), parse_date(appeal.get("filed_on")),
                        ruled.get("outcome"), parse_date(ruled.get("decided_on")),
                        awaiting_notice=autos.awaiting_decision_notice(prior, on))
        final = final_for_recurrence(ruling, on, reference).ok
        out.append((OffenceRecord(prior["infraction_code"], parse_date(prior["committed_on"]), final), prior))
    return out
