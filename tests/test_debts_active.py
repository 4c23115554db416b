"""Dívida ativa (services.dam.active_debt): the term is the municipality's parameter, the export lists
the charges overdue past it with what the inscription needs, and marking them inscribed re-checks each
one, writes it on its version with an audit entry, all or nothing."""
from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from bson import ObjectId
from openpyxl import load_workbook

from rules.dam import charges as charge_rules
from rules.params import ParameterVersion
from services.dam import active_debt, charges, payments, rebill
from services.setup import bootstrap
from services.shared.errors import PermissionDenied, ValidationFailed
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP
from tests.test_debts import TODAY, charge_doc, issue

D = Decimal


def set_term(db, days, mun="matupa", since=date(2025, 1, 1)):
    bootstrap.ensure_parameter(db, mun, ParameterVersion(active_debt.TERM_PARAMETER, since, days,
                                                         "Lei Complementar Municipal 10/2020 (teste), art. 200"))


def test_without_the_term_nothing_is_listed_and_ti_is_named(db, today):
    today.set(TODAY)
    charge_doc(db, TODAY - timedelta(days=800))
    with pytest.raises(active_debt.InscriptionTermMissing, match="Prazo para inscrição em dívida ativa.*Parâmetros"):
        active_debt.candidates(db, SECRETARIA_MP, "matupa")


@pytest.mark.parametrize("value", ["noventa", D("90.5"), -1, True])
def test_a_term_that_is_not_a_whole_number_of_days_is_refused(db, today, value):
    today.set(TODAY)
    set_term(db, value)
    with pytest.raises(active_debt.InscriptionTermMissing, match="não é um número inteiro"):
        active_debt.candidates(db, SECRETARIA_MP, "matupa")


@pytest.mark.parametrize("value", [90, D("90"), "90"])
def test_a_term_typed_as_integer_decimal_or_text_is_read(db, today, value):
    today.set(TODAY)
    set_term(db, value)
    assert active_debt.candidates(db, SECRETARIA_MP, "matupa").term_days == 90


def test_charges_overdue_more_than_the_term_are_the_candidates(db, today):
    today.set(TODAY)
    set_term(db, 90)
    at_term = charge_doc(db, TODAY - timedelta(days=90))
    past = charge_doc(db, TODAY - timedelta(days=91))
    short = charge_doc(db, TODAY - timedelta(days=400), status=charge_rules.SHORT)
    charge_doc(db, TODAY - timedelta(days=400), status=charge_rules.PAID)
    charge_doc(db, TODAY - timedelta(days=400), status=charge_rules.INSCRIBED)
    charge_doc(db, TODAY - timedelta(days=400), mun="chapada")
    found = active_debt.candidates(db, SECRETARIA_MP, "matupa")
    assert found.ids == [short, past] and found.total == 2 and at_term not in found.ids


def test_the_export_has_what_the_inscription_needs(db, today):
    dam = issue(db, date(2025, 6, 2), date(2025, 6, 20), amount="225.00", today=today,
                pays={"collection": "autos", "id": "a9", "label": "Auto nº 0009/2025"})
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], date(2025, 7, 1), D("100.00"), "Caixa")
    set_term(db, 90)
    text = active_debt.export_csv(db, SECRETARIA_MP, "matupa").decode("utf-8-sig")
    header, line = text.strip().splitlines()
    assert header.split(";") == list(active_debt.EXPORT_COLUMNS)
    cells = dict(zip(active_debt.EXPORT_COLUMNS, line.split(";")))
    assert cells["Contribuinte"] == "Maria da Silva Souza" and cells["CPF/CNPJ"] == "529.982.247-25"
    assert cells["Endereço"] == "Rua dos Ipês, 120, Centro" and cells["Origem"] == "Auto nº 0009/2025"
    assert cells["Receita"] == "Taxa de autorização" and cells["Fundamentação legal"].startswith("Lei Municipal 1.552")
    assert (cells["Principal"], cells["Pago"], cells["Em aberto"], cells["Vencimento"], cells["Dias de atraso"]) == (
        "225,00", "100,00", "125,00", "20/06/2025", "255")
    assert "Lei 4.320/1964, art. 39" in cells["Fundamento da inscrição"] and "Lei 6.830/1980, art. 2º" in line
    assert cells["DAMs"] == dam["number"]
    sheet = load_workbook(io.BytesIO(active_debt.export_xlsx(db, SECRETARIA_MP, "matupa"))).active
    assert sheet.title == "Dívida ativa" and sheet.max_row == 2


def test_marking_inscribes_each_charge_with_its_book_and_an_audit_entry(db, today):
    today.set(TODAY)
    set_term(db, 30)
    first, second = charge_doc(db, TODAY - timedelta(days=60)), charge_doc(db, TODAY - timedelta(days=45))
    found = active_debt.candidates(db, SECRETARIA_MP, "matupa")
    result = active_debt.mark_inscribed(db, SECRETARIA_MP, "matupa", found.ids, "  Livro 3, folhas 10 a 12 ")
    assert result.inscribed == (first, second) and result.skipped == ()
    for charge_id in (first, second):
        charge = charges.load(db, charge_id)
        assert charge["status"] == charge_rules.INSCRIBED and charge["open"] == D("100.00")
        assert (charge["inscription"]["on"], charge["inscription"]["by"], charge["inscription"]["book"],
                charge["inscription"]["term_days"]) == (TODAY, "sec.mp", "Livro 3, folhas 10 a 12", 30)
        entry = db["audit"].find_one({"collection": "charges", "doc_id": charge_id, "action": "inscribe"})
        assert "inscrito em dívida ativa (Livro 3, folhas 10 a 12)" in entry["note"]
    assert active_debt.candidates(db, SECRETARIA_MP, "matupa").ids == []
    assert rebill.issuable(charges.load(db, first))  # still owed: a DAM can still collect it


def test_a_charge_paid_or_no_longer_past_the_term_is_left_out_with_the_reason(db, today):
    dam = issue(db, date(2025, 6, 2), date(2025, 6, 20), today=today)
    set_term(db, 30)
    listed = active_debt.candidates(db, SECRETARIA_MP, "matupa").ids
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], TODAY, D("150.00"), "Caixa")  # meanwhile
    recent = charge_doc(db, TODAY - timedelta(days=5))
    result = active_debt.mark_inscribed(db, SECRETARIA_MP, "matupa", [*listed, recent, str(ObjectId())], "Livro 1")
    assert result.inscribed == ()
    assert [reason for _id, reason in result.skipped] == [
        "Maria da Silva Souza, vencimento 20/06/2025: está pago",
        f"Maria da Silva Souza, vencimento {TODAY - timedelta(days=5):%d/%m/%Y}: vencido há 5 dias, prazo de 30",
        "débito não encontrado"]


def test_a_charge_changed_while_the_batch_is_written_undoes_the_whole_batch(db, today, monkeypatch):
    today.set(TODAY)
    set_term(db, 30)
    first, second = charge_doc(db, TODAY - timedelta(days=60)), charge_doc(db, TODAY - timedelta(days=45))
    real = charges.set_inscription

    def a_payment_lands_on_the_second(db_, charge, inscription):
        if charge["id"] == second:
            db["charges"].update_one({"_id": ObjectId(second)}, {"$inc": {"version": 1}})
        real(db_, charge, inscription)

    monkeypatch.setattr(charges, "set_inscription", a_payment_lands_on_the_second)
    with pytest.raises(charges.ChargeChanged):
        active_debt.mark_inscribed(db, SECRETARIA_MP, "matupa", [first, second], "Livro 1")
    assert charges.load(db, first)["status"] == charge_rules.OPEN and charges.load(db, first)["inscription"] is None
    assert db["audit"].count_documents({"action": "inscribe"}) == 0


def test_an_inscribed_charge_paid_later_is_settled(db, today):
    dam = issue(db, date(2025, 6, 2), date(2025, 6, 20), today=today)
    set_term(db, 30)
    active_debt.mark_inscribed(db, SECRETARIA_MP, "matupa", active_debt.candidates(db, SECRETARIA_MP, "matupa").ids,
                               "Livro 1")
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], TODAY, D("150.00"), "Caixa")
    charge = charges.load(db, dam["charge_id"])
    assert charge["status"] == charge_rules.PAID and charge["inscription"]["book"] == "Livro 1"


@pytest.mark.parametrize("ids, book, field", [
    ([], "Livro 1", "charge_ids"), (["x"] * 2, "", "book"), (["a"], "x" * 201, "book"),
    ([str(n) for n in range(active_debt.MAX_BATCH + 1)], "Livro 1", "charge_ids"), ("abc", "Livro", "charge_ids"),
], ids=["no-charges", "no-book", "long-book", "too-many", "not-a-list"])
def test_marking_needs_the_exported_list_and_the_book(db, today, ids, book, field):
    today.set(TODAY)
    set_term(db, 30)
    with pytest.raises(ValidationFailed) as refused:
        active_debt.mark_inscribed(db, SECRETARIA_MP, "matupa", ids, book)
    assert field in refused.value.errors


@pytest.mark.parametrize("actor", [GABINETE, SECRETARIA_CG], ids=["gabinete", "outro-municipio"])
def test_only_the_municipalitys_secretaria_inscribes(db, today, actor):
    today.set(TODAY)
    set_term(db, 30)
    charge_id = charge_doc(db, TODAY - timedelta(days=60))
    with pytest.raises(PermissionDenied):
        active_debt.mark_inscribed(db, actor, "matupa", [charge_id], "Livro 1")
    with pytest.raises(PermissionDenied):
        active_debt.candidates(db, actor, "matupa")
    assert charges.load(db, charge_id)["status"] == charge_rules.OPEN


def test_a_whole_exported_batch_can_be_marked_at_once():
    """The list exports at most MAX_BATCH charges; the boundary lets exactly that many through."""
    from services.shared import boundary
    assert boundary.ITEM_LIMITS["charge_ids"] == active_debt.MAX_BATCH
