"""Issue 38 item 1: the driver files a defence or an appeal to their own auto on the portal, through the
clerk's service (``process.file_defence`` / ``file_appeal``), only inside the term the case shows
(CG Decreto 06/2026 art. 25 §2; MP Lei 1.552/2025 art. 21 §2 and art. 25 §4); another driver's account
gets the same NotFound as for an unknown auto."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services import store
from services.ridehailing.enforcement import autos, documents, own_autos, process
from services.shared.errors import NotFound, PermissionDenied, ServiceError
from services.shared.regulated_accounts import Person
from tests.enforcement_support import decided, driver, lavrado, notified
from tests.ridehailing_data import ACTORS

CODES = {"chapada": "CG-29-I", "matupa": "MP-12-III"}
PDF = b"%PDF-1.4 defesa"


def person(municipality: str, cpf: str) -> Person:
    return Person(municipality, "condutor", cpf, cpf, "Condutor Titular")


def an_auto(db, today, municipality: str, seed: int = 2) -> tuple[str, str, str]:
    cpf, _ = driver(db, municipality, seed=seed)
    auto_id = lavrado(db, today, municipality, CODES[municipality], date(2026, 3, 4), cpf)
    return auto_id, cpf, autos._load(db, municipality, auto_id)["number"]


# the defence term as the case shows it: 30 days from the juntada (notified() joins it 6 days after the auto)
@pytest.mark.parametrize("municipality, offset, accepted, article", [
    ("chapada", 0, True, "art. 25, §2º"),     # CG art. 25 §2: the last day of the term is still in it
    ("chapada", 1, False, "art. 25, §2º"),    # the day after: refused with the day it ended
    ("matupa", 0, True, "art. 21, §2º"),      # MP art. 21 §2 (term from the juntada)
    ("matupa", 1, False, "art. 21, §2º"),
])
def test_the_driver_files_a_defence_only_inside_the_term_the_case_shows(db, today, municipality, offset, accepted,
                                                                         article):
    auto_id, cpf, number = an_auto(db, today, municipality)
    last = notified(db, today, municipality, auto_id, date(2026, 3, 4))
    shown = own_autos.own_auto(db, person(municipality, cpf).actor, number)
    assert shown["term"].kind == "defesa" and shown["term"].deadline == last and article in shown["term"].reference
    today.set(last + timedelta(days=offset))
    call = lambda: process.file_defence(db, person(municipality, cpf).actor, municipality, auto_id,  # noqa: E731
                                        filed_on=date(2020, 1, 1), by="outro nome", summary="Não estava no local",
                                        attachments=[("declaracao.pdf", PDF)])
    if not accepted:
        with pytest.raises(process.DeadlineMissed, match=f"terminou em {last:%d/%m/%Y}.*{article}"):
            call()
        assert autos._load(db, municipality, auto_id).get("defence") is None
        return
    defence = call()
    assert defence["filed_on"] == today.value and defence["by"] == "Condutor Titular" and defence["via"] == "portal"
    assert defence["late"] is False and store.get_file(db, defence["attachments"][0]["sha256"]) == PDF
    kept = autos.get(db, ACTORS[municipality], municipality, auto_id)
    assert kept["stage"] == "defesa" and "pelo portal" in documents.joined_text(kept["defence"])
    assert documents.filing_file(db, ACTORS[municipality], municipality, auto_id,
                                 defence["attachments"][0]["sha256"]) == PDF
    entry = db["audit"].find_one({"doc_id": auto_id, "action": "defence"})
    assert entry["username"] == f"condutor:{cpf}"


def test_the_clerk_still_records_a_late_defence_flagged(db, today):
    auto_id, _cpf, _number = an_auto(db, today, "chapada")
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 4))
    today.set(last + timedelta(days=2))
    late = process.file_defence(db, ACTORS["chapada"], "chapada", auto_id, filed_on=today.value, by="Procurador",
                                summary="Fora do prazo")
    assert late["late"] is True and late["via"] == "balcao"


def test_after_the_decision_the_driver_appeals_inside_its_term(db, today):
    auto_id, cpf, number = an_auto(db, today, "matupa")
    decided_on = decided(db, today, "matupa", auto_id, date(2026, 3, 4))
    term = own_autos.own_auto(db, person("matupa", cpf).actor, number)["term"]
    assert term.kind == "recurso" and term.deadline >= decided_on
    with pytest.raises(ServiceError, match="não admite defesa"):
        process.file_defence(db, person("matupa", cpf).actor, "matupa", auto_id, filed_on=today.value, by="x",
                             summary="Tarde")
    appeal = process.file_appeal(db, person("matupa", cpf).actor, "matupa", auto_id, filed_on=today.value, by="x",
                                 summary="Multa excessiva")
    assert appeal["late"] is False and appeal["via"] == "portal"
    assert autos._load(db, "matupa", auto_id)["stage"] == "recurso"
    today.set(term.deadline + timedelta(days=1))
    assert own_autos.own_auto(db, person("matupa", cpf).actor, number)["term"].kind == ""  # filed: nothing more


def test_an_appeal_after_its_term_is_refused_with_the_day_it_ended(db, today):
    auto_id, cpf, _number = an_auto(db, today, "chapada")
    decided(db, today, "chapada", auto_id, date(2026, 3, 4))
    deadline = autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", auto_id))
    today.set(deadline + timedelta(days=1))
    with pytest.raises(process.DeadlineMissed, match=f"recurso terminou em {deadline:%d/%m/%Y}"):
        process.file_appeal(db, person("chapada", cpf).actor, "chapada", auto_id, filed_on=today.value, by="x",
                            summary="Tarde")


def test_another_drivers_account_gets_not_found_with_the_first_ones_auto(db, today):
    auto_id, cpf, number = an_auto(db, today, "chapada")
    notified(db, today, "chapada", auto_id, date(2026, 3, 4))
    other_cpf, _ = driver(db, "chapada", seed=5)
    other = person("chapada", other_cpf).actor
    assert other_cpf != cpf and own_autos.own_autos(db, other) == []
    with pytest.raises(NotFound) as unknown:
        own_autos.own_auto(db, other, "9999/2026")
    with pytest.raises(NotFound) as anothers:
        own_autos.own_auto(db, other, number)
    assert str(anothers.value) == str(unknown.value)
    with pytest.raises(NotFound) as filing:
        process.file_defence(db, other, "chapada", auto_id, filed_on=today.value, by="x", summary="Não é meu")
    assert str(filing.value) == str(unknown.value)
    with pytest.raises(PermissionDenied):  # an account of another municipality: refused before any look-up
        process.file_defence(db, person("matupa", cpf).actor, "chapada", auto_id, filed_on=today.value, by="x",
                             summary="x")
    assert [a["number"] for a in own_autos.own_autos(db, person("chapada", cpf).actor)] == [number]
