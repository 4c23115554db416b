"""The verification of a PDF the panel issued, read as a stranger reads it: the code printed on its stamp,
asked to the public verification with the file (issue 37)."""
from __future__ import annotations

import io
import re

from pypdf import PdfReader

from services.shared import verification

CODE = re.compile(r"código\s+([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4})")


def verified(db, pdf: bytes) -> verification.Answer:
    """The public verification's answer for the code printed on ``pdf``'s first page, with the file."""
    first = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    found = CODE.search(first)
    assert found, "o PDF não traz o código de autenticação"
    return verification.verify(db, found[1], pdf)
