"""The dataset's DAMs and their charges (débitos), in stored form: issued, paid, cancelled and overdue.

:class:`DamRecords` builds a DAM as ``services.dam.dams.issue`` writes it, with the printed due date,
barcode and PIX computed by the rules (a due date's result once per date), then what
``services.dam.payments.record_payment`` (a manual payment, some late or short) or ``dams.cancel``
adds; ``tests/test_bench.py`` checks the shape against a DAM the services write. It also fills each
municipality's DAM count with its own revenues (``seed.demo.DEMO_DAMS``).
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from bench.dataset_plan import BANKS, DAYS, TODAY
from bench.dataset_records import Records, creation_changes, instant
from rules import fmt
from rules.dam import charges as charge_rules
from rules.dam.dates import due_date, due_date_finding
from seed import demo as demo_seed
from services.dam import charges, dams, payments
from services.shared.auth import Actor
from services.store import encode

_MONEY: dict[str, Any] = {}
_BRL: dict[Decimal, str] = {}


def _money(amount: Decimal) -> Any:
    """``amount`` as stored (Decimal128), encoded once per amount."""
    key = str(amount)
    found = _MONEY.get(key)
    if found is None:
        found = _MONEY[key] = encode(amount)
    return found


def _brl(amount: Decimal) -> str:
    """``fmt.brl``, formatted once per amount."""
    found = _BRL.get(amount)
    if found is None:
        found = _BRL[amount] = fmt.brl(amount)
    return found


class DamRecords(Records):
    """The DAMs of the dataset and their payments."""

    def dam(self, mun: str, actor: Actor, issued_on: date, taxpayer: dict, kind: str, description: str, basis: str,
            amount: Decimal, due: date, pays: dict | None, paid_on: date | None = None, cancelled: bool = False) -> dict:
        """A DAM as ``dams.issue`` writes it (stored form), then paid (``record_payment``) or cancelled
        (``cancel``). Returns its id, number and printed due date."""
        rng = self.rng
        due_on, due_note, moved = self.due_date(due)
        sequence, number = self.number(mun, "dam", issued_on.year)
        barcode = self.settings.barcode(amount, due_on, issued_on.year, sequence)
        pix = self.settings.pix_payload(amount, issued_on.year, sequence)
        now = instant(issued_on, rng)
        issued = {
            "municipality": mun, "number": number, "year": issued_on.year,
            "sequence": sequence, "taxpayer_name": taxpayer["name"], "taxpayer_document": taxpayer["document"],
            "taxpayer_address": taxpayer["address"], "revenue_kind": kind, "description": description,
            "legal_basis": basis, "amount": _money(amount), "principal": _money(amount), "discount": _money(Decimal("0")),
            "fine": _money(Decimal("0")), "interest": _money(Decimal("0")), "reference": str(issued_on.year),
            "revenue_code": dams.revenue_code(self.book, issued_on, kind),
            "after_due": dams._after_due_text(self.book, due_on), "issued_on": issued_on.isoformat(),
            "requested_due": due.isoformat(), "due_on": due_on.isoformat(), "due_note": due_note,
            "barcode": barcode.digits, "line": barcode.line, "pix_payload": pix,
            "instructions": dams._instructions("", moved, (pays or {}).get("label", ""), pix is not None),
            "pays": pays, "status": dams.ISSUED,
        }
        charge_id = self.sink.new_id()
        issued.update(charge_id=str(charge_id), charge_role="original")
        doc = {
            "_id": self.sink.new_id(), **issued,
            "history": [{"at": now, "status": dams.ISSUED, "by": actor.username,
                         "note": f"Emitido com vencimento em {fmt.day(due_on)}" + (f" ({moved})" if moved else "")}],
            "payment": None, "cancel_reason": None, "created_at": now, "created_by": actor.username,
        }
        self.log(actor, mun, "create", dams.COLLECTION, doc["_id"], creation_changes({**issued, "created_by": actor.username}),
                 f"DAM {number} emitido", now)
        if paid_on is not None:
            self.pay(mun, actor, doc, amount, due_on, paid_on)
        elif cancelled:
            reason = "Emitido em duplicidade"
            moment = instant(min(issued_on + timedelta(days=rng.randint(0, 5)), TODAY), rng)  # never after today
            doc["history"].append({"at": moment, "status": dams.CANCELLED, "by": actor.username, "note": reason})
            doc.update(status=dams.CANCELLED, cancel_reason=reason, updated_at=moment)
            self.log(actor, mun, "cancel", dams.COLLECTION, doc["_id"],
                     {"cancel_reason": {"before": None, "after": reason},
                      "status": {"before": dams.ISSUED, "after": dams.CANCELLED}},
                     f"DAM {number} cancelado: {reason}", moment, stored=doc)
        self.out.add(dams.COLLECTION, doc)
        self.out.add(charges.COLLECTION, charge_doc(charge_id, doc, amount, issued_on, due_on, now))
        return {"_id": doc["_id"], "number": number, "due_on": due_on, "charge_id": str(charge_id)}

    def due_date(self, due: date) -> tuple[date, str, str | None]:
        """The printed due date, its note and the reason it moved (None when it did not), once per date."""
        found = self.due_dates.get(due)
        if found is None:
            due_on = due_date(due, self.calendar)
            finding = due_date_finding(due, self.calendar)
            found = self.due_dates[due] = (due_on, finding.text(), finding.message if due_on != due else None)
        return found

    def pay(self, mun: str, actor: Actor, doc: dict, due_amount: Decimal, due_on: date, paid_on: date) -> None:
        rng = self.rng
        amount = due_amount if rng.random() > 0.03 else due_amount - Decimal("10.00")
        flags, notes = [], []
        if amount != due_amount:
            flags.append(payments.FLAG_AMOUNT)
            notes.append(f"Valor pago {_brl(amount)} difere do valor do DAM {_brl(due_amount)} "
                         f"({_brl(due_amount - amount)} a menor)")
        if paid_on > due_on:
            flags.append(payments.FLAG_LATE)
            notes.append(f"Pago em {fmt.day(paid_on)}, após o vencimento em {fmt.day(due_on)}")
        moment = instant(paid_on, rng)
        payment = {"paid_on": paid_on.isoformat(), "amount": _money(amount), "bank": rng.choice(BANKS),
                   "origin": {"kind": "manual"}, "flags": flags, "notes": notes, "recorded_at": moment,
                   "recorded_by": actor.username}
        note = f"Pago em {fmt.day(paid_on)}, {_brl(amount)} (baixa manual)"
        if notes:
            note += ". Alertas: " + "; ".join(notes)
        doc["history"].append({"at": moment, "status": dams.PAID, "by": actor.username, "note": note})
        doc.update(status=dams.PAID, payment=payment, updated_at=moment)
        if doc.get("pays"):  # the outbox ran the linked record's handler
            doc["handlers_done_at"] = moment
        self.log(actor, mun, "pay", dams.COLLECTION, doc["_id"],
                 {"payment": {"before": None, "after": payment}, "status": {"before": dams.ISSUED, "after": dams.PAID}},
                 f"DAM {doc['number']}: {note}", moment, stored=doc)

    def other_dams(self, mun: str, staff: list[Actor], target: int) -> None:
        """Fill the DAM count with the municipality's revenues: paid, issued, overdue and cancelled."""
        rng = self.rng
        already = sum(seq for key, seq in self.counters.items() if key.startswith(f"{mun}/dam/"))
        people = self.held["taxpayers"]
        people = [p for p in people if p["municipality"] == mun]
        for issued_on in sorted(self.day_back(0, DAYS) for _ in range(max(0, target - already))):
            kind, description, basis, amount = rng.choice(demo_seed.DEMO_DAMS[mun])
            person = rng.choice(people)
            amount = Decimal(amount) + Decimal(rng.randint(0, 400))
            due = issued_on + timedelta(days=rng.choice((10, 15, 30)))
            fate = rng.random()
            paid_on = None
            if fate < 0.6:
                candidate = issued_on + timedelta(days=rng.randint(0, 40))
                paid_on = candidate if candidate < TODAY else None
            address = ", ".join(p for p in (person["address"], person.get("district")) if p)
            self.dam(mun, rng.choice(staff), issued_on, {**person, "address": address}, kind,
                     description.replace(" (demonstração)", ""), basis, amount, due, None, paid_on=paid_on,
                     cancelled=paid_on is None and fate > 0.93)
        self.out.progress(f"{mun}: DAMs")


def charge_doc(charge_id: Any, dam: dict, amount: Decimal, issued_on: date, due_on: date, now: Any) -> dict:
    """The charge of one generated DAM as ``services.dam.charges`` leaves it: opened with the DAM,
    the DAM attached as the live one, then its payment counted, or the DAM cancelled (charge reopened)."""
    payment = dam.get("payment")
    paid = payment["amount"].to_decimal() if payment else Decimal("0")
    state = charge_rules.standing(amount, Decimal("0"), paid)
    live = {"id": str(dam["_id"]), "number": dam["number"]} if dam["status"] == dams.ISSUED else None
    return {
        "_id": charge_id, "municipality": dam["municipality"], "owner": dam["pays"],
        "taxpayer": {"name": dam["taxpayer_name"], "document": dam["taxpayer_document"],
                     "address": dam["taxpayer_address"]},
        "revenue_kind": dam["revenue_kind"], "revenue_code": dam["revenue_code"], "description": dam["description"],
        "legal_basis": dam["legal_basis"], "reference": dam["reference"], "principal": _money(amount),
        "discount": _money(Decimal("0")), "issued_on": issued_on.isoformat(), "due_on": due_on.isoformat(),
        "late": _money(Decimal("0")), "paid": _money(paid), "open": _money(state.open), "credit": _money(state.credit),
        "status": state.status,
        "paid_on": payment["paid_on"] if payment and state.status == charge_rules.PAID else None,
        "live_dam": live,
        "dams": [{"id": str(dam["_id"]), "number": dam["number"], "via": 1, "amount": _money(amount),
                  "fine": _money(Decimal("0")), "interest": _money(Decimal("0")), "due_on": due_on.isoformat(),
                  "issued_on": issued_on.isoformat(), "kind": "original"}],
        "payments": [{"dam_id": str(dam["_id"]), "dam_number": dam["number"], "amount": payment["amount"],
                      "paid_on": payment["paid_on"], "late": _money(Decimal("0")), "origin": "manual",
                      "recorded_at": payment["recorded_at"]}] if payment else [],
        "inscription": None, "version": 3 if payment or dam["status"] == dams.CANCELLED else 2, "created_at": now, "created_by": dam["created_by"],
        "updated_at": dam.get("updated_at", now),
    }
