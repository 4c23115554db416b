"""Zones and localities of Nova Lacerda's machinery module, as the TI screen keeps them.

The list is the dated parameter ``machinery_localities`` (:data:`LOCALITIES`): each entry a zone, a
locality and its area (rural or urbana). The order of the zones is the order of the regional schedule
(Decreto 017/2026, art. 3, §1): :func:`localities` and :func:`zone_order` give it to the schedule board
(:mod:`.schedule`). The screen edits the rows with an "Ordem" number and :func:`save` turns the edited rows
into that list. A new version is in force from its date; history is never edited.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from pymongo.database import Database

from rules import fmt
from rules.params import ParameterMissing
from services import store
from services.machinery import booking_requests
from services.shared import clock, exports, parameters
from services.shared.auth import Actor
from services.shared.errors import ValidationFailed

LOCALITIES = "machinery_localities"
AREAS = ("rural", "urbana")
LAST = Decimal("Infinity")  # a row without "Ordem" goes after the numbered ones, in typed order
COLUMNS = ("Ordem", "Zona", "Localidade", "Área")


def localities(db: Database, municipality: str, on: date) -> list[dict]:
    """Zones and localities in force (TI parameter ``machinery_localities``), in schedule order."""
    try:
        return list(parameters.value(db, municipality, LOCALITIES, on))
    except ParameterMissing:
        return []


def zone_order(entries: list[dict]) -> list[str]:
    """The zones in the order of the list (the regional schedule, art. 3 §1)."""
    return list(dict.fromkeys(e["zone"] for e in entries))


@booking_requests.module_service("admin")
def set_localities(db: Database, actor: Actor, municipality: str, effective: date, entries: list[dict],
                   act: str) -> None:
    """A new version of the zones/localities list (``ti``): [{"zone", "locality", "area" rural|urbana}]."""
    clean, errors = [], {}
    for n, entry in enumerate(entries, start=1):
        zone, locality = str(entry.get("zone", "")).strip(), str(entry.get("locality", "")).strip()
        area = entry.get("area")
        if not zone or not locality or area not in ("rural", "urbana"):
            errors[f"linha {n}"] = f"Linha {n}: informe zona, localidade e área (rural ou urbana)."
        clean.append({"zone": zone, "locality": locality, "area": area})
    if not clean:
        errors["entries"] = "Informe ao menos uma localidade."
    if errors:
        raise ValidationFailed(errors)
    parameters.add_version(db, actor, municipality, LOCALITIES, effective, clean, act,
                           "Zonas e localidades do cronograma regionalizado (Decreto 017/2026, art. 3, §1)")


@booking_requests.module_service("read", reach="own")
def in_force(db: Database, actor: Actor, municipality: str, on: date) -> list[dict]:
    """The rows of the list in force on ``on``, in schedule order (``read``)."""
    return [{"Ordem": n, "Zona": e["zone"], "Localidade": e["locality"], "Área": e["area"]}
            for n, e in enumerate(localities(db, municipality, on), start=1)]


@booking_requests.module_service("read")
def export_csv(db: Database, actor: Actor, municipality: str, on: date) -> bytes:
    """The list in force on ``on`` as CSV."""
    return exports.to_csv(in_force(db, actor, municipality, on), COLUMNS)


@booking_requests.module_service("read")
def export_xlsx(db: Database, actor: Actor, municipality: str, on: date) -> bytes:
    """The list in force on ``on`` as XLSX."""
    return exports.to_xlsx(in_force(db, actor, municipality, on), COLUMNS, sheet="Zonas e localidades")


def _text(value: object) -> str:
    return "" if value is None or value != value else str(value).strip()  # NaN from an empty editor cell


@booking_requests.module_service("admin")
def save(db: Database, actor: Actor, municipality: str, effective: date | None, rows: list[dict],
         act: str) -> int:
    """Save the edited rows (``Ordem``, ``Zona``, ``Localidade``, ``Área``) as a new version in force from
    ``effective`` (not before today), ordered by "Ordem" (ties keep the typed order); wholly blank rows
    are dropped. Errors name the line as the user sees it ("linha N"). Returns how many entries (``admin``)."""
    errors: dict[str, str] = {}
    if not isinstance(effective, date):
        errors["effective"] = "Informe a data de início da vigência."
    elif effective < clock.today():
        errors["effective"] = f"A vigência não pode ser anterior a hoje ({fmt.day(clock.today())})."
    lines, seen = [], {}
    for n, row in enumerate(rows, start=1):
        zone, locality, area = (_text(row.get(k)) for k in ("Zona", "Localidade", "Área"))
        order = _text(row.get("Ordem"))
        if not (zone or locality or area):
            continue
        missing = [what for what, value in (("a zona", zone), ("a localidade", locality)) if not value]
        if area not in AREAS:
            missing.append("a área (rural ou urbana)")
        try:
            rank = Decimal(order.replace(",", ".")) if order else LAST
            if not rank.is_finite():
                raise InvalidOperation
        except InvalidOperation:
            missing.append("a ordem como número")
            rank = LAST
        if missing:
            errors[f"linha {n}"] = f"Linha {n}: informe {', '.join(missing)}."
        elif (zone.casefold(), locality.casefold()) in seen:
            errors[f"linha {n}"] = (f"Linha {n}: a localidade {locality} da zona {zone} já está na "
                                    f"linha {seen[(zone.casefold(), locality.casefold())]}.")
        else:
            seen[(zone.casefold(), locality.casefold())] = n
        lines.append((rank, n, {"zone": zone, "locality": locality, "area": area}))
    if not lines:
        errors["entries"] = "Informe ao menos uma localidade."
    if errors:
        raise ValidationFailed(errors)
    entries = [entry for _, _, entry in sorted(lines, key=lambda line: line[:2])]
    with store.transaction(db):
        set_localities(db, actor, municipality, effective, entries, act)
    return len(entries)
