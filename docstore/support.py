"""What the embedded engine refuses, as data, and the one error it raises for it.

:data:`REFUSED` names every MongoDB operator the engine does not offer, by where it is written; the
package docstring and the engine section of ``docs/DESENVOLVIMENTO.md`` list the same names, and
``docstore/tests/test_refusals.py`` checks that each one raises ``OperationFailure`` and is listed.
"""
from __future__ import annotations

from pymongo.errors import OperationFailure

REFUSED: dict[str, tuple[str, ...]] = {
    "top-level query operators": ("$where", "$expr", "$text", "$jsonSchema", "$comment"),
    "field query operators": ("$elemMatch", "$size", "$all", "$type", "$mod", "$bitsAllSet", "$bitsAnySet",
                              "$bitsAllClear", "$bitsAnyClear", "$geoWithin", "$geoIntersects", "$near",
                              "$nearSphere"),
    "update operators": ("$rename", "$pop", "$pullAll", "$currentDate", "$mul", "$bit"),
    "positional update paths": ("$", "$[]", "$[<identifier>]"),
    "$push modifiers": ("$slice", "$sort", "$position"),
    "projection operators": ("$", "$elemMatch", "$slice", "$meta"),
}


def unsupported(what: str) -> OperationFailure:
    return OperationFailure(f"Operação não suportada pelo armazenamento embutido: {what}", code=2)
