"""The letterhead as a reader sees it on every document (issue 11, item 12): coat of arms, "Estado de
Mato Grosso", the Prefeitura's name and CNPJ, secretariat and address; the certificate carries the
signer's name and role. Without what TI has not set, a neutral letterhead: no CNPJ, no image."""
from __future__ import annotations

import io
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest
from pypdf import PdfReader

from seed.documents import demo_cnpj, demo_coat_of_arms
from services.ridehailing.certificate_pdf import CertificatePrint, render_certificate
from services.ridehailing.convocation_notice_pdf import (
    ConvocationNoticePrint,
    render_convocation_notice,
)
from services.ridehailing.inspection_report_pdf import (
    ChecklistLine,
    InspectionReportPrint,
    render_inspection_report,
)
from services.ridehailing.sticker_pdf import StickerPrint, render_sticker
from services.shared.pdf.letterhead import Letterhead

CNPJ = demo_cnpj("03507506")
SHOWN_CNPJ = f"{CNPJ[:2]}.{CNPJ[2:5]}.{CNPJ[5:8]}/{CNPJ[8:12]}-{CNPJ[12:]}"
TOWN = "Chapada dos Guimarães"
SECRETARIAT = "Secretaria Municipal de Finanças"
ADDRESS = "Rua Quinco Caldas, 100, Centro, Chapada dos Guimarães - MT, 78195-000"
HEAD = Letterhead(TOWN, SECRETARIAT, ADDRESS, CNPJ, demo_coat_of_arms("chapada"), "Marina Castro Leite",
                  "Secretária Municipal de Finanças")
NEUTRAL = Letterhead(TOWN, SECRETARIAT, ADDRESS)
URL = "http://localhost:8501/public_check?m=chapada&a=x&s=y"


def certificate(head: Letterhead | None) -> bytes:
    return render_certificate(CertificatePrint(
        municipality_name=TOWN, secretariat=SECRETARIAT, municipality_address=ADDRESS, act="Decreto Municipal 06/2026",
        legal_basis="Decreto 06/2026, art. 16", number="0007/2026", protocol="2026/0012", issued_on=date(2026, 3, 2),
        valid_until=date(2027, 3, 2), driver_name="João da Silva", driver_cpf="529.982.247-25", cnh="123 · categoria B",
        plate="QBC-1D23", vehicle="Fiat Argo 2022 prata", renavam="12345678901", holder="Proprietário",
        check_url=URL, head=head))


def inspection_report(head: Letterhead | None) -> bytes:
    return render_inspection_report(InspectionReportPrint(
        municipality_name=TOWN, secretariat=SECRETARIAT, municipality_address=ADDRESS, act="Decreto 06/2026",
        authorization="Nº 0007/2026", protocol="2026/0012", driver_name="João da Silva", driver_cpf="529.982.247-25",
        plate="QBC-1D23", vehicle="Fiat Argo", renavam="12345678901", kind="Anual", performed_on=date(2026, 3, 2),
        inspector="Pedro Vistoriador", items=(ChecklistLine("I", "Pneus em bom estado", True, "art. 14, I"),),
        approved=True, pendings=(), fix_deadline=None, fix_reference="art. 17 §2", notes="", head=head))


def convocation_notice(head: Letterhead | None) -> bytes:
    return render_convocation_notice(ConvocationNoticePrint(
        municipality_name=TOWN, secretariat=SECRETARIAT, municipality_address=ADDRESS, number="0001/2026",
        called_on=date(2026, 3, 2), deadline=date(2026, 3, 9), days=5, reason="denúncia", legal_basis="art. 17 §1",
        driver_name="João da Silva", driver_cpf="529.982.247-25", driver_address="Rua A, 1",
        authorization="Nº 0007/2026", plate="QBC-1D23", vehicle="Fiat Argo", copies=("MoveJá",), head=head))


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def images(pdf: bytes) -> int:
    return sum(len(page.images) for page in PdfReader(io.BytesIO(pdf)).pages)


DOCUMENTS = {"certificado": (certificate, 1), "laudo": (inspection_report, 0), "notificação": (convocation_notice, 0)}


@pytest.mark.parametrize("render, qr_images", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_every_document_prints_the_full_letterhead(render, qr_images):
    pdf = render(HEAD)
    shown = text(pdf)
    for expected in ("ESTADO DE MATO GROSSO", "PREFEITURA MUNICIPAL DE CHAPADA DOS GUIMARÃES", f"CNPJ {SHOWN_CNPJ}",
                     SECRETARIAT, "Rua Quinco Caldas, 100"):
        assert expected in shown
    assert images(pdf) == qr_images + 1  # the coat of arms


@pytest.mark.parametrize("render, qr_images", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_without_the_values_ti_sets_the_letterhead_is_neutral(render, qr_images):
    for head in (NEUTRAL, None):
        pdf = render(head)
        shown = text(pdf)
        assert "ESTADO DE MATO GROSSO" in shown and "PREFEITURA MUNICIPAL DE CHAPADA DOS GUIMARÃES" in shown
        assert "CNPJ" not in shown and "demonstra" not in shown.casefold()
        assert images(pdf) == qr_images


def test_the_certificate_carries_the_signers_name_and_role():
    shown = text(certificate(HEAD))
    assert "Marina Castro Leite" in shown and "Secretária Municipal de Finanças" in shown


def test_a_certificate_without_a_signer_set_names_only_the_secretariat():
    shown = text(certificate(NEUTRAL))
    assert "Marina" not in shown and SECRETARIAT in shown


def sticker(arms: bytes | None) -> bytes:
    return render_sticker(StickerPrint(TOWN, SECRETARIAT, "Decreto 06/2026", "0007/2026", "QBC-1D23", "Fiat Argo",
                                       date(2027, 3, 2), "(65) 3301-1156", URL, coat_of_arms=arms))


def test_the_sticker_carries_the_coat_of_arms_and_the_state():
    with_arms, without = sticker(HEAD.coat_of_arms), sticker(None)
    assert "ESTADO DE MATO GROSSO" in text(with_arms) and "PREFEITURA MUNICIPAL DE CHAPADA" in text(with_arms)
    assert images(with_arms) == 2 and images(without) == 1  # coat of arms + QR, QR alone


def test_the_rendered_certificate_still_has_a_readable_qr(tmp_path: Path):
    assert shutil.which("pdftoppm") and shutil.which("zbarimg"), "install poppler-utils and zbar-tools"
    (tmp_path / "c.pdf").write_bytes(certificate(HEAD))
    subprocess.run(["pdftoppm", "-r", "150", "-png", str(tmp_path / "c.pdf"), str(tmp_path / "c")], check=True)
    (png,) = tmp_path.glob("c-*.png")
    out = subprocess.run(["zbarimg", "-q", str(png)], capture_output=True, text=True).stdout
    assert f"QR-Code:{URL}" in out
