"""Busca (issue 22): one box finds a record by what the clerk has at hand — a CPF typed with its dots,
a plate with its dash, a protocol, an auto or DAM number, a name — only in the user's municipalities,
grouped by kind; the sidebar's box leads there from any page (demo store, services and AppTest)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services import search
from services.shared import clock, fields
from services.shared.auth import Actor
from services.shared.errors import PermissionDenied
from tests.conftest import GABINETE, SECRETARIA_CG

ROOT = Path(__file__).resolve().parent.parent
BOTH = Actor("sec.duas", "Servidora de Chapada e Matupá", "secretaria", ("chapada", "matupa"))
NOVA_LACERDA = Actor("sec.nl", "Servidor de Nova Lacerda", "secretaria", ("nova_lacerda",))


def found(db, actor, term: str) -> dict[str, list[search.Hit]]:
    return {g.kind: list(g.hits) for g in search.search(db, actor, term, clock.today())}


def one(db, collection: str, municipality: str, **query) -> dict:
    doc = db[collection].find_one({"municipality": municipality, **query})
    assert doc is not None, f"the demo store must hold a {collection} record in {municipality}"
    return doc


def test_a_driver_is_found_by_his_cpf_as_typed_with_dots_and_dash(demo_db):
    driver = one(demo_db, "drivers", "chapada")
    typed = fields.show("cpf", driver["cpf"])
    assert "." in typed
    hits = found(demo_db, SECRETARIA_CG, typed)["drivers"]
    assert [h.record_id for h in hits] == [str(driver["_id"])]
    assert hits[0].title == driver["name"] and hits[0].municipality == "chapada"


def test_a_vehicle_is_found_by_its_plate_with_a_dash_and_its_authorization_by_the_plate_too(demo_db):
    auth = one(demo_db, "authorizations", "chapada")
    plate = auth["plate"]
    groups = found(demo_db, SECRETARIA_CG, f"{plate[:3]}-{plate[3:]}".lower())
    vehicle = one(demo_db, "vehicles", "chapada", plate=plate)
    hits = groups["vehicles"]
    assert [h.record_id for h in hits] == [str(vehicle["_id"])] and hits[0].detail == vehicle["model"]
    assert str(auth["_id"]) in [h.record_id for h in groups["authorizations"]]


def test_a_protocol_an_auto_number_and_a_dam_number_each_find_their_record(demo_db):
    auth = one(demo_db, "authorizations", "chapada")
    assert str(auth["_id"]) in [h.record_id for h in found(demo_db, SECRETARIA_CG, auth["protocol"])["authorizations"]]
    auto = one(demo_db, "autos", "chapada", number={"$ne": ""})
    hits = found(demo_db, SECRETARIA_CG, auto["number"])["autos"]
    assert str(auto["_id"]) in [h.record_id for h in hits] and hits[0].title.startswith("Auto nº")
    dam = one(demo_db, "dams", "chapada")
    hits = found(demo_db, SECRETARIA_CG, dam["number"])["dams"]
    assert str(dam["_id"]) in [h.record_id for h in hits] and "R$" in hits[0].detail


def test_a_booking_request_is_found_by_its_protocol_and_its_requester_by_name(demo_db):
    request = one(demo_db, "booking_requests", "nova_lacerda")
    groups = found(demo_db, NOVA_LACERDA, request["protocol"])
    assert str(request["_id"]) in [h.record_id for h in groups["booking_requests"]]
    requester = one(demo_db, "machinery_requesters", "nova_lacerda")
    hits = found(demo_db, NOVA_LACERDA, fields.show("cpf_cnpj", requester["document"]))["machinery_requesters"]
    assert [h.record_id for h in hits] == [str(requester["_id"])]


def test_only_the_users_municipalities_are_searched(demo_db):
    other = one(demo_db, "drivers", "matupa")
    cpf = other["cpf"]
    assert "drivers" not in found(demo_db, SECRETARIA_CG, cpf), "a Chapada clerk must not see Matupá's drivers"
    hits = found(demo_db, BOTH, cpf)["drivers"]
    assert [(h.record_id, h.municipality) for h in hits] == [(str(other["_id"]), "matupa")]
    assert "drivers" not in found(demo_db, NOVA_LACERDA, cpf), "Nova Lacerda runs no ride-hailing module"


def test_a_term_too_short_finds_nothing_and_the_gabinete_may_not_search(demo_db):
    assert search.search(demo_db, SECRETARIA_CG, " a ", clock.today()) == []
    with pytest.raises(PermissionDenied):
        search.search(demo_db, GABINETE, "Silva", clock.today())


def test_each_kind_shows_at_most_a_few_rows_and_says_there_are_more(demo_db):
    groups = search.search(demo_db, SECRETARIA_CG, "/2026", clock.today())  # every DAM number of the year
    dams = next(g for g in groups if g.kind == "dams")
    assert len(dams.hits) == search.PER_KIND and dams.more


def test_the_sidebar_box_leads_to_the_busca_with_the_term_and_empties_itself(demo_db):
    driver = one(demo_db, "drivers", "chapada")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = SECRETARIA_CG, "chapada"
    at.run()
    at.text_input(key="nav_search").input(driver["cpf"]).run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title][-1] == "Busca"
    assert at.text_input(key="nav_search").value == ""
    table = next(d.value for d in at.dataframe if "Registro" in d.value.columns)
    assert driver["name"] in list(table["Registro"])
    assert any(m.value.startswith("**Condutores**") for m in at.markdown)


def test_a_drivers_page_lists_his_vehicles_authorizations_and_dams_but_not_himself(demo_db):
    auth = one(demo_db, "authorizations", "chapada")
    driver = one(demo_db, "drivers", "chapada", cpf=auth["driver_cpf"])
    groups = {g.kind: g for g in search.related(demo_db, SECRETARIA_CG, "chapada", driver["cpf"], str(driver["_id"]),
                                                clock.today())}
    assert "drivers" not in groups, "the driver's own record is the page itself"
    assert str(auth["_id"]) in [h.record_id for h in groups["authorizations"].hits]
    vehicle = one(demo_db, "vehicles", "chapada", plate=auth["plate"])
    assert str(vehicle["_id"]) in [h.record_id for h in groups["vehicles"].hits]
    own_dams = demo_db.dams.count_documents({"municipality": "chapada", "taxpayer_document": driver["cpf"]})
    assert len(groups["dams"].hits) == min(own_dams, search.RELATED) if own_dams else "dams" not in groups


def test_a_vehicles_page_lists_the_authorizations_of_its_plate_and_never_another_municipalitys(demo_db):
    auth = one(demo_db, "authorizations", "chapada")
    vehicle = one(demo_db, "vehicles", "chapada", plate=auth["plate"])
    groups = {g.kind: g for g in search.related(demo_db, SECRETARIA_CG, "chapada", vehicle["plate"],
                                                str(vehicle["_id"]), clock.today())}
    assert str(auth["_id"]) in [h.record_id for h in groups["authorizations"].hits]
    assert all(h.municipality == "chapada" for g in groups.values() for h in g.hits)
    with pytest.raises(PermissionDenied):
        search.related(demo_db, SECRETARIA_CG, "matupa", vehicle["plate"], "", clock.today())
