"""Measures that last "até a regularização" get their end: the vehicle seized or removed is released on
a date, by someone, once (CG Decreto 06/2026 art. 27 II, art. 30 §ú, art. 31; MP Lei 1.552/2025 art. 24,
art. 27 §ú, art. 28; issue 23, item 5)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.ridehailing.enforcement import autos, penalties
from services.shared.errors import Conflict, ValidationFailed
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS

MP = ACTORS["matupa"]
SEIZURE, NOTICE = "apreensão do veículo até a regularização", "notificação para regularização"


def test_a_seized_vehicle_is_released_on_the_day_it_was_regularized(db, today):
    cpf, _ = driver(db, "matupa", seed=3)
    auto_id = lavrado(db, today, "matupa", "MP-27", date(2026, 3, 2), cpf)
    penalties.record_measure(db, MP, "matupa", auto_id, measure=NOTICE, on=date(2026, 3, 2), by="Agente AF-0042")
    penalties.record_measure(db, MP, "matupa", auto_id, measure=SEIZURE, on=date(2026, 3, 2), by="Agente AF-0042")
    today.set(date(2026, 3, 20))
    with pytest.raises(ValidationFailed) as caught:
        penalties.release_measure(db, MP, "matupa", auto_id, measure_index=1, released_on=date(2026, 3, 1),
                                  by="Pátio municipal")
    assert "antes da medida" in caught.value.errors["released_on"] and "art. 24" in caught.value.errors["released_on"]
    with pytest.raises(ValidationFailed) as caught:
        penalties.release_measure(db, MP, "matupa", auto_id, measure_index=0, released_on=date(2026, 3, 5),
                                  by="Pátio municipal")
    assert "ato único" in caught.value.errors["measure_index"]
    with pytest.raises(ValidationFailed):
        penalties.release_measure(db, MP, "matupa", auto_id, measure_index=1, released_on=today.value + timedelta(1),
                                  by="Pátio municipal")
    item = penalties.release_measure(db, MP, "matupa", auto_id, measure_index=1, released_on=date(2026, 3, 18),
                                     by="Pátio municipal", note="CRLV regularizado apresentado")
    assert (item["measure"], item["on"], item["by"]) == (SEIZURE, date(2026, 3, 18), "Pátio municipal")
    doc = autos.get(db, MP, "matupa", auto_id)
    shown = autos.measures_of(doc)
    assert [(m["measure"], m["lasting"], (m["released"] or {}).get("on")) for m in shown] == [
        (NOTICE, False, None), (SEIZURE, True, date(2026, 3, 18))]
    assert doc["events"][-1]["action"] == "measure_released"
    assert db["audit"].find_one({"action": "measure_released", "doc_id": auto_id}) is not None
    with pytest.raises(Conflict):
        penalties.release_measure(db, MP, "matupa", auto_id, measure_index=1, released_on=date(2026, 3, 19),
                                  by="Pátio municipal")
    with pytest.raises(ValidationFailed):
        penalties.release_measure(db, MP, "matupa", auto_id, measure_index=5, released_on=date(2026, 3, 19),
                                  by="Pátio municipal")
