"""Public check of an authorization (no login), reached from the QR code on the sticker and the certificate:
answered by the public portal (``portal/authorization_check.py``) and, for the stickers printed before it,
by the staff panel's visitor page (``app_pages/public_check.py``), both through :func:`check`.

The QR carries a token ``<payload>.<signature>``: the payload names the municipality and the
authorization, the signature is HMAC-SHA256 with the install's secret
(``services.shared.config.public_check_secret``), so a number cannot be guessed or forged. The answer
shows only what a passenger needs (LGPD): the status word, the plate, the vehicle model, the
authorization number and validity, and the driver's first name; and the municipality's ouvidoria
phone, to report an irregularity.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.fmt import day
from rules.params import ParameterMissing
from rules.ridehailing.lifecycle import Status
from services.ridehailing import authorization_records
from services.shared import config, fields, municipalities, parameters
from services.shared.errors import ServiceError

WORDS = {
    Status.ACTIVE: "válida", Status.EXPIRED: "vencida", Status.SUSPENDED: "suspensa", Status.CASSADA: "cassada",
    Status.REVOKED: "revogada", Status.BLOCKED: "bloqueada (vistoria pendente)",
}
NOT_ISSUED = "não expedida"
OUVIDORIA = "ouvidoria_phone"


class InvalidToken(ServiceError):
    """The link was altered, truncated or signed by another install."""

    def __init__(self) -> None:
        super().__init__("Link de verificação inválido. Confira se leu o QR Code do selo oficial.")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(payload: str) -> str:
    return _b64(hmac.new(config.public_check_secret(), payload.encode("utf-8", "surrogatepass"),
                         hashlib.sha256).digest())


def token_for(municipality: str, auth_id: str) -> str:
    """The signed token of one authorization."""
    payload = _b64(f"{municipality}:{auth_id}".encode())
    return f"{payload}.{_signature(payload)}"


def check_url(municipality: str, auth_id: str) -> str:
    """The link printed in the QR code of the sticker and the certificate: the public portal's address
    (``config.portal_url()``, PAINEL_PORTAL_URL) with ``/?t=TOKEN``, which the portal sends on to its
    ``/autorizacao`` (``portal/authorization_check.py``), never the staff panel. Stickers printed before
    carry the panel's own address with the same ``/?t=TOKEN``: the panel still answers them
    (``app_pages/public_check.py``)."""
    return f"{config.portal_url()}/?t={token_for(municipality, auth_id)}"


def read_token(token: str) -> tuple[str, str]:
    """(municipality, authorization id) of a genuine token; InvalidToken otherwise."""
    payload, _, signature = (token if isinstance(token, str) else "").strip().partition(".")
    try:  # compared as bytes: compare_digest refuses str with non-ASCII characters (issue 10, defect 14)
        genuine = bool(payload) and hmac.compare_digest(signature.encode("utf-8", "surrogatepass"),
                                                        _signature(payload).encode())
        municipality, _, auth_id = _unb64(payload).decode().partition(":") if genuine else ("", "", "")
    except (ValueError, UnicodeError):
        genuine = False
    if not genuine:
        raise InvalidToken()
    return municipality, auth_id


@dataclass(frozen=True)
class PublicCheck:
    municipality_name: str
    status_word: str
    valid: bool
    number: str
    valid_until: date | None
    plate: str
    vehicle_model: str
    driver_first_name: str
    detail: str
    ouvidoria_phone: str = ""

    @property
    def valid_until_text(self) -> str:
        return day(self.valid_until) if self.valid_until else ""


def check(db: Database, token: str, on: date) -> PublicCheck:
    """What a passenger sees for a token on ``on``; nothing personal beyond the first name."""
    municipality, auth_id = read_token(token)
    doc = authorization_records.load(db, municipality, auth_id)
    state = authorization_records.state_of(doc, municipality, on, db)
    vehicle = db["vehicles"].find_one({"municipality": municipality, "plate": doc["plate"]},
                                      {"make": 1, "model": 1}) or {}
    driver = db["drivers"].find_one({"municipality": municipality, "cpf": doc["driver_cpf"]}, {"name": 1}) or {}
    word = WORDS.get(state.status, NOT_ISSUED) if doc.get("number") else NOT_ISSUED
    detail = {
        Status.SUSPENDED: f"Suspensa até {day(state.deadline)}" if state.deadline else "",
        Status.EXPIRED: f"Vencida em {day(state.valid_until)}" if state.valid_until else "",
        Status.CASSADA: f"Cassada em {day(state.deadline)}" if state.deadline else "",
        Status.REVOKED: f"Revogada em {day(state.deadline)}" if state.deadline else "",
    }.get(state.status, "")
    try:
        ouvidoria = str(parameters.value(db, municipality, OUVIDORIA, on) or "")
    except ParameterMissing:  # the verdict still shows; the page then names no number
        ouvidoria = ""
    return PublicCheck(
        municipality_name=municipalities.get(db, municipality).name,
        status_word=word, valid=state.can_operate and bool(doc.get("number")),
        number=doc.get("number") or "", valid_until=state.valid_until,
        plate=fields.show("plate", doc["plate"]),
        vehicle_model=" ".join(x for x in (vehicle.get("make"), vehicle.get("model")) if x),
        driver_first_name=(driver.get("name") or "").split(" ")[0], detail=detail, ouvidoria_phone=ouvidoria,
    )
