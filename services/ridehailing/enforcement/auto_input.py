"""The auto de infração as the clerk types it, checked once: the first stage of a lavratura (CG Decreto
06/2026 arts. 22 and 25; MP Lei 1.552/2025 arts. 18 and 21).

The form, a platform list's reconciliation (a draft), the demo and the benchmark build one
:class:`AutoInput` and hand it to :mod:`.lavratura`, which checks it here, has it assessed in
:mod:`.assessment` and stores it. :func:`offence` reads who the auto is against and what they did (the
draft's part: from the register, or as typed for someone outside it); :func:`circumstances` reads when,
where and by whom it was lavrado and the contact of someone outside the register (the lavratura's part);
:func:`check_evidence` the files, before anything is written.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from pymongo.database import Database

from rules.ridehailing.errors import UnknownInfraction
from rules.ridehailing.sanctions import unregistered_offender_finding
from services.ridehailing.enforcement import autos
from services.shared import clock, entities, fields, uploads
from services.shared.errors import ValidationFailed
from services.store import parse_date


@dataclass(frozen=True)
class AutoInput:
    """The auto's values. A draft (:func:`.lavratura.draft_auto`) takes who and what; lavrar takes the
    rest, and a draft completed keeps its own who and what. ``target_kind`` is driver | vehicle |
    platform | unregistered: someone outside the register is identified by ``offender_name``,
    ``driver_cpf`` and ``plate`` (and the ``place`` where found), and lavrar takes the address, phone
    and e-mail they gave, when known (no address: notified by edital, :func:`.autos.offender_address`);
    the others are picked from the register, which gives their name and address."""

    target_kind: str = "driver"
    driver_cpf: str = ""
    plate: str = ""
    platform_id: str = ""
    offender_name: str = ""
    offender_address: str = ""
    offender_phone: str = ""
    offender_email: str = ""
    infraction_code: str = ""
    facts: str = ""
    committed_on: date | None = None
    time: str = ""
    place: str = ""
    agent_registration: str = ""
    agent_name: str = ""
    auto_on: date | None = None
    evidence: Sequence[tuple[str, str, bytes | None]] = ()  # (description, file name, bytes or None)
    origin: str = ""


def check_evidence(values: AutoInput) -> None:
    """Each file of the evidence is of an accepted kind and size (before anything is written)."""
    for _description, name, data in values.evidence or ():
        if data:
            uploads.check("evidence", bytes(data), str(name or ""), field="evidence")


# ---- who and what (the draft) ----

def offence(db: Database, municipality: str, values: AutoInput) -> dict:
    """Who the auto is against and what they did, as the draft stores them: the infraction of the
    municipality's catalogue, the facts, and the offender (from the register, or typed)."""
    try:
        infraction = autos._rules(municipality).infraction(values.infraction_code)
    except UnknownInfraction as exc:
        raise ValidationFailed({"infraction_code": f"Infração: {exc.message}."}) from None
    if not (values.facts or "").strip():
        raise ValidationFailed({"facts": "Fatos: descreva o que foi constatado."})
    if values.target_kind == "unregistered":
        who = _unregistered(db, municipality, infraction, values)
    else:
        who = _offender(db, municipality, values)
    return {"target_kind": values.target_kind, **who, "infraction_code": values.infraction_code,
            "facts": values.facts.strip(), "committed_on": values.committed_on}


def _unregistered(db: Database, municipality: str, infraction: Any, values: AutoInput) -> dict:
    """Someone outside the drivers register, identified as typed: name, CPF (check digits) and plate.

    Only transporte ilegal is charged to them (CG art. 30; MP art. 27); a CPF of the register is
    charged as its driver instead."""
    errors = {}
    finding = unregistered_offender_finding(infraction)
    if not finding.ok:
        errors["infraction_code"] = f"Infração: {finding.message} ({finding.reference})."
    if not (values.offender_name or "").strip():
        errors["offender_name"] = "Nome do autuado: obrigatório."
    found: dict[str, Any] = {"driver_cpf": "", "plate": "", "platform_id": "", "driver_address": ""}
    for name, kind, label, raw in (("driver_cpf", "cpf", "CPF", values.driver_cpf),
                                   ("plate", "plate", "Placa", values.plate)):
        if not str(raw or "").strip():
            errors[name] = f"{label}: obrigatório para identificar quem não tem cadastro."
            continue
        try:
            found[name] = fields.parse(kind, raw)
        except ValueError as exc:
            errors[name] = f"{label}: {exc}."
    if found["driver_cpf"] and db["drivers"].find_one({"municipality": municipality, "cpf": found["driver_cpf"]},
                                                      {"_id": 1}):
        errors["driver_cpf"] = "CPF: condutor cadastrado neste município; autue-o como condutor."
    if values.platform_id:
        _platform_of(db, municipality, values.platform_id, found, errors)
    if errors:
        raise ValidationFailed(errors)
    return {**found, "offender_name": values.offender_name.strip(), "offender_document": found["driver_cpf"]}


def _platform_of(db: Database, municipality: str, platform_id: str, found: dict, errors: dict) -> None:
    """The platform an auto names, from the register: its name and CNPJ into ``found``, or the error."""
    doc = db["platforms"].find_one({"municipality": municipality, "_id": entities._object_id(platform_id)},
                                   {"name": 1, "cnpj": 1})
    if doc is None:
        errors["platform_id"] = "Plataforma: não cadastrada neste município."
    else:
        found.update(platform_id=platform_id, platform_name=doc["name"], platform_cnpj=doc["cnpj"])


def _offender(db: Database, municipality: str, values: AutoInput) -> dict:
    """Who the auto is against, from the register: the name and document printed on it and the DAM."""
    target_kind, driver_cpf, plate, platform_id = (values.target_kind, values.driver_cpf, values.plate,
                                                   values.platform_id)
    errors = {}
    found: dict[str, Any] = {"driver_cpf": driver_cpf or "", "plate": plate or "", "platform_id": platform_id or ""}
    if target_kind not in autos.TARGETS:
        raise ValidationFailed({"target_kind": "Autuado: escolha condutor, veículo, plataforma ou sem cadastro."})
    if driver_cpf:
        doc = db["drivers"].find_one({"municipality": municipality, "cpf": driver_cpf}, {"name": 1, "address": 1})
        if doc is None:
            errors["driver_cpf"] = "Condutor: não cadastrado neste município."
        else:
            found.update(driver_name=doc["name"], driver_address=doc.get("address") or "")
    if plate:
        doc = db["vehicles"].find_one({"municipality": municipality, "plate": plate}, {"driver_cpf": 1})
        if doc is None:
            errors["plate"] = "Veículo: não cadastrado neste município."
        elif not driver_cpf and doc.get("driver_cpf"):  # the vehicle's driver answers for it
            owner = db["drivers"].find_one({"municipality": municipality, "cpf": doc["driver_cpf"]},
                                           {"name": 1, "address": 1, "cpf": 1})
            if owner:
                found.update(vehicle_driver_cpf=owner["cpf"], vehicle_driver_name=owner["name"],
                             driver_address=owner.get("address") or "")
    if platform_id:
        _platform_of(db, municipality, platform_id, found, errors)
    needed = {"driver": "driver_cpf", "vehicle": "plate", "platform": "platform_id"}[target_kind]
    if not found[needed] and needed not in errors:
        errors[needed] = f"{autos.TARGETS[target_kind]}: escolha no cadastro."
    if errors:
        raise ValidationFailed(errors)
    if target_kind == "platform":
        found.update(offender_name=found["platform_name"], offender_document=found["platform_cnpj"])
    elif driver_cpf:
        found.update(offender_name=found["driver_name"], offender_document=driver_cpf)
    elif found.get("vehicle_driver_cpf"):
        found.update(offender_name=found["vehicle_driver_name"], offender_document=found["vehicle_driver_cpf"])
    else:
        found.update(offender_name=f"Veículo {fields.show('plate', plate)}", offender_document="")
    return found


# ---- when, where, by whom (the lavratura) ----

def circumstances(values: AutoInput, draft: dict) -> dict:
    """When, where and by whom the auto (``draft``, as stored) is lavrado: the date of the infraction
    (the draft's when not given), the time, the place, the agent and the auto's date (today when not
    given), neither in the future nor the auto before the infraction; and for someone outside the
    register the contact typed (address, phone, e-mail: each may be unknown)."""
    committed_on = values.committed_on or parse_date(draft.get("committed_on"))
    auto_on = values.auto_on or clock.today()
    errors = {}
    if not isinstance(committed_on, date):
        errors["committed_on"] = "Data da infração: informe a data."
    for name, label, value in (("time", "Hora", values.time), ("place", "Local", values.place),
                               ("agent_registration", "Matrícula do agente", values.agent_registration)):
        if not str(value or "").strip():
            errors[name] = f"{label}: obrigatório."
    if values.time and not errors.get("time") and (problem := _time_problem(values.time)):
        errors["time"] = f"Hora: {problem}"
    contact = _contact(values, errors) if draft.get("target_kind") == "unregistered" else {}
    if errors:
        raise ValidationFailed(errors)
    autos._not_future("committed_on", "Data da infração", committed_on)
    autos._not_future("auto_on", "Data do auto", auto_on)
    if auto_on < committed_on:
        raise ValidationFailed({"auto_on": "Data do auto: não pode ser anterior à infração."})
    return {"committed_on": committed_on, "auto_on": auto_on, "time": values.time.strip(),
            "place": values.place.strip(), "agent_registration": values.agent_registration.strip(),
            "agent_name": values.agent_name.strip(), **contact}


def _contact(values: AutoInput, errors: dict) -> dict:
    """Where someone outside the register is notified and billed, as they gave it: the address (free
    text), the phone (DDD and number) and the e-mail, each empty when unknown; a bad one into ``errors``."""
    found = {"driver_address": (values.offender_address or "").strip(), "driver_phone": "", "driver_email": ""}
    typed = (("offender_phone", "driver_phone", "phone", "Telefone", values.offender_phone),
             ("offender_email", "driver_email", "email", "E-mail", values.offender_email))
    for name, stored, kind, label, raw in typed:
        if str(raw or "").strip():
            try:
                found[stored] = fields.parse(kind, raw)
            except ValueError as exc:
                errors[name] = f"{label}: {exc}."
    return found


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
