"""The verification of a signed file a regulated party sends (issue 36 item 4; CG Decreto 06/2026 art. 11
§2–3 "desde que autenticadas eletronicamente por agente autorizado"; MP Lei 1.552/2025 art. 4 §2–3
"desde que autenticados digitalmente").

- A PDF carries its signature inside (PAdES, checked by pyHanko's ``validate_pdf_signature``): the last
  signature must cover the WHOLE file — a byte changed, or anything appended after it was signed, makes
  the file "adulterado" —;
- a CSV or XLSX comes with its detached CMS/PKCS#7 signature (``.p7s``, DER or PEM), checked by pyHanko's
  ``async_validate_detached_cms`` over the file's bytes.

The certificate must chain to a trust anchor TI uploaded for the municipality (``trust_anchors``), be
within its validity at the moment of the verification (the panel's clock: the signing time a file
reports is the signer's own claim, not a proof) and at the signing time it reports, and — when the
caller gives them — belong to one of the persons authorized (their CPFs, ``rules/signatures.py``).
Revocation lists are not fetched (the panel works offline; ``allow_fetching=False``).

Every refusal is a pt-BR ``ValidationFailed`` under the file's field (or the signature's); nothing is
stored here: the caller keeps the bytes once :func:`verify` returns.
"""
from __future__ import annotations

import asyncio
import base64
import io
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

from asn1crypto import cms
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.generic_cms import async_validate_detached_cms
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext
from pymongo.database import Database

from rules import signatures as rule
from rules.fmt import cpf as shown_cpf
from rules.fmt import day
from services.shared import clock, icp_brasil, trust_anchors, uploads
from services.shared.errors import ValidationFailed

PADES, CMS = "PAdES (assinatura no PDF)", "CMS destacada (.p7s)"
TAMPERED = ("O arquivo foi alterado depois de assinado (adulterado): a assinatura não confere com o conteúdo. "
            "Envie o arquivo exatamente como foi assinado.")


@dataclass(frozen=True)
class Signature:
    """What the panel records of a verified signature."""

    kind: str
    signer_name: str
    signer_cpf: str
    cert_serial: str
    cert_issuer: str
    cert_valid_from: datetime
    cert_valid_to: datetime
    signed_at: datetime | None
    verified_at: datetime
    result: str

    def as_record(self) -> dict:
        return asdict(self)


def _refuse(field: str, message: str) -> ValidationFailed:
    return ValidationFailed({field: message})


def _context(roots: list[bytes], now: datetime) -> ValidationContext:
    return ValidationContext(trust_roots=[asn1_x509.Certificate.load(r) for r in roots], allow_fetching=False,
                             moment=now)


def _pdf_status(data: bytes, context: ValidationContext, field: str):
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        embedded = reader.embedded_signatures
    except Exception:  # noqa: BLE001 — a PDF pyHanko cannot read is refused, whatever the parser's error
        raise _refuse(field, "O PDF não pôde ser lido; envie o arquivo assinado original.") from None
    if not embedded:
        raise _refuse(field, "O PDF não tem assinatura digital (PAdES). Assine-o com o certificado ICP-Brasil "
                             "da pessoa autorizada e envie de novo.")
    try:
        status = validate_pdf_signature(embedded[-1], context, skip_diff=True)
    except Exception:  # noqa: BLE001 — pyHanko's refusals of a broken signature: the file does not match it
        raise _refuse(field, TAMPERED) from None
    if not status.intact or status.coverage != SignatureCoverageLevel.ENTIRE_FILE:
        raise _refuse(field, TAMPERED)
    return status


def _signed_data(signature: bytes, field: str) -> cms.SignedData:
    raw = bytes(signature)
    if raw.lstrip().startswith(b"-----BEGIN"):
        body = b"".join(line for line in raw.strip().splitlines() if not line.startswith(b"-----"))
        try:
            raw = base64.b64decode(body, validate=False)
        except ValueError:
            raise _refuse(field, "A assinatura (.p7s) não pôde ser lida.") from None
    try:
        info = cms.ContentInfo.load(raw)
        if info["content_type"].native != "signed_data":
            raise ValueError
        signed = info["content"]
        attached = signed["encap_content_info"]["content"].native
    except Exception:  # noqa: BLE001 — asn1crypto parses lazily: any failure means a malformed file
        raise _refuse(field, "O arquivo enviado como assinatura não é uma assinatura CMS/PKCS#7 (.p7s).") from None
    if attached:
        raise _refuse(field, "A assinatura deve ser destacada (.p7s separado do arquivo), não anexada.")
    return signed


def _cms_status(data: bytes, signature: bytes, context: ValidationContext, field: str, sig_field: str):
    signed = _signed_data(signature, sig_field)
    try:
        status = asyncio.run(async_validate_detached_cms(bytes(data), signed, signer_validation_context=context))
    except Exception:  # noqa: BLE001 — as in _pdf_status
        raise _refuse(field, TAMPERED) from None
    if not status.intact:
        raise _refuse(field, TAMPERED)
    return status


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def verify(db: Database, municipality: str, data: bytes, file_name: str, signature: bytes | None = None, *,
           authorized: frozenset[str] | None = None, field: str = "file",
           signature_field: str = "signature") -> Signature:
    """The signature of ``data`` (a PDF with PAdES, or a CSV/XLSX with its detached ``signature``) verified
    against the municipality's trust anchors and, when ``authorized`` is given, its signer's CPF among
    them; ValidationFailed in pt-BR otherwise (see the module). For a service that has authorized its actor."""
    upload = uploads.check("signed_answer", data, file_name, field=field)
    roots = trust_anchors.roots(db, municipality)
    if not roots:
        raise _refuse(field, trust_anchors.NO_ANCHORS)
    now = clock.now_utc()
    context = _context(roots, now)
    if upload.type == "pdf":
        if signature:
            raise _refuse(signature_field, "O PDF leva a assinatura dentro dele (PAdES): envie só o PDF assinado, "
                                           "sem o arquivo .p7s.")
        status, kind = _pdf_status(bytes(data), context, field), PADES
    else:
        if not signature:
            raise _refuse(signature_field, "Um CSV ou XLSX precisa da sua assinatura destacada (.p7s): envie os "
                                           "dois arquivos.")
        uploads.check("signature", signature, "", field=signature_field)
        status, kind = _cms_status(bytes(data), bytes(signature), context, field, signature_field), CMS
    cert = x509.load_der_x509_certificate(status.signing_cert.dump())
    common = icp_brasil.common_name(cert.subject)
    name, cpf = rule.signer_name(common), rule.signer_cpf(icp_brasil.other_name(cert, icp_brasil.CPF_OID), common)
    valid_from, valid_to = _utc(cert.not_valid_before_utc), _utc(cert.not_valid_after_utc)
    signed_at = _utc(status.signer_reported_dt)
    span = f"vale de {day(clock.to_local(valid_from))} a {day(clock.to_local(valid_to))}"
    if signed_at is not None and not valid_from <= signed_at <= valid_to:
        raise _refuse(field, f"O certificado de {name} não estava válido na data da assinatura "
                             f"({day(clock.to_local(signed_at))}; {span}). Assine com um certificado válido.")
    if not valid_from <= now <= valid_to:
        raise _refuse(field, f"O certificado de {name} não está válido hoje ({span}). Assine com um certificado "
                             "válido.")
    if getattr(status, "revoked", False):
        raise _refuse(field, f"O certificado de {name} foi revogado pela autoridade certificadora.")
    if not status.trusted:
        raise _refuse(field, f"O certificado de {name} não foi emitido por uma autoridade certificadora confiável "
                             "(as raízes da ICP-Brasil cadastradas pela TI).")
    if authorized is not None and not rule.may_sign(cpf, authorized):
        who = f"{name} (CPF {shown_cpf(cpf)})" if cpf else name
        raise _refuse(field, f"O arquivo foi assinado por {who}, que não está entre as pessoas autorizadas pela "
                             "plataforma (CG art. 11 §3; MP art. 4º §3).")
    return Signature(kind, name, cpf, format(cert.serial_number, "X"),
                     icp_brasil.common_name(cert.issuer) or cert.issuer.rfc4514_string(), valid_from, valid_to,
                     signed_at, now, "válida: arquivo íntegro e certificado emitido por autoridade confiável")
