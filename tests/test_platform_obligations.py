"""Platforms' obligations in the store, flow by flow: a list received with its file and reconciled
against the register (CG art. 30; MP art. 12 XXV), lists late (CG art. 5º VIII; MP art. 5º IX), data
requests and their 24 hours to the minute (CG art. 11 §2º; MP art. 4º §2º), trip data import with a
dry run (CG art. 11 §1º; MP art. 4º §1º) and ISSQN per vehicle and month to a paid DAM (CG art. 19;
MP art. 10), and the pendências they add."""
from __future__ import annotations

import csv
import io
import random
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from rules.params import ParameterVersion
from rules.ridehailing.concepts import EventKind
from seed import ridehailing as demo
from seed.people import cnpj, cpf
from services.dam import payments
from services.ridehailing import (
    authorizations,
    inspections,
    issqn,
    platform_lists,
    trip_data,
    work_queue,
)
from services.setup import bootstrap
from services.shared import clock, entities, exports
from services.shared.errors import ServiceError, ValidationFailed
from tests.ridehailing_data import ACTORS, register, set_fee

TODAY = clock.today()


def platform(db, municipality: str, credentialed: date | None = None) -> str:
    return entities.create(db, ACTORS[municipality], "platforms", municipality, {
        "name": "Rodaí Mobilidade", "cnpj": cnpj(random.Random(3)), "status": "ativo",
        "credentialed_on": credentialed or TODAY - timedelta(days=100)})


def active(db, municipality: str, seed: int, protocol: date | None = None) -> tuple[str, str, str]:
    """A driver and vehicle with an issued authorization: (CPF, plate, authorization id)."""
    actor, protocol = ACTORS[municipality], protocol or TODAY - timedelta(days=20)
    driver_cpf, plate = register(db, municipality, protocol, seed=seed)
    auth = authorizations.request_authorization(db, actor, municipality, driver_cpf, plate, protocol)
    authorizations.approve(db, actor, municipality, auth, protocol + timedelta(days=2))
    inspections.record_inspection(db, actor, municipality, auth, protocol + timedelta(days=4),
                                  demo.passing(municipality), "Vistoriador")
    demo.paid_earlier(db, actor, municipality, auth, protocol + timedelta(days=6))
    return driver_cpf, plate, auth


def csv_file(rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter=";")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


# ---- lists and reconciliation ----

def test_reconciliation_drafts_exactly_the_unauthorized_rows(db):
    mun, actor = "chapada", ACTORS["chapada"]
    set_fee(db, mun)
    valid = active(db, mun, 11)
    suspended = active(db, mun, 12)
    authorizations.record_sanction(db, actor, mun, suspended[2], EventKind.SUSPENDED, TODAY - timedelta(days=1),
                                TODAY + timedelta(days=28), "Auto 0001/2026")
    other_car = active(db, mun, 13)
    stranger = (cpf(random.Random(99)), "XYZ9A87")
    rows = [{"CPF": valid[0], "Placa": valid[1], "Nome": "Ana Regular"},
            {"CPF": suspended[0], "Placa": suspended[1], "Nome": "Bruno Suspenso"},
            {"CPF": stranger[0], "Placa": stranger[1], "Nome": "Carla Sem Cadastro"},
            {"CPF": other_car[0], "Placa": "QWE4R56", "Nome": "Davi Outro Carro"}]
    pid = platform(db, mun)
    dry = platform_lists.receive_list(db, actor, mun, pid, TODAY, csv_file(rows), "relacao.csv")
    assert dry.ok and dry.rows == 4 and db[platform_lists.LISTS].count_documents({}) == 0
    report = platform_lists.receive_list(db, actor, mun, pid, TODAY, csv_file(rows), "relacao.csv", commit=True)
    assert (report.rows, report.hits) == (4, 3)
    found = platform_lists.drafts(db, actor, mun, report.record_id)
    assert [(d["line"], d["cpf"], d["status"]) for d in found] == [
        (3, suspended[0], platform_lists.AUTO_DRAFTED), (4, stranger[0], platform_lists.AUTO_DRAFTED),
        (5, other_car[0], platform_lists.AUTO_DRAFTED)]
    assert "suspensa até" in found[0]["message"] and "sem autorização" in found[1]["message"]
    assert "outro veículo" in found[2]["message"]
    assert all("art. 30" in d["reference"] and d["infraction_code"] == "CG-30" for d in found)
    name, data = platform_lists.list_file(db, actor, mun, report.record_id)
    assert (name, data) == ("relacao.csv", csv_file(rows))


def test_each_hit_becomes_one_draft_auto_for_the_clerk_an_unknown_cpf_as_illegal_transport(db):
    """CG art. 30: a registered driver working with a vehicle the authorization does not cover is drafted
    as an auto (rascunho, no number) once; an unregistered person ("ausência de cadastro") too, as
    transporte ilegal against the name, CPF and plate the platform listed (LEITURAS §6 item 2)."""
    from services.ridehailing.enforcement import autos as enforcement

    mun, actor = "chapada", ACTORS["chapada"]
    set_fee(db, mun)
    other_car = active(db, mun, 31)
    stranger = (cpf(random.Random(77)), "AAA1B11")
    rows = [{"CPF": other_car[0], "Placa": "QWE4R56", "Nome": "Davi Outro Carro"},
            {"CPF": stranger[0], "Placa": stranger[1], "Nome": "Sem cadastro"}]
    platform_lists.receive_list(db, actor, mun, platform(db, mun), TODAY, csv_file(rows), "r.csv", commit=True)
    autos = list(db[enforcement.COLLECTION].find({"municipality": mun}))
    assert sorted((a["target_kind"], a["status"], a["driver_cpf"], a["infraction_code"], a["number"])
                  for a in autos) == [("driver", "rascunho", other_car[0], "CG-30", ""),
                                      ("unregistered", "rascunho", stranger[0], "CG-30", "")]
    unknown = next(a for a in autos if a["target_kind"] == "unregistered")
    assert (unknown["offender_name"], unknown["plate"], unknown["offender_document"]) == (
        "Sem cadastro", stranger[1], stranger[0])
    assert all("Conciliação" in a["origin"] for a in autos)
    assert sorted((d["cpf"], d["status"], bool(d.get("auto_id"))) for d in platform_lists.drafts(db, actor, mun)) == \
        sorted([(other_car[0], platform_lists.AUTO_DRAFTED, True), (stranger[0], platform_lists.AUTO_DRAFTED, True)])
    assert platform_lists.draft_autos(db, actor, mun) == 0
    assert db[enforcement.COLLECTION].count_documents({"municipality": mun}) == 2


def test_an_unknown_cpf_in_matupa_is_drafted_as_art_27_not_as_a_duty_of_art_12(db):
    """MP art. 12 lists the duties of authorized drivers; someone outside the register commits the
    transporte ilegal of art. 27."""
    from services.ridehailing.enforcement import autos as enforcement

    mun, actor = "matupa", ACTORS["matupa"]
    stranger = cpf(random.Random(78))
    rows = [{"CPF": stranger, "Placa": "BBB2C22", "Nome": "Pessoa Sem Cadastro"}]
    platform_lists.receive_list(db, actor, mun, platform(db, mun), TODAY, csv_file(rows), "r.csv", commit=True)
    [auto] = db[enforcement.COLLECTION].find({"municipality": mun})
    assert (auto["target_kind"], auto["infraction_code"], auto["offender_name"]) == (
        "unregistered", "MP-27", "Pessoa Sem Cadastro")


def test_an_xlsx_list_in_matupa_cites_art_12_xxv_and_an_expired_authorization_is_a_hit(db):
    mun, actor = "matupa", ACTORS["matupa"]
    set_fee(db, mun)
    expired = active(db, mun, 21, protocol=TODAY - timedelta(days=400))  # MP art. 3 §ú: 12 months
    valid = active(db, mun, 22)
    data = exports.to_xlsx([{"CPF": expired[0], "Placa": expired[1], "Nome": "Elisa Vencida"},
                            {"CPF": valid[0], "Placa": valid[1], "Nome": "Fábio Regular"}])
    report = platform_lists.receive_list(db, actor, mun, platform(db, mun), TODAY, data, "lista.xlsx", commit=True)
    [hit] = platform_lists.drafts(db, actor, mun)
    assert report.hits == 1 and hit["cpf"] == expired[0] and "vencida" in hit["message"]
    assert "art. 12" in hit["reference"] and hit["infraction_code"] == "MP-12-XXV"


def test_a_cpf_typed_as_a_number_in_a_spreadsheet_keeps_its_leading_zero(db):
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["CPF", "Placa", "Nome"])
    book.active.append([1234567890, "QBC1D23", "Zero à esquerda"])  # CPF 012.345.678-90
    buffer = io.BytesIO()
    book.save(buffer)
    mun = "chapada"
    report = platform_lists.receive_list(db, ACTORS[mun], mun, platform(db, mun), TODAY, buffer.getvalue(), "l.xlsx",
                                         commit=True)
    assert report.ok and [d["cpf"] for d in platform_lists.drafts(db, ACTORS[mun], mun)] == ["01234567890"]


def test_a_bad_list_row_is_reported_with_its_line_and_nothing_is_kept(db):
    mun, actor = "chapada", ACTORS["chapada"]
    rows = [{"CPF": "123", "Placa": "QBC1D23", "Nome": "X"}]
    report = platform_lists.receive_list(db, actor, mun, platform(db, mun), TODAY, csv_file(rows), "r.csv", commit=True)
    assert [(e.line, e.field) for e in report.errors] == [(2, "CPF")]
    assert db[platform_lists.LISTS].count_documents({}) == 0 and db[platform_lists.DRAFTS].count_documents({}) == 0


def test_lists_late_after_the_period_go_to_the_pendencias(db):
    mun, actor = "matupa", ACTORS["matupa"]
    pid = platform(db, mun, credentialed=TODAY - timedelta(days=100))
    [status] = platform_lists.list_statuses(db, actor, mun, TODAY)
    assert status.late and "art. 5º, IX" in status.reference
    item = next(p for p in work_queue.pendencias(db, actor, mun, TODAY) if p.kind == "Relação da plataforma")
    assert item.late and "Rodaí" in item.message
    rows = [{"CPF": cpf(random.Random(5)), "Placa": "QBC1D23", "Nome": "G"}]
    platform_lists.receive_list(db, actor, mun, pid, TODAY, csv_file(rows), "r.csv", commit=True)
    [status] = platform_lists.list_statuses(db, actor, mun, TODAY)
    assert not status.late and status.last_received == TODAY


# ---- data requests ----

def test_a_data_request_is_late_one_minute_after_the_24_hours(db):
    mun, actor = "chapada", ACTORS["chapada"]
    pid = platform(db, mun)
    notified = (clock.now_utc() - timedelta(hours=30)).replace(second=0, microsecond=0)
    trip_data.request_data(db, actor, mun, pid, "Apurar denúncia de embarque na via (art. 7º)", notified)
    [at_deadline] = trip_data.data_requests(db, actor, mun, notified + timedelta(hours=24, seconds=59))
    [one_minute_after] = trip_data.data_requests(db, actor, mun, notified + timedelta(hours=24, minutes=1))
    assert at_deadline.deadline == notified + timedelta(hours=24)
    assert (at_deadline.late, one_minute_after.late) == (False, True)
    assert one_minute_after.situation == "Atrasado" and "art. 11, §2º" in one_minute_after.reference
    item = next(p for p in work_queue.pendencias(db, actor, mun, TODAY) if p.kind == "Dados de viagem")
    assert item.late and clock.to_local(at_deadline.deadline).strftime("%d/%m/%Y %H:%M") in item.message
    trip_data.answer_data_request(db, actor, mun, at_deadline.id, notified + timedelta(hours=23))
    [answered] = trip_data.data_requests(db, actor, mun)
    assert answered.situation == "Respondido no prazo"
    assert not [p for p in work_queue.pendencias(db, actor, mun, TODAY) if p.kind == "Dados de viagem"]


def test_a_naive_notification_instant_is_cuiaba_time_and_the_justification_is_required(db):
    mun, actor = "matupa", ACTORS["matupa"]
    pid = platform(db, mun)
    with pytest.raises(ValidationFailed) as refused:
        trip_data.request_data(db, actor, mun, pid, " ", datetime(2026, 3, 2, 9, 0))
    assert "justification" in refused.value.errors
    trip_data.request_data(db, actor, mun, pid, "Fiscalização", datetime(2026, 3, 2, 9, 0))
    [row] = trip_data.data_requests(db, actor, mun)
    assert row.notified_at == datetime(2026, 3, 2, 13, 0, tzinfo=timezone.utc)  # Cuiabá is UTC−4
    assert "art. 4º, §2º" in row.reference


# ---- trip data ----

TRIP = {"data_hora": "", "origem": "Praça", "destino": "Rodoviária", "duracao_min": "12", "distancia_km": "4,3",
        "mapa": "https://mapa.example/1", "cpf_condutor": "", "placa": "", "valor_total": "20,00",
        "composicao_valor": "tarifa 17,00; taxa 3,00", "avaliacao": "5"}


def trips(driver_cpf: str, plate: str, when: datetime, count: int = 2, **change) -> list[dict[str, str]]:
    return [{**TRIP, "data_hora": f"{when:%d/%m/%Y} 08:{10 + n:02d}", "cpf_condutor": driver_cpf, "placa": plate,
             **change} for n in range(count)]


def test_a_bad_trip_row_is_reported_with_its_line_and_the_file_is_not_imported(db):
    mun, actor = "chapada", ACTORS["chapada"]
    pid = platform(db, mun)
    rows = trips(cpf(random.Random(4)), "QBC1D23", TODAY - timedelta(days=3))
    rows[1]["mapa"] = ""
    report = trip_data.import_trips(db, actor, mun, pid, csv_file(rows), "viagens.csv", commit=True)
    assert report.rows == 2 and not report.ok
    [error] = report.errors
    assert (error.line, error.field) == (3, "Mapa do trajeto") and "art. 11, §1º, III" in error.message
    assert db[trip_data.TRIPS].count_documents({}) == 0


def test_trip_import_dry_run_then_commit_once(db):
    mun, actor = "matupa", ACTORS["matupa"]
    pid = platform(db, mun)
    data = csv_file(trips(cpf(random.Random(4)), "QBC1D23", TODAY - timedelta(days=3)))
    assert (trip_data.import_trips(db, actor, mun, pid, data, "v.csv").ok
            and db[trip_data.TRIPS].count_documents({}) == 0)
    assert trip_data.import_trips(db, actor, mun, pid, data, "v.csv", commit=True).rows == 2
    assert db[trip_data.TRIPS].count_documents({"municipality": mun}) == 2
    with pytest.raises(trip_data.TripsAlreadyImported):
        trip_data.import_trips(db, actor, mun, pid, data, "v.csv", commit=True)


# ---- ISSQN ----

def set_rate(db, municipality: str, rate: str = "0.05") -> None:
    bootstrap.ensure_parameter(db, municipality, ParameterVersion(issqn.RATE_PARAMETER, date(2025, 1, 1),
                                                                  Decimal(rate), "Ato de teste"))


def test_issqn_per_vehicle_and_month_to_a_paid_dam(db):
    mun, actor = "chapada", ACTORS["chapada"]
    set_rate(db, mun)
    pid = platform(db, mun)
    last_month = (TODAY.replace(day=1) - timedelta(days=1)).replace(day=5)
    two_months = (last_month.replace(day=1) - timedelta(days=1)).replace(day=5)
    data = csv_file(trips(cpf(random.Random(4)), "QBC1D23", last_month, 3)
                    + trips(cpf(random.Random(6)), "ABC1234", last_month, 1, valor_total="10,10")
                    + trips(cpf(random.Random(4)), "QBC1D23", two_months, 1))
    trip_data.import_trips(db, actor, mun, pid, data, "v.csv", commit=True)
    assert issqn.assess_issqn(db, actor, mun, pid, last_month) == 2
    assert issqn.assess_issqn(db, actor, mun, pid, two_months) == 1
    months = {(m.plate, m.competence): m for m in issqn.issqn_months(db, actor, mun, TODAY)}
    march = months[("QBC1D23", f"{last_month:%Y-%m}")]
    assert (march.trips, march.base, march.amount) == (3, Decimal("60.00"), Decimal("3.00"))
    assert months[("ABC1234", f"{last_month:%Y-%m}")].amount == Decimal("0.51")  # 0,505 half up
    assert "art. 19" in march.reference
    older = months[("QBC1D23", f"{two_months:%Y-%m}")]
    assert older.situation == "vencido"  # due on the 10th of last month, never paid
    dam = issqn.issue_issqn_dam(db, actor, mun, march.id, address="Av. Paulista, 1000, São Paulo - SP")
    assert dam["amount"] == Decimal("3.00") and dam["pays"]["collection"] == issqn.ISSQN
    assert dam["taxpayer_document"] == db["platforms"].find_one()["cnpj"]
    payments.record_payment(db, actor, mun, dam["id"], TODAY, dam["amount"], "Banco do Brasil")
    months = {(m.plate, m.competence): m for m in issqn.issqn_months(db, actor, mun, TODAY)}
    paid = months[("QBC1D23", f"{last_month:%Y-%m}")]
    assert (paid.situation, paid.paid_on, paid.dam_number) == ("pago", TODAY, dam["number"])
    issqn.issqn_paid(db, dam["charge_id"])  # the outbox may run it again: nothing changes
    assert db["audit"].count_documents({"collection": issqn.ISSQN, "note": f"DAM {dam['number']} pago"}) == 1
    assert issqn.assess_issqn(db, actor, mun, pid, last_month) == 1  # the month with a DAM is kept as it was


def test_issqn_without_a_rate_in_force_says_so(db):
    mun, actor = "matupa", ACTORS["matupa"]
    pid = platform(db, mun)
    day = TODAY - timedelta(days=2)
    trip_data.import_trips(db, actor, mun, pid, csv_file(trips(cpf(random.Random(4)), "QBC1D23", day)), "v.csv",
                    commit=True)
    with pytest.raises(ServiceError) as refused:
        issqn.assess_issqn(db, actor, mun, pid, day)
    assert issqn.RATE_PARAMETER in refused.value.message


# ---- demo ----

def test_the_demo_store_shows_every_obligation_state(demo_db):
    from seed.demo import seed_demo

    db = demo_db  # seed_demo run on a new store (conftest demo_store)
    for mun in ("chapada", "matupa"):
        actor = ACTORS[mun]
        assert sorted(s.late for s in platform_lists.list_statuses(db, actor, mun, TODAY)) == [False, True]
        assert len(platform_lists.drafts(db, actor, mun)) == 2
        assert {r.situation for r in trip_data.data_requests(db, actor, mun)} == {
            "Respondido no prazo", "Atrasado", "Aguardando resposta"}
        assert {m.situation for m in issqn.issqn_months(db, actor, mun, TODAY)} == {"pago", "vencido"}
    seed_demo(db)  # idempotent
    assert db[platform_lists.LISTS].count_documents({}) == 2
