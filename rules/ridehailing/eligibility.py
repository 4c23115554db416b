"""Checks shared by the municipal laws; each returns a Finding citing the article it is given.

The rule set of each municipality decides which checks apply and with which article.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from rules.base import Finding, Level
from rules.calendar import add_months
from rules.fmt import day
from rules.params import ParameterBook
from rules.ridehailing.catalogue import DocumentRequirement
from rules.ridehailing.concepts import Document, Driver, Holder, Severity, Vehicle

CNH_CATEGORIES_B_OR_ABOVE = frozenset({"B", "C", "D", "E", "AB", "AC", "AD", "AE"})


def within_months(earlier: date, later: date, months: int) -> bool:
    """Whether ``later`` falls in the ``months`` after ``earlier``, counted date to date with the
    start day excluded and the end day included (Lei 9.784/1999, art. 66 and §3)."""
    return earlier < later <= add_months(earlier, months)


def cnh_category(driver: Driver, ref: str) -> Finding:
    category = driver.cnh_category.strip().upper()
    if category in CNH_CATEGORIES_B_OR_ABOVE:
        return Finding(True, f"CNH categoria {category}", ref)
    return Finding(False, f"CNH categoria {category or 'não informada'}; exige-se B ou superior", ref)


def cnh_valid(driver: Driver, on: date, ref: str) -> Finding:
    if driver.cnh_valid_until >= on:
        return Finding(True, f"CNH válida até {day(driver.cnh_valid_until)}", ref)
    return Finding(False, f"CNH vencida em {day(driver.cnh_valid_until)}", ref)


def cnh_seniority(driver: Driver, on: date, years: int, ref: str) -> Finding:
    """At least ``years`` since the CNH was first issued, date to date (art. 66 §3)."""
    reached = add_months(driver.cnh_first_license, 12 * years)
    if on >= reached:
        return Finding(True, f"CNH expedida em {day(driver.cnh_first_license)}, há {years} anos ou mais", ref)
    return Finding(
        False,
        f"CNH expedida em {day(driver.cnh_first_license)}; exigem-se {years} anos de expedição, "
        f"completados em {day(reached)}",
        ref,
    )


def fact(holds: bool, ok_text: str, fail_text: str, ref: str, level: Level = Level.ERROR,
         proof: bool = False) -> Finding:
    """A condition of the register; ``proof`` when what is missing is its proof (a declaration or a
    certificate not handed in), so the failure reads "falta comprovar" and not "não atende"."""
    return Finding(holds, ok_text if holds else fail_text, ref, level, unproven=proof and not holds)


def no_gravissima(driver: Driver, protocol: date, months: int, ref: str) -> Finding:
    """No gravíssima traffic infraction in the ``months`` before the protocol date."""
    recent = sorted(
        i.committed_on
        for i in driver.traffic_infractions
        if i.severity is Severity.GRAVISSIMA
        and (i.committed_on == protocol or within_months(i.committed_on, protocol, months))
    )
    if not recent:
        return Finding(True, f"Sem infração de trânsito gravíssima nos {months} meses anteriores ao protocolo", ref)
    return Finding(
        False,
        f"Infração de trânsito gravíssima em {day(recent[-1])}, nos {months} meses anteriores ao "
        f"protocolo de {day(protocol)}",
        ref,
    )


def document_valid_until(doc: Document, req: DocumentRequirement, on: date, params: ParameterBook) -> date | None:
    """The validity printed on the document or, for a certificate without one, its issue plus the days
    the municipality accepts it for (``req.validity_parameter``); None: valid with no end."""
    if doc.valid_until is None and req.validity_parameter:
        return doc.issued_on + timedelta(days=int(params.get(req.validity_parameter, on)))
    return doc.valid_until


def documents_due(driver: Driver, checklist: Iterable[DocumentRequirement], on: date,
                  params: ParameterBook) -> list[str]:
    """Codes of the checklist the driver must (still or again) hand in on ``on``: not presented, or
    past its validity — exactly the documents :func:`documents` does not accept."""
    due = []
    for req in checklist:
        doc = driver.document(req.code)
        end = document_valid_until(doc, req, on, params) if doc is not None else None
        if doc is None or (end is not None and end < on):
            due.append(req.code)
    return due


def documents(
    driver: Driver, checklist: Iterable[DocumentRequirement], on: date, params: ParameterBook
) -> list[Finding]:
    """Each required document present and, for certificates, within validity on ``on``."""
    findings = []
    for req in checklist:
        doc = driver.document(req.code)
        if doc is None:
            findings.append(Finding(False, f"Documento não apresentado: {req.label}", req.reference, unproven=True))
            continue
        valid_until = document_valid_until(doc, req, on, params)
        if valid_until is not None and valid_until < on:
            findings.append(
                Finding(False, f"{req.label}: validade encerrada em {day(valid_until)}", req.reference)
            )
        else:
            until = f", válido até {day(valid_until)}" if valid_until else ""
            findings.append(Finding(True, f"{req.label}: apresentado{until}", req.reference))
    return findings


def vehicle_age(vehicle: Vehicle, on: date, max_years: int, ref: str) -> Finding:
    """Age counted year by year from the model year, the model year closing on 31 December."""
    age = max(on.year - vehicle.model_year, 0)
    if age <= max_years:
        return Finding(True, f"Veículo com {age} anos (ano modelo {vehicle.model_year})", ref)
    return Finding(False, f"Veículo com {age} anos; o máximo é {max_years}", ref)


def vehicle_design(vehicle: Vehicle, doors_ref: str, ac_ref: str, seats_ref: str) -> list[Finding]:
    """Four doors (a five-door hatch qualifies), air conditioning, at most 7 people with the driver."""
    return [
        fact(vehicle.doors >= 4, f"Veículo com {vehicle.doors} portas",
             f"Veículo com {vehicle.doors} portas; exigem-se 4", doors_ref),
        fact(vehicle.air_conditioning, "Veículo com ar-condicionado", "Veículo sem ar-condicionado", ac_ref),
        fact(1 <= vehicle.seats <= 7, f"Capacidade de {vehicle.seats} pessoas, incluído o condutor",
             f"Capacidade de {vehicle.seats} pessoas; o máximo é 7, incluído o condutor", seats_ref),
    ]


def one_vehicle(plate: str, other_plates: Iterable[str], ref: str) -> Finding:
    others = sorted({p for p in other_plates if p != plate})
    if not others:
        return Finding(True, "Um único veículo autorizado para o condutor", ref)
    return Finding(False, f"O condutor já tem veículo autorizado ({', '.join(others)}); limite de um", ref)


def holder(vehicle: Vehicle, allowed: frozenset[Holder], ref: str) -> Finding:
    if vehicle.holder in allowed:
        return Finding(True, f"Veículo vinculado ao condutor como {vehicle.holder.value}", ref)
    return Finding(False, f"Vínculo não admitido: {vehicle.holder.value}", ref)
