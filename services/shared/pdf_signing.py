"""The municipality's PAdES signature on the PDFs it issues (issue 37 item 3).

``sign_if_chosen(db, municipality, kind, pdf) -> bytes`` is called on a document's final bytes (after the
authentication stamp: a signature covers every byte before it, so nothing may be drawn after it). When the
municipality has an A1 certificate (``services.shared.signing_keys``) and ``kind`` is one TI chose to
sign, it returns the PDF with a PAdES baseline signature (ETSI.CAdES.detached, SHA-256, an incremental
update: the original bytes stay as they were) and a visible box on the last page, in a fixed place that
covers nothing (:data:`A4_PLACE`: bottom right, inside the bottom margin, below the footer line and right of
the authentication stamp; the sticker's in :data:`PLACES`): "Assinado digitalmente por <titular>", the
CNPJ and the local date and time. Otherwise the bytes come back unchanged — and so when the
certificate has expired or its password is not available (logged; the Implantação page tells TI): a
document is never held back for want of a signature, it keeps its authentication code.

Cost (bench/pdf_signing.py): pyHanko's ``SimpleSigner`` reads the private key from DER on every
signature (~80–100 ms for RSA 2048, as ``cryptography`` checks the key each time it loads it) and, without
``bytes_reserved``, signs twice to size the signature. Here the key is loaded once per process into
:class:`_KeptKeySigner`, the room for the signature is computed from the certificates, there is no
timestamp server, no OCSP/CRL fetch and no validation while signing. The signer is kept per process and
municipality, keyed by the certificate file's sha256 and the password, so a replaced certificate (or
password) is read again on the next document.
"""
from __future__ import annotations

import hashlib
import io
import logging
import textwrap
import threading
from dataclasses import dataclass

from pymongo.database import Database

from rules import fmt
from services import store
from services.shared import clock, signing_keys

log = logging.getLogger("painel")
FIELD_NAME = "AssinaturaPrefeitura"
POINTS_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class Place:
    """Where the visible box goes on the last page, in mm from its right and bottom edges, and the
    characters of one line (0: two lines, the name whole)."""

    right: float
    bottom: float
    width: float
    height: float
    columns: int = 0
    font_size: int = 6


# A4 documents (every kind but the sticker): 80 × 7 mm in the bottom margin, below the footer line
# (letterhead.footer, 284–288 mm) and right of the authentication stamp.
A4_PLACE = Place(right=10, bottom=1.5, width=80, height=7)
# The sticker (100 × 140 mm, sticker_pdf): its bottom band holds the ouvidoria's phone, so the box takes
# the white gutter right of the QR code (64–110 mm from the top), its text wrapped.
PLACES = {"selo": Place(right=1.5, bottom=30, width=23.5, height=46, columns=21, font_size=5)}


@dataclass(frozen=True)
class _Loaded:
    key: tuple[str, str]  # (certificate file sha256, password digest)
    signer: object
    reserved: int  # bytes kept in the file for the CMS signature


_SIGNERS: dict[str, _Loaded] = {}
_LOCK = threading.Lock()


def sign_if_chosen(db: Database, municipality: str, kind: str, pdf: bytes) -> bytes:
    """``pdf`` signed by the municipality when it has a certificate and TI chose ``kind``; else unchanged."""
    record, kinds = signing_keys.stored(db, municipality)
    if record is None or kind not in kinds or f"/T ({FIELD_NAME})".encode() in pdf:  # unchosen, or signed already
        return pdf
    record = store.decode(record)
    if record["valid_until"] <= clock.now_utc():
        log.warning("Certificado A1 de %s vencido em %s: documento %s sai sem assinatura digital.", municipality,
                    fmt.day(record["valid_until"]), kind)
        return pdf
    loaded = _signer(db, municipality, record)
    if loaded is None:
        return pdf
    try:
        return sign(pdf, loaded, record, kind)
    except Exception:  # noqa: BLE001 — a document is never held back for its signature (the log tells TI)
        log.exception("O documento %s de %s não pôde ser assinado: sai sem assinatura digital.", kind, municipality)
        return pdf


def _signer(db: Database, municipality: str, record: dict) -> _Loaded | None:
    secret = signing_keys.password(municipality)
    if secret is None:
        log.error("Certificado A1 de %s sem senha (%s ou o arquivo de chave): documentos saem sem assinatura "
                  "digital.", municipality, signing_keys.password_variable(municipality))
        return None
    key = (record["sha256"], hashlib.sha256(secret.encode("utf-8")).hexdigest())
    with _LOCK:
        found = _SIGNERS.get(municipality)
        if found is not None and found.key == key:
            return found
        try:
            signer, reserved = _load(store.get_file(db, record["sha256"]), secret)
        except Exception:  # noqa: BLE001 — a certificate that no longer opens never stops a document
            log.exception("O certificado A1 de %s não abriu: documentos saem sem assinatura digital.", municipality)
            return None
        _SIGNERS[municipality] = loaded = _Loaded(key, signer, reserved)
        return loaded


def _load(data: bytes, secret: str):
    """A pyHanko signer holding the parsed private key, and the room its signatures need."""
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives import serialization
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    key, cert, chain = signing_keys.open_a1(data, secret)
    der = [c.public_bytes(serialization.Encoding.DER) for c in (cert, *chain)]
    registry = SimpleCertificateStore()
    registry.register_multiple([asn1_x509.Certificate.load(c) for c in der[1:]])
    private = asn1_keys.PrivateKeyInfo.load(key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    signer = _kept_key_signer()(signing_cert=asn1_x509.Certificate.load(der[0]), signing_key=private,
                                cert_registry=registry)
    signer.pyca_key = key
    reserved = sum(len(c) for c in der) + key.key_size // 8 + 4096  # certificates, signature, attributes
    reserved += -reserved % 256  # pyHanko wants an even number; a round one
    return signer, reserved


def _kept_key_signer():
    """``SimpleSigner`` that signs with the key object it was given instead of parsing it again each time."""
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from pyhanko.sign.general import get_pyca_cryptography_hash
    from pyhanko.sign.signers import SimpleSigner

    class _KeptKeySigner(SimpleSigner):
        pyca_key = None

        def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
            mechanism = self.get_signature_mechanism_for_digest(digest_algorithm).signature_algo
            if mechanism == "rsassa_pkcs1v15" and isinstance(self.pyca_key, RSAPrivateKey):
                return self.pyca_key.sign(data, PKCS1v15(), get_pyca_cryptography_hash(digest_algorithm))
            return super().sign_raw(data, digest_algorithm)

    return _KeptKeySigner


def signature_box(place: Place, left: float, bottom: float, right: float) -> tuple[float, float, float, float]:
    """The box in PDF coordinates (points) on a page whose MediaBox starts at ``left``, ``bottom`` and
    ends at ``right``."""
    x2 = right - place.right * POINTS_PER_MM
    y1 = bottom + place.bottom * POINTS_PER_MM
    return (max(left, x2 - place.width * POINTS_PER_MM), y1, x2, y1 + place.height * POINTS_PER_MM)


def stamp_text(place: Place, holder: str, cnpj: str, when: str) -> str:
    """What the box says: "Assinado digitalmente por <titular>", the CNPJ and the local date and time."""
    lines = [f"Assinado digitalmente por {holder}", " · ".join(filter(None, [cnpj and f"CNPJ {fmt.cnpj(cnpj)}",
                                                                            f"{when} (Cuiabá)"]))]
    if place.columns:
        lines = [*textwrap.wrap(lines[0], place.columns), *(f"CNPJ {fmt.cnpj(cnpj)}",) * bool(cnpj), when,
                 "(horário de Cuiabá)"]
    return "\n".join(lines)


def _page_box(page) -> tuple[float, float, float]:
    """Left, bottom and right of the page's MediaBox (inherited from the page tree when the page has none)."""
    node = page
    while "/MediaBox" not in node and "/Parent" in node:
        node = node["/Parent"]
    left, bottom, right, _ = (float(v) for v in node.get("/MediaBox", (0, 0, 595.28, 841.89)))
    return left, bottom, right


def sign(pdf: bytes, loaded: _Loaded, record: dict, kind: str = "") -> bytes:
    """``pdf`` with one more incremental update holding the signature and its visible box."""
    from pyhanko.pdf_utils import layout
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.pdf_utils.text import TextBoxStyle
    from pyhanko.sign import fields, signers
    from pyhanko.stamp import TextStampStyle

    writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    page, _ = writer.find_page_for_modification(-1)
    left, bottom, right = _page_box(page.get_object())
    place = PLACES.get(kind, A4_PLACE)
    holder = record["holder"]
    meta = signers.PdfSignatureMetadata(field_name=FIELD_NAME, md_algorithm="sha256",
                                        subfilter=fields.SigSeedSubFilter.PADES, name=holder)
    text = TextBoxStyle(font_size=place.font_size, leading=place.font_size + 1,
                        box_layout_rule=layout.SimpleBoxLayoutRule(x_align=layout.AxisAlignment.ALIGN_MIN,
                                                                   y_align=layout.AxisAlignment.ALIGN_MID))
    style = TextStampStyle(stamp_text="%(text)s", border_width=0, text_box_style=text,
                           inner_content_layout=layout.SimpleBoxLayoutRule(
                               x_align=layout.AxisAlignment.ALIGN_MAX, y_align=layout.AxisAlignment.ALIGN_MID,
                               margins=layout.Margins.uniform(2)))
    spec = fields.SigFieldSpec(FIELD_NAME, on_page=-1, box=signature_box(place, left, bottom, right))
    shown = stamp_text(place, holder, record.get("cnpj") or "", fmt.moment(clock.to_local(clock.now_utc())))
    out = signers.PdfSigner(meta, loaded.signer, stamp_style=style, new_field_spec=spec).sign_pdf(
        writer, bytes_reserved=loaded.reserved, appearance_text_params={"text": shown})
    return out.getvalue()


def forget() -> None:
    """Drop the signers kept by this process (tests; a restore)."""
    with _LOCK:
        _SIGNERS.clear()
