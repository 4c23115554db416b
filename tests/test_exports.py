"""Every list exports XLSX beside CSV (issue 11, item 3): the workbook read back as a spreadsheet
program reads it (openpyxl) — pt-BR headers, real dates shown dd/mm/aaaa, money as numbers in R$,
text that looks like a formula kept as text — and pt-BR file names."""
from __future__ import annotations

import io
from dataclasses import replace
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from services.dam import dams, lists, payments
from services.shared import (
    audit_log,
    clock,
    entities,
    entity_files,
    exports,
    schema,
)
from services.shared.schema import Field, ListQuery
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP, TI
from tests.dams_support import MONDAY

ROOT = Path(__file__).resolve().parent.parent
FORMULA = '=HYPERLINK("http://exemplo.invalid/?x=1","Clique aqui")'


def sheet(data: bytes):
    assert data[:2] == b"PK", "not an XLSX (zip) file"
    return openpyxl.load_workbook(io.BytesIO(data)).active


def header(ws) -> list[str]:
    return [c.value for c in ws[1]]


def column(ws, title: str) -> list:
    index = header(ws).index(title)
    return [row[index] for row in ws.iter_rows(min_row=2)]


def is_money(cell) -> bool:
    return cell.data_type == "n" and "R$" in cell.number_format and "#,##0.00" in cell.number_format


def is_date(cell) -> bool:
    return cell.is_date and cell.number_format.startswith("dd/mm/yyyy")


# ---- the workbook ----

def test_a_workbook_has_typed_cells_in_pt_br_formats():
    rows = [{"Nome": FORMULA, "Emissão": date(2026, 12, 1), "Valor": Decimal("1234.56"), "Ano": 2019,
             "Ativo": True, "Quando": datetime(2026, 12, 1, 15, 30, tzinfo=timezone.utc), "Vazio": None}]
    ws = sheet(exports.to_xlsx(rows, sheet="Condutores"))
    assert ws.title == "Condutores"
    assert header(ws) == ["Nome", "Emissão", "Valor", "Ano", "Ativo", "Quando", "Vazio"]
    name, issued, amount, year, active, when, empty = ws[2]
    assert (name.data_type, name.value) == ("s", FORMULA)  # text, never a formula
    assert is_date(issued) and issued.number_format == "dd/mm/yyyy" and issued.value.date() == date(2026, 12, 1)
    assert is_money(amount) and amount.value == pytest.approx(1234.56)
    assert (year.data_type, year.value) == ("n", 2019)
    assert active.value == "Sim" and empty.value is None
    assert is_date(when) and when.value == datetime(2026, 12, 1, 11, 30)  # Cuiabá wall-clock time (UTC-4)


def test_the_header_is_bold_and_frozen_and_columns_fit_their_text():
    rows = [{"Nome completo": "Maria Aparecida da Conceição Figueiredo", "CPF": "529.982.247-25"}]
    ws = sheet(exports.to_xlsx(rows))
    assert all(c.font.b for c in ws[1])
    assert ws.freeze_panes == "A2"
    assert ws.column_dimensions["A"].width >= len(rows[0]["Nome completo"])
    assert ws.auto_filter.ref


def test_an_empty_list_still_has_its_headers():
    ws = sheet(exports.to_xlsx([], ["Número", "Valor"]))
    assert header(ws) == ["Número", "Valor"] and ws.max_row == 1


def test_the_csv_of_the_same_rows_is_pt_br_and_formula_safe():
    rows = [{"Nome": FORMULA, "Emissão": date(2026, 12, 1), "Valor": Decimal("-1234.5"), "Ativo": False}]
    text = exports.to_csv(rows).decode("utf-8-sig").splitlines()
    assert text[0] == "Nome;Emissão;Valor;Ativo"
    assert text[1].startswith("\"'=HYPERLINK(") and text[1].endswith(";01/12/2026;-1.234,50;Não")


def test_several_tables_in_one_csv_a_line_per_cell():
    """Issue 35 item 8: the Resumo's tables in one CSV file beside its workbook (a line per cell)."""
    tables = {"Arrecadação por mês": [{"Mês": "mar/2026", "Pagos (R$)": Decimal("690"), "Vencidos (R$)": "< 3"}],
              "Vazia": [], "-Plataformas": [{"Plataforma": FORMULA, "ISSQN": "Em dia"}]}
    text = exports.to_csv_tables(tables).decode("utf-8-sig").splitlines()
    assert text[:3] == ["Tabela;Linha;Coluna;Valor", "Arrecadação por mês;mar/2026;Pagos (R$);690,00",
                        "Arrecadação por mês;mar/2026;Vencidos (R$);< 3"]
    assert len(text) == 4 and text[3].startswith("'-Plataformas;\"'=HYPERLINK(") and text[3].endswith(";ISSQN;Em dia")


@pytest.mark.parametrize("kind, municipality, ext, expected", [
    ("Condutores", "chapada", "xlsx", "condutores_chapada_2026-12-01.xlsx"),
    ("Condutores", "chapada", "csv", "condutores_chapada_2026-12-01.csv"),
    ("Relações e ISSQN das plataformas", "matupa", "xlsx", "relacoes_e_issqn_das_plataformas_matupa_2026-12-01.xlsx"),
    ("Veículos", "nova_lacerda", ".XLSX", "veiculos_nova_lacerda_2026-12-01.xlsx"),
    ("Usuários", None, "csv", "usuarios_2026-12-01.csv"),
], ids=["drivers-xlsx", "drivers-csv", "accents-and-spaces", "extension-with-dot", "no-municipality"])
def test_file_names_are_pt_br_ascii_lower_case_without_spaces(kind, municipality, ext, expected):
    name = exports.file_name(kind, municipality, date(2026, 12, 1), ext)
    assert name == expected and name.isascii() and " " not in name


# ---- the services ----

@pytest.fixture
def taxpayers_with_money_and_dates(monkeypatch):
    """The taxpayers register with a date and a money field, as a municipality might add."""
    spec = schema.SPECS["taxpayers"]
    extended = replace(spec, fields=spec.fields + (Field("since", "Contribuinte desde", "date"),
                                                   Field("debt", "Débito em aberto", "money")))
    monkeypatch.setitem(schema.SPECS, "taxpayers", extended)
    return extended


def test_a_register_exports_the_filter_with_typed_cells(db, taxpayers_with_money_and_dates):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
        "name": FORMULA, "document": "52998224725", "kind": "pj", "address": "Rua C, 3",
        "since": "15/03/2024", "debt": "1.234,56"})
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
        "name": "Rosa Amaral", "document": "11144477735", "kind": "pf", "address": "Rua D, 4"})
    query = ListQuery(filters={"kind": "pj"})
    ws = sheet(entity_files.export_xlsx(db, SECRETARIA_CG, "taxpayers", "chapada", query))
    assert header(ws) == [f.label for f in taxpayers_with_money_and_dates.fields]
    assert ws.max_row == 2  # the header and the one record the filter shows
    (name,), (document,), (kind,) = (column(ws, t) for t in ("Nome / Razão social", "CPF/CNPJ", "Tipo"))
    assert (name.data_type, name.value) == ("s", FORMULA)
    assert (document.value, kind.value) == ("529.982.247-25", "Pessoa jurídica")
    (since,), (debt,) = column(ws, "Contribuinte desde"), column(ws, "Débito em aberto")
    assert is_date(since) and since.value.date() == date(2024, 3, 15)
    assert is_money(debt) and debt.value == pytest.approx(1234.56)
    csv_lines = entity_files.export_csv(db, SECRETARIA_CG, "taxpayers", "chapada", query).decode("utf-8-sig").splitlines()
    assert len(csv_lines) == ws.max_row


def test_the_dam_list_exports_dates_and_amounts_as_a_spreadsheet_reads_them(db, today):
    dam = dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="Maria da Silva Souza", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua dos Ipês, 120, Centro", revenue_kind="taxa_autorizacao",
        description="Taxa de autorização do transporte por aplicativo",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=Decimal("1234.50"), due=date(2026, 3, 20))
    payments.record_payment(db, SECRETARIA_MP, "matupa", dam["id"], MONDAY, Decimal("1200.00"), "Caixa")
    ws = sheet(lists.export_xlsx(db, SECRETARIA_MP, "matupa", lists.DamQuery()))
    assert header(ws)[:6] == ["Número", "Contribuinte", "CPF/CNPJ", "Receita", "Descrição", "Valor"]
    row = dict(zip(header(ws), ws[2]))
    assert row["Número"].value == "0001/2026" and row["Número"].data_type == "s"
    assert is_money(row["Valor"]) and row["Valor"].value == pytest.approx(1234.50)
    assert is_money(row["Valor pago"]) and row["Valor pago"].value == pytest.approx(1200.00)
    assert is_date(row["Pago em"]) and row["Pago em"].value.date() == MONDAY
    assert is_date(row["Vencimento"]) and row["Vencimento"].value.date() == dam["due_on"]
    assert row["Linha digitável"].data_type == "s"  # 47 digits kept as text, not a rounded number
    assert "Valor divergente" in row["Alertas do pagamento"].value


def test_the_audit_log_exports_its_filter_with_local_times(db):
    for index in range(3):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
            "name": f"Pessoa {index}", "document": ["52998224725", "11144477735", "39053344705"][index],
            "kind": "pf", "address": "Rua E, 5"})
    ws = sheet(audit_log.export_xlsx(db, TI, "chapada", collection="taxpayers"))
    assert header(ws) == list(audit_log.EXPORT_COLUMNS)
    when = column(ws, "Quando")
    assert len(when) == 3 and all(is_date(c) and c.number_format == "dd/mm/yyyy hh:mm:ss" for c in when)
    entries, _ = audit_log.search(db, TI, "chapada", collection="taxpayers")
    local = clock.to_local(entries[0]["at"]).replace(tzinfo=None)
    assert abs((when[0].value - local).total_seconds()) < 1  # newest first, in Cuiabá time
    csv_lines = audit_log.export_csv(db, TI, "chapada", collection="taxpayers").decode("utf-8-sig").splitlines()
    assert csv_lines[0] == ";".join(audit_log.EXPORT_COLUMNS) and len(csv_lines) == 4


# ---- the screens ----

@pytest.fixture
def downloads(monkeypatch):
    """Every download button a page draws: its label, file name and (deferred) data."""
    seen: list[dict] = []
    original = DeltaGenerator.download_button

    def spy(self, label, data, file_name=None, mime=None, **kwargs):
        seen.append({"label": label, "data": data, "file_name": file_name, "mime": mime})
        return original(self, label, data, file_name, mime, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", spy)
    return seen


def test_a_register_page_offers_csv_and_xlsx_with_pt_br_names(db, downloads):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
        "name": "Rosa Amaral", "document": "52998224725", "kind": "pf", "address": "Rua C, 3"})
    at = AppTest.from_file(str(ROOT / "app_pages/taxpayers.py"), default_timeout=60)
    at.session_state["actor"] = SECRETARIA_CG
    at.session_state["municipality"] = "chapada"
    at.run()
    assert not at.exception
    assert {b.label for b in at.get("download_button")} >= {"Exportar CSV (filtro atual)", "Exportar XLSX (filtro atual)"}
    # and they download without rerunning the page: a rerun at the click lost the file (tests/test_downloads.py)
    assert all(b.proto.ignore_rerun for b in at.get("download_button"))
    by_label = {d["label"]: d for d in downloads}
    today = clock.today().isoformat()
    xlsx, csv = by_label["Exportar XLSX (filtro atual)"], by_label["Exportar CSV (filtro atual)"]
    assert xlsx["file_name"] == f"contribuintes_chapada_{today}.xlsx" and xlsx["mime"] == exports.XLSX_MIME
    assert csv["file_name"] == f"contribuintes_chapada_{today}.csv"
    ws = sheet(xlsx["data"]())
    assert column(ws, "Nome / Razão social")[0].value == "Rosa Amaral"


@pytest.mark.parametrize("page, actor, municipality, name", [
    ("app_pages/dams.py", SECRETARIA_MP, "matupa", "dams_matupa"),
    ("app_pages/audit.py", TI, "chapada", "auditoria_chapada"),
    ("app_pages/users.py", TI, "chapada", "usuarios"),
], ids=["dams", "audit", "users"])
def test_every_list_page_offers_xlsx_beside_csv(db, downloads, page, actor, municipality, name):
    at = AppTest.from_file(str(ROOT / page), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    at.run()
    assert not at.exception
    names = {d["file_name"] for d in downloads}
    today = clock.today().isoformat()
    assert {f"{name}_{today}.csv", f"{name}_{today}.xlsx"} <= names
    xlsx = next(d for d in downloads if d["file_name"].endswith(".xlsx"))
    assert header(sheet(xlsx["data"]()))
