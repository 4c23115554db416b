"""The request screen and the pendências read the booking's charges (issue 19, defects 2 and 3): a
short payment is shown as such, and a cancelled DAM offers "Emitir novo DAM" on the request."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

from streamlit.testing.v1 import AppTest

from services.dam import dams
from tests.test_bookings import BPC, CLERK, LOADS5, NL, nl, upfront  # noqa: F401
from tests.test_bookings_charges import get, pay, request
from tests.test_page_bookings import ROOT, frame_text, texts


def opened(rid: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "machinery_requests.py"), default_timeout=60)
    at.session_state["actor"] = CLERK
    at.session_state["municipality"] = NL
    at.session_state["req_open"] = rid
    return at.run()


def test_defect_3_a_cancelled_dam_offers_a_new_dam_on_the_request(db, nl, today):
    rid, doc = request(db, nl["family"], LOADS5, claims=(BPC,))
    [full] = upfront(doc)
    dams.cancel(db, CLERK, NL, full["dam_id"], "Endereço errado")
    at = opened(rid)
    assert not at.exception, at.exception
    assert "DAM cancelado — emitir novo DAM" in frame_text(at, "Em aberto")
    at.date_input(key=f"req_newdam_due_{full['charge_id']}").set_value(date(2026, 4, 10))
    next(b for b in at.button if b.label == "Emitir novo DAM").click()
    at.run()
    assert not at.exception, at.exception
    assert "Novo DAM emitido" in texts(at, "success")
    [again] = upfront(get(db, rid))
    assert again["dam_id"] != full["dam_id"] and again["dam_number"] in frame_text(at, "Em aberto")
    assert dams.get(db, CLERK, NL, again["dam_id"])["due_on"] == date(2026, 4, 10)
    assert not [b for b in at.button if b.label == "Emitir novo DAM"]


def test_defect_2_a_short_payment_is_shown_on_the_request_and_in_the_pendencias(db, nl, today):
    rid, doc = request(db, nl["family"], LOADS5, claims=(BPC,))
    pay(db, upfront(doc)[0]["dam_id"], D("100.00"))
    at = opened(rid)
    assert not at.exception, at.exception
    assert "pago a menor, falta R$ 125,00" in frame_text(at, "Em aberto")
    assert "Aguardando pagamento" in " ".join(m.value for m in at.markdown)
    assert "art. 8, §1" in texts(at, "warning")
    assert [b for b in at.button if b.label == "Emitir novo DAM"]  # the DAM of the difference
    board = AppTest.from_file(str(ROOT / "app_pages" / "machinery_pending.py"), default_timeout=60)
    board.session_state["actor"] = CLERK
    board.session_state["municipality"] = NL
    board.run()
    shown = frame_text(board, "Pendência")
    assert "Pago a menor" in shown and "Aguardando pagamento" not in shown
