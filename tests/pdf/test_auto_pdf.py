"""The auto, notification and case-file PDFs as a reader sees them (pypdf text; one page rendered to PNG)."""
from __future__ import annotations

import io
import shutil
import subprocess
from datetime import date

import pytest
from pypdf import PdfReader

from services.ridehailing.enforcement import documents, penalties
from tests.enforcement_support import active_authorization, definitive, lavrado
from tests.ridehailing_data import ACTORS


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())


@pytest.fixture
def case(db, today):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))  # past its appeal term (LEITURAS §7)
    second = lavrado(db, today, "chapada", "CG-29-IV", counts_from, cpf,
                     evidence=[("Foto do embarque", "foto.jpg", b"\xff\xd8jpeg")])
    definitive(db, today, "chapada", second, counts_from)  # penalties only once final (LEITURAS §7)
    actor = ACTORS["chapada"]
    penalties.apply_sanction(db, actor, "chapada", second, penalty="suspensão da autorização", start=today.value)
    penalties.issue_fine_dam(db, actor, "chapada", second)
    return second


def test_auto_has_the_process_copy_and_the_offenders_copy(db, case):
    content = text(documents.auto_pdf(db, ACTORS["chapada"], "chapada", case))
    assert "VIA DO PROCESSO ADMINISTRATIVO" in content and "VIA DO AUTUADO" in content
    assert "AUTO DE INFRAÇÃO Nº 0002/2026" in content and "art. 29, IV" in content
    assert "Auto nº 0001/2026" in content  # the recurrence names the earlier auto
    assert "art. 29, §1º" in content and "R$ 3.000,00" in content


@pytest.mark.parametrize("recipient, heading", [("condutor", "AO CONDUTOR"), ("plataforma", "À PLATAFORMA")])
def test_notification_to_the_driver_and_to_the_platform(db, case, recipient, heading):
    content = text(documents.notification_pdf(db, ACTORS["chapada"], "chapada", case, recipient))
    assert heading in content and "juntada" in content and "art. 25, §2º" in content


def test_case_file_has_an_index_and_every_date_deadline_and_article(db, case, today):
    pdf = documents.case_file_pdf(db, ACTORS["chapada"], "chapada", case)
    content = text(pdf)
    assert "ÍNDICE DAS PEÇAS" in content
    for piece in ("Notificação, recebimento e juntada", "Decisão", "Penalidades, medidas, DAM e pagamento"):
        assert piece in content
    assert "Prazo de defesa" in content and "art. 25, §2º" in content and "art. 27, parágrafo único" in content
    assert "volta a valer em" in content and "DAM da multa" in content
    assert shutil.which("pdftoppm"), "install poppler-utils (.ci/run installs it)"
    out = subprocess.run(["pdftoppm", "-png", "-r", "50", "-singlefile", "-"], input=pdf,
                         capture_output=True, check=True).stdout
    assert out[:8] == b"\x89PNG\r\n\x1a\n"
