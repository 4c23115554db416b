"""Bank return file import: the real FEBRABAN files in tests/data/febraban150 (copies of
../shared/febraban150; other órgãos' barcodes: all unmatched, nothing changed) and generated
files covering every outcome and idempotence."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from rules.base import RuleError
from rules.dam.bank_return import ReturnPayment, build_return_file
from rules.dam.barcode import dam_barcode
from services.dam import bank_import, bank_report, charges, dams
from services.dam import payments as dam_payments
from services.shared import events
from services.shared.errors import PermissionDenied
from services.store import decode
from tests.conftest import GABINETE, SECRETARIA_MP
from tests.dams_support import MONDAY, last_paid_dam

REAL_FILES = sorted(
    p for p in (Path(__file__).resolve().parent / "data" / "febraban150").iterdir() if p.suffix in (".ret", ".txt")
)


def issue(db, amount="150.00", due=date(2026, 3, 20), pays=None):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="João Pereira Lima", taxpayer_document="529.982.247-25",
        taxpayer_address="Avenida Brasil, 45", revenue_kind="taxa_vistoria", description="Taxa de vistoria",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15", amount=Decimal(amount), due=due, pays=pays,
    )


def snapshot(db) -> list[dict]:
    """Every DAM as stored, to compare before and after an import."""
    return [decode(d) for d in db["dams"].find({}).sort("sequence", 1)]


def run(db, content: str | bytes):
    data = content.encode("latin-1") if isinstance(content, str) else content
    return bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)


def test_the_real_bank_files_are_all_reported_unmatched_and_change_nothing(db, today):
    assert len(REAL_FILES) == 6
    issue(db)
    before, audits = snapshot(db), db["audit"].count_documents({})
    results = [run(db, path.read_bytes()) for path in REAL_FILES]
    assert sum(len(r.lines) for r in results) == 689
    assert all(line.outcome == bank_report.UNMATCHED for r in results for line in r.lines)
    assert not any(r.paid or r.duplicated or r.cancelled or r.different_amount for r in results)
    reasons = {line.message for r in results for line in r.lines}
    assert reasons == {"Código de barras de outro segmento (5), não de prefeitura",
                       "Código de barras de outro órgão (código FEBRABAN 0299)"}
    assert snapshot(db) == before
    assert db["audit"].count_documents({}) == audits + 6  # one entry per imported file, none per DAM
    assert {r.bank for r in results} == {"341 BANCO ITAU S.A.", "001 BANCO DO BRASIL  S/A"}
    again = [run(db, path.read_bytes()) for path in REAL_FILES]
    assert all(r.already_imported for r in again)
    assert [len(r.lines) for r in again] == [len(r.lines) for r in results]
    assert db["audit"].count_documents({}) == audits + 6


@pytest.fixture
def paid_events(monkeypatch):
    calls: list[str] = []
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records",
                        [lambda db, charge_id: calls.append(last_paid_dam(db, charge_id))])
    return calls


def test_generated_file_covers_every_outcome_and_a_second_import_changes_nothing(db, today, paid_events):
    pays = {"collection": "test_records", "id": "r1", "label": "Registro de teste"}
    exact, short, late, manual, cancelled, repeated = (issue(db, pays=pays) for _ in range(6))
    dam_payments.record_payment(db, SECRETARIA_MP, "matupa", manual["id"], MONDAY, Decimal("150.00"), "PIX")
    dams.cancel(db, SECRETARIA_MP, "matupa", cancelled["id"], "Emitido em duplicidade")
    other_agency = dam_barcode(Decimal("150.00"), "0299", date(2026, 3, 20), 2026, 1).digits
    never_issued = dam_barcode(Decimal("150.00"), "0592", date(2026, 3, 20), 2026, 999).digits
    broken = repeated["barcode"][:3] + str((int(repeated["barcode"][3]) + 1) % 10) + repeated["barcode"][4:]
    on_time, after_due = date(2026, 3, 18), date(2026, 3, 24)
    payments = [
        ReturnPayment(exact["barcode"], on_time, Decimal("150.00")),       # line 2
        ReturnPayment(short["barcode"], on_time, Decimal("140.00")),       # line 3
        ReturnPayment(late["barcode"], after_due, Decimal("150.00")),      # line 4
        ReturnPayment(manual["barcode"], on_time, Decimal("150.00")),      # line 5
        ReturnPayment(cancelled["barcode"], on_time, Decimal("150.00")),   # line 6
        ReturnPayment(repeated["barcode"], on_time, Decimal("150.00")),    # line 7
        ReturnPayment(repeated["barcode"], on_time, Decimal("150.00")),    # line 8
        ReturnPayment(other_agency, on_time, Decimal("150.00")),           # line 9
        ReturnPayment(never_issued, on_time, Decimal("150.00")),           # line 10
        ReturnPayment(broken, on_time, Decimal("150.00")),                 # line 11
    ]
    content = build_return_file(payments, generated_on=date(2026, 3, 25), file_sequence=7)
    today.set(date(2026, 3, 25))
    result = run(db, content)
    outcome = {line.line_number: (line.outcome, line.flags) for line in result.lines}
    assert outcome == {
        2: ("pago", ()),
        3: ("pago", ("valor_divergente", "debito_pago_a_menor")),
        4: ("pago", ("pago_em_atraso",)),
        5: ("duplicado", ()),
        6: ("dam_cancelado", ("dam_cancelado",)),
        7: ("pago", ()),
        8: ("duplicado", ()),
        9: ("nao_encontrado", ()),
        10: ("nao_encontrado", ()),
        11: ("nao_encontrado", ()),
    }
    messages = {line.line_number: line.message for line in result.lines}
    assert "R$ 10,00 a menor" in messages[3]
    assert "após o vencimento" in messages[4]
    assert "baixa manual" in messages[5]
    assert messages[8] == "Código de barras repetido na linha 7 do arquivo"
    assert messages[9] == "Código de barras de outro órgão (código FEBRABAN 0299)"
    assert messages[10] == "Nenhum DAM deste município tem este código de barras"
    assert messages[11].startswith("Código de barras inválido")
    assert [line.line_number for line in result.different_amount] == [3]
    assert [line.line_number for line in result.late] == [4]
    assert (len(result.paid), len(result.unmatched), len(result.duplicated), len(result.cancelled)) == (4, 3, 2, 1)
    assert result.total_received == Decimal("1490.00")

    def state(dam):
        return dams.get(db, SECRETARIA_MP, "matupa", dam["id"])

    assert [state(d)["status"] for d in (exact, short, late, repeated)] == ["pago"] * 4
    assert state(short)["payment"]["amount"] == Decimal("140.00")
    origin = state(exact)["payment"]["origin"]
    assert (origin["kind"], origin["file_id"], origin["file_sequence"], origin["line_number"]) == (
        "retorno", result.file_id, 7, 2)
    assert state(manual)["payment"]["origin"] == {"kind": "manual"}
    kept = state(cancelled)
    assert kept["status"] == "cancelado" and kept["payment"]["flags"] == ["dam_cancelado"]
    # the cancelled DAM's payment counts on its charge too (the bank received it): its record is told
    assert sorted(paid_events) == sorted([manual["number"], exact["number"], short["number"], late["number"],
                                          repeated["number"], cancelled["number"]])
    assert charges.load(db, cancelled["charge_id"])["status"] == "pago"

    before, audits, events_before = snapshot(db), db["audit"].count_documents({}), list(paid_events)
    again = run(db, content)
    assert again.already_imported and again.file_id == result.file_id
    assert again.lines == result.lines
    assert snapshot(db) == before
    assert db["audit"].count_documents({}) == audits
    assert paid_events == events_before
    assert run(db, content.replace("\r\n", "\n")).already_imported  # LF instead of CRLF: same file


def test_a_later_file_paying_the_same_dam_is_reported_duplicated(db, today):
    dam = issue(db)
    first = build_return_file([ReturnPayment(dam["barcode"], MONDAY, Decimal("150.00"))], generated_on=MONDAY,
                              file_sequence=1)
    second = build_return_file([ReturnPayment(dam["barcode"], date(2026, 3, 3), Decimal("150.00"))],
                               generated_on=date(2026, 3, 3), file_sequence=2)
    assert [line.outcome for line in run(db, first).lines] == ["pago"]
    before = snapshot(db)
    report = run(db, second)
    assert [line.outcome for line in report.lines] == ["duplicado"]
    assert "arquivo retorno NSA 1" in report.lines[0].message
    assert snapshot(db) == before


def test_a_different_file_with_an_nsa_already_imported_is_refused(db, today):
    dam = issue(db)
    other = issue(db)
    first = build_return_file([ReturnPayment(dam["barcode"], MONDAY, Decimal("150.00"))], generated_on=MONDAY,
                              file_sequence=5)
    resent = build_return_file([ReturnPayment(other["barcode"], MONDAY, Decimal("150.00"))], generated_on=MONDAY,
                               file_sequence=5)
    run(db, first)
    before = snapshot(db)
    with pytest.raises(bank_import.ReturnFileResent, match="sequência \\(NSA\\) 5"):
        run(db, resent)
    assert snapshot(db) == before
    next_one = build_return_file([ReturnPayment(other["barcode"], MONDAY, Decimal("150.00"))], generated_on=MONDAY,
                                 file_sequence=6)
    assert [line.outcome for line in run(db, next_one).lines] == ["pago"]


def test_a_file_out_of_layout_is_refused_whole(db, today):
    dam = issue(db)
    content = build_return_file([ReturnPayment(dam["barcode"], MONDAY, Decimal("150.00"))], generated_on=MONDAY)
    truncated = content.replace("\r\n", "\n").splitlines()
    truncated[1] = truncated[1][:149]
    with pytest.raises(RuleError, match="Linha 2"):
        run(db, "\n".join(truncated) + "\n")
    assert dams.get(db, SECRETARIA_MP, "matupa", dam["id"])["status"] == "emitido"
    assert db["dam_return_files"].count_documents({}) == 0


def test_only_who_may_write_imports_and_the_imported_files_are_listed(db, today):
    content = build_return_file([], generated_on=MONDAY, file_sequence=3)
    with pytest.raises(PermissionDenied):
        bank_import.import_return_file(db, GABINETE, "matupa", content.encode())
    run(db, content)
    (listed,) = bank_import.imported_files(db, SECRETARIA_MP, "matupa")
    assert (listed["file_sequence"], listed["records"], "content" in listed) == (3, 0, False)
