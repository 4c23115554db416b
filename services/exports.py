"""What every export shares: a cell a spreadsheet will never run as a formula.

OWASP (CSV Injection): a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is read as a formula by Excel and LibreOffice; prefixing it with an apostrophe makes it text.
Numbers formatted by the panel ("-1.234,56") are never passed through here.
"""
from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """``text`` as a cell that opens as text, never as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
