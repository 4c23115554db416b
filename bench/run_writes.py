"""The write figures: each write a clerk makes, through its service, timed p50/p99 over ``runs`` and
the first one after a start (a fresh interpreter that opens the store and writes once).

The writes: a DAM issued, an authorization event (a vistoria called), an auto de infração drawn up,
a machinery request created (Nova Lacerda, with its art. 8 §4 delinquency check), a payment recorded
by hand and a 1.000-line bank return file imported. They are written as :data:`WRITER` into the
run's copy of the dataset (``bench/run.py`` measures on a copy), each on a record of its own.

``python -m bench.run_writes KIND DATA_DIR`` is the fresh interpreter: it prints the milliseconds of
one write of KIND.
"""
from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import dataset_plan  # noqa: E402
from bench.run_measure import COUNTER, MUNICIPALITY, attempt, ms, p50, p99  # noqa: E402
from services.shared.auth import Actor  # noqa: E402

NL = "nova_lacerda"
WRITER = Actor("bench.escrita", "Escrita do benchmark", "secretaria", (MUNICIPALITY, "matupa", NL))
RETURN_LINES = 1000
INFRACTION = {"chapada": "CG-18-II", "matupa": "MP-12-I"}  # a driver's infraction of each municipal act
SERVICES = ("services.dam.dams", "services.dam.payments", "services.dam.bank_import", "rules.dam.bank_return",
            "services.ridehailing.inspections", "services.ridehailing.enforcement.lavratura",
            "services.machinery.protocol", "seed.bookings")
NAMES = {"dam": "Emissão de DAM", "event": "Evento de autorização", "auto": "Auto de infração lavrado",
         "booking": "Solicitação de máquinas criada", "payment": "Baixa de pagamento",
         "return_file": f"Arquivo de retorno ({RETURN_LINES:,} linhas)".replace(",", ".")}


def free_requesters(db: Any) -> list[str]:
    """Nova Lacerda's requesters whose new requests are not suspended (art. 8 §4: no overdue DAM)."""
    from services.machinery import protocol

    return [str(d["_id"]) for d in db["machinery_requesters"].find({"municipality": NL}, {"_id": 1, "document": 1})
            if not protocol.requester_block(db, WRITER, NL, d["document"], dataset_plan.TODAY)]


class Writes:
    """The next record each write acts on, read once from the dataset; each call is one real write."""

    def __init__(self, db: Any, municipality: str = MUNICIPALITY, return_lines: int = RETURN_LINES) -> None:
        from services.dam import dams

        self.db, self.mun, self.return_lines = db, municipality, return_lines
        mun = {"municipality": municipality}
        self.active = iter([str(d["_id"]) for d in db["authorizations"].find({**mun, "status": "active"}, {"_id": 1})])
        self.cpfs = iter([d["driver_cpf"] for d in db["authorizations"].find({**mun, "status": "active"},
                                                                             {"driver_cpf": 1})][::-1])
        self.issued = [d for d in db["dams"].find({**mun, "status": dams.ISSUED}, {"_id": 1, "barcode": 1, "amount": 1})]
        self.requesters = free_requesters(db)
        self.count = 0

    def dam(self) -> Any:
        from services.dam import dams

        return dams.issue(self.db, WRITER, self.mun, taxpayer_name="Contribuinte do Benchmark",
                          taxpayer_document="52998224725", taxpayer_address="Rua do Teste, 1",
                          revenue_kind="taxa_vistoria", description="Taxa de vistoria (benchmark)",
                          legal_basis="Decreto Municipal 06/2026", amount=Decimal("95.50"),
                          due=dataset_plan.TODAY + timedelta(days=10))

    def event(self) -> Any:
        from services.ridehailing import authorization_records, inspections

        for auth_id in self.active:
            try:
                return inspections.call_inspection(self.db, WRITER, self.mun, auth_id, dataset_plan.TODAY,
                                                   "Convocação do benchmark")
            except authorization_records.WrongStep:
                continue
        raise RuntimeError("nenhuma autorização ativa que aceite a convocação")

    def auto(self) -> Any:
        from services.ridehailing.enforcement import lavratura
        from services.ridehailing.enforcement.auto_input import AutoInput

        self.count += 1
        return lavratura.lavrar(self.db, WRITER, self.mun, AutoInput(
            target_kind="driver", driver_cpf=next(self.cpfs), infraction_code=INFRACTION[self.mun],
            facts="Constatado em fiscalização (benchmark)", committed_on=dataset_plan.TODAY,
            auto_on=dataset_plan.TODAY, time=f"{8 + self.count % 10:02d}:15", place="Praça Dom Wunibaldo",
            agent_registration="AF-0040", agent_name="Agente Fiscal (benchmark)"))

    def booking(self) -> Any:
        from seed.bookings import request_form
        from services.machinery import protocol
        from services.machinery.protocol import ServiceAsked

        if not self.requesters:
            raise RuntimeError("nenhum solicitante de Nova Lacerda sem débito vencido")
        self.count += 1
        requester = self.requesters[self.count % len(self.requesters)]
        return protocol.create_request(self.db, WRITER, NL, request_form(
            requester, dataset_plan.TODAY, ServiceAsked("machine_hours", item="02", hours=Decimal(3))))

    def payment(self) -> Any:
        from services.dam import payments

        dam = self.issued.pop()
        return payments.record_payment(self.db, WRITER, self.mun, str(dam["_id"]), dataset_plan.TODAY,
                                       dam["amount"].to_decimal(), "Banco do Brasil")

    def dam_paid(self) -> Any:
        """A DAM issued and paid at the counter: what moves the charges, the Débitos and the Resumo."""
        from services.dam import payments

        issued = self.dam()
        return payments.record_payment(self.db, WRITER, self.mun, issued["id"], dataset_plan.TODAY,
                                       issued["amount"], "Banco do Brasil")

    def return_file_data(self) -> bytes:
        """A bank's return file paying 1.000 open DAMs (those the dataset lacks issued first, untimed)."""
        from rules.dam.bank_return import ReturnPayment, build_return_file
        from services import store

        while len(self.issued) < self.return_lines:
            issued = self.dam()
            self.issued.append({"_id": issued["id"], "barcode": issued["barcode"],
                                "amount": store.encode(issued["amount"])})
        chosen, self.issued = self.issued[:self.return_lines], self.issued[self.return_lines:]
        self.count += 1
        lines = [ReturnPayment(d["barcode"], dataset_plan.TODAY, d["amount"].to_decimal()) for d in chosen]
        return build_return_file(lines, generated_on=dataset_plan.TODAY, file_sequence=900 + self.count,
                                 company_name="PREFEITURA").encode("latin-1")

    def return_file(self, data: bytes) -> Any:
        from services.dam import bank_import

        return bank_import.import_return_file(self.db, WRITER, self.mun, data)

    def setup_of(self, kind: str) -> Callable[[], tuple]:
        """What a write needs made before its clock starts (the return file's bytes), as arguments."""
        return (lambda: (self.return_file_data(),)) if kind == "return_file" else tuple


def timed_runs(action: Callable[..., Any], runs: int, setup: Callable[[], tuple] = tuple) -> dict:
    figures, calls = [], 0
    for _ in range(runs):
        arguments = setup()
        COUNTER.calls = 0
        start = time.perf_counter()
        action(*arguments)
        figures.append(ms(time.perf_counter() - start))
        calls = COUNTER.calls
    return {"p50": p50(figures), "p99": p99(figures), "calls": calls}


def first_after_start(kind: str, data_dir: str) -> float:
    """Milliseconds of the first write of ``kind`` in a fresh interpreter on ``data_dir``."""
    out = subprocess.run([sys.executable, "-m", "bench.run_writes", kind, data_dir], cwd=ROOT, check=True,
                         capture_output=True, text=True, env={**os.environ, "PAINEL_DATA_DIR": data_dir})
    return float(json.loads(out.stdout.strip().splitlines()[-1])["ms"])


def writes(db: Any, runs: int, data_dir: str | None = None, return_lines: int = RETURN_LINES) -> dict[str, Any]:
    """Per write: p50, p99 and store calls over ``runs``, then the first after a start (when
    ``data_dir`` is given). The return file is imported ``min(runs, 3)`` times: a thousand DAMs each."""
    source = Writes(db, return_lines=return_lines)
    gc.freeze()  # the benchmark's lists of open DAMs, not the panel's: a full collection does not walk them
    result: dict[str, Any] = {}
    for kind, name in NAMES.items():
        count = min(runs, 3) if kind == "return_file" else runs
        if kind == "return_file" and return_lines != RETURN_LINES:
            name = f"Arquivo de retorno ({return_lines} linhas)"
        figure = attempt(kind, lambda: timed_runs(getattr(source, kind), count, source.setup_of(kind)))
        if kind == "return_file" and isinstance(figure, dict):
            figure["lines"] = return_lines  # a batch: its targets are per line (``run_report.targets``)
        if isinstance(figure, dict) and data_dir:
            figure["first"] = attempt(kind, lambda: first_after_start(kind, data_dir))
        result[name] = figure
    return result


def main(kind: str, data_dir: str) -> None:
    from bench.dataset_plan import TODAY
    from services import store
    from services.shared import clock

    clock.today = lambda: TODAY
    for module in SERVICES:  # imported at start-up by the pages that write: not the first write's cost
        importlib.import_module(module)
    db = store.connect(data_dir=data_dir)
    source = Writes(db)
    source.count = 50  # numbers of its own (the return file's sequence), after the measured runs'
    arguments = source.setup_of(kind)()
    start = time.perf_counter()
    getattr(source, kind)(*arguments)
    print(json.dumps({"ms": ms(time.perf_counter() - start)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
