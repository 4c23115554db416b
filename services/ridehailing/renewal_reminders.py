"""Renewal reminders delivered to the drivers' electronic domiciles (issue 36 item 2): a service the clerk
runs (Início), idempotent per authorization and year of expiry.

Chapada: the authorization is valid until the end of the exercise (31/12, CG Decreto 06/2026 art. 9 §1)
and its renewal must be requested at least 15 business days before (art. 9 §2); Matupá: 12 months, renewed
under art. 3 §ú with the lead the parameter gives. The dates are the rule set's (``renewal_deadline``),
read from the work queue kept as data (``queue_view``: the item "Renovação" of an authorization in force
whose renewal was not requested, due on the last day to request it) with one indexed query. A reminder
goes when that day is at most :data:`REMINDER_DAYS` ahead (or already past while the authorization is
still in force), only to a driver with an active domicile, once per authorization and year of expiry
(the message names both in its ``ref``). It is a notice, not a notification of an act: its opening
changes nothing (docs/LEITURAS.md, seção 7, leitura 30).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bson import ObjectId
from pymongo.database import Database

from rules.fmt import cpf as fmt_cpf
from rules.fmt import day
from rules.ridehailing.ruleset import RENEWAL_WINDOW_DAYS
from services import store
from services.ridehailing import queue_view, registry
from services.ridehailing.queue_item import ITEMS
from services.shared import authenticity, clock, domicile, fields, municipalities
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.pdf import stamp as auth_stamp
from services.store import parse_date

CATEGORY = "renovacao_lembrete"
REMINDER_DAYS = RENEWAL_WINDOW_DAYS  # days before the last day to request the renewal: the reminder goes as it opens
KIND = "Renovação"  # the work queue's item (services.ridehailing.queue_view)
name_codes("category", {CATEGORY: "Lembrete de renovação da autorização"})


@dataclass(frozen=True)
class Due:
    """An authorization whose renewal reminder is due on a day."""

    authorization_id: str
    number: str
    plate: str
    driver_cpf: str
    request_by: date  # last day to request the renewal
    valid_until: date


def _candidates(db: Database, municipality: str, on: date) -> list[Due]:
    """The authorizations in force whose renewal, not requested, must be asked for by ``on`` +
    :data:`REMINDER_DAYS` (one indexed range on the queue kept as data)."""
    rows = db[ITEMS].find({"municipality": municipality, "kind": KIND,
                           "due_n": {"$lte": (on + timedelta(days=REMINDER_DAYS)).toordinal()}},
                          {"authorization_id": 1, "due_n": 1, "message": 1, "plate": 1, "driver_cpf": 1})
    ids = {r["authorization_id"]: r for r in rows if str(r.get("message", "")).startswith("Requerer a renovação")}
    if not ids:
        return []
    found = []
    for doc in db["authorizations"].find({"municipality": municipality, "_id": {"$in": [
            ObjectId(i) for i in ids if ObjectId.is_valid(i)]}}, {"number": 1, "plate": 1, "driver_cpf": 1, "valid_until": 1}):
        valid = parse_date(doc.get("valid_until"))
        if valid is None or valid < on:
            continue
        row = ids[str(doc["_id"])]
        found.append(Due(str(doc["_id"]), doc.get("number") or "", doc.get("plate") or "", doc.get("driver_cpf") or "",
                         date.fromordinal(row["due_n"]), valid))
    return sorted(found, key=lambda d: (d.request_by, d.number))


def _sent(db: Database, municipality: str, ids: set[str]) -> set[tuple[str, str]]:
    """(authorization id, year) of the reminders already delivered about ``ids`` (one query on the index
    of the messages' records)."""
    rows = db[domicile.MESSAGES].find({"municipality": municipality, "ref.collection": "authorizations",
                                       "ref.id": {"$in": sorted(ids)}}, {"ref": 1, "category": 1})
    return {(str(r["ref"].get("id")), str(r["ref"].get("year"))) for r in rows if r.get("category") == CATEGORY}


def _with_domicile(db: Database, municipality: str, cpfs: set[str]) -> set[str]:
    """The CPFs of ``cpfs`` with an active domicile (one query)."""
    rows = db[domicile.DOMICILES].find({"municipality": municipality, "kind": "condutor", "active": True,
                                        "document": {"$in": sorted(cpfs)}}, {"document": 1})
    return {r["document"] for r in rows}


@checked
def due_reminders(db: Database, actor: Actor, municipality: str, on: date) -> list[Due]:
    """The reminders the clerk may send on ``on``: due, to a driver with an active domicile, not yet sent
    (three queries, whatever the number of authorizations expiring: in Chapada all expire on 31/12)."""
    authorize(actor, "read", municipality)
    queue_view.refresh_due(db, municipality, on)  # the items whose day has come, computed again first
    found = _candidates(db, municipality, on)
    if not found:
        return []
    reachable = _with_domicile(db, municipality, {d.driver_cpf for d in found})
    sent = _sent(db, municipality, {d.authorization_id for d in found})
    return [d for d in found if d.driver_cpf in reachable
            and (d.authorization_id, str(d.valid_until.year)) not in sent]


@checked
def send_reminders(db: Database, actor: Actor, municipality: str, on: date) -> int:
    """Deliver each due reminder (:func:`due_reminders`) to the driver's domicile with its PDF; returns how
    many were delivered. Running it again the same year delivers nothing more."""
    authorize(actor, "write", municipality)
    sent = 0
    for due in due_reminders(db, actor, municipality, on):
        pdf = _reminder_pdf(db, actor, municipality, due, on)
        with store.transaction(db):
            domicile.deliver(db, actor, municipality, "condutor", due.driver_cpf, category=CATEGORY, pdf=pdf,
                             title=f"Renovação da autorização nº {due.number}: pedir até {day(due.request_by)}",
                             ref={"collection": "authorizations", "id": due.authorization_id,
                                  "year": str(due.valid_until.year)})
        sent += 1
    return sent


def _reminder_pdf(db: Database, actor: Actor, municipality: str, due: Due, on: date) -> bytes:
    """The reminder: the authorization, its expiry, the last day to request the renewal and the article
    (issued with its authentication code, ``services.shared.authenticity``)."""
    item = authenticity.Item("lembrete_renovacao", due.number, ("authorizations", due.authorization_id),
                             (due, on), variant=str(due.valid_until.year))
    return authenticity.issue(db, actor, municipality, item, lambda stamp: _render_reminder(db, municipality, due, on,
                                                                                            stamp))


def _render_reminder(db: Database, municipality: str, due: Due, on: date, stamp: auth_stamp.Stamp) -> bytes:
    # here: the start (bootstrap) and Início import this module, and load no PDF library to draw themselves
    from fpdf import FPDF

    from services.shared.pdf.letterhead import LEFT, WIDTH, box, footer, letterhead, title
    from services.shared.pdf.style import Fonts

    town = municipalities.get(db, municipality)
    rules = registry.rules_of(municipality)
    driver = db["drivers"].find_one({"municipality": municipality, "cpf": due.driver_cpf}, {"name": 1}) or {}
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(False)
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, town.name, town.secretariat, town.address,
                   head=municipalities.letterhead(db, municipality))
    y = title(pdf, fonts, y + 2, "LEMBRETE DE RENOVAÇÃO", "AUTORIZAÇÃO DE TRANSPORTE POR APLICATIVO") + 3
    box(pdf, fonts, LEFT, y, 130, "Condutor", driver.get("name") or "")
    box(pdf, fonts, LEFT + 130, y, 50, "CPF", fmt_cpf(due.driver_cpf))
    y += 12
    box(pdf, fonts, LEFT, y, 60, "Autorização", due.number)
    box(pdf, fonts, LEFT + 60, y, 40, "Placa", fields.show("plate", due.plate))
    box(pdf, fonts, LEFT + 100, y, 80, "Válida até", day(due.valid_until))
    pdf.set_xy(LEFT, y + 19)
    for text in (
            f"A sua autorização vence em {day(due.valid_until)} ({rules.ref('validity')}). A renovação deve ser "
            f"requerida até {day(due.request_by)} ({rules.ref('renewal')}), na {town.secretariat}.",
            "Você pode pedir a renovação pelo portal da prefeitura, em Início › Renovação da autorização; o DAM "
            "da taxa sai em seu nome em Meus DAMs.",
            "Este é um lembrete: não é notificação de infração nem abre prazo. Se a renovação já foi requerida, "
            "desconsidere-o."):
        fonts.use(10)
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 5.4, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    fonts.use(10)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 5, fonts.text(f"{town.name}, {day(on)}."), align="R")
    footer(pdf, fonts, f"Lembrete de renovação · autorização {due.number} · emitido pelo Painel Municipal "
                       f"em {clock.to_local(clock.now_utc()):%d/%m/%Y}")
    return bytes(pdf.output())
