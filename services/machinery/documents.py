"""Documents of the machinery bookings of Nova Lacerda (PDF bytes): quote, service order, receipt,
statement and the week schedule board. Each reads the request through services.machinery.booking_requests
(the week through services.machinery.schedule) and prints it with services/machinery/booking_pdf.py on the
municipal letterhead."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.fmt import cnpj, cpf
from services.machinery import booking_requests, schedule
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
from services.shared import clock, municipalities
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
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
    instalments = [InstalmentPrint(i["label"], Decimal(i["amount"]), i.get("due"), i.get("dam_number") or "",
                                   i.get("paid_on"), bool(i.get("deferred")))
                   for i in (doc.get("payment") or {}).get("instalments", []) if Decimal(i["amount"]) > 0]
    if settlement.get("dam_id"):
        instalments.append(InstalmentPrint("Saldo das horas executadas (art. 8, §2)", Decimal(settlement["amount_due"]),
                                           settlement.get("due"), settlement.get("dam_number") or "",
                                           settlement.get("paid_on")))
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
        instalments=tuple(instalments), schedule_day=schedule.get("day"),
        team=tuple((b.get("asset", ""), b.get("operator", "")) for b in schedule.get("bookings", [])),
        started_on=execution.get("started_on"), ended_on=execution.get("ended_on"),
        meters=tuple((names.get(m["asset_id"], m["asset_id"]), Decimal(m["start"]), Decimal(m["end"]))
                     for m in execution.get("meters", [])),
        loads_delivered=execution.get("loads_delivered"), settlement=settlement.get("message", ""),
        trip=trip_rows,
    )


def _request(db: Database, actor: Actor, municipality: str, request_id: str) -> dict:
    authorize(actor, "read", municipality)
    return booking_requests.get_request(db, actor, municipality, request_id)


@checked
def quote_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The quote, line by line, with its price-table version and discount evidence."""
    doc = _request(db, actor, municipality, request_id)
    if not doc.get("quote"):
        raise NotYet(f"O pedido {doc['protocol']} ainda não tem orçamento.")
    return render_quote(_print(db, municipality, doc))


@checked
def service_order_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The service order for the team (after the request is scheduled)."""
    doc = _request(db, actor, municipality, request_id)
    if not doc.get("schedule") and not doc.get("execution"):
        raise NotYet(f"O pedido {doc['protocol']} ainda não foi agendado: a ordem de serviço sai após o agendamento.")
    return render_service_order(_print(db, municipality, doc))


@checked
def receipt_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The receipt for the requester (after completion)."""
    doc = _request(db, actor, municipality, request_id)
    if doc.get("status") != "concluido":
        raise NotYet(f"O pedido {doc['protocol']} ainda não foi concluído: o comprovante sai após a execução.")
    return render_receipt(_print(db, municipality, doc))


@checked
def statement_pdf(db: Database, actor: Actor, municipality: str, request_id: str) -> bytes:
    """The statement of the request: quote, instalments, paid and open amounts."""
    return render_statement(_print(db, municipality, _request(db, actor, municipality, request_id)))


@checked
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
    return render_week_board(WeekPrint(_town(db, municipality), week_start, tuple(days), clock.today()))
