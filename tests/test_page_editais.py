"""The channel of the notice and the Editais tab of the Autos de infração screen, driven as a clerk would
(AppTest): the proposal in the law's order, the AR returned undelivered, the edital assembled and its
publication recorded (CG Decreto 06/2026 art. 25 §1 II–IV; MP Lei 1.552/2025 art. 21 §1)."""
from __future__ import annotations

from datetime import date, timedelta

from services.ridehailing.enforcement import autos, editais
from tests.ridehailing_data import ACTORS
from tests.test_editais import AUTO_ON, posted, stranger
from tests.test_page_autos import button, page, texts

CG = ACTORS["chapada"]


def test_a_posted_notice_proposes_post_then_its_ar_returned_proposes_the_edital(db, today):
    auto_id = posted(db, today, "chapada", seed=101)
    today.set(AUTO_ON + timedelta(days=7))
    at = page(autos_open=auto_id)
    assert "Canal proposto: Via postal com aviso de recebimento (AR)" in texts(at, "info")
    at.selectbox(key="autos_ar_returned_reason").set_value("mudou_se")
    button(at, "Registrar AR devolvido").click().run()
    assert not at.exception, at.exception
    assert "AR devolvido registrado" in texts(at, "success")
    assert "Canal proposto: Edital** — AR devolvido (Mudou-se)" in texts(at, "info")
    shown = " ".join(m.value for m in at.markdown)
    assert "AR devolvido em 09/03/2026 (Mudou-se)" in shown and "aba “Editais”" in texts(at, "info")


def test_the_edital_is_assembled_and_its_publication_recorded_on_the_tab(db, today):
    auto_id = stranger(db, today, "chapada", seed=102)
    today.set(AUTO_ON + timedelta(days=2))
    at = page()
    table = next(d.value for d in at.dataframe if "Motivo" in d.value.columns)
    assert list(table["Motivo"]) == ["Endereço desconhecido"]
    button(at, "Montar edital com 1 auto").click().run()
    assert "Assinado por: obrigatório." in texts(at, "error")
    at.text_input(key="editais_signer").input("Ana Souza")
    at.text_input(key="editais_signer_role").input("Secretária Municipal de Finanças")
    button(at, "Montar edital com 1 auto").click().run()
    assert not at.exception, at.exception
    assert "Edital nº 0001/2026 montado com 1 auto" in texts(at, "success")
    at.text_input(key="editais_edition").input("4.321")
    at.date_input(key="editais_published").set_value(date(2026, 3, 4))
    button(at, "Registrar publicação").click().run()
    assert not at.exception, at.exception
    assert "1 auto notificado em 04/03/2026" in texts(at, "success")
    notice = autos.get(db, CG, "chapada", auto_id)["notification"]
    assert (notice["received_on"], notice["edition"]) == (date(2026, 3, 4), "4.321")
    assert editais.to_publish_count(db, CG, "chapada") == 0
