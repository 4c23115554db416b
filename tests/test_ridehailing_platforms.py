"""Platforms' obligations on the stored platform: APP insurance (MP art. 5 XI at least R$ 50.000,00;
CG art. 5 X without a minimum), lists of drivers and vehicles (CG art. 5 VIII every 60 days; MP art. 5
IX monthly) and the monthly ISSQN (CG art. 19; MP art. 10), and the platforms screen."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from seed.people import cnpj
from services.ridehailing import platforms, registry
from services.shared import entities, parameters
from services.shared.errors import ValidationFailed
from tests.ridehailing_data import ACTORS

ROOT = Path(__file__).resolve().parent.parent
ON = date(2026, 6, 15)
CREDENTIALED = date(2026, 3, 2)


def platform(db, municipality: str, coverage: str = "100000.00", valid_until: date = date(2027, 3, 1),
             lists: tuple[date, ...] = (date(2026, 6, 1),), issqn: tuple[date, ...] = (),
             **changes) -> str:
    """A platform credentialed on 02/03/2026 with its policy, lists and ISSQN months (all paid by default)."""
    actor = ACTORS[municipality]
    values = {"name": "Rodaí Mobilidade", "cnpj": cnpj(random.Random(3)), "status": "ativo",
              "insurer": "Porto Seguro", "policy_number": "123", "insurance_coverage": Decimal(coverage),
              "insurance_valid_from": date(2026, 3, 1), "insurance_valid_until": valid_until,
              "credentialed_on": CREDENTIALED, **changes}
    platform_id = entities.create(db, actor, "platforms", municipality, values)
    for day in lists:
        platforms.add_report(db, actor, municipality, values["cnpj"], "lista", day, "protocolo")
    for month in issqn or (date(2026, 3, 20), date(2026, 4, 20), date(2026, 5, 20)):
        platforms.add_report(db, actor, municipality, values["cnpj"], "issqn", month, "DAM")
    return platform_id


def findings(db, municipality: str, platform_id: str, on: date = ON) -> dict[str, tuple[bool, str, str]]:
    decision = platforms.compliance(db, ACTORS[municipality], municipality, platform_id, on)
    credentialing, insurance, lists, issqn = decision.findings
    return {name: (f.ok, f.message, f.reference) for name, f in
            (("credentialing", credentialing), ("insurance", insurance), ("lists", lists), ("issqn", issqn))}


@pytest.mark.parametrize("municipality, coverage, ok, article", [
    pytest.param("matupa", "49999.99", False, "art. 5º, XI", id="MP art. 5 XI: R$ 49.999,99 refused"),
    pytest.param("matupa", "50000.00", True, "art. 5º, XI", id="MP art. 5 XI: R$ 50.000,00 admitted"),
    pytest.param("matupa", "30000.00", False, "art. 5º, XI", id="MP art. 5 XI: R$ 30.000,00 refused"),
    pytest.param("chapada", "30000.00", True, "art. 5º, X", id="CG art. 5 X: no minimum, R$ 30.000,00 admitted"),
])
def test_app_insurance_coverage(db, municipality, coverage, ok, article):
    found, message, reference = findings(db, municipality, platform(db, municipality, coverage))["insurance"]
    assert found is ok and article in reference
    if not ok:
        assert message == f"Cobertura APP de R$ {coverage[:-6]}.{coverage[-6:-3]},{coverage[-2:]}; o mínimo é R$ 50.000,00"


@pytest.mark.parametrize("on, ok", [
    pytest.param(date(2027, 3, 1), True, id="MP art. 5 XI: policy on its last day"),
    pytest.param(date(2027, 3, 2), False, id="MP art. 5 XI: policy expired the day after"),
])
def test_app_insurance_validity(db, today, on, ok):
    today.set(on)  # the lists and ISSQN below were handed in by the day the verdict is asked
    platform_id = platform(db, "matupa", lists=(on - timedelta(days=3),),
                           issqn=tuple(date(2026, m, 1) for m in range(3, 13)) + (date(2027, 1, 1), date(2027, 2, 1)))
    assert findings(db, "matupa", platform_id, on)["insurance"][0] is ok


def test_a_policy_without_its_dates_is_not_taken_as_insurance(db):
    platform_id = platform(db, "matupa", insurance_valid_from=None)
    ok, message, _ = findings(db, "matupa", platform_id)["insurance"]
    assert (ok, message) == (False, "Sem apólice de seguro APP")
    doc = entities.get(db, ACTORS["matupa"], "platforms", "matupa", platform_id)
    assert platforms.missing_policy_fields(doc) == ["Início da vigência do seguro"]


@pytest.mark.parametrize("municipality, article", [
    pytest.param("chapada", "art. 5º, VIII", id="CG art. 5 VIII: list every 60 days"),
    pytest.param("matupa", "art. 5º, IX", id="MP art. 5 IX: list every month"),
])
def test_periodic_list_due_day_and_the_day_after(db, municipality, article):
    last = date(2026, 5, 4)
    platform_id = platform(db, municipality, lists=(date(2026, 3, 10), last))
    rules = registry.rules_of(municipality)
    due = rules.list_period.next_due(last, parameters.calendar(db, municipality, last))
    on_due, after = findings(db, municipality, platform_id, due), findings(db, municipality, platform_id,
                                                                            due + timedelta(days=1))
    assert on_due["lists"][0] is True and after["lists"][0] is False
    assert after["lists"][1] == f"Relação de condutores e veículos atrasada desde {due:%d/%m/%Y}"
    assert article in after["lists"][2]


@pytest.mark.parametrize("municipality, article", [
    pytest.param("chapada", "art. 19", id="CG art. 19: a month of ISSQN missing"),
    pytest.param("matupa", "art. 10", id="MP art. 10: a month of ISSQN missing"),
])
def test_monthly_issqn_names_the_month_missing(db, municipality, article):
    platform_id = platform(db, municipality, issqn=(date(2026, 3, 5), date(2026, 5, 5)))
    ok, message, reference = findings(db, municipality, platform_id)["issqn"]
    assert (ok, message) == (False, "ISSQN mensal não recolhido: 04/2026") and article in reference


def test_compliance_needs_the_credentialing_date(db):
    platform_id = platform(db, "matupa", credentialed_on=None)
    with pytest.raises(ValidationFailed) as error:
        platforms.compliance(db, ACTORS["matupa"], "matupa", platform_id, ON)
    assert "credentialed_on" in error.value.errors


def test_platforms_screen_shows_the_matupa_refusal_of_r_30_000_with_its_article(db):
    platform_id = platform(db, "matupa", "30000.00", name="Leva Já Matupá")
    at = AppTest.from_file(str(ROOT / "app_pages" / "platforms.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS["matupa"]
    at.session_state["municipality"] = "matupa"
    at.run()
    at.selectbox(key="plat_open").set_value(platform_id).run()
    assert not at.exception
    error = " | ".join(e.value for e in at.error)
    assert "Plataforma — Não atende:" in error
    table = next(d.value for d in at.dataframe if "Requisito" in d.value.columns)
    row = table[table["Requisito"] == "Cobertura APP de R$ 30.000,00; o mínimo é R$ 50.000,00"].iloc[0]
    assert "art. 5º, XI" in row["Fundamento legal"] and row["Situação"] == "✗ Não atende"
