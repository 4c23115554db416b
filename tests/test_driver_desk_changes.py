"""Issue 38 item 1: the driver reports a change of their data or their vehicle on the portal through the
clerk's service (``changes.record_change``) with the day it happened and a document; the same 7-day rule
(CG Decreto 06/2026 art. 18 XIX; MP Lei 1.552/2025 art. 12 XX) judges it, the clerk sees it with its time
in the work queue and applies it to the register; another driver's account gets NotFound."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.ridehailing import changes, work_queue
from services.shared import clock, entities
from services.shared.errors import NotFound, ValidationFailed
from services.shared.regulated_accounts import Person
from tests.ridehailing_data import ACTORS, register

PDF = b"%PDF-1.4 comprovante"
TODAY = date(2026, 6, 10)


def person(municipality: str, cpf: str) -> Person:
    return Person(municipality, "condutor", cpf, cpf, "Condutor Titular")


def subjects(db, municipality: str, cpf: str) -> dict[str, dict]:
    return {s["collection"]: s for s in changes.own_subjects(db, person(municipality, cpf).actor)}


@pytest.mark.parametrize("municipality, days, in_time, article", [
    ("chapada", 7, True, "art. 18, XIX"),   # CG art. 18 XIX: "em até 07 (sete) dias"
    ("chapada", 8, False, "art. 18, XIX"),
    ("matupa", 7, True, "art. 12, XX"),     # MP art. 12 XX: "em até 7 dias"
    ("matupa", 8, False, "art. 12, XX"),
])
def test_a_change_reported_on_the_portal_is_judged_by_the_7_day_rule(db, today, municipality, days, in_time,
                                                                      article):
    today.set(TODAY)
    cpf, _plate = register(db, municipality, TODAY - timedelta(days=30), seed=3)
    vehicle = subjects(db, municipality, cpf)["vehicles"]
    changed_on = TODAY - timedelta(days=days)
    change_id = changes.record_change(db, person(municipality, cpf).actor, municipality, "vehicles", vehicle["id"],
                                      {"color": "Amarelo ouro"}, changed_on, None, expected_version=0,
                                      proof=("crlv.pdf", PDF))
    mine = changes.own_changes(db, person(municipality, cpf).actor)
    assert [c.id for c in mine] == [change_id]
    change = mine[0]
    assert change.reported_on == TODAY and change.pending and change.finding.ok is in_time
    assert article in change.finding.reference and "Cor: " in change.fields_text
    assert "Amarelo ouro" in change.fields_text
    stored = entities.get(db, ACTORS[municipality], "vehicles", municipality, vehicle["id"])
    assert stored.get("color") != "Amarelo ouro"  # the register waits for the clerk
    queue = [p for p in work_queue.pendencias(db, ACTORS[municipality], municipality, TODAY)
             if p.kind == work_queue.DATA_CHANGE]
    assert len(queue) == 1 and "comunicada pelo portal" in queue[0].message
    assert changes.change_proof(db, ACTORS[municipality], municipality, change_id) == (PDF, "crlv.pdf")
    changes.apply_reported(db, ACTORS[municipality], municipality, change_id)
    assert entities.get(db, ACTORS[municipality], "vehicles", municipality, vehicle["id"])["color"] == "Amarelo ouro"
    after = changes.own_changes(db, person(municipality, cpf).actor)[0]
    assert not after.pending and after.reported_at is not None
    still = [p for p in work_queue.pendencias(db, ACTORS[municipality], municipality, TODAY)
             if p.kind == work_queue.DATA_CHANGE]
    assert len(still) == (0 if in_time else 1)  # a late one stays until the clerk closes it


def test_the_report_needs_the_date_a_document_and_a_field_the_portal_offers(db, today):
    today.set(TODAY)
    cpf, _plate = register(db, "chapada", TODAY - timedelta(days=30), seed=3)
    me, record = person("chapada", cpf).actor, subjects(db, "chapada", cpf)["drivers"]
    with pytest.raises(ValidationFailed) as refused:
        changes.record_change(db, me, "chapada", "drivers", record["id"], {"phone": "65 99999-0000"}, None, None,
                              expected_version=0)
    assert set(refused.value.errors) == {"changed_on", "proof"}
    with pytest.raises(ValidationFailed, match="posterior a hoje"):
        changes.record_change(db, me, "chapada", "drivers", record["id"], {"phone": "65 99999-0000"},
                              TODAY + timedelta(days=1), None, expected_version=0, proof=("a.pdf", PDF))
    with pytest.raises(ValidationFailed, match="dado que mudou"):  # the CNH is the clerk's, with the document
        changes.record_change(db, me, "chapada", "drivers", record["id"], {"cnh_category": "D"}, TODAY, None,
                              expected_version=0, proof=("a.pdf", PDF))
    with pytest.raises(ValidationFailed) as bad_file:
        changes.record_change(db, me, "chapada", "drivers", record["id"], {"phone": "65 99999-0000"}, TODAY, None,
                              expected_version=0, proof=("a.pdf", b"not a pdf"))
    assert "proof" in bad_file.value.errors
    assert db["data_changes"].count_documents({}) == 0


def test_another_drivers_account_gets_not_found_with_the_first_ones_records(db, today):
    today.set(TODAY)
    cpf, _plate = register(db, "chapada", TODAY - timedelta(days=30), seed=3)
    other_cpf, _ = register(db, "chapada", TODAY - timedelta(days=30), seed=4)
    other = person("chapada", other_cpf).actor
    mine = subjects(db, "chapada", cpf)
    with pytest.raises(NotFound) as unknown:
        changes.record_change(db, other, "chapada", "vehicles", "0" * 24, {"color": "Azul"}, TODAY, None,
                              expected_version=0, proof=("a.pdf", PDF))
    for collection, field in (("vehicles", "color"), ("drivers", "phone")):
        with pytest.raises(NotFound) as anothers:
            changes.record_change(db, other, "chapada", collection, mine[collection]["id"], {field: "Azul"}, TODAY,
                                  None, expected_version=0, proof=("a.pdf", PDF))
        assert str(anothers.value) == str(unknown.value)
    assert changes.own_changes(db, other) == [] and db["data_changes"].count_documents({}) == 0
    assert clock.today() == TODAY


def test_the_clerk_sees_the_report_with_its_time_and_applies_it_on_the_drivers_screen(db):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    cpf, _plate = register(db, "chapada", clock.today() - timedelta(days=30), seed=3)
    record = subjects(db, "chapada", cpf)["drivers"]
    changes.record_change(db, person("chapada", cpf).actor, "chapada", "drivers", record["id"],
                          {"address": "Rua das Palmeiras, 77"}, clock.today() - timedelta(days=2), None,
                          expected_version=0, proof=("conta-de-luz.pdf", PDF))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app_pages" / "drivers.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS["chapada"]
    at.session_state["municipality"] = "chapada"
    at.run()
    at.selectbox(key="drivers_open").set_value(record["id"]).run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "Data da alteração" in d.value.columns)
    assert table.iloc[0]["Pelo portal"].endswith("— a conferir")
    assert "Rua das Palmeiras, 77" in table.iloc[0]["Dados alterados"]
    assert "Comunicada pelo condutor no portal" in " ".join(m.value for m in at.markdown)
    next(b for b in at.button if b.label == "Aplicar no cadastro").click().run()
    assert not at.exception, at.exception
    assert entities.get(db, ACTORS["chapada"], "drivers", "chapada", record["id"])["address"] == "Rua das Palmeiras, 77"
    table = next(d.value for d in at.dataframe if "Data da alteração" in d.value.columns)
    assert not table.iloc[0]["Pelo portal"].endswith("— a conferir")
