"""The public verification of an issued document (no login, no actor): what a stranger may see.

:func:`verify` takes the code printed on a document (as typed or read from its QR) and, optionally, the
PDF the person has; it answers what the document is (kind, number, municipality), when and by which
organ it was issued, whether it still stands (or was replaced by another code, cancelled, revoked) and
whether the PDF's bytes are exactly those issued (SHA-256). Nothing personal is shown (LGPD): the
record keeps none, and the issuer is named by its organ, never by a person's name or CPF; no internal
id leaves this module.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pymongo.database import Database

from services.shared import authenticity, clock, municipalities, uploads

UPLOAD_KIND = "document_check"
ORGANS = {"ti": "Tecnologia da informação da Prefeitura", "gabinete": "Gabinete do Prefeito"}


@dataclass(frozen=True)
class Answer:
    """The verdict on one code (and file), in pt-BR words."""

    code: str                 # as printed ("" when what was typed is not a code)
    found: bool
    kind: str = ""            # "Documento de Arrecadação Municipal (DAM)"
    number: str = ""          # "0001/2026"
    municipality: str = ""    # "Chapada dos Guimarães"
    issued_at: str = ""       # "05/12/2026 às 14:03 (horário de Cuiabá)"
    issuer: str = ""          # the organ: "Secretaria Municipal de ...", "Painel Municipal (emissão automática)"
    status: str = ""          # "Válido", "Substituído", "Cancelado", "Revogado"
    valid: bool = False
    detail: str = ""          # "Substituído pelo documento de código ...", the note of a cancellation
    via_of: str = ""          # "2ª via do documento de código ..."
    same_bytes: bool | None = None  # None: no file given


def _issuer(doc: dict, town: municipalities.Municipality | None) -> str:
    role = doc.get("issuer_role", "")
    place = f"Prefeitura Municipal de {town.name}" if town else "Prefeitura"
    if role == "sistema":
        return f"Painel Municipal da {place} (emissão automática)"
    organ = ORGANS.get(role) or (town.secretariat if town and town.secretariat else "Secretaria municipal")
    return f"{organ} — {place}"


def _detail(doc: dict) -> str:
    """Why a document no longer stands, with the day and the code that replaced it."""
    status = doc.get("status")
    if status == authenticity.VALID:
        return ""
    when = f" em {clock.to_local(doc['status_at']):%d/%m/%Y}" if doc.get("status_at") else ""
    note = (doc.get("status_note") or "").rstrip(".")
    if status == authenticity.REPLACED and doc.get("replaced_by"):
        return f"Substituído{when} pelo documento de código {doc['replaced_by']}."
    return f"{authenticity.STATUSES.get(status, '')}{when}" + (f": {note}." if note else ".")


def verify(db: Database, code: str, pdf: bytes | None = None) -> Answer:
    """The public answer on ``code`` and, when given, on the bytes of ``pdf`` (checked as an upload:
    a PDF within the size limit, else ``ValidationFailed`` on the field ``pdf``)."""
    printed = authenticity.normal_code(code)
    if pdf:
        uploads.check(UPLOAD_KIND, pdf, field="pdf")
    doc = authenticity.find(db, printed) if printed else None
    if doc is None:
        return Answer(printed, False)
    try:
        town = municipalities.get(db, doc["municipality"])
    except LookupError:
        town = None
    same = None if not pdf else hashlib.sha256(pdf).hexdigest() in (doc.get("files") or [])
    moment = clock.to_local(doc["issued_at"])
    return Answer(
        code=printed, found=True, kind=authenticity.KINDS.get(doc["kind"], (doc["kind"], ""))[0],
        number=doc.get("number", ""), municipality=town.name if town else "",
        issued_at=f"{moment:%d/%m/%Y} às {moment:%H:%M} (horário de Cuiabá)", issuer=_issuer(doc, town),
        status=authenticity.STATUSES.get(doc["status"], ""), valid=doc["status"] == authenticity.VALID,
        detail=_detail(doc), via_of=f"{doc.get('via', 2)}ª via do documento de código {doc['replaces']}"
        if doc.get("replaces") else "", same_bytes=same,
    )
