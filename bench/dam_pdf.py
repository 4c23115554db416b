"""Benchmark: DAM, sticker and certificate PDFs against a bare fpdf2 page, and a 500-DAM batch.

The floor is a bare fpdf2 A4 page with one line of core-font text, the same Interleaved 2 of 5
barcode and the same PIX QR code (segno PNG), measured in the same run. The DAM is printed through
the service (``printing.pdf_batch``: DAM read from a real embedded store in a temp folder, one query);
the 500 DAMs are one PDF from one ``$in`` query per chunk. A figure, not a pass/fail.

    .venv/bin/python bench/dam_pdf.py [RUNS]
"""
from __future__ import annotations

import io
import os
import statistics
import sys
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["PAINEL_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-dam-pdf-")
os.environ.pop("MONGODB_URI", None)

import segno  # noqa: E402
from bson import ObjectId  # noqa: E402
from fpdf import FPDF  # noqa: E402

from rules.dam import parameters as dam_parameters  # noqa: E402
from rules.dam.barcode import dam_barcode  # noqa: E402
from rules.params import ParameterVersion  # noqa: E402
from seed.municipalities import seed_demo_parameters  # noqa: E402
from services import store  # noqa: E402
from services.dam import dams, printing
from services.ridehailing.certificate_pdf import CertificatePrint, render_certificate  # noqa: E402
from services.ridehailing.sticker_pdf import StickerPrint, render_sticker  # noqa: E402
from services.setup import bootstrap
from services.shared import clock
from services.shared.auth import Actor  # noqa: E402

ACTOR = Actor("bench", "Bench", "secretaria", ("matupa",))
BATCH = 500


def p50_ms(action, runs: int) -> float:
    action()  # warm-up: the first call builds the fonts once per process
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def floor_page(barcode: str, pix: str) -> bytes:
    pdf = FPDF(unit="mm", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(100, 5, "DAM 0001/2026")
    pdf.interleaved2of5(barcode, x=15, y=250, w=0.762, h=13)
    png = io.BytesIO()
    segno.make(pix, error="m", micro=False).save(png, kind="png", scale=8, border=0)
    pdf.image(png, x=150, y=100, w=30, h=30)
    return bytes(pdf.output())


def issued_dams(db) -> list[str]:
    """One DAM issued through the service, then BATCH - 1 copies with their own number and barcode."""
    first = dams.issue(db, ACTOR, "matupa", taxpayer_name="Maria da Silva Araújo", taxpayer_document="529.982.247-25",
                       taxpayer_address="Rua dos Ipês, 120, Centro", revenue_kind="taxa_autorizacao",
                       description="Taxa de autorização do transporte por aplicativo, autorização 0042/2026",
                       legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=Decimal("150.00"),
                       due=clock.today())
    template = db[dams.COLLECTION].find_one({"_id": ObjectId(first["id"])})
    copies = []
    for sequence in range(2, BATCH + 1):
        barcode = dam_barcode(Decimal("150.00"), "0592", date.fromisoformat(template["due_on"]), template["year"],
                              sequence)
        copies.append({**template, "_id": ObjectId(), "sequence": sequence, "number": f"{sequence:04d}/{template['year']}",
                       "barcode": barcode.digits, "line": barcode.line})
    db[dams.COLLECTION].insert_many(copies)
    return [first["id"], *(str(c["_id"]) for c in copies)]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    db = store.connect()
    bootstrap.prepare(db)
    seed_demo_parameters(db)  # the FEBRABAN code the DAMs need
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "pix@matupa.invalid"),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, "bench"))
    ids = issued_dams(db)
    one = dams.get(db, ACTOR, "matupa", ids[0])
    floor = p50_ms(lambda: floor_page(one["barcode"], one["pix_payload"]), runs)
    dam = p50_ms(lambda: printing.pdf_batch(db, ACTOR, "matupa", [ids[0]]), runs)
    sticker = p50_ms(lambda: render_sticker(StickerPrint(
        "Matupá", "Secretaria Municipal de Administração", "Lei Municipal 1.552/2025", "0042/2026", "QBC-1D23",
        "Fiat Argo 2022, branco", date(2027, 3, 1), "(66) 3595-1234",
        "http://localhost:8501/?v=matupa.0123456789abcdef01234567.abcdefabcdefabcdef")), runs)
    certificate = p50_ms(lambda: render_certificate(CertificatePrint(
        "Matupá", "Secretaria Municipal de Administração", "Av. Hermínio Ometto, 101", "Lei Municipal 1.552/2025",
        "Lei Municipal 1.552/2025, art. 9º", "0042/2026", "2026/000123", date(2026, 3, 1), date(2027, 3, 1),
        "João da Silva Araújo", "529.982.247-25", "01234567890 · categoria B", "QBC-1D23", "Fiat Argo 2022, branco",
        "01234567890", "Próprio", "http://localhost:8501/?v=matupa.0123456789abcdef01234567.abcdefabcdefabcdef")), runs)
    start = time.perf_counter()
    data = printing.pdf_batch(db, ACTOR, "matupa", ids)
    batch = time.perf_counter() - start
    print(f"pix on the DAM: {'yes' if one['pix_payload'] else 'no'}; runs per figure: {runs}")
    print(f"bare fpdf2 floor (barcode + QR):  {floor:7.1f} ms")
    print(f"DAM PDF through the service, p50: {dam:7.1f} ms  ({dam / floor:.1f}× floor; target ≤ 25 ms, ≤ 3×; "
          "a reprint returns the bytes issued: bench/dam_authenticity.py times the drawing)")
    print(f"sticker PDF, p50:                 {sticker:7.1f} ms  ({sticker / floor:.1f}× floor)")
    print(f"certificate PDF, p50:             {certificate:7.1f} ms  ({certificate / floor:.1f}× floor)")
    print(f"{BATCH} DAMs in one PDF:              {batch:7.2f} s   ({len(data) / 1e6:.1f} MB; target ≤ 10 s)")


if __name__ == "__main__":
    main()
