"""Nova Lacerda's bookings' figures kept as data (issue 21): what each request of machinery adds to the
mayor's office figures, per day, so the Resumo, its trends and the report read a few month documents
instead of decoding every request of the municipality twice per period.

Each request's *contribution* (``revenue_view``'s mechanism: parts per month document, moved by
``$inc`` of the difference in the unit of work of the write, view ``bookings``) counts, on its day:

- on the protocol day: ``req``, ``zone|<zone>``, ``stage|<status now>`` and ``service|<kind>`` (each
  kind of service asked once): the requests of a period by zone, stage and service;
- on the day the execution started: ``wait|<days since the protocol>`` (the waiting median and 90th
  percentile are read from the period's counts);
- on the day it ended: ``served`` and ``hours|<asset id>`` (thousandths of an hour, by the meters);
- on the quote's day, when it has a discount: ``discount`` (centavos) and ``criterion|<criterion>``;
- states over days, +1 on their first day and −1 on the first day out ("how many on day D" is the sum
  up to D): ``waiting`` (protocolled, neither refused nor started), ``owing|n``/``owing|v`` (the balance
  of the hours past its due date and unpaid, art. 8 §2) and ``credit|n``/``credit|v`` (a credit to
  return after the completion, until returned);
- while the request waits for a step (a technical visit, a social report or a quote: ``STEPS``),
  ``step|<status>|<since>``, +1 from each of its dated steps (protocol, visit, social report asked and
  answered) to the next: on a day D the one counted is its last step up to D, what the request waits
  since (the Resumo's "aguardando", aged from there, without reading the requests).

Texts that are keys (a zone's name) are escaped (``%2E`` for a dot), so no name reaches a field path.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from pymongo.database import Database

from services.machinery import booking_requests
from services.shared import views
from services.store import parse_date
from services.summary import revenue_view
from services.summary.days import safe

NAME = "bookings"
FIELDS = {"municipality": 1, "requested_on": 1, "zone": 1, "services": 1, "status": 1, "refusal.on": 1,
          "execution.started_on": 1, "execution.ended_on": 1, "execution.meters": 1, "quote.on": 1,
          "quote.discount_total": 1, "quote.discount.criterion": 1, "settlement": 1,
          "technical_visit.visited_on": 1, "social_report.requested_on": 1, "social_report.answered_on": 1}
MILLI = 1000
STEPS = ("aguardando_vistoria", "aguardando_parecer", "aguardando_orcamento")  # the statuses waiting a step


def _units(value: Decimal, scale: int) -> int:
    return int((Decimal(value) * scale).to_integral_value())


def contribution(doc: dict) -> dict[str, dict[str, int]]:
    """What one request (decoded) adds to the month documents of the view (see the module)."""
    parts = revenue_view.Parts(doc["municipality"], NAME)
    add = parts.add
    requested = parse_date(doc.get("requested_on"))
    execution = doc.get("execution") or {}
    started, ended = parse_date(execution.get("started_on")), parse_date(execution.get("ended_on"))
    if requested is not None:
        add(requested, "req", 1)
        add(requested, f"zone|{safe(doc.get('zone') or 'Sem zona')}", 1)
        add(requested, f"stage|{safe(doc.get('status') or '')}", 1)
        for kind in {s.get("kind") for s in doc.get("services") or [] if s.get("kind")}:
            add(requested, f"service|{safe(kind)}", 1)
        refused = parse_date((doc.get("refusal") or {}).get("on"))
        stops = [day for day in (refused, started) if day is not None]
        parts.state(requested, min(stops) if stops else None, "waiting")
        if started is not None:
            add(started, f"wait|{(started - requested).days}", 1)
    if ended is not None:
        add(ended, "served", 1)
        for meter in execution.get("meters") or []:
            if meter.get("start") is not None and meter.get("end") is not None:
                worked = Decimal(str(meter["end"])) - Decimal(str(meter["start"]))
                add(ended, f"hours|{safe(meter.get('asset_id'))}", _units(worked, MILLI))
    quote_ = doc.get("quote") or {}
    quoted, discount = parse_date(quote_.get("on")), Decimal(str(quote_.get("discount_total") or 0))
    if quoted is not None and discount > 0:
        add(quoted, "discount", _units(discount, 100))
        add(quoted, f"criterion|{safe((quote_.get('discount') or {}).get('criterion') or '')}", 1)
    settlement = doc.get("settlement") or {}
    due, amount = parse_date(settlement.get("due")), Decimal(str(settlement.get("amount_due") or 0))
    if due is not None and amount > 0:
        for key, n in (("owing|n", 1), ("owing|v", _units(amount, 100))):
            parts.state(due + timedelta(days=1), parse_date(settlement.get("paid_on")), key, n)
    credit = Decimal(str(settlement.get("credit_to_return") or 0))
    if credit > 0:
        for key, n in (("credit|n", 1), ("credit|v", _units(credit, 100))):
            parts.state(parse_date(settlement.get("completed_on")), parse_date(settlement.get("credit_returned_on")),
                        key, n)
    _waiting_step(doc, parts)
    return parts.done()


def _waiting_step(doc: dict, parts: revenue_view.Parts) -> None:
    """``step|<status>|<since>`` of a request waiting a step: from each dated step to the next."""
    if doc.get("status") not in STEPS:
        return
    visit, social = doc.get("technical_visit") or {}, doc.get("social_report") or {}
    steps = sorted({day for day in (parse_date(doc.get("requested_on")), parse_date(visit.get("visited_on")),
                                    parse_date(social.get("requested_on")), parse_date(social.get("answered_on")))
                    if day is not None})
    for first, stop in zip(steps, [*steps[1:], None]):
        parts.state(first, stop, f"step|{doc['status']}|{first.isoformat()}")


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow the request ``doc_id``."""
    revenue_view.follow_record(db, NAME, booking_requests.REQUESTS, FIELDS, contribution, municipality, doc_id)


def rebuild(db: Database, municipality: str) -> None:
    """Every request's contribution of ``municipality``, from scratch."""
    revenue_view.rebuild_records(db, NAME, booking_requests.REQUESTS, FIELDS, contribution, municipality)


# version 2: the steps; 3: month totals
views.register(views.View(NAME, (booking_requests.REQUESTS,), project, rebuild, version=3))


# The days each machine is booked (the Resumo's use per machine), view ``booked``: a request's bookings
# count ``booked|<asset id>`` on each of their days. The bookings are written with their request, whose
# write moves the view (a booking has no audit entry of its own); counting the period's bookings one by
# one took 0,7 s of the Resumo at 58.000 bookings.
BOOKED = "booked"
BOOKING_FIELDS = {"municipality": 1, "request_id": 1, "day": 1, "asset_id": 1}


def _source(request_id: object) -> str:
    """The key of a request's bookings among the views' parts (the request's own is the ``bookings`` view's)."""
    return f"{booking_requests.BOOKINGS}:{request_id}"


def booked_contribution(municipality: str, bookings: list[dict]) -> dict[str, dict[str, int]]:
    """What one request's bookings add to the month documents of view ``booked``."""
    parts = revenue_view.Parts(municipality, BOOKED)
    for booking in bookings:
        day = parse_date(booking.get("day"))
        if day is not None:
            parts.add(day, f"booked|{safe(booking.get('asset_id'))}", 1)
    return parts.done()


def project_booked(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow the bookings of the request ``doc_id`` (by the bookings' index on the request)."""
    if doc_id is None or not municipality:
        return
    bookings = list(db[booking_requests.BOOKINGS].find({"municipality": municipality, "request_id": str(doc_id)},
                                                        BOOKING_FIELDS))
    revenue_view.follow_parts(db, BOOKED, municipality, _source(doc_id), booked_contribution(municipality, bookings))


def rebuild_booked(db: Database, municipality: str) -> None:
    """Every request's bookings of ``municipality``, from scratch."""
    of_request: dict[str, list[dict]] = defaultdict(list)
    for booking in db[booking_requests.BOOKINGS].find({"municipality": municipality}, BOOKING_FIELDS):
        of_request[str(booking.get("request_id"))].append(booking)
    revenue_view.write_parts(db, BOOKED, municipality, [
        {"_id": _source(rid), "parts": booked_contribution(municipality, rows)}
        for rid, rows in of_request.items()])


views.register(views.View(BOOKED, (booking_requests.REQUESTS,), project_booked, rebuild_booked,
                           version=2))  # 2: month totals
