"""Lavratura of an auto de infração, the stage that stores it (CG Decreto 06/2026 arts. 22 and 25; MP Lei
1.552/2025 arts. 18 and 21): a draft (``rascunho``, no number, e.g. from a platform list's
reconciliation) made or discarded, an auto lavrado — numbered per municipality and year with the rules'
assessment — and its assessment made again when the recurrence it counted fell.

An auto runs down once: :class:`.auto_input.AutoInput` checked in :mod:`.auto_input` (who and what,
then when, where and by whom), assessed in :mod:`.assessment`, written here through :func:`.autos._save`.
"""
from __future__ import annotations

from pymongo.database import Database

from rules.fmt import brl
from services import store
from services.ridehailing.enforcement import assessment, auto_input, autos
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import audit, clock
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, ValidationFailed
from services.shared.numbers import next_number
from services.store import encode, insert_one, parse_date

NUMBER_KIND = "auto"


@checked
def lavrar(db: Database, actor: Actor, municipality: str, values: AutoInput, draft_id: str = "") -> str:
    """Lavrar an auto: a new one from ``values``, or the draft ``draft_id`` completed with them (the
    draft keeps who and what; ``values`` give when, where, by whom and the evidence). Numbers it per
    municipality and year of the auto and stores the rules' assessment (CG art. 22 and 25; MP art. 18
    and 21). Returns the id."""
    authorize(actor, "write", municipality)
    auto_input.check_evidence(values)
    with store.transaction(db):  # a new auto refused at lavratura leaves no draft behind
        auto_id = draft_id or _draft(db, actor, municipality, values, values.origin or "Lavratura direta")
        doc = autos._load(db, municipality, auto_id)
        if doc["status"] == "descartado":
            raise Conflict("Este rascunho foi descartado e não pode ser lavrado.")
        if doc["status"] != "rascunho":
            raise Conflict(f"O auto nº {doc['number']} já foi lavrado.")
        when = auto_input.circumstances(values, doc)
        assessed = assessment.evaluate(db, municipality, doc, doc["infraction_code"], when["committed_on"],
                                       when["auto_on"])
        evidence = [_kept(db, description, name, data) for description, name, data in values.evidence or ()]
        number = next_number(db, municipality, NUMBER_KIND, when["auto_on"].year)
        changes = {"status": "lavrado", "number": number.text, "year": number.year, "sequence": number.sequence,
                   **when, "evidence": evidence, **assessed}
        autos._save(db, actor, municipality, doc, changes, "lavrar",
                    f"Auto nº {number.text} lavrado: {assessed['severity']}, {brl(assessed['fine_amount'])}")
    return auto_id


def _kept(db: Database, description: str, name: str, data: bytes | None) -> dict:
    """One piece of evidence as the auto keeps it: its file outside the document, named by its hash."""
    item = {"description": str(description), "name": str(name or "")}
    if data:
        item["sha256"] = store.put_file(db, bytes(data), str(name or description))
    return item


# ---- the draft ----

@checked
def draft_auto(db: Database, actor: Actor, municipality: str, values: AutoInput) -> str:
    """A draft auto (``rascunho``, no number) for a clerk to review and lavrar, of who and what
    ``values`` name (``values.origin`` says where it came from); returns its id. Used by the
    platform-list reconciliation."""
    authorize(actor, "write", municipality)
    return draft_checked(db, actor, municipality, values)


def draft_checked(db: Database, actor: Actor, municipality: str, values: AutoInput) -> str:
    """:func:`draft_auto` for a service that has already authorized its actor (the reconciliation of a list
    the platform's person sent on the portal, ``platform_lists.autos_checked``)."""
    return _draft(db, actor, municipality, values, values.origin)


def _draft(db: Database, actor: Actor, municipality: str, values: AutoInput, origin: str) -> str:
    offence = auto_input.offence(db, municipality, values)
    now = clock.now_utc()
    doc = {"municipality": municipality, "status": "rascunho", "stage": "rascunho", "number": "", "year": None,
           "sequence": None, **offence, "origin": origin, "evidence": [],
           "events": [{"at": now, "by": actor.username, "action": "draft", "note": origin or "Rascunho"}],
           "measures_applied": [], "sanctions_applied": [], "version": 1, "created_at": now,
           "created_by": actor.username, "updated_at": now}
    with store.transaction(db):
        autos.prepare(db)
        inserted = insert_one(db[autos.COLLECTION], encode(doc))
        audit.record(db, actor, municipality, "draft", autos.COLLECTION, inserted, {}, autos._audit_doc(doc),
                     note=f"Rascunho de auto ({origin or 'manual'})")
    return str(inserted)


@checked
def discard_draft(db: Database, actor: Actor, municipality: str, auto_id: str, *, reason: str) -> dict:
    """Discard a draft that will not be lavrado (a false positive of a reconciliation, one typed twice):
    kept with ``status = descartado``, the reason, who and when, and audited; never deleted. Only a
    draft: a lavrado auto ends by its decision (annulled), not here."""
    authorize(actor, "write", municipality)
    doc = autos._load(db, municipality, auto_id)
    if doc["status"] == "descartado":
        raise Conflict("Este rascunho já foi descartado.")
    if doc["status"] != "rascunho":
        raise Conflict(f"O auto nº {doc['number']} já foi lavrado: só um rascunho pode ser descartado; "
                       "um auto lavrado termina pela decisão (anulado).")
    if not (reason or "").strip():
        raise ValidationFailed({"reason": "Motivo do descarte: obrigatório."})
    discard = {"reason": reason.strip(), "on": clock.today(), "by": actor.username}
    with store.transaction(db):
        return autos._save(db, actor, municipality, doc, {"status": "descartado", "discard": discard}, "discard",
                           f"Rascunho descartado: {discard['reason']}")


# ---- the recurrence reviewed ----

@checked
def review_recurrence(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """Recalculate an auto flagged because the earlier auto of its recurrence fell (annulled on appeal):
    the assessment again on its lavratura date with the decisions that still stand, the decision in
    force narrowed to what the new assessment allows (never a higher fine or an added penalty), and the
    flag closed. Returns the new assessment."""
    authorize(actor, "write", municipality)
    doc = autos._load(db, municipality, auto_id)
    review = doc.get("recurrence_review") or {}
    if not review.get("open"):
        raise Conflict("Este auto não tem reincidência a rever.")
    assessed = assessment.evaluate(db, municipality, doc, doc["infraction_code"], parse_date(doc["committed_on"]),
                                   parse_date(doc["auto_on"]))
    changes = {**assessed, "recurrence_review": {**review, "open": False, "reviewed_on": clock.today(),
                                                 "reviewed_by": actor.username}}
    for name in ("appeal", "decision"):  # the decision in force: the appeal's, else the first one
        ruled = (doc.get("appeal") or {}).get("decision") if name == "appeal" else doc.get("decision")
        if ruled and ruled.get("outcome") != "anulado":
            narrowed = {**ruled, "fine_amount": min(ruled["fine_amount"], assessed["fine_amount"]),
                        "penalties": [p for p in ruled["penalties"] if p in assessed["penalties"]]}
            changes[name] = {**doc["appeal"], "decision": narrowed} if name == "appeal" else narrowed
            break
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, changes, "recurrence_reviewed",
                    f"Reincidência revista: {assessed['severity']}, {brl(assessed['fine_amount'])}"
                    + (f" (reincidência do auto nº {assessed['recurrence_of']['number']})"
                       if assessed["recurrence_of"] else " (sem reincidência)"))
    return assessed
