"""Documents of the ride-hailing registry (PDF bytes): the sticker and certificate of an issued
authorization, the report of a vistoria and the notice of an extraordinary convocation."""
from __future__ import annotations

from pymongo.database import Database

from rules.fmt import cpf as fmt_cpf
from services.ridehailing import (
    authorization_records,
    authorizations,
    public_check,
    registry,
)
from services.ridehailing.certificate_pdf import CertificatePrint, render_certificate
from services.ridehailing.convocation_notice_pdf import (
    ConvocationNoticePrint,
    render_convocation_notice,
)
from services.ridehailing.inspection_report_pdf import (
    ChecklistLine,
    InspectionReportPrint,
    render_inspection_report,
)
from services.ridehailing.sticker_pdf import StickerPrint, render_sticker
from services.shared import authenticity, clock, entities, fields, municipalities, parameters, schema
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ServiceError
from services.store import parse_date

OUVIDORIA = "ouvidoria_phone"
COLLECTION = "authorizations"


class NotIssued(ServiceError):
    """The authorization has no number yet (the fee was not paid)."""


def _issued(db: Database, municipality: str, auth_id: str) -> tuple[dict, object]:
    doc = authorization_records.load(db, municipality, auth_id)
    if not doc.get("number"):
        raise NotIssued("A autorização ainda não foi expedida: o selo e o certificado saem após o pagamento da taxa.")
    return doc, authorization_records.state_of(doc, municipality, clock.today(), db)


def _vehicle_text(vehicle: dict) -> str:
    parts = [vehicle.get("make"), vehicle.get("model"), str(vehicle.get("model_year") or ""), vehicle.get("color")]
    return " ".join(p for p in parts if p)


@checked
def sticker_pdf(db: Database, actor: Actor, municipality: str, auth_id: str) -> bytes:
    """The sticker with number, plate, validity, ouvidoria phone and the public-check QR code, whose
    link leads to the public portal (see ``public_check.check_url``)."""
    authorize(actor, "read", municipality)
    return _sticker(db, actor, municipality, auth_id)


@checked
def certificate_pdf(db: Database, actor: Actor, municipality: str, auth_id: str) -> bytes:
    """The authorization certificate: driver, vehicle, number, issue date and validity."""
    authorize(actor, "read", municipality)
    return _certificate(db, actor, municipality, auth_id)


def issued_pdf_checked(db: Database, actor: Actor, municipality: str, auth_id: str, kind: str) -> bytes:
    """The sticker (``kind`` "selo") or the certificate of an issued authorization, for a service that has
    already checked its actor: the driver's own on the portal (``applications.own_pdf``). The same
    document the clerk prints (issued once, the same code)."""
    return (_sticker if kind == "selo" else _certificate)(db, actor, municipality, auth_id)


def _sticker(db: Database, actor: Actor, municipality: str, auth_id: str) -> bytes:
    doc, state = _issued(db, municipality, auth_id)
    town = municipalities.get(db, municipality)
    vehicle = registry.vehicle_record(db, municipality, doc["plate"])
    data = StickerPrint(
        municipality_name=town.name, secretariat=town.secretariat, act=registry.rules_of(municipality).act,
        number=doc["number"], plate=fields.show("plate", doc["plate"]), vehicle=_vehicle_text(vehicle),
        valid_until=state.valid_until or parse_date(doc.get("valid_until")),
        ouvidoria_phone=str(parameters.value(db, municipality, OUVIDORIA, clock.today())),
        check_url=public_check.check_url(municipality, auth_id),
        coat_of_arms=municipalities.letterhead(db, municipality).coat_of_arms,
    )
    return authenticity.issue(db, actor, municipality, authenticity.Item("selo", doc["number"], (COLLECTION, auth_id), data),
                              lambda stamp: render_sticker(data, stamp))


def _certificate(db: Database, actor: Actor, municipality: str, auth_id: str) -> bytes:
    doc, state = _issued(db, municipality, auth_id)
    town = municipalities.get(db, municipality)
    rules = registry.rules_of(municipality)
    vehicle = registry.vehicle_record(db, municipality, doc["plate"])
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    spec = schema.SPECS["vehicles"]
    data = CertificatePrint(
        municipality_name=town.name, secretariat=town.secretariat, municipality_address=town.address,
        act=town.acts.get("transporte", rules.act), legal_basis=rules.ref("validity"),
        number=doc["number"], protocol=doc["protocol"],
        issued_on=parse_date(doc.get("issued_on")) or clock.today(),
        valid_until=state.valid_until or parse_date(doc.get("valid_until")),
        driver_name=driver["name"], driver_cpf=fmt_cpf(driver["cpf"]),
        cnh=f"{driver['cnh_number']} · categoria {driver['cnh_category']}",
        plate=fields.show("plate", doc["plate"]), vehicle=_vehicle_text(vehicle),
        renavam=vehicle["renavam"], holder=spec.field("holder").show(vehicle["holder"]),
        check_url=public_check.check_url(municipality, auth_id),
        head=municipalities.letterhead(db, municipality),
    )
    return authenticity.issue(db, actor, municipality,
                              authenticity.Item("certificado", doc["number"], (COLLECTION, auth_id), data),
                              lambda stamp: render_certificate(data, stamp))


def _authorization_text(doc: dict) -> str:
    return f"Nº {doc['number']}" if doc.get("number") else "Não expedida (em análise)"


@checked
def inspection_report_pdf(db: Database, actor: Actor, municipality: str, inspection_id: str) -> bytes:
    """The laudo of one vistoria: the law's checklist item by item, the result, pendências and deadline."""
    authorize(actor, "read", municipality)
    inspection = entities.get(db, actor, "inspections", municipality, inspection_id)
    doc = authorizations.get_authorization(db, actor, municipality, inspection["authorization_id"])
    town = municipalities.get(db, municipality)
    rules = registry.rules_of(municipality)
    vehicle = registry.vehicle_record(db, municipality, inspection["plate"])
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    answers = inspection.get("answers") or {}
    decision = rules.evaluate_inspection(answers)
    spec = schema.SPECS["inspections"]
    notes = [line for line in (inspection.get("notes") or "").splitlines()
             if line and not line.startswith(("Pendência:", "Item não verificado:"))]
    data = InspectionReportPrint(
        municipality_name=town.name, secretariat=town.secretariat, municipality_address=town.address,
        act=town.acts.get("transporte", rules.act), authorization=_authorization_text(doc), protocol=doc["protocol"],
        driver_name=driver["name"], driver_cpf=fmt_cpf(driver["cpf"]),
        plate=fields.show("plate", inspection["plate"]), vehicle=_vehicle_text(vehicle),
        renavam=vehicle["renavam"], kind=spec.field("kind").show(inspection["kind"]),
        performed_on=inspection["performed_on"], inspector=inspection.get("inspector") or "",
        items=tuple(ChecklistLine(item.code, item.text, answers.get(item.code), item.reference)
                    for item in rules.inspection_items),
        approved=inspection["result"] == "approved",
        pendings=tuple(f"{f.message.removeprefix('Pendência: ')} ({f.reference})" for f in decision.failures),
        fix_deadline=inspection.get("fix_deadline"), fix_reference=rules.ref("failed_inspection"),
        notes=" ".join(notes), head=municipalities.letterhead(db, municipality),
    )
    number = f"Vistoria de {inspection['performed_on']:%d/%m/%Y} · {_authorization_text(doc)}"
    return authenticity.issue(db, actor, municipality,
                              authenticity.Item("laudo", number, ("inspections", inspection_id), data),
                              lambda stamp: render_inspection_report(data, stamp))


def _copies(db: Database, municipality: str, driver: dict) -> tuple[str, ...]:
    """The driver's platform; when his record names none, every credentialed platform of the town."""
    show = schema.SPECS["platforms"].field("cnpj").show
    query = ({"cnpj": driver["platform_cnpj"]} if driver.get("platform_cnpj") else {"status": "ativo"})
    rows = db["platforms"].find({"municipality": municipality, **query}).sort("name", 1)
    return tuple(f"{r['name']} — CNPJ {show(r['cnpj'])}" for r in rows) or (
        "Plataforma não identificada no cadastro do condutor",)


@checked
def convocation_notice_pdf(db: Database, actor: Actor, municipality: str, auth_id: str) -> bytes:
    """The notice of the authorization's last extraordinary convocation, to the driver with a copy
    to the platform, with the deadline of the rule set."""
    authorize(actor, "read", municipality)
    doc = authorizations.get_authorization(db, actor, municipality, auth_id)
    convocation = doc.get("convocation")
    if not convocation:
        raise NotFound("Não há convocação para vistoria extraordinária nesta autorização.")
    town = municipalities.get(db, municipality)
    called_on = parse_date(convocation["called_on"])
    vehicle = registry.vehicle_record(db, municipality, doc["plate"])
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    data = ConvocationNoticePrint(
        municipality_name=town.name, secretariat=town.secretariat, municipality_address=town.address,
        number=convocation["number"], called_on=called_on, deadline=parse_date(convocation["deadline"]),
        days=int(parameters.value(db, municipality, "inspection_call_days", called_on)),
        reason=convocation.get("reason") or "", legal_basis=registry.rules_of(municipality).ref("convocation"),
        driver_name=driver["name"], driver_cpf=fmt_cpf(driver["cpf"]),
        driver_address=", ".join(x for x in (driver.get("address"), driver.get("district"), town.name) if x),
        authorization=_authorization_text(doc), plate=fields.show("plate", doc["plate"]),
        vehicle=_vehicle_text(vehicle), copies=_copies(db, municipality, driver),
        head=municipalities.letterhead(db, municipality),
    )
    return authenticity.issue(db, actor, municipality,
                              authenticity.Item("convocacao", convocation["number"], (COLLECTION, auth_id), data,
                                                variant=convocation["number"]),
                              lambda stamp: render_convocation_notice(data, stamp))
