"""Authentic documents (issue 37, items 1, 2 and 4): every PDF the panel issues carries a code and the QR of
the public verification, whose answer says what the document is, whether it still stands and whether a
file's bytes are the ones issued; a reprint is the same bytes; a changed record is a new code, "2ª via"."""
from __future__ import annotations

import io
import shutil
import subprocess
import urllib.parse
from datetime import date, timedelta

import pytest
from pypdf import PdfReader

from rules.ridehailing.lifecycle import EventKind
from services.dam import dams, payments, printing, reissue
from services.machinery import documents as booking_documents
from services.ridehailing import authorizations, documents, fees, inspections
from services.ridehailing.enforcement import documents as auto_documents
from services.shared import authenticity, clock, verification
from services.summary import summary
from tests import test_dams_reissue as reissue_data
from tests.conftest import SECRETARIA_MP
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS, inspected, set_fee
from tests.test_bookings import HOURS6
from tests.test_bookings_charges import CLERK, NL, completed, nl, pay, request, upfront  # noqa: F401

CG = ACTORS["chapada"]
rates = reissue_data.rates  # the Código Tributário's multa and juros of Matupá


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def stamp_links(pdf: bytes, tmp_path, page: int = 1) -> list[str]:
    """The verification links read by zbarimg on ``page`` rendered at 150 dpi (the stamp's QR is 12 mm)."""
    if not (shutil.which("pdftoppm") and shutil.which("zbarimg")):
        pytest.fail("pdftoppm/zbarimg ausentes: instale poppler-utils e zbar-tools (.ci/run os instala)")
    (tmp_path / "doc.pdf").write_bytes(pdf)
    for old in tmp_path.glob("page*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "150", "-f", str(page), "-l", str(page), str(tmp_path / "doc.pdf"),
                    str(tmp_path / "page")], check=True)
    image = sorted(tmp_path.glob("page*.png"))[0]
    out = subprocess.run(["zbarimg", "-q", "--raw", str(image)], capture_output=True, text=True)
    return [link for link in out.stdout.split() if "/verificar?codigo=" in link]


def follow(db, pdf: bytes, tmp_path, page: int = 1) -> verification.Answer:
    """Scan the stamp's QR and ask the verification the link names, with the file."""
    [link] = stamp_links(pdf, tmp_path, page)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["codigo"][0]
    answer = verification.verify(db, code, pdf)
    assert answer.code in text(pdf)  # the code printed beside the QR is the one it carries
    return answer


@pytest.fixture
def issued(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, CG, "chapada", auth, clock.today())
    payments.record_payment(db, CG, "chapada", bill["id"], clock.today(), bill["amount"], "Caixa")
    return auth, bill


def test_the_ride_hailing_documents_and_the_dam_carry_a_code_whose_qr_leads_to_their_verification(db, issued, tmp_path):
    auth, bill = issued
    inspections.call_inspection(db, CG, "chapada", auth, clock.today(), "Denúncia sobre os pneus")
    inspection = db["inspections"].find_one({"authorization_id": auth})
    made = {
        "Selo de identificação do veículo": documents.sticker_pdf(db, CG, "chapada", auth),
        "Certificado de autorização": documents.certificate_pdf(db, CG, "chapada", auth),
        "Laudo de vistoria": documents.inspection_report_pdf(db, CG, "chapada", str(inspection["_id"])),
        "Notificação de convocação para vistoria extraordinária": documents.convocation_notice_pdf(db, CG, "chapada",
                                                                                                    auth),
    }
    for kind, pdf in made.items():
        answer = follow(db, pdf, tmp_path)
        assert (answer.found, answer.valid, answer.same_bytes, answer.kind) == (True, True, True, kind)
        assert answer.municipality == "Chapada dos Guimarães" and answer.status == "Válido"
    assert follow(db, made["Selo de identificação do veículo"], tmp_path).number == f"0001/{clock.today().year}"


def test_the_enforcement_documents_carry_a_code_on_every_page_and_the_case_file_lists_them(db, today, tmp_path):
    cpf, _plate = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 9), cpf)
    made = {
        "Auto de infração": auto_documents.auto_pdf(db, CG, "chapada", auto_id),
        "Notificação do auto de infração": auto_documents.notification_pdf(db, CG, "chapada", auto_id),
    }
    platform = auto_documents.notification_pdf(db, CG, "chapada", auto_id, "plataforma")
    for kind, pdf in made.items():
        answer = follow(db, pdf, tmp_path)
        assert (answer.kind, answer.same_bytes, answer.valid) == (kind, True, True)
        pages = len(PdfReader(io.BytesIO(pdf)).pages)
        assert follow(db, pdf, tmp_path, page=pages).code == answer.code  # the same stamp on the last page
    # the two notifications (offender, platform) are two documents, neither the 2ª via of the other
    notices = [follow(db, pdf, tmp_path) for pdf in (made["Notificação do auto de infração"], platform)]
    assert notices[0].code != notices[1].code and notices[0].valid and notices[1].valid and not notices[1].via_of
    case = auto_documents.case_file_pdf(db, CG, "chapada", auto_id)
    answer = follow(db, case, tmp_path)
    assert answer.kind == "Processo administrativo do auto de infração" and answer.same_bytes
    shown = text(case)
    assert "DOCUMENTOS EMITIDOS NO PROCESSO" in shown
    for earlier in (*made.values(), platform):
        assert follow(db, earlier, tmp_path).code in shown


def test_the_booking_documents_and_the_management_report_carry_a_code(db, nl, today, tmp_path):  # noqa: F811
    rid = completed(db, nl, today)
    made = {
        "Orçamento de serviço de máquinas": booking_documents.quote_pdf(db, CLERK, NL, rid),
        "Ordem de serviço de máquinas": booking_documents.service_order_pdf(db, CLERK, NL, rid),
        "Recibo de serviço de máquinas": booking_documents.receipt_pdf(db, CLERK, NL, rid),
        "Extrato de serviço de máquinas": booking_documents.statement_pdf(db, CLERK, NL, rid),
        "Quadro da semana das máquinas": booking_documents.week_board_pdf(db, CLERK, NL, date(2026, 4, 6)),
        "Relatório gerencial (Resumo)": summary.report_pdf(db, CLERK, NL, date(2026, 4, 1), date(2026, 4, 30)),
    }
    for kind, pdf in made.items():
        answer = follow(db, pdf, tmp_path)
        assert (answer.kind, answer.same_bytes, answer.valid, answer.municipality) == (kind, True, True, "Nova Lacerda")


def test_one_byte_changed_is_not_the_issued_file_and_a_reprint_is_the_same_bytes(db, issued, tmp_path):
    auth, bill = issued
    pdf = documents.certificate_pdf(db, CG, "chapada", auth)
    assert documents.certificate_pdf(db, CG, "chapada", auth) == pdf  # the same document, not a new one
    dam = printing.pdf_batch(db, CG, "chapada", [bill["id"]])
    assert printing.pdf_batch(db, CG, "chapada", [bill["id"]]) == dam
    for issued_pdf in (pdf, dam):
        changed = bytearray(issued_pdf)
        changed[len(changed) // 2] ^= 0x01  # one bit of one byte
        code = follow(db, issued_pdf, tmp_path).code
        assert verification.verify(db, code, bytes(changed)).same_bytes is False
        assert verification.verify(db, code, issued_pdf).same_bytes is True
        assert verification.verify(db, code).same_bytes is None


def test_a_changed_record_is_a_new_code_marked_2a_via_and_the_earlier_is_replaced(db, nl, today, tmp_path):  # noqa: F811
    rid, doc = request(db, nl["farmer"], HOURS6)
    before = booking_documents.statement_pdf(db, CLERK, NL, rid)
    old = follow(db, before, tmp_path)
    pay(db, upfront(doc)[0]["dam_id"])
    after = booking_documents.statement_pdf(db, CLERK, NL, rid)
    new = follow(db, after, tmp_path)
    assert new.code != old.code and f"2ª via de {old.code}" in text(after)
    assert new.via_of == f"2ª via do documento de código {old.code}" and new.valid
    earlier = verification.verify(db, old.code, before)
    assert (earlier.valid, earlier.status, earlier.same_bytes) == (False, "Substituído", True)
    assert f"pelo documento de código {new.code}" in earlier.detail


def test_a_cancelled_dam_and_a_dam_replaced_by_its_2a_via_say_so(db, today, rates, tmp_path):
    cancelled = reissue_data.issue(db)
    first = follow(db, printing.pdf_batch(db, SECRETARIA_MP, "matupa", [cancelled["id"]]), tmp_path)
    dams.cancel(db, SECRETARIA_MP, "matupa", cancelled["id"], "Lançado em duplicidade para Francisca Gomes")
    shown = verification.verify(db, first.code)
    assert (shown.valid, shown.status) == (False, "Cancelado") and shown.detail.startswith("Cancelado em ")
    # the clerk's reason is free text that may name a person: neither shown to a stranger nor kept in the record
    assert "Francisca" not in repr(shown) and "Francisca" not in repr(list(db[authenticity.COLLECTION].find()))

    original = reissue_data.issue(db)
    was = follow(db, printing.pdf_batch(db, SECRETARIA_MP, "matupa", [original["id"]]), tmp_path).code
    today.set(reissue_data.LATER)
    via = reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], reissue_data.NEW_DUE)
    assert verification.verify(db, was).status == "Substituído"
    new = follow(db, printing.pdf_batch(db, SECRETARIA_MP, "matupa", [via["id"]]), tmp_path)
    assert verification.verify(db, was).detail.endswith(f"pelo documento de código {new.code}.")


def test_a_revoked_authorization_marks_its_sticker_and_certificate(db, issued, tmp_path):
    auth, _bill = issued
    codes = [follow(db, build(db, CG, "chapada", auth), tmp_path).code
             for build in (documents.sticker_pdf, documents.certificate_pdf)]
    authorizations.apply_penalty(db, CG, "chapada", auth, EventKind.REVOKED, clock.today(), note="Decisão no processo")
    for code in codes:
        answer = verification.verify(db, code)
        assert (answer.valid, answer.status) == (False, "Revogado") and "Autorização revogada" in answer.detail


def test_a_revocation_lifted_makes_the_sticker_and_certificate_valid_again(db, issued, tmp_path):
    """An appeal in time or granted lifts the penalty (CG Decreto 06/2026 art. 25, recurso; MP Lei 1.552/2025 art. 25
    §4): the passenger who checks the sticker must not read "Revogado" on an authorization in force."""
    auth, _bill = issued
    codes = [follow(db, build(db, CG, "chapada", auth), tmp_path).code
             for build in (documents.sticker_pdf, documents.certificate_pdf)]
    authorizations.apply_penalty(db, CG, "chapada", auth, EventKind.REVOKED, clock.today(), note="Decisão",
                                 ref="auto-1")
    authorizations.lift_penalty(db, CG, "chapada", auth, "auto-1", clock.today(), "Recurso provido")
    for code in codes:
        answer = verification.verify(db, code)
        assert (answer.valid, answer.status) == (True, "Válido"), (answer.status, answer.detail)


def test_a_cassacao_final_on_a_later_day_leaves_the_sticker_valid_until_that_day(db, today, issued, tmp_path):
    """The penalty takes effect the day its decision becomes final, after the appeal term (CG Decreto 06/2026
    art. 25; MP Lei 1.552/2025 art. 25 §4): until then the authorization is in force, and the passenger who
    checks the sticker read "Revogado" from the day the decision was recorded."""
    auth, _bill = issued
    codes = [follow(db, build(db, CG, "chapada", auth), tmp_path).code
             for build in (documents.sticker_pdf, documents.certificate_pdf)]
    final = today.value + timedelta(days=20)
    authorizations.apply_penalty(db, CG, "chapada", auth, EventKind.CASSADA, final, note="Decisão", ref="auto-1")
    today.set(final - timedelta(days=1))
    assert [(a.valid, a.status) for a in map(lambda c: verification.verify(db, c), codes)] == [(True, "Válido")] * 2
    today.set(final)
    for code in codes:
        answer = verification.verify(db, code)
        assert (answer.valid, answer.status) == (False, "Revogado")
        assert answer.detail == f"Revogado em {final:%d/%m/%Y}: Autorização cassada a partir de {final:%d/%m/%Y}."


def test_an_appeal_in_time_keeps_the_sticker_valid_past_the_day_the_cassacao_would_have_applied(db, today, issued,
                                                                                                 tmp_path):
    auth, _bill = issued
    codes = [follow(db, build(db, CG, "chapada", auth), tmp_path).code
             for build in (documents.sticker_pdf, documents.certificate_pdf)]
    final = today.value + timedelta(days=20)
    authorizations.apply_penalty(db, CG, "chapada", auth, EventKind.CASSADA, final, note="Decisão", ref="auto-1")
    today.set(today.value + timedelta(days=5))
    authorizations.lift_penalty(db, CG, "chapada", auth, "auto-1", today.value, "Recurso no prazo")
    today.set(final + timedelta(days=30))
    assert [(a.valid, a.status) for a in map(lambda c: verification.verify(db, c), codes)] == [(True, "Válido")] * 2


def test_two_first_prints_at_the_same_instant_make_one_document(db, issued, monkeypatch):
    # two clerks print the sticker at once: each read "none issued yet" and each recorded its own code,
    # both valid, and a later change superseded only one of them
    auth, _bill = issued
    first = documents.sticker_pdf(db, CG, "chapada", auth)
    real, reads = authenticity._current, []

    def read_before_the_first_was_recorded(*args):
        reads.append(args)
        return {} if len(reads) == 1 else real(*args)

    monkeypatch.setattr(authenticity, "_current", read_before_the_first_was_recorded)
    assert documents.sticker_pdf(db, CG, "chapada", auth) == first  # the second print is the first's document
    assert db[authenticity.COLLECTION].count_documents({"kind": "selo", "status": authenticity.VALID}) == 1


def test_a_batch_of_dams_gives_each_dam_its_own_code_kept_on_a_later_print(db, today, tmp_path):
    first, second = reissue_data.issue(db), reissue_data.issue(db)
    batch = printing.pdf_batch(db, SECRETARIA_MP, "matupa", [first["id"], second["id"]])
    codes = [follow(db, batch, tmp_path, page=page).code for page in (1, 2)]
    assert len(set(codes)) == 2
    alone = printing.pdf_batch(db, SECRETARIA_MP, "matupa", [second["id"]])
    assert follow(db, alone, tmp_path).code == codes[1]  # the same DAM, the same code
    assert verification.verify(db, codes[1], batch).same_bytes  # the batch file it was issued in counts too


def test_the_verification_shows_no_personal_data(db, issued, tmp_path):
    auth, bill = issued
    pdf = documents.certificate_pdf(db, CG, "chapada", auth)
    answer = follow(db, pdf, tmp_path)
    record = db[authenticity.COLLECTION].find_one({"code": answer.code})
    doc = authorizations.get_authorization(db, CG, "chapada", auth)
    person = db["drivers"].find_one({"cpf": doc["driver_cpf"]})
    said = " ".join(str(value) for value in vars(answer).values())
    for private in (person["name"], person["name"].split()[0], doc["driver_cpf"], doc["plate"]):
        assert private not in said and private not in str(record)  # the record keeps nobody's data either
    for staff in (CG.name, CG.username):  # the record names the clerk who issued it; the public sees the organ
        assert staff not in said
    assert answer.issuer.endswith("Prefeitura Municipal de Chapada dos Guimarães")


def test_a_code_drawn_twice_is_refused_by_the_index_and_drawn_again(db, issued, monkeypatch):
    auth, _bill = issued
    documents.certificate_pdf(db, CG, "chapada", auth)
    existing = db[authenticity.COLLECTION].find_one({"kind": "certificado"})["code"]
    drawn = iter([existing, "ZZZZ-ZZZZ-ZZZZ"])
    monkeypatch.setattr(authenticity, "new_code", lambda: next(drawn))
    pdf = documents.sticker_pdf(db, CG, "chapada", auth)
    assert "ZZZZ-ZZZZ-ZZZZ" in text(pdf)
    assert verification.verify(db, existing).kind == "Certificado de autorização"


@pytest.mark.parametrize("typed, shown", [
    ("abcd-efgh-jkmn", "ABCD-EFGH-JKMN"), ("ABCD EFGH JKMN", "ABCD-EFGH-JKMN"), ("ABCDEFGHJKMN", "ABCD-EFGH-JKMN"),
    ("ABCD-EFGH-JKM0", ""), ("ABCD-EFGH-JKMI", ""), ("ABCD-EFGH", ""), ("", ""),
])
def test_a_typed_code_is_read_in_its_printed_form(typed, shown):
    assert authenticity.normal_code(typed) == shown
