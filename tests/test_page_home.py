"""Início (issue 22): the clerk's inbox of what is late and due this week, and the gabinete's headline
figures of each municipality with the way to its Resumo (AppTest through app.py)."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.ridehailing import authorizations, work_queue
from services.shared import clock
from tests.conftest import GABINETE, SECRETARIA_CG
from tests.ridehailing_data import ACTORS, requested

ROOT = Path(__file__).resolve().parent.parent


def app_as(actor, municipality: str = "chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = actor, municipality
    return at.run()


def test_the_clerk_opens_on_what_is_late_and_due_this_week(db):
    auth = requested(db, "chapada", clock.today() - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, clock.today() - timedelta(days=15))
    queue = work_queue.pendencias(db, SECRETARIA_CG, "chapada", clock.today())
    late = [p for p in queue if p.late]
    assert late, "the fixture must leave a late item"
    at = app_as(SECRETARIA_CG)
    assert not at.exception and not at.error, [e.value for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Atrasadas"] == str(len(late))
    inbox = next(d.value for d in at.dataframe if "O que fazer" in d.value.columns)
    assert inbox["Tipo"].iloc[0] == late[0].kind and inbox["Prazo"].iloc[0].startswith("Atrasada desde")
    assert "Débitos vencidos" in metrics
    untimed = [p for p in queue if not p.late and p.due <= clock.today()]
    assert metrics["Para hoje (ou já em aberto)"] == str(len(untimed))


def test_the_gabinete_sees_each_municipalitys_figures_and_opens_its_resumo(db):
    at = app_as(GABINETE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    buttons = [b for b in at.button if b.label.startswith("Abrir o Resumo de")]
    assert [b.label for b in buttons] == ["Abrir o Resumo de Chapada dos Guimarães", "Abrir o Resumo de Matupá",
                                          "Abrir o Resumo de Nova Lacerda"]
    assert "Arrecadado (DAM pagos)" in [m.label for m in at.metric]
    buttons[1].click().run()
    assert not at.exception and at.session_state["municipality"] == "matupa"
    assert [t.value for t in at.title][-1] == "Resumo"


def test_a_decision_with_no_legal_term_reads_open_since_its_date(db, today):
    """An auto whose defence is in (to decide, never "late": the acts set no term) is shown as open
    since the defence, not as a past date that looks like a deadline still to come."""
    from datetime import date

    from services.ridehailing.enforcement import process
    from tests.enforcement_support import driver, lavrado, notified

    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    notified(db, today, "chapada", auto_id, date(2026, 3, 2))
    today.set(date(2026, 3, 10))
    process.file_defence(db, ACTORS["chapada"], "chapada", auto_id, filed_on=date(2026, 3, 10), by="Condutor",
                         summary="Não estava no local")
    today.set(date(2026, 3, 13))
    at = app_as(SECRETARIA_CG)
    assert not at.exception
    inbox = next(d.value for d in at.dataframe if "O que fazer" in d.value.columns)
    row = inbox[inbox["Tipo"] == "Decidir auto"].iloc[0]
    assert row["Prazo"] == "Em aberto desde 10/03/2026"
    assert {m.label: m.value for m in at.metric}["Para hoje (ou já em aberto)"] == "1"
