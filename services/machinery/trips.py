"""Bus, minibus and van hire (Decreto 017/2026, Nova Lacerda, art. 6): the named person responsible for
the trip, the municipal driver (parágrafo único), passengers and route, and the incidents recorded
against the responsible person."""
from __future__ import annotations

from datetime import date

from bson import ObjectId
from pymongo.database import Database

from rules.machinery.prices import DECREE
from services import store
from services.machinery import booking_requests
from services.machinery.booking_requests import (
    OPEN,
    OPERATORS,
    REQUESTS,
    STATUS,
    WrongStep,
)
from services.shared import audit, clock, fields
from services.shared.audit_words import name_codes
from services.shared.auth import Actor
from services.shared.errors import ValidationFailed
from services.store import encode

INCIDENT_KINDS = {"dano": "Dano ao veículo", "lotacao": "Excesso de lotação", "desvio": "Desvio de rota não autorizado",
                  "comportamento": "Mau comportamento ou vandalismo", "outro": "Outro"}
name_codes("kind", INCIDENT_KINDS)  # the Auditoria's words for them


@booking_requests.module_service("write")
def record_trip(db: Database, actor: Actor, municipality: str, request_id: str, responsible_name: str,
                responsible_document: str, driver_operator_id: str, passengers: list[str], route: str) -> dict:
    """The named responsible person, the municipal driver, passengers and route (art. 6)."""
    errors = {}
    if not responsible_name.strip():
        errors["responsible_name"] = f"Indique o responsável pela viagem ({DECREE}, art. 6)."
    try:
        document = fields.parse("cpf", responsible_document)
    except ValueError as exc:
        errors["responsible_document"] = f"CPF do responsável: {exc}."
        document = ""
    if not route.strip():
        errors["route"] = "Informe o roteiro da viagem."
    if errors:
        raise ValidationFailed(errors)
    driver = booking_requests._record(db, OPERATORS, municipality, driver_operator_id, "Motorista")
    if driver.get("duty") != "motorista":
        # Art. 6, parágrafo único: the driver belongs to the municipal staff
        raise ValidationFailed({"driver_operator_id": f"{driver['name']} não consta do cadastro como motorista."})

    def build(doc: dict) -> dict:
        if not any(s["kind"] == "passenger_transport" for s in doc["services"]):
            raise WrongStep(f"O pedido {doc['protocol']} não é de locação de ônibus, micro-ônibus ou van.")
        trip = doc.get("trip") or {"incidents": []}
        trip.update(responsible_name=responsible_name.strip(), responsible_document=document,
                    driver_operator_id=driver["id"], driver=driver["name"],
                    passengers=[p.strip() for p in passengers if p.strip()], route=route.strip())
        return {"trip": trip}

    return booking_requests._change(db, actor, municipality, request_id, OPEN + ("concluido",), build, "trip")


@booking_requests.module_service("write")
def record_incident(db: Database, actor: Actor, municipality: str, request_id: str, on: date, kind: str,
                    description: str) -> dict:
    """An incident (dano, lotação, desvio de rota, ...) recorded against the responsible person (art. 6)."""
    if kind not in INCIDENT_KINDS:
        raise ValidationFailed({"kind": "Escolha o tipo de ocorrência."})
    if not description.strip():
        raise ValidationFailed({"description": "Descreva a ocorrência."})

    booking_requests.prepare(db)
    with store.transaction(db):  # an incident is appended ($push): two clerks recording at once both land
        doc = booking_requests._load(db, municipality, request_id)
        if doc["status"] not in OPEN + ("concluido",):
            raise WrongStep(f"O pedido {doc['protocol']} está '{STATUS.get(doc['status'], doc['status'])}': "
                            "esta ação não cabe nesta etapa.")
        trip = doc.get("trip")
        if not trip:
            raise WrongStep("Registre antes o responsável pela viagem (art. 6).")
        incident = {"on": on, "kind": kind, "kind_label": INCIDENT_KINDS[kind], "description": description.strip(),
                    "responsible": trip["responsible_name"], "by": actor.username}
        db[REQUESTS].update_one({"_id": ObjectId(doc["id"]), "trip": {"$exists": True}},
                                {"$push": {"trip.incidents": encode(incident)}, "$inc": {"version": 1},
                                 "$set": {"updated_at": encode(clock.now_utc())}})
        audit.record(db, actor, municipality, "incident", REQUESTS, doc["id"], {}, encode(incident),
                     note=f"{doc['protocol']}: {INCIDENT_KINDS[kind]}")
    return booking_requests.get_request_unchecked(db, municipality, request_id)
