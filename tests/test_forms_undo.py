"""Forms that prevent mistakes and let them be undone (issue 11, items 5 and 8), against a real store:
references must name registered records, a wrong document/infraction/course is removed (kept as
removed, with who and why, and audited), a wrong protocol is cancelled, custom fields are edited
and deactivated."""
from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from rules.ridehailing.lifecycle import Status
from seed.people import cpf as random_cpf
from seed.ridehailing import vehicle_values
from services.ridehailing import (
    authorization_lists,
    authorization_records,
    authorizations,
    inspections,
    registry,
)
from services.shared import (
    audit_log,
    clock,
    custom_fields,
    entities,
    entity_files,
    entity_lists,
)
from services.shared.errors import Conflict, ValidationFailed
from services.shared.schema import ListQuery
from tests.conftest import TI
from tests.ridehailing_data import ACTORS, register, requested

ACTOR = ACTORS["chapada"]
UNKNOWN_CPF = random_cpf(random.Random(99))


def test_a_vehicle_cannot_name_an_unregistered_driver(db):
    values = vehicle_values(random.Random(3), UNKNOWN_CPF, clock.today())
    with pytest.raises(ValidationFailed) as refused:
        entities.create(db, ACTOR, "vehicles", "chapada", values)
    assert set(refused.value.errors) == {"driver_cpf"}
    assert "não está no cadastro de condutores" in refused.value.errors["driver_cpf"]
    assert db["vehicles"].count_documents({}) == 0


def test_a_vehicle_of_a_registered_driver_is_saved(db):
    cpf, _ = register(db, "chapada")
    entities.create(db, ACTOR, "vehicles", "chapada", vehicle_values(random.Random(4), cpf, clock.today()))
    assert db["vehicles"].count_documents({"driver_cpf": cpf}) == 2


def test_a_driver_of_another_municipality_is_not_a_reference(db):
    cpf, _ = register(db, "matupa")
    with pytest.raises(ValidationFailed) as refused:
        entities.create(db, ACTOR, "vehicles", "chapada", vehicle_values(random.Random(5), cpf, clock.today()))
    assert set(refused.value.errors) == {"driver_cpf"}


def test_an_edit_to_an_unregistered_driver_is_refused(db):
    _, plate = register(db, "chapada")
    vehicle = registry.vehicle_record(db, "chapada", plate)
    with pytest.raises(ValidationFailed) as refused:
        entities.update(db, ACTOR, "vehicles", "chapada", vehicle["id"], {"driver_cpf": UNKNOWN_CPF},
            expected_version=entities.get(db, ACTOR, "vehicles", "chapada", vehicle["id"])["version"])
    assert set(refused.value.errors) == {"driver_cpf"}


def test_a_driver_cannot_name_an_unregistered_platform(db):
    cpf, _ = register(db, "chapada")
    driver = registry.driver_record(db, "chapada", cpf)
    with pytest.raises(ValidationFailed) as refused:
        entities.update(db, ACTOR, "drivers", "chapada", driver["id"], {"platform_cnpj": "11222333000181"},
            expected_version=entities.get(db, ACTOR, "drivers", "chapada", driver["id"])["version"])
    assert set(refused.value.errors) == {"platform_cnpj"}


def test_an_import_reports_each_row_with_an_unknown_driver(db):
    cpf, _ = register(db, "chapada")
    text = ("CPF do condutor;Documento;Emissão\n"
            f"{cpf};CNH;01/02/2026\n"
            f"{UNKNOWN_CPF};CNH;01/02/2026\n")
    report = entity_files.import_csv(db, ACTOR, "driver_documents", "chapada", text.encode(), commit=True)
    assert [(e.line, e.field) for e in report.errors] == [(3, "CPF do condutor")]
    assert report.inserted == 0


def documents_of(db, cpf: str) -> list[dict]:
    return entity_lists.list_all(db, ACTOR, "driver_documents", "chapada", ListQuery(filters={"driver_cpf": cpf}))


def test_a_removed_document_leaves_the_list_and_the_verdict_and_stays_in_the_store(db):
    cpf, _ = register(db, "chapada")
    medical = next(d for d in documents_of(db, cpf) if d["code"] == "medical")
    assert registry.driver_eligibility(db, ACTOR, "chapada", cpf, clock.today()).ok
    entities.remove(db, ACTOR, "driver_documents", "chapada", medical["id"], "Lançado no condutor errado",
                    expected_version=medical["version"])
    assert medical["id"] not in {d["id"] for d in documents_of(db, cpf)}
    decision = registry.driver_eligibility(db, ACTOR, "chapada", cpf, clock.today())
    assert not decision.ok and any("Atestado médico" in f.message for f in decision.failures)
    kept = entities.get(db, ACTOR, "driver_documents", "chapada", medical["id"])
    assert (kept["removed"]["by"], kept["removed"]["reason"]) == (ACTOR.username, "Lançado no condutor errado")
    assert kept["version"] == medical["version"] + 1
    entries = audit_log.search(db, TI, "chapada", action="remove")[0]
    assert [(e["doc_id"], e["changes"]["removed"]["after"]["reason"], e["note"]) for e in entries] == [
        (medical["id"], "Lançado no condutor errado", "Removido por engano: Lançado no condutor errado")]


def test_a_removal_needs_a_reason_and_happens_once(db):
    cpf, _ = register(db, "chapada")
    doc = documents_of(db, cpf)[0]
    with pytest.raises(ValidationFailed) as refused:
        entities.remove(db, ACTOR, "driver_documents", "chapada", doc["id"], "  ",
            expected_version=entities.get(db, ACTOR, "driver_documents", "chapada", doc["id"])["version"])
    assert set(refused.value.errors) == {"reason"}
    entities.remove(db, ACTOR, "driver_documents", "chapada", doc["id"], "Em duplicidade",
            expected_version=entities.get(db, ACTOR, "driver_documents", "chapada", doc["id"])["version"])
    with pytest.raises(Conflict):
        entities.remove(db, ACTOR, "driver_documents", "chapada", doc["id"], "De novo",
            expected_version=entities.get(db, ACTOR, "driver_documents", "chapada", doc["id"])["version"])


def test_a_removal_over_a_changed_record_is_refused(db):
    cpf, _ = register(db, "chapada")
    doc = documents_of(db, cpf)[0]
    entities.update(db, ACTOR, "driver_documents", "chapada", doc["id"],
                    {"issued_on": doc["issued_on"] - timedelta(days=1)},
            expected_version=entities.get(db, ACTOR, "driver_documents", "chapada", doc["id"])["version"])
    with pytest.raises(Conflict):
        entities.remove(db, ACTOR, "driver_documents", "chapada", doc["id"], "Errado", expected_version=doc["version"])
    assert "removed" not in entities.get(db, ACTOR, "driver_documents", "chapada", doc["id"])


@pytest.mark.parametrize("entity", ["drivers", "vehicles", "platforms", "taxpayers"])
def test_main_registers_are_corrected_not_removed(db, entity):
    with pytest.raises(Conflict):
        entities.remove(db, ACTOR, entity, "chapada", "0" * 24, "Engano", expected_version=0)


def test_a_removed_infraction_no_longer_refuses_the_driver(db):
    cpf, _ = register(db, "chapada")
    entities.create(db, ACTOR, "traffic_infractions", "chapada", {
        "driver_cpf": cpf, "committed_on": clock.today() - timedelta(days=30), "severity": "gravissima"})
    assert not registry.driver_eligibility(db, ACTOR, "chapada", cpf, clock.today()).ok
    infraction = entity_lists.list_all(db, ACTOR, "traffic_infractions", "chapada",
                                       ListQuery(filters={"driver_cpf": cpf}))[0]
    entities.remove(db, ACTOR, "traffic_infractions", "chapada", infraction["id"], "Infração de outro condutor",
            expected_version=entities.get(db, ACTOR, "traffic_infractions", "chapada", infraction["id"])["version"])
    assert registry.driver_eligibility(db, ACTOR, "chapada", cpf, clock.today()).ok


def test_a_wrong_protocol_is_cancelled_and_frees_the_plate(db):
    auth = requested(db, "chapada")
    doc = authorizations.get_authorization(db, ACTOR, "chapada", auth)
    state = authorizations.cancel_request(db, ACTOR, "chapada", auth, "Protocolado em duplicidade")
    assert state.status is Status.CANCELLED
    again = authorizations.request_authorization(db, ACTOR, "chapada", doc["driver_cpf"], doc["plate"], clock.today())
    assert again != auth
    events = authorizations.get_authorization(db, ACTOR, "chapada", auth)["events"]
    assert (events[-1]["kind"], events[-1]["note"], events[-1]["by"]) == (
        "cancelled", "Protocolado em duplicidade", ACTOR.username)
    assert [e["doc_id"] for e in audit_log.search(db, TI, "chapada", action="cancelled")[0]] == [auth]


def test_a_cancellation_needs_a_reason_and_an_undecided_request(db):
    auth = requested(db, "chapada")
    with pytest.raises(ValidationFailed) as refused:
        authorizations.cancel_request(db, ACTOR, "chapada", auth, "")
    assert set(refused.value.errors) == {"reason"}
    authorizations.approve(db, ACTOR, "chapada", auth, clock.today())
    with pytest.raises(authorization_records.WrongStep):
        authorizations.cancel_request(db, ACTOR, "chapada", auth, "Engano")


def test_a_custom_field_is_edited_and_deactivated(db):
    custom_fields.add_custom_field(db, TI, "drivers", "chapada", "Apelido", "text")
    row = custom_fields.custom_field_rows(db, TI, "drivers", "chapada")[0]
    custom_fields.edit_custom_field(db, TI, "chapada", row["id"], "Apelido no ponto", True, True,
                                    expected_version=row["version"])
    field = entities.spec_for(db, "drivers", "chapada").field("cf_apelido")
    assert (field.label, field.required) == ("Apelido no ponto", True)
    row = custom_fields.custom_field_rows(db, TI, "drivers", "chapada")[0]
    custom_fields.edit_custom_field(db, TI, "chapada", row["id"], row["label"], False, False,
                                    expected_version=row["version"])
    assert "cf_apelido" not in {f.name for f in entities.spec_for(db, "drivers", "chapada").fields}
    assert custom_fields.custom_field_rows(db, TI, "drivers", "chapada")[0]["active"] is False
    assert len(audit_log.search(db, TI, "chapada", collection="custom_fields")[0]) == 3


def test_a_stale_custom_field_edit_is_refused(db):
    custom_fields.add_custom_field(db, TI, "drivers", "chapada", "Apelido", "text")
    row = custom_fields.custom_field_rows(db, TI, "drivers", "chapada")[0]
    custom_fields.edit_custom_field(db, TI, "chapada", row["id"], "Outro", False, True, expected_version=row["version"])
    with pytest.raises(Conflict):
        custom_fields.edit_custom_field(db, TI, "chapada", row["id"], "Mais um", False, True,
                                        expected_version=row["version"])


# ---- contradictions the panel knows about are not "ok" (item 7) and "falta comprovar" (item 9) ----

def test_a_vistoria_needs_the_inspectors_name(db):
    from seed.ridehailing import passing

    auth = requested(db, "chapada")
    authorizations.approve(db, ACTOR, "chapada", auth, clock.today())
    with pytest.raises(ValidationFailed) as refused:
        inspections.record_inspection(db, ACTOR, "chapada", auth, clock.today(), passing("chapada"), "  ")
    assert set(refused.value.errors) == {"inspector"}
    assert db["inspections"].count_documents({}) == 0


def test_the_vistoria_age_item_comes_from_the_model_year_not_the_checkbox(db):
    from seed.ridehailing import passing

    auth = requested(db, "chapada", vehicle={"model_year": clock.today().year - 10})
    authorizations.approve(db, ACTOR, "chapada", auth, clock.today())
    ticked = {**passing("chapada"), "III": False}  # the inspector unticked an item the register answers
    outcome = inspections.record_inspection(db, ACTOR, "chapada", auth, clock.today(), ticked, "Vistoriador")
    assert outcome.decision.ok


@pytest.mark.parametrize("on, passes", [
    pytest.param(lambda y: date(y, 12, 31), True, id="31/12: 10 years from the model year (art. 14, III)"),
    pytest.param(lambda y: date(y + 1, 1, 1), False, id="01/01 next year: 11 years"),
])
def test_the_age_item_turns_with_the_year(db, on, passes):
    year = clock.today().year
    auth = requested(db, "chapada", vehicle={"model_year": year - 10})
    item = inspections.inspection_computed(db, ACTOR, "chapada", auth, on(year))["III"]
    assert item.ok is passes


@pytest.mark.parametrize("status, ok", [("ativo", True), ("pendente", False), ("suspenso", False)])
def test_a_platform_not_credentialed_does_not_meet_the_law(db, status, ok):
    from decimal import Decimal

    from services.ridehailing import platforms

    today = clock.today()
    platform = entities.create(db, ACTOR, "platforms", "chapada", {
        "name": "Plataforma Teste", "cnpj": "11222333000181", "status": status, "insurer": "Seguradora",
        "policy_number": "1", "insurance_coverage": Decimal("100000"),
        "insurance_valid_from": today - timedelta(days=30),
        "insurance_valid_until": date(today.year + 1, 12, 31), "credentialed_on": today - timedelta(days=5)})
    decision = platforms.compliance(db, ACTOR, "chapada", platform, today)
    first = decision.findings[0]
    assert (first.ok, decision.ok) == (ok, ok)
    assert "art. 6º" in first.reference


def test_a_missing_medical_certificate_is_unproven_not_a_disqualifying_illness(db):
    cpf, _ = register(db, "chapada", driver={"fit_for_duty": False}, missing=("medical",))
    decision = registry.driver_eligibility(db, ACTOR, "chapada", cpf, clock.today())
    unproven = [f.message for f in decision.failures if f.unproven]
    assert "Documento não apresentado: Atestado médico de aptidão" in unproven
    assert "Aptidão para a função não comprovada (atestado médico)" in unproven
    assert not any("Moléstia" in f.message for f in decision.findings)


# ---- the authorization list: status filter on the date, sort, exports (item 3) ----

def test_the_status_filter_counts_an_authorization_expired_by_time(db):
    from seed.ridehailing import _flow
    from tests.ridehailing_data import set_fee

    set_fee(db, "chapada")
    active = _flow(db, ACTOR, "chapada", random.Random(31), clock.today() - timedelta(days=10), "active")
    waiting = requested(db, "chapada", seed=32)
    after_year = date(clock.today().year + 1, 1, 2)  # Chapada: valid to 31/12 of the payment year (art. 9, §1)
    ids = lambda status, on: [r.id for r in authorization_lists.authorization_page(db, ACTOR, "chapada", on,
                                                                            status=status).rows]
    assert ids("active", clock.today()) == [active]
    assert ids("active", after_year) == [] and ids("expired", after_year) == [active]
    assert ids("requested", clock.today()) == [waiting]
    with pytest.raises(ValidationFailed):
        authorization_lists.authorization_page(db, ACTOR, "chapada", clock.today(), status="$ne")


def test_the_authorization_export_is_what_the_filter_shows(db):
    import io

    from openpyxl import load_workbook

    requested(db, "chapada")
    approved = requested(db, "chapada", seed=2)
    authorizations.approve(db, ACTOR, "chapada", approved, clock.today())
    data = authorization_lists.export_authorizations(db, ACTOR, "chapada", clock.today(), status="awaiting_inspection")
    sheet = load_workbook(io.BytesIO(data)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == authorization_lists.ROW_COLUMNS
    assert [r[6] for r in rows[1:]] == ["Aguardando vistoria"]
    text = authorization_lists.export_authorizations(db, ACTOR, "chapada", clock.today(),
                                                     kind="csv").decode("utf-8-sig")
    assert text.splitlines()[0].split(";") == authorization_lists.ROW_COLUMNS and len(text.splitlines()) == 3
