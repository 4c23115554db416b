"""Documents of the machinery bookings of Nova Lacerda (PDF bytes): quote, service order, receipt,
statement and the week schedule board. Each reads the request through services.machinery.booking_requests
(the week through services.machinery.schedule) and prints it with services/machinery/booking_pdf.py on the
municipal letterhead. The money comes from the request's charges (débitos, :mod:`.ledger`): what each
DAM charged, what was paid and when, what is open and what is owed back; the estimate of the balance
is shown as an estimate only until completion."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.fmt import brl, cnpj, cpf
from rules.machinery.payment import ADVANCE, BALANCE, FULL, service_may_start
from rules.machinery.statement import statement_totals
from services.machinery import booking_requests, ledger, schedule
from services.machinery.booking_pdf import (
    BoardRow,
    BookingPrint,
    InstalmentPrint,
    LinePrint,
    Town,
    WeekPrint,
    render_quote,
    render_receipt,
    render_service_order,
    render_statement,
    render_week_board,
)
from services.shared import authenticity, clock, municipalities
from services.shared.auth import Actor
from services.shared.errors import ServiceError
from services.store import decode

ACT = "Decreto Municipal 017/2026 (regulamenta a Lei Municipal 1.063/2026)"


class NotYet(ServiceError):
    """The request has not reached the step the document belongs to."""


def _town(db: Database, municipality: str) -> Town:
    town = municipalities.get(db, municipality)
    return Town(town.name, town.secretariat, town.address, head=municipalities.letterhead(db, municipality))


def _document(digits: str) -> str:
    digits = "".join(ch for ch in str(digits or "") if ch.isdigit())
    return cpf(digits) if len(digits) == 11 else cnpj(digits) if len(digits) == 14 else digits


def _print(db: Database, municipality: str, doc: dict) -> BookingPrint:
    requester = doc.get("requester") or {}
    quote = doc.get("quote") or {}
    schedule = doc.get("schedule") or {}
    execution = doc.get("execution") or {}
    settlement = doc.get("settlement") or {}
    names = {b["asset_id"]: b.get("asset", "") for b in schedule.get("bookings", [])}
    table = quote.get("price_table") or {}
    rows = ledger.request_rows(db, municipality, doc)
    instalments = [InstalmentPrint(r.label, r.charged, r.due_on, r.dam_number, r.paid, r.open, r.situation,
                                   r.paid_on) for r in rows]
    plan = (doc.get("payment") or {}).get("instalments", [])
    instalments += [InstalmentPrint(i["label"], Decimal(i["amount"]), None, "", Decimal("0.00"), Decimal("0.00"),
                                    "diferido (art. 8, §3): cobrado após a conclusão", deferred=True)
                    for i in plan if i.get("deferred") and not i.get("charge_id") and Decimal(i["amount"]) > 0]
    estimate = next((i for i in plan if i["key"] == BALANCE and Decimal(i["amount"]) > 0), None)
    estimate_note = "" if settlement or estimate is None else (
        f"{estimate['label']}: {brl(Decimal(estimate['amount']))} — estimativa, não cobrada agora; o acerto "
        f"pelas horas executadas sai após a conclusão ({estimate.get('reference', '')}).")
    totals = statement_totals((r.figures() for r in rows), ledger.credit_beside_charges(settlement))
    payments = tuple(sorted(((p.dam_number, p.paid_on, p.amount) for r in rows for p in r.payments),
                            key=lambda p: (p[1], p[0])))
    upfront = [r.state() for r in rows if r.part in (FULL, ADVANCE) and not r.deferred]
    clearance = service_may_start(upfront)
    clearance_text = ("Pagamento antecipado confirmado: serviço liberado" if clearance.ok and upfront else
                      "Sem pagamento antecipado (art. 8, §3): serviço liberado" if clearance.ok else
                      "ATENÇÃO — pagamento antecipado não confirmado: " + "; ".join(
                          f.message for f in clearance.failures)) + " (Decreto 017/2026, art. 8, §1-§2)."
    trip = doc.get("trip") or {}
    trip_rows = tuple((label, str(trip.get(key) or "")) for label, key in (
        ("Responsável pela viagem", "responsible_name"), ("CPF do responsável", "responsible_document"),
        ("Rota", "route"))) if trip else ()
    if trip:
        trip_rows += (("Passageiros", f"{len(trip.get('passengers') or [])}"),)
    return BookingPrint(
        town=_town(db, municipality), act=ACT, protocol=doc["protocol"], requested_on=doc["requested_on"],
        requester_name=requester.get("name", ""), requester_document=_document(requester.get("document")),
        requester_address=requester.get("address", ""), zone=doc.get("zone", ""), locality=doc.get("locality", ""),
        place=" · ".join(p for p in ((doc.get("property") or {}).get("description", ""), doc.get("route", "")) if p),
        services=tuple(booking_requests.describe_services(doc.get("services", [])).split("; ")),
        issued_on=clock.today(),
        lines=tuple(LinePrint(line["item"], line["description"], line["unit"], Decimal(line["quantity"]),
                              Decimal(line["unit_price"]), Decimal(line["amount"]), Decimal(line["discount"]),
                              Decimal(line["net"]), line.get("note", "")) for line in quote.get("lines", [])),
        gross=Decimal(quote.get("gross", 0)), discount_total=Decimal(quote.get("discount_total", 0)),
        total=Decimal(quote.get("total", 0)),
        discount_reason=(quote.get("discount") or {}).get("reason", ""),
        price_table=(f"Tabela de preços em vigor desde {date.fromisoformat(table['version_id']):%d/%m/%Y} "
                     f"({table.get('act', '')})") if table.get("version_id") else "",
        km_reading=quote.get("km_reading_text", "") if any(line["item"] in ("07", "09")
                                                           for line in quote.get("lines", [])) else "",
        instalments=tuple(instalments), estimate=estimate_note, totals=totals, payments=payments,
        clearance=clearance_text, schedule_day=schedule.get("day"),
        schedule_period=booking_requests.describe_period(schedule),
        team=tuple((b.get("asset", ""), b.get("operator", "")) for b in schedule.get("bookings", [])),
        started_on=execution.get("started_on"), ended_on=execution.get("ended_on"),
        meters=tuple((names.get(m["asset_id"], m["asset_id"]), Decimal(m["start"]), Decimal(m["end"]))
                     for m in execution.get("meters", [])),
        loads_delivered=execution.get("loads_delivered"), settlement=ledger.settlement_text(settlement, rows),
        trip=trip_rows,
    )


def _issue(db: Database, actor: Actor, municipality: str, kind: str, doc: dict,
           render: Callable[..., bytes]) -> bytes:
    """The document ``kind`` of a request with its authentication code: the same bytes while the request
    shows the same (``services.shared.authenticity``)."""
    data = _print(db, municipality, doc)
    item = authenticity.Item(kind, f"Pedido {doc['protocol']}", (booking_requests.REQUESTS, doc["id"]), data)
    return authenticity.issue(db, actor, municipality, item, lambda stamp: render(data, stamp))


def _request(db: Database, actor: Actor, municipality: str, request_id: str) -> dict:
    return booking_requests.get_request_unchecked(db, municipality, request_id)


@booking_requests.module_service("read", reach="request_id")
def quote_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The quote, line by line, with its price-table version and discount evidence."""
    doc = _request(db, actor, municipality, request_id)
    if not doc.get("quote"):
        raise NotYet(f"O pedido {doc['protocol']} ainda não tem orçamento.")
    return _issue(db, actor, municipality, "orcamento", doc, render_quote)


@booking_requests.module_service("read")
def service_order_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The service order for the team (after the request is scheduled)."""
    doc = _request(db, actor, municipality, request_id)
    if not doc.get("schedule") and not doc.get("execution"):
        raise NotYet(f"O pedido {doc['protocol']} ainda não foi agendado: a ordem de serviço sai após o agendamento.")
    return _issue(db, actor, municipality, "ordem_servico", doc, render_service_order)


@booking_requests.module_service("read")
def receipt_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The receipt for the requester (after completion)."""
    doc = _request(db, actor, municipality, request_id)
    if doc.get("status") != "concluido":
        raise NotYet(f"O pedido {doc['protocol']} ainda não foi concluído: o comprovante sai após a execução.")
    return _issue(db, actor, municipality, "recibo", doc, render_receipt)


@booking_requests.module_service("read", reach="request_id")
def statement_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The statement of the request: quote, instalments, paid and open amounts."""
    return _issue(db, actor, municipality, "extrato", _request(db, actor, municipality, request_id), render_statement)


@booking_requests.module_service("read")
def week_board_pdf(db: Database, actor: Actor, municipality: str, week_start: date) -> bytes:
    """The printed week view: the 7 days from ``week_start`` with their bookings by zone and locality."""
    rows = schedule.week_schedule(db, actor, municipality, week_start)
    ids = sorted({r["request_id"] for r in rows})
    requests = {}
    if ids:
        found = db[booking_requests.REQUESTS].find(
            {"municipality": municipality, "_id": {"$in": [booking_requests._oid(i) for i in ids]}},
            {"requester.name": 1, "services": 1})
        requests = {str(r["_id"]): decode(r) for r in found}
    days = []
    for offset in range(7):
        when = week_start + timedelta(days=offset)
        entries = sorted((r for r in rows if r["day"] == when),
                         key=lambda r: (r.get("zone", ""), r.get("locality", ""), r["protocol"]))
        days.append((when, tuple(BoardRow(
            r["protocol"], requests.get(r["request_id"], {}).get("requester", {}).get("name", ""),
            r.get("zone", ""), r.get("locality", ""),
            booking_requests.describe_services(requests.get(r["request_id"], {}).get("services", [])),
            r.get("asset", ""), r.get("operator", "")) for r in entries)))
    data = WeekPrint(_town(db, municipality), week_start, tuple(days), clock.today())
    item = authenticity.Item("quadro_semana", f"Semana de {week_start:%d/%m/%Y}", ("schedule", week_start.isoformat()),
                             data)
    return authenticity.issue(db, actor, municipality, item, lambda stamp: render_week_board(data, stamp))
