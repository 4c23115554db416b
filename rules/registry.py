"""Which rule set governs which service in which municipality.

Adding a municipality means adding its rule-set module and one line here; no other
rule set changes. Each module exposes a ``RULESET`` object.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

RIDE_HAILING = "transporte"
MACHINERY = "maquinas"

_MODULES: dict[tuple[str, str], str] = {
    ("chapada", RIDE_HAILING): "rules.ridehailing.chapada",
    ("matupa", RIDE_HAILING): "rules.ridehailing.matupa",
    ("nova_lacerda", MACHINERY): "rules.machinery.nova_lacerda",
}


class NoRuleSet(LookupError):
    """The municipality has no rule set for that service."""


def ruleset(municipality: str, service: str) -> Any:
    """The ``RULESET`` of the module registered for ``municipality`` and ``service``."""
    try:
        module_name = _MODULES[(municipality, service)]
    except KeyError:
        raise NoRuleSet(f"Município '{municipality}' não tem regras de '{service}'") from None
    return import_module(module_name).RULESET


def services_of(municipality: str) -> list[str]:
    return sorted(service for (m, service) in _MODULES if m == municipality)


def default_parameters(municipality: str) -> list[Any]:
    """The dated parameters that the municipality's rule sets declare (to seed a new store)."""
    versions: list[Any] = []
    for (m, _service), module_name in _MODULES.items():
        if m == municipality:
            versions.extend(getattr(import_module(module_name), "DEFAULT_PARAMETERS", ()))
    return versions


def demo_parameters(municipality: str) -> list[Any]:
    """Fictitious values a rule set offers for the demo store only (e.g. an unknown UPFM)."""
    versions: list[Any] = []
    for (m, _service), module_name in _MODULES.items():
        if m == municipality:
            versions.extend(getattr(import_module(module_name), "DEMO_PARAMETERS", ()))
    return versions
