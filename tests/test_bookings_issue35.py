"""Bookings of Nova Lacerda, issue 35 items 4 to 7 (Decreto 017/2026): the loads delivered asked at
completion, the requester's zone and locality as a pair of the list in force, the days a period
skips, and the statement of the advance and its settlement."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

import pytest

from services.machinery import booking_requests, execution, schedule
from services.machinery.execution import ExecutionInput
from services.shared import entities, entity_files
from services.shared.errors import ValidationFailed
from tests import test_bookings
from tests.test_bookings import CLERK, MONDAY, NL, ready

nl = test_bookings.nl  # the Nova Lacerda fixture: zones, machines, operators and requesters


# ---- item 4: the loads delivered are asked, never taken as 0 (art. 8; art. 9 §1) ----

def test_completing_an_earth_loads_job_without_the_loads_delivered_is_refused(db, nl, today):
    """An empty count is refused under its field, as an empty count of machine hours is; 0 typed is a count."""
    rid = ready(db, nl, nl["family"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], nl["pedro"])])
    with pytest.raises(ValidationFailed) as error:
        execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["pedro"]))
    assert set(error.value.errors) == {"loads_delivered"}
    assert error.value.errors["loads_delivered"] == "Informe as cargas entregues (0 se nenhuma)."
    assert booking_requests.get_request(db, CLERK, NL, rid)["status"] == "agendado"
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["pedro"], loads_delivered=0))
    assert (done["status"], done["execution"]["loads_delivered"]) == ("concluido", 0)


def test_a_job_without_earth_loads_needs_no_count_of_loads(db, nl, today):
    rid = ready(db, nl, nl["farmer"], (test_bookings.HOURS6,))
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"],
                                                               worked_hours=(("01", D(6)),)))
    assert done["status"] == "concluido" and done["execution"]["loads_delivered"] is None


# ---- item 5: a requester's zone and locality are a pair of the list in force (art. 3, §1) ----

PAIR_REFUSED = ("Localidade: Comunidade Pontal não é uma localidade da Zona Urbana na lista de zonas e localidades "
                "em vigor (Decreto 017/2026, art. 3, §1); escolha uma localidade dessa zona.")


def requester(**changes) -> dict:
    values = {"name": "Joana Chacareira", "document": "71428793860", "kind": "pf", "address": "Chácara 3",
              "zone": "Zona Urbana", "locality": "Centro", "standing": "nada_deve", "standing_checked_on": MONDAY}
    return {**values, **changes}


@pytest.mark.parametrize("zone, locality, refused", [
    pytest.param("Zona Urbana", "Comunidade Pontal", True, id="art. 3 §1: Zona Urbana beside a Zona Norte locality"),
    pytest.param("Zona Norte", "Comunidade Pontal", False, id="art. 3 §1: a pair of the list"),
    pytest.param("Zona Urbana", "Centro", False, id="art. 3 §1: the urban pair"),
])
def test_the_register_refuses_a_zone_beside_another_zones_locality(db, nl, zone, locality, refused):
    values = requester(zone=zone, locality=locality)
    if not refused:
        assert entities.create(db, CLERK, "machinery_requesters", NL, values)
        return
    with pytest.raises(ValidationFailed) as error:
        entities.create(db, CLERK, "machinery_requesters", NL, values)
    assert error.value.errors == {"locality": PAIR_REFUSED}
    assert db["machinery_requesters"].count_documents({"document": "71428793860"}) == 0


def test_an_edit_of_the_locality_alone_is_checked_with_the_zone_saved(db, nl):
    record = entities.get(db, CLERK, "machinery_requesters", NL, nl["association"])  # Zona Urbana, Centro
    with pytest.raises(ValidationFailed) as error:
        entities.update(db, CLERK, "machinery_requesters", NL, nl["association"], {"locality": "Comunidade Pontal"},
                        expected_version=record["version"])
    assert error.value.errors == {"locality": PAIR_REFUSED}
    entities.update(db, CLERK, "machinery_requesters", NL, nl["association"],
                    {"zone": "Zona Norte", "locality": "Comunidade Pontal"}, expected_version=record["version"])
    assert entities.get(db, CLERK, "machinery_requesters", NL, nl["association"])["zone"] == "Zona Norte"


def test_an_import_names_the_line_of_a_pair_outside_the_list(db, nl):
    csv = ("Nome / Razão social;CPF/CNPJ;Tipo;Endereço;Zona;Localidade;Situação fiscal do solicitante;"
           "Situação verificada em\n"
           "Joana Chacareira;714.287.938-60;pf;Chácara 3;Zona Urbana;Comunidade Pontal;nada_deve;06/04/2026\n"
           "Luís Sitiante;852.524.649-28;pf;Sítio 9;Zona Norte;Comunidade Pontal;nada_deve;06/04/2026\n")
    report = entity_files.import_csv(db, CLERK, "machinery_requesters", NL, csv.encode(), commit=True)
    assert [(e.line, e.field, e.message) for e in report.errors] == [(2, "Localidade", PAIR_REFUSED)]
    assert report.inserted == 0


# ---- item 6: a booking over a period shows, before it is saved, the days it skips and why ----

def test_the_period_of_a_booking_is_shown_with_the_days_it_skips_before_it_is_saved(db, nl, today):
    """Art. 3 III: from Friday 17/04 to Wednesday 22/04 the machine works 17, 20 and 22; the weekend
    and Tiradentes are skipped, each with its reason, and nothing is booked by asking."""
    shown = schedule.period_preview(db, CLERK, NL, date(2026, 4, 17), date(2026, 4, 22))
    assert shown.days == (date(2026, 4, 17), date(2026, 4, 20), date(2026, 4, 22))
    assert [(s.day, s.reason) for s in shown.skipped] == [
        (date(2026, 4, 18), "sábado"), (date(2026, 4, 19), "domingo"),
        (date(2026, 4, 21), "feriado nacional: Tiradentes")]
    assert db["machinery_bookings"].count_documents({}) == 0


def test_a_municipal_holiday_of_the_parameters_is_skipped_with_its_name(db, nl, today):
    from services.shared import parameters
    from tests.test_bookings import TI_NL

    parameters.add_version(db, TI_NL, NL, "municipal_holidays", date(2026, 1, 1),
                           [{"day": "04-14", "name": "Aniversário do Município"}], "Lei municipal 1/2026")
    shown = schedule.period_preview(db, CLERK, NL, date(2026, 4, 13), date(2026, 4, 15))
    assert [(s.day, s.reason) for s in shown.skipped] == [
        (date(2026, 4, 14), "feriado municipal: Aniversário do Município")]
    rid = ready(db, nl, nl["family"])
    doc = schedule.book(db, CLERK, NL, rid, date(2026, 4, 13), [(nl["truck"], nl["pedro"])], until=date(2026, 4, 15))
    assert doc["schedule"]["days"] == list(shown.days)


def test_a_period_out_of_shape_is_refused_under_the_last_day(db, nl, today):
    with pytest.raises(ValidationFailed) as error:
        schedule.period_preview(db, CLERK, NL, date(2026, 4, 17), date(2026, 4, 16))
    assert set(error.value.errors) == {"until"}


# ---- item 7: the statement reads as the requester reads it (art. 8, §2) ----
# Anexo I, item 01 (retroescavadeira): R$ 300,00 the hour in the price table in force. 6 h quoted:
# R$ 1.800,00, the advance DAM charges 50% = R$ 900,00; 1 h worked = R$ 300,00 executed, so R$ 600,00
# of the advance is owed back.

SETTLED = ("Acerto das horas executadas (art. 8, §2): valor executado R$ 300,00 · adiantamento pago R$ 900,00 · "
           "crédito de R$ 600,00 a devolver ao interessado.")


def one_hour_of_six(db, nl, today):
    from tests.test_bookings_charges import completed

    return completed(db, nl, today, worked=D(1))


def test_the_advance_row_shows_what_its_dam_charged_and_what_was_paid(db, nl, today):
    from services.machinery import ledger

    rid = one_hour_of_six(db, nl, today)
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    [advance] = ledger.request_charges(db, CLERK, NL, doc)
    assert (advance.part, advance.charged, advance.paid, advance.open, advance.credit) == (
        "adiantamento", D("900.00"), D("900.00"), D("0.00"), D("600.00"))
    assert ledger.settlement_text(doc["settlement"], [advance]) == SETTLED


def test_the_statement_pdf_has_the_advance_as_charged_and_the_settlement_on_its_own_line(db, nl, today):
    from services.machinery import documents
    from tests.test_bookings_charges import pdf_text

    rid = one_hour_of_six(db, nl, today)
    statement = pdf_text(documents.statement_pdf(db, CLERK, NL, rid))
    assert "Cobrado R$ 900,00 · pago R$ 900,00 · em aberto R$ 0,00 · a devolver ao interessado R$ 600,00" in statement
    assert SETTLED in statement
    assert "R$ 300,00" not in statement.split("PAGAMENTO (ART. 8)")[1].split("Acerto")[0]  # no row says 300 charged


def test_seven_hours_of_six_settle_with_the_balance_due(db, nl, today):
    from services.machinery import ledger
    from tests.test_bookings_charges import completed

    rid = completed(db, nl, today, worked=D(7))
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    rows = ledger.request_charges(db, CLERK, NL, doc)
    assert [(r.part, r.charged, r.paid, r.open) for r in rows] == [
        ("adiantamento", D("900.00"), D("900.00"), D("0.00")), ("saldo_executado", D("1200.00"), D("0.00"),
                                                                 D("1200.00"))]
    text = ledger.settlement_text(doc["settlement"], rows)
    assert text.startswith("Acerto das horas executadas (art. 8, §2): valor executado R$ 2.100,00 · adiantamento "
                           "pago R$ 900,00 · saldo de R$ 1.200,00 a pagar, DAM ")
    assert "vencimento 23/04/2026" in text


def test_the_request_screen_shows_the_advance_charged_and_the_settlement_line(db, nl, today):
    from tests.test_bookings_charges_pages import opened
    from tests.test_page_bookings import frame_text, texts

    rid = one_hour_of_six(db, nl, today)
    at = opened(rid)
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "Em aberto" in d.value.columns)
    advance = table.iloc[0]
    assert (advance["Cobrado"], advance["Pago"], advance["Em aberto"]) == ("R$ 900,00", "R$ 900,00", "R$ 0,00")
    assert "R$ 300,00" not in frame_text(at, "Em aberto")
    assert SETTLED in texts(at, "info")
