"""The Débitos page driven as a treasury clerk would: totals by "vencido há" and the list, a bucket
filter, a new DAM for what a charge still owes, the dívida ativa list, its export and marking it
inscribed with a confirmation; only the secretaria opens it; its store calls do not grow with the data."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from streamlit.testing.v1 import AppTest

from rules.dam import charges as charge_rules
from services.dam import charges, dams, payments
from tests.conftest import GABINETE, SECRETARIA_MP
from tests.test_debts import JOAO, TODAY, charge_doc, issue
from tests.test_debts_active import set_term
from tests.test_ridehailing_page_queries import CountingDatabase

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "debts.py")
D = Decimal


def screen(actor=SECRETARIA_MP) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = "matupa"
    return at.run()


def shown(at: AppTest) -> str:
    return " ".join(m.value for kind in (at.success, at.warning, at.info, at.error) for m in kind)


def test_the_totals_and_the_list_by_vencido_ha(db, today):
    issue(db, date(2025, 11, 3), date(2025, 11, 20), today=today)
    short = issue(db, date(2026, 1, 5), date(2026, 1, 20), amount="225.00", who=JOAO, today=today)
    payments.record_payment(db, SECRETARIA_MP, "matupa", short["id"], TODAY, D("100.00"), "Caixa")
    issue(db, TODAY, TODAY + timedelta(days=20), today=today)
    at = screen()
    assert not at.exception and not at.error, [e.value for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["A vencer"] == "R$ 150,00" and metrics["Vencido há 31–90 dias"] == "R$ 125,00"
    assert metrics["Vencido há 91–365 dias"] == "R$ 150,00" and metrics["Vencido há mais de 365 dias"] == "R$ 0,00"
    totals, listed = at.dataframe[0].value, at.dataframe[1].value
    assert list(totals["Receita"]) == ["Taxa de autorização", "Total"]
    assert list(totals["Total (R$)"])[-1] == "R$\xa0425,00"
    assert list(listed["Contribuinte"]) == ["Maria da Silva Souza", "João Pereira Lima", "Maria da Silva Souza"]
    assert list(listed["Situação"]) == ["Em aberto", "Pago a menor", "Em aberto"]
    assert list(listed["Vencido há"]) == ["101 dias", "41 dias", "A vencer"]  # 20/11 (Consciência Negra) moved to 21/11
    assert list(listed["Em aberto"]) == ["R$ 150,00", "R$ 125,00", "R$ 150,00"]
    assert {b.label for b in at.get("download_button")} >= {"Exportar CSV (filtro atual)", "Exportar XLSX (filtro atual)"}
    at.selectbox(key="debts_bucket").select("31_90").run()
    assert list(at.dataframe[1].value["Contribuinte"]) == ["João Pereira Lima"]


def test_a_charge_whose_dam_was_cancelled_gets_a_dam_for_what_it_owes(db, today):
    dam = issue(db, date(2026, 1, 5), date(2026, 1, 20), today=today)
    dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "Endereço errado", withdraw=False)
    at = screen()
    at.selectbox(key="debts_open").select(dam["charge_id"]).run()
    assert not at.exception
    assert at.button(key="debts_remainder").label == "Emitir DAM do restante (R$ 150,00)"
    at.date_input(key="debts_remainder_due").set_value(TODAY + timedelta(days=10))
    at.button(key="debts_remainder").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    charge = charges.load(db, dam["charge_id"])
    assert charge["live_dam"] and f"DAM {charge['live_dam']['number']} emitido: R$ 150,00" in shown(at)
    assert any(b.label == f"Baixar PDF do DAM {charge['live_dam']['number']}" for b in at.get("download_button"))
    assert not [b for b in at.button if b.key == "debts_remainder"]  # a DAM open: no second one
    assert "está em aberto: é ele que cobra este débito" in " ".join(c.value for c in at.caption)


def test_a_charge_with_its_dam_open_offers_no_new_dam(db, today):
    dam = issue(db, date(2026, 1, 5), date(2026, 1, 20), today=today)
    at = screen()
    at.selectbox(key="debts_open").select(dam["charge_id"]).run()
    assert not at.exception and not [b for b in at.button if b.key == "debts_remainder"]


def test_the_dividas_ativa_view_names_the_missing_term(db, today):
    today.set(TODAY)
    at = screen()
    at.radio(key="debts_view").set_value("Dívida ativa").run()
    assert not at.exception and not at.error
    assert "Prazo para inscrição em dívida ativa após o vencimento (dias)" in shown(at)
    assert "Lei 4.320/1964, art. 39" in " ".join(c.value for c in at.caption)


def test_marking_the_exported_list_inscribed_asks_first(db, today):
    today.set(TODAY)
    set_term(db, 30)
    old, older = charge_doc(db, TODAY - timedelta(days=45)), charge_doc(db, TODAY - timedelta(days=400))
    charge_doc(db, TODAY - timedelta(days=10))
    at = screen()
    at.radio(key="debts_view").set_value("Dívida ativa").run()
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 2
    assert {b.label for b in at.get("download_button")} >= {"Exportar CSV (filtro atual)", "Exportar XLSX (filtro atual)"}
    at.button(key="debts_mark").click().run()
    assert "Confirma a inscrição em dívida ativa de 2 débitos, R$ 200,00 em aberto" in shown(at)
    at.button(key="debts_mark_no").click().run()
    assert not [b for b in at.button if b.key == "debts_mark_yes"]
    at.button(key="debts_mark").click().run()
    at.button(key="debts_mark_yes").click().run()
    assert not at.exception
    assert "Livro, folha ou número da inscrição: campo obrigatório" in " ".join(c.value for c in at.caption)
    assert charges.load(db, old)["status"] == charge_rules.OPEN
    at.text_input(key="debts_mark_book").input("Livro 3, folha 7")
    at.button(key="debts_mark").click().run()
    at.button(key="debts_mark_yes").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "2 débitos marcados como inscritos em dívida ativa." in shown(at)
    assert {charges.load(db, i)["status"] for i in (old, older)} == {charge_rules.INSCRIBED}
    assert charges.load(db, older)["inscription"]["book"] == "Livro 3, folha 7"
    assert "Nenhum débito a inscrever." in shown(at)


def test_the_gabinete_does_not_open_the_page(db):
    at = screen(GABINETE)
    assert [e.value for e in at.error] == ["Seu perfil não tem acesso a esta página."]


def test_the_page_makes_the_same_store_calls_with_three_times_the_charges(db, today, monkeypatch):
    from ui import common

    today.set(TODAY)
    set_term(db, 30)

    def calls(view: str) -> int:
        counting = CountingDatabase(db)
        monkeypatch.setattr(common, "db", lambda: counting)
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.session_state["actor"], at.session_state["municipality"] = SECRETARIA_MP, "matupa"
        at.session_state["debts_view"] = view
        at.run()
        assert not at.exception
        return sum(counting.calls.values())

    for n in range(3):
        charge_doc(db, TODAY - timedelta(days=n * 50))
    before = {view: calls(view) for view in ("Débitos em aberto", "Dívida ativa")}
    for n in range(6):
        charge_doc(db, TODAY - timedelta(days=n * 70 + 3))
    assert {view: calls(view) for view in before} == before
