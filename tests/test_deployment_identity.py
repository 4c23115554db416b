"""The Prefeitura's own data on every document (issue 11, item 12), as TI sets it on Implantação: the
coat of arms image (PNG or JPEG, size limit, refused otherwise in Portuguese), the CNPJ with valid
check digits and the signer's name and role; a document then prints them, and Implantação stops
listing them."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from seed.documents import demo_cnpj, demo_coat_of_arms, seed_documents
from services import store
from services.setup import deployment
from services.shared import municipalities
from services.shared.errors import PermissionDenied, ValidationFailed
from tests.conftest import SECRETARIA_CG, TI

APP = str(Path(__file__).resolve().parent.parent / "app.py")
CNPJ = demo_cnpj("11222333")


def image(kind: str, size: tuple[int, int] = (60, 80)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (30, 90, 140)).save(buffer, format=kind)
    return buffer.getvalue()


def listed(db, code: str = "chapada") -> dict[str, str]:
    """The Dados da Prefeitura still missing (the A1 certificate has its own section, tests/test_pdf_signing.py)."""
    return {item.what: item.status for item in deployment.missing_values(db, TI, code)
            if item.where == f"{deployment.DEPLOYMENT_PAGE} → Dados da Prefeitura"}


@pytest.mark.parametrize("kind", ["PNG", "JPEG"])
def test_a_png_or_jpeg_coat_of_arms_is_kept_in_the_store_and_heads_the_letterhead(db, kind):
    data = image(kind)
    done = deployment.set_coat_of_arms(db, TI, "chapada", data, f"brasao.{kind.lower()}")
    assert store.get_file(db, done.coat_of_arms) == data
    assert municipalities.letterhead(db, "chapada").coat_of_arms == data
    assert "Brasão do município (imagem PNG ou JPEG)" not in listed(db)
    assert db["audit"].count_documents({"collection": "municipalities", "action": "update"}) == 1


@pytest.mark.parametrize("data, message", [
    (image("GIF"), "envie PNG ou JPEG (o arquivo é GIF)"),
    (b"not an image at all", "não é uma imagem PNG ou JPEG legível"),
    (b"", "o arquivo está vazio"),
    (image("PNG", (4100, 10)), "o limite é 4000 pixels por lado"),
    (b"\x89PNG" + b"0" * (1024 * 1024 + 1), "o limite é 1 MB"),
], ids=["gif", "garbage", "empty", "too-wide", "too-large"])
def test_anything_else_is_refused_in_portuguese_under_its_field(db, data, message):
    with pytest.raises(ValidationFailed) as refused:
        deployment.set_coat_of_arms(db, TI, "chapada", data, "brasao")
    assert message in refused.value.errors["coat_of_arms"]
    assert municipalities.get(db, "chapada").coat_of_arms == ""


def test_cnpj_and_signer_are_checked_each_under_its_field(db):
    with pytest.raises(ValidationFailed) as refused:
        deployment.set_identity(db, TI, "chapada", "11.222.333/0001-00", "Marina Castro Leite", "")
    assert set(refused.value.errors) == {"cnpj", "signer_role"}
    assert "dígitos verificadores" in refused.value.errors["cnpj"]
    done = deployment.set_identity(db, TI, "chapada", CNPJ, "Marina Castro Leite", "Secretária Municipal de Finanças")
    assert (done.cnpj, done.signer_name, done.signer_role) == (CNPJ, "Marina Castro Leite",
                                                               "Secretária Municipal de Finanças")
    head = municipalities.letterhead(db, "chapada")
    assert head.cnpj_text == f"CNPJ {CNPJ[:2]}.{CNPJ[2:5]}.{CNPJ[5:8]}/{CNPJ[8:12]}-{CNPJ[12:]}"
    assert not {"CNPJ da Prefeitura", "Quem assina os certificados (nome e cargo)"} & set(listed(db))


def test_only_ti_sets_them(db):
    with pytest.raises(PermissionDenied):
        deployment.set_identity(db, SECRETARIA_CG, "chapada", CNPJ, "", "")
    with pytest.raises(PermissionDenied):
        deployment.set_coat_of_arms(db, SECRETARIA_CG, "chapada", image("PNG"), "b.png")


def test_the_demo_values_are_listed_as_demo_until_ti_sets_its_own(db):
    seed_documents(db)
    assert set(listed(db).values()) == {deployment.DEMO_VALUE}
    assert "demonstração" in municipalities.letterhead(db, "chapada").signer_name
    deployment.set_coat_of_arms(db, TI, "chapada", image("PNG"), "brasao.png")
    assert "Brasão do município (imagem PNG ou JPEG)" not in listed(db)
    assert len(listed(db)) == 2
    assert demo_coat_of_arms("chapada") != municipalities.letterhead(db, "chapada").coat_of_arms


def page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["actor"] = TI
    at.session_state["municipality"] = "chapada"
    at.run()
    at.switch_page("app_pages/deployment.py").run()
    assert not at.exception, at.exception
    return at


def test_the_page_shows_a_bad_cnpj_under_its_field_and_keeps_what_was_typed(db):
    at = page()
    at.text_input(key="deployment_chapada_cnpj").input("11.222.333/0001-00")
    at.text_input(key="deployment_chapada_signer_name").input("Marina Castro Leite")
    next(b for b in at.button if b.label == "Gravar dados da Prefeitura" and "chapada" in str(b.form_id)).click().run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any("CNPJ: CNPJ inválido" in c for c in captions)
    assert any("Informe o nome e o cargo" in c for c in captions)
    assert at.text_input(key="deployment_chapada_signer_name").value == "Marina Castro Leite"
    assert municipalities.get(db, "chapada").cnpj == ""


def test_ti_is_warned_when_the_pix_payee_name_will_be_cut_to_25_characters(db):
    from datetime import date

    from rules.params import ParameterVersion
    from services.setup import bootstrap

    def warnings():
        return [i for i in deployment.missing_values(db, TI, "chapada") if i.status == deployment.WARNING]

    for name, value in (("pix_enabled", True), ("pix_key", "pix@chapada.invalid"),
                        ("pix_merchant_name", "Prefeitura de Chapada"), ("pix_merchant_city", "Chapada")):
        bootstrap.ensure_parameter(db, "chapada", ParameterVersion(name, date(2025, 1, 1), value, "Decreto 1/2026"))
    assert warnings() == []
    bootstrap.ensure_parameter(db, "chapada", ParameterVersion(
        "pix_merchant_name", date(2026, 1, 1), "Prefeitura Municipal de Chapada dos Guimarães", "Decreto 2/2026"))
    (warning,) = warnings()
    assert "o pagador verá “Prefeitura Municipal de C”" in warning.what
    assert warning.where == "Parâmetros → " + deployment.label("pix_merchant_name")


def test_the_login_page_names_each_prefeitura_and_shows_the_coat_of_arms_ti_uploaded(db):
    """Issue 22 item 13: whose panel it is, before anyone logs in."""
    deployment.set_coat_of_arms(db, TI, "chapada", image("PNG"), "brasao.png")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    names = [m.value for m in at.markdown if m.value.startswith("**Prefeitura de")]
    assert names == ["**Prefeitura de Chapada dos Guimarães**", "**Prefeitura de Matupá**",
                     "**Prefeitura de Nova Lacerda**"]
    assert len(at.get("image")) == 1  # Chapada's; the others have none uploaded yet
