"""Benchmark: the 500-DAM batch unsigned and signed by the municipality (issue 37: a signed one within 3×).

The DAMs are those of ``bench/dam_pdf.py`` (one issued through the service, 499 copies with their own
number and barcode, in a real embedded store in a temp folder). The certificate is an A1 made here on the
fly (a root and an e-CNPJ-like leaf, as tests/pki_support.py makes them; bench may not import tests/),
uploaded through ``services.setup.signature`` as TI does, with the DAM chosen to be signed. Figures:

- the 500 DAMs as one PDF (``printing.pdf_batch``: codes, records, and — once the certificate is loaded —
  the signature applied as the file is issued, ``authenticity._finish``), without and with the certificate;
- the 500 DAMs each as its own PDF, without and with it (the harder case: a DAM issued at the counter is
  one PDF, signed alone); every figure issues the DAMs anew (a reprint returns the kept bytes);
- pyHanko's plain path for comparison (``SimpleSigner.load_pkcs12_data`` per document, ``sign_pdf``
  without ``bytes_reserved``) on the first ``NAIVE`` DAMs, to show what keeping the signer saves.

    .venv/bin/python bench/signed_dams.py
"""
from __future__ import annotations

import io
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dam_pdf import ACTOR, BATCH, issued_dams  # noqa: E402  (sets PAINEL_DATA_DIR to a temp folder)
from rules.dam import parameters as dam_parameters  # noqa: E402
from rules.params import ParameterVersion  # noqa: E402
from seed.municipalities import seed_demo_parameters  # noqa: E402
from services import store  # noqa: E402
from services.dam import printing  # noqa: E402
from services.setup import bootstrap, signature  # noqa: E402
from services.shared import authenticity  # noqa: E402
from services.shared.auth import Actor  # noqa: E402

TI = Actor("bench.ti", "TI", "ti", ("matupa",))
PASSWORD = "senha-de-bancada"
NAIVE = 50


def a1_certificate() -> bytes:
    """A PKCS#12 A1 of "MUNICÍPIO DE MATUPÁ" issued by a root made here, RSA 2048 as ICP-Brasil's A1."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                          x509.NameAttribute(NameOID.COMMON_NAME, common)])

    start = datetime.now(timezone.utc) - timedelta(days=1)
    root_key, key = (rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2))
    root = (x509.CertificateBuilder().subject_name(name("AC Raiz de Bancada")).issuer_name(name("AC Raiz de Bancada"))
            .public_key(root_key.public_key()).serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(root_key, hashes.SHA256()))
    cnpj = "11222333000181"
    other = x509.OtherName(x509.ObjectIdentifier("2.16.76.1.3.3"), bytes([0x04, len(cnpj)]) + cnpj.encode())
    leaf = (x509.CertificateBuilder().subject_name(name(f"MUNICÍPIO DE MATUPÁ:{cnpj}")).issuer_name(root.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName([other]), critical=False).sign(root_key, hashes.SHA256()))
    return pkcs12.serialize_key_and_certificates(b"a1", key, leaf, [root],
                                                 serialization.BestAvailableEncryption(PASSWORD.encode()))


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def naive_sign(pfx: bytes, pdf: bytes) -> bytes:
    """pyHanko as its documentation shows it: the PKCS#12 read and the size estimated on every document."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    signer = signers.SimpleSigner.load_pkcs12_data(pfx, [], passphrase=PASSWORD.encode())
    meta = signers.PdfSignatureMetadata(field_name="Assinatura", subfilter=fields.SigSeedSubFilter.PADES)
    spec = fields.SigFieldSpec("Assinatura", on_page=-1, box=(340, 4, 567, 24))
    out = signers.PdfSigner(meta, signer, new_field_spec=spec).sign_pdf(IncrementalPdfFileWriter(io.BytesIO(pdf)))
    return out.getvalue()


def main() -> None:
    db = store.connect()
    bootstrap.prepare(db)
    seed_demo_parameters(db)
    for parameter, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "pix@matupa.invalid"),
                             (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                             (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(parameter, date(2025, 1, 1), value, "bench"))
    ids = issued_dams(db)
    printing.pdf_batch(db, ACTOR, "matupa", [ids[0]])  # warm-up: fonts built once per process

    def issued_anew(action):  # every DAM issued for the first time (a reprint would return the kept bytes)
        db[authenticity.COLLECTION].delete_many({})
        return timed(action)

    batch_plain, _ = issued_anew(lambda: printing.pdf_batch(db, ACTOR, "matupa", ids))
    singles_plain, singles = issued_anew(lambda: [printing.pdf_batch(db, ACTOR, "matupa", [i]) for i in ids])
    pfx = a1_certificate()
    signature.set_certificate(db, TI, "matupa", pfx, "bench.pfx", PASSWORD)
    signature.set_signed_kinds(db, TI, "matupa", ["dam"])
    first, _ = issued_anew(lambda: printing.pdf_batch(db, ACTOR, "matupa", [ids[0]]))
    batch_signed, signed = issued_anew(lambda: printing.pdf_batch(db, ACTOR, "matupa", ids))
    assert b"/ByteRange" in signed  # signed as issued (authenticity._finish), the stamp inside the signature
    singles_signed, _ = issued_anew(lambda: [printing.pdf_batch(db, ACTOR, "matupa", [i]) for i in ids])
    naive, _ = timed(lambda: [naive_sign(pfx, pdf) for pdf in singles[:NAIVE]])
    batch_sign, singles_sign = batch_signed - batch_plain, singles_signed - singles_plain

    per_plain, per_sign = singles_plain / BATCH * 1000, singles_sign / BATCH * 1000
    print(f"first signature of the process (pyHanko import, PKCS#12 read, signer kept): {first * 1000:7.1f} ms")
    print(f"{BATCH} DAMs in one PDF: unsigned {batch_plain:6.2f} s; signed {batch_plain + batch_sign:6.2f} s "
          f"(the signature {batch_sign * 1000:.0f} ms; {(batch_plain + batch_sign) / batch_plain:.2f}×; "
          f"{len(signed) / 1e6:.1f} MB)")
    print(f"{BATCH} DAMs one PDF each: unsigned {singles_plain:6.2f} s ({per_plain:.1f} ms a DAM); signed "
          f"{singles_plain + singles_sign:6.2f} s (+{per_sign:.1f} ms a DAM; "
          f"{(singles_plain + singles_sign) / singles_plain:.2f}×; target ≤ 3×)")
    print(f"pyHanko's plain path (PKCS#12 read and size estimated each time), {NAIVE} DAMs: "
          f"{naive / NAIVE * 1000:.1f} ms a signature ({naive / NAIVE * 1000 / per_sign:.1f}× the kept signer)")


if __name__ == "__main__":
    main()
