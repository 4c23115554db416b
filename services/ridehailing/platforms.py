"""Platforms' obligations: the stored platform and its reports → the rule set's compliance.

A platform keeps its APP insurance policy on its record; the lists of drivers and vehicles it hands
in and the monthly ISSQN it pays are dated records (``platform_reports``) linked by CNPJ. The
verdict — insurance in force and at least the legal minimum, list not late, no month of ISSQN
missing — comes from ``platform_compliance`` of the municipality's rule set, with its articles.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.base import Decision
from rules.ridehailing.concepts import InsurancePolicy, Platform
from services.ridehailing import registry
from services.shared import entities, entity_lists, parameters, schema
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.schema import ListQuery

POLICY_FIELDS = ("insurer", "insurance_coverage", "insurance_valid_from", "insurance_valid_until")


def missing_policy_fields(doc: dict) -> list[str]:
    """Labels of the policy fields left blank (the policy cannot be checked without them)."""
    spec = schema.SPECS["platforms"]
    return [spec.field(name).label for name in POLICY_FIELDS if doc.get(name) in (None, "")]


@checked
def platform_concept(db: Database, actor: Actor, municipality: str, platform_id: str) -> Platform:
    """The platform as the rules see it: credentialing date, APP policy, lists and ISSQN paid."""
    doc = entities.get(db, actor, "platforms", municipality, platform_id)
    if not doc.get("credentialed_on"):
        raise ValidationFailed({"credentialed_on": "Credenciada em: informe a data do credenciamento para "
                                                   "verificar as relações e o ISSQN."})
    policy = None
    if not missing_policy_fields(doc):
        policy = InsurancePolicy(doc["insurer"], Decimal(doc["insurance_coverage"]), doc["insurance_valid_from"],
                                 doc["insurance_valid_until"])
    reports = platform_reports(db, actor, municipality, doc["cnpj"])
    return Platform(
        name=doc["name"], cnpj=doc["cnpj"], credentialed_on=doc["credentialed_on"], insurance=policy,
        credentialing=doc.get("status") or "pendente",
        lists_submitted=tuple(r["on"] for r in reports if r["kind"] == "lista"),
        issqn_paid_competences=tuple(r["on"].replace(day=1) for r in reports if r["kind"] == "issqn"),
    )


@checked
def compliance(db: Database, actor: Actor, municipality: str, platform_id: str, on: date) -> Decision:
    """APP insurance, periodic lists and monthly ISSQN on ``on``, each with its article."""
    authorize(actor, "read", municipality)
    platform = platform_concept(db, actor, municipality, platform_id)
    book = parameters.book(db, municipality)
    return registry.rules_of(municipality).platform_compliance(platform, on, book,
                                                                  parameters.calendar_from(book, on))


@checked
def platform_reports(db: Database, actor: Actor, municipality: str, cnpj: str) -> list[dict]:
    """Lists handed in and ISSQN months paid by the platform, oldest first."""
    return entity_lists.list_all(db, actor, "platform_reports", municipality,
                                 ListQuery(filters={"platform_cnpj": cnpj}, sort="on"))


@checked
def add_report(db: Database, actor: Actor, municipality: str, cnpj: str, kind: str, on: date,
               reference: str = "") -> str:
    """Record a list handed in on ``on`` or the ISSQN of the month of ``on`` (kept as its first day)."""
    authorize(actor, "write", municipality)
    if kind == "issqn" and isinstance(on, date):
        on = on.replace(day=1)
    return entities.create(db, actor, "platform_reports", municipality,
                           {"platform_cnpj": cnpj, "kind": kind, "on": on, "reference": reference})


def report_checked(db: Database, actor: Actor, municipality: str, cnpj: str, on: date, reference: str = "") -> str:
    """A list handed in on ``on``, for a service that has already authorized its actor (the list received
    through ``platform_lists.receive_checked``, from the clerk or from the platform's person on the portal)."""
    return entities.create_checked(db, actor, "platform_reports", municipality,
                                   {"platform_cnpj": cnpj, "kind": "lista", "on": on, "reference": reference})
