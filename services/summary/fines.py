"""The fines' part of the mayor's office figures: autos de infração of the period by severity and stage,
from the stored days of ``autos_view``, and the fines' DAMs (revenue kind ``multa``) from those of
``revenue_view`` (see ``services.summary.figures``)."""
from __future__ import annotations

from services.ridehailing.enforcement import autos
from services.summary import revenue_view
from services.summary.days import Days, keyed, ranked
from services.summary.figures import FinesFigures
from services.summary.periods import Period


def of_period(period: Period, days: Days, autos_days: Days) -> FinesFigures:
    """Autos of the period (by the day of the infraction; drafts left out) by severity and by stage, and
    the fines' DAMs (revenue kind ``multa``)."""
    fines = revenue_view.in_period(days, period, only_kind="multa")
    counted = autos_days.within(period.start, period.end)
    severities: dict[str, int] = {}
    for severity, n in keyed(counted, "sev").items():
        severities[severity.capitalize()] = severities.get(severity.capitalize(), 0) + n
    stages: dict[str, int] = {}
    for stage, n in keyed(counted, "stg").items():
        label = autos.STAGES.get(stage, stage)
        stages[label] = stages.get(label, 0) + n
    return FinesFigures(
        by_severity=ranked(severities), by_stage=ranked(stages),
        issued_count=fines.total("issued_count"), issued=fines.total("issued"),
        paid_count=fines.total("paid_count"), paid=fines.total("paid"),
        overdue_count=fines.total("overdue_count"), overdue=fines.total("overdue"),
        notices_by_channel=keyed(counted, "ntc"))
