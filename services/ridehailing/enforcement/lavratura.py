"""Lavratura of an auto de infração: the catalogue the clerk picks from, what the rules make of an
infraction given the offender's earlier autos (severity after recurrence, fine, penalties, measures and
the findings that say why), and the auto numbered per municipality and year (CG Decreto 06/2026 arts.
22 and 25; MP Lei 1.552/2025 arts. 18 and 21).
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from pymongo.database import Database

from rules.fmt import brl
from rules.params import ParameterMissing
from rules.ridehailing.concepts import OffenceRecord
from rules.ridehailing.errors import UnknownInfraction
from rules.ridehailing.process import Ruling, final_for_recurrence
from services import store
from services.ridehailing.enforcement import autos
from services.shared import clock, fields, parameters, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import decode, encode, parse_date

NUMBER_KIND = "auto"


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


def _history(db: Database, municipality: str, doc: dict, committed_on: date) -> list[dict]:
    """Earlier autos of the same offender (same CPF, plate or platform) that could count as recurrence."""
    key = autos.OFFENDER_KEY[doc["target_kind"]]
    query = {"municipality": municipality, key: doc[key], "status": "lavrado",
             "committed_on": {"$lt": encode(committed_on)}}
    fields_ = {"number": 1, "infraction_code": 1, "committed_on": 1, "decision": 1, "appeal": 1, "status": 1}
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
                        autos.appeal_deadline(db, municipality, prior), parse_date(appeal.get("filed_on")),
                        ruled.get("outcome"), parse_date(ruled.get("decided_on")))
        final = final_for_recurrence(ruling, on, reference).ok
        out.append((OffenceRecord(prior["infraction_code"], parse_date(prior["committed_on"]), final), prior))
    return out


@checked
def assess(db: Database, actor: Actor, municipality: str, *, target_kind: str, driver_cpf: str = "",
           plate: str = "", platform_id: str = "", infraction_code: str, committed_on: date,
           auto_on: date | None = None) -> dict:
    """What the rules make of an infraction given the offender's earlier autos (shown before lavrar):
    severity after recurrence, fine, penalties, measures, the findings and the earlier auto counted.
    Earlier decisions count as definitive on ``auto_on``, the auto's date (today when not given)."""
    authorize(actor, "read", municipality)
    if target_kind not in autos.TARGETS:
        raise ValidationFailed({"target_kind": "Autuado: escolha condutor, veículo, plataforma ou sem cadastro."})
    if target_kind == "unregistered":  # typed, not picked: the CPF as the register keeps it
        driver_cpf = fields.digits(driver_cpf)
    return _assess(db, municipality, {"target_kind": target_kind, "driver_cpf": driver_cpf, "plate": plate,
                                      "platform_id": platform_id}, infraction_code, committed_on, auto_on or clock.today())


def _assess(db: Database, municipality: str, who: dict, code: str, committed_on: date, on: date) -> dict:
    """The assessment of ``code`` committed on ``committed_on``, counting the decisions definitive on ``on``."""
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


@checked
def lavrar(db: Database, actor: Actor, municipality: str, auto_id: str = "", *, target_kind: str = "driver",
           driver_cpf: str = "", plate: str = "", platform_id: str = "", offender_name: str = "",
           infraction_code: str = "",
           facts: str = "", committed_on: date | None = None, time: str = "", place: str = "",
           agent_registration: str = "", agent_name: str = "", auto_on: date | None = None,
           evidence: Sequence[tuple[str, str, bytes | None]] = (), origin: str = "") -> str:
    """Lavrar an auto: a draft (``auto_id``) completed with the values given, or a new one. Numbers it
    per municipality and year of the auto and stores the rules' assessment (CG art. 22 and 25; MP art.
    18 and 21); ``evidence`` is ``[(description, file name, bytes or None), …]``; someone outside the
    register (``target_kind="unregistered"``) is identified by ``offender_name``, ``driver_cpf``,
    ``plate`` and the ``place`` where found. Returns the id."""
    authorize(actor, "write", municipality)
    for _description, name, data in evidence or ():
        if data:
            uploads.check("evidence", bytes(data), str(name or ""), field="evidence")
    with store.transaction(db):  # a new auto refused at lavratura leaves no draft behind
        if not auto_id:
            auto_id = autos.draft_auto(db, actor, municipality, target_kind=target_kind, driver_cpf=driver_cpf,
                                       plate=plate, platform_id=platform_id, offender_name=offender_name,
                                       infraction_code=infraction_code,
                                       facts=facts, origin=origin or "Lavratura direta", committed_on=committed_on)
        _lavrar(db, actor, municipality, auto_id, committed_on, time, place, agent_registration, agent_name, auto_on,
                evidence)
    return auto_id


def _lavrar(db: Database, actor: Actor, municipality: str, auto_id: str, committed_on: date | None, time: str,
            place: str, agent_registration: str, agent_name: str, auto_on: date | None,
            evidence: Sequence[tuple[str, str, bytes | None]]) -> None:
    doc = autos._load(db, municipality, auto_id)
    if doc["status"] == "descartado":
        raise Conflict("Este rascunho foi descartado e não pode ser lavrado.")
    if doc["status"] != "rascunho":
        raise Conflict(f"O auto nº {doc['number']} já foi lavrado.")
    committed_on = committed_on or doc.get("committed_on")
    auto_on = auto_on or clock.today()
    errors = {}
    if not isinstance(committed_on, date):
        errors["committed_on"] = "Data da infração: informe a data."
    for name, label, value in (("time", "Hora", time), ("place", "Local", place),
                               ("agent_registration", "Matrícula do agente", agent_registration)):
        if not str(value or "").strip():
            errors[name] = f"{label}: obrigatório."
    if time and not errors.get("time") and (problem := _time_problem(time)):
        errors["time"] = f"Hora: {problem}"
    if errors:
        raise ValidationFailed(errors)
    autos._not_future("committed_on", "Data da infração", committed_on)
    autos._not_future("auto_on", "Data do auto", auto_on)
    if auto_on < committed_on:
        raise ValidationFailed({"auto_on": "Data do auto: não pode ser anterior à infração."})
    assessment = _assess(db, municipality, doc, doc["infraction_code"], committed_on, auto_on)
    kept = []
    for description, name, data in evidence or ():
        item = {"description": str(description), "name": str(name or "")}
        if data:
            item["sha256"] = store.put_file(db, bytes(data), str(name or description))
        kept.append(item)
    with store.transaction(db):
        number = next_number(db, municipality, NUMBER_KIND, auto_on.year)
        changes = {"status": "lavrado", "number": number.text, "year": number.year, "sequence": number.sequence,
                   "committed_on": committed_on, "auto_on": auto_on, "time": time.strip(), "place": place.strip(),
                   "agent_registration": agent_registration.strip(), "agent_name": agent_name.strip(),
                   "evidence": kept, **assessment}
        autos._save(db, actor, municipality, doc, changes, "lavrar",
                    f"Auto nº {number.text} lavrado: {assessment['severity']}, {brl(assessment['fine_amount'])}")


@checked
def review_recurrence(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """Recalculate an auto flagged because the earlier auto of its recurrence fell (annulled on appeal):
    the assessment again on its lavratura date with the decisions that still stand, the decision in
    force narrowed to what the new assessment allows (never a higher fine or an added penalty), and the
    flag closed. Returns the new assessment."""
    authorize(actor, "write", municipality)
    doc = autos._load(db, municipality, auto_id)
    review = doc.get("recurrence_review") or {}
    if not review.get("open"):
        raise Conflict("Este auto não tem reincidência a rever.")
    assessment = _assess(db, municipality, doc, doc["infraction_code"], parse_date(doc["committed_on"]),
                         parse_date(doc["auto_on"]))
    changes = {**assessment, "recurrence_review": {**review, "open": False, "reviewed_on": clock.today(),
                                                   "reviewed_by": actor.username}}
    for name in ("appeal", "decision"):  # the decision in force: the appeal's, else the first one
        ruled = (doc.get("appeal") or {}).get("decision") if name == "appeal" else doc.get("decision")
        if ruled and ruled.get("outcome") != "anulado":
            narrowed = {**ruled, "fine_amount": min(ruled["fine_amount"], assessment["fine_amount"]),
                        "penalties": [p for p in ruled["penalties"] if p in assessment["penalties"]]}
            changes[name] = {**doc["appeal"], "decision": narrowed} if name == "appeal" else narrowed
            break
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, changes, "recurrence_reviewed",
                    f"Reincidência revista: {assessment['severity']}, {brl(assessment['fine_amount'])}"
                    + (f" (reincidência do auto nº {assessment['recurrence_of']['number']})"
                       if assessment["recurrence_of"] else " (sem reincidência)"))
    return assessment


def _time_problem(text: str) -> str:
    """What is wrong with a time of day typed as HH:MM, in pt-BR ("" when it is right)."""
    hours, colon, minutes = text.strip().partition(":")
    if not (colon and hours.isdigit() and minutes.isdigit() and len(minutes) == 2 and len(hours) <= 2):
        return f"«{text.strip()}» não está no formato HH:MM (ex.: 09:40)."
    if int(hours) > 23:
        return f"{int(hours)} não é uma hora do dia (de 00 a 23)."
    if int(minutes) > 59:
        return f"{int(minutes)} não são minutos válidos (de 00 a 59)."
    return ""


