"""Named errors of the ride-hailing rule sets; each says the legal condition and carries the value."""
from __future__ import annotations

from rules.base import RuleError


class UnknownInfraction(RuleError):
    """The code is not in the municipality's infraction catalogue."""


class InvalidEventSequence(RuleError):
    """An authorization event cannot happen at that point of the authorization's life."""


class FineAboveCap(RuleError):
    """The fine in force exceeds the cap the law sets for its severity (Lei 1.552/2025, art. 25, §1)."""


class InvalidParameter(RuleError):
    """A dated parameter holds a value the rule cannot use (wrong choice or negative amount)."""


class InvalidPenaltyPeriod(RuleError):
    """A suspension must last at least one day or one month."""
