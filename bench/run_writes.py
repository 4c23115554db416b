"""The write figures: a DAM issued, an authorization event and an audit entry, each timed.

Written as :data:`WRITER`, a user of its own, so that everything the figures wrote can be taken out
after (the DAMs and audit entries it made, the authorizations it changed, the counters it moved):
the dataset stays as generated for the next run.
"""
from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal
from typing import Any

from bench import dataset_plan
from bench.run_measure import MUNICIPALITY, attempt, ms, p50, timed
from services.dam import dams
from services.ridehailing import authorization_records, inspections
from services.shared import audit
from services.shared.auth import Actor

WRITER = Actor("bench.escrita", "Escrita do benchmark", "secretaria", (MUNICIPALITY,))


def issue_dam(db: Any) -> dict:
    """A DAM of the benchmark's writer, as a clerk issues one by hand."""
    return dams.issue(db, WRITER, MUNICIPALITY, taxpayer_name="Contribuinte do Benchmark",
                      taxpayer_document="52998224725", taxpayer_address="Rua do Teste, 1",
                      revenue_kind="taxa_vistoria", description="Taxa de vistoria (benchmark)",
                      legal_basis="Decreto Municipal 06/2026", amount=Decimal("95.50"),
                      due=dataset_plan.TODAY + timedelta(days=10))


def writes(db: Any, runs: int) -> dict[str, Any]:
    """p50 ms of DAM issue, an authorization event and an audit entry; the store is put back after."""
    counters = {d["_id"]: d["seq"] for d in db["counters"].find({"_id": {"$regex": f"^{MUNICIPALITY}/"}})}
    result: dict[str, Any] = {}
    originals: list[dict] = []
    try:
        result["Emissão de DAM (dams.issue)"] = attempt("issue", lambda: p50(timed(lambda: issue_dam(db), runs)[0]))

        def event_figure() -> float:
            active = [d for d in db["authorizations"].find({"municipality": MUNICIPALITY, "status": "active"})]
            figures = []
            for doc in active:
                if len(figures) == runs:
                    break
                try:
                    start = time.perf_counter()
                    inspections.call_inspection(db, WRITER, MUNICIPALITY, str(doc["_id"]), dataset_plan.TODAY,
                                                "Convocação do benchmark")
                    figures.append(ms(time.perf_counter() - start))
                    originals.append(doc)
                except authorization_records.WrongStep:
                    continue
            if not figures:
                raise RuntimeError("nenhuma autorização ativa")
            return p50(figures)
        result["Evento de autorização (call_inspection)"] = attempt("event", event_figure)

        def entry() -> None:
            audit.record(db, WRITER, MUNICIPALITY, "bench", "bench", None, {}, {"n": 1}, "benchmark")
        result["Registro de auditoria (audit.record)"] = attempt("audit", lambda: p50(timed(entry, runs)[0]))
    finally:
        for doc in originals:
            db["authorizations"].replace_one({"_id": doc["_id"]}, doc)
        db["dams"].delete_many({"created_by": WRITER.username})
        db["audit"].delete_many({"username": WRITER.username})
        for key, seq in counters.items():
            db["counters"].update_one({"_id": key}, {"$set": {"seq": seq}})
    return result
