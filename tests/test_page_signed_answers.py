"""Issue 36 item 4 on the staff panel: TI sees that no root is trusted yet (Implantação), and the clerk sees a
signed answer's signer, certificate and verification on "Obrigações das plataformas" and downloads the original."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.ridehailing import data_answers, trip_data
from services.shared import domicile, trust_anchors
from services.shared.regulated_accounts import Person
from tests import pki_support as pki
from tests import signing_support as signing
from tests.conftest import SECRETARIA_CG, TI
from tests.portal_support import AGENT_CPF, PLATFORM_CNPJ, platform_with_agent

ROOT = Path(__file__).resolve().parent.parent


def test_ti_is_told_to_upload_the_icp_brasil_roots_and_sees_them_once_uploaded(db):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"] = TI
    at.session_state["municipality"] = "chapada"
    at.run()
    at.switch_page("app_pages/deployment.py").run()
    assert not at.exception
    assert any("a TI deve enviar as raízes da ICP-Brasil" in w.value for w in at.warning)
    ca = pki.make_ca("AC Raiz de Teste do Painel")
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    at.run()
    assert not at.exception and not any("raízes da ICP-Brasil cadastradas" in w.value for w in at.warning)
    tables = [df.value for df in at.dataframe if "Certificado" in df.value.columns]
    assert any("AC Raiz de Teste do Painel" in t["Certificado"][0] for t in tables)


def test_the_clerk_sees_who_signed_the_answer_and_downloads_the_original(db):
    ca = pki.make_ca()
    platform_with_agent(db)
    domicile.open_domicile(db, SECRETARIA_CG, "chapada", "plataforma", PLATFORM_CNPJ, "contato@plataforma.exemplo")
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    platform_id = str(db["platforms"].find_one({"cnpj": PLATFORM_CNPJ})["_id"])
    trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id, "Apurar denúncia de embarque na via")
    agent = Person("chapada", "plataforma", PLATFORM_CNPJ, AGENT_CPF, "Rita Agente").actor
    [own] = data_answers.own_requests(db, agent)
    data = signing.signed_pdf(pki.make_person(ca, "Rita Agente", AGENT_CPF))
    data_answers.answer_request(db, agent, own.code, data, "resposta.pdf")
    at = AppTest.from_file(str(ROOT / "app_pages" / "platform_obligations.py"), default_timeout=120)
    at.session_state["actor"] = SECRETARIA_CG
    at.session_state["municipality"] = "chapada"
    at.run()
    assert not at.exception and not at.error
    requests = next(df.value for df in at.dataframe if "Justificativa" in df.value.columns)
    assert requests["Canal"][0] == "domicílio eletrônico" and requests["Assinada por"][0] == "RITA AGENTE"
    text = "\n".join(m.value for m in at.markdown)
    assert "RITA AGENTE (CPF ***.982.247-**)" in text and "emitido por AC Raiz de Teste do Painel" in text
    assert "válida" in text
