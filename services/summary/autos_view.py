"""The autos de infração's figures kept as data (issue 21): what each auto adds to the mayor's office
figures, per day, so the Resumo and its trends read a few month documents instead of every auto of
the municipality (``revenue_view``'s mechanism, view ``autos``). On its days an auto counts:

- on the day of the infraction, unless still a draft: ``sev|<severity>`` and ``stg|<stage now>`` (the
  autos of a period by severity and stage, as ``fines`` counted them);
- lavrado (not a draft, kept or discarded): ``lav`` on the day it was drawn up and ``dec`` on the
  day of the decision;
- where it stood on each day (:func:`stage_on`: notified or in the defence term, a defence to decide,
  an appeal to decide) as +1/−1 states: ``at|notificacao``, ``at|defesa|<filed on>`` and
  ``at|recurso|<filed on>`` — the filing day in the key, so the defences and appeals waiting on a
  day come with their ages;
- each notice it records (to the offender, to the platform, of the decision) on the day it was sent,
  delivered or published: ``ntc|<channel>`` — pessoal, postal, eletronico, edital (``CHANNELS``: the
  methods of the acts by the channel ``rules/notice.py`` names; issue 36 item 5).
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from services.ridehailing.enforcement import autos
from services.shared import views
from services.store import parse_date
from services.summary import revenue_view
from services.summary.days import safe

NAME = "autos"
FIELDS = {"municipality": 1, "status": 1, "stage": 1, "severity": 1, "auto_on": 1, "committed_on": 1,
          "defence.filed_on": 1, "decision.decided_on": 1, "appeal.filed_on": 1, "appeal.decision.decided_on": 1}
NOT_LAVRADO = ("rascunho", "descartado")  # drafts, kept or discarded, count nowhere
NOTICES = ("notification", "platform_notification", "decision_notification")  # the notices an auto records
# the acts' notification methods (rules/ridehailing/*_catalogue.py) by channel (rules/notice.CHANNELS)
CHANNELS = {"direct": "pessoal", "post": "postal", "electronic": "eletronico", "domicile": "eletronico",
            "official_gazette": "edital", "edital": "edital"}
FIELDS.update({f"{notice}.{name}": 1 for notice in NOTICES for name in ("method", "sent_on")})


def day_of(doc: dict, *path: str) -> date | None:
    for key in path[:-1]:
        doc = doc.get(key) or {}
    return parse_date(doc.get(path[-1]))


def stage_on(doc: dict, day: date) -> str | None:
    """Where a lavrado auto stood on ``day`` by its dated facts: None (not lavrado yet, or closed — decided
    with no appeal pending, annulled on appeal, void), "notificacao", "defesa" or "recurso"."""
    lavrado = day_of(doc, "auto_on") or day_of(doc, "committed_on")
    if doc.get("status") in NOT_LAVRADO + ("nulo",) or lavrado is None or lavrado > day:
        return None
    appealed, appeal_decided = day_of(doc, "appeal", "filed_on"), day_of(doc, "appeal", "decision", "decided_on")
    if appealed and appealed <= day:
        return None if appeal_decided and appeal_decided <= day else "recurso"
    decided = day_of(doc, "decision", "decided_on")
    if decided and decided <= day:
        return None
    defended = day_of(doc, "defence", "filed_on")
    return "defesa" if defended and defended <= day else "notificacao"


def _stage_key(doc: dict, stage: str) -> str:
    filed = {"defesa": day_of(doc, "defence", "filed_on"), "recurso": day_of(doc, "appeal", "filed_on")}.get(stage)
    return f"at|{stage}" + (f"|{filed.isoformat()}" if filed else "")


def contribution(doc: dict) -> dict[str, dict[str, int]]:
    """What one auto (decoded) adds to the month documents of the view (see the module)."""
    parts = revenue_view.Parts(doc["municipality"], NAME)
    add = parts.add
    committed = day_of(doc, "committed_on")
    if committed is not None and doc.get("stage") != "rascunho":
        add(committed, f"sev|{safe(doc.get('severity') or 'sem gravidade')}", 1)
        add(committed, f"stg|{safe(doc.get('stage') or '')}", 1)
    if doc.get("status") not in NOT_LAVRADO:
        lavrado, decided = day_of(doc, "auto_on") or committed, day_of(doc, "decision", "decided_on")
        if lavrado is not None:
            add(lavrado, "lav", 1)
        if decided is not None:
            add(decided, "dec", 1)
        for notice in NOTICES:
            sent = day_of(doc, notice, "sent_on")
            method = (doc.get(notice) or {}).get("method")
            if sent is not None and method:
                add(sent, f"ntc|{CHANNELS.get(method, 'outro')}", 1)
        # the stage changes only on these days: constant from each to the next
        turns = sorted({d for d in (lavrado, day_of(doc, "defence", "filed_on"), decided,
                                    day_of(doc, "appeal", "filed_on"), day_of(doc, "appeal", "decision", "decided_on"))
                        if d is not None})
        held = None
        for turn in turns:
            stage = stage_on(doc, turn)
            key = _stage_key(doc, stage) if stage else None
            if key != held:
                if held:
                    add(turn, held, -1)
                if key:
                    add(turn, key, 1)
                held = key
    return parts.done()


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow the auto ``doc_id``."""
    revenue_view.follow_record(db, NAME, autos.COLLECTION, FIELDS, contribution, municipality, doc_id)


def rebuild(db: Database, municipality: str) -> None:
    """Every auto's contribution of ``municipality``, from scratch."""
    revenue_view.rebuild_records(db, NAME, autos.COLLECTION, FIELDS, contribution, municipality)


views.register(views.View(NAME, (autos.COLLECTION,), project, rebuild, version=3))  # 2: month totals; 3: notices
