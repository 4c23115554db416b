"""What the embedded engine refuses: the one error it raises for an operation it does not offer."""
from __future__ import annotations

from pymongo.errors import OperationFailure


def unsupported(what: str) -> OperationFailure:
    return OperationFailure(f"Operação não suportada pelo armazenamento embutido: {what}", code=2)

