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
