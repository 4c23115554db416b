"""Errors that services raise for a page to show as a pt-BR message (never a traceback)."""
from __future__ import annotations


class ServiceError(Exception):
    """A user-facing failure with a pt-BR message; ``field`` names the form field at fault."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class PermissionDenied(ServiceError):
    """The user's role or municipalities do not allow this action."""


class NotFound(ServiceError):
    pass


class ValidationFailed(ServiceError):
    """One or more fields are invalid; ``errors`` maps field name to its pt-BR message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("Corrija os campos indicados: " + "; ".join(errors.values()))
        self.errors = errors


class Conflict(ServiceError):
    """A unique value already exists (CPF, plate, document number...)."""
