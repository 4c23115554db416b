"""The PDF of DAMs: one or many in one file, each page drawn by :mod:`services.dam.slip_pdf`.

Each DAM carries its authentication code (``services.shared.authenticity``), the same on every print
of it; a single DAM printed again is the same bytes.

A cancelled DAM is never printed (someone could still pay it). The DAMs of a batch are read with
one ``$in`` query per chunk, in the order asked.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from pymongo.database import Database

from services.dam import dams
from services.dam.slip_pdf import DamPrint, render_dams
from services.shared import authenticity, municipalities
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ServiceError, ValidationFailed
from services.shared.pdf.letterhead import Letterhead


class DamNotPrintable(ServiceError):
    """A cancelled DAM is not printed: someone could still pay it."""


def printable(dam: dict, municipality: municipalities.Municipality, head: Letterhead | None = None) -> DamPrint:
    """What the PDF shows of a stored DAM (``head``: the municipality's letterhead)."""
    replaces = dam.get("replaces") or {}
    return DamPrint(
        municipality_name=f"Prefeitura Municipal de {municipality.name}",
        secretariat=municipality.secretariat,
        municipality_address=" · ".join(part for part in (municipality.address, municipality.phone) if part),
        number=dam["number"],
        taxpayer_name=dam["taxpayer_name"],
        taxpayer_document=dam["taxpayer_document"],
        taxpayer_address=dam["taxpayer_address"],
        description=dam["description"],
        legal_basis=dam["legal_basis"],
        amount=dam["amount"],
        issued_on=dam["issued_on"],
        due_on=dam["due_on"],
        barcode=dam["barcode"],
        instructions=tuple(dam.get("instructions", [])),
        pix_payload=dam.get("pix_payload"),
        head=head,
        revenue_code=dam.get("revenue_code", ""),
        revenue_name=dams.REVENUE_KINDS.get(dam["revenue_kind"], ""),
        reference=dam.get("reference", ""),
        principal=dam.get("principal"),
        discount=dam.get("discount") or Decimal("0"),
        fine=dam.get("fine") or Decimal("0"),
        interest=dam.get("interest") or Decimal("0"),
        after_due=dam.get("after_due", ""),
        via=f"{replaces['via']}ª via do DAM {replaces['number']}" if replaces else "",
    )


PRINT_CHUNK = 200  # DAMs read per $in query when printing


def _load_many(db: Database, municipality: str, dam_ids: Sequence[str]) -> list[dict]:
    """The DAMs of ``dam_ids`` in that order, read with one ``$in`` query per chunk."""
    keys = [dams._object_id(dam_id) for dam_id in dam_ids]
    found: dict[str, dict] = {}
    for start in range(0, len(keys), PRINT_CHUNK):
        # by _id alone (the cheapest lookup on every store); the municipality is checked on each DAM
        chunk = keys[start:start + PRINT_CHUNK]
        docs = [db[dams.COLLECTION].find_one({"_id": chunk[0]})] if len(chunk) == 1 else \
            db[dams.COLLECTION].find({"_id": {"$in": chunk}})
        found.update((str(doc["_id"]), doc) for doc in docs if doc and doc.get("municipality") == municipality)
    missing = [dam_id for dam_id in dam_ids if str(dam_id) not in found]
    if missing:
        raise NotFound("DAM não encontrado.")
    return [dams.plain(found[str(dam_id)]) for dam_id in dam_ids]


@checked
def pdf_batch(
    db: Database, actor: Actor, municipality: str, dam_ids: Sequence[str],
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """One PDF with a page per DAM, in the order given; cancelled DAMs are refused. The DAMs are
    read with one ``$in`` query per chunk; ``progress(done, total)`` is told after each page."""
    authorize(actor, "read", municipality)
    if not dam_ids:
        raise ValidationFailed({"dam_ids": "Escolha ao menos um DAM para imprimir."})
    chosen = _load_many(db, municipality, dam_ids)
    return _render(db, actor, municipality, chosen, progress)


def _render(db: Database, actor: Actor, municipality: str, chosen: Sequence[dict],
            progress: Callable[[int, int], None] | None = None) -> bytes:
    """The PDF of DAMs already read, for a service that has checked its actor may see them (the actor is
    the issuer the authentication record names); cancelled DAMs are refused."""
    cancelled = [d["number"] for d in chosen if d["status"] == dams.CANCELLED]
    if cancelled:
        raise DamNotPrintable("DAM cancelado não é impresso: " + ", ".join(cancelled) + ".")
    place = municipalities.get(db, municipality)
    head = municipalities.letterhead(db, municipality, with_phone=True)
    prints = [printable(d, place, head) for d in chosen]
    items = [authenticity.Item("dam", d["number"], (dams.COLLECTION, d["id"]), data,
                               supersedes=(dams.COLLECTION, d["replaces"]["id"]) if d.get("replaces") else None)
             for d, data in zip(chosen, prints)]
    # each DAM keeps its code from its first print; the file's bytes are recorded on each DAM in it
    return authenticity.issue_many(db, actor, municipality, items,
                                   lambda stamps: render_dams(prints, progress, stamps))


@checked
def pdf(
    db: Database, actor: Actor, municipality: str, dam_ids: Sequence[str],
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """One PDF with a page per DAM, in the order given (see :func:`pdf_batch`)."""
    return pdf_batch(db, actor, municipality, dam_ids, progress)
