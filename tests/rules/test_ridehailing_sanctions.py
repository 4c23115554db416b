"""Infraction catalogues, fines and the effects of recurrence, article by article."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.params import ParameterMissing, ParameterVersion
from rules.ridehailing.concepts import Measure, OffenceRecord, Penalty, Severity
from rules.ridehailing.errors import (
    FineAboveCap,
    InvalidParameter,
    InvalidPenaltyPeriod,
    UnknownInfraction,
)
from rules.ridehailing.sanctions import (
    measure_release_finding,
    suspension_last_day,
    unregistered_offender_finding,
)
from tests.rules.ridehailing_support import CG, CG_BOOK, MP, MP_BOOK

ON = date(2026, 6, 15)
UPFM = CG_BOOK.with_versions([ParameterVersion("upfm_value", date(2026, 6, 1), Decimal("123.45"), "Decreto UPFM")])


@pytest.mark.parametrize("code, severity, penalties, months", [
    pytest.param("CG-29-I", Severity.LEVE, (Penalty.MULTA,), None, id="CG art. 29 I: vistoria not attended, leve"),
    pytest.param("CG-29-II", Severity.LEVE, (Penalty.MULTA,), None, id="CG art. 29 II: served while blocked, leve"),
    pytest.param("CG-18-XIX", Severity.MEDIA, (Penalty.MULTA,), None, id="CG art. 29 III: art. 18 duty, média"),
    pytest.param("CG-29-IV", Severity.GRAVE, (Penalty.MULTA,), None, id="CG art. 29 IV: street pick-up, grave"),
    pytest.param("CG-29-V", Severity.GRAVISSIMA, (Penalty.MULTA, Penalty.SUSPENSAO), 12,
                 id="CG art. 29 V: physical aggression, 12-month suspension"),
    pytest.param("CG-29-VI", Severity.GRAVE, (Penalty.MULTA,), None, id="CG art. 29 VI: taxi rank, grave"),
    pytest.param("CG-29-VII", Severity.GRAVE, (Penalty.MULTA, Penalty.SUSPENSAO), 12,
                 id="CG art. 29 VII: business cards, 12-month suspension"),
    pytest.param("CG-30", Severity.GRAVISSIMA, (Penalty.MULTA,), None, id="CG art. 30: illegal transport"),
    pytest.param("MP-26-I", Severity.LEVE, (Penalty.MULTA,), None, id="MP art. 26 I: vistoria call, leve"),
    pytest.param("MP-26-II", Severity.LEVE, (Penalty.MULTA,), None, id="MP art. 26 II: late presentation, leve"),
    pytest.param("MP-12-III", Severity.LEVE, (Penalty.MULTA,), None, id="MP art. 26 III a: inciso III leve"),
    pytest.param("MP-12-XXIII", Severity.MEDIA, (Penalty.MULTA,), None, id="MP art. 26 III b: inciso XXIII média"),
    pytest.param("MP-26-III-c", Severity.GRAVE, (Penalty.MULTA,), None, id="MP art. 26 III c: direct risk, grave"),
    pytest.param("MP-12-II", Severity.GRAVISSIMA, (Penalty.MULTA,), None, id="MP art. 26 III d: no EAR"),
    pytest.param("MP-12-XXVI", Severity.GRAVISSIMA, (Penalty.MULTA,), None, id="MP art. 26 III d: no APP"),
    pytest.param("MP-26-VII", Severity.GRAVE, (Penalty.MULTA,), None, id="MP art. 26 VII: taxi rank"),
    pytest.param("MP-27", Severity.GRAVISSIMA, (Penalty.MULTA,), None, id="MP art. 27: illegal transport"),
])
def test_catalogue_first_offence(code, severity, penalties, months):
    rules, book = (CG, UPFM) if code.startswith("CG") else (MP, MP_BOOK)
    result = rules.sanction(code, ON, (), book)
    assert (result.severity, result.penalties, result.suspension_months, result.recurrent) == \
        (severity, penalties, months, False)


@pytest.mark.parametrize("code, days, until", [
    pytest.param("MP-26-IV", 30, date(2026, 7, 30), id="MP art. 26 IV: 30-day suspension, not art. 23 §1's 12 months"),
    pytest.param("MP-26-V", 90, date(2026, 9, 28), id="MP art. 26 V: 90-day suspension"),
])
def test_matupa_specific_suspensions(code, days, until):
    result = MP.sanction(code, ON, (), MP_BOOK)
    assert result.suspension_days == days and result.suspension_months is None
    assert result.suspension_until(date(2026, 7, 1)) == until
    assert (until - date(2026, 7, 1)).days + 1 == days


def test_matupa_physical_aggression_is_cassacao():
    result = MP.sanction("MP-26-VI", ON, (), MP_BOOK)
    assert result.penalties == (Penalty.MULTA, Penalty.CASSACAO) and result.suspension_until(ON) is None


@pytest.mark.parametrize("start, last_day", [
    pytest.param(date(2026, 7, 1), date(2027, 6, 30), id="CG art. 29 V: 12 months from 01/07 end 30/06, back on 01/07"),
    pytest.param(date(2026, 1, 31), date(2027, 1, 30), id="CG art. 29 V: 12 months from 31/01 end 30/01"),
    pytest.param(date(2024, 2, 29), date(2025, 2, 27), id="CG art. 29 V: from 29/02 the date is 28/02 (art. 66 §3), back on it"),
])
def test_twelve_month_suspension_ends_the_day_before_the_same_date(start, last_day):
    result = CG.sanction("CG-29-V", ON, (), UPFM)
    assert result.suspension_until(start) == last_day


@pytest.mark.parametrize("days, start, last_day", [
    pytest.param(30, date(2026, 7, 1), date(2026, 7, 30), id="CG art. 29 §1: 30 days from 01/07 → off 01/07..30/07"),
    pytest.param(30, date(2026, 12, 15), date(2027, 1, 13), id="CG art. 29 §1: 30 days across the year end"),
    pytest.param(1, date(2026, 7, 1), date(2026, 7, 1), id="one day is the start day only"),
])
def test_suspension_of_n_days_keeps_the_driver_off_exactly_n_days(days, start, last_day):
    assert suspension_last_day(start, days, None) == last_day
    assert (last_day - start).days + 1 == days


def test_chapada_second_street_boarding_suspends_exactly_30_days():
    result = CG.sanction("CG-29-IV", ON, prior("CG-29-IV", date(2026, 1, 10)), UPFM)
    assert result.suspension_until(date(2026, 7, 1)) == date(2026, 7, 30)


@pytest.mark.parametrize("days, months", [pytest.param(0, None, id="zero days"), pytest.param(None, 0, id="zero months")])
def test_suspension_without_length_is_refused(days, months):
    with pytest.raises(InvalidPenaltyPeriod):
        suspension_last_day(date(2026, 7, 1), days, months)


@pytest.mark.parametrize("rules, count", [pytest.param(CG, 24, id="CG art. 18 I–XXIV all média"),
                                          pytest.param(MP, 27, id="MP art. 12 I–XXVII all classified")])
def test_every_duty_is_catalogued(rules, count):
    prefix = "CG-18-" if rules is CG else "MP-12-"
    duties = [i for i in rules.catalogue if i.code.startswith(prefix)]
    assert len(duties) == count and len({i.code for i in rules.catalogue}) == len(rules.catalogue)


def test_matupa_duty_severity_map():
    by = {i.code.removeprefix("MP-12-"): i.severity for i in MP.catalogue if i.code.startswith("MP-12-")}
    assert [k for k, v in by.items() if v is Severity.GRAVISSIMA] == ["II", "XXIV", "XXV", "XXVI", "XXVII"]
    assert sum(v is Severity.LEVE for v in by.values()) == 12 and sum(v is Severity.MEDIA for v in by.values()) == 10


def test_unknown_code_is_a_named_error():
    with pytest.raises(UnknownInfraction):
        CG.infraction("MP-27")


@pytest.mark.parametrize("code, amount", [
    pytest.param("CG-29-I", Decimal("1234.50"), id="CG art. 28 I: 10 UPFM"),
    pytest.param("CG-18-I", Decimal("2469.00"), id="CG art. 28 II: 20 UPFM"),
    pytest.param("CG-29-VI", Decimal("3703.50"), id="CG art. 28 III: 30 UPFM"),
    pytest.param("CG-30", Decimal("4938.00"), id="CG art. 28 IV: 40 UPFM"),
])
def test_chapada_fines_in_upfm(code, amount):
    fine = CG.fine_amount(code, ON, UPFM)
    assert fine.amount == amount
    assert "UPFM × R$ 123,45" in fine.finding.message


def test_chapada_fine_uses_the_upfm_of_the_infraction_date():
    assert CG.fine_amount("CG-29-I", date(2026, 5, 31), UPFM).amount == Decimal("1000.00")
    assert CG.fine_amount("CG-29-I", date(2026, 6, 1), UPFM).amount == Decimal("1234.50")
    with pytest.raises(ParameterMissing):
        CG.fine_amount("CG-29-I", date(2025, 12, 31), UPFM)


@pytest.mark.parametrize("code, amount", [
    pytest.param("MP-26-I", Decimal("200.00"), id="MP art. 25 §1 a: leve up to R$ 200"),
    pytest.param("MP-12-I", Decimal("500.00"), id="MP art. 25 §1 b: média up to R$ 500"),
    pytest.param("MP-26-VII", Decimal("1000.00"), id="MP art. 25 §1 c: grave up to R$ 1.000"),
    pytest.param("MP-27", Decimal("2000.00"), id="MP art. 25 §1 d: gravíssima up to R$ 2.000"),
])
def test_matupa_default_fines_are_the_caps(code, amount):
    assert MP.fine_amount(code, ON, MP_BOOK).amount == amount


@pytest.mark.parametrize("value, allowed", [
    pytest.param("199.99", True, id="MP art. 25 §2: graded below the cap"),
    pytest.param("200.00", True, id="MP art. 25 §1 a: exactly the cap"),
    pytest.param("200.01", False, id="MP art. 25 §1 a: one centavo above the cap"),
])
def test_matupa_fine_never_above_cap(value, allowed):
    book = MP_BOOK.with_versions([ParameterVersion("fine_leve", date(2026, 1, 1), Decimal(value), "Decreto")])
    if allowed:
        assert MP.fine_amount("MP-26-I", ON, book).amount == Decimal(value)
    else:
        with pytest.raises(FineAboveCap):
            MP.fine_amount("MP-26-I", ON, book)


def test_matupa_cap_updated_by_act_allows_more():
    book = MP_BOOK.with_versions([
        ParameterVersion("fine_cap_leve", date(2027, 1, 1), Decimal("210.00"), "Decreto de atualização (art. 25 §3)"),
        ParameterVersion("fine_leve", date(2027, 1, 1), Decimal("210.00"), "Decreto de atualização"),
    ])
    assert MP.fine_amount("MP-26-I", date(2027, 1, 1), book).amount == Decimal("210.00")
    assert MP.fine_amount("MP-26-I", date(2026, 12, 31), book).amount == Decimal("200.00")


def prior(code, on, final=True):
    return (OffenceRecord(code, on, final),)


CG_RECURRENCE = [
    pytest.param("CG-29-IV", prior("CG-29-IV", date(2025, 6, 15)), (Penalty.MULTA, Penalty.SUSPENSAO), (), 30,
                 id="CG art. 29 §1: IV repeated within 12 months → 30-day suspension"),
    pytest.param("CG-29-IV", prior("CG-29-IV", date(2025, 6, 14)), (Penalty.MULTA,), (), None,
                 id="CG art. 29 §1: IV repeated after 12 months and 1 day → fine only"),
    pytest.param("CG-29-IV", prior("CG-29-VI", date(2026, 1, 1)), (Penalty.MULTA,), (), None,
                 id="CG art. 29 §1: another grave infraction is not recurrence of IV"),
    pytest.param("CG-29-IV", prior("CG-29-IV", date(2026, 1, 1), final=False), (Penalty.MULTA,), (), None,
                 id="CG art. 29 §1: prior without final decision does not count"),
    pytest.param("CG-29-V", prior("CG-29-V", date(2026, 1, 1)), (Penalty.MULTA, Penalty.CASSACAO), (), None,
                 id="CG art. 29 §2: V repeated → cassação"),
    pytest.param("CG-30", prior("CG-30", date(2026, 1, 1)), (Penalty.MULTA,), (Measure.APREENSAO_VEICULO,), None,
                 id="CG art. 30 §ú: illegal transport repeated → seizure"),
]


@pytest.mark.parametrize("code, history, penalties, measures, days", CG_RECURRENCE)
def test_chapada_recurrence(code, history, penalties, measures, days):
    result = CG.sanction(code, ON, history, UPFM)
    assert (result.penalties, result.measures, result.suspension_days) == (penalties, measures, days)
    assert result.severity is CG.infraction(code).severity


MP_RECURRENCE = [
    pytest.param("MP-12-III", prior("MP-12-IX", date(2025, 6, 15)), Severity.MEDIA, (),
                 id="MP art. 25 II: leve after leve within 12 months → média"),
    pytest.param("MP-12-III", prior("MP-12-IX", date(2025, 6, 14)), Severity.LEVE, (),
                 id="MP art. 25 II: leve after 12 months and 1 day stays leve"),
    pytest.param("MP-12-I", prior("MP-12-VI", date(2026, 1, 1)), Severity.GRAVE, (),
                 id="MP art. 25 III and 26 III c: média after média → grave"),
    pytest.param("MP-26-VII", prior("MP-26-IV", date(2026, 1, 1)), Severity.GRAVISSIMA, (),
                 id="MP art. 25 IV: grave after grave → gravíssima"),
    pytest.param("MP-12-I", prior("MP-12-III", date(2026, 1, 1)), Severity.MEDIA, (),
                 id="MP art. 25 III: média after a leve is not recurrence"),
    pytest.param("MP-12-XXV", prior("MP-12-II", date(2026, 1, 1)), Severity.GRAVISSIMA,
                 (Measure.APREENSAO_VEICULO,), id="MP art. 26 §2: gravíssima repeated → seizure"),
    pytest.param("MP-27", prior("MP-27", date(2026, 1, 1)), Severity.GRAVISSIMA, (Measure.APREENSAO_VEICULO,),
                 id="MP art. 27 §ú: illegal transport repeated → seizure"),
    pytest.param("MP-12-III", prior("MP-12-IX", date(2026, 1, 1), final=False), Severity.LEVE, (),
                 id="MP art. 25 §4: prior without final decision does not count"),
]


@pytest.mark.parametrize("code, history, severity, measures", MP_RECURRENCE)
def test_matupa_recurrence(code, history, severity, measures):
    result = MP.sanction(code, ON, history, MP_BOOK)
    assert (result.severity, result.measures) == (severity, measures)
    assert result.fine.severity is severity
    assert result.recurrent is (severity is not MP.infraction(code).severity or bool(measures))


def test_matupa_recurrence_basis_is_a_parameter():
    same_code = MP_BOOK.with_versions([ParameterVersion("recurrence_basis", date(2026, 1, 1), "same_infraction", "Decreto")])
    assert MP.sanction("MP-12-III", ON, prior("MP-12-IX", date(2026, 1, 1)), same_code).severity is Severity.LEVE
    assert MP.sanction("MP-12-III", ON, prior("MP-12-III", date(2026, 1, 1)), same_code).severity is Severity.MEDIA
    bad = MP_BOOK.with_versions([ParameterVersion("recurrence_basis", date(2026, 1, 1), "qualquer", "erro")])
    with pytest.raises(InvalidParameter):
        MP.sanction("MP-12-III", ON, (), bad)


def test_recurrence_on_29_february():
    assert MP.sanction("MP-12-III", date(2029, 2, 28), prior("MP-12-IX", date(2028, 2, 29)), MP_BOOK).severity \
        is Severity.MEDIA
    assert MP.sanction("MP-12-III", date(2029, 3, 1), prior("MP-12-IX", date(2028, 2, 29)), MP_BOOK).severity \
        is Severity.LEVE


@pytest.mark.parametrize("rules, code, allowed", [
    pytest.param(CG, "CG-30", True, id="CG art. 30: transporte ilegal is charged to someone outside the register"),
    pytest.param(MP, "MP-27", True, id="MP art. 27: transporte ilegal is charged to someone outside the register"),
    pytest.param(CG, "CG-29-IV", False, id="CG art. 23: street pick-up is a duty of the authorized driver"),
    pytest.param(MP, "MP-12-XXV", False, id="MP art. 12 XXV: a duty of the authorized driver, not of a stranger"),
    pytest.param(MP, "MP-26-IV", False, id="MP art. 26 IV: boarding without the app needs a registered driver"),
])
def test_only_illegal_transport_is_charged_to_someone_outside_the_register(rules, code, allowed):
    finding = unregistered_offender_finding(rules.infraction(code))
    assert finding.ok is allowed and finding.reference == rules.infraction(code).reference


TAKEN = date(2026, 6, 10)


@pytest.mark.parametrize("measure, released, ok", [
    pytest.param(Measure.APREENSAO_VEICULO, TAKEN, True, id="CG art. 30 §ú: seized until regularized, released same day"),
    pytest.param(Measure.APREENSAO_VEICULO, date(2026, 6, 9), False, id="no release before the seizure"),
    pytest.param(Measure.RETENCAO_REMOCAO, date(2026, 6, 20), True, id="CG art. 31; MP art. 28: removal and estada end"),
    pytest.param(Measure.APREENSAO_DOCUMENTOS, date(2026, 6, 11), True, id="MP art. 24 III: documents returned"),
    pytest.param(Measure.IMPEDIMENTO, date(2026, 6, 11), True, id="CG art. 29 II: the stop ends when regularized"),
    pytest.param(Measure.NOTIFICACAO_REGULARIZACAO, date(2026, 6, 11), False,
                 id="CG art. 27 II a; MP art. 24 I: a notification is a single act"),
])
def test_a_measure_until_regularization_has_a_release(measure, released, ok):
    finding = measure_release_finding(measure, TAKEN, released, CG.ref("measures"))
    assert finding.ok is ok and "art. 27, II" in finding.reference
