"""Issue 35 item 3: every service of the machinery module (Decreto 017/2026, Nova Lacerda) refuses a
municipality that does not run the module, through one guard (``booking_requests.service``).

The services are found, not listed: every public function of ``services.machinery`` that takes an
actor (less ``ledger.refund``, a step inside another service's unit of work: the permission matrix's
``NOT_SERVICES``). Each is called, with placeholder arguments, by an actor who may act everywhere with the
permission it needs, on Chapada and on Matupá (ride-hailing only): each must answer ``ModuleOff``
and leave the store as it was. A new service without the guard fails here."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import services.machinery
from services.machinery import booking_requests, localities, pending
from services.machinery.booking_requests import ModuleOff
from services.shared.auth import PERMISSIONS, Actor
from tests.test_bookings import MONDAY
from tests.test_permission_matrix import NOT_SERVICES, REQUIRED, call_args, digest

EVERYWHERE = {role: Actor(f"{role}.todos", f"Perfil {role} de todos", role, ("*",)) for role in PERMISSIONS}


def machinery_services() -> dict[str, object]:
    found = {}
    for info in pkgutil.iter_modules(services.machinery.__path__, "services.machinery."):
        module = importlib.import_module(info.name)
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("_") and fn.__module__ == info.name and "actor" in inspect.signature(fn).parameters:
                found[f"{info.name}.{name}"] = fn
    return {k: v for k, v in found.items() if k not in NOT_SERVICES}


def actor_for(qualified: str) -> Actor:
    """An actor of every municipality whose role has the permission the service needs."""
    needed = REQUIRED[qualified]
    return next(actor for actor in EVERYWHERE.values() if actor.can(needed))


def test_the_services_are_found():
    found = machinery_services()
    assert len(found) > 40
    assert {"services.machinery.localities.set_localities", "services.machinery.pending.pending"} <= set(found)


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_every_machinery_service_refuses_a_municipality_without_the_module(db, today, municipality):
    before, answers = digest(db), {}
    for qualified, fn in sorted(machinery_services().items()):
        args, kwargs = call_args(fn, db, actor_for(qualified), municipality)
        try:
            fn(*args, **kwargs)
            answers[qualified] = "answered"
        except ModuleOff as refused:
            assert refused.message == booking_requests.MODULE_OFF
        except Exception as other:  # noqa: BLE001 — any other answer is a service that skipped the guard
            answers[qualified] = f"{type(other).__name__}: {other}"
    assert answers == {}
    assert digest(db) == before


def test_every_machinery_service_carries_the_one_guard():
    """The refusal comes from the module's one guard, not a check repeated in a service's body."""
    unguarded = [q for q, fn in machinery_services().items() if getattr(fn, "machinery_guard", None) is None]
    assert unguarded == []


def test_the_localities_setter_and_the_pending_list_refuse_chapada(db, today):
    """What the issue saw: both answered Chapada, and the setter wrote a list of zones there."""
    with pytest.raises(ModuleOff):
        localities.set_localities(db, EVERYWHERE["ti"], "chapada", MONDAY, [
            {"zone": "Zona Norte", "locality": "Água Fria", "area": "rural"}], "Portaria 1/2026")
    assert db["parameters"].count_documents({"municipality": "chapada", "name": localities.LOCALITIES}) == 0
    with pytest.raises(ModuleOff):
        pending.pending(db, EVERYWHERE["secretaria"], "chapada", MONDAY)
