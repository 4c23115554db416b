"""A renewal protocolled and paid while the authorization is suspended (issue 23, item 4): neither act
forbids it (CG Decreto 06/2026 art. 9 §2 and art. 27 §ú; MP Lei 1.552/2025 art. 3 §ú and art. 23 §1),
so a suspension running past 31 December no longer ends in "vencida"."""
from __future__ import annotations

from datetime import date

from rules.ridehailing.concepts import EventKind
from services.dam import payments
from services.ridehailing import authorizations, fees, work_queue
from tests.enforcement_support import active_authorization
from tests.ridehailing_data import ACTORS

CG = ACTORS["chapada"]


def test_a_suspended_authorization_is_renewed_and_in_force_after_the_suspension(db, today):
    auth, _, _ = active_authorization(db, today, "chapada")
    today.set(date(2026, 12, 1))
    authorizations.record_sanction(db, CG, "chapada", auth, EventKind.SUSPENDED, date(2026, 12, 1),
                                   date(2027, 2, 15), "Auto 0001/2026")
    today.set(date(2026, 12, 3))
    assert authorizations.status(db, CG, "chapada", auth, today.value).status.value == "suspended"
    fees.request_renewal(db, CG, "chapada", auth, today.value)
    assert any(p.kind == "Suspensão" for p in work_queue.pendencias(db, CG, "chapada", today.value))
    dam = fees.issue_fee_dam(db, CG, "chapada", auth, today.value)
    payments.record_payment(db, CG, "chapada", dam["id"], today.value, dam["amount"], "Banco do Brasil")
    during = authorizations.status(db, CG, "chapada", auth, date(2027, 1, 10))
    after = authorizations.status(db, CG, "chapada", auth, date(2027, 2, 16))
    assert (during.status.value, after.status.value, after.valid_until) == ("suspended", "active", date(2027, 12, 31))
