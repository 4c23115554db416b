"""Dated parameters in the store: picked by date, added as new versions, never edited in place."""
from __future__ import annotations

import calendar as calendar_module
import math
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.base import RuleError
from rules.calendar import LegalCalendar
from rules.dam.charges import OWING
from rules.fmt import brl
from rules.params import ParameterBook, ParameterMissing, ParameterVersion
from rules.registry import RIDE_HAILING, ruleset, services_of
from rules.ridehailing.concepts import Severity
from services.shared import audit, clock, municipalities
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, ValidationFailed
from services.shared.parameter_labels import FIRST_KINDS, label
from services.store import DuplicateKeyError, decode, encode, exists, insert_one, parse_date

HOLIDAYS = "municipal_holidays"


ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _version(doc: dict) -> ParameterVersion:
    """A stored version; a date value (kept as ISO text by the codec) comes back as ``date``."""
    doc = decode(doc)
    value = doc["value"]
    if isinstance(value, str) and ISO_DATE.fullmatch(value):
        value = date.fromisoformat(value)
    return ParameterVersion(doc["name"], parse_date(doc["effective"]), value, doc["act"], doc.get("note", ""))


def book(db: Database, municipality: str) -> ParameterBook:
    """Every version of every parameter of the municipality."""
    return ParameterBook(_version(d) for d in db["parameters"].find({"municipality": municipality}))


def value(db: Database, municipality: str, name: str, on: date) -> Any:
    """The value in force on ``on``; raises ParameterMissing when none is."""
    return book(db, municipality).get(name, on)


def history(db: Database, municipality: str, name: str | None = None) -> list[dict]:
    query: dict = {"municipality": municipality}
    if name:
        query["name"] = name
    return [decode(d) for d in db["parameters"].find(query).sort([("name", 1), ("effective", -1)])]


def _checked(db: Database, municipality: str, name: str, value: Any, act: str) -> None:
    """The version's fields, each error under its own (a kind change refused, issue 22 item 10)."""
    errors = {}
    if not name.strip():
        errors["name"] = "Informe o nome do parâmetro."
    if not act.strip():
        errors["act"] = "Informe o ato que fixou o valor (lei, decreto, portaria)."
    if value is None or value == "":
        errors["value"] = "Informe o valor."
    elif isinstance(value, float) and not math.isfinite(value):
        errors["value"] = "Valor: informe um número finito."
    elif (kind := _kind_of_history(db, municipality, name.strip())) and kind != value_kind(value):
        errors["value"] = (f"Valor: este parâmetro é {KIND_NAMES[kind]} em todas as versões; a nova versão também "
                           f"deve ser (recebido: {KIND_NAMES[value_kind(value)]}).")
    if errors:
        raise ValidationFailed(errors)


@dataclass(frozen=True)
class Preview:
    """What TI sees before a new version is saved: the value in force today and the new one, the
    version already registered after its date (which still wins from then), and what is open in the
    municipality today — DAMs and charges keep the amount they were issued with."""

    municipality: str  # the municipality's name
    name: str
    today: ParameterVersion | None
    new: ParameterVersion
    later: ParameterVersion | None
    open_dams: int
    owing_charges: int
    overdue_charges: int  # owing charges already past due on the new version's date
    fines: tuple[tuple[str, str, str], ...] = ()  # (severity, fine today, fine with the new value) that change


@checked
def preview(db: Database, actor: Actor, municipality: str, name: str, effective: date, value: Any, act: str,
            note: str = "") -> Preview:
    """The before/after of a new version, checked as :func:`add_version` checks it (``ti`` only); a
    fixed number of indexed queries, whatever the size of the store."""
    authorize(actor, "admin", municipality)
    _checked(db, municipality, name, value, act)
    if exists(db["parameters"], {"municipality": municipality, "name": name.strip(), "effective": effective.isoformat()}):
        raise Conflict(_taken(name, effective), field="effective")
    versions = book(db, municipality)
    new = ParameterVersion(name.strip(), effective, value, act.strip(), note.strip())
    try:
        in_force = versions.version(new.name, clock.today())
    except ParameterMissing:
        in_force = None
    later = [v for v in versions.history(new.name) if v.effective > effective]
    owing = {"municipality": municipality, "status": {"$in": list(OWING)}}
    return Preview(
        municipalities.get(db, municipality).name, new.name, in_force, new, later[0] if later else None,
        db["dams"].count_documents({"municipality": municipality, "status": "emitido"}),
        db["charges"].count_documents(owing),
        db["charges"].count_documents({**owing, "due_on": {"$lt": effective.isoformat()}}),
        _fines(municipality, versions, new))


def _fines(municipality: str, versions: ParameterBook, new: ParameterVersion) -> tuple[tuple[str, str, str], ...]:
    """The fine of each severity on the new version's date, today's book beside the book with the new
    version, where they differ (a UPFM, a fine or its cap of the ride-hailing acts); a refusal (a fine
    above its cap) is said in words."""
    if RIDE_HAILING not in services_of(municipality):
        return ()
    rules = ruleset(municipality, RIDE_HAILING)
    changed = versions.with_versions([new])

    def fine(params: ParameterBook, severity: Severity) -> str:
        try:
            return brl(rules.fine_amount("", new.effective, params, severity).amount)
        except RuleError as exc:
            return f"recusada ({exc})"

    pairs = ((severity.value, fine(versions, severity), fine(changed, severity)) for severity in Severity)
    return tuple(pair for pair in pairs if pair[1] != pair[2])


def _taken(name: str, effective: date) -> str:
    return (f"Já existe uma versão de '{label(name)}' em vigor a partir de {effective:%d/%m/%Y}; "
            "escolha outra data de vigência.")


@checked
def add_version(
    db: Database, actor: Actor, municipality: str, name: str, effective: date, value: Any, act: str, note: str = ""
) -> None:
    """Add a new version in force from ``effective`` (``ti`` only). History is never edited."""
    authorize(actor, "admin", municipality)
    _checked(db, municipality, name, value, act)
    doc = {
        "municipality": municipality,
        "name": name.strip(),
        "effective": effective,
        "value": value,
        "act": act.strip(),
        "note": note.strip(),
        "created_by": actor.username,
        "created_at": clock.now_utc(),
    }
    try:
        inserted = insert_one(db["parameters"], encode(doc))
    except DuplicateKeyError:
        raise Conflict(_taken(name, effective), field="effective") from None
    audit.record(db, actor, municipality, "create", "parameters", inserted, {}, doc)


KIND_NAMES = {"decimal": "um valor (R$) ou número decimal", "int": "um número inteiro", "text": "um texto",
              "bool": "sim/não", "table": "uma tabela"}


def value_kind(value: Any) -> str:
    """The kind of a parameter's value (a new version keeps the kind of the earlier ones: a money value
    typed as text would break every rule that reads it, issue 22 item 10)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, (Decimal, float)):
        return "decimal"
    if isinstance(value, str):
        return "text"
    return "table"


def _kind_of_history(db: Database, municipality: str, name: str) -> str | None:
    """The kind of the latest version of the parameter; with none yet, the kind its first one must
    have (``parameter_labels.FIRST_KINDS``), else None."""
    latest = db["parameters"].find_one({"municipality": municipality, "name": name}, {"value": 1},
                                       sort=[("effective", -1)])
    return value_kind(decode(latest)["value"]) if latest is not None else FIRST_KINDS.get(name)


def calendar(db: Database, municipality: str, on: date | None = None) -> LegalCalendar:
    """The legal calendar with the municipal holidays in force (recurring MM-DD or fixed dates)."""
    return calendar_from(book(db, municipality), on)


def calendar_from(versions: ParameterBook, on: date | None = None) -> LegalCalendar:
    """The legal calendar of ``on`` from an already loaded parameter book (no store access)."""
    on = on or clock.today()
    try:
        entries = versions.get(HOLIDAYS, on)
    except ParameterMissing:
        entries = []
    days: list[tuple[date, str]] = []
    for entry in entries:
        when, name = entry["day"], entry["name"]
        if len(when) == 5:  # "MM-DD": every year
            for year in range(on.year - 5, on.year + 6):
                if when != "02-29" or calendar_module.isleap(year):
                    days.append((date.fromisoformat(f"{year}-{when}"), name))
        else:
            days.append((date.fromisoformat(when), name))
    return LegalCalendar(days)


def parse_holiday_lines(text: str) -> list[dict]:
    """'dd/mm Nome' (every year) or 'dd/mm/aaaa Nome' lines → holiday entries; bad lines refused."""
    entries, errors = [], {}
    for number, line in enumerate((ln.strip() for ln in text.splitlines()), start=1):
        if not line:
            continue
        day, _, name = line.partition(" ")
        parts = day.split("/")
        try:
            if len(parts) == 2:
                date(2024, int(parts[1]), int(parts[0]))  # 2024 admits 29/02
                entries.append({"day": f"{int(parts[1]):02d}-{int(parts[0]):02d}", "name": name.strip() or "Feriado municipal"})
            elif len(parts) == 3:
                entries.append({"day": date(int(parts[2]), int(parts[1]), int(parts[0])).isoformat(),
                                "name": name.strip() or "Feriado municipal"})
            else:
                raise ValueError
        except ValueError:
            errors[f"linha {number}"] = f"Linha {number}: data inválida em '{line}' (use dd/mm ou dd/mm/aaaa)."
    if errors:
        raise ValidationFailed(errors)
    return entries
