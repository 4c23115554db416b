"""Who does what in the December peak (``bench/peak.py``), in the working copy of the benchmark store of
``bench/run.py`` (``bench/dataset.py`` at its scale), prepared through the real services before the clock
starts.

- Portal: per round, drivers of Chapada's register holding an overdue DAM (the 2ª via they ask for; when the
  dataset has too few, drivers with another DAM, who only open and consult it) get the
  demo account and open domicile of ``bench/portal_store.py`` and a notice in it (``portal_store.deliver``);
  one session in :data:`PLATFORM_SHARE` is a platform's person instead: a platform of the register (made
  like ``portal_store.build`` makes one when the register has too few) whose authorized agent is the signer
  of the signed answer, with a data request to answer (``portal_store.request``), whose notice in the
  platform's domicile is the message it opens.
- Staff: per round and clerk, an authorization in force whose renewal was not requested (Chapada: every one
  is valid until 31/12, CG Decreto 06/2026 art. 9 §1) and a request whose evaluation passes (to approve).
"""
from __future__ import annotations

import random
from datetime import date

from bson import ObjectId

from bench import portal_store
from bench.peak_portal import Visit
from rules.ridehailing.lifecycle import Status
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from seed import people
from seed.documents import demo_dam_parameters
from services import store
from services.ridehailing import authorizations, fees, trip_data
from services.setup import bootstrap
from services.shared import clock, domicile, entities, trust_anchors
from services.shared.auth import SYSTEM
from services.shared.entities import NOT_REMOVED

PLATFORM_SHARE = 6  # one session in 6 is a platform's person (5 of 30)
MUNICIPALITY = "chapada"


def _drivers(db, today: date, wanted: int) -> list[tuple[str, str, str, bool]]:
    """(CPF, e-mail, number of a DAM, overdue?) of ``wanted`` drivers of the register: those with an overdue
    DAM first (they ask its 2ª via), then others with a DAM (a tiny dataset has few overdue ones)."""
    drivers = {d["cpf"]: d.get("email") or f"condutor{d['cpf']}@bancada.invalid"
               for d in db["drivers"].find({"municipality": MUNICIPALITY, **NOT_REMOVED}, {"cpf": 1, "email": 1})}
    found: dict[str, tuple[str, str, str, bool]] = {}
    if not wanted:
        return []
    overdue = {"status": "emitido", "due_on": {"$lt": store.encode({"d": today})["d"]}}
    for query, late in ((overdue, True), ({"status": {"$in": ["emitido", "pago"]}}, False)):
        for dam in db["dams"].find({"municipality": MUNICIPALITY, **query}, {"taxpayer_document": 1, "number": 1}):
            cpf = dam.get("taxpayer_document")
            if cpf in drivers and cpf not in found:
                found[cpf] = (cpf, drivers[cpf], dam["number"], late)
                if len(found) == wanted:
                    return list(found.values())
    raise RuntimeError(f"só {len(found)} condutores com DAM; a bancada precisa de {wanted}")


def _platforms(db, wanted: int) -> list[tuple[str, str]]:
    """(id, CNPJ) of ``wanted`` active platforms of the register, made when there are too few."""
    rows = [(str(p["_id"]), p["cnpj"]) for p in db["platforms"].find(
        {"municipality": MUNICIPALITY, "status": "ativo"}, {"cnpj": 1}).limit(wanted)]
    rng = random.Random(38)
    while len(rows) < wanted:
        cnpj = people.cnpj(rng)
        made = entities.create(db, portal_store.STAFF, "platforms", MUNICIPALITY, {
            "name": f"Plataforma de Pico {len(rows) + 1} Ltda", "cnpj": cnpj,
            "email": f"contato{len(rows) + 1}@pico.invalid", "status": "ativo"})
        rows.append((made, cnpj))
    return rows


def _newest_message(db, document: str) -> str:
    row = db[domicile.MESSAGES].find_one({"municipality": MUNICIPALITY, "document": document},
                                         {"code": 1}, sort=[("delivered_at", -1), ("_id", -1)])
    return row["code"]


def _late_rates(db) -> None:
    """The demo's rates of multa and juros (``seed.documents``) the 2ª via needs, which the dataset lacks, put
    in as the dataset's documents are, in the shape ``bootstrap.ensure_parameter`` writes: saved through the
    service, each parameter rebuilds Chapada's whole work queue (a view of ``parameters``: about a minute
    each at scale 10 on this shared machine), though these rates move no deadline of it."""
    names = (FINE_DAILY, FINE_MAX, INTEREST_MONTHLY)
    for version in demo_dam_parameters(MUNICIPALITY):
        key = {"municipality": MUNICIPALITY, "name": version.name, "effective": version.effective.isoformat()}
        if version.name in names and db["parameters"].find_one(key) is None:
            db["parameters"].insert_one(store.encode({
                **key, "value": version.value, "act": version.act, "note": version.note,
                "created_by": SYSTEM.username, "created_at": clock.now_utc()}))


def portal_rounds(db, today: date, sessions: int, rounds: int, signed: portal_store.Signed) -> list[list[Visit]]:
    """``rounds`` lists of ``sessions`` visits (new people each round; the same platforms)."""
    bootstrap.mark_store(db, "demo")  # demo accounts (a known password) exist only in a demo store
    _late_rates(db)
    platform_slots = [i for i in range(sessions) if i % PLATFORM_SHARE == PLATFORM_SHARE - 1]
    drivers = iter(_drivers(db, today, (sessions - len(platform_slots)) * rounds))
    platforms = _platforms(db, len(platform_slots))
    trust_anchors.add_anchors(db, portal_store.TI, MUNICIPALITY, signed.root_pem, "raiz-pico.pem")
    for _id, cnpj in platforms:
        portal_store.platform_account(db, cnpj)
    out = []
    for number in range(rounds):
        visits = []
        for slot in range(sessions):
            if slot in platform_slots:
                platform_id, cnpj = platforms[platform_slots.index(slot)]
                asked = db[trip_data.REQUESTS].find_one({"_id": ObjectId(portal_store.request(db, platform_id))})
                visits.append(Visit(cnpj, portal_store.AGENT_CPF, _newest_message(db, cnpj), "", False,
                                    asked["code"]))
                continue
            cpf, email, dam, overdue = next(drivers)
            portal_store.driver_account(db, cpf, email)
            message = portal_store.deliver(db, cpf, 100 * number + slot)
            visits.append(Visit(cpf, "", message["code"], dam, overdue))
        out.append(visits)
    return out


def staff_rounds(db, today: date, sessions: int, rounds: int) -> list[list[dict]]:
    """Per clerk, ``rounds`` pieces of work: an authorization to renew and a request to approve (or None when
    the store has no more that pass the evaluation)."""
    actor = portal_store.STAFF
    renew, approve = [], []
    wanted = sessions * rounds
    for doc in db["authorizations"].find({"municipality": MUNICIPALITY}, {"_id": 1}):
        auth_id = str(doc["_id"])
        if len(renew) >= wanted and len(approve) >= wanted:
            break
        state = authorizations.status(db, actor, MUNICIPALITY, auth_id, today)
        full = authorizations.get_authorization(db, actor, MUNICIPALITY, auth_id)
        if state.status is Status.ACTIVE and not fees.pending_renewal(full) and len(renew) < wanted:
            renew.append((auth_id, full["protocol"]))
        elif (state.status is Status.REQUESTED and len(approve) < wanted
              and authorizations.evaluate(db, actor, MUNICIPALITY, auth_id).ok):
            approve.append((auth_id, full["protocol"]))
    if len(renew) < wanted:
        raise RuntimeError(f"só {len(renew)} autorizações em vigor para renovar; a bancada precisa de {wanted}")
    approve += [(None, None)] * (wanted - len(approve))
    return [[{"renew": renew[s * rounds + r][0], "renew_protocol": renew[s * rounds + r][1],
              "approve": approve[s * rounds + r][0], "approve_protocol": approve[s * rounds + r][1]}
             for r in range(rounds)] for s in range(sessions)]
