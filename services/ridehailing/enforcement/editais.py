"""Editais de notificação (CG Decreto 06/2026 art. 25 §1 II and §2, "publicação no diário oficial dos
Municípios"; MP Lei 1.552/2025 art. 21 §1–§2, "edital no órgão oficial do Município"; ``rules/edital.py``;
docs/LEITURAS.md, seção 7, leitura 28).

An offender who cannot be reached — no known address and no electronic domicile, or an AR returned
undelivered (``enforcement.channels``) — is notified by edital. The panel gathers those pending notices
of the municipality, assembles the edital (numbered per municipality and year, ``numbers.next_number``)
in the format the Diário Oficial dos Municípios (AMM/MT) publishes, and each listed auto's notice becomes
the edital's, waiting for the publication. The clerk downloads the text (plain text to paste, and a
PDF, ``edital_pdf``) and, once published, records the edition and the date: every listed auto counts as
notified on the day the rules give (the publication, plus the dated parameter's days) and the
publication's record is its juntada, which opens the defence term. In Matupá a publication past the
90 days of an auto voids that auto the way any late notice does (``process._refuse_late``).
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules import edital as edital_rules
from rules.fmt import count, day
from rules.ridehailing.concepts import InfractionProcess
from services import store
from services.ridehailing.enforcement import autos, process
from services.shared import audit, clock, entities, exports, fields, municipalities, parameters, privacy
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "editais"
INDEXES = {COLLECTION: [([("municipality", 1), ("status", 1), ("year", -1), ("sequence", -1)],
                         {"name": "i_editais_status"}),
                        ([("municipality", 1), ("year", -1), ("sequence", -1)], {"name": "i_editais_list"})]}
STATUSES = {"a_publicar": "A publicar", "publicado": "Publicado"}
name_codes("status", STATUSES)
WAITING = "aguardando_notificacao"  # the stage of an auto whose notice has not reached the offender


def prepare(db: Database) -> None:
    """Indexes of the editais (idempotent; called at start by ``services.setup.bootstrap``)."""
    ensure_indexes(db, INDEXES)


# ---- which autos need an edital ----

def _unreachable() -> list[dict]:
    """The clauses of an auto whose offender cannot be reached: an AR returned and nothing after it, or
    someone outside the register with no address who was not notified yet."""
    return [{"notification.returned_on": {"$exists": True}, "notification.received_on": None},
            {"target_kind": "unregistered", "driver_address": {"$in": ["", None]},
             "notification.method": {"$exists": False}}]


def _candidates_query(municipality: str) -> dict:
    return {"municipality": municipality, "stage": WAITING, "status": "lavrado", "$or": _unreachable()}


@checked
def to_publish_count(db: Database, actor: Actor, municipality: str) -> int:
    """How many autos wait for an edital's publication: those that need one and those in an edital not yet
    published (an indexed count on the autos' stage, for the Início)."""
    authorize(actor, "read", municipality)
    in_edital = {"notification.edital_id": {"$exists": True}, "notification.received_on": None}
    return db[autos.COLLECTION].count_documents({"municipality": municipality, "stage": WAITING, "status": "lavrado",
                                                 "$or": [*_unreachable(), in_edital]})


def _limit(db: Database, municipality: str, doc: dict) -> date | None:
    days = autos._rules(municipality).notification_limit_days
    auto_on = parse_date(doc["auto_on"])
    return parameters.calendar(db, municipality, auto_on).add_days(auto_on, days) if days else None


def _line(doc: dict) -> dict:
    """What the edital publishes of an auto: number, date, article, name and the CPF masked (LGPD; a
    CNPJ is not personal data and is published whole)."""
    document = "".join(c for c in doc.get("offender_document") or doc.get("driver_cpf") or "" if c.isdigit())
    shown = privacy.mask_cpf(document) if len(document) == 11 else fields.show("cnpj", document) \
        if len(document) == 14 else ""
    return {"auto_id": doc["id"], "number": doc["number"], "auto_on": parse_date(doc["auto_on"]),
            "infraction": doc.get("infraction_reference", ""), "name": doc.get("offender_name", ""), "document": shown}


def _why(doc: dict) -> str:
    notice = doc.get("notification") or {}
    if notice.get("returned_on"):
        return f"AR devolvido em {day(parse_date(notice['returned_on']))} ({notice.get('return_reason_label', '')})"
    return autos.UNKNOWN_ADDRESS.split(" — ")[0]


def _candidate_docs(db: Database, municipality: str) -> list[dict]:
    found = []
    for raw in db[autos.COLLECTION].find(_candidates_query(municipality)).sort([("auto_on", 1), ("sequence", 1)]):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        found.append(doc)
    return found


@checked
def candidates(db: Database, actor: Actor, municipality: str) -> list[dict]:
    """The pending notices that need an edital, oldest auto first: the line the edital publishes, why
    (unknown address, AR returned) and, in Matupá, the last day the publication may notify."""
    authorize(actor, "read", municipality)
    return [{**_line(doc), "why": _why(doc), "limit": _limit(db, municipality, doc)}
            for doc in _candidate_docs(db, municipality)]


# ---- assembling and publishing ----

def _required(values: dict[str, tuple[str, str]]) -> None:
    errors = {name: f"{label}: obrigatório." for name, (label, value) in values.items() if not (value or "").strip()}
    if errors:
        raise ValidationFailed(errors)


@checked
def assemble(db: Database, actor: Actor, municipality: str, *, signer_name: str, signer_role: str,
             auto_ids: Sequence[str] | None = None) -> dict:
    """Assemble the edital of the pending notices (all of them, or ``auto_ids``), dated today, numbered
    per municipality and year; each listed auto's notice becomes the edital's, awaiting publication."""
    authorize(actor, "write", municipality)
    _required({"signer_name": ("Assinado por", signer_name), "signer_role": ("Cargo", signer_role)})
    docs = _candidate_docs(db, municipality)
    if auto_ids is not None:
        wanted = set(auto_ids)
        docs = [d for d in docs if d["id"] in wanted]
        if len(docs) != len(wanted):
            raise ServiceError("Um dos autos escolhidos não aguarda mais notificação por edital; recarregue a "
                               "lista.")
    if not docs:
        raise ServiceError("Nenhuma notificação aguarda edital.")
    today, rules = clock.today(), autos._rules(municipality)
    method = next(m for m in rules.notification_methods if m.code == autos.EDITAL)
    with store.transaction(db):
        number = next_number(db, municipality, "edital", today.year)
        edital = {"municipality": municipality, "year": number.year, "sequence": number.sequence, "number": number.text,
                  "status": "a_publicar", "dated": today, "signer_name": signer_name.strip(),
                  "signer_role": signer_role.strip(), "lines": [_line(d) for d in docs],
                  "days_after": int(parameters.value(db, municipality, edital_rules.EDITAL_DAYS, today)),
                  "defence_days": int(parameters.value(db, municipality, "defence_period_days", today)),
                  "created_by": actor.username, "created_at": clock.now_utc(), "version": 1}
        edital_id = str(insert_one(db[COLLECTION], encode(edital)))
        for doc in docs:
            notice = {"method": method.code, "method_label": method.label, "method_reference": method.reference,
                      "sent_on": today, "received_on": None, "juntada_on": None, "edital_id": edital_id,
                      "edital_number": number.text}
            autos._save(db, actor, municipality, doc, {"notification": notice}, "notify",
                        f"Incluído no edital de notificação nº {number.text}, a publicar",
                        process.kept_attempt(doc))
        audit.record(db, actor, municipality, "create", COLLECTION, edital_id, {}, edital,
                     f"Edital de notificação nº {number.text} montado com {count(len(docs), 'auto', 'autos')}")
    return {**edital, "id": edital_id}


def _load(db: Database, municipality: str, edital_id: str) -> dict:
    raw = db[COLLECTION].find_one({"_id": entities._object_id(edital_id), "municipality": municipality})
    if raw is None:
        raise NotFound("Edital não encontrado.")
    doc = autos._dated(decode(raw))
    doc["id"] = str(doc.pop("_id"))
    doc["dated"] = parse_date(doc["dated"])
    return doc


@checked
def get(db: Database, actor: Actor, municipality: str, edital_id: str) -> dict:
    """The edital as stored, with its status label."""
    authorize(actor, "read", municipality)
    doc = _load(db, municipality, edital_id)
    return {**doc, "status_label": STATUSES[doc["status"]]}


def _defence_deadline(db: Database, municipality: str, doc: dict, notified: date, juntada: date) -> date | None:
    rules, book = autos._rules(municipality), parameters.book(db, municipality)
    auto_on = parse_date(doc["auto_on"])
    return rules.process_status(InfractionProcess(auto_on, notified, autos.EDITAL, juntada), juntada, book,
                                parameters.calendar_from(book, auto_on)).defence_deadline


@checked
def record_publication(db: Database, actor: Actor, municipality: str, edital_id: str, *, edition: str,
                       published_on: date) -> dict:
    """Record the edital's publication (edition of the gazette, date): each listed auto counts as notified
    on the day the rules give (``rules.edital.notified_on``), joined the same day or the day of this
    record if later, and its defence term runs from there. In Matupá an auto the publication reaches
    after its 90 days is void and refused (MP art. 21 §1), the others are notified. Returns the edital
    with ``notified`` and ``refused`` (number and reason of each)."""
    authorize(actor, "write", municipality)
    edital = _load(db, municipality, edital_id)
    if edital["status"] != "a_publicar":
        raise Conflict(f"O edital nº {edital['number']} já foi publicado em {day(edital['published_on'])}.")
    _required({"edition": ("Edição", edition)})
    autos._not_future("published_on", "Publicado em", published_on)
    if published_on < edital["dated"]:
        raise ValidationFailed({"published_on": "Publicado em: não pode ser anterior ao edital "
                                                f"({day(edital['dated'])})."})
    notified = edital_rules.notified_on(published_on, int(edital["days_after"]))
    juntada = edital_rules.juntada_on(notified, clock.today())
    kept, refused = [], []
    for line in edital["lines"]:
        doc = autos._load(db, municipality, line["auto_id"])
        notice = doc.get("notification") or {}
        if doc["status"] == "nulo":
            refused.append({"number": line["number"], "reason": f"{doc.get('void_reason', 'Auto nulo')} "
                                                                f"({doc.get('void_reference', '')})"})
            continue
        if notice.get("edital_id") != edital_id or notice.get("received_on") or doc["status"] != "lavrado":
            refused.append({"number": line["number"], "reason": "Notificado por outra forma antes da publicação"})
            continue
        try:
            limit = process._refuse_late(db, actor, municipality, doc, {**notice, "published_on": published_on},
                                         notified, "published_on")
        except process.DeadlineMissed as late:
            refused.append({"number": line["number"], "reason": str(late)})
            continue
        kept.append((autos._load(db, municipality, line["auto_id"]), limit))
    published = {"status": "publicado", "edition": edition.strip(), "published_on": published_on,
                 "notified_on": notified, "juntada_on": juntada, "refused": refused,
                 "recorded_by": actor.username, "recorded_at": clock.now_utc()}
    with store.transaction(db):
        for doc, limit in kept:
            deadline = _defence_deadline(db, municipality, doc, notified, juntada)
            notice = {**doc["notification"], "edition": published["edition"], "published_on": published_on,
                      "received_on": notified, "juntada_on": juntada, "limit": limit, "defence_deadline": deadline}
            autos._save(db, actor, municipality, doc, {"notification": notice}, "notify",
                        f"Edital nº {edital['number']} publicado em {day(published_on)} (edição nº "
                        f"{published['edition']}); notificado em {day(notified)}, juntada em {day(juntada)}; prazo de "
                        f"defesa até {day(deadline)}")
        result = db[COLLECTION].update_one({"_id": ObjectId(edital_id), "version": edital["version"]},
                                           {"$set": encode(published), "$inc": {"version": 1}})
        if result.matched_count != 1:
            raise Conflict("O edital foi alterado por outra pessoa ao mesmo tempo; recarregue e tente de novo.")
        audit.record(db, actor, municipality, "publish", COLLECTION, edital_id,
                     {"status": edital["status"]}, published,
                     f"Edital nº {edital['number']} publicado em {day(published_on)}, "
                     f"edição nº {published['edition']}")
    return {**edital, **published, "notified": [d["number"] for d, _ in kept]}


# ---- the list and the documents ----

def _rows(db: Database, municipality: str, search: str, status: str) -> list[dict]:
    query: dict[str, Any] = {"municipality": municipality}
    if status:
        query["status"] = status
    wanted = (search or "").strip().lower()
    rows = []
    for raw in db[COLLECTION].find(query).sort([("year", -1), ("sequence", -1)]):
        doc = decode(raw)
        names = " ".join(f"{line['number']} {line['name']}" for line in doc["lines"])
        if wanted and wanted not in f"{doc['number']} {doc.get('edition', '')} {names}".lower():
            continue
        rows.append({"id": str(doc["_id"]), "Número": doc["number"], "Data": parse_date(doc["dated"]),
                     "Autos": ", ".join(line["number"] for line in doc["lines"]), "Situação": STATUSES[doc["status"]],
                     "Edição": doc.get("edition", ""), "Publicado em": parse_date(doc.get("published_on")),
                     "Assinado por": doc["signer_name"]})
    return rows


EXPORT_COLUMNS = ["Número", "Data", "Autos", "Situação", "Edição", "Publicado em", "Assinado por"]


@checked
def list_editais(db: Database, actor: Actor, municipality: str, search: str = "", status: str = "") -> list[dict]:
    """The editais of the municipality, newest first; ``search`` in the number, edition, autos and names."""
    authorize(actor, "read", municipality)
    return _rows(db, municipality, search, status)


@checked
def export_csv(db: Database, actor: Actor, municipality: str, search: str = "", status: str = "") -> bytes:
    authorize(actor, "read", municipality)
    return exports.to_csv([{k: r[k] for k in EXPORT_COLUMNS} for r in _rows(db, municipality, search, status)],
                          EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Actor, municipality: str, search: str = "", status: str = "") -> bytes:
    authorize(actor, "read", municipality)
    return exports.to_xlsx([{k: r[k] for k in EXPORT_COLUMNS} for r in _rows(db, municipality, search, status)],
                           EXPORT_COLUMNS, "Editais")


def text_of(db: Database, municipality: str, edital: dict) -> edital_rules.EditalText:
    """The values the edital's text is made of (``rules.edital.edital_lines``)."""
    rules, town = autos._rules(municipality), municipalities.get(db, municipality)
    reference = autos.edital_reference(municipality)
    return edital_rules.EditalText(
        town.name, town.secretariat, town.address, edital["number"], rules.act, reference, rules.ref("defence"),
        int(edital["defence_days"]), int(edital["days_after"]), rules.notification_limit_days,
        tuple(edital_rules.EditalLine(line["number"], parse_date(line["auto_on"]), line["infraction"], line["name"],
                                      line["document"]) for line in edital["lines"]),
        edital["dated"], edital["signer_name"], edital["signer_role"])


@checked
def edital_text(db: Database, actor: Actor, municipality: str, edital_id: str) -> str:
    """The edital as plain text, ready to paste into the gazette's publishing system."""
    authorize(actor, "read", municipality)
    return "\n".join(edital_rules.edital_lines(text_of(db, municipality, _load(db, municipality, edital_id)))) + "\n"
