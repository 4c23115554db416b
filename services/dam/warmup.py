"""What the first DAM of a process would pay, paid at start-up in the background.

Issuing a DAM moves its due date to a business day: the first time in a process, the ``holidays``
package builds the year's national and Mato Grosso holidays in pt-BR (~0,13 s here). Its slip, and
every other document, embeds DejaVu subset once per process (~0,45 s). :func:`start` does both in a
daemon thread as soon as the store is open, so the clerk's first write and first slip cost what the
next ones do; a call that comes first only waits for the lock the work holds (never twice).
"""
from __future__ import annotations

import logging
import threading
from datetime import date

from fpdf import FPDF

from rules.calendar import LegalCalendar
from services.shared import clock
from services.shared.pdf.style import Fonts

log = logging.getLogger("painel")


def warm() -> None:
    """The holidays of this year and the next, and the documents' fonts."""
    calendar = LegalCalendar()
    this_year = clock.today().year
    for year in (this_year, this_year + 1):
        calendar.is_business_day(date(year, 1, 1))
    Fonts(FPDF())


def _run() -> None:
    try:
        warm()
    except Exception:  # a warm-up that fails costs only its time: the first write pays it again
        log.exception("aquecimento da emissão de DAM falhou")


def start() -> threading.Thread:
    """Warm in a daemon thread (it never holds the process open) and return it."""
    thread = threading.Thread(target=_run, name="painel-warmup", daemon=True)
    thread.start()
    return thread
