"""The demo's autos (``seed/enforcement.py``), which the benchmark's dataset also replays at every scale.

Matupá's cassação (MP art. 26 VI) ends an authorization: it went to the second-oldest authorization in
force whatever came after it, and a renewal asked after the auto made the seed stop (the dataset of scale 10
failed with "Evento 'renewal_requested' de 30/11/2026 inválido: a autorização já foi encerrada").
"""
from __future__ import annotations

from datetime import timedelta

from seed import enforcement
from services import store
from services.ridehailing.enforcement import autos
from services.shared import clock
from tests.conftest import copy_store


def test_the_cassacao_goes_to_an_authorization_with_no_event_after_the_auto(demo_store, tmp_path):
    db = store.connect(uri="", data_dir=str(copy_store(demo_store, tmp_path / "demo")))
    db[autos.COLLECTION].delete_many({})  # the seed runs again on a store without autos
    active = enforcement._drivers(db, enforcement._actor("matupa"), "matupa")
    renewing = active[1]  # the one the cassação took
    asked = (clock.today() - timedelta(days=3)).isoformat()
    db["authorizations"].update_one({"municipality": "matupa", "driver_cpf": renewing},
                                    {"$push": {"events": {"kind": "renewal_requested", "on": asked, "until": None,
                                                          "note": "", "by": "carga.matupa"}}})
    assert enforcement._drivers(db, enforcement._actor("matupa"), "matupa")[1] == renewing  # still in force

    enforcement.seed_enforcement(db)

    cassacao = db[autos.COLLECTION].find_one({"municipality": "matupa", "infraction_code": "MP-26-VI"})
    assert cassacao["driver_cpf"] not in (renewing, active[0])
    ended = db["authorizations"].find_one({"municipality": "matupa", "driver_cpf": cassacao["driver_cpf"],
                                           "events.kind": "cassada"})
    assert ended is not None and ended["events"][-1]["kind"] == "cassada"
    kept = db["authorizations"].find_one({"municipality": "matupa", "driver_cpf": renewing})
    assert kept["events"][-1]["kind"] == "renewal_requested"
