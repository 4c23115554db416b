"""Issue 23 item 11: what a mayor acts on — the services month by month beside the same month of the
year before (authorizations active, autos by stage, bookings served and waiting), what waits for a
decision with its age, and every municipality the gabinete sees side by side (page and workbook)."""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

from pypdf import PdfReader

from services.store import encode, insert_one
from services.summary import autos_view, bookings_view, report_tables, summary
from tests.conftest import GABINETE
from tests.test_ridehailing_page_queries import CountingDatabase
from tests.test_summary import known, page, rendered_text  # noqa: F401  (known: the fixture)

D = date
FIRST_QUARTER = (D(2026, 1, 1), D(2026, 3, 31))
TODAY = D(2026, 4, 15)


def _auto(db, n: int, auto_on: date, defence: date | None = None, decided: date | None = None,
          appealed: date | None = None, status: str = "lavrado") -> None:
    new = insert_one(db["autos"], encode({
        "municipality": "chapada", "status": status,
        "stage": "rascunho" if status in ("rascunho", "descartado") else "notificado", "year": 2026, "sequence": n,
        "number": f"{n:04d}/2026",
        "committed_on": auto_on, "auto_on": auto_on, "severity": "grave", "driver_cpf": "52998224725",
        "defence": {"filed_on": defence} if defence else None,
        "decision": {"decided_on": decided, "outcome": "mantido"} if decided else None,
        "appeal": {"filed_on": appealed, "decision": None} if appealed else None}))
    autos_view.project(db, "chapada", "autos", str(new))  # written by hand: its figures follow it


def _autos(db) -> None:
    """Jan–Mar 2026; the stage on 31/01, 28/02 and 31/03 beside each."""
    _auto(db, 1, D(2026, 1, 10), defence=D(2026, 2, 5))  # notif., defesa, defesa — 69 days waiting on 15/04
    _auto(db, 2, D(2026, 1, 12), defence=D(2026, 2, 20), decided=D(2026, 3, 10))  # notif., defesa, closed
    _auto(db, 3, D(2026, 2, 3))  # —, notif., notif.
    _auto(db, 4, D(2026, 1, 5), decided=D(2026, 1, 25), appealed=D(2026, 2, 1))  # closed, recurso, recurso
    _auto(db, 5, D(2026, 3, 1), defence=D(2026, 3, 20))  # —, —, defesa — 26 days
    _auto(db, 6, D(2026, 3, 2), defence=D(2026, 4, 1))  # —, —, notif. — 14 days on 15/04
    _auto(db, 7, D(2026, 3, 5), status="rascunho")  # a draft counts nowhere
    _auto(db, 8, D(2026, 3, 6), status="descartado")  # nor a draft discarded (issue 23 item 2)


def _trends(figures) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    return {t.key: (t.values, t.year_before) for t in figures.trends}


def test_authorizations_and_autos_month_by_month_beside_the_year_before(known, today):  # noqa: F811
    today.set(TODAY)
    _autos(known)
    figures = summary.summary(known, GABINETE, "chapada", *FIRST_QUARTER)
    trends = _trends(figures)
    assert [t.months for t in figures.trends][0] == (D(2026, 1, 1), D(2026, 2, 1), D(2026, 3, 1))
    assert trends["active"] == ((2, 3, 3), (0, 0, 0))  # A4 and A5 from January; A1 from 10/02; then A2, A3
    assert trends["autos_lavrados"] == ((3, 1, 2), (0, 0, 0))
    assert trends["autos_decided"] == ((1, 0, 1), (0, 0, 0))
    assert trends["autos_notificacao"][0] == (2, 1, 2)
    assert trends["autos_defesa"][0] == (0, 2, 2)
    assert trends["autos_recurso"][0] == (0, 1, 1)
    rows = report_tables.tables(figures)["Tendências do transporte por mês"]
    assert [r["Mês"] for r in rows] == ["jan/2026", "fev/2026", "mar/2026"]
    # issue 35 item 8: the register and the secretariat's work are shown whole; the autos lavrados are
    # sanctions, hidden from the gabinete (a flow: its months add up to the period, so "X" beside the "< 3")
    assert [r["Autorizações ativas no fim do mês"] for r in rows] == [2, 3, 3]
    assert [r["Autos em notificação ou prazo de defesa no fim do mês"] for r in rows] == [2, 1, 2]
    assert [r["Autos lavrados no mês"] for r in rows] == ["X", "< 3", "< 3"]
    assert rows[0]["Autorizações ativas no fim do mês (ano anterior)"] == 0


def test_defences_and_appeals_waiting_for_a_decision_with_their_ages(known, today):  # noqa: F811
    today.set(TODAY)
    _autos(known)
    waiting = {w.key: w for w in summary.summary(known, GABINETE, "chapada", *FIRST_QUARTER).waiting}
    defences = waiting["defences"]
    assert (defences.label, defences.count, defences.oldest_days, defences.average_days) == (
        "Defesas aguardando decisão", 3, 69, Decimal("36.3"))  # 69, 26 and 14 days
    assert (waiting["appeals"].count, waiting["appeals"].oldest_days) == (1, 73)
    rows = {r["Aguardando"]: r for r in report_tables.tables(summary.summary(known, GABINETE, "chapada",
                                                                             *FIRST_QUARTER))["Aguardando decisão"]}
    assert rows["Defesas aguardando decisão"] == {"Aguardando": "Defesas aguardando decisão", "Quantidade": 3,
                                                  "Mais antigo (dias)": 69, "Média (dias)": "36,3"}
    # issue 35 item 8: one appeal waiting is the secretariat's work: its count and age are shown
    appeals = rows["Recursos aguardando decisão"]
    assert (appeals["Quantidade"], appeals["Mais antigo (dias)"]) == (1, 73)
    report = PdfReader(io.BytesIO(summary.report_pdf(known, GABINETE, "chapada", *FIRST_QUARTER)))
    assert len(report.pages) == 1
    assert ("Aguardando decisão em 15/04/2026: defesas aguardando decisão: 3 (o mais antigo há 69 dias); "
            "recursos aguardando decisão: 1 (o mais antigo há 73 dias).") in " ".join(report.pages[0].extract_text().split())


def _request(db, n: int, **doc) -> None:
    new = insert_one(db["booking_requests"], encode({"municipality": "nova_lacerda", "year": 2026, "sequence": n,
                                                      "protocol": f"{n:04d}/2026", "zone": "Zona 1", "services": [],
                                                      **doc}))
    bookings_view.project(db, "nova_lacerda", "booking_requests", str(new))  # written by hand: followed


def test_bookings_served_and_waiting_month_by_month_and_requests_waiting_for_a_step(db, today):
    today.set(TODAY)
    for n, requested in enumerate((D(2026, 3, 2), D(2026, 3, 20), D(2026, 4, 1)), start=1):
        _request(db, n, requested_on=requested, status="aguardando_vistoria")  # 44, 26 and 14 days
    _request(db, 4, requested_on=D(2026, 2, 1), status="aguardando_orcamento",
             technical_visit={"visited_on": D(2026, 2, 10)})  # 64 days since the visit
    _request(db, 5, requested_on=D(2026, 1, 5), status="concluido",
             execution={"started_on": D(2026, 2, 2), "ended_on": D(2026, 2, 3)})
    _request(db, 6, requested_on=D(2026, 1, 20), status="recusado", refusal={"on": D(2026, 2, 15)})
    _request(db, 7, requested_on=D(2025, 2, 10), status="concluido",
             execution={"started_on": D(2025, 3, 1), "ended_on": D(2025, 3, 3)})
    figures = summary.summary(db, GABINETE, "nova_lacerda", *FIRST_QUARTER)
    trends = _trends(figures)
    assert trends["served"] == ((0, 1, 0), (0, 0, 1))
    assert trends["waiting"] == ((2, 1, 3), (0, 1, 0))  # 31/01: 5 and 6; 28/02: 4; 31/03: 1, 2 and 4
    waiting = {w.key: (w.count, w.oldest_days, w.average_days) for w in figures.waiting}
    assert waiting["aguardando_vistoria"] == (3, 44, Decimal("28.0"))
    assert waiting["aguardando_orcamento"] == (1, 64, Decimal("64.0"))
    assert waiting["aguardando_parecer"] == (0, None, None)
    assert "Tendências dos pedidos de serviço por mês" in report_tables.tables(figures)


def test_the_months_cost_no_query_more(known, today):  # noqa: F811
    """The trends fold every month from one read per collection: a year costs what a month does."""
    today.set(TODAY)
    _autos(known)

    def reads(start: date) -> int:
        counting = CountingDatabase(known)
        summary.summary(counting, GABINETE, "chapada", start, D(2026, 3, 31))
        return sum(counting.calls.values())

    assert reads(D(2026, 3, 1)) == reads(D(2025, 4, 1))
    year = summary.summary(known, GABINETE, "chapada", D(2025, 4, 1), D(2026, 3, 31))
    assert {len(t.months) for t in year.trends} == {12}


def test_the_gabinete_sees_what_waits_the_trends_and_every_municipality_side_by_side(known, today):  # noqa: F811
    today.set(TODAY)
    _autos(known)
    at = page(GABINETE, summary_preset="Personalizado", summary_range=FIRST_QUARTER)
    assert not at.exception and not at.error, [e.value for e in at.error]
    subheaders = [s.value for s in at.subheader]
    assert {"Aguardando decisão", "Municípios lado a lado", "Tendências do transporte por mês"} <= set(subheaders)
    frames = {tuple(d.value.columns): d.value for d in at.dataframe}
    waiting = next(f for cols, f in frames.items() if "Aguardando" in cols).set_index("Aguardando")
    assert waiting.loc["Defesas aguardando decisão", "Mais antigo (dias)"] == "69"
    towns = next(f for cols, f in frames.items() if "Chapada dos Guimarães" in cols and "Matupá" in cols)
    assert "Nova Lacerda" in towns.columns
    towns = towns.set_index("Indicador")
    assert towns.loc["Autorizações ativas", "Chapada dos Guimarães"] == "3"
    assert towns.loc["Defesas aguardando decisão", "Chapada dos Guimarães"] == "3"
    assert towns.loc["Autorizações ativas", "Nova Lacerda"] == "—"  # no ride-hailing module there
    assert len(at.get("vega_lite_chart")) >= 6 + 2  # a chart per trend, beside the revenue's two
    assert "Cada número ao lado do mesmo mês do ano anterior." in rendered_text(at)
