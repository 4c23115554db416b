"""Issue 36 item 5, the clerk's Início: domicile messages whose e-mail alert keeps failing, and notices
unopened whose tacit receipt is at most N days ahead — each row naming the case it notifies."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from services.ridehailing.enforcement import electronic
from services.shared import clock, domicile, domicile_alerts, domicile_watch, mail
from tests.browser_support import free_port
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_page_home import ROOT

CG = ACTORS["chapada"]
AUTO_ON = date(2026, 3, 2)


@pytest.fixture
def at(monkeypatch, today):
    def move(day: date, hour: int = 10, minute: int = 0) -> None:
        moment = datetime.combine(day, time(hour, minute), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def notified_auto(db, at, seed: int, delivered: date) -> tuple[str, dict]:
    cpf, _ = driver(db, "chapada", seed=seed)
    at(AUTO_ON)
    auto_id = lavrado(db, type("T", (), {"value": date(1900, 1, 1), "set": lambda self, d: None})(), "chapada",
                      "CG-29-I", AUTO_ON, cpf)
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, f"c{seed}@exemplo.com")
    at(delivered)
    return auto_id, electronic.notify_by_domicile(db, CG, "chapada", auto_id)


def test_unopened_notices_near_their_tacit_day_are_listed_with_their_case(db, at):
    near_id, near = notified_auto(db, at, 41, AUTO_ON + timedelta(days=1))  # tacit on 18/03
    far_id, _far = notified_auto(db, at, 42, AUTO_ON + timedelta(days=6))  # tacit on 23/03
    on = near["tacit_on"] - timedelta(days=domicile_watch.NEAR_TACIT_DAYS)
    found = domicile_watch.watch(db, CG, "chapada", on)
    assert found.near_tacit_total == 1 and [r.record for r in found.near_tacit] == [("autos", near_id)]
    assert found.near_tacit[0].tacit_on == near["tacit_on"] and found.near_tacit[0].title.startswith("Notificação do Auto")
    assert domicile_watch.watch(db, CG, "chapada", on - timedelta(days=1)).near_tacit_total == 0
    assert domicile_watch.watch(db, CG, "chapada", on, days=8).near_tacit_total == 2
    # opened: no longer waiting
    message = db["domicile_messages"].find_one({"ref.id": near_id})
    db["domicile_messages"].update_one({"_id": message["_id"]}, {"$set": {"opened_at": clock.now_utc()}})
    assert domicile_watch.watch(db, CG, "chapada", on).near_tacit_total == 0
    assert far_id


def test_an_alert_failing_three_times_is_bouncing(db, at, monkeypatch):
    monkeypatch.setenv("PAINEL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAINEL_SMTP_PORT", str(free_port()))  # nothing listens: refused
    monkeypatch.setenv("PAINEL_SMTP_STARTTLS", "0")
    auto_id, _ = notified_auto(db, at, 43, AUTO_ON + timedelta(days=1))
    day = AUTO_ON + timedelta(days=1)
    for minute in (0, 1, 3):  # tries at 10:00, 10:01 and 10:03 (1, 2 minutes apart)
        assert domicile_watch.watch(db, CG, "chapada", day).bouncing_total == 0
        at(day, 10, minute)
        mail.send_pending(db)
    found = domicile_watch.watch(db, CG, "chapada", day)
    assert found.bouncing_total == 1 and found.bouncing[0].record == ("autos", auto_id)
    assert found.bouncing[0].alert.startswith(f"alerta por e-mail: falhou ({domicile_alerts.BOUNCING_ATTEMPTS} "
                                              "tentativas), nova tentativa em")
    assert domicile_watch.watch(db, ACTORS["matupa"], "matupa", day).bouncing_total == 0


def test_the_home_lists_them(db, at):
    _auto_id, near = notified_auto(db, at, 44, AUTO_ON + timedelta(days=1))
    at(near["tacit_on"] - timedelta(days=1))
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.session_state["actor"], app.session_state["municipality"] = CG, "chapada"
    app.run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Sem abrir, ciência tácita em até 3 dias"] == "1"
    assert metrics["Alertas por e-mail falhando"] == "0"
    table = next(d.value for d in app.dataframe if "Ciência tácita" in d.value.columns)
    assert table["Ciência tácita"].iloc[0] == near["tacit_on"].strftime("%d/%m/%Y")
    assert table["Mensagem"].iloc[0].startswith("Notificação do Auto de Infração nº")


def test_the_watch_reads_each_list_from_its_index(db):
    """The Início stays flat whatever the store's size: the unopened notices by municipality and tacit day,
    the bouncing alerts by purpose, municipality, state and tries."""
    domicile.prepare(db)
    near = {"municipality": "chapada", "tacit_on": {"$gte": "2026-03-15", "$lte": "2026-03-18"}, "opened_at": None,
            "category": {"$in": ["auto_notificacao", "auto_decisao"]}}
    plan = " | ".join(db[domicile.MESSAGES].explain_sql(near, [("tacit_on", 1)], 10))
    assert "i_domicile_tacit" in plan and "TEMP B-TREE" not in plan, plan
    bouncing = {"purpose": domicile_alerts.PURPOSE, "municipality": "chapada",
                "status": {"$in": [mail.PENDING, mail.SENDING]}, "attempts": {"$gte": domicile_alerts.BOUNCING_ATTEMPTS}}
    plan = " | ".join(db[mail.OUTBOX].explain_sql(bouncing))
    assert "i_outbox_purpose" in plan, plan
