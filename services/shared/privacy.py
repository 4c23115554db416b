"""What the panel shows of people to a role that does not need it in full (LGPD, Lei 13.709/2018).

The mayor's office (``gabinete``) sees aggregates only: no names, CPFs, plates or document numbers.
Of the figures about people — a sanction or another decision against a person, persons by a category
of their own, a small locality — a count of 1 or 2 could point at someone ("1 cassada in the town")
and is shown as "< 3", with every amount of the same cell. Where the cells of such a breakdown add up
to a figure that is shown (a total row, a headline), one hidden cell could be recovered by
subtraction, so a second cell is hidden too ("X", complementary suppression): ``suppress`` is the one
rule every table, export and report of the mayor's office applies. It hides nothing else: never an
amount of the municipality's revenue (public by law, LC 101/2000 art. 48-A II), never the
secretariat's own workload, and nothing from a role that reads the records anyway (``applies_to``).
A list that shows a CPF to a role that does not need the whole number shows it masked, the middle six
digits only (the form the federal government uses when it publishes CPFs: ``***.456.789-**``).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from services.shared.auth import Actor

SMALL_CELL = 3  # counts below this in a breakdown are shown as "< 3"
SMALL_TEXT = f"< {SMALL_CELL}"
COMPLEMENT_TEXT = "X"  # hidden so that a "< 3" beside it cannot be recovered from the total (IBGE's mark)
RULE_TEXT = (f"Para o gabinete, números sobre pessoas (sanções e decisões contra alguém, pessoas por categoria, "
             f"localidades pequenas) de 1 ou 2 aparecem como “{SMALL_TEXT}”, sem seus valores; quando o total é "
             f"mostrado, outra célula do mesmo detalhamento aparece como “{COMPLEMENT_TEXT}” para que a oculta não "
             "se deduza por diferença (LGPD, Lei 13.709/2018). A receita do município (pública, LC 101/2000, "
             "art. 48-A, II) e o trabalho da secretaria aparecem sempre inteiros.")


def applies_to(actor: Actor) -> bool:
    """Whether ``actor`` sees the figures about people with the small-cell marks: a role that does not
    read the records (the gabinete); the secretariat and the TI see every record anyway."""
    return not actor.can("read")


def mask_cpf(cpf: str) -> str:
    """``123.456.789-09`` (or its 11 digits) → ``***.456.789-**``; anything else → ``***``."""
    digits = re.sub(r"\D", "", cpf or "")
    if len(digits) != 11:
        return "***"
    return f"***.{digits[3:6]}.{digits[6:9]}-**"


def suppress(counts: Sequence[int], total_known: bool = True,
             people: Sequence[bool] | None = None) -> tuple[tuple[str | None, ...], str | None]:
    """The marks of the cells of one breakdown (``None``: shown) and the mark of their total.

    A cell of 1 or 2 about people (``people``, one flag per cell; all of them when not given) is
    "< 3"; a cell not about people is never. When the breakdown's total is shown (``total_known``) and
    any cell is hidden, the smallest cell above the threshold plus one is hidden too ("X"): then the
    hidden cells add up to a known sum that fits more than one split (a "< 3" beside an "X" of at least
    4 can be 1 or 2). When no such cell exists, every non-zero cell and the total are hidden. A total of
    1 or 2 beside a hidden cell is "< 3" itself."""
    about = [True] * len(counts) if people is None else list(people)
    marks: list[str | None] = [SMALL_TEXT if mine and 0 < c < SMALL_CELL else None for c, mine in zip(counts, about)]
    if not any(marks):
        return tuple(marks), None
    total = sum(counts)
    total_mark = SMALL_TEXT if total < SMALL_CELL else None
    if not total_known or total_mark:
        return tuple(marks), total_mark
    wide = sorted((count, index) for index, count in enumerate(counts) if count > SMALL_CELL)
    if wide:
        marks[wide[0][1]] = COMPLEMENT_TEXT
        return tuple(marks), None
    marks = [mark or (COMPLEMENT_TEXT if count else None) for mark, count in zip(marks, counts)]
    return tuple(marks), COMPLEMENT_TEXT
