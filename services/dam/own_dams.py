"""A taxpayer's own DAMs on the public portal: the list, one DAM, its PDF and the 2ª via of an overdue one;
and the status of a DAM asked without an account (its number and the CPF/CNPJ typed).

Whose DAMs these are is said in ONE place, :func:`payer_of`: the DAMs of the municipality whose taxpayer is
the regulated actor's CPF (a driver: fees, fines) or CNPJ (a platform: ISSQN, fines), read by the index
``i_dam_taxpayer_number``. Another's DAM, another municipality's and a missing one read alike ("DAM não
encontrado."). Staff roles are refused: they work on the panel's screens. A page names a DAM by its public
number ("0007/2026"), never by its id.

The 2ª via is the clerk's own (``services.dam.reissue``: multa and juros de mora of the Código Tributário,
a new DAM of the same charge, the original cancelled), asked for today (moved to a business day), audited
with the person as actor. Asked without an account, the actor is the taxpayer as typed
(:func:`typed_payer`: ``condutor:CPF`` or ``plataforma:CNPJ:``, named "consulta sem conta") and nothing
personal is answered: no name, no address, no description (which may name a plate or a place), no PDF
(it prints the name and address); the number, kind, due date, amount, status, the digitable line and the
PIX code are.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules import fmt
from rules.dam.parameters import REVENUE_KINDS
from services.dam import dams, reissue
from services.shared import clock, fields, municipalities
from services.shared.auth import ALL_MUNICIPALITIES, Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied
from services.shared.regulated_accounts import DRIVER, PLATFORM, REQUESTER, Person, addressee

PAGE = 10
MAX_CHAIN = 20  # vias followed from a replaced DAM to the live one of its chain
NOT_FOUND = "DAM não encontrado."
REFUSED = "Só o próprio contribuinte vê os seus DAMs no portal."
OPEN, REPLACED = "em_aberto", "substituido"
STATUSES = {OPEN: "Em aberto", dams.OVERDUE: "Vencido", dams.PAID: "Pago", dams.CANCELLED: "Cancelado",
            REPLACED: "Substituído"}
TYPED_NAME = "Contribuinte (consulta sem conta)"
NUMBER = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")
LISTED = {"pdf_sha256": 0, "history": 0, "instructions": 0, "taxpayer_address": 0}


@checked
def payer_of(actor: Actor) -> tuple[str, str]:
    """(municipality, CPF or CNPJ) whose DAMs a regulated actor reaches — the ONE ownership check of the
    portal's DAMs: the driver's CPF, the CNPJ of the platform its authorized person speaks for, or the CPF/CNPJ
    of a resident or entity (a requester of services, whose booking DAMs are in that document)
    (``regulated_accounts.addressee``), in their one municipality. Anyone else is refused."""
    whose = addressee(actor)
    if whose is None or whose[0] == ALL_MUNICIPALITIES:
        raise PermissionDenied(REFUSED)
    municipality, kind, document = whose
    digits = fields.digits(document)
    if len(digits) not in ((11, 14) if kind == REQUESTER else (11,) if kind == DRIVER else (14,)):
        raise PermissionDenied(REFUSED)
    return municipality, digits


def typed_payer(municipality: str, document: str) -> Actor:
    """The actor of a taxpayer who typed their CPF/CNPJ on the status page (no account): the audit names
    them by that document."""
    digits = fields.digits(document)
    return Person(municipality, PLATFORM if len(digits) == 14 else DRIVER, digits, "", TYPED_NAME).actor


def _number(number: str) -> tuple[int, int]:
    """(year, sequence) of a DAM number as printed ("0007/2026"); a malformed one is not found."""
    match = NUMBER.fullmatch(number or "")
    if not match:
        raise NotFound(NOT_FOUND)
    return int(match[2]), int(match[1])


def _own_raw(db: Database, actor: Actor, number: str) -> dict:
    municipality, document = payer_of(actor)
    year, sequence = _number(number)
    raw = db[dams.COLLECTION].find_one({"municipality": municipality, "year": year, "sequence": sequence,
                                        "taxpayer_document": document})
    if raw is None:  # another's DAM, another municipality's and a missing one read alike
        raise NotFound(NOT_FOUND)
    return dams.plain(raw)


def _status(dam: dict) -> str:
    if dam["situation"] == dams.ISSUED:
        return OPEN
    if dam["situation"] == dams.CANCELLED and dam.get("replaced_by"):
        return REPLACED
    return dam["situation"]


def shown(dam: dict, public: bool = False) -> dict[str, Any]:
    """A DAM as the portal shows it, in Brazilian formats; ``public``: only what the status page may say."""
    status = _status(dam)
    out = {
        "number": dam["number"], "year": dam["year"], "sequence": f"{dam['sequence']:04d}",
        "kind": REVENUE_KINDS.get(dam["revenue_kind"], dam["revenue_kind"]), "reference": dam.get("reference") or "",
        "due": fmt.day(dam["due_on"]), "amount": fmt.brl(dam["amount"]), "status": status,
        "status_label": STATUSES[status], "reissuable": status == dams.OVERDUE,
        "line": "", "pix": "",
        "replaced_by": (dam.get("replaced_by") or {}).get("number", ""),
        "replaces": (dam.get("replaces") or {}).get("number", ""),
    }
    if status == OPEN:  # an overdue DAM's line no longer pays it: its 2ª via does
        out.update(line=dam.get("line") or "", pix=dam.get("pix_payload") or "")
    if not public:
        zero = Decimal("0")
        out.update(description=dam.get("description") or "", issued=fmt.day(dam["issued_on"]),
                   principal=fmt.brl(dam.get("principal", dam["amount"])), fine=fmt.brl(dam.get("fine") or zero),
                   interest=fmt.brl(dam.get("interest") or zero),
                   paid=fmt.day((dam.get("payment") or {}).get("paid_on")) if dam.get("payment") else "")
    return out


@checked
def my_dams(db: Database, actor: Actor, before: str = "", limit: int = PAGE) -> dict:
    """The person's DAMs, newest number first, one page (``limit`` up to 50) after the number ``before``
    (the ``next`` of the previous page): an index range, whatever the number of DAMs."""
    municipality, document = payer_of(actor)
    dams.prepare(db)
    query: dict[str, Any] = {"municipality": municipality, "taxpayer_document": document}
    if before:
        year, sequence = _number(before)
        query["$or"] = [{"year": {"$lt": year}}, {"year": year, "sequence": {"$lt": sequence}}]
    limit = max(1, min(int(limit), 50))
    rows = list(db[dams.COLLECTION].find(query, LISTED).sort([("year", -1), ("sequence", -1)]).limit(limit + 1))
    items = [shown(dams.plain(r)) for r in rows[:limit]]
    return {"items": items, "next": items[-1]["number"] if len(rows) > limit else ""}


@checked
def own_dam(db: Database, actor: Actor, number: str) -> dict:
    """The person's DAM of ``number`` as its page shows it."""
    return shown(_own_raw(db, actor, number))


@checked
def own_pdf(db: Database, actor: Actor, number: str) -> bytes:
    """The PDF of the person's DAM (a cancelled one is not printed: ``printing.DamNotPrintable``)."""
    from services.dam import printing  # the PDF libraries load on the first print, never at the start

    dam = _own_raw(db, actor, number)
    return printing._render(db, actor, dam["municipality"], [dam])


@checked
def reissue_own(db: Database, actor: Actor, number: str) -> dict:
    """The 2ª via of the person's overdue DAM, due today (moved to a business day), with the multa and
    juros of the day — the clerk's service (``reissue``), audited with the person as actor."""
    return shown(_reissued(db, actor, _own_raw(db, actor, number)))


def _reissued(db: Database, actor: Actor, dam: dict) -> dict:
    """The 2ª via of ``dam``; asked again for a DAM already replaced (a submit repeated after its answer was
    lost on a weak network), the live DAM of its chain when it is open, or the 2ª via of that one when it is
    overdue in turn — never a second DAM for one request."""
    asked = dam
    for _ in range(MAX_CHAIN):
        if not (dam["status"] == dams.CANCELLED and dam.get("replaced_by")):
            break
        dam = _own_raw(db, actor, dam["replaced_by"]["number"])
    if dam is not asked and dam["situation"] == dams.ISSUED:
        return dam
    return reissue._reissue(db, actor, dam, clock.today())


def lookup(db: Database, municipality: str, number: str, document: str) -> dict | None:
    """The status of the DAM of ``number`` whose taxpayer is the CPF/CNPJ typed, without an account; None
    for a wrong CPF/CNPJ, an unknown number and an unknown municipality alike (one indexed read each)."""
    try:
        return shown(_own_raw(db, typed_payer(_municipality(db, municipality), document), number), public=True)
    except (NotFound, PermissionDenied):
        return None


def reissue_typed(db: Database, municipality: str, number: str, document: str) -> dict | None:
    """:func:`reissue_own` asked without an account (the DAM's number and its taxpayer's CPF/CNPJ); None
    where :func:`lookup` is None. Answers only what the status page may show."""
    try:
        actor = typed_payer(_municipality(db, municipality), document)
        dam = _own_raw(db, actor, number)
    except (NotFound, PermissionDenied):
        return None
    return shown(_reissued(db, actor, dam), public=True)


def _municipality(db: Database, code: str) -> str:
    if not any(m.code == code for m in municipalities.all_municipalities(db)):
        raise NotFound(NOT_FOUND)
    return code


def issue_authorized(db: Database, actor: Actor, municipality: str, **values: Any) -> dict:
    """:func:`services.dam.dams.issue` for a service that has already authorized its actor on the record the
    DAM pays — a person of the portal asking the renewal of their own authorization (``fees.issue_fee_dam``):
    the same checks, numbering, charge and audit (the person as actor), without the staff permission."""
    issued_on = clock.today()
    instructions, reference = values.pop("instructions", ""), values.pop("reference", "")
    clean = dams._clean_issue({"pays": None, "discount": Decimal("0"), **values}, issued_on)
    return dams._issue(db, actor, municipality, clean, issued_on, instructions,
                       reference=(reference or "").strip() or str(issued_on.year))
