"""Moving a store written before the charges (débitos) over: every DAM gets its charge.

Run at every start (:func:`services.setup.bootstrap.prepare`) and idempotent. A DAM without
``charge_id`` was written by the panel before the charges; its charge is made from the DAMs that
collected the same amount:

- a 2ª via chain (the original and every 2ª via, sharing ``chain_root``), or a DAM alone;
- with it, the DAMs that charged what a short payment of an authorization fee left open (their
  description says "Complementação (DAM n pago a menor)"): the charge is the fee, they are its DAMs
  for the difference, as :func:`services.dam.rebill.issue_open` issues them now.

The charge's principal is the original's principal less its discount, its due date the original's
(it never moves), its DAMs all of the group, its payments every payment any of them received (a
paid DAM, or a cancelled one the bank still received), its standing from
``rules.dam.charges.standing``, its live DAM the one still issued. Each group is written in one unit
of work (the charge, ``charge_id`` on each of its DAMs, the audit entry); a DAM given a charge by
another process meanwhile undoes that group only.

A digest of the amounts per municipality checks the move: before, from the DAMs (how many, the
principal of the DAMs that open a charge, the payments received); after, from the charges (the
DAMs they hold, their principals, their payments). If they differ nothing more is written (the
records are not linked, the move is not marked done) and :class:`MigrationMismatch` stops the start.
Then the records that name a DAM (the authorization's fee, the auto's fine, the ISSQN of a month,
a booking's instalments and settlement: :mod:`services.dam.charge_links`) get ``charge_id`` beside it.
"""
from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.dam import charges as rules
from services import store
from services.dam import charge_links, charges, dams
from services.shared import audit, clock
from services.shared.auth import SYSTEM
from services.shared.errors import ServiceError
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

log = logging.getLogger(__name__)
ZERO = Decimal("0.00")
MARKER = "charge_migration"
INDEXES = {dams.COLLECTION: [([("charge_id", 1)], {"name": "i_dam_charge"})]}  # the DAMs still to move
# What an authorization fee's complementary DAM says (services.ridehailing.fees before the charges).
COMPLEMENT = re.compile(r"^Complementação \(DAM (\d+/\d{4}) pago a menor\)")
DIGEST_FIELDS = {"municipality": 1, "number": 1, "principal": 1, "amount": 1, "discount": 1, "replaces.id": 1,
                 "charge_id": 1, "charge_role": 1, "description": 1, "pays": 1, "payment.amount": 1, "issued_on": 1,
                 "due_on": 1}
REQUIRED = ("municipality", "number", "amount", "issued_on", "due_on")  # what a document needs to be a DAM


@dataclass(frozen=True)
class Digest:
    """The amounts of one municipality: DAMs, principal owed, payments received."""

    dams: int = 0
    principal: Decimal = ZERO
    paid: Decimal = ZERO

    def text(self) -> str:
        return f"{fmt.count(self.dams, 'DAM', 'DAMs')}, principal {fmt.brl(self.principal)}, pagamentos {fmt.brl(self.paid)}"


@dataclass(frozen=True)
class MigrationReport:
    """What a run did. ``before``/``after`` are None when nothing was left to move."""

    charges_created: int = 0
    dams_linked: int = 0
    records_linked: dict[str, int] = field(default_factory=dict)
    left_out: tuple[str, ...] = ()
    before: dict[str, Digest] | None = None
    after: dict[str, Digest] | None = None

    @property
    def matches(self) -> bool:
        return self.before == self.after

    def lines(self) -> list[str]:
        if self.before is None:
            return ["Débitos: nada a migrar."]
        head = (f"Débitos: {fmt.count(self.charges_created, 'criado', 'criados')} para "
                f"{fmt.count(self.dams_linked, 'DAM anterior', 'DAMs anteriores')}; registros "
                f"vinculados: {sum(self.records_linked.values())}.")
        out = [head]
        for municipality in sorted(set(self.before) | set(self.after or {})):
            out.append(f"{municipality}: antes {self.before.get(municipality, Digest()).text()}; "
                       f"depois {(self.after or {}).get(municipality, Digest()).text()}")
        return out + list(self.left_out)


class MigrationMismatch(ServiceError):
    """The charges made from the DAMs do not add up to the DAMs: the start stops, TI checks."""

    def __init__(self, report: MigrationReport):
        differ = [m for m in sorted(set(report.before or {}) | set(report.after or {}))
                  if (report.before or {}).get(m) != (report.after or {}).get(m)]
        super().__init__("A conferência da migração dos débitos não fecha em " + ", ".join(differ) + ": "
                         + " | ".join(report.lines()[1:]) + ". Nada mais foi gravado; avise a TI.")
        self.report = report


def is_dam(doc: dict) -> bool:
    """Whether a document of the DAM collection has what a DAM has (anything else is not moved, nor counted)."""
    return all(doc.get(name) not in (None, "") for name in REQUIRED)


def _known(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """The DAMs without a charge by (municipality, number): their id and the record they pay."""
    return {(d["municipality"], d["number"]): {"id": str(d["_id"]), "pays": d.get("pays")}
            for d in rows if not d.get("charge_id")}


def complemented(dam: dict, known: dict[tuple[str, str], dict]) -> str | None:
    """The id of the DAM (without a charge) whose short payment ``dam`` (without a charge either)
    complements, paying the same authorization; None when it complements none."""
    pays = dam.get("pays") or {}
    if dam.get("charge_id") or pays.get("collection") != "authorizations":
        return None
    found = COMPLEMENT.match(dam.get("description") or "")
    other = known.get((dam["municipality"], found.group(1))) if found else None
    if other is None or other["id"] == str(dam.get("id") or dam.get("_id")):
        return None
    if (other["pays"] or {}).get("id") != pays.get("id"):
        return None
    return other["id"]


def opens_charge(dam: dict, known: dict[tuple[str, str], dict]) -> bool:
    """Whether the DAM's principal is a charge's: not a 2ª via, not a DAM for a charge's remainder."""
    if dam.get("replaces"):
        return False
    if dam.get("charge_id"):
        return dam.get("charge_role", "original") == "original"
    return complemented(dam, known) is None


def digest_of_dams(db: Database) -> tuple[dict[str, Digest], dict[tuple[str, str], dict]]:
    """The digest from the DAMs (one read of the fields it needs) and the DAMs without a charge by number."""
    rows = [row for row in map(decode, db[dams.COLLECTION].find({}, DIGEST_FIELDS)) if is_dam(row)]
    known = _known(rows)
    sums: dict[str, list] = defaultdict(lambda: [0, ZERO, ZERO])
    for dam in rows:
        cell = sums[dam["municipality"]]
        cell[0] += 1
        if opens_charge(dam, known):
            cell[1] += dam.get("principal", dam["amount"]) - (dam.get("discount") or ZERO)
        cell[2] += (dam.get("payment") or {}).get("amount") or ZERO
    return {m: Digest(*cell) for m, cell in sums.items()}, known


def digest_of_charges(db: Database) -> dict[str, Digest]:
    """The digest from the charges: the DAMs they hold, their principals, their payments."""
    sums: dict[str, list] = defaultdict(lambda: [set(), ZERO, ZERO])
    for doc in db[charges.COLLECTION].find({}, {"municipality": 1, "principal": 1, "dams.id": 1,
                                                "payments.amount": 1}):
        doc = decode(doc)
        cell = sums[doc["municipality"]]
        cell[0].update(d["id"] for d in doc.get("dams", []))
        cell[1] += doc["principal"]
        cell[2] += sum((p["amount"] for p in doc.get("payments", [])), ZERO)
    return {m: Digest(len(cell[0]), cell[1], cell[2]) for m, cell in sums.items()}


def groups(lacking: list[dict], known: dict[tuple[str, str], dict]) -> tuple[list[list[dict]], list[str]]:
    """The DAMs without a charge in groups of one charge each (2ª via chains, fee complements), and
    the pt-BR reason of each group left out (its chain partly moved already)."""
    parent = {d["id"]: d["id"] for d in lacking}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    left_out, blocked = [], set()
    for dam in lacking:
        links = [dam["chain_root"]] if dam.get("chain_root") and dam["chain_root"] != dam["id"] else []
        other = complemented(dam, known)
        links += [other] if other else []
        for link in links:
            if link in parent:
                parent[root(dam["id"])] = root(link)
            else:  # its chain's original already has a charge (written since the charges)
                blocked.add(dam["id"])
    grouped: dict[str, list[dict]] = defaultdict(list)
    for dam in lacking:
        grouped[root(dam["id"])].append(dam)
    out = []
    for group in grouped.values():
        group.sort(key=lambda d: (d["issued_on"], d.get("year", 0), d.get("sequence", 0)))
        if blocked & {d["id"] for d in group}:
            left_out.append("DAMs " + ", ".join(f"{d['number']} ({d['municipality']})" for d in group)
                            + ": a cadeia de 2ª via já tem débito; não migrados")
        else:
            out.append(group)
    return out, left_out


def _role(dam: dict, opener: dict) -> str:
    if dam is opener:
        return "original"
    return "2a_via" if dam.get("replaces") else "diferenca"


def charge_of(group: list[dict], known: dict[tuple[str, str], dict], by: str) -> dict:
    """The charge document of one group of DAMs (plain values); ValueError when it has no original."""
    openers = [d for d in group if opens_charge(d, known)]
    if len(openers) != 1:
        raise ValueError(f"{len(openers)} DAMs originais")
    opener = openers[0]
    principal = opener.get("principal", opener["amount"]) - (opener.get("discount") or ZERO)
    entries = [charges.dam_entry({**d, "charge_role": _role(d, opener)}) for d in group]
    payments = sorted((_payment_entry(d) for d in group if d.get("payment")),
                      key=lambda p: (p["paid_on"] or date.min, str(p["recorded_at"] or "")))
    late = paid = ZERO
    paid_on = None
    for payment in payments:  # as services.dam.charges.record_payment counts them, one by one
        if rules.standing(principal, late, paid).status not in rules.OWING:
            payment["late"] = ZERO  # paid already: a later payment is all credit (charges.late_of)
        late, paid = late + payment["late"], paid + payment["amount"]
        if paid_on is None and rules.standing(principal, late, paid).status == rules.PAID:
            paid_on = payment["paid_on"]
    live = next((d for d in reversed(group) if d["status"] == dams.ISSUED), None)
    # A DAM typed by hand and cancelled, never paid: before charges, cancelling was the only way to void
    # a wrong or duplicate DAM, so its charge is withdrawn, not owed (docs/LEITURAS.md, seção 12). A
    # cancelled DAM of a record (a fee, a fine, a booking) leaves the record's charge owed.
    withdrawn = not opener.get("pays") and not payments and live is None
    state = rules.standing(principal, late, paid, cancelled=withdrawn)
    return {
        "municipality": opener["municipality"], "owner": opener.get("pays"),
        "taxpayer": {"name": opener.get("taxpayer_name", ""), "document": opener.get("taxpayer_document", ""),
                     "address": opener.get("taxpayer_address", "")},
        "revenue_kind": opener.get("revenue_kind") or "outras", "revenue_code": opener.get("revenue_code") or "",
        "description": opener.get("description", ""), "legal_basis": opener.get("legal_basis", ""),
        "reference": opener.get("reference") or str(opener.get("year") or opener["issued_on"].year),
        "principal": principal, "discount": opener.get("discount") or ZERO, "issued_on": opener["issued_on"],
        "due_on": opener["due_on"], "late": late, "paid": paid, "open": state.open, "credit": state.credit,
        "status": state.status, "paid_on": paid_on,
        "live_dam": {"id": live["id"], "number": live["number"]} if live else None,
        "dams": entries, "payments": payments, "inscription": None, "version": 1,
        "created_at": clock.now_utc(), "created_by": by, "moved_from_dams": True,
    }


def _payment_entry(dam: dict) -> dict:
    payment = dam["payment"]
    return {"dam_id": dam["id"], "dam_number": dam["number"], "amount": payment.get("amount") or ZERO,
            "paid_on": parse_date(payment["paid_on"]),
            "late": (dam.get("fine") or ZERO) + (dam.get("interest") or ZERO),
            "origin": (payment.get("origin") or {}).get("kind", "manual"), "recorded_at": payment.get("recorded_at")}


class _Raced(Exception):
    """A DAM of the group got a charge from another process: the group's unit of work is undone."""


def _write(db: Database, group: list[dict], charge: dict) -> None:
    """The charge, ``charge_id`` on each DAM (only if it still has none) and the audit entry: one unit."""
    opener = next(e for e in charge["dams"] if e["kind"] == "original")
    with store.transaction(db):
        charge_id = str(insert_one(db[charges.COLLECTION], encode(charge)))
        for dam, entry in zip(group, charge["dams"]):
            done = db[dams.COLLECTION].update_one({"_id": dams._object_id(dam["id"]), "charge_id": None},
                                                  {"$set": {"charge_id": charge_id, "charge_role": entry["kind"]}})
            if done.modified_count != 1:
                raise _Raced
        audit.record(db, SYSTEM, charge["municipality"], "create", charges.COLLECTION, charge_id, {},
                     {k: charge[k] for k in ("principal", "paid", "open", "status", "due_on")},
                     note=f"Débito do DAM {opener['number']} criado dos DAMs já emitidos ("
                          + ", ".join(e["number"] for e in charge["dams"]) + ")")


def _pending(db: Database) -> bool:
    """Whether a run has something to do: a DAM without charge, or a run never completed."""
    return (store.exists(db[dams.COLLECTION], {"charge_id": None})
            or db["meta"].find_one({"_id": MARKER}) is None)


def migrate(db: Database) -> MigrationReport:
    """Give every DAM without one its charge, check the digest, link the records; see the module."""
    charges.prepare(db)
    ensure_indexes(db, INDEXES)
    if not _pending(db):
        return MigrationReport()
    db["meta"].delete_one({"_id": MARKER})  # until this run ends well, every start checks again
    before, known = digest_of_dams(db)
    found = [dams.plain(doc) for doc in db[dams.COLLECTION].find({"charge_id": None})]
    lacking = [dam for dam in found if is_dam(dam)]
    plan, left_out = groups(lacking, known)
    left_out += [f"Documento {d['id']} da coleção de DAMs sem {', '.join(n for n in REQUIRED if not d.get(n))}: "
                 "não é um DAM, não migrado" for d in found if not is_dam(d)]
    created = linked = 0
    for group in plan:
        try:
            charge = charge_of(group, known, SYSTEM.username)
        except ValueError as exc:
            left_out.append(f"DAMs {', '.join(d['number'] for d in group)}: {exc}; não migrados")
            continue
        try:
            _write(db, group, charge)
        except _Raced:
            continue
        created, linked = created + 1, linked + len(group)
    after = digest_of_charges(db)
    report = MigrationReport(created, linked, {}, tuple(left_out), before, after)
    if not report.matches:
        raise MigrationMismatch(report)
    report = MigrationReport(created, linked, charge_links.link_records(db), tuple(left_out), before, after)
    db["meta"].update_one({"_id": MARKER}, {"$set": encode({"done_at": clock.now_utc(), "report": report.lines()})},
                          upsert=True)
    for line in report.lines():
        log.info(line)
    return report
