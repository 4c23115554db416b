"""DAM integrity (issue 10): the paid-event outbox survives a failing handler and a crash, only
who may write marks a DAM paid, and the CSV export never carries a formula."""
from __future__ import annotations

import csv
import io
import logging
from decimal import Decimal

import pytest

from rules.dam.bank_return import ReturnPayment, build_return_file
from services.dam import bank_import, bank_report, dams, lists, outbox, payments
from services.setup import bootstrap
from services.shared import events
from services.shared.errors import PermissionDenied
from tests import figures
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP
from tests.dams_support import MONDAY, last_paid_dam
from tests.test_dams import issue

PAYS = {"collection": "test_records", "id": "r1", "label": "Autorização 0007/2026"}


def pay(db, dam, actor=SECRETARIA_MP):
    return payments.record_payment(db, actor, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")


class FlakyHandler:
    """A handler of 'test_records' that fails the first ``failures`` times, then records the DAM."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.done: list[str] = []

    def __call__(self, db, charge_id: str) -> None:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("registro vinculado indisponível")
        self.done.append(last_paid_dam(db, charge_id))


@pytest.fixture
def handler(monkeypatch):
    flaky = FlakyHandler(failures=1)
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records", [flaky])
    return flaky


def stored(db, dam):
    return dams.get(db, SECRETARIA_MP, "matupa", dam["id"])


def pay_entries(db, dam):
    return db["audit"].count_documents({"collection": "dams", "doc_id": dam["id"], "action": "pay"})


def test_a_failing_handler_leaves_the_dam_paid_with_its_update_pending_and_start_resumes_it(db, today, handler):
    dam = issue(db, pays=PAYS)
    paid = pay(db, dam)
    assert paid["status"] == dams.PAID and paid["handlers_pending"] is True
    assert handler.done == [] and pay_entries(db, dam) == 1
    assert "ficou pendente e será refeita automaticamente" in payments.pending_message(paid)
    assert outbox.resume_pending(db) == 1
    after = stored(db, dam)
    assert handler.done == [dam["number"]]
    assert "handlers_pending" not in after and after["handlers_done_at"] is not None
    assert outbox.resume_pending(db) == 0 and handler.done == [dam["number"]]


def test_importing_the_return_file_again_completes_a_pending_follow_up(db, today, monkeypatch):
    """Issue 19, defect 6: the second import of the same file was answered from its first report and the
    record stayed waiting until the panel restarted; importing again is a retry, as the DAM page's is."""
    handler = FlakyHandler(failures=2)  # fails on the payment and on the import's own retry at its end
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records", [handler])
    dam = issue(db, pays=PAYS)
    today.set(MONDAY)
    content = build_return_file([ReturnPayment(dam["barcode"], MONDAY, dam["amount"])], generated_on=MONDAY,
                                file_sequence=1).encode("latin-1")
    first = bank_import.import_return_file(db, SECRETARIA_MP, "matupa", content)
    assert [line.outcome for line in first.lines] == [bank_report.PAID]
    assert handler.done == [] and stored(db, dam)["handlers_pending"] is True
    again = bank_import.import_return_file(db, SECRETARIA_MP, "matupa", content)
    assert again.already_imported and handler.done == [dam["number"]]
    assert "handlers_pending" not in stored(db, dam)


def test_a_retry_of_the_payment_runs_the_pending_update_instead_of_answering_already_paid(db, today, handler):
    dam = issue(db, pays=PAYS)
    pay(db, dam)
    again = pay(db, dam)
    assert handler.done == [dam["number"]] and "handlers_pending" not in again
    assert pay_entries(db, dam) == 1 and again["payment"]["bank"] == "Caixa"
    with pytest.raises(payments.DamNotPayable, match="já está pago"):
        pay(db, dam)


def test_a_crash_between_paid_and_its_handlers_is_resumed_at_start(db, today, monkeypatch, handler):
    handler.failures = 0
    dam = issue(db, pays=PAYS)

    def crash(db, dam_id):
        raise SystemExit("processo interrompido")

    with monkeypatch.context() as patch:
        patch.setattr(outbox, "dam_paid", crash)
        with pytest.raises(SystemExit):
            pay(db, dam)
    assert stored(db, dam)["status"] == dams.PAID and stored(db, dam)["handlers_pending"] is True
    bootstrap.prepare(db)
    assert handler.done == [dam["number"]] and "handlers_pending" not in stored(db, dam)


def test_the_page_retry_runs_the_pending_update_for_who_may_write_only(db, today, handler):
    dam = issue(db, pays=PAYS)
    pay(db, dam)
    with pytest.raises(PermissionDenied):
        payments.retry_linked_update(db, GABINETE, "matupa", dam["id"])
    with pytest.raises(PermissionDenied):
        payments.retry_linked_update(db, SECRETARIA_CG, "matupa", dam["id"])
    assert handler.done == []
    assert "handlers_pending" not in payments.retry_linked_update(db, SECRETARIA_MP, "matupa", dam["id"])
    assert handler.done == [dam["number"]]


def test_a_dam_paying_nothing_leaves_nothing_pending(db, today):
    dam = issue(db)
    assert "handlers_pending" not in pay(db, dam)


def test_gabinete_cannot_mark_a_dam_paid_through_any_public_function(db, today):
    dam = issue(db)
    assert not hasattr(payments, "apply_payment")
    with pytest.raises(PermissionDenied):
        pay(db, dam, GABINETE)
    with pytest.raises(PermissionDenied):
        payments.retry_linked_update(db, GABINETE, "matupa", dam["id"])
    assert stored(db, dam)["status"] == dams.ISSUED


def test_the_paid_event_reads_the_dam_from_the_store_and_ignores_an_unpaid_one(db, today, handler):
    handler.failures = 0
    dam = issue(db, pays=PAYS)
    assert outbox.dam_paid(db, dam["id"]) is False
    assert handler.done == []


def test_a_paid_dam_whose_collection_has_no_handler_stays_pending_until_one_is_registered(db, today, monkeypatch,
                                                                                        caplog):
    """A missing registration (the record's module not imported) never loses the follow-up: the mark stays."""
    monkeypatch.delitem(events._PAID_HANDLERS, "test_records", raising=False)
    dam = issue(db, pays=PAYS)
    with caplog.at_level(logging.WARNING, logger=outbox.__name__):
        paid = pay(db, dam)
    assert paid["status"] == dams.PAID and paid["handlers_pending"] is True
    assert "test_records" in caplog.text
    assert outbox.dam_paid(db, dam["id"]) is False and stored(db, dam)["handlers_pending"] is True
    registered = FlakyHandler(failures=0)
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records", [registered])
    assert outbox.resume_pending(db) == 1
    assert registered.done == [dam["number"]] and "handlers_pending" not in stored(db, dam)


@pytest.mark.parametrize("name, description", [
    pytest.param("=HYPERLINK(\"http://x\")", "=1+1", id="equals"),
    pytest.param("+55 Maria", "-1+1", id="plus and minus"),
    pytest.param("@SUM(A1)", "@Taxa", id="at"),
])
def test_the_csv_export_never_exports_a_formula(db, today, name, description):
    issue(db, taxpayer_name=name, description=description)
    data = lists.export_csv(db, SECRETARIA_MP, "matupa", lists.DamQuery()).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(data), delimiter=";"))
    assert rows[1][1] == "'" + name and rows[1][4] == "'" + description
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)


def test_number_document_and_audit_entry_of_each_dam_write_share_one_transaction(db, today, monkeypatch):
    from contextlib import contextmanager

    from services import store
    from services.shared import audit

    depth = [0]
    outside: list[str] = []

    @contextmanager
    def transaction(db):
        depth[0] += 1
        try:
            yield db
        finally:
            depth[0] -= 1

    def watched(name, function):
        def call(*args, **kwargs):
            if depth[0] == 0:
                outside.append(name)
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(store, "transaction", transaction)
    monkeypatch.setattr(audit, "record", watched("audit", audit.record))
    monkeypatch.setattr(dams, "next_number", watched("number", dams.next_number))
    monkeypatch.setattr(dams, "insert_one", watched("insert", dams.insert_one))
    monkeypatch.setattr(dams, "_transition", watched("update", dams._transition))
    paid, cancelled = issue(db), issue(db)
    pay(db, paid)
    dams.cancel(db, SECRETARIA_MP, "matupa", cancelled["id"], "Emitido em duplicidade")
    assert outside == []


def test_eight_clerks_paying_one_dam_at_once_record_one_payment_and_tell_the_record_once(db, today, monkeypatch):
    import threading

    handler = FlakyHandler(0)
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records", [handler])
    today.set(MONDAY)
    dam = issue(db, pays=PAYS)
    start, outcomes = threading.Barrier(8), []

    def run() -> None:
        start.wait()
        try:
            outcomes.append(pay(db, dam)["status"])
        except payments.DamNotPayable as refused:
            outcomes.append(refused)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # One payment is recorded; each other clerk is refused, or, while the first one's linked update is
    # still running, answered with the DAM already paid (a retry of that update, not a second payment).
    assert len(outcomes) == 8 and all(o == dams.PAID or isinstance(o, payments.DamNotPayable) for o in outcomes)
    assert db["audit"].count_documents({"action": "pay", "doc_id": dam["id"]}) == 1
    assert len(db["dams"].find_one({"number": dam["number"]})["history"]) == 2  # issued, paid
    assert handler.done == [dam["number"]]  # the linked record told once
    figures.concurrency("pagamentos de um DAM", 8, 7)
