"""Sticker and certificate as a reader sees them: extracted text and the decoded QR code."""
from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from services import clock, dams, public_check, ridehailing, ridehailing_documents
from tests.ridehailing_data import ACTORS, inspected, set_fee

TODAY = clock.today()


@pytest.fixture
def issued(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = ridehailing.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    dams.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    return auth


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def qr(pdf: bytes, tmp_path) -> str:
    if not (shutil.which("pdftoppm") and shutil.which("zbarimg")):
        pytest.skip("pdftoppm/zbarimg not installed")
    (tmp_path / "doc.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "150", str(tmp_path / "doc.pdf"), str(tmp_path / "page")], check=True)
    page = sorted(tmp_path.glob("page*.png"))[0]
    out = subprocess.run(["zbarimg", "-q", "--raw", str(page)], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_sticker_shows_number_validity_ouvidoria_and_a_signed_qr(db, issued, tmp_path):
    pdf = ridehailing_documents.sticker_pdf(db, ACTORS["chapada"], "chapada", issued)
    shown = text(pdf)
    for expected in (f"0001/{TODAY.year}", f"31/12/{TODAY.year}", "(65) 3301-1156", "CHAPADA DOS GUIMARÃES"):
        assert expected in shown
    link = qr(pdf, tmp_path)
    assert link == public_check.check_url("chapada", issued)
    assert public_check.read_token(link.split("?t=")[1]) == ("chapada", issued)


def test_certificate_names_driver_vehicle_and_legal_basis(db, issued, tmp_path):
    doc = ridehailing.get_authorization(db, ACTORS["chapada"], "chapada", issued)
    driver = ridehailing.driver_record(db, "chapada", doc["driver_cpf"])
    pdf = ridehailing_documents.certificate_pdf(db, ACTORS["chapada"], "chapada", issued)
    shown = text(pdf)
    for expected in (f"Nº 0001/{TODAY.year}", driver["name"], "Decreto Municipal 06/2026", "art. 9, §1º",
                     f"31/12/{TODAY.year}"):
        assert expected in shown
    assert qr(pdf, tmp_path) == public_check.check_url("chapada", issued)


def test_documents_wait_for_the_fee(db):
    auth = inspected(db, "chapada")
    with pytest.raises(ridehailing_documents.NotIssued):
        ridehailing_documents.sticker_pdf(db, ACTORS["chapada"], "chapada", auth)


def test_token_of_another_install_is_refused(db, issued, monkeypatch):
    token = public_check.token_for("chapada", issued)
    monkeypatch.setenv("PAINEL_SECRET", "outra-instalacao")
    with pytest.raises(public_check.InvalidToken):
        public_check.check(db, token, TODAY)
