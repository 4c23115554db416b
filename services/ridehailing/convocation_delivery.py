"""The convocation to an extraordinary vistoria delivered to the electronic domicile (issue 36 item 2; CG
Decreto 06/2026 art. 17 §1 "o órgão fiscalizador poderá notificar a plataforma de tecnológica e o condutor";
MP Lei 1.552/2025 art. 15 §1): the same notice the clerk printed (``documents.convocation_notice_pdf``),
to the driver's domicile, and a copy to his platform's when it has one — each only when that addressee
has an active domicile; otherwise the notice is printed and handed over as before.

The deadline to attend is the rule's, counted from the convocation (``convocation_deadline``): the acts do
not tie it to the receipt (docs/LEITURAS.md, seção 7, leitura 30). One delivery per convocation and
addressee: the messages name the convocation's number in their ``ref``, and a second call delivers nothing.
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from services import store
from services.ridehailing import authorizations, documents, inspections
from services.shared import domicile
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound

CATEGORY = "vistoria_convocacao"
name_codes("category", {CATEGORY: "Convocação para vistoria extraordinária"})


def _addressees(db: Database, municipality: str, doc: dict) -> list[tuple[str, str]]:
    """(kind, document) of the driver and of his platform (the copy), those with an active domicile."""
    found = [("condutor", doc.get("driver_cpf") or "")]
    driver = db["drivers"].find_one({"municipality": municipality, "cpf": doc.get("driver_cpf")}, {"platform_cnpj": 1})
    if driver and driver.get("platform_cnpj"):
        found.append(("plataforma", driver["platform_cnpj"]))
    return [(kind, number) for kind, number in found if domicile.active(db, municipality, kind, number)]


@checked
def deliver(db: Database, actor: Actor, municipality: str, auth_id: str) -> list[dict]:
    """Deliver the authorization's last convocation to the domiciles of the driver and of his platform
    that are active and have not had it yet; returns the messages delivered now (empty: none)."""
    authorize(actor, "write", municipality)
    doc = authorizations.get_authorization(db, actor, municipality, auth_id)
    convocation = doc.get("convocation")
    if not convocation:
        raise NotFound("Não há convocação para vistoria extraordinária nesta autorização.")
    number = convocation["number"]
    done = {(m["kind"], m["document"]) for m in domicile.refs_of(db, municipality, "authorizations", auth_id)
            if m["category"] == CATEGORY and (m.get("ref") or {}).get("convocation") == number}
    pending = [a for a in _addressees(db, municipality, doc) if a not in done]
    if not pending:
        return []
    pdf = documents.convocation_notice_pdf(db, actor, municipality, auth_id)
    sent = []
    with store.transaction(db):
        for kind, number_of in pending:
            sent.append(domicile.deliver(
                db, actor, municipality, kind, number_of, category=CATEGORY, pdf=pdf,
                title=f"Convocação para vistoria extraordinária nº {number}" + (
                    " (cópia à plataforma)" if kind == "plataforma" else ""),
                ref={"collection": "authorizations", "id": auth_id, "convocation": number, "recipient": kind}))
    return sent


@checked
def call_and_deliver(db: Database, actor: Actor, municipality: str, auth_id: str, on: date,
                     note: str = "") -> tuple[date, list[dict]]:
    """Call the authorization to an extraordinary vistoria (``inspections.call_inspection``) and deliver the
    notice to the domiciles there are: (the last day to attend, the messages delivered)."""
    authorize(actor, "write", municipality)
    deadline = inspections.call_inspection(db, actor, municipality, auth_id, on, note)
    return deadline, deliver(db, actor, municipality, auth_id)


@checked
def delivered(db: Database, actor: Actor, municipality: str, auth_id: str) -> list[dict]:
    """The domicile messages about the authorization (convocations, renewal reminders), oldest first, as
    the case shows them: title, to whom, the receipt (delivery, opening or tacit day) and the e-mail
    alert's state."""
    authorize(actor, "read", municipality)
    rows = []
    for message in domicile.refs_of(db, municipality, "authorizations", auth_id):
        rows.append({"title": message["title"], "kind": message["kind"], "receipt": message["receipt"].text(),
                     "alert": domicile.alert_line(db, actor, municipality, message["id"])})
    return rows
