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
