"""The document figures: the DAM PDF against its floor, a batch of DAMs, the mayor's office summary.

The floor is a bare fpdf2 page with the same barcode and QR as a DAM: what drawing them costs at
least, so the DAM's own cost shows as a ratio. The batch stops at ``budget`` seconds and says how far
it got. The summary's figures and its PDF are timed uncached (issue 14).
"""
from __future__ import annotations

import io
import time
from typing import Any

import segno
from fpdf import FPDF

from bench import dataset_plan
from bench.run_measure import MUNICIPALITY, NA, ROLE_ACTORS, attempt, ms, p50, timed
from services.dam import dams, printing
from services.summary import summary


def floor_pdf(barcode: str, payload: str | None) -> bytes:
    """A bare fpdf2 page with the same barcode and QR as a DAM: what drawing them costs at least."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=10)
    pdf.cell(0, 10, "DAM")
    pdf.interleaved2of5(barcode, x=15, y=40, w=0.762, h=13)
    if payload:
        png = io.BytesIO()
        segno.make(payload, error="m", micro=False).save(png, kind="png", scale=4, border=1)
        png.seek(0)
        pdf.image(png, x=150, y=60, w=40, h=40)
    return bytes(pdf.output())


def documents(db: Any, repeat: int, batch: int, budget: float) -> dict[str, Any]:
    actor = ROLE_ACTORS["write"]
    issued = [d for d in db["dams"].find({"municipality": MUNICIPALITY, "status": dams.PAID}, {"_id": 1}).limit(batch)]
    sample = db["dams"].find_one({"municipality": "matupa", "pix_payload": {"$ne": None}}) or {}
    result: dict[str, Any] = {}
    if not issued:
        return {"DAM PDF": f"{NA} (nenhum DAM)"}
    first = str(issued[0]["_id"])
    doc = db["dams"].find_one({"_id": issued[0]["_id"]})
    service = attempt("pdf", lambda: p50(timed(lambda: printing.pdf(db, actor, MUNICIPALITY, [first]), repeat)[0]))
    floor = attempt("floor", lambda: p50(timed(lambda: floor_pdf(doc["barcode"], sample.get("pix_payload")), repeat)[0]))
    result["DAM PDF (serviço)"] = service
    result["Piso fpdf2 (mesmo código e QR)"] = floor
    if isinstance(service, float) and isinstance(floor, float):
        result["DAM PDF / piso"] = service / floor

    class OverBudget(Exception):
        pass

    done = [0]
    start = time.perf_counter()

    def progress(current: int, total: int) -> None:
        done[0] = current
        if time.perf_counter() - start > budget:
            raise OverBudget

    try:
        printing.pdf(db, actor, MUNICIPALITY, [str(d["_id"]) for d in issued], progress)
        result[f"{len(issued)} DAMs em um PDF"] = ms(time.perf_counter() - start)
    except OverBudget:
        result[f"{len(issued)} DAMs em um PDF"] = (f"{NA} (passou de {budget:.0f} s com {done[0]} de "
                                                   f"{len(issued)} páginas prontas; --batch-budget)")
    except Exception as exc:  # noqa: BLE001
        result[f"{len(issued)} DAMs em um PDF"] = f"{NA} ({type(exc).__name__}: {exc})"[:140]
    return result


def summary_figures(db: Any, repeat: int) -> dict[str, Any]:
    """The mayor's office figures of the year to date, uncached (issue 14): the service and its PDF."""
    actor, start = ROLE_ACTORS["summary"], dataset_plan.TODAY.replace(month=1, day=1)
    return {
        "Resumo do ano (serviço, sem cache)": attempt("summary", lambda: p50(timed(
            lambda: summary.summary(db, actor, MUNICIPALITY, start, dataset_plan.TODAY), repeat)[0])),
        "Relatório gerencial PDF (serviço)": attempt("report", lambda: p50(timed(
            lambda: summary.report_pdf(db, actor, MUNICIPALITY, start, dataset_plan.TODAY), repeat)[0])),
    }
