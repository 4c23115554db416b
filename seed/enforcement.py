"""Demo autos de infração of both ride-hailing municipalities, in every stage (invented facts, the
demo drivers): awaiting notification, notified, in the defence period, defence filed, decided with the
fine DAM open, fine paid, annulled, under appeal, a draft from a platform list, a recurrence (Chapada:
a second street boarding and its 30-day suspension, already ended; Matupá: a second leve charged as
média), a void late notification in Matupá and a cassação."""
from __future__ import annotations

from datetime import date, timedelta

from pymongo.database import Database

from services.dam import payments
from services.ridehailing import authorization_lists
from services.ridehailing.enforcement import autos, lavratura, penalties, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import clock, entity_lists, parameters, schema
from services.shared.auth import Actor
from services.store import parse_date

FACTS = "Constatado pelo agente em fiscalização de rotina (demonstração)"
FIRST_DAYS = {"chapada": date(2026, 1, 8), "matupa": date(2025, 8, 29)}  # the acts in force (and the UPFM)
PLACES = ("Praça Dom Wunibaldo", "Avenida Rio de Janeiro, em frente à rodoviária", "Rua Cipriano Curvo, 450")


def _actor(municipality: str) -> Actor:
    return Actor(f"carga.{municipality}", "Carga de demonstração", "secretaria", (municipality,))


def _lavrar(db: Database, actor: Actor, municipality: str, code: str, on: date, cpf: str, index: int = 0) -> str:
    return lavratura.lavrar(db, actor, municipality, AutoInput(
        target_kind="driver", driver_cpf=cpf, infraction_code=code, facts=FACTS, committed_on=on, auto_on=on,
        time=f"{8 + index % 10:02d}:15", place=PLACES[index % len(PLACES)],
        agent_registration=f"AF-{40 + index % 5:04d}", agent_name="Agente Fiscal (demonstração)"))


def _notify(db: Database, actor: Actor, municipality: str, auto_id: str, on: date, juntada: bool = True) -> date | None:
    """Notified 2 days after the auto, received on the 5th, juntada on the 6th; returns the last day of
    the defence (None when those days are still to come)."""
    if on + timedelta(days=6) > clock.today():
        return None
    method = "post"
    process.notify(db, actor, municipality, auto_id, method=method, sent_on=on + timedelta(days=2),
                   received_on=on + timedelta(days=5), juntada_on=on + timedelta(days=6) if juntada else None)
    if not juntada:
        return None
    juntada_on = on + timedelta(days=6)
    return parameters.calendar(db, municipality, juntada_on).add_days(juntada_on, 30)


def _decide(db: Database, actor: Actor, municipality: str, auto_id: str, on: date,
            outcome: str = "mantido") -> date | None:
    """Notified and decided the day after the defence period; None when that day is still to come."""
    last = _notify(db, actor, municipality, auto_id, on)
    if last is None or last + timedelta(days=1) > clock.today():
        return None
    decided_on = last + timedelta(days=1)
    process.decide(db, actor, municipality, auto_id, outcome=outcome, decided_on=decided_on,
                   reasons="Fatos comprovados pelo relatório e pelas fotos do agente (demonstração)"
                   if outcome != "anulado" else "Identificação do veículo divergente no auto (demonstração)",
                   authority="Secretário(a) Municipal de Finanças")
    return decided_on


def _drivers(db: Database, actor: Actor, municipality: str) -> list[str]:
    """CPFs of the demo drivers with an authorization in force today, oldest protocol first."""
    rows = authorization_lists.authorization_rows(db, actor, municipality, clock.today())
    active = [r for r in sorted(rows, key=lambda r: r.protocol_date) if r.state.status.value == "active"]
    return [r.driver_cpf for r in active]


def _others(db: Database, actor: Actor, municipality: str, taken: set[str]) -> list[str]:
    rows = entity_lists.list_all(db, actor, "drivers", municipality, schema.ListQuery(sort="name"))
    return [r["cpf"] for r in rows if r["cpf"] not in taken]


def _quiet_since(db: Database, municipality: str, cpf: str, day: date) -> bool:
    """No event of the driver's authorizations after ``day``."""
    return all(parse_date(e["on"]) <= day for doc in db["authorizations"].find(
        {"municipality": municipality, "driver_cpf": cpf}, {"events": 1}) for e in doc.get("events") or [])


def _seed(db: Database, municipality: str, today: date) -> None:
    actor = _actor(municipality)
    active = _drivers(db, actor, municipality)
    others = _others(db, actor, municipality, set(active))
    if len(active) < 2 or len(others) + len(active) < 12:  # a store without the ride-hailing demo records
        return
    cg = municipality == "chapada"
    codes = (["CG-29-I", "CG-18-II", "CG-29-VI", "CG-18-VIII", "CG-18-XIV", "CG-29-II", "CG-18-III", "CG-18-XX"]
             if cg else ["MP-26-I", "MP-12-I", "MP-26-VII", "MP-12-VI", "MP-12-XV", "MP-26-II", "MP-12-XI", "MP-12-III"])
    back = lambda days: max(today - timedelta(days=days), FIRST_DAYS[municipality])  # noqa: E731

    # recurrence on the driver with the oldest authorization
    repeat = active[0]
    first_code, second_code = ("CG-29-IV", "CG-29-IV") if cg else ("MP-12-III", "MP-12-IX")
    first = _lavrar(db, actor, municipality, first_code, back(200), repeat, 1)
    _decide(db, actor, municipality, first, back(200))
    second = _lavrar(db, actor, municipality, second_code, back(120), repeat, 2)
    decided_on = _decide(db, actor, municipality, second, back(120))
    recurrent = autos.get(db, actor, municipality, second)["recurrent"]
    if cg and decided_on and recurrent:  # CG art. 29 §1: 30 days from the day the decision became final, over
        final = process.process_status(db, actor, municipality, second, today)["effective_on"]
        penalties.apply_sanction(db, actor, municipality, second, penalty="suspensão da autorização",
                                 start=final, note="Suspensão cumprida (demonstração)")

    # MP art. 26 VI: a cassação ends the authorization, so it goes to one with no event after the auto
    # (a renewal asked later would follow the end); none such, no cassação
    cassado = None if cg else next((cpf for cpf in active[1:] if _quiet_since(db, municipality, cpf, back(100))), None)
    # one auto per stage, each on a different driver
    pool = iter(others + [cpf for cpf in active[2:] if cpf != cassado])
    stage_days = {"aguardando": 3, "notificado": 10, "prazo": 15, "defesa": 20, "dam": 80, "pago": 100,
                  "anulado": 90, "recurso": 85}
    for index, (stage, days) in enumerate(stage_days.items()):
        on = back(days)
        auto_id = _lavrar(db, actor, municipality, codes[index], on, next(pool), index + 3)
        if stage == "aguardando":
            continue
        if stage == "notificado":
            _notify(db, actor, municipality, auto_id, on, juntada=False)
        elif stage == "prazo":
            _notify(db, actor, municipality, auto_id, on)
        elif stage == "defesa" and _notify(db, actor, municipality, auto_id, on):
            process.file_defence(db, actor, municipality, auto_id, filed_on=min(on + timedelta(days=12), today),
                                 by="O próprio condutor", summary="Alega que aguardava passageiro chamado pelo "
                                                                  "aplicativo (demonstração)")
        elif stage == "anulado":
            _decide(db, actor, municipality, auto_id, on, "anulado")
        elif stage == "recurso":
            ruled = _decide(db, actor, municipality, auto_id, on)
            if ruled is None:
                continue
            process.file_appeal(db, actor, municipality, auto_id, filed_on=ruled + timedelta(days=3),
                                by="Advogado do condutor", summary="Pede a redução da multa (demonstração)")
        elif _decide(db, actor, municipality, auto_id, on):
            dam = penalties.issue_fine_dam(db, actor, municipality, auto_id)
            if stage == "pago":
                payments.record_payment(db, actor, municipality, dam["id"], today, dam["amount"], "Banco do Brasil")

    if cg:
        platforms = entity_lists.list_all(db, actor, "platforms", municipality, schema.ListQuery(sort="name"))
        lavratura.draft_auto(db, actor, municipality, AutoInput(
            target_kind="driver", driver_cpf=next(pool), infraction_code="CG-30",
            facts="Condutor na relação da plataforma sem autorização válida (demonstração)",
            origin=f"Conciliação da relação de {platforms[0]['name']}" if platforms else "Conciliação"))
    else:
        late = _lavrar(db, actor, municipality, "MP-12-VII", back(150), next(pool), 12)
        try:  # MP art. 21 §1: delivered after 90 days, so the auto is void
            process.notify(db, actor, municipality, late, method="post", sent_on=back(55), received_on=back(50))
        except process.DeadlineMissed:
            pass
        if cassado is None:
            return
        aggression = _lavrar(db, actor, municipality, "MP-26-VI", back(100), cassado, 13)
        ruled = _decide(db, actor, municipality, aggression, back(100))
        if ruled:  # from the day the decision becomes final (MP art. 25 §4), maybe still to come
            penalties.apply_sanction(db, actor, municipality, aggression, penalty="cassação da autorização",
                                     note="Cassação (demonstração)")
        penalties.record_measure(db, actor, municipality, aggression, measure="apreensão de documentos ou equipamentos",
                                 on=back(100), by="Agente Fiscal AF-0043 (demonstração)")


def seed_enforcement(db: Database) -> None:
    """Load the demo autos once (skipped when any auto exists)."""
    autos.prepare(db)
    if db[autos.COLLECTION].count_documents({}) > 0:
        return
    today = clock.today()
    for municipality in ("chapada", "matupa"):
        _seed(db, municipality, today)
