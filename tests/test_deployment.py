"""Deployment without fictions (issue 11, item 16): a store prepared by bootstrap alone carries no
demo value; the demo store does; the Implantação page lists what each municipality still has to set."""
from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.setup import deployment, signature
from services.shared import parameters
from services.shared.errors import PermissionDenied
from services.store import connect
from tests.conftest import SECRETARIA_CG, TI, use_copy

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
CODES = ("chapada", "matupa", "nova_lacerda")
ANNIVERSARY = date(2026, 12, 15)  # the demo's invented anniversary of Chapada


@pytest.fixture
def fresh_dir(tmp_path, monkeypatch, bootstrap_only_store):
    """A copy of a store prepared by bootstrap alone, as the panel's store."""
    return use_copy(bootstrap_only_store, tmp_path / "fresh", monkeypatch)


@pytest.fixture
def fresh(fresh_dir):
    return connect(uri="", data_dir=str(fresh_dir))


@pytest.fixture
def demo(demo_db):
    """The demo store: bootstrap's store with ``seed_demo`` run on it (``python -m seed --demo``; a copy of
    the one made once per run, conftest ``demo_store``)."""
    return demo_db


def demo_versions(db) -> list[tuple[str, str]]:
    return [(d["municipality"], d["name"]) for d in db["parameters"].find({}, {"municipality": 1, "name": 1, "act": 1})
            if deployment.DEMO_MARK in d["act"].casefold()]


def test_a_store_prepared_by_bootstrap_alone_has_no_demo_value(fresh):
    assert demo_versions(fresh) == []
    assert fresh["parameters"].count_documents({"name": parameters.HOLIDAYS}) == 0
    assert parameters.calendar(fresh, "chapada", ANNIVERSARY).holiday_name(ANNIVERSARY) is None


def test_the_demo_store_has_the_demo_values(demo):
    found = set(demo_versions(demo))
    for code in CODES:
        assert {(code, parameters.HOLIDAYS), (code, "dam_febraban_code"), (code, "ouvidoria_phone")} <= found
    assert ("chapada", "upfm_value") in found and ("matupa", "pix_key") in found
    name = parameters.calendar(demo, "chapada", ANNIVERSARY).holiday_name(ANNIVERSARY)
    assert name == "Aniversário do Município (demonstração)"


PREPARE_AND_LOOK = """
import sys
from services import store
from services.setup import bootstrap
bootstrap.prepare(store.connect(uri="", data_dir=sys.argv[1]))
print(sorted(name for name in sys.modules if name == "seed" or name.startswith("seed.")))
"""


def test_bootstrap_does_not_import_the_demo_package(tmp_path):
    """Importing bootstrap and preparing a store, as the panel does at start, never loads seed/."""
    out = subprocess.run([sys.executable, "-c", PREPARE_AND_LOOK, str(tmp_path / "data")],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_fresh_store_lists_every_value_left_to_the_municipality(fresh):
    listed = {item.parameter or item.what: item for item in deployment.missing_values(fresh, TI, "chapada")}
    assert set(listed) == {"dam_febraban_code", "municipal_holidays", "ouvidoria_phone", "pix_key", "authorization_fee",
                           "issqn_rate", "upfm_value", "dam_late_fine_daily_percent", "dam_late_fine_max_percent",
                           "dam_late_interest_monthly_percent", "dam_revenue_code_taxa_autorizacao",
                           "dam_revenue_code_taxa_vistoria", "dam_revenue_code_multa", "CNPJ da Prefeitura",
                           "Brasão do município (imagem PNG ou JPEG)", "Quem assina os certificados (nome e cargo)",
                           "active_debt_days", f"Certificado digital A1 da Prefeitura ({signature.NO_CERTIFICATE})",
                           deployment.PORTAL_URL}
    assert {item.status for item in listed.values()} == {deployment.NOT_SET}
    assert listed["upfm_value"].where == "Parâmetros → Valor da UPFM (R$)"  # never the identifier (issue 22 item 9)


def test_the_portals_public_address_is_listed_until_the_server_sets_it(fresh, monkeypatch):
    """Every PDF's QR code and the domicile's e-mails lead to the portal (issue 37): unset, they would lead
    a passenger or a driver to "localhost"."""
    monkeypatch.delenv("PAINEL_PORTAL_URL", raising=False)
    assert deployment.PORTAL_URL in {item.what for item in deployment.missing_values(fresh, TI, "matupa")}
    monkeypatch.setenv("PAINEL_PORTAL_URL", "https://portal.matupa.mt.gov.br")
    assert deployment.PORTAL_URL not in {item.what for item in deployment.missing_values(fresh, TI, "matupa")}


def test_a_machinery_municipality_is_not_asked_for_ride_hailing_values(fresh):
    names = {item.parameter for item in deployment.missing_values(fresh, TI, "nova_lacerda")}
    assert "authorization_fee" not in names and "upfm_value" not in names and "dam_febraban_code" in names
    assert "issqn_rate" not in names


def test_a_machinery_municipality_is_asked_for_its_zones_and_localities(fresh):
    """The regional schedule (Decreto 017/2026, art. 3, §1) needs the list only TI can set."""
    listed = {item.parameter: item for item in deployment.missing_values(fresh, TI, "nova_lacerda")}
    item = listed["machinery_localities"]
    assert item.status == deployment.NOT_SET
    assert item.what == "Zonas e localidades do cronograma (art. 3, §1)"
    assert item.where == "Zonas e localidades → Zonas e localidades do cronograma (art. 3, §1)"
    assert "machinery_localities" not in {i.parameter for i in deployment.missing_values(fresh, TI, "chapada")}


def test_demo_values_are_listed_as_demo_and_a_real_value_is_no_longer_listed(demo):
    listed = {item.parameter: item for item in deployment.missing_values(demo, TI, "matupa") if item.parameter}
    assert listed["dam_febraban_code"].status == deployment.DEMO_VALUE
    assert listed["pix_key"].status == deployment.DEMO_VALUE
    parameters.add_version(demo, TI, "matupa", "dam_febraban_code", date(2026, 1, 1), "0592",
                           "Convênio FEBRABAN nº 123/2026")
    names = {item.parameter for item in deployment.missing_values(demo, TI, "matupa")}
    assert "dam_febraban_code" not in names


def test_only_ti_of_the_municipality_sees_its_missing_values(fresh):
    with pytest.raises(PermissionDenied):
        deployment.missing_values(fresh, SECRETARIA_CG, "chapada")


def page_as_ti() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["actor"] = TI
    at.session_state["municipality"] = "chapada"
    at.run()
    at.switch_page("app_pages/deployment.py").run()
    assert not at.exception, at.exception
    return at


def not_set_counts(at: AppTest) -> list[int]:
    return [int((frame.value["Situação"] == deployment.NOT_SET).sum()) for frame in at.dataframe]


def test_the_page_lists_the_missing_values_of_each_municipality_on_a_fresh_store(fresh):
    at = page_as_ti()
    assert [h.value for h in at.subheader] == ["Chapada dos Guimarães", "Matupá", "Nova Lacerda"]
    assert not_set_counts(at) == [19, 18, 16]  # the A1 certificate of each (issue 37), the portal's address
    chapada = at.dataframe[0].value
    assert "Parâmetros → Código FEBRABAN do município (4 dígitos)" in list(chapada["Onde cadastrar"])


def test_the_page_lists_fewer_missing_values_on_the_demo_store(demo):
    at = page_as_ti()
    missing = not_set_counts(at)
    assert all(now < before for now, before in zip(missing, [19, 18, 16])) and len(missing) == 3
    chapada = at.dataframe[0].value
    assert deployment.DEMO_VALUE in set(chapada["Situação"])
