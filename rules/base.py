"""Shared shapes for every rule set: findings with their legal reasons and named errors."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum

CENT = Decimal("0.01")


def cents(amount: Decimal) -> Decimal:
    """Quantize an amount to centavos, rounding half up, as money is at the end of a computation."""
    return Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP)


class Level(str, Enum):
    """How a finding weighs: an error refuses, a warning only informs, info states a fact."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One checked condition: whether it holds, why (pt-BR), and the act and article behind it."""

    ok: bool
    message: str
    reference: str
    level: Level = Level.ERROR
    unproven: bool = False  # not shown to hold for want of its proof ("falta comprovar"), not shown to fail

    @property
    def blocking(self) -> bool:
        return not self.ok and self.level is Level.ERROR

    def text(self) -> str:
        """The reason as shown to a user: message followed by its reference."""
        return f"{self.message} ({self.reference})"


@dataclass(frozen=True)
class Decision:
    """The outcome of a rule: allowed unless some finding blocks it."""

    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not any(f.blocking for f in self.findings)

    @property
    def failures(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.blocking)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if not f.ok and f.level is Level.WARNING)

    def reasons(self) -> list[str]:
        """Texts of the findings that block, for screens, PDFs and the audit log."""
        return [f.text() for f in self.failures]


class RuleError(Exception):
    """Base of every named legal error; carries the offending value."""

    def __init__(self, message: str, value: object = None, reference: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.value = value
        self.reference = reference

    def __str__(self) -> str:
        return f"{self.message} ({self.reference})" if self.reference else self.message
