"""Pendências: one work queue of what is due or late in the ride-hailing registry, with dates.

The authorizations' items (requests to evaluate, vehicles to present for vistoria, 5-day windows
after a failed vistoria, fees to charge or unpaid fee DAMs, annual vistorias and renewals inside the
horizon, convocations and suspensions ending) are kept as data by ``queue_view``, written with each
change that moves them; changes of drivers' and vehicles' data reported late or not reported are
read from the open changes. The platforms' lists and trip data
requests (``platform_lists``, ``trip_data``) and the autos de infração (``enforcement.autos``) add
their own items.
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from services.ridehailing import changes, platform_lists, queue_view, registry, trip_data
from services.ridehailing.enforcement import lists as auto_lists
from services.ridehailing.queue_item import Pendencia
from services.shared import fields
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked

DATA_CHANGE = "Alteração de dados"
INSPECTION_KINDS = ("Vistoria", "Vistoria anual", "Vistoria extraordinária", "Pendências da vistoria")


def _data_changes(db: Database, actor: Actor, municipality: str, on: date,
                  scope: registry.Scope) -> list[Pendencia]:
    """Changes of data reported late or not reported (CG art. 18 XIX; MP art. 12 XX)."""
    items = []
    for change in changes.open_irregular(db, actor, municipality, on, scope.calendar(on)):
        whose = (f"Veículo {fields.show('plate', change.subject)}" if change.collection == "vehicles"
                 else f"Condutor CPF {fields.show('cpf', change.subject)}")
        items.append(Pendencia(change.deadline, DATA_CHANGE, "", change.subject if change.collection == "vehicles"
                               else "", change.driver_cpf, f"{whose} — {change.finding.message} ({change.fields_text})",
                               change.finding.reference, not change.finding.ok, ""))
    return items


@checked
def pendencias(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """Everything due up to ``HORIZON_DAYS`` ahead or already late on ``on``, earliest first."""
    authorize(actor, "read", municipality)
    scope = registry.Scope(db, municipality)
    queue = _data_changes(db, actor, municipality, on, scope)
    queue += platform_lists.pending(db, actor, municipality, on)
    queue += trip_data.pending(db, actor, municipality, on)
    queue += queue_view.pending(db, municipality, on)  # the authorizations' items, kept as data
    queue += auto_lists.pending(db, actor, municipality, on)  # the autos de infração's deadlines
    return sorted(queue, key=lambda p: (p.due, p.protocol))


@checked
def inspection_items(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """The vistorias due or late (the Vistorias page): the authorizations' items about a vistoria, read
    from the queue kept as data, without the rest of Pendências (autos, platforms, data changes)."""
    authorize(actor, "read", municipality)
    return queue_view.pending(db, municipality, on, INSPECTION_KINDS)
