"""The DAM screen driven as a user would: issue a DAM and see it listed; cancel without a reason is
refused in Portuguese; a payment with a different amount shows its flag."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.dam import dams
from services.shared import clock, entities
from tests.conftest import SECRETARIA_MP
from tests.dams_support import last_paid_dam

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "dams.py")


def screen() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["actor"] = SECRETARIA_MP
    at.session_state["municipality"] = "matupa"
    return at.run()


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def stored_dam(db):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="Rafael Costa Martins", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua das Palmeiras, 10", revenue_kind="taxa_vistoria", description="Taxa de vistoria anual",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15", amount=Decimal("80.00"),
        due=clock.today() + timedelta(days=20),
    )


def issue_luciana(at: AppTest) -> None:
    """Fill the DAM form by hand for Luciana (CPF 529.982.247-25) and press "Emitir DAM"."""
    at.text_input(key="dams_issue_name").input("Luciana Ferreira Alves")
    at.text_input(key="dams_issue_document").input("529.982.247-25")
    at.text_input(key="dams_issue_address").input("Avenida Mato Grosso, 77, Centro")
    at.selectbox(key="dams_issue_kind").select("taxa_autorizacao")
    at.text_input(key="dams_issue_legal_basis").input("Lei Municipal 1.552/2025 (Matupá), art. 9º")
    at.text_area(key="dams_issue_description").input("Taxa de autorização do transporte por aplicativo")
    at.text_input(key="dams_issue_amount").input("1.150,00")
    button(at, "Emitir DAM").click().run()


def test_a_dam_for_a_cpf_not_in_contribuintes_is_refused_under_its_field(db):
    """Issue 11 item 5: a DAM's taxpayer is picked from the register; a typed, unknown CPF is not saved."""
    at = screen()
    issue_luciana(at)
    assert not at.exception
    assert any("não está em Contribuintes" in c for c in red(at))
    assert at.text_input(key="dams_issue_name").value == "Luciana Ferreira Alves"
    assert db["dams"].count_documents({}) == 0


def test_issue_a_dam_by_hand_and_see_it_listed(db):
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa", {
        "name": "Luciana Ferreira Alves", "document": "529.982.247-25", "kind": "pf",
        "address": "Avenida Mato Grosso, 77, Centro"})
    at = screen()
    assert not at.exception and not at.error
    issue_luciana(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("DAM 0001/2026 emitido: Luciana Ferreira Alves, R$ 1.150,00" in s.value for s in at.success)
    table = at.dataframe[0].value
    assert list(table["Nº"]) == ["0001/2026"] and list(table["Valor"]) == ["R$ 1.150,00"]
    assert list(table["Situação"]) == ["Emitido (a vencer)"]


def red(at: AppTest) -> list[str]:
    """The field errors shown under their fields (red captions)."""
    return [c.value for c in at.caption if c.value.startswith(":red[")]


def test_issue_errors_show_each_under_its_field_and_keep_what_was_typed(db):
    at = screen()
    at.text_input(key="dams_issue_name").input("Luciana Ferreira Alves")
    at.text_input(key="dams_issue_document").input("529.982.247-00")
    at.text_area(key="dams_issue_description").input("Taxa de autorização")
    at.text_input(key="dams_issue_amount").input("abc")
    button(at, "Emitir DAM").click().run()
    assert not at.exception
    assert not at.error, "no red block joining the errors"
    shown = red(at)
    assert any("CPF/CNPJ:" in c for c in shown) and any("Valor: informe reais e centavos" in c for c in shown)
    assert any("Endereço: campo obrigatório" in c for c in shown)
    assert not any(".;" in c or "Corrija os campos" in c for c in shown)
    assert not any("Contribuinte: campo obrigatório" in c for c in shown)
    assert at.text_input(key="dams_issue_name").value == "Luciana Ferreira Alves"
    assert at.text_area(key="dams_issue_description").value == "Taxa de autorização"
    assert at.text_input(key="dams_issue_amount").value == "abc"
    assert db["dams"].count_documents({}) == 0


def test_payment_errors_show_under_their_fields(db):
    dam = stored_dam(db)
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    at.text_input(key="dams_pay_amount").input("zero")
    button(at, "Registrar pagamento").click().run()
    assert not at.exception and not at.error
    shown = red(at)
    assert any("Valor pago: informe um valor maior que zero" in c for c in shown)
    assert any("Banco ou agente arrecadador: campo obrigatório" in c for c in shown)
    assert at.text_input(key="dams_pay_amount").value == "zero"
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == "emitido"


def test_an_overdue_dam_offers_its_2a_via_with_the_updated_amount(db, today):
    from datetime import date

    from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
    from rules.params import ParameterVersion
    from services.setup import bootstrap

    for name, value in ((FINE_DAILY, Decimal(2)), (FINE_MAX, Decimal(2)), (INTEREST_MONTHLY, Decimal(1))):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, "CTM de teste"))
    today.set(date(2026, 6, 1))  # the 2ª via is issued in the DAM's year: its number follows 0001/2026
    dam = stored_dam(db)
    today.set(dam["due_on"] + timedelta(days=10))
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Multa de mora"] == "R$ 1,60" and metrics["Juros de mora"] == "R$ 0,80"
    at.button(key="dams_reissue").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2ª via emitida: DAM 0002/2026, R$ 82,40" in s.value for s in at.success)
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == "cancelado"


def test_cancel_without_reason_is_refused_in_portuguese(db):
    dam = stored_dam(db)
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    at.button(key="dams_cancel").click().run()
    assert any("Confirma o cancelamento do DAM 0001/2026" in w.value for w in at.warning)
    at.button(key="dams_cancel_yes").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Corrija os campos indicados: Informe o motivo do cancelamento."]
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == "emitido"
    at.text_area(key="dams_cancel_reason").input("Valor lançado em duplicidade")
    at.button(key="dams_cancel_yes").click().run()
    assert any("DAM 0001/2026 cancelado." in s.value for s in at.success)
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == "cancelado"


def test_a_manual_payment_with_a_different_amount_shows_its_flag(db):
    dam = stored_dam(db)
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    at.text_input(key="dams_pay_amount").input("75,00")
    at.text_input(key="dams_pay_bank").input("PIX")
    button(at, "Registrar pagamento").click().run()
    assert not at.exception and not at.error
    assert any("Pagamento do DAM 0001/2026 registrado. Com alertas:" in s.value for s in at.success)
    assert any("Valor pago R$ 75,00 difere do valor do DAM R$ 80,00 (R$ 5,00 a menor)" in w.value for w in at.warning)
    assert list(at.dataframe[0].value["Situação"]) == ["Pago ⚠ Valor divergente; Débito pago a menor"]


def test_a_payment_whose_linked_update_failed_says_so_and_the_retry_completes_it(db, monkeypatch):
    from services.shared import events

    done: list[str] = []
    failures = [RuntimeError("registro vinculado indisponível")]

    def handler(db, charge_id):
        if failures:
            raise failures.pop()
        done.append(last_paid_dam(db, charge_id))

    monkeypatch.setitem(events._PAID_HANDLERS, "test_records", [handler])
    dam = dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="Rafael Costa Martins", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua das Palmeiras, 10", revenue_kind="taxa_autorizacao", description="Taxa de autorização",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=Decimal("80.00"),
        due=clock.today() + timedelta(days=20), pays={"collection": "test_records", "id": "r1", "label": "Autorização 0007/2026"},
    )
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    at.text_input(key="dams_pay_bank").input("PIX")
    button(at, "Registrar pagamento").click().run()
    assert not at.exception and not at.error
    shown = " ".join(w.value for w in at.warning)
    assert "Pagamento do DAM 0001/2026 registrado; a atualização do registro vinculado (Autorização 0007/2026) " \
           "ficou pendente e será refeita automaticamente" in shown
    assert "Nada foi alterado" not in shown
    assert list(at.dataframe[0].value["Situação"]) == ["Pago"]
    at.button(key="dams_retry_linked").click().run()
    assert not at.exception and not at.error
    assert any("Registro vinculado ao DAM 0001/2026 atualizado." in s.value for s in at.success)
    assert done == ["0001/2026"]


def test_batch_printing_over_the_current_filter_offers_one_pdf(db):
    for _ in range(3):
        stored_dam(db)
    at = screen()
    at.button(key="dams_batch").click().run()
    assert not at.exception and not at.error
    assert [b.label for b in at.get("download_button") if "lote" in b.label or "PDF com" in b.label] == \
        ["Baixar PDF com 3 DAMs"]


def test_a_short_payment_shows_the_open_difference_and_issues_its_dam(db):
    """Issue 19: R$ 75,00 paid on a R$ 80,00 DAM leaves the charge "Pago a menor" with R$ 5,00 open, and the
    screen offers the DAM of the difference, which joins the same charge."""
    from services.dam import charges, payments

    dam = stored_dam(db)
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], clock.today(), Decimal("75.00"), "PIX")
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    assert not at.exception
    assert any("Pago a menor" in m.value and "em aberto R$ 5,00" in m.value for m in at.markdown)
    button(at, "Emitir DAM da diferença").click().run()
    assert not at.exception and not at.error
    charge = charges.load(db, dam["charge_id"])
    new = dams.get(db, SECRETARIA_MP, "matupa", charge["live_dam"]["id"])
    assert (new["amount"], new["charge_id"], new["pays"]) == (Decimal("5.00"), dam["charge_id"], dam["pays"])
    assert any(f"DAM {new['number']} emitido: R$ 5,00" in s.value for s in at.success)


def test_a_cancelled_dam_reopens_its_charge_for_a_new_dam(db):
    """Issue 19, defect 3: after the treasury cancels a DAM, its charge is still owed and gets a new DAM."""
    from services.dam import charges

    dam = stored_dam(db)
    dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "Endereço errado", withdraw=False)
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    button(at, "Emitir novo DAM do débito").click().run()
    assert not at.exception and not at.error
    charge = charges.load(db, dam["charge_id"])
    assert [d["number"] for d in charge["dams"]][0] == dam["number"] and len(charge["dams"]) == 2
    assert (charge["status"], charge["live_dam"]["number"]) == ("aberto", charge["dams"][1]["number"])


def test_cancelling_a_dam_typed_by_hand_withdraws_its_charge_unless_the_clerk_keeps_it_owed(db):
    """Issue 19: a DAM issued by mistake is not a debt — its charge is cancelled with it by default; a DAM
    of a record leaves the record's charge owed for a new DAM (the checkbox says which)."""
    from services.dam import charges

    dam = stored_dam(db)
    at = screen()
    at.selectbox(key="dams_open").select(dam["id"]).run()
    at.text_area(key="dams_cancel_reason").input("Emitido em duplicidade")
    button(at, "Cancelar DAM").click().run()
    assert at.checkbox(key="dams_cancel_withdraw").value is True
    button(at, "Sim, cancelar").click().run()
    assert not at.exception and any(f"DAM {dam['number']} cancelado." in s.value for s in at.success)
    charge = charges.load(db, dam["charge_id"])
    assert (charge["status"], charge["open"], charge["live_dam"]) == ("cancelado", Decimal("0"), None)
