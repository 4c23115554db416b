"""The charges' part of the mayor's office figures: what is still owed by how long it is overdue (the
aging, today) and the share of the value charged in a period that was paid (see
``services.summary.figures``).

Both come from read models kept with the charges (issue 21), whatever their number: the aging from
``services.dam.aging_view`` (the Débitos page's), the value charged and paid per issue day from the
stored days of ``services.summary.revenue_view``.
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.dam import charges as charge_rules
from services.dam import aging_view
from services.dam.debts import Aging, AgingCell
from services.summary import revenue_view
from services.summary.days import Days
from services.summary.figures import DebtsFigures
from services.summary.periods import Period


def of_periods(db: Database, municipality: str, days: Days, period: Period,
               previous: Period, today: date) -> DebtsFigures:
    """The aging on ``today`` and the value charged and paid in ``period`` and ``previous``; ``days``
    are the municipality's stored days (``revenue_view.stored``)."""
    kept = aging_view.cells(db, municipality, list(charge_rules.OWING), None, today)
    aging = Aging(today, {line: {key: AgingCell(n, amount) for key, (n, amount) in cells.items()}
                          for line, cells in kept.items()}).by_bucket()
    return DebtsFigures(today, {key: (cell.count, cell.amount) for key, cell in aging.items()},
                        *revenue_view.charged_in_period(days, period), *revenue_view.charged_in_period(days, previous))
