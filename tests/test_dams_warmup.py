"""The first DAM of a process costs what the next ones do: start-up builds the year's holidays and
the documents' fonts in the background (``services.dam.warmup``), so a clerk's first issue and first
slip never pay them (issue 21: 0,55 s for the first DAM after a start)."""
from __future__ import annotations

import os
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import holidays
import pytest

from rules import calendar as legal_calendar
from services.dam import dams, printing, warmup
from services.setup import bootstrap
from services.shared import clock
from services.shared.pdf import fonts
from tests.conftest import SECRETARIA_MP


def test_after_the_warm_up_the_first_dam_and_slip_build_no_holidays_and_no_fonts(db, monkeypatch):
    bootstrap.prepare(db)
    legal_calendar._state_holidays.cache_clear()  # as in a process just started
    fonts._subset.cache_clear()
    warmup.start(delay=0).join(timeout=60)

    def refused(*args, **kwargs):
        raise AssertionError("paid by the first write, not at start-up")
    monkeypatch.setattr(holidays, "Brazil", refused)
    monkeypatch.setattr(fonts, "TTFont", refused)  # the whole DejaVu file read to be subset
    dam = dams.issue(db, SECRETARIA_MP, "matupa", taxpayer_name="Maria da Silva Souza",
                     taxpayer_document="529.982.247-25", taxpayer_address="Rua dos Ipês, 120, Centro",
                     revenue_kind="taxa_autorizacao", description="Taxa de autorização",
                     legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=Decimal("150.00"),
                     due=clock.today() + timedelta(days=10))
    assert printing.pdf(db, SECRETARIA_MP, "matupa", [dam["id"]]).startswith(b"%PDF")


def test_a_failed_warm_up_leaves_the_first_dam_to_pay_it(monkeypatch, caplog):
    monkeypatch.setattr(warmup, "warm", lambda: 1 / 0)
    warmup.start(delay=0).join(timeout=60)
    assert "aquecimento" in caplog.text


def test_a_process_leaves_no_folder_of_fonts_behind(tmp_path):
    """Each process subsets the fonts into a folder of its own; it goes when the process ends (they
    piled up in /tmp, one per start of the panel or of a test worker)."""
    import subprocess
    import sys

    from tests.browser_support import ROOT

    if fonts.font_files({("DejaVu", ""): "DejaVuSans.ttf"}) is None:  # no font to subset, no folder
        assert not os.environ.get("CI"), ".ci/run installs fonts-dejavu-core"
        pytest.skip("DejaVu is not installed on this machine")
    script = ("from services.shared.pdf import fonts\n"
              "files = fonts.font_files({('DejaVu', ''): 'DejaVuSans.ttf'})\n"
              "print(files[('DejaVu', '')].parent)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    folder = Path(out.stdout.strip())
    assert folder.name.startswith("painel-fonts-") and not folder.exists()
