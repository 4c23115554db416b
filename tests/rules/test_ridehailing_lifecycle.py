"""Authorization life: status on any date from its events, validity, renewal and deadlines."""
from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from rules.ridehailing.concepts import Authorization, AuthorizationEvent
from rules.ridehailing.concepts import EventKind as E
from rules.ridehailing.concepts import OffenceRecord
from rules.ridehailing.errors import InvalidEventSequence
from rules.ridehailing.lifecycle import RENEWABLE, Status
from tests.rules.ridehailing_support import (
    CAL,
    CG,
    CG_BOOK,
    ISSUED_2026,
    MP,
    MP_BOOK,
    authorization,
)

REQUESTED = ISSUED_2026[:1]
APPROVED = ISSUED_2026[:2]
INSPECTED = ISSUED_2026[:3]


def state(rules, pairs, on):
    book = CG_BOOK if rules is CG else MP_BOOK
    return rules.authorization_status(authorization(*pairs), on, book, CAL)


STATUS_ROWS = [
    pytest.param(CG, REQUESTED, date(2026, 2, 5), Status.REQUESTED, None, id="CG art. 9: requested"),
    pytest.param(CG, REQUESTED + ((E.REFUSED, date(2026, 2, 6)),), date(2026, 2, 6), Status.REFUSED,
                 date(2026, 2, 6), id="CG art. 9: refused, dated"),
    pytest.param(CG, REQUESTED + ((E.REFUSED, date(2026, 2, 6)),), date(2026, 2, 5), Status.REQUESTED, None,
                 id="events after the date are not yet known"),
    pytest.param(CG, APPROVED, date(2026, 2, 16), Status.AWAITING_INSPECTION, date(2026, 2, 16),
                 id="CG art. 13: 5 days from approval end saturday, moved to monday"),
    pytest.param(MP, APPROVED, date(2026, 2, 10), Status.AWAITING_INSPECTION, date(2026, 2, 16),
                 id="MP art. 8 §1: 5 days to present the vehicle"),
    pytest.param(CG, INSPECTED, date(2026, 2, 12), Status.AWAITING_FEE, None,
                 id="CG art. 16 §ú: no service before the fee"),
    pytest.param(MP, INSPECTED, date(2026, 2, 12), Status.AWAITING_FEE, None, id="MP art. 9: no service before the fee"),
    pytest.param(CG, ISSUED_2026, date(2026, 12, 31), Status.ACTIVE, date(2026, 12, 31),
                 id="CG art. 9 §1: valid on 31 December of the payment year"),
    pytest.param(CG, ISSUED_2026, date(2027, 1, 1), Status.EXPIRED, date(2026, 12, 31),
                 id="CG art. 9 §1: expired on 1 January"),
    pytest.param(MP, ISSUED_2026, date(2027, 2, 13), Status.ACTIVE, date(2027, 2, 13),
                 id="MP art. 3 §ú: valid 12 months date to date"),
    pytest.param(MP, ISSUED_2026, date(2027, 2, 14), Status.EXPIRED, date(2027, 2, 13),
                 id="MP art. 3 §ú: expired the day after 12 months"),
    pytest.param(CG, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2026, 12, 10)),), date(2027, 6, 1), Status.ACTIVE,
                 date(2027, 12, 31), id="CG art. 9 §1: renewal paid in December covers the next year"),
    pytest.param(MP, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2027, 2, 1)),), date(2027, 6, 1), Status.ACTIVE,
                 date(2028, 2, 13), id="MP art. 3 §ú: renewal adds 12 months to the expiry"),
    pytest.param(MP, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2027, 3, 1)),), date(2027, 2, 20), Status.EXPIRED,
                 date(2027, 2, 13), id="MP art. 3 §ú: expired until a late renewal is paid"),
    pytest.param(MP, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2027, 3, 1)),), date(2027, 3, 1), Status.ACTIVE,
                 date(2028, 3, 1), id="MP art. 3 §ú: late renewal runs from its payment"),
    pytest.param(CG, ISSUED_2026 + ((E.INSPECTION_FAILED, date(2026, 3, 2)),), date(2026, 3, 9), Status.BLOCKED,
                 date(2026, 3, 9), id="CG art. 17 §2: blocked 5 days to fix (saturday end moved)"),
    pytest.param(MP, ISSUED_2026 + ((E.INSPECTION_FAILED, date(2026, 3, 2)),), date(2026, 3, 10), Status.BLOCKED,
                 date(2026, 3, 9), id="MP art. 15 §2: still blocked after the 5 days"),
    pytest.param(CG, ISSUED_2026 + ((E.INSPECTION_FAILED, date(2026, 3, 2)), (E.INSPECTION_PASSED, date(2026, 3, 6))),
                 date(2026, 3, 6), Status.ACTIVE, date(2026, 12, 31), id="CG art. 17 §2: fixed and passed"),
    pytest.param(CG, INSPECTED[:2] + ((E.INSPECTION_FAILED, date(2026, 2, 11)),), date(2026, 2, 12),
                 Status.AWAITING_INSPECTION, date(2026, 2, 16), id="CG art. 14 VII: first inspection failed"),
    pytest.param(CG, ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2026, 4, 1)),), date(2026, 4, 1),
                 Status.SUSPENDED, date(2026, 4, 1), id="CG art. 29 §1: suspended through its last day"),
    pytest.param(CG, ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2026, 4, 1)),), date(2026, 4, 2),
                 Status.ACTIVE, date(2026, 12, 31), id="CG art. 29 §1: active again the day after"),
    pytest.param(MP, ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2027, 3, 2)),), date(2027, 3, 2),
                 Status.SUSPENDED, date(2027, 3, 2), id="MP art. 23 §1: suspension outlasting validity"),
    pytest.param(MP, ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2027, 3, 2)),), date(2027, 3, 3),
                 Status.EXPIRED, date(2027, 2, 13), id="MP art. 23 §1: after suspension, expired"),
    pytest.param(CG, ISSUED_2026 + ((E.REVOKED, date(2026, 5, 4)),), date(2026, 5, 4), Status.REVOKED,
                 date(2026, 5, 4), id="CG art. 27 I c: revoked"),
    pytest.param(MP, ISSUED_2026 + ((E.CASSADA, date(2026, 5, 4)),), date(2026, 6, 1), Status.CASSADA,
                 date(2026, 5, 4), id="MP art. 26 VI: cassada"),
    pytest.param(CG, ISSUED_2026 + ((E.VEHICLE_SUBSTITUTED, date(2026, 3, 2)),), date(2026, 3, 3),
                 Status.AWAITING_INSPECTION, date(2026, 3, 9), id="CG art. 12 §3: substitute needs a new inspection"),
    pytest.param(MP, ISSUED_2026 + ((E.VEHICLE_SUBSTITUTED, date(2026, 3, 2)), (E.INSPECTION_PASSED, date(2026, 3, 4))),
                 date(2026, 3, 4), Status.ACTIVE, date(2027, 2, 13), id="MP art. 8 §1: substitute inspected"),
]


@pytest.mark.parametrize("rules, pairs, on, status, deadline", STATUS_ROWS)
def test_status(rules, pairs, on, status, deadline):
    result = state(rules, pairs, on)
    assert result.status is status
    assert result.deadline == deadline
    assert result.can_operate is (status is Status.ACTIVE)


def test_labels_name_the_dates():
    suspended = state(CG, ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2026, 4, 1)),), date(2026, 3, 5))
    assert suspended.label == "Suspensa até 01/04/2026"
    assert state(CG, ISSUED_2026, date(2026, 3, 5)).label == "Ativa até 31/12/2026"


def warning(result, suffix):
    return next(f for f in result.findings if f.reference.endswith(suffix))


@pytest.mark.parametrize("rules, pairs, on, suffix, ok", [
    pytest.param(CG, APPROVED, date(2026, 2, 16), "art. 13", True, id="CG art. 13: last day to present"),
    pytest.param(CG, APPROVED, date(2026, 2, 17), "art. 13", False, id="CG art. 13: presentation late"),
    pytest.param(MP, APPROVED, date(2026, 2, 17), "art. 26, II", False, id="MP art. 26 II: presentation late"),
    pytest.param(MP, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2027, 2, 1)),), date(2027, 2, 11), "art. 15", True,
                 id="MP art. 15: annual inspection due on the anniversary"),
    pytest.param(MP, ISSUED_2026 + ((E.RENEWAL_FEE_PAID, date(2027, 2, 1)),), date(2027, 2, 12), "art. 15", False,
                 id="MP art. 15: annual inspection overdue the day after"),
    pytest.param(CG, ISSUED_2026 + ((E.INSPECTION_CALLED, date(2026, 3, 2)),), date(2026, 3, 9),
                 "art. 17, §1º e art. 29, I", True, id="CG art. 17 §1: convocation within 5 days"),
    pytest.param(CG, ISSUED_2026 + ((E.INSPECTION_CALLED, date(2026, 3, 2)),), date(2026, 3, 10),
                 "art. 17, §1º e art. 29, I", False, id="CG art. 29 I: convocation not attended"),
    pytest.param(CG, ISSUED_2026, date(2026, 12, 9), "art. 9, §2º", True,
                 id="CG art. 9 §2: renewal on the 15th business day before expiry"),
    pytest.param(CG, ISSUED_2026, date(2026, 12, 10), "art. 9, §2º", False,
                 id="CG art. 9 §2: renewal window closed the day after"),
])
def test_active_deadline_findings(rules, pairs, on, suffix, ok):
    assert warning(state(rules, pairs, on), suffix).ok is ok


def test_late_renewal_request_is_flagged():
    late = state(CG, ISSUED_2026 + ((E.RENEWAL_REQUESTED, date(2026, 12, 10)),), date(2026, 12, 11))
    assert "após o prazo de 09/12/2026" in warning(late, "art. 9, §2º").message
    timely = state(CG, ISSUED_2026 + ((E.RENEWAL_REQUESTED, date(2026, 12, 9)),), date(2026, 12, 11))
    assert not any(f.reference.endswith("art. 9, §2º") for f in timely.findings)


@pytest.mark.parametrize("expiry, deadline", [
    pytest.param(date(2026, 12, 31), date(2026, 12, 9), id="CG art. 9 §2: 2026 (Natal skipped)"),
    pytest.param(date(2027, 12, 31), date(2027, 12, 10), id="CG art. 9 §2: 2027"),
])
def test_renewal_deadline_chapada(expiry, deadline):
    assert CG.renewal_deadline(expiry, CG_BOOK, CAL) == deadline
    assert CAL.business_days_between(deadline, expiry) >= 15 - (0 if CAL.is_business_day(expiry) else 1)


def test_renewal_deadline_matupa_is_expiry_until_regulated():
    assert MP.renewal_deadline(date(2027, 2, 13), MP_BOOK, CAL) == date(2027, 2, 13)


@pytest.mark.parametrize("rules, changed, reported, today, ok", [
    pytest.param(CG, date(2026, 3, 2), date(2026, 3, 9), date(2026, 3, 9), True, id="CG art. 18 XIX: 7th day"),
    pytest.param(CG, date(2026, 3, 2), date(2026, 3, 10), date(2026, 3, 10), False, id="CG art. 18 XIX: 8th day"),
    pytest.param(MP, date(2026, 3, 2), None, date(2026, 3, 9), True, id="MP art. 12 XX: not yet late"),
    pytest.param(MP, date(2026, 3, 2), None, date(2026, 3, 10), False, id="MP art. 12 XX: not reported, late"),
    pytest.param(MP, date(2026, 12, 28), date(2027, 1, 4), date(2027, 1, 4), True,
                 id="MP art. 12 XX: 7 days over the year end"),
])
def test_data_change(rules, changed, reported, today, ok):
    assert rules.data_change_check(changed, reported, today, CAL).ok is ok


@pytest.mark.parametrize("pairs", [
    pytest.param((), id="no events"),
    pytest.param(((E.APPROVED, date(2026, 2, 1)),), id="starts without a request"),
    pytest.param(REQUESTED + ((E.REQUESTED, date(2026, 2, 3)),), id="requested twice"),
    pytest.param(REQUESTED + ((E.FEE_PAID, date(2026, 2, 3)),), id="fee before approval"),
    pytest.param(APPROVED + ((E.APPROVED, date(2026, 2, 10)),), id="approved twice"),
    pytest.param(ISSUED_2026 + ((E.FEE_PAID, date(2026, 3, 1)),), id="initial fee twice"),
    pytest.param(INSPECTED + ((E.RENEWAL_FEE_PAID, date(2026, 2, 12)),), id="renewal before issue"),
    pytest.param(ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2)),), id="suspension without its end"),
    pytest.param(ISSUED_2026 + ((E.SUSPENDED, date(2026, 3, 2), date(2026, 3, 1)),), id="suspension ending before"),
    pytest.param(ISSUED_2026 + ((E.CASSADA, date(2026, 3, 2)), (E.INSPECTION_PASSED, date(2026, 3, 3))),
                 id="event after cassação"),
])
def test_impossible_histories_are_named_errors(pairs):
    with pytest.raises(InvalidEventSequence):
        state(CG, pairs, date(2026, 12, 1))


@pytest.mark.parametrize("on, status", [
    pytest.param(date(2026, 7, 1), Status.SUSPENDED, id="CG art. 29 §1: day 1 of 30 is the start day"),
    pytest.param(date(2026, 7, 30), Status.SUSPENDED, id="CG art. 29 §1: day 30 still suspended"),
    pytest.param(date(2026, 7, 31), Status.ACTIVE, id="CG art. 29 §1: day 31 active again"),
])
def test_thirty_day_suspension_keeps_the_driver_off_exactly_thirty_days(on, status):
    sanction = CG.sanction("CG-29-IV", date(2026, 6, 20), (OffenceRecord("CG-29-IV", date(2026, 3, 1)),), CG_BOOK)
    until = sanction.suspension_until(date(2026, 7, 1))
    assert state(CG, ISSUED_2026 + ((E.SUSPENDED, date(2026, 7, 1), until),), on).status is status


SUSPENDED_PAST_YEAR_END = ISSUED_2026 + ((E.SUSPENDED, date(2026, 12, 1), date(2027, 2, 15)),)
RENEWED_WHILE_SUSPENDED = SUSPENDED_PAST_YEAR_END + ((E.RENEWAL_REQUESTED, date(2026, 12, 3)),
                                                     (E.RENEWAL_FEE_PAID, date(2026, 12, 10)))


@pytest.mark.parametrize("pairs, on, status, until", [
    pytest.param(RENEWED_WHILE_SUSPENDED, date(2027, 1, 10), Status.SUSPENDED, date(2027, 12, 31),
                 id="CG art. 27 §ú: renewed while suspended, the suspension still runs"),
    pytest.param(RENEWED_WHILE_SUSPENDED, date(2027, 2, 16), Status.ACTIVE, date(2027, 12, 31),
                 id="CG art. 9 §1 and §2: renewed while suspended, in force the day after the suspension"),
    pytest.param(SUSPENDED_PAST_YEAR_END, date(2027, 2, 16), Status.EXPIRED, date(2026, 12, 31),
                 id="CG art. 9 §1: not renewed, it expired on 31 December"),
])
def test_a_renewal_protocolled_during_a_suspension_keeps_the_authorization(pairs, on, status, until):
    found = state(CG, pairs, on)
    assert (found.status, found.valid_until) == (status, until)


@pytest.mark.parametrize("status, renewable", [
    pytest.param(Status.ACTIVE, True, id="CG art. 9 §2; MP art. 3 §ú: an authorization in force is renewed"),
    pytest.param(Status.SUSPENDED, True, id="CG art. 27 §ú; MP art. 23 §1: a suspension does not forbid renewal"),
    pytest.param(Status.REVOKED, False, id="CG art. 27 I c: revoked, nothing to renew"),
    pytest.param(Status.CASSADA, False, id="CG art. 27 I e: cassada, nothing to renew"),
    pytest.param(Status.AWAITING_FEE, False, id="CG art. 16 §ú: not issued yet"),
])
def test_where_a_renewal_may_be_protocolled(status, renewable):
    assert (status in RENEWABLE) is renewable


def _with(*extra: tuple) -> Authorization:
    """The issued authorization with penalty events ``(kind, on, ref)`` after it."""
    base = authorization(*ISSUED_2026)
    return replace(base, events=base.events + tuple(AuthorizationEvent(k, on, ref=ref) for k, on, ref in extra))


CASSADA_ON, FILED, RULED = date(2026, 5, 12), date(2026, 5, 5), date(2026, 6, 10)


@pytest.mark.parametrize("extra, on, status", [
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"),), date(2026, 5, 11), Status.ACTIVE,
                 id="MP art. 25 §4: a cassação scheduled for the final day: active the day before"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"),), CASSADA_ON, Status.CASSADA,
                 id="MP art. 25 §4: cassada on the day the decision is final"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"), (E.PENALTY_LIFTED, FILED, "auto 0001/2026:0")),
                 date(2026, 7, 1), Status.ACTIVE, id="CG art. 25 caput: lifted by an appeal in time, it never takes effect"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"), (E.PENALTY_LIFTED, RULED, "auto 0001/2026:0")),
                 date(2026, 6, 9), Status.CASSADA, id="CG art. 25 caput: a late appeal granted: cassada until its decision"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"), (E.PENALTY_LIFTED, RULED, "auto 0001/2026:0")),
                 RULED, Status.ACTIVE, id="CG art. 25 caput: ...and active again from it"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"), (E.PENALTY_LIFTED, FILED, "auto 0001/2026:0"),
                  (E.CASSADA, RULED, "auto 0001/2026:1")), RULED, Status.CASSADA,
                 id="MP art. 25 §4: applied again by the appeal's decision (a new ref)"),
    pytest.param(((E.CASSADA, CASSADA_ON, "auto 0001/2026:0"), (E.PENALTY_LIFTED, FILED, "auto 0002/2026:0")),
                 CASSADA_ON, Status.CASSADA, id="a lift names one penalty: another's is not lifted"),
])
def test_a_lifted_penalty_is_folded_as_if_not_applied_from_the_lifts_day(extra, on, status):
    assert MP.authorization_status(_with(*extra), on, MP_BOOK, CAL).status is status


# issue 38: the renewal on the portal. The acts set only the last day (CG art. 9 §2; MP art. 3 §ú with
# renewal_lead_business_days = 0); the window opens 30 days before it (RENEWAL_WINDOW_DAYS, LEITURAS).
@pytest.mark.parametrize("rules, expiry, opens, last", [
    pytest.param("CG", date(2026, 12, 31), date(2026, 11, 9), date(2026, 12, 9), id="CG art. 9 §1-§2: 31/12/2026"),
    pytest.param("CG", date(2027, 12, 31), date(2027, 11, 10), date(2027, 12, 10), id="CG art. 9 §1-§2: 31/12/2027"),
    pytest.param("MP", date(2027, 2, 13), date(2027, 1, 14), date(2027, 2, 13), id="MP art. 3 §ú: until the expiry"),
])
def test_renewal_window_opens_30_days_before_the_acts_last_day(rules, expiry, opens, last):
    ruleset, book = (CG, CG_BOOK) if rules == "CG" else (MP, MP_BOOK)
    assert ruleset.renewal_window(expiry, book, CAL) == (opens, last)
    assert last == ruleset.renewal_deadline(expiry, book, CAL)
