"""Signed files for the tests of the signatures (issue 36 item 4), made with the test PKI of
``tests/pki_support.py``: a PDF with an embedded PAdES signature, a CSV or XLSX with its detached CMS
(``.p7s``), and the same files spoiled (a byte changed, bytes appended)."""
from __future__ import annotations

import asyncio
import io

from asn1crypto import keys, x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from fpdf import FPDF
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko_certvalidator.registry import SimpleCertificateStore

from tests.pki_support import Issued


def _signer(who: Issued) -> signers.SimpleSigner:
    key = keys.PrivateKeyInfo.load(who.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    chain = [asn1_x509.Certificate.load(c.public_bytes(serialization.Encoding.DER)) for c in who.chain]
    return signers.SimpleSigner(asn1_x509.Certificate.load(who.der), key, SimpleCertificateStore.from_certs(chain))


def plain_pdf(text: str = "Resposta ao pedido de dados de viagem") -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(0, 10, text)
    return bytes(pdf.output())


def signed_pdf(who: Issued, data: bytes | None = None) -> bytes:
    """``data`` (a plain PDF by default) signed by ``who`` (PAdES baseline, the whole file covered)."""
    out = io.BytesIO()
    writer = IncrementalPdfFileWriter(io.BytesIO(data or plain_pdf()))
    signers.sign_pdf(writer, signers.PdfSignatureMetadata(field_name="Assinatura", subfilter=fields.SigSeedSubFilter.PADES),
                     signer=_signer(who), output=out)
    return out.getvalue()


def detached(who: Issued, data: bytes) -> bytes:
    """The detached CMS signature (``.p7s``, DER) of ``data`` by ``who``."""
    info = asyncio.run(_signer(who).async_sign_general_data(data, "sha256", detached=True))
    return info.dump()


def changed_byte(data: bytes, at: int | None = None) -> bytes:
    """``data`` with one byte changed (in the middle by default)."""
    at = len(data) // 2 if at is None else at
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


TRIPS_CSV = ("data_hora;origem;destino;duracao_min;distancia_km;mapa;cpf_condutor;placa;valor_total;"
             "composicao_valor;avaliacao\n").encode()
