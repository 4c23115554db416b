"""When the driver may ask the renewal of their authorization on the portal (issue 38).

The acts set only the last day to ask it in time — CG Decreto 06/2026 art. 9 §2 ("pelo menos 15 dias
úteis antes do vencimento"; the authorization is valid until 31/12, art. 9 §1); MP Lei 1.552/2025 art. 3
§ú (12 months; the lead is the parameter ``renewal_lead_business_days``, 0 until the regulation) — and
no first day: the window opens ``rules.ridehailing.ruleset.RENEWAL_WINDOW_DAYS`` before the last day, the
day the renewal reminder goes to the domicile (``renewal_reminders``; docs/LEITURAS.md). After the last
day the request is still taken while the authorization is in force, kept with the rules' warning, as
the clerk's is (LEITURAS §1 item 15).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.fmt import day
from rules.ridehailing.lifecycle import RENEWABLE
from rules.ridehailing.ruleset import RENEWAL_WINDOW_DAYS
from services.ridehailing import registry
from services.shared.errors import ServiceError


class RenewalNotOpen(ServiceError):
    """The renewal window has not opened yet; the message says when and why (the article)."""


@dataclass(frozen=True)
class Window:
    """The renewal window of one authorization: it expires on ``valid_until``; the request opens on
    ``opens`` and is in time until ``last_day`` (``reference``, the act's article)."""

    valid_until: date
    opens: date
    last_day: date
    reference: str

    def not_open_text(self) -> str:
        return (f"A renovação pode ser pedida a partir de {day(self.opens)}. A autorização vale até "
                f"{day(self.valid_until)} e a renovação deve ser requerida até {day(self.last_day)} "
                f"({self.reference}); o portal a abre {RENEWAL_WINDOW_DAYS} dias antes desse último dia, quando o lembrete "
                "chega ao seu domicílio eletrônico.")

    def late(self, on: date) -> bool:
        return on > self.last_day


def window_of(db: Database, municipality: str, doc: dict, on: date) -> Window | None:
    """The window of ``doc`` as it stands on ``on``; None when it is not renewable then (not issued yet,
    expired, revoked, cassada…)."""
    scope = registry.Scope(db, municipality)
    state = scope.state(doc, on)
    if state.status not in RENEWABLE or state.valid_until is None:
        return None
    opens, last = scope.rules.renewal_window(state.valid_until, scope.book, scope.calendar(on))
    return Window(state.valid_until, opens, last, scope.rules.ref("renewal"))


def require_open(db: Database, municipality: str, doc: dict, on: date) -> None:
    """Refuse (:class:`RenewalNotOpen`, with the day it opens and the article) a request before the window."""
    window = window_of(db, municipality, doc, on)
    if window is not None and on < window.opens:
        raise RenewalNotOpen(window.not_open_text())
