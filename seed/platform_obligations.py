"""Demo platform obligations (idempotent, once per municipality): the first platform's list received
and reconciled with two hits (the second platform's list is overdue), data requests (one answered, one
late, one open), trips of two months and their ISSQN (the older month paid, the other overdue), and
the fictitious ISSQN rate."""
from __future__ import annotations

import csv
import io
import random
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.params import ParameterVersion
from rules.ridehailing.lifecycle import Status
from seed.municipalities import DEMO_ACT
from seed.people import cpf
from services.dam import payments
from services.ridehailing import (
    authorization_lists,
    issqn,
    platform_lists,
    registry,
    trip_data,
)
from services.setup import bootstrap
from services.shared import clock, entity_lists, schema
from services.shared.auth import Actor
from services.store import decode, exists

DEMO_RATE = Decimal("0.05")
DEMO_ADDRESS = "Endereço da plataforma (demonstração)"


def _csv(rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter=";")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def _register_by_status(db: Database, municipality: str, on: date) -> dict[Status, list[dict]]:
    scope = registry.Scope(db, municipality)
    found: dict[Status, list[dict]] = {}
    for raw in db["authorizations"].find({"municipality": municipality},
                                         authorization_lists.ROW_FIELDS).sort("protocol", 1):
        doc = decode(raw)
        found.setdefault(scope.state(doc, on).status, []).append(doc)
    return found


def _month_start(on: date, back: int) -> date:
    first = on.replace(day=1)
    for _ in range(back):
        first = (first - timedelta(days=1)).replace(day=1)
    return first


def _trips(pairs: list[dict], month: date, rng: random.Random) -> list[dict[str, str]]:
    rows = []
    for pair in pairs:
        for n in range(4):
            fare = Decimal(rng.randint(1200, 4500)) / 100
            rows.append({"data_hora": f"{month.replace(day=3 + 5 * n):%d/%m/%Y} {8 + n:02d}:15",
                         "origem": "Centro", "destino": rng.choice(["Rodoviária", "Hospital", "Mirante", "Aeroporto"]),
                         "duracao_min": str(rng.randint(8, 40)), "distancia_km": f"{rng.randint(20, 180) / 10}".replace(".", ","),
                         "mapa": f"https://mapas.demonstracao.invalid/viagem/{rng.randint(10**5, 10**6)}",
                         "cpf_condutor": pair["driver_cpf"], "placa": pair["plate"],
                         "valor_total": f"{fare:.2f}".replace(".", ","),
                         "composicao_valor": f"tarifa {fare - 2:.2f} + taxa 2.00", "avaliacao": str(rng.randint(3, 5))})
    return rows


def seed_platform_obligations(db: Database) -> None:
    """Load the demo obligations of Chapada and Matupá once each."""
    today = clock.today()
    rng = random.Random(12)
    for code in ("chapada", "matupa"):
        bootstrap.ensure_parameter(db, code, ParameterVersion(
            issqn.RATE_PARAMETER, date(2025, 1, 1), DEMO_RATE, DEMO_ACT,
            "Alíquota do ISSQN sobre o valor das viagens — substituir pela do Código Tributário Municipal"))
        if exists(db[platform_lists.LISTS], {"municipality": code}):
            continue
        actor = Actor(f"carga.{code}", "Carga de demonstração", "secretaria", (code,))
        platforms = entity_lists.list_all(db, actor, "platforms", code,
                                          schema.ListQuery(filters={"status": "ativo"}, sort="name"))
        if not platforms:
            continue
        first = platforms[0]
        register = _register_by_status(db, code, today)
        valid = register.get(Status.ACTIVE, [])[:2]
        not_valid = next((docs[0] for status, docs in register.items() if status is not Status.ACTIVE and docs), None)
        rows = [{"CPF": d["driver_cpf"], "Placa": d["plate"], "Nome": f"Condutor autorizado {n + 1}"}
                for n, d in enumerate(valid)]
        if not_valid:
            rows.append({"CPF": not_valid["driver_cpf"], "Placa": not_valid["plate"], "Nome": "Condutor irregular"})
        rows.append({"CPF": cpf(rng), "Placa": "RDE2F34" if code == "chapada" else "MTP5G67",
                     "Nome": "Condutor sem cadastro"})
        if not not_valid:
            rows.append({"CPF": cpf(rng), "Placa": "SEM1C23", "Nome": "Outro condutor sem cadastro"})
        received_on = today - timedelta(days=5)
        platform_lists.receive_list(db, actor, code, first["id"], received_on, _csv(rows),
                        f"relacao_{code}_{received_on:%Y%m%d}.csv", commit=True)
        now = clock.now_utc()
        answered = trip_data.request_data(db, actor, code, first["id"],
                                          "Apuração de denúncia de embarque na via pública",
                                   now - timedelta(days=6))
        trip_data.answer_data_request(db, actor, code, answered, now - timedelta(days=5, hours=4))
        trip_data.request_data(db, actor, code, first["id"], "Conferência das viagens de um condutor suspenso",
                        now - timedelta(hours=30))
        trip_data.request_data(db, actor, code, platforms[-1]["id"], "Reclamação de passageiro na Ouvidoria",
                        now - timedelta(hours=3))
        if not valid:
            continue
        paid_month, overdue_month = _month_start(today, 3), _month_start(today, 2)
        data = _csv(_trips(valid, paid_month, rng) + _trips(valid, overdue_month, rng))
        trip_data.import_trips(db, actor, code, first["id"], data, f"viagens_{code}.csv", commit=True)
        issqn.assess_issqn(db, actor, code, first["id"], paid_month)
        issqn.assess_issqn(db, actor, code, first["id"], overdue_month)
        competence = f"{paid_month:%Y-%m}"
        for month in issqn.issqn_months(db, actor, code, today):
            if month.competence == competence:
                dam = issqn.issue_issqn_dam(db, actor, code, month.id, DEMO_ADDRESS)
                payments.record_payment(db, actor, code, dam["id"], today, dam["amount"], "Banco do Brasil (demonstração)")
