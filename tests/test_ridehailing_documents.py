"""Sticker and certificate as a reader sees them: extracted text and the decoded QR code."""
from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from services.dam import payments
from services.ridehailing import (
    authorizations,
    documents,
    fees,
    inspections,
    public_check,
    registry,
)
from services.shared import clock, entities, parameters
from tests.ridehailing_data import ACTORS, inspected, set_fee

TODAY = clock.today()


@pytest.fixture
def issued(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    payments.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    return auth


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def qrs(pdf: bytes, tmp_path) -> list[str]:
    """Every QR code read on the first page."""
    if not (shutil.which("pdftoppm") and shutil.which("zbarimg")):
        pytest.fail("pdftoppm/zbarimg ausentes: instale poppler-utils e zbar-tools (.ci/run os instala)")
    (tmp_path / "doc.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", str(tmp_path / "doc.pdf"),
                    str(tmp_path / "page")], check=True)
    page = sorted(tmp_path.glob("page*.png"))[0]
    out = subprocess.run(["zbarimg", "-q", "--raw", str(page)], capture_output=True, text=True, check=True)
    return out.stdout.split()


def qr(pdf: bytes, tmp_path) -> str:
    """The public-check QR of a sticker or certificate: the page has it and the authentication stamp's QR
    (``/verificar?codigo=``, issue 37), and no other."""
    found = qrs(pdf, tmp_path)
    stamps = [link for link in found if "/verificar?codigo=" in link]
    assert len(stamps) == 1 and len(found) == 2, found
    return next(link for link in found if link not in stamps)


def test_sticker_shows_number_validity_ouvidoria_and_a_signed_qr(db, issued, tmp_path):
    pdf = documents.sticker_pdf(db, ACTORS["chapada"], "chapada", issued)
    shown = text(pdf)
    for expected in (f"0001/{TODAY.year}", f"31/12/{TODAY.year}", "(65) 3301-1156", "CHAPADA DOS GUIMARÃES"):
        assert expected in shown
    link = qr(pdf, tmp_path)
    assert link == public_check.check_url("chapada", issued)
    assert public_check.read_token(link.split("?t=")[1]) == ("chapada", issued)


def test_certificate_names_driver_vehicle_and_legal_basis(db, issued, tmp_path):
    doc = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", issued)
    driver = registry.driver_record(db, "chapada", doc["driver_cpf"])
    pdf = documents.certificate_pdf(db, ACTORS["chapada"], "chapada", issued)
    shown = text(pdf)
    for expected in (f"Nº 0001/{TODAY.year}", driver["name"], "Decreto Municipal 06/2026", "art. 9, §1º",
                     f"31/12/{TODAY.year}"):
        assert expected in shown
    assert qr(pdf, tmp_path) == public_check.check_url("chapada", issued)


def test_documents_wait_for_the_fee(db):
    auth = inspected(db, "chapada")
    with pytest.raises(documents.NotIssued):
        documents.sticker_pdf(db, ACTORS["chapada"], "chapada", auth)


def test_token_of_another_install_is_refused(db, issued, monkeypatch):
    token = public_check.token_for("chapada", issued)
    monkeypatch.setenv("PAINEL_SECRET", "outra-instalacao")
    with pytest.raises(public_check.InvalidToken):
        public_check.check(db, token, TODAY)


# ---- laudo de vistoria (CG art. 14 I–IX and art. 17 §2; MP art. 14 §1 and art. 15 §2) ----

@pytest.mark.parametrize("municipality, failed_item, item_article, fix_article", [
    # item III (age) is computed from the model year, not ticked: item IV is the one the inspector fails here
    pytest.param("chapada", "IV", "art. 14, IV", "art. 17, §2º", id="CG art. 14 IV failed: 5 days of art. 17 §2"),
    pytest.param("matupa", "VIII", "art. 14, §1º, VIII", "art. 15, §2º", id="MP art. 14 §1 VIII failed: art. 15 §2"),
    pytest.param("chapada", None, "art. 14, IX", "", id="CG art. 14: every item passed, approved"),
    pytest.param("matupa", None, "art. 14, §1º, VIII", "", id="MP art. 14 §1: every item passed, approved"),
])
def test_inspection_report_shows_the_checklist_result_and_deadline(db, tmp_path, municipality, failed_item,
                                                                    item_article, fix_article):
    from seed.ridehailing import passing
    from services.shared import municipalities
    from tests.ridehailing_data import requested

    actor = ACTORS[municipality]
    auth = requested(db, municipality)
    authorizations.approve(db, actor, municipality, auth, TODAY)
    answers = {**passing(municipality), **({failed_item: False} if failed_item else {})}
    outcome = inspections.record_inspection(db, actor, municipality, auth, TODAY, answers, "Carla Vistoriadora",
                                            "Vidro traseiro com película")
    pdf = documents.inspection_report_pdf(db, actor, municipality, outcome.inspection_id)
    shown = text(pdf)
    doc = authorizations.get_authorization(db, actor, municipality, auth)
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    town = municipalities.get(db, municipality)
    for expected in (f"PREFEITURA MUNICIPAL DE {town.name.upper()}", "LAUDO DE VISTORIA VEICULAR", doc["protocol"],
                     driver["name"], entities.fields.show("plate", doc["plate"]), TODAY.strftime("%d/%m/%Y"),
                     "Carla Vistoriadora", "Inicial", item_article, "Observações: Vidro traseiro com película"):
        assert expected in shown
    rules = registry.rules_of(municipality)
    assert shown.count("Não conforme") == (1 if failed_item else 0)
    assert shown.count("Conforme") == len(rules.inspection_items) - (1 if failed_item else 0)
    if failed_item:
        deadline = rules.fix_deadline(TODAY, parameters.calendar(db, municipality, TODAY))
        assert "RESULTADO: REPROVADO" in shown
        assert f"Prazo para sanar as pendências: até {deadline:%d/%m/%Y} (5 dias)" in shown
        assert fix_article in shown
    else:
        assert "RESULTADO: APROVADO" in shown and "Prazo para sanar" not in shown
    assert shutil.which("pdftoppm"), "install poppler-utils (.ci/run installs it)"
    (tmp_path / "laudo.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(tmp_path / "laudo.pdf"), str(tmp_path / "laudo")],
                   check=True)
    assert [p.name for p in tmp_path.glob("laudo*.png")] == ["laudo-1.png"]  # one A4 page


# ---- notice of an extraordinary convocation (CG art. 17 §1 and art. 29 I; MP art. 15 §1 and art. 26 I) ----

def issue_in(db, municipality: str, platform: str | None = None) -> str:
    from services.shared import entities
    from tests.ridehailing_data import set_fee

    set_fee(db, municipality)
    auth = inspected(db, municipality)
    if platform:
        import random

        from seed.people import cnpj

        number = cnpj(random.Random(11))
        entities.create(db, ACTORS[municipality], "platforms", municipality,
                        {"name": platform, "cnpj": number, "status": "ativo"})
        cpf = authorizations.get_authorization(db, ACTORS[municipality], municipality, auth)["driver_cpf"]
        driver = registry.driver_record(db, municipality, cpf)
        entities.update(db, ACTORS[municipality], "drivers", municipality, driver["id"], {"platform_cnpj": number},
            expected_version=entities.get(db, ACTORS[municipality], "drivers", municipality, driver["id"])["version"])
    bill = fees.issue_fee_dam(db, ACTORS[municipality], municipality, auth, TODAY)
    payments.record_payment(db, ACTORS[municipality], municipality, bill["id"], TODAY, bill["amount"], "Caixa")
    return auth


@pytest.mark.parametrize("municipality, platform, article", [
    pytest.param("chapada", "Leva Já Chapada", "art. 17, §1º e art. 29, I",
                 id="CG art. 17 §1: notice to the driver, copy to his platform"),
    pytest.param("matupa", None, "art. 15, §1º e art. 26, I",
                 id="MP art. 15 §1: no platform on record, the copy says so"),
])
def test_convocation_notice_names_driver_platform_deadline_and_article(db, municipality, platform, article):
    actor = ACTORS[municipality]
    auth = issue_in(db, municipality, platform)
    deadline = inspections.call_inspection(db, actor, municipality, auth, TODAY, "Denúncia sobre os pneus")
    rules = registry.rules_of(municipality)
    assert deadline == rules.convocation_deadline(TODAY, parameters.book(db, municipality),
                                                  parameters.calendar(db, municipality, TODAY))
    doc = authorizations.get_authorization(db, actor, municipality, auth)
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    shown = text(documents.convocation_notice_pdf(db, actor, municipality, auth))
    days = parameters.value(db, municipality, "inspection_call_days", TODAY)
    for expected in (f"NOTIFICAÇÃO Nº 0001/{TODAY.year}", "CONVOCAÇÃO PARA VISTORIA EXTRAORDINÁRIA", driver["name"],
                     entities.fields.show("plate", doc["plate"]), f"Nº {doc['number']}",
                     f"Prazo para comparecimento: até {deadline:%d/%m/%Y} ({days} dias contados de {TODAY:%d/%m/%Y}",
                     "Motivo da convocação: Denúncia sobre os pneus.", article, "Cópia para ciência da plataforma"):
        assert expected in shown
    assert (platform or "Plataforma não identificada no cadastro do condutor") in shown


def test_no_notice_without_a_convocation(db):
    auth = issue_in(db, "chapada")
    with pytest.raises(documents.NotFound):
        documents.convocation_notice_pdf(db, ACTORS["chapada"], "chapada", auth)


def test_the_qr_leads_to_the_public_portal_never_to_the_staff_panel(db, issued, tmp_path, monkeypatch):
    """The passenger's check is on the portal (portal/authorization_check.py): PAINEL_PORTAL_URL, whatever the
    panel's own address (PAINEL_PUBLIC_URL, which the QR followed before the portal)."""
    monkeypatch.setenv("PAINEL_PORTAL_URL", "https://portal.chapada.mt.gov.br/")
    monkeypatch.setenv("PAINEL_PUBLIC_URL", "https://painel.chapada.mt.gov.br/")
    token = public_check.token_for("chapada", issued)
    for build in (documents.sticker_pdf, documents.certificate_pdf):
        assert qr(build(db, ACTORS["chapada"], "chapada", issued), tmp_path) == \
            f"https://portal.chapada.mt.gov.br/?t={token}"


def test_unset_the_qr_leads_to_the_portals_own_port(db, issued, tmp_path, monkeypatch):
    monkeypatch.delenv("PAINEL_PORTAL_URL", raising=False)
    monkeypatch.setenv("PORTAL_PORT", "8765")
    token = public_check.token_for("chapada", issued)
    for build in (documents.sticker_pdf, documents.certificate_pdf):
        assert qr(build(db, ACTORS["chapada"], "chapada", issued), tmp_path) == f"http://localhost:8765/?t={token}"
