"""What the first DAM of a process would pay, paid at start-up in the background.

Issuing a DAM moves its due date to a business day: the first time in a process, the ``holidays``
package builds the year's national and Mato Grosso holidays in pt-BR (~0,13 s here). Its slip, and
every other document, embeds DejaVu subset once per process (~0,45 s). :func:`start` does both in a
daemon thread a few seconds after the store is open (once the login page is drawn: the work would
otherwise slow that first page, the GIL being shared), so the clerk's first write and first slip,
which come after a login, cost what the next ones do.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import date

from rules.calendar import LegalCalendar
from services.shared import clock

log = logging.getLogger("painel")


def warm() -> None:
    """The holidays of this year and the next, and the documents' fonts."""
    # imported here, in the warm-up thread: this module is loaded by the login page's first run, and
    # fpdf's import (about 1 s on a loaded machine) would delay the login drawn after a start
    from fpdf import FPDF

    from services.shared.pdf.style import Fonts

    calendar = LegalCalendar()
    this_year = clock.today().year
    for year in (this_year, this_year + 1):
        calendar.is_business_day(date(year, 1, 1))
    Fonts(FPDF())


DELAY_S = 3.0  # past the first drawing of the login page (bench/startup.py: about 2,5 s here)


def _run(delay: float) -> None:
    time.sleep(delay)
    try:
        warm()
    except Exception:  # a warm-up that fails costs only its time: the first write pays it again
        log.exception("aquecimento da emissão de DAM falhou")


def start(delay: float = DELAY_S) -> threading.Thread:
    """Warm in a daemon thread (it never holds the process open) after ``delay`` seconds; the thread."""
    thread = threading.Thread(target=_run, args=(delay,), name="painel-warmup", daemon=True)
    thread.start()
    return thread
