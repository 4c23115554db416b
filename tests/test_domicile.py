"""The electronic domicile (services/shared/domicile.py) and an auto notified through it
(services/ridehailing/enforcement/electronic.py), on the real embedded store: CG Decreto 06/2026 art. 25
§1 IV and §2; MP Lei 1.552/2025 art. 21 §1–2; Decreto 70.235/1972 art. 23 III and §2 III."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from rules import notice
from rules.params import ParameterVersion
from services.ridehailing import queue_view
from services.ridehailing.enforcement import autos, documents, electronic, lists, process
from services.setup import bootstrap
from services.shared import audit_log, clock, domicile
from services.shared.auth import Actor
from services.shared.errors import NotFound, PermissionDenied, ServiceError, ValidationFailed
from services.shared.regulated_accounts import Person
from services.store import parse_date
from tests.test_bookings_charges import pdf_text
from tests.enforcement_support import defence_deadline, driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_queue_view import fresh, shown

CG, MP = ACTORS["chapada"], ACTORS["matupa"]
AUTO_ON = date(2026, 3, 2)  # a Monday


@pytest.fixture
def at(monkeypatch, today):
    """Set the panel's instant: ``at(day, hour)`` in Cuiabá time (today and now_utc agree)."""
    def move(day: date, hour: int = 10) -> None:
        moment = datetime.combine(day, time(hour), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def person(municipality: str, cpf: str, kind: str = "condutor") -> Actor:
    """A regulated actor as the portal makes it (``regulated_accounts.Person.actor``): a driver, or the
    platform ``cpf`` (a CNPJ then) through one of its authorized agents."""
    return Person(municipality, kind, cpf, "" if kind == "condutor" else "50041082346", f"Titular {cpf[-4:]}").actor


def delivered_auto(db, at, municipality: str = "chapada", seed: int = 11,
                   delivered: date = AUTO_ON + timedelta(days=1)):
    """An auto against a driver who has a domicile, notified there on ``delivered``: (auto id, cpf, notice)."""
    cpf, _ = driver(db, municipality, seed=seed)
    at(AUTO_ON)
    code = "CG-29-I" if municipality == "chapada" else "MP-27"
    auto_id = lavrado(db, _Today(), municipality, code, AUTO_ON, cpf)
    domicile.open_domicile(db, ACTORS[municipality], municipality, "condutor", cpf, "condutor@example.com")
    at(delivered)
    return auto_id, cpf, electronic.notify_by_domicile(db, ACTORS[municipality], municipality, auto_id)


class _Today:  # lavrado() moves 'today' forward only; the `at` fixture already set it
    value = date(1900, 1, 1)

    def set(self, day):
        pass


def test_opened_on_day_3_the_defence_term_counts_from_day_3(db, at):
    """Decreto 70.235 art. 23 §2 III b; CG art. 25 §1 IV, §2: the opening is the receipt and the juntada."""
    auto_id, cpf, sent = delivered_auto(db, at)
    assert sent["method"] == "domicile" and sent["received_on"] is None
    assert autos.get(db, CG, "chapada", auto_id)["stage"] == "aguardando_ciencia"
    at(AUTO_ON + timedelta(days=2))
    state = process.process_status(db, CG, "chapada", auto_id, AUTO_ON + timedelta(days=2))
    assert state["defence_deadline"] is None and not state["may_apply"]  # the term has not started
    opened_on = AUTO_ON + timedelta(days=4)  # day 3 after the delivery
    at(opened_on, 21)
    (message,) = domicile.inbox(db, person("chapada", cpf))["items"]
    opened = domicile.open_message(db, person("chapada", cpf), message["id"])
    assert opened["receipt"].state == notice.OPENED and opened["receipt"].received_on == opened_on
    doc = autos.get(db, CG, "chapada", auto_id)
    assert (doc["notification"]["received_on"], doc["notification"]["juntada_on"]) == (opened_on, opened_on)
    assert parse_date(doc["notification"]["defence_deadline"]) == defence_deadline(db, "chapada", opened_on)
    assert doc["stage"] == "prazo_defesa"
    state = process.process_status(db, CG, "chapada", auto_id, opened_on)
    assert state["defence_deadline"] == defence_deadline(db, "chapada", opened_on)


def test_a_second_opening_does_not_move_the_date(db, at):
    """Decreto 70.235 art. 23 §2 III b: the FIRST opening counts (and the first delivery)."""
    auto_id, cpf, _ = delivered_auto(db, at)
    with pytest.raises(ServiceError, match="já foi entregue"):
        electronic.notify_by_domicile(db, CG, "chapada", auto_id)
    (message,) = domicile.inbox(db, person("chapada", cpf))["items"]
    at(AUTO_ON + timedelta(days=3))
    domicile.open_message(db, person("chapada", cpf), message["id"])
    at(AUTO_ON + timedelta(days=8))
    again = domicile.open_message(db, person("chapada", cpf), message["id"])
    assert again["opened_on"] == AUTO_ON + timedelta(days=3)
    assert autos.get(db, CG, "chapada", auto_id)["notification"]["received_on"] == AUTO_ON + timedelta(days=3)
    openings = list(db["audit"].find({"collection": domicile.MESSAGES, "action": "open_message"}))
    assert len(openings) == 1 and openings[0]["username"] == f"condutor:{cpf}"  # audited once, with the person as actor


def test_never_opened_tacit_on_day_15_and_the_queue_waits_until_then(db, at):
    """Decreto 70.235 art. 23 §2 III a: 15 days after delivery; until then the term has not started and
    Pendências shows 'Aguardando ciência'; from the tacit day, the defence term — with no write."""
    delivered = AUTO_ON + timedelta(days=1)
    auto_id, _, sent = delivered_auto(db, at, delivered=delivered)
    tacit = delivered + timedelta(days=15)
    assert sent["tacit_on"] == tacit
    before = [p for p in queue_view.pending(db, "chapada", tacit - timedelta(days=1)) if p.record == ("autos", auto_id)]
    assert [p.kind for p in before] == ["Aguardando ciência"]
    assert process.process_status(db, CG, "chapada", auto_id, tacit - timedelta(days=1))["defence_deadline"] is None
    state = process.process_status(db, CG, "chapada", auto_id, tacit)
    assert state["defence_deadline"] == defence_deadline(db, "chapada", tacit)
    last = state["defence_deadline"]
    for on in (delivered, tacit - timedelta(days=1), tacit, tacit + timedelta(days=1), last):
        at(on)  # the stored queue is the folded one on each day around the tacit one (no write in between)
        assert shown(queue_view.pending(db, "chapada", on)) == fresh(db, "chapada", on), on
    after = [p for p in queue_view.pending(db, "chapada", last) if p.record == ("autos", auto_id)]
    assert [p.kind for p in after] == ["Prazo de defesa"] and "até " + last.strftime("%d/%m/%Y") in after[0].message
    # an opening after the tacit day is recorded but does not move the receipt
    at(tacit + timedelta(days=3))
    (message,) = domicile.inbox(db, person("chapada", sent_cpf(db, auto_id)))["items"]
    domicile.open_message(db, person("chapada", sent_cpf(db, auto_id)), message["id"])
    doc = autos.get(db, CG, "chapada", auto_id)
    assert (doc["notification"]["received_on"], doc["notification"]["receipt"]) == (tacit, notice.TACIT)


def sent_cpf(db, auto_id):
    return autos.get(db, CG, "chapada", auto_id)["driver_cpf"]


def test_a_new_tacit_days_version_applies_to_deliveries_after_its_date(db, at):
    """CG art. 25 §1 IV: N is a dated municipal parameter, the one in force on the delivery day."""
    first, _, sent = delivered_auto(db, at, seed=12, delivered=date(2026, 3, 3))
    bootstrap.ensure_parameter(db, "chapada", ParameterVersion(notice.TACIT_DAYS, date(2026, 3, 10), 10,
                                                                "Decreto de teste"))
    second, _, later = delivered_auto(db, at, seed=13, delivered=date(2026, 3, 10))
    assert sent["tacit_on"] == date(2026, 3, 18) and sent["tacit_days"] == 15
    assert later["tacit_on"] == date(2026, 3, 20) and later["tacit_days"] == 10
    assert autos.get(db, CG, "chapada", first)["notification"]["tacit_on"] == date(2026, 3, 18)


def test_a_regulated_person_reads_only_their_own_messages(db, at):
    auto_id, cpf, _ = delivered_auto(db, at, seed=14)
    other_cpf, _ = driver(db, "chapada", seed=15)
    domicile.open_domicile(db, CG, "chapada", "condutor", other_cpf, "outro@example.com")
    (message,) = domicile.inbox(db, person("chapada", cpf))["items"]
    stranger = person("chapada", other_cpf)
    assert domicile.inbox(db, stranger)["items"] == []
    for read in (domicile.open_message, domicile.message_pdf):
        with pytest.raises(NotFound) as refused:
            read(db, stranger, message["id"])
        assert str(refused.value) == str(NotFound(domicile.NOT_FOUND))  # same words as a missing id: no leak
    with pytest.raises(NotFound):
        domicile.open_message(db, person("matupa", cpf), message["id"])  # same CPF, other municipality
    with pytest.raises(PermissionDenied):
        domicile.inbox(db, CG)  # staff never read an inbox as its owner
    with pytest.raises(PermissionDenied):  # only the portal's regulated role is an addressee
        domicile.inbox(db, Actor(cpf, "Titular", "condutor", ("chapada",)))
    assert autos.get(db, CG, "chapada", auto_id)["stage"] == "aguardando_ciencia"  # nothing opened
    text = pdf_text(domicile.message_pdf(db, person("chapada", cpf), message["id"]))
    assert "NOTIFICADO da lavratura do Auto de Infração nº" in text
    assert "no dia em que for aberta pela primeira vez ou, se não for aberta antes, 15 dias após a entrega" in text
    assert "art. 25, §1º, IV" in text and "70.235/1972" in text


def test_delivery_is_audited_and_the_inbox_is_read_a_page_at_a_time(db, at):
    cpf, _ = driver(db, "chapada", seed=16)
    at(AUTO_ON)
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "c@example.com")
    for n in range(25):
        at(AUTO_ON, 8 + n % 12)
        domicile.deliver(db, CG, "chapada", "condutor", cpf, title=f"Aviso {n}", category="aviso", pdf=b"%PDF-1.4 x",
                         ref={"collection": "avisos", "id": str(n)})
    page = domicile.inbox(db, person("chapada", cpf))
    rest = domicile.inbox(db, person("chapada", cpf), before=page["next"])
    assert (len(page["items"]), len(rest["items"]), rest["next"]) == (20, 5, "")
    assert len({m["id"] for m in page["items"] + rest["items"]}) == 25
    assert db["audit"].count_documents({"collection": domicile.MESSAGES, "action": "deliver",
                                        "username": CG.username}) == 25
    assert audit_log.action_label("deliver", domicile.MESSAGES) == "Entrega de mensagem do domicílio eletrônico"
    assert audit_log.action_label("open_domicile", domicile.DOMICILES) == "Abertura de domicílio eletrônico"


def test_the_channel_needs_an_active_domicile_and_is_never_typed(db, at):
    cpf, _ = driver(db, "chapada", seed=17)
    at(AUTO_ON)
    auto_id = lavrado(db, _Today(), "chapada", "CG-29-I", AUTO_ON, cpf)
    assert not electronic.available(db, CG, "chapada", auto_id)
    with pytest.raises(ValidationFailed):
        electronic.notify_by_domicile(db, CG, "chapada", auto_id)
    with pytest.raises(ValidationFailed):
        process.notify(db, CG, "chapada", auto_id, method="domicile", sent_on=AUTO_ON, received_on=AUTO_ON)
    assert db["domicile_messages"].count_documents({}) == 0
    # post with AR still as today
    process.notify(db, CG, "chapada", auto_id, method="post", sent_on=AUTO_ON, received_on=AUTO_ON)
    assert autos.get(db, CG, "chapada", auto_id)["stage"] == "notificado"


def test_matupa_90_days_whatever_the_channel(db, at):
    """MP art. 21 §1: a delivery after the limit voids the auto; a tacit day past it is warned about,
    and counts against the process if it comes."""
    cpf, _ = driver(db, "matupa", seed=18)
    at(AUTO_ON)
    late_id = lavrado(db, _Today(), "matupa", "MP-27", AUTO_ON, cpf)
    domicile.open_domicile(db, MP, "matupa", "condutor", cpf, "m@example.com")
    at(AUTO_ON + timedelta(days=80))
    sent = electronic.notify_by_domicile(db, MP, "matupa", late_id)
    assert "fora do prazo" in sent["warning"] and "art. 21" in sent["warning"]
    tacit = sent["tacit_on"]
    state = process.process_status(db, MP, "matupa", late_id, tacit)
    assert any(not f.ok and "art. 21" in f.reference and "prazo máximo" in f.message for f in state["findings"])
    other = lavrado(db, _Today(), "matupa", "MP-27", AUTO_ON, cpf)
    at(AUTO_ON + timedelta(days=95))
    with pytest.raises(process.DeadlineMissed):
        electronic.notify_by_domicile(db, MP, "matupa", other)
    assert autos.get(db, MP, "matupa", other)["status"] == "nulo"


def test_the_case_shows_delivery_opening_and_tacit_dates(db, at):
    auto_id, cpf, sent = delivered_auto(db, at, seed=19)
    case = pdf_text(documents.case_file_pdf(db, CG, "chapada", auto_id, date(2026, 3, 4)))
    assert "entregue no domicílio eletrônico em 03/03/2026 às 10:00; aguardando ciência (tácita em 18/03/2026" in case
    assert autos.get(db, CG, "chapada", auto_id)["stage_label"] == "Aguardando ciência (domicílio eletrônico)"
    assert "aguardando_ciencia" in lists.OPEN_STAGES
    tacit = pdf_text(documents.case_file_pdf(db, CG, "chapada", auto_id, date(2026, 3, 18)))
    assert "ciência tácita em 18/03/2026" in tacit and "Juntada em 18/03/2026" in tacit
    at(date(2026, 3, 6))
    (message,) = domicile.inbox(db, person("chapada", cpf))["items"]
    domicile.open_message(db, person("chapada", cpf), message["id"])
    opened = pdf_text(documents.case_file_pdf(db, CG, "chapada", auto_id, date(2026, 3, 6)))
    assert "aberta em 06/03/2026" in opened and "Recebida em 06/03/2026" in opened
    line = autos.receipt_line(sent, AUTO_ON + timedelta(days=2))
    assert "entregue no domicílio eletrônico em 03/03/2026" in line and "aguardando ciência" in line
    assert "ciência tácita em 18/03/2026" in autos.receipt_line(sent, date(2026, 3, 18))


def test_a_notice_replaced_by_post_is_not_moved_by_a_late_opening(db, at):
    """CG art. 25 §1: the clerk may notify by another channel; the domicile's message opened afterwards
    no longer decides the auto's receipt (the notice recorded on the auto does)."""
    auto_id, cpf, _ = delivered_auto(db, at, seed=20)
    at(AUTO_ON + timedelta(days=5))
    process.notify(db, CG, "chapada", auto_id, method="post", sent_on=AUTO_ON + timedelta(days=2),
                   received_on=AUTO_ON + timedelta(days=4), juntada_on=AUTO_ON + timedelta(days=5))
    (message,) = domicile.inbox(db, person("chapada", cpf))["items"]
    at(AUTO_ON + timedelta(days=7))
    domicile.open_message(db, person("chapada", cpf), message["id"])
    recorded = autos.get(db, CG, "chapada", auto_id)["notification"]
    assert (recorded["method"], recorded["received_on"]) == ("post", AUTO_ON + timedelta(days=4))
