"""Benchmark: the 500-DAM batch with and without the authentication code and its record (issue 37).

"Without" is the batch as it was before the codes: the DAMs read with one ``$in`` query per chunk and
drawn by ``render_dams`` with no stamp. "With" is ``printing.pdf_batch``: a code reserved per DAM, the
stamp (QR + text) drawn on each page, the bytes hashed (SHA-256) and kept in the store's files, one
record per DAM in ``issued_documents``. A first print issues 500 codes; a reprint of the same batch finds
them (one query) and records the new file on each. Also a single DAM: drawn without a code, issued for
the first time, and reprinted (the kept bytes). Target: with ≤ 1,5× without. A figure, not a pass/fail.

    .venv/bin/python bench/dam_authenticity.py [RUNS]
"""
from __future__ import annotations

import statistics
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import dam_pdf  # noqa: E402  (sets PAINEL_DATA_DIR to a temporary folder before the store is opened)

from rules.dam import parameters as dam_parameters  # noqa: E402
from rules.params import ParameterVersion  # noqa: E402
from seed.municipalities import seed_demo_parameters  # noqa: E402
from services import store  # noqa: E402
from services.dam import printing  # noqa: E402
from services.dam.slip_pdf import render_dams  # noqa: E402
from services.setup import bootstrap  # noqa: E402
from services.shared import authenticity, municipalities  # noqa: E402

ACTOR, BATCH = dam_pdf.ACTOR, dam_pdf.BATCH


def without_code(db, ids: list[str]) -> bytes:
    """The batch as printed before issue 37: read, drawn, no stamp and no record."""
    chosen = printing._load_many(db, "matupa", ids)
    place = municipalities.get(db, "matupa")
    head = municipalities.letterhead(db, "matupa", with_phone=True)
    return render_dams([printing.printable(d, place, head) for d in chosen])


def seconds(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    db = store.connect()
    bootstrap.prepare(db)
    seed_demo_parameters(db)
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "pix@matupa.invalid"),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, "bench"))
    ids = dam_pdf.issued_dams(db)
    without_code(db, ids[:1])  # warm-up: the fonts are built once per process
    plain = statistics.median(seconds(lambda: without_code(db, ids)) for _ in range(runs))
    first = seconds(lambda: printing.pdf_batch(db, ACTOR, "matupa", ids))  # 500 codes issued
    again = statistics.median(seconds(lambda: printing.pdf_batch(db, ACTOR, "matupa", ids)) for _ in range(runs))
    records = db[authenticity.COLLECTION].count_documents({"kind": "dam"})
    one_plain = dam_pdf.p50_ms(lambda: without_code(db, ids[:1]), 10 * runs)
    one_first = seconds(lambda: printing.pdf_batch(db, ACTOR, "matupa", [ids[1]])) * 1000  # issued in the batch
    one_again = dam_pdf.p50_ms(lambda: printing.pdf_batch(db, ACTOR, "matupa", [ids[1]]), 10 * runs)
    print(f"{BATCH} DAMs in one PDF, runs per figure: {runs}; {records} DAM records written")
    print(f"  without code (as before):         {plain:6.2f} s")
    print(f"  with code, first print (issued):  {first:6.2f} s   ({first / plain:.2f}× without; target ≤ 1,5×)")
    print(f"  with code, reprint (codes kept):  {again:6.2f} s   ({again / plain:.2f}× without)")
    print("one DAM:")
    print(f"  without code, p50:                {one_plain:6.1f} ms")
    print(f"  with code, first single print:    {one_first:6.1f} ms   ({one_first / one_plain:.2f}× without)")
    print(f"  with code, reprint (kept bytes):  {one_again:6.1f} ms   ({one_again / one_plain:.2f}× without)")


if __name__ == "__main__":
    main()
