"""Fonts of every document, built once per process.

DejaVu Sans (and Sans Mono) from the Debian package ``fonts-dejavu-core`` print the Portuguese
accents. Embedding a whole DejaVu file costs ~100 ms per document (fpdf2 parses it, then subsets
it again at output), so each file is subset once per process to the characters the panel prints
(Latin-1, Latin Extended-A and common punctuation) into a small file that every document embeds.
Characters outside that set print as "?". Without DejaVu, documents use the PDF core fonts.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from fontTools import subset as ftsubset
from fontTools.ttLib import TTFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
CHARSET = frozenset(
    ["\n"] + [chr(c) for c in range(0x20, 0x7F)] + [chr(c) for c in range(0xA0, 0x180)] + list("•…✂–—‘’“”‚„€№")
)
_lock = threading.Lock()


@functools.cache
def _folder() -> Path:
    """The process's folder of subset files, removed when the process ends (each start made one that
    stayed in /tmp: 805 on the developers' machine after a day of tests)."""
    folder = Path(tempfile.mkdtemp(prefix="painel-fonts-"))
    atexit.register(_remove, folder, os.getpid())
    return folder


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # not in a forked child, which may end before the process that made it
        shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def _subset(source: Path) -> Path:
    """``source`` reduced to CHARSET, written once per process."""
    font = TTFont(str(source))
    options = ftsubset.Options(notdef_outline=True, recommended_glyphs=True, hinting=False,
                               layout_features=[], name_IDs=["*"])
    options.drop_tables += ["FFTM", "GDEF", "GPOS", "GSUB"]
    subsetter = ftsubset.Subsetter(options)
    subsetter.populate(text="".join(sorted(CHARSET)))
    subsetter.subset(font)
    target = _folder() / source.name
    font.save(str(target))
    return target


def font_files(names: dict[tuple[str, str], str], font_dir: Path | None = None) -> dict[tuple[str, str], Path] | None:
    """For each (family, style) the subset file of its DejaVu file, or None when one is not installed."""
    folder = font_dir or FONT_DIR
    if not all((folder / name).exists() for name in names.values()):
        return None
    with _lock:
        return {key: _subset(folder / name) for key, name in names.items()}


def add_fonts(pdf: Any, files: dict[tuple[str, str], Path]) -> None:
    """Add the subset files to ``pdf``. Their glyph bounding boxes were computed when they were
    subset, so fpdf2 is told not to unpack every glyph again to recompute them at output."""
    for (family, style), path in files.items():
        pdf.add_font(family, style, str(path))
        pdf.fonts[f"{family.lower()}{style}"].ttfont.recalcBBoxes = False


def printable(value: str) -> str:
    """``value`` with what the subset fonts cannot print replaced by '?'."""
    return value if CHARSET.issuperset(value) else "".join(ch if ch in CHARSET else "?" for ch in value)
