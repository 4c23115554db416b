"""Issue 36 item 5, the Resumo: the autos' notices of the period counted by channel (pessoal, postal com AR,
eletrônico, edital), read from their notification records, and the share that went electronically — the
secretariat's workload, never hidden by the small-cell rule, in the tables the XLSX and CSV export."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from services.ridehailing.enforcement import decision_notice, electronic, process
from services.shared import clock, domicile
from services.summary import report_tables, summary
from tests.conftest import GABINETE
from tests.enforcement_support import decided, driver, lavrado
from tests.ridehailing_data import ACTORS

CG = ACTORS["chapada"]
AUTO_ON = date(2026, 3, 2)


@pytest.fixture
def at(monkeypatch, today):
    def move(day: date, hour: int = 10) -> None:
        moment = datetime.combine(day, time(hour), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def test_notices_of_the_period_by_channel_and_the_electronic_share(db, today, at):
    at(AUTO_ON)
    cpfs = [driver(db, "chapada", seed=50 + n)[0] for n in range(5)]
    ids = [lavrado(db, today, "chapada", "CG-29-I", AUTO_ON, cpf) for cpf in cpfs]
    sent = AUTO_ON + timedelta(days=1)
    at(sent)
    process.notify(db, CG, "chapada", ids[0], method="post", sent_on=sent)  # postal com AR
    process.notify(db, CG, "chapada", ids[1], method="direct", sent_on=sent, received_on=sent)  # pessoal
    process.notify(db, CG, "chapada", ids[2], method="official_gazette", sent_on=sent)  # edital
    domicile.open_domicile(db, CG, "chapada", "condutor", cpfs[3], "c@exemplo.com")
    electronic.notify_by_domicile(db, CG, "chapada", ids[3])  # eletrônico
    # a decision delivered to the domicile is a notice too, on its delivery day
    decided_id = lavrado(db, today, "chapada", "CG-29-I", AUTO_ON, cpfs[3])
    decided_on = decided(db, today, "chapada", decided_id, AUTO_ON)  # notified by post (AUTO_ON + 2)
    at(decided_on)
    decision_notice.notify_decision(db, CG, "chapada", decided_id)
    process.notify(db, CG, "chapada", ids[4], method="post", sent_on=decided_on)  # April
    figures = summary.summary(db, CG, "chapada", date(2026, 3, 1), decided_on)
    assert figures.fines.notices_by_channel == {"postal": 3, "pessoal": 1, "edital": 1, "eletronico": 2}
    assert str(figures.fines.electronic_share) == "28.6"
    rows = report_tables.tables(figures)["Notificações por canal"]
    assert [(r["Canal"], r["Notificações"], r["Parcela"]) for r in rows] == [
        ("Pessoal (notificação direta)", 1, "14,3%"), ("Postal com AR", 3, "42,9%"),
        ("Eletrônico (domicílio eletrônico)", 2, "28,6%"), ("Edital", 1, "14,3%"), ("Total", 7, "100,0%")]
    # the secretariat's workload: the gabinete reads the 1s whole
    seen = report_tables.tables(summary.summary(db, GABINETE, "chapada", date(2026, 3, 1), decided_on))
    assert seen["Notificações por canal"] == rows
    march = summary.summary(db, CG, "chapada", date(2026, 3, 1), date(2026, 3, 31)).fines
    assert sum(march.notices_by_channel.values()) == 5  # the decision's (April) and the April post left out


def test_no_notice_no_share(db, today):
    figures = summary.summary(db, CG, "chapada", date(2026, 3, 1), date(2026, 3, 31))
    assert figures.fines.electronic_share is None
    assert report_tables.tables(figures)["Notificações por canal"][-1] == {
        "Canal": "Total", "Notificações": 0, "Parcela": "—"}
