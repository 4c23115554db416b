"""DAM service on the real embedded store: numbering, due dates, barcode and PIX, validation,
audit, cancelling, overdue, manual payments with flags, the dam_paid event, list and export."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.dam import parameters as dam_parameters
from rules.dam.barcode import parse_barcode, parse_line
from rules.params import ParameterVersion
from services.dam import charges, dams, lists, payments, printing
from services.setup import bootstrap
from services.shared import events
from services.shared.errors import PermissionDenied, ValidationFailed
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP
from tests.dams_support import MONDAY


def issue(db, actor=SECRETARIA_MP, mun="matupa", **changes):
    values = dict(
        taxpayer_name="Maria da Silva Souza", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua dos Ipês, 120, Centro", revenue_kind="taxa_autorizacao",
        description="Taxa de autorização do transporte por aplicativo",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=Decimal("150.00"), due=date(2026, 3, 20),
    )
    values.update(changes)
    return dams.issue(db, actor, mun, **values)


def enable_pix(db, mun="matupa"):
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "teste@pix.invalid"),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, mun, ParameterVersion(name, date(2025, 1, 1), value, "teste"))


# ---- numbering ----

def test_numbers_follow_each_other_per_municipality(db, today):
    numbers = [issue(db)["number"] for _ in range(3)]
    other = issue(db, SECRETARIA_CG, "chapada", legal_basis="Decreto 06/2026 (Chapada dos Guimarães), art. 16")
    assert numbers == ["0001/2026", "0002/2026", "0003/2026"]
    assert other["number"] == "0001/2026"


def test_numbering_restarts_with_the_year_of_the_issue_date(db, today):
    today.set(date(2026, 12, 31))
    last = issue(db, due=date(2027, 1, 15))
    today.set(date(2027, 1, 4))
    first = issue(db, due=date(2027, 1, 15))
    assert (last["number"], last["issued_on"]) == ("0001/2026", date(2026, 12, 31))
    assert (first["number"], first["year"], first["sequence"]) == ("0001/2027", 2027, 1)


def test_missing_febraban_code_refuses_and_takes_no_number(db, today):
    db["parameters"].delete_many({"municipality": "matupa", "name": dam_parameters.FEBRABAN_CODE})
    with pytest.raises(dams.DamParametersMissing, match="Código FEBRABAN do município"):
        issue(db)
    bootstrap.ensure_parameter(db, "matupa", ParameterVersion(dam_parameters.FEBRABAN_CODE, date(2025, 1, 1), "0592", "t"))
    assert issue(db)["number"] == "0001/2026"


# ---- due date ----

@pytest.mark.parametrize("requested, expected", [
    pytest.param(date(2026, 3, 20), date(2026, 3, 20), id="CTN art. 210 pu: Friday stays"),
    pytest.param(date(2026, 3, 21), date(2026, 3, 23), id="CTN art. 210 pu: Saturday to Monday"),
    pytest.param(date(2026, 3, 22), date(2026, 3, 23), id="CTN art. 210 pu: Sunday to Monday"),
    pytest.param(date(2026, 6, 4), date(2026, 6, 5), id="CTN art. 210 pu: Corpus Christi (municipal) to Friday"),
    pytest.param(date(2026, 12, 25), date(2026, 12, 28), id="CTN art. 210 pu: Christmas Friday to Monday"),
    pytest.param(date(2026, 12, 29), date(2026, 12, 30), id="CTN art. 210 pu: Matupá anniversary to next day"),
    pytest.param(date(2026, 12, 28), date(2026, 12, 28), id="CTN art. 210 pu: day before holiday stays"),
    pytest.param(MONDAY, MONDAY, id="due on the issue date is allowed"),
])
def test_due_date_moves_to_the_next_business_day(db, today, requested, expected):
    dam = issue(db, due=requested)
    assert dam["due_on"] == expected
    assert dam["requested_due"] == requested
    assert parse_barcode(dam["barcode"]).dam_reference().due_date == expected
    assert ("prorrogado" in dam["due_note"]) is (requested != expected)


def test_municipal_holiday_of_another_municipality_does_not_move_the_due_date(db, today):
    dam = issue(db, SECRETARIA_CG, "chapada", due=date(2026, 12, 29))
    assert dam["due_on"] == date(2026, 12, 29)


def test_moved_due_date_is_explained_in_the_instructions(db, today):
    dam = issue(db, due=date(2026, 3, 21))
    assert any("prorrogado para o dia útil seguinte, 23/03/2026" in line for line in dam["instructions"])


# ---- barcode, line and PIX ----

def test_barcode_and_line_carry_amount_code_due_date_and_number(db, today):
    dam = issue(db, amount=Decimal("1234.56"))
    barcode = parse_barcode(dam["barcode"])
    assert barcode.amount == Decimal("1234.56")
    assert barcode.company_code == "0592"
    assert barcode.dam_reference().number == dam["number"]
    assert parse_line(dam["line"]).digits == dam["barcode"]


def test_pix_payload_only_where_the_municipality_enabled_pix(db, today):
    enable_pix(db)
    with_pix = issue(db)
    without = issue(db, SECRETARIA_CG, "chapada")
    assert "DAM2026000001" in with_pix["pix_payload"] and "teste@pix.invalid" in with_pix["pix_payload"]
    assert any("PIX" in line for line in with_pix["instructions"])
    assert without["pix_payload"] is None


# ---- validation and permissions ----

@pytest.mark.parametrize("changes, field", [
    pytest.param({"taxpayer_name": "  "}, "taxpayer_name", id="name required"),
    pytest.param({"taxpayer_document": "529.982.247-24"}, "taxpayer_document", id="CPF check digit"),
    pytest.param({"taxpayer_address": ""}, "taxpayer_address", id="address required"),
    pytest.param({"revenue_kind": "imposto"}, "revenue_kind", id="revenue kind from the catalogue"),
    pytest.param({"description": ""}, "description", id="description required"),
    pytest.param({"legal_basis": ""}, "legal_basis", id="legal basis required"),
    pytest.param({"amount": Decimal("0.00")}, "amount", id="amount zero refused"),
    pytest.param({"amount": Decimal("10.005")}, "amount", id="amount beyond centavos refused"),
    pytest.param({"amount": Decimal("1000000000.00")}, "amount", id="amount above 11 positions refused"),
    pytest.param({"amount": None}, "amount", id="amount missing"),
    pytest.param({"due": date(2026, 3, 1)}, "due", id="due the day before issue refused"),
    pytest.param({"pays": {"collection": "authorizations"}}, "pays", id="paid record needs an id"),
])
def test_invalid_input_is_refused_before_a_number_is_taken(db, today, changes, field):
    with pytest.raises(ValidationFailed) as error:
        issue(db, **changes)
    assert field in error.value.errors
    assert db["dams"].count_documents({}) == 0
    assert issue(db)["number"] == "0001/2026"


def test_largest_amount_and_a_cnpj_are_accepted(db, today):
    dam = issue(db, amount=Decimal("999999999.99"), taxpayer_document="11.222.333/0001-81")
    assert dam["amount"] == Decimal("999999999.99") and dam["taxpayer_document"] == "11222333000181"


def test_roles_and_municipalities_are_enforced(db, today):
    with pytest.raises(PermissionDenied):
        issue(db, GABINETE)
    with pytest.raises(PermissionDenied):
        issue(db, SECRETARIA_CG, "matupa")
    dam = issue(db)
    with pytest.raises(PermissionDenied):
        dams.get(db, SECRETARIA_CG, "matupa", dam["id"])


# ---- audit and history ----

def audit_entries(db, dam_id):
    return list(db["audit"].find({"collection": "dams", "doc_id": dam_id}).sort("at", 1))


def test_every_write_is_audited_and_kept_in_the_history(db, today):
    dam = issue(db)
    paid = payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Banco do Brasil")
    other = issue(db)
    dams.cancel(db, SECRETARIA_MP, "matupa", other["id"], "Emitido com valor errado")
    assert [e["action"] for e in audit_entries(db, dam["id"])] == ["create", "pay"]
    assert [e["action"] for e in audit_entries(db, other["id"])] == ["create", "cancel"]
    create = audit_entries(db, dam["id"])[0]
    assert create["username"] == "sec.mp" and create["municipality"] == "matupa"
    assert create["changes"]["number"]["after"] == "0001/2026"
    assert [h["status"] for h in paid["history"]] == ["emitido", "pago"]
    assert all(h["by"] == "sec.mp" for h in paid["history"])


# ---- cancelling ----

@pytest.mark.parametrize("reason", ["", "   ", None], ids=["empty", "blank", "none"])
def test_cancelling_needs_a_reason(db, today, reason):
    dam = issue(db)
    with pytest.raises(ValidationFailed, match="Informe o motivo do cancelamento"):
        dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], reason)
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == dams.ISSUED


def test_cancelled_dam_keeps_reason_and_cannot_be_cancelled_paid_or_printed(db, today):
    dam = issue(db)
    done = dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "  Contribuinte desistiu do pedido ")
    assert (done["status"], done["cancel_reason"]) == ("cancelado", "Contribuinte desistiu do pedido")
    assert done["history"][-1]["note"] == "Contribuinte desistiu do pedido"
    with pytest.raises(dams.DamNotCancellable, match="já está cancelado"):
        dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "de novo")
    with pytest.raises(payments.DamNotPayable, match="cancelado"):
        payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")
    with pytest.raises(printing.DamNotPrintable, match="0001/2026"):
        printing.pdf(db, SECRETARIA_MP, "matupa", [dam["id"]])


def test_paid_dam_cannot_be_cancelled(db, today):
    dam = issue(db)
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")
    with pytest.raises(dams.DamNotCancellable, match="está pago"):
        dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "engano")


def test_overdue_dam_can_still_be_cancelled(db, today):
    dam = issue(db, due=date(2026, 3, 10))
    today.set(date(2026, 3, 20))
    assert dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "prescrito")["situation"] == dams.CANCELLED


# ---- overdue (computed on read) ----

@pytest.mark.parametrize("day, expected", [
    pytest.param(date(2026, 3, 10), dams.ISSUED, id="on the due date: a vencer"),
    pytest.param(date(2026, 3, 11), dams.OVERDUE, id="day after the due date: vencido"),
])
def test_overdue_is_computed_from_today(db, today, day, expected):
    dam = issue(db, due=date(2026, 3, 10))
    today.set(day)
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["situation"] == expected
    listed = lists.list_page(db, SECRETARIA_MP, "matupa", lists.DamQuery(status=expected))
    assert [d["id"] for d in listed.rows] == [dam["id"]]
    other = dams.OVERDUE if expected == dams.ISSUED else dams.ISSUED
    assert lists.list_page(db, SECRETARIA_MP, "matupa", lists.DamQuery(status=other)).total == 0


# ---- manual payments ----

@pytest.mark.parametrize("due, paid_on, amount, flags, note", [
    pytest.param(date(2026, 3, 20), date(2026, 3, 20), "150.00", [], "", id="exact amount on the due date"),
    pytest.param(date(2026, 3, 20), date(2026, 3, 23), "150.00", ["pago_em_atraso"], "3 dias após",
                 id="CTN art. 210: next business day after a Friday due date is late"),
    pytest.param(date(2026, 3, 21), date(2026, 3, 23), "150.00", [], "",
                 id="CTN art. 210 pu: Saturday due date printed as Monday, paid Monday"),
    pytest.param(date(2026, 3, 20), date(2026, 3, 20), "149.99", ["valor_divergente", "debito_pago_a_menor"],
                 "falta R$ 0,01", id="one centavo less: the charge keeps R$ 0,01 open"),
    pytest.param(date(2026, 3, 20), date(2026, 3, 20), "150.01", ["valor_divergente", "credito_a_restituir"],
                 "Crédito de R$ 0,01 a restituir", id="one centavo more: a credit, never absorbed"),
    pytest.param(date(2026, 3, 20), date(2026, 3, 24), "100.00",
                 ["valor_divergente", "pago_em_atraso", "debito_pago_a_menor"], "a menor", id="late and short"),
])
def test_manual_payment_marks_paid_and_flags_what_differs(db, today, due, paid_on, amount, flags, note):
    dam = issue(db, due=due)
    today.set(date(2026, 3, 30))
    paid = payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], paid_on, Decimal(amount), " Caixa Econômica ")
    assert paid["status"] == dams.PAID and paid["situation"] == dams.PAID
    payment = paid["payment"]
    assert payment["flags"] == flags
    assert (payment["paid_on"], payment["amount"], payment["bank"]) == (paid_on, Decimal(amount), "Caixa Econômica")
    assert payment["origin"] == {"kind": "manual"}
    assert note in " ".join(payment["notes"])
    assert bool(flags) == bool(payments.flag_text(payment))


@pytest.mark.parametrize("paid_on, amount, bank, field", [
    pytest.param(date(2026, 3, 3), "150.00", "Caixa", "paid_on", id="tomorrow refused"),
    pytest.param(date(2026, 3, 1), "150.00", "Caixa", "paid_on", id="before the issue date refused"),
    pytest.param(MONDAY, "0.00", "Caixa", "amount", id="zero refused"),
    pytest.param(MONDAY, "-1.00", "Caixa", "amount", id="negative refused"),
    pytest.param(MONDAY, "150.001", "Caixa", "amount", id="beyond centavos refused"),
    pytest.param(MONDAY, "150.00", " ", "bank", id="bank required"),
])
def test_manual_payment_input_is_checked(db, today, paid_on, amount, bank, field):
    dam = issue(db)
    with pytest.raises(ValidationFailed) as error:
        payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], paid_on, Decimal(amount), bank)
    assert field in error.value.errors
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == dams.ISSUED


def test_a_paid_dam_is_not_paid_again(db, today):
    dam = issue(db)
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")
    with pytest.raises(payments.DamNotPayable, match="já está pago"):
        payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")


@pytest.fixture
def paid_events(monkeypatch):
    """DAMs whose paid event reached a handler of the 'test_records' collection."""
    calls: list[dict] = []
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records",
                        [lambda db, charge_id: calls.append(charges.load(db, charge_id))])
    return calls


def test_paying_tells_the_record_it_pays_exactly_once(db, today, paid_events):
    pays = {"collection": "test_records", "id": "abc123", "label": "Autorização 0007/2026"}
    dam = issue(db, pays=pays)
    unrelated = issue(db)
    assert dam["pays"] == pays and "Referente a: Autorização 0007/2026." in dam["instructions"]
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")
    with pytest.raises(payments.DamNotPayable):
        payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("150.00"), "Caixa")
    payments.record_payment(db, SECRETARIA_MP, "matupa", unrelated["id"], MONDAY, Decimal("150.00"), "Caixa")
    assert [(c["id"], c["status"], c["owner"]["id"]) for c in paid_events] == [(dam["charge_id"], "pago", "abc123")]


# ---- list, search, export ----

def test_search_filters_and_pages_in_the_store(db, today):
    issue(db, taxpayer_name="Ana Lúcia Barbosa", taxpayer_document="111.444.777-35", revenue_kind="multa")
    today.set(date(2026, 3, 9))
    for _ in range(3):
        issue(db)
    query = lists.DamQuery

    def found(**filters):
        return [d["number"] for d in lists.list_all(db, SECRETARIA_MP, "matupa", query(**filters))]

    assert found(search="lúcia") == ["0001/2026"]
    assert found(search="111.444.777-35") == ["0001/2026"]
    assert found(search="0003/") == ["0003/2026"]
    assert found(revenue_kind="multa") == ["0001/2026"]
    assert found(start=date(2026, 3, 3), end=date(2026, 3, 9)) == ["0004/2026", "0003/2026", "0002/2026"]
    assert found(start=MONDAY, end=MONDAY) == ["0001/2026"]
    page = lists.list_page(db, SECRETARIA_MP, "matupa", query(page=2, per_page=3))
    assert (page.total, page.pages, [d["number"] for d in page.rows]) == (4, 2, ["0001/2026"])


def test_csv_export_has_exactly_the_filtered_dams_in_brazilian_formats(db, today):
    first = issue(db, amount=Decimal("1234.50"))
    issue(db, revenue_kind="multa")
    payments.record_payment(db, SECRETARIA_MP, "matupa", first["id"], MONDAY, Decimal("1200.00"), "Caixa")
    rows = lists.export_csv(db, SECRETARIA_MP, "matupa", lists.DamQuery(status=dams.PAID)).decode("utf-8-sig").splitlines()
    assert len(rows) == 2
    cells = rows[1].split(";")
    assert cells[0] == "0001/2026" and cells[2] == "529.982.247-25"
    assert "1.234,50" in cells and "1.200,00" in cells and "02/03/2026" in cells
    assert "Valor divergente" in rows[1]
