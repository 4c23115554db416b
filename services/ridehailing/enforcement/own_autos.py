"""The driver's own autos de infração on the public portal (issue 38): the list, one auto by its number,
and the term open to file a defence or an appeal — the same term the clerk's case shows.

A regulated actor (``services.shared.regulated_accounts``) reaches only the autos lavrados against their
own CPF (as driver or as the vehicle's driver; never a platform's auto, a draft or a discarded one):
another's number and an unknown one are the same ``NotFound``. The filing itself is the clerk's service
(``process.file_defence`` / ``process.file_appeal``), which calls :func:`owned` for a regulated actor and
refuses, with the day the term ended, a filing the portal sends after it (:func:`term_for`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.fmt import day
from services.ridehailing.enforcement import autos
from services.shared import clock
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied
from services.shared.regulated_accounts import DRIVER, addressee, require_own

NOT_FOUND = "Auto de infração não encontrado."
NUMBER = re.compile(r"(\d{1,6})/(\d{4})")
SEEN = ("lavrado", "nulo")  # a draft or a discarded one is no auto of anyone yet


@dataclass(frozen=True)
class Term:
    """What the person may file on ``on``: ``kind`` "defesa" or "recurso" ("" when neither), its last day
    (None while it has not begun: the notice not yet joined, or the decision's notice awaiting ciência),
    whether it is still open, and the article."""

    kind: str
    deadline: date | None
    open: bool
    reference: str

    @property
    def label(self) -> str:
        return {"defesa": "Defesa", "recurso": "Recurso"}.get(self.kind, "")


def _driver_cpf(actor: Actor) -> tuple[str, str]:
    whose = addressee(actor)
    if whose is None or whose[1] != DRIVER:
        raise PermissionDenied("Só o próprio condutor vê os seus autos de infração no portal.")
    return whose[0], whose[2]


def owned(doc: dict, actor: Actor, municipality: str) -> dict:
    """``doc`` when the regulated ``actor`` is the driver it was lavrado against, else NotFound."""
    if doc.get("status") not in SEEN or doc.get("target_kind") == "platform":
        raise NotFound(NOT_FOUND)
    require_own(actor, municipality, DRIVER, doc.get("driver_cpf") or "", NOT_FOUND)
    return doc


def term_for(db: Database, municipality: str, doc: dict, on: date) -> Term:
    """The term of the filing the auto admits on ``on``: the defence until the decision (its term from the
    juntada of the notice, CG art. 25 §2; MP art. 21 §2), then the appeal (``autos.appeal_deadline``;
    docs/LEITURAS.md, seção 7, leituras 12 e 28); none once the appeal is filed or the auto is void."""
    rules = autos._rules(municipality)
    if doc.get("status") != "lavrado" or doc.get("appeal") or (doc.get("defence") and not doc.get("decision")):
        return Term("", None, False, rules.ref("defence"))
    if not doc.get("decision"):
        notice = autos.as_of(doc, on).get("notification") or {}
        deadline = notice.get("defence_deadline")
        deadline = date.fromisoformat(deadline) if isinstance(deadline, str) else deadline
        return Term("defesa", deadline, deadline is None or on <= deadline, rules.ref("defence"))
    deadline = autos.appeal_deadline(db, municipality, doc, on)
    return Term("recurso", deadline, deadline is None or on <= deadline,
                f"os atos não fixam prazo de recurso; adotado o da defesa, {rules.ref('defence')}")


def closed_text(term: Term) -> str:
    """Why the portal refuses a filing after its term (pt-BR, the last day; the article is added by the
    refusal, ``process.DeadlineMissed``)."""
    return f"O prazo {'de defesa' if term.kind == 'defesa' else 'de recurso'} terminou em {day(term.deadline)}"


def _summary(db: Database, municipality: str, doc: dict, today: date) -> dict:
    term = term_for(db, municipality, doc, today)
    return {"id": doc["id"], "number": doc["number"], "committed_on": doc.get("committed_on"),
            "infraction": f"{doc.get('infraction_code', '')} — {doc.get('infraction_text', '')}".strip(" —"),
            "reference": doc.get("infraction_reference", ""), "severity": doc.get("severity", ""),
            "stage": autos.STAGES.get(doc.get("stage", ""), doc.get("stage", "")), "term": term,
            "defence": doc.get("defence"), "decision": doc.get("decision"), "appeal": doc.get("appeal"),
            "notification": autos.as_of(doc, today).get("notification") or {}}


@checked
def own_autos(db: Database, actor: Actor) -> list[dict]:
    """The autos lavrados against the driver logged in, newest first, each with its term."""
    municipality, cpf = _driver_cpf(actor)
    today = clock.today()
    rows = db[autos.COLLECTION].find({"municipality": municipality, "driver_cpf": cpf, "status": {"$in": list(SEEN)},
                                      "target_kind": {"$ne": "platform"}}, {"_id": 1}).sort("committed_on", -1)
    return [_summary(db, municipality, autos._dated(autos._load(db, municipality, str(r["_id"]))), today)
            for r in rows]


@checked
def own_auto(db: Database, actor: Actor, number: str) -> dict:
    """One auto of the driver by its number ("0007/2026"), with its term; another's is NotFound."""
    municipality, _cpf = _driver_cpf(actor)
    match = NUMBER.fullmatch(str(number or "").strip())
    if not match:
        raise NotFound(NOT_FOUND)
    raw = db[autos.COLLECTION].find_one({"municipality": municipality, "year": int(match[2]),
                                         "sequence": int(match[1])}, {"_id": 1})
    if raw is None:
        raise NotFound(NOT_FOUND)
    doc = owned(autos._dated(autos._load(db, municipality, str(raw["_id"]))), actor, municipality)
    return _summary(db, municipality, doc, clock.today())
