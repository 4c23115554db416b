"""Pendências: one work queue of what is due or late in the ride-hailing registry, with dates.

The authorizations' items (requests to evaluate, vehicles to present for vistoria, 5-day windows
after a failed vistoria, fees to charge or unpaid fee DAMs, annual vistorias and renewals inside the
horizon, convocations and suspensions ending) are kept as data by ``queue_view``, written with each
change that moves them; changes of drivers' and vehicles' data reported late or not reported are
read from the open changes. The platforms' lists and trip data
requests (``platform_lists``, ``trip_data``) add their own items; the autos de infração's are kept as
data too (``queue_autos``). The lists read the kept items a page at a time (``queue_pages``) and merge
the few computed ones (data changes, platforms' lists, trip data) into each page and count.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from services.ridehailing import changes, platform_lists, queue_pages, queue_view, registry, trip_data
from services.ridehailing.queue_item import Pendencia
from services.ridehailing.queue_pages import Filter
from services.shared import fields
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed

DATA_CHANGE = "Alteração de dados"
INSPECTION_KINDS = ("Vistoria", "Vistoria anual", "Vistoria extraordinária", "Pendências da vistoria")


def _data_changes(db: Database, actor: Actor, municipality: str, on: date,
                  scope: registry.Scope) -> list[Pendencia]:
    """Changes of data reported late or not reported (CG art. 18 XIX; MP art. 12 XX)."""
    items = []
    for change in changes.open_irregular(db, actor, municipality, on, scope.calendar(on)):
        whose = (f"Veículo {fields.show('plate', change.subject)}" if change.collection == "vehicles"
                 else f"Condutor CPF {fields.show('cpf', change.subject)}")
        if change.pending:  # reported on the portal: the clerk applies it to the register (or closes it)
            whose = f"{whose} — comunicada pelo portal, conferir o comprovante e aplicar no cadastro"
        items.append(Pendencia(change.deadline, DATA_CHANGE, "", change.subject if change.collection == "vehicles"
                               else "", change.driver_cpf, f"{whose} — {change.finding.message} ({change.fields_text})",
                               change.finding.reference, not change.finding.ok, "",
                               (change.collection, change.record_id)))
    return items


def _computed(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """The items computed on each read (few: open data changes, platforms, trip data requests)."""
    scope = registry.Scope(db, municipality)
    return (_data_changes(db, actor, municipality, on, scope) + platform_lists.pending(db, actor, municipality, on)
            + trip_data.pending(db, actor, municipality, on))


@checked
def pendencias(db: Database, actor: Actor, municipality: str, on: date, kinds: tuple[str, ...] = (),
               only_late: bool = False) -> list[Pendencia]:
    """Everything due up to ``HORIZON_DAYS`` ahead or already late on ``on`` (only ``kinds``, only the
    late ones when asked), earliest first: the whole queue, what the exports write; the screens read
    :func:`page` and :func:`overview`."""
    authorize(actor, "read", municipality)
    chosen = Filter(kinds=tuple(kinds), late=True if only_late else None)
    queue = _computed(db, actor, municipality, on) + queue_view.pending(db, municipality, on)
    return sorted((p for p in queue if chosen.keeps(p)), key=lambda p: (p.due, p.protocol))


def _counter(cells: queue_pages.Cells, extra: list[Pendencia], on: date) -> Callable[[Filter], int]:
    """How many items of the counts kept as data (``cells``) and of the computed ones pass a filter."""
    return lambda f: queue_pages.count(cells, on, f) + sum(1 for p in extra if f.keeps(p))


@dataclass(frozen=True)
class QueuePage:
    rows: tuple[Pendencia, ...]
    total: int  # the items the filter keeps
    everything: int  # the items of the queue, whatever the filter
    late: int
    within_week: int  # not late, due up to 7 days ahead (open since before included)


@checked
def page(db: Database, actor: Actor, municipality: str, on: date, *, kinds: tuple[str, ...] = (),
         only_late: bool = False, order: str = "due", descending: bool = False, skip: int = 0,
         limit: int = 25) -> QueuePage:
    """One page of Pendências on ``on`` (``order``: due, kind, plate or protocol) with its counts: the
    counts kept as data and the first ``skip + limit`` rows of an index, whatever the length of the queue."""
    authorize(actor, "read", municipality)
    if order not in queue_pages.ORDERS:
        raise ValidationFailed({"order": "Ordenação inválida: escolha prazo, tipo, placa ou protocolo."})
    queue_view.refresh_due(db, municipality, on)
    extra = _computed(db, actor, municipality, on)
    chosen = Filter(kinds=tuple(kinds), late=True if only_late else None)
    cells = queue_pages.tally(db, municipality)
    counted = _counter(cells, extra, on)
    shown = queue_pages.first(db, municipality, on, extra, chosen, order, descending, skip + limit, cells)[skip:]
    week = on + timedelta(days=7)
    return QueuePage(tuple(shown), counted(chosen), counted(Filter()), counted(Filter(late=True)),
                     counted(Filter(late=False, due_until=week)))


@dataclass(frozen=True)
class Overview:
    """What the Início shows of the queue: counts, the first urgent items and the urgent ones per kind."""
    total: int
    late: int
    open_today: int  # not late, due today or open since before (no legal term)
    this_week: int  # due after today, up to a week
    urgent: tuple[Pendencia, ...]  # late first, then due up to a week; earliest first
    per_kind: dict[str, tuple[int, int]]  # kind: (late, due up to a week), urgent kinds only


@checked
def overview(db: Database, actor: Actor, municipality: str, on: date, week_days: int = 7, shown: int = 10) -> Overview:
    """The Início's view of the queue on ``on``: the counts kept as data, per kind, and the first
    ``shown`` urgent items, whatever the length of the queue."""
    authorize(actor, "read", municipality)
    queue_view.refresh_due(db, municipality, on)
    extra = _computed(db, actor, municipality, on)
    week = on + timedelta(days=week_days)
    late, soon, today = Filter(late=True), Filter(late=False, due_until=week), Filter(late=False, due_until=on)
    cells = queue_pages.tally(db, municipality)
    counted = _counter(cells, extra, on)
    of_kind: dict[str, list] = {p.kind: [] for p in extra} | cells.by_kind
    per_kind: dict[str, tuple[int, int]] = {}
    for kind, mine in sorted(of_kind.items()):
        of_this = _counter(queue_pages.Cells(mine), [p for p in extra if p.kind == kind], on)
        pair = (of_this(late), of_this(soon))
        if any(pair):
            per_kind[kind] = pair
    late_items = queue_pages.first(db, municipality, on, extra, late, "due", limit=shown, cells=cells)
    urgent = late_items + queue_pages.first(db, municipality, on, extra, soon, "due", limit=shown - len(late_items),
                                            cells=cells)

    due_today = counted(today)
    return Overview(counted(Filter()), sum(n for n, _ in per_kind.values()), due_today,
                    sum(n for _, n in per_kind.values()) - due_today, tuple(urgent), per_kind)
