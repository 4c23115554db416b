"""Dated parameters: values with an effective date and the act that set them.

A value is picked by the date it applies to (the infraction date, the request date, the
issue date). When no version is in force on that date, :class:`ParameterMissing` is raised:
a missing value is never a silent zero.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from rules.base import RuleError

DEMO_MARK = "demonstração"  # in the act of a value the demo store wrote (never a real municipality's act)


def is_demo_act(act: str) -> bool:
    """The act cited by a demo value: the Implantação page lists it; documents do not print it."""
    return DEMO_MARK in (act or "").casefold()


class ParameterMissing(RuleError):
    """No version of the parameter is in force on the date asked for."""


@dataclass(frozen=True)
class ParameterVersion:
    """One version of a parameter, in force from ``effective`` until the next version."""

    name: str
    effective: date
    value: Any
    act: str
    note: str = ""


class ParameterBook:
    """All versions of the parameters of one municipality, queried by name and date."""

    def __init__(self, versions: Iterable[ParameterVersion] = ()) -> None:
        self._by_name: dict[str, list[ParameterVersion]] = {}
        for version in versions:
            self._by_name.setdefault(version.name, []).append(version)
        for history in self._by_name.values():
            history.sort(key=lambda v: v.effective)

    def version(self, name: str, on: date) -> ParameterVersion:
        """The version of ``name`` in force on ``on``."""
        history = self._by_name.get(name, [])
        position = bisect_right([v.effective for v in history], on)
        if position == 0:
            raise ParameterMissing(
                f"Parâmetro '{name}' sem valor em vigor em {on:%d/%m/%Y}", value=(name, on)
            )
        return history[position - 1]

    def get(self, name: str, on: date) -> Any:
        """The value of ``name`` in force on ``on``."""
        return self.version(name, on).value

    def history(self, name: str) -> list[ParameterVersion]:
        return list(self._by_name.get(name, []))

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def with_versions(self, versions: Iterable[ParameterVersion]) -> "ParameterBook":
        """A new book with extra versions added (the original is left as it was)."""
        return ParameterBook([*self.all_versions(), *versions])

    def all_versions(self) -> list[ParameterVersion]:
        return [v for history in self._by_name.values() for v in history]
