"""What the portal's pages of service bookings (``portal/bookings.py``) show and read: the form of art. 2 §4
(Decreto 017/2026, Nova Lacerda) turned into the clerk's ``RequestInput``, and a request as the person reads
it — values in R$, dates in Brazilian format, the DAMs by number, never an internal id or another person's data.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from rules import fmt
from rules.machinery.discounts import DiscountCriterion, EvidenceKind
from services.machinery import booking_requests, ledger, payment
from services.machinery.protocol import ClaimInput, RequestInput, ServiceAsked
from services.machinery.requesters import Block
from services.machinery.schedule_view import ZonePlace
from services.shared import fields

MACHINES = (("01", "Retroescavadeira"), ("02", "Motoniveladora"), ("03", "Pá carregadeira"),
            ("04", "Escavadeira hidráulica"))
CRITERIA = tuple((c.name, c.value) for c in DiscountCriterion)
EVIDENCE = tuple((e.name, e.value) for e in EvidenceKind)
# the files of the form: the field, what the clerk sees as the attachment's kind
FILES = {"residence_file": "Comprovante de residência ou sede (art. 2, §4, II)",
         "property_file": "Comprovação de propriedade ou autorização (art. 2, §4, III)",
         "evidence_file": "Comprovante do desconto (art. 7, §3)"}
TEXTS = ("address", "place", "phone", "constitution_proof", "loads", *(f"hours_{i}" for i, _ in MACHINES),
         "truck_km", "half_day", "lowboy_km", "bus_item", "bus_km", "desired_start", "identification",
         "residence_proof", "justification", "route", "private", "property_description", "property_proof",
         "removes", "licence", "difficult", "public_agent", "trip_responsible", "criterion", "evidence_kind",
         "evidence_reference", "family_income", "agrees", "liability")
MAX_FIELDS = len(TEXTS) + len(FILES) + 1  # and the CSRF token
DAM_PATH = "/dams/{year}/{sequence}"


def dam_path(number: str) -> str:
    """The page of a DAM on the portal from its number ("0007/2026" → /dams/2026/7)."""
    sequence, _, year = (number or "").partition("/")
    return DAM_PATH.format(year=year, sequence=int(sequence)) if sequence.isdigit() and year.isdigit() else ""


def request_path(protocol: str) -> str:
    """The page of a request from its protocol number ("0001/2026" → /servicos/2026/1)."""
    sequence, _, year = protocol.partition("/")
    return f"/servicos/{year}/{int(sequence)}"


def _decimal(values: dict[str, str], name: str, errors: dict[str, str], target: str = "") -> Decimal | None:
    text = values.get(name, "").strip()
    if not text:
        return None
    try:
        return fields.parse_decimal(text)
    except ValueError:
        errors[target or name] = "Informe um número, por exemplo 6 ou 6,5."
        return None


def parse_form(values: dict[str, str], requester_id: str, today: date) -> tuple[RequestInput | None, dict[str, str]]:
    """The clerk's form of a request from the portal's fields, or the errors of what could not be read."""
    errors: dict[str, str] = {}
    services = [ServiceAsked("machine_hours", item=item, hours=hours) for item, _ in MACHINES
                if (hours := _decimal(values, f"hours_{item}", errors, "services")) is not None]
    loads = values.get("loads", "").strip()
    if loads and loads != "0":
        if loads.isdigit():
            services.append(ServiceAsked("earth_loads", loads=int(loads)))
        else:
            errors["loads"] = "Cargas: informe um número inteiro, por exemplo 5."
    if (km := _decimal(values, "truck_km", errors, "services")) is not None:
        services.append(ServiceAsked("dump_truck_day", distance_km=km, half_day=values.get("half_day") == "sim"))
    if (km := _decimal(values, "lowboy_km", errors, "services")) is not None:
        services.append(ServiceAsked("lowboy_trip", distance_km=km))
    if values.get("bus_item") in ("10", "11") and (km := _decimal(values, "bus_km", errors, "services")) is not None:
        services.append(ServiceAsked("passenger_transport", item=values["bus_item"], distance_km=km))
    desired = None
    if values.get("desired_start", "").strip():
        try:
            desired = fields.parse_date_input(values["desired_start"])
        except ValueError:
            errors["desired_start"] = "Início desejado: informe a data como 30/04/2026."
    criterion = values.get("criterion", "")
    claims: tuple[ClaimInput, ...] = ()
    if criterion:
        income = _decimal(values, "family_income", errors)
        claims = (ClaimInput(criterion, values.get("evidence_kind", ""), values.get("evidence_reference", ""),
                             income),)
    if errors:
        return None, errors
    checked = values.get
    return RequestInput(
        requester_id=requester_id, requested_on=today, services=tuple(services),
        justification=checked("justification", ""), identification=checked("identification", ""),
        residence_proof=checked("residence_proof", ""), agrees_payment_terms=checked("agrees") == "sim",
        liability_declaration=checked("liability") == "sim", desired_start=desired,
        private_property=checked("private") == "sim", property_description=checked("property_description", ""),
        property_proof=checked("property_proof", ""), property_standing="a_verificar", route=checked("route", ""),
        removes_natural_materials=checked("removes") == "sim", environmental_licence=checked("licence", ""),
        difficult_access=checked("difficult") == "sim", claims=claims,
        trip_responsible=checked("trip_responsible", ""), requester_is_public_agent=checked("public_agent") == "sim",
    ), {}


def blocks_shown(blocks: list[Block]) -> list[dict[str, Any]]:
    return [{"reason": b.reason, "reference": b.reference,
             "dams": [{"number": d.number, "path": dam_path(d.number), "description": d.description,
                       "amount": fmt.brl(d.amount), "due": fmt.day(d.due)} for d in b.dams]} for b in blocks]


def listed(row: dict) -> dict[str, Any]:
    return {"protocol": row["protocol"], "path": request_path(row["protocol"]), "on": fmt.day(row["requested_on"]),
            "services": row.get("services_text", ""), "status": row["status_label"],
            "total": fmt.brl((row.get("quote") or {}).get("total")) if (row.get("quote") or {}).get("total")
            is not None else "—"}


def _quote(quote: dict | None, claims: list[dict]) -> dict[str, Any] | None:
    if not quote:
        return None
    return {"lines": [{"item": line["item"], "description": line["description"], "unit": line["unit"],
                       "quantity": fmt.number(line["quantity"]), "unit_price": fmt.brl(line["unit_price"]),
                       "amount": fmt.brl(line["amount"]), "discount": fmt.brl(line["discount"]),
                       "net": fmt.brl(line["net"])} for line in quote["lines"]],
            "gross": fmt.brl(quote["gross"]), "discount_total": fmt.brl(quote["discount_total"]),
            "total": fmt.brl(quote["total"]), "on": fmt.day(quote["on"]) if quote.get("on") else "",
            "reason": (quote.get("discount") or {}).get("reason", ""),
            "evidence": "; ".join(f"{EvidenceKind[c['evidence_kind']].value} nº {c['evidence_reference']}"
                                  for c in claims if c.get("evidence_kind") in EvidenceKind.__members__)}


def _charges(rows: list[ledger.ChargeRow]) -> list[dict[str, Any]]:
    return [{"label": r.label, "charged": fmt.brl(r.charged), "open": fmt.brl(r.open), "situation": r.situation,
             "dam": r.dam_number, "path": dam_path(r.dam_number), "due": fmt.day(r.dam_due or r.due_on),
             "owing": r.owing, "paid_on": fmt.day(r.paid_on) if r.paid_on else ""} for r in rows]


def request_shown(doc: dict, rows: list[ledger.ChargeRow], place: ZonePlace | None) -> dict[str, Any]:
    """One request as the person's page shows it."""
    settlement, refusal = doc.get("settlement") or {}, doc.get("refusal") or {}
    credit = payment.refusal_credit(rows, doc) + ledger.credit_owed(settlement)
    deferred = [i["label"] for i in (doc.get("payment") or {}).get("instalments", []) if i.get("deferred")]
    return {
        "protocol": doc["protocol"], "status": doc["status"], "status_label": doc["status_label"],
        "on": fmt.day(doc["requested_on"]), "zone": doc.get("zone", ""), "locality": doc.get("locality", ""),
        "services": booking_requests.describe_services(doc.get("services", [])),
        "findings": [f for f in doc.get("findings", []) if not f["ok"] and f["level"] in ("error", "warning")],
        "quote": _quote(doc.get("quote"), doc.get("discount_claims", [])),
        "charges": _charges(rows), "deferred": deferred,
        "place": place, "period": booking_requests.describe_period(doc.get("schedule")),
        "days": [fmt.day(d) for d in (doc.get("schedule") or {}).get("days") or []],
        "settlement": ledger.settlement_text(settlement, rows) if settlement else "",
        "done": doc["status"] == "concluido",
        "refusal": {"reason": refusal.get("reason", ""), "on": fmt.day(refusal["on"]) if refusal.get("on") else "",
                    "returned": fmt.day(refusal["credit_returned_on"]) if refusal.get("credit_returned_on") else ""}
        if doc["status"] == "recusado" else None,
        "credit": fmt.brl(credit) if credit > 0 else "",
        "attachments": [a.get("name", "") for a in doc.get("attachments", [])],
    }
