"""Properties of the Nova Lacerda quote (Decreto 017/2026, Anexo I and II): any quantity or
distance of the right type gives a quote that is never negative, or one of the quote's own errors."""
from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.machinery.discounts import (
    DiscountClaim,
    DiscountCriterion,
    Evidence,
    EvidenceKind,
)
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.quote import (
    DumpTruckDay,
    EarthLoads,
    KmReading,
    LowboyTrip,
    MachineHours,
    PassengerTransport,
    QuoteRefused,
    quote,
)
from rules.params import ParameterBook, ParameterVersion

BOOK = ParameterBook(DEFAULT_PARAMETERS)
BOOKS = {reading: BOOK.with_versions([ParameterVersion("km_reading_items_07_09", date(2026, 4, 1),
                                                       reading.value, "teste")]) for reading in KmReading}

numbers = st.one_of(st.integers(), st.decimals(), st.decimals(min_value=-1200, max_value=1200, places=2))
items = st.text(max_size=3) | st.sampled_from([f"{n:02d}" for n in range(1, 13)])
services = st.one_of(
    st.builds(MachineHours, items, numbers),
    st.builds(DumpTruckDay, numbers, st.booleans(), st.booleans()),
    st.builds(LowboyTrip, numbers),
    st.builds(PassengerTransport, items, numbers),
    st.builds(EarthLoads, numbers),
)
claims = st.builds(DiscountClaim, st.sampled_from(DiscountCriterion),
                   st.none() | st.builds(Evidence, st.sampled_from(EvidenceKind), st.text(max_size=5)),
                   st.none() | st.decimals())
days = st.dates(min_value=date(2026, 3, 24), max_value=date(2030, 12, 31))


@settings(max_examples=400, deadline=None)
@given(st.lists(services, max_size=4), st.lists(claims, max_size=3), days, st.sampled_from(KmReading))
def test_quote_is_never_negative_or_raises_its_own_errors(requested, discount_claims, on, reading):
    try:
        q = quote(requested, on, BOOKS[reading], discount_claims)
    except QuoteRefused as refused:
        assert refused.message
        return
    assert q.total >= 0
    assert all(line.amount >= 0 and line.discount >= 0 and line.net >= 0 for line in q.lines)
    assert all(line.amount == line.amount.quantize(Decimal("0.01")) for line in q.lines)
    assert q.total == q.gross - q.discount_total


distances = st.decimals(min_value=Decimal("0.01"), max_value=550, places=2)
hours = st.decimals(min_value=Decimal("0.01"), max_value=10000, places=2)
in_range = st.one_of(
    st.builds(MachineHours, st.sampled_from(["01", "02", "03", "04"]), hours),
    st.builds(DumpTruckDay, distances, st.booleans()),
    st.builds(LowboyTrip, distances),
    st.builds(PassengerTransport, st.sampled_from(["10", "11"]),
              st.decimals(min_value=Decimal("0.01"), max_value=1100, places=2)),
    st.builds(EarthLoads, st.integers(min_value=1, max_value=5)),
)


def within_load_limit(requested) -> bool:
    """Art. 9, §1: at most 5 loads of earth or gravel in one request."""
    return sum(s.loads for s in requested if isinstance(s, EarthLoads)) <= 5

proven = st.builds(DiscountClaim, st.sampled_from(DiscountCriterion),
                   st.builds(Evidence, st.sampled_from(EvidenceKind), st.just("nº 1")),
                   st.decimals(min_value=0, max_value=10000, places=2))


@settings(max_examples=300, deadline=None)
@given(st.lists(in_range, min_size=1, max_size=5).filter(within_load_limit), st.lists(proven, max_size=4), days,
       st.sampled_from(KmReading))
def test_quote_within_anexo_i_ranges_is_always_priced(requested, discount_claims, on, reading):
    q = quote(requested, on, BOOKS[reading], discount_claims)
    assert 0 < q.total <= q.gross
    assert q.discount_total == sum((line.discount for line in q.lines if line.item == "12"), Decimal(0))
    assert q.discount.rate in (Decimal(0), Decimal("0.30"), Decimal("0.35"), Decimal("0.70"))


@settings(max_examples=200, deadline=None)
@given(distances, distances, st.booleans())
def test_first_reading_never_charges_less_for_a_longer_trip(a, b, lowboy):
    shorter, longer = sorted((a, b))
    make = LowboyTrip if lowboy else DumpTruckDay
    assert (quote([make(shorter)], date(2026, 4, 1), BOOKS[KmReading.EXCESS_OVER_200]).total
            <= quote([make(longer)], date(2026, 4, 1), BOOKS[KmReading.EXCESS_OVER_200]).total)
