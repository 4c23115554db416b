"""Issue 37 item 3: the municipality signs the PDFs TI chose with its ICP-Brasil A1 certificate (PAdES), the
password never reaches the store, and TI is warned before the certificate expires.

The PKI is the tests' own (tests/pki_support.py); signatures are checked with pyHanko's validator against
that root, as a PDF reader checks them against the ICP-Brasil roots."""
from __future__ import annotations

import io
import re
import stat
import subprocess
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from streamlit.testing.v1 import AppTest

from services.dam import dams, printing
from services.setup import deployment, signature
from services.shared import audit_log, backup, clock, municipalities, pdf_signing, signing_keys
from services.shared.errors import ValidationFailed
from tests import pki_support as pki
from tests.conftest import ROOT, SECRETARIA_MP, TI

TOWN = "matupa"
PASSWORD = "S3nha-do-A1-Única"
CNPJ = "11222333000181"  # invented, valid check digits


@pytest.fixture(scope="module")
def root():
    return pki.make_ca()


@pytest.fixture(scope="module")
def a1(root):
    return pki.make_legal_person(root, "Município de Matupá", CNPJ)


@pytest.fixture(autouse=True)
def fresh_signers(monkeypatch):
    monkeypatch.delenv(signing_keys.password_variable(TOWN), raising=False)
    pdf_signing.forget()
    yield
    pdf_signing.forget()


def upload(db, issued: pki.Issued, password: str | None = PASSWORD, kinds=("dam",), file_password: str = PASSWORD):
    done = signature.set_certificate(db, TI, TOWN, issued.pkcs12(file_password.encode()), "prefeitura.pfx",
                                     password)
    signature.set_signed_kinds(db, TI, TOWN, list(kinds))
    return done


def dam_pdf(db, with_dam: bool = False):
    dam = dams.issue(db, SECRETARIA_MP, TOWN, taxpayer_name="Francisca Oliveira Gomes",
                     taxpayer_document="529.982.247-25", taxpayer_address="Rua Cuiabá, 300, Jardim das Flores",
                     revenue_kind="multa", description="Multa por auto de infração 0012/2026",
                     legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 25", amount=Decimal("150.00"),
                     due=date.today() + timedelta(days=10))
    pdf = printing.pdf(db, SECRETARIA_MP, TOWN, [dam["id"]])
    return (dam, pdf) if with_dam else pdf


def status(pdf: bytes, root: pki.Issued):
    signed = PdfFileReader(io.BytesIO(pdf)).embedded_signatures
    assert len(signed) == 1
    context = ValidationContext(trust_roots=[asn1_x509.Certificate.load(root.der)])
    return signed[0], validate_pdf_signature(signed[0], context)


def shown_text(stream: bytes) -> str:
    """The text of an appearance stream's strings (octal escapes undone; WinAnsi, as its font says)."""
    strings = re.findall(rb"\(((?:[^()\\]|\\.)*)\) Tj", stream)
    unescaped = [re.sub(rb"\\([0-7]{1,3}|.)", lambda m: bytes([int(m[1], 8)]) if m[1].isdigit() else m[1], s)
                 for s in strings]
    return "\n".join(s.decode("cp1252") for s in unescaped)


def test_a_chosen_kind_leaves_signed_intact_valid_and_trusted_with_the_signers_name_visible(db, root, a1):
    upload(db, a1)
    pdf = dam_pdf(db)
    signed = pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf)
    assert signed.startswith(pdf)  # an incremental update: the issued bytes are kept as they were
    embedded, found = status(signed, root)
    assert (found.intact, found.valid, found.trusted) == (True, True, True)
    assert found.signing_cert.subject.native["common_name"] == f"MUNICÍPIO DE MATUPÁ:{CNPJ}"
    assert embedded.sig_object["/Filter"] == "/Adobe.PPKLite"
    assert embedded.sig_object["/SubFilter"] == "/ETSI.CAdES.detached"  # PAdES
    widget = embedded.sig_field["/Kids"][0] if "/Kids" in embedded.sig_field else embedded.sig_field
    appearance = shown_text(widget["/AP"]["/N"].data)
    assert "Assinado digitalmente por MUNICÍPIO DE MATUPÁ" in appearance
    assert "CNPJ 11.222.333/0001-81 · " in appearance
    x1, y1, x2, y2 = (float(v) for v in widget["/Rect"])
    assert x1 > 595 / 2 and y2 < 10 * 72 / 25.4  # bottom right, inside the bottom margin (below the footer)


def test_a_kind_not_chosen_and_a_municipality_without_certificate_keep_their_bytes(db, a1):
    pdf = dam_pdf(db)
    assert pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf) is pdf
    listed = {item.what: item.status for item in deployment.missing_values(db, TI, TOWN)}
    assert listed[f"Certificado digital A1 da Prefeitura ({signature.NO_CERTIFICATE})"] == deployment.NOT_SET
    upload(db, a1, kinds=("recibo",))
    assert pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf) is pdf
    assert not any(what.startswith("Certificado digital") for what in
                   (item.what for item in deployment.missing_values(db, TI, TOWN)))


def test_a_signed_document_given_again_is_not_signed_twice(db, root, a1):
    upload(db, a1)
    signed = pdf_signing.sign_if_chosen(db, TOWN, "dam", dam_pdf(db))
    assert pdf_signing.sign_if_chosen(db, TOWN, "dam", signed) is signed
    _, found = status(signed, root)
    assert found.bottom_line


def test_one_changed_byte_is_told_by_the_validator(db, root, a1):
    upload(db, a1)
    signed = bytearray(pdf_signing.sign_if_chosen(db, TOWN, "dam", dam_pdf(db)))
    at = signed.index(b"Painel Municipal")
    signed[at] = ord("p")
    _, found = status(bytes(signed), root)
    assert found.intact is False and found.bottom_line is False


def test_the_upload_shows_what_the_certificate_says(db, a1):
    done = upload(db, a1)
    assert (done.holder, done.cnpj, done.issuer) == ("MUNICÍPIO DE MATUPÁ", CNPJ, "AC Raiz de Teste do Painel")
    assert done.valid_until == a1.cert.not_valid_after_utc and done.uploaded_by == TI.username
    assert signature.certificate(db, TI, TOWN).kinds == ("dam",)


@pytest.mark.parametrize("make, password, field, message", [
    (lambda root: pki.make_legal_person(root, "Município de Matupá", CNPJ), "senha-errada", "password",
     "A senha não abre o certificado"),
    (lambda root: pki.make_legal_person(root, "Município de Matupá", CNPJ, days=365,
                                        not_before=datetime.now(timezone.utc) - timedelta(days=400)),
     PASSWORD, "certificate", "O certificado venceu em"),
    (lambda root: pki.make_legal_person(root, "Município de Matupá", CNPJ), "", "password",
     "Informe a senha do certificado."),
], ids=["senha errada", "certificado vencido", "sem senha"])
def test_a_wrong_password_or_an_expired_certificate_is_refused_in_portuguese(db, root, make, password, field,
                                                                             message):
    with pytest.raises(ValidationFailed) as refused:
        signature.set_certificate(db, TI, TOWN, make(root).pkcs12(PASSWORD.encode()), "a1.pfx", password)
    assert refused.value.errors[field].startswith(message)
    assert signature.certificate(db, TI, TOWN) is None
    assert not signing_keys.key_file(TOWN).exists()


def test_a_file_that_is_no_pkcs12_is_refused_at_the_upload_boundary(db):
    with pytest.raises(ValidationFailed) as refused:
        signature.set_certificate(db, TI, TOWN, b"%PDF-1.4 not a certificate", "a1.pfx", PASSWORD)
    assert refused.value.errors["certificate"].startswith("O arquivo não é um certificado A1 (PKCS#12")
    with pytest.raises(ValidationFailed) as refused:
        signature.set_certificate(db, TI, TOWN, b"\x30\x03\x02\x01\x03", "a1.pfx", PASSWORD)
    assert refused.value.errors["certificate"].startswith("O arquivo não é um certificado A1 (PKCS#12")


def test_a_certificate_of_another_cnpj_is_refused(db, root):
    db["municipalities"].update_one({"code": TOWN}, {"$set": {"cnpj": "11444777000161"}})
    other = pki.make_legal_person(root, "Município de Matupá", CNPJ)
    with pytest.raises(ValidationFailed) as refused:
        signature.set_certificate(db, TI, TOWN, other.pkcs12(PASSWORD.encode()), "a1.pfx", PASSWORD)
    assert refused.value.errors["certificate"] == (
        "O certificado é do CNPJ 11.222.333/0001-81, mas o CNPJ da Prefeitura é 11.444.777/0001-61; envie o "
        "certificado da Prefeitura.")


def test_the_password_never_lands_in_the_store_its_backup_or_the_audit(db, data_dir, a1, tmp_path):
    upload(db, a1)
    pdf_signing.sign_if_chosen(db, TOWN, "dam", dam_pdf(db))
    secret = PASSWORD.encode("utf-8")
    key = signing_keys.key_file(TOWN)
    assert key.read_bytes() == secret and stat.S_IMODE(key.stat().st_mode) == 0o600
    backup.backup(db, tmp_path / "copia")
    kept = [p for folder in (data_dir, tmp_path / "copia") for p in folder.rglob("*") if p.is_file() and p != key]
    assert kept and not [str(p) for p in kept if secret in p.read_bytes()]
    entries, _ = audit_log.search(db, TI, TOWN, collection="municipalities")
    assert entries and PASSWORD not in repr(entries)


def test_the_environment_variable_gives_the_password_and_no_key_file_is_written(db, root, a1, monkeypatch):
    monkeypatch.setenv(signing_keys.password_variable(TOWN), PASSWORD)
    done = upload(db, a1, password=None)
    assert done.password_at == "variável de ambiente PAINEL_A1_SENHA_MATUPA"
    assert not signing_keys.key_file(TOWN).exists()
    _, found = status(pdf_signing.sign_if_chosen(db, TOWN, "dam", dam_pdf(db)), root)
    assert found.valid and found.trusted


def test_a_replaced_certificate_signs_the_next_document(db, root, a1):
    upload(db, a1)
    pdf = dam_pdf(db)
    _, first = status(pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf), root)
    renewed = pki.make_legal_person(root, "Município de Matupá", CNPJ)
    upload(db, renewed)
    _, second = status(dam_pdf(db), root)  # the next DAM the panel issues (signed as it is issued)
    assert first.signing_cert.serial_number == a1.cert.serial_number
    assert second.signing_cert.serial_number == renewed.cert.serial_number


def test_an_expired_certificate_or_a_lost_password_leaves_documents_unsigned_and_listed(db, a1):
    upload(db, a1)
    pdf = dam_pdf(db)
    signing_keys.key_file(TOWN).unlink()
    pdf_signing.forget()
    assert pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf) is pdf
    assert signature.NO_PASSWORD in {item.status for item in deployment.missing_values(db, TI, TOWN)}
    db["municipalities"].update_one({"code": TOWN}, {"$set": {"signing_certificate.valid_until":
                                                              datetime.now(timezone.utc) - timedelta(days=1)}})
    assert pdf_signing.sign_if_chosen(db, TOWN, "dam", pdf) is pdf
    assert signature.EXPIRED in {item.status for item in deployment.missing_values(db, TI, TOWN)}


# TI's notice on Início (issue 37 item 3: "expiry of the certificate is warned 30 days ahead")
@pytest.mark.parametrize("days_left, level", [
    (31, None),
    (30, signing_keys.WARNING),
    (1, signing_keys.WARNING),
    (0, signing_keys.WARNING),  # its last day
    (-1, signing_keys.EXPIRED),
])
def test_the_expiry_notice_starts_30_days_ahead(days_left, level):
    until = date(2027, 5, 10)
    found = signing_keys.expiry_notice(until, until - timedelta(days=days_left))
    assert (found[0] if found else None) == level
    if found:
        assert "10/05/2027" in found[1]


def test_the_home_notice_reads_the_stored_certificate(db, a1):
    upload(db, a1)
    last_day = clock.local_date(signature.certificate(db, TI, TOWN).valid_until)  # in Cuiabá
    assert signature.expiry_notice(db, TI, TOWN, last_day - timedelta(days=31)) is None
    warned = signature.expiry_notice(db, TI, TOWN, last_day - timedelta(days=30))
    assert warned.level == signing_keys.WARNING and warned.name == municipalities.get(db, TOWN).name
    assert warned.text.startswith("O certificado digital vence em 30 dias")
    assert signature.expiry_notice(db, TI, TOWN, last_day + timedelta(days=1)).level == signing_keys.EXPIRED


def app_as(actor, page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = actor, TOWN
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_inicio_warns_ti_of_a_certificate_expiring_within_30_days_and_no_one_else(db, root):
    expiring = pki.make_legal_person(root, "Município de Matupá", CNPJ, days=21)
    upload(db, expiring)
    warned = [w.value for w in app_as(TI).warning if "certificado digital" in w.value]
    assert len(warned) == 1 and warned[0].startswith("**Matupá** — O certificado digital vence em ")
    assert not [w.value for w in app_as(SECRETARIA_MP).warning if "certificado digital" in w.value]
    db["municipalities"].update_one({"code": TOWN}, {"$set": {"signing_certificate.valid_until":
                                                              datetime.now(timezone.utc) - timedelta(days=2)}})
    assert [e.value for e in app_as(TI).error if "certificado digital venceu" in e.value]


def test_implantacao_shows_the_certificate_missing_then_what_it_says(db, a1):
    at = app_as(TI, "app_pages/deployment.py")
    assert "Sem certificado: os documentos saem sem assinatura digital, com o código de autenticação." in [
        w.value for w in at.warning]
    upload(db, a1)
    at = app_as(TI, "app_pages/deployment.py")
    shown = " ".join(m.value for m in at.markdown)
    assert "**Titular:** MUNICÍPIO DE MATUPÁ" in shown and "**CNPJ:** 11.222.333/0001-81" in shown
    assert "**Emitido por:** AC Raiz de Teste do Painel" in shown
    assert PASSWORD not in shown + " ".join(c.value for c in at.caption)


def test_the_visible_box_covers_nothing_a_reader_scans(db, a1, tmp_path):
    """The DAM's barcode and the sticker's QR still read (zbarimg) on the signed pages."""
    from services.ridehailing.sticker_pdf import StickerPrint, render_sticker

    upload(db, a1, kinds=("dam", "selo"))
    sticker = render_sticker(StickerPrint("Matupá", "Secretaria", "Lei 1.552/2025", "0042/2026", "QBC-1D23",
                                          "Fiat Argo 2022, branco", date(2027, 3, 1), "(66) 3595-1234",
                                          "http://localhost:8501/?v=matupa.0123456789abcdef"))
    dam, pdf_of_dam = dam_pdf(db, with_dam=True)
    for name, pdf, symbol in (("dam", pdf_of_dam, f"I2/5:{dam['barcode']}"),
                              ("selo", sticker, "QR-Code:http://localhost:8501/?v=matupa.0123456789abcdef")):
        signed = pdf_signing.sign_if_chosen(db, TOWN, name, pdf)
        if name == "dam":  # issued by the panel: signed as it was issued, not signed twice
            assert signed == pdf and len(PdfFileReader(io.BytesIO(pdf)).embedded_signatures) == 1
        else:
            assert signed != pdf
        (tmp_path / f"{name}.pdf").write_bytes(signed)
        subprocess.run(["pdftoppm", "-r", "200", "-png", str(tmp_path / f"{name}.pdf"), str(tmp_path / name)],
                       check=True)
        read = subprocess.run(["zbarimg", "-q", *map(str, sorted(tmp_path.glob(f"{name}-*.png")))],
                              capture_output=True, text=True).stdout
        assert symbol in read.splitlines(), read


def test_the_audit_names_the_certificate_and_the_kinds_in_portuguese(db, a1):
    upload(db, a1, kinds=("dam", "selo"))
    rows = audit_log.rows_shown(audit_log.search(db, TI, TOWN, collection="municipalities")[0], db)
    changes = " | ".join(row["Alterações"] for row in rows)
    assert "Documentos assinados digitalmente: — → DAM (e a sua 2ª via), Selo do veículo" in changes
    assert "Certificado digital A1: — → Titular: MUNICÍPIO DE MATUPÁ" in changes and "Emitido por:" in changes
    assert "signing_certificate" not in changes and "signed_kinds" not in changes and PASSWORD not in changes


def test_ti_chooses_among_the_very_kinds_the_panel_issues():
    """The kinds TI may sign are the documents' own kinds (a kind only one list knew would never be signed)."""
    from services.shared import authenticity, signing_keys
    assert set(signing_keys.KINDS) == set(authenticity.KINDS)


def test_a_document_the_panel_issues_leaves_signed_and_its_code_confers_the_signed_bytes(db, root, a1):
    """Signed last (issue 37 item 3): the DAM printed by the panel carries the stamp inside the signature, and
    the public verification's SHA-256 is of the signed bytes."""
    from tests.authenticity_support import verified

    upload(db, a1)
    pdf = dam_pdf(db)
    _, found = status(pdf, root)
    assert found.intact and found.valid and found.trusted
    answer = verified(db, pdf)
    assert (answer.kind, answer.same_bytes, answer.valid) == ("Documento de Arrecadação Municipal (DAM)", True, True)
