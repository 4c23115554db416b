"""A realistic FEBRABAN 150 return file made from the project's own DAMs, for the import tests.

A few DAMs are issued through the service (numbers, barcodes, history and audit as the panel makes
them); the many a large file needs are copies of one of them with their own sequence, number and
barcode (``dam_barcode`` with the municipality's FEBRABAN code, as ``dams.issue`` computes it),
inserted in bulk. The file pays them as a bank does: most on time and exact, some after the due
date, some with another amount, spread over agencies and channels with an authentication each, plus
other órgãos' barcodes, barcodes never issued here and lines repeated by the bank.
"""
from __future__ import annotations

import copy
from datetime import date, timedelta
from decimal import Decimal

from bson import ObjectId

from rules.dam.bank_return import ReturnPayment, build_return_file
from rules.dam.barcode import dam_barcode
from services.dam import charges, dams
from services.store import encode
from tests.conftest import SECRETARIA_MP

DUE = date(2026, 3, 20)
PAID_ON = date(2026, 3, 18)
GENERATED_ON = date(2026, 3, 25)
FEBRABAN_MATUPA = "0592"


def issue(db, amount: str = "150.00") -> dict:
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="João Pereira Lima", taxpayer_document="529.982.247-25",
        taxpayer_address="Avenida Brasil, 45", revenue_kind="taxa_vistoria", description="Taxa de vistoria",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15", amount=Decimal(amount), due=DUE,
    )


def many_dams(db, count: int) -> list[dict]:
    """``count`` issued DAMs of Matupá: the first through the service, the rest copies of it."""
    model = db["dams"].find_one({"_id": ObjectId(issue(db)["id"])})
    assert dam_barcode(dams.plain(model)["amount"], FEBRABAN_MATUPA, dams.plain(model)["due_on"], model["year"],
                       model["sequence"]).digits == model["barcode"]
    model_charge = db[charges.COLLECTION].find_one({"_id": ObjectId(model["charge_id"])})
    docs, owed = [], []
    for sequence in range(model["sequence"] + 1, model["sequence"] + count):
        doc = copy.deepcopy(model)
        amount = Decimal(100 + sequence % 400) + Decimal("0.50")
        code = dam_barcode(amount, FEBRABAN_MATUPA, DUE, model["year"], sequence)
        charge = copy.deepcopy(model_charge)  # each DAM its own charge, as dams.issue opens one
        charge.update(_id=ObjectId(), principal=encode(amount), open=encode(amount))
        doc.update(_id=ObjectId(), sequence=sequence, number=f"{sequence:04d}/{model['year']}", barcode=code.digits,
                   line=code.line, amount=encode(amount), principal=encode(amount), charge_id=str(charge["_id"]))
        charge.update(dams=[encode(charges.dam_entry(dams.plain(doc)))],
                      live_dam={"id": str(doc["_id"]), "number": doc["number"]})
        docs.append(doc)
        owed.append(charge)
    for start in range(0, len(docs), 1000):
        db["dams"].insert_many(docs[start:start + 1000])
        db[charges.COLLECTION].insert_many(owed[start:start + 1000])
    return [dams.plain(model), *(dams.plain(doc) for doc in docs)]


def payments_of(dams_to_pay: list[dict], unmatched: int = 0, repeated: int = 0) -> list[ReturnPayment]:
    """The G records of a day's collection: every DAM paid (one in 10 late, one in 25 short by
    R$ 1,00), ``unmatched`` barcodes that are not Matupá's DAMs and ``repeated`` lines sent twice."""
    out = []
    for index, dam in enumerate(dams_to_pay):
        late = index % 10 == 9
        paid_on = DUE + timedelta(days=4) if late else PAID_ON
        amount = dam["amount"] - Decimal("1.00") if index % 25 == 24 else dam["amount"]
        out.append(ReturnPayment(
            dam["barcode"], paid_on, amount, credited_on=paid_on + timedelta(days=1), fee=Decimal("1.85"),
            agency=f"{1100 + index % 37:04d}-{index % 9}", channel="1234"[index % 4],
            authentication=f"AUT{index:020d}", payment_method="12"[index % 2]))
    for index in range(unmatched):
        code = ("0299" if index % 2 else FEBRABAN_MATUPA)  # another órgão's, or a number never issued here
        out.append(ReturnPayment(dam_barcode(Decimal("87.30"), code, DUE, 2026, 900_000 + index).digits, PAID_ON,
                                 Decimal("87.30"), agency="0001-9", authentication=f"OUT{index:020d}"))
    out.extend(out[:repeated])
    return out


def return_file(payments: list[ReturnPayment], sequence: int = 11) -> bytes:
    return build_return_file(payments, generated_on=GENERATED_ON, file_sequence=sequence,
                             company_name="PREFEITURA DE MATUPA").encode("latin-1")
