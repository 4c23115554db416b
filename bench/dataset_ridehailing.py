"""The dataset's ride-hailing records: platforms, drivers, vehicles, authorizations and vistorias.

:class:`RideHailingRecords` gives each municipality with the service (from the day its act is in
force, ``RIDE_FIRST_DAY``) its credentialed platforms and their monthly reports, then one driver,
vehicle and authorization per planned history, ending in each status of the law in the weights of
``OUTCOMES``: the events, status and validity ``services.ridehailing.authorizations`` writes, the
inspections of ``inspections.record_inspection``, the convocations, and the fee DAMs of
``fees.issue_fee_dam`` (built by :class:`~bench.dataset_dams.DamRecords`) with what paying them records.
The status and validity are computed by the municipality's rules (``registry.rules_of``).
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from bench.dataset_dams import DamRecords
from bench.dataset_plan import OUTCOMES, RIDE_FIRST_DAY, TODAY
from bench.dataset_records import instant
from rules import fmt
from rules.ridehailing.concepts import EventKind
from seed import demo as demo_seed
from seed import people as people_seed
from seed import ridehailing as ride_seed
from services.ridehailing import authorization_records, authorizations, fees, inspections, registry
from services.shared import clock, entities
from services.shared.auth import Actor
from services.store import encode


class RideHailingRecords(DamRecords):
    """The ride-hailing registers of the dataset, up to its fixed today."""

    def platforms(self, mun: str, staff: list[Actor]) -> list[str]:
        rng, cnpjs = self.rng, []
        for index, (name, slug) in enumerate(demo_seed.PLATFORMS):
            credentialed = RIDE_FIRST_DAY[mun] + timedelta(days=30 * index)
            values = {
                "name": name, "cnpj": people_seed.cnpj(rng), "contact_name": people_seed.person(rng),
                "phone": people_seed.phone(rng, mun), "email": f"regulatorio@{slug.replace('á', 'a')}.com.br",
                "insurer": rng.choice(["Porto Seguro", "Tokio Marine", "Mapfre"]),
                "policy_number": f"{rng.randint(10**9, 10**10 - 1)}",
                "insurance_coverage": Decimal(["100000.00", "50000.00", "30000.00"][index]),
                "insurance_valid_from": credentialed, "insurance_valid_until": date(2027, rng.randint(1, 12), 28),
                "status": ["ativo", "ativo", "pendente"][index], "credentialed_on": credentialed,
            }
            doc = self.create(rng.choice(staff), "platforms", mun, values, instant(credentialed, rng))
            cnpjs.append(doc["cnpj"])
            month = credentialed.replace(day=1)
            while month < TODAY.replace(day=1):
                for kind, on in (("issqn", month), ("lista", month + timedelta(days=rng.randint(3, 25)))):
                    if on < TODAY and rng.random() > 0.05:
                        self.create(rng.choice(staff), "platform_reports", mun,
                                    {"platform_cnpj": doc["cnpj"], "kind": kind, "on": on,
                                     "reference": "Guia de ISSQN" if kind == "issqn" else "Protocolo digital"},
                                    instant(min(on + timedelta(days=2), TODAY), rng))
                month = (month + timedelta(days=32)).replace(day=1)
        return cnpjs[:2]

    def ride_hailing(self, mun: str, staff: list[Actor], counts: dict[str, int], cnpjs: list[str]) -> None:
        rng = self.rng
        history = (TODAY - RIDE_FIRST_DAY[mun]).days
        outcomes = [name for name, _ in OUTCOMES]  # every outcome once, then as weighted
        outcomes += rng.choices(outcomes, [w for _, w in OUTCOMES], k=max(0, counts["drivers"] - len(outcomes)))
        plans = sorted(((self.day_back(12, history - 10), outcome) for outcome in outcomes), key=lambda plan: plan[0])
        reaching = sum(1 for _, outcome in plans if outcome not in ("requested", "refused", "awaiting_inspection"))
        # each extra day brings 1.35 vistorias on average (a failure and its return, a call, an annual one)
        self.extra_inspections = max(0.0, (counts["inspections"] / max(1, reaching) - 1) / 1.35)
        for protocol, outcome in plans:
            actor = rng.choice(staff)
            created = instant(max(protocol - timedelta(days=rng.randint(1, 10)), RIDE_FIRST_DAY[mun]), rng)
            driver = self.driver(mun, actor, protocol, outcome, cnpjs, created)
            car = ride_seed.vehicle_values(rng, driver["cpf"], protocol)
            while (mun, car["plate"]) in self.taken:  # plates are unique per municipality too
                car = ride_seed.vehicle_values(rng, driver["cpf"], protocol)
            self.taken.add((mun, car["plate"]))
            car["first_registration"] = min(car["first_registration"], clock.local_date(created))  # typed that day
            if outcome == "refused":
                car = {**car, "model_year": protocol.year - 11}
            vehicle = self.create(actor, "vehicles", mun, car, created, keep="hold")
            self.authorization(mun, actor, driver, vehicle, protocol, outcome)
        self.out.progress(f"{mun}: condutores, veículos, autorizações, vistorias")
        print(f"           situações em {fmt.day(TODAY)}: " + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())))
        self.statuses.clear()

    def driver(self, mun: str, actor: Actor, protocol: date, outcome: str, cnpjs: list[str], created: datetime) -> dict:
        rng = self.rng
        entered = clock.local_date(created)  # the driver's records are typed that day: none is dated after it
        values = ride_seed.driver_values(rng, mun, protocol, platform_cnpj=rng.choice(cnpjs))
        while (mun, values["cpf"]) in self.taken:  # CPFs are unique per municipality (collide past ~40k drivers)
            values = ride_seed.driver_values(rng, mun, protocol, platform_cnpj=rng.choice(cnpjs))
        self.taken.add((mun, values["cpf"]))
        values["cnh_valid_until"] = TODAY + timedelta(days=rng.randint(-30, 1500))
        driver = self.create(actor, "drivers", mun, values, created, keep="hold")
        issued = min(protocol - timedelta(days=rng.randint(5, 20)), entered)
        for code in ride_seed.DOCUMENTS[mun]:
            self.create(actor, "driver_documents", mun, {"driver_cpf": driver["cpf"], "code": code, "issued_on": issued},
                        created)
        if rng.random() < 0.15:
            self.create(actor, "traffic_infractions", mun, {
                "driver_cpf": driver["cpf"], "committed_on": protocol - timedelta(days=rng.randint(30, 900)),
                "severity": rng.choice(("leve", "media", "grave", "gravissima")),
                "description": "Estacionar em local proibido (CTB art. 181)"}, created)
        if rng.random() < 0.5:
            self.create(actor, "training_courses", mun, {
                "driver_cpf": driver["cpf"], "held_on": min(protocol - timedelta(days=rng.randint(1, 60)), entered),
                "title": "Curso de relações humanas e direção defensiva"}, created)
        return driver

    def authorization(self, mun: str, actor: Actor, driver: dict, vehicle: dict, protocol: date, outcome: str) -> None:
        rng = self.rng
        _, protocol_number = self.number(mun, authorizations.PROTOCOL_KIND, protocol.year)
        doc = self.create(actor, "authorizations", mun, {
            "protocol": protocol_number, "protocol_date": protocol, "driver_cpf": driver["cpf"],
            "plate": vehicle["plate"], "status": "requested"}, instant(protocol, rng), keep="return")
        doc["events"] = []
        self.event(mun, actor, doc, EventKind.REQUESTED, protocol, note=f"Protocolo {protocol_number}")
        if outcome == "requested":
            return self.done(doc)
        if outcome == "refused":
            reasons = [f"Veículo com mais de 10 anos de fabricação (ano modelo {vehicle['model_year']})"]
            self.event(mun, actor, doc, EventKind.REFUSED, protocol + timedelta(days=3), note="; ".join(reasons),
                       extra={"refusal_reasons": reasons})
            return self.done(doc)
        self.event(mun, actor, doc, EventKind.APPROVED, protocol + timedelta(days=2))
        if outcome == "awaiting_inspection":
            return self.done(doc)
        self.inspection(mun, actor, doc, protocol + timedelta(days=4), passed=True)
        paid_on = protocol + timedelta(days=6)
        if outcome == "awaiting_fee" or paid_on >= TODAY:
            self.fee_dam(mun, actor, doc, min(paid_on, TODAY), "initial", paid=False)
            return self.done(doc)
        self.fee_dam(mun, actor, doc, paid_on, "initial", paid=True)
        last = {"blocked": TODAY - timedelta(days=8), "suspended": TODAY - timedelta(days=12),
                "revoked": TODAY - timedelta(days=rng.randint(15, 60)),
                "cassada": TODAY - timedelta(days=rng.randint(15, 60))}.get(outcome, TODAY - timedelta(days=1))
        self.life(mun, actor, doc, paid_on, last, outcome)
        last = max(last, doc["events"][-1]["on"])
        if outcome == "blocked":
            self.inspection(mun, actor, doc, max(last, TODAY - timedelta(days=rng.randint(1, 4))), passed=False)
        elif outcome == "suspended":
            self.event(mun, actor, doc, EventKind.SUSPENDED, last, last + timedelta(days=30),
                       note="Suspensão de 30 dias por infração ao regulamento")
        elif outcome in ("revoked", "cassada"):
            kind = EventKind.REVOKED if outcome == "revoked" else EventKind.CASSADA
            self.event(mun, actor, doc, kind, last, note="Decisão em processo administrativo")
        elif outcome == "renewing":
            self.event(mun, actor, doc, EventKind.RENEWAL_REQUESTED, max(last, TODAY - timedelta(days=rng.randint(1, 10))))
            self.fee_dam(mun, actor, doc, doc["events"][-1]["on"], "renewal", paid=False)
        return self.done(doc)

    def life(self, mun: str, actor: Actor, doc: dict, start: date, end: date, outcome: str) -> None:
        """Annual and extra vistorias, convocations and renewals from the fee payment up to ``end``."""
        rng = self.rng
        span = max(1, (end - start).days)
        extra = rng.randint(0, round(2 * self.extra_inspections))
        days = sorted(start + timedelta(days=rng.randint(1, span)) for _ in range(extra)) if span > 8 else []
        valid = self.rules.validity_end(start)
        for day in [*days, None]:
            while valid < (day or end) and outcome != "expired":
                requested = valid - timedelta(days=rng.randint(10, 25))
                self.event(mun, actor, doc, EventKind.RENEWAL_REQUESTED, max(requested, doc["events"][-1]["on"]))
                paid_on = doc["events"][-1]["on"] + timedelta(days=2)
                self.fee_dam(mun, actor, doc, paid_on, "renewal", paid=True)
                valid = self.state(doc, mun, paid_on).valid_until
            if day is None or day >= end or (outcome == "expired" and day > valid):
                break
            if day <= doc["events"][-1]["on"]:
                continue
            what = rng.random() if day + timedelta(days=4) < end else 1.0
            if what < 0.35:
                self.inspection(mun, actor, doc, day, passed=False)
                self.inspection(mun, actor, doc, day + timedelta(days=3), passed=True)
            elif what < 0.55:
                self.call(mun, actor, doc, day)
                self.inspection(mun, actor, doc, day + timedelta(days=4), passed=True)
            else:
                self.inspection(mun, actor, doc, day, passed=True)

    def event(self, mun: str, actor: Actor, doc: dict, kind: EventKind, on: date, until: date | None = None,
              note: str = "", extra: dict | None = None, who: Actor | None = None) -> None:
        """What ``ridehailing._add_event`` writes: the event, status and validity, and the audit entry
        (whose event lists are kept in stored form, one event encoded once)."""
        who = who or actor
        on = min(on, TODAY)  # the dataset never dates a record after its today (issue 21)
        entry = {"kind": kind.value, "on": on, "until": until, "note": note, "by": who.username}
        after = {**doc, "events": [*doc.get("events", []), entry], **(extra or {})}
        state = self.state(after, mun, on)
        changes = {"events": after["events"], "status": state.status.value, "valid_until": state.valid_until,
                   **(extra or {})}
        before = {k: doc.get(k) for k in changes}
        moment = instant(on, self.rng)
        stored_before = self.stored_events.get(doc["_id"], [])
        stored_after = self.stored_events[doc["_id"]] = [*stored_before, encode(entry)]
        logged = {}
        for key in sorted(changes):
            old, new = (stored_before, stored_after) if key == "events" else (encode(before[key]), encode(changes[key]))
            if old != new:
                logged[key] = {"before": old, "after": new}
        doc.update({**changes, "updated_at": moment})
        self.log(who, mun, kind.value, "authorizations", doc["_id"], logged, note, moment, stored=doc)

    def state(self, doc: dict, mun: str, on: date):
        return self.rules.authorization_status(registry.authorization_concept(doc), on, self.book, self.calendar)

    def done(self, doc: dict) -> None:
        status = self.state(doc, doc["municipality"], TODAY).status
        self.statuses[status.value] += 1
        if status not in authorization_records.ENDED:  # only open records carry the keys (an expired one until reused)
            doc.update(authorization_records.open_keys(doc["municipality"], doc["plate"], doc["driver_cpf"]))
        self.out.add("authorizations", encode(doc))

    def inspection(self, mun: str, actor: Actor, doc: dict, on: date, passed: bool) -> None:
        """What ``ridehailing.record_inspection`` writes: the inspection with its answers, then the event."""
        on = min(on, TODAY)
        answers = {item.code: True for item in self.rules.inspection_items}
        if not passed:
            answers[self.rng.choice(list(answers))] = False
        decision = self.rules.evaluate_inspection(answers)
        deadline = None if decision.ok else self.rules.fix_deadline(on, self.calendar)
        pendings = "; ".join(f.message for f in decision.failures)
        record = self.create(actor, "inspections", mun, {
            "authorization_id": str(doc["_id"]), "plate": doc["plate"], "kind": inspections.inspection_kind(doc),
            "performed_on": on, "result": "approved" if decision.ok else "failed", "fix_deadline": deadline,
            "inspector": "Vistoriador municipal", "notes": pendings}, instant(on, self.rng), keep="return")
        record["answers"] = dict(answers)
        self.out.add("inspections", record)
        kind = EventKind.INSPECTION_PASSED if decision.ok else EventKind.INSPECTION_FAILED
        self.event(mun, actor, doc, kind, on, note=pendings)

    def call(self, mun: str, actor: Actor, doc: dict, on: date) -> None:
        deadline = self.rules.convocation_deadline(on, self.book, self.calendar)
        _, number = self.number(mun, inspections.CONVOCATION_KIND, on.year)
        note = "Denúncia de passageiro sobre o estado do veículo"
        self.event(mun, actor, doc, EventKind.INSPECTION_CALLED, on, note=note,
                   extra={"convocation": {"number": number, "called_on": on, "deadline": deadline, "reason": note}})

    def fee_dam(self, mun: str, actor: Actor, doc: dict, on: date, purpose: str, paid: bool) -> None:
        """The fee DAM of ``issue_fee_dam`` and, when paid, what ``fee_paid`` records."""
        amount = Decimal(str(self.book.get(fees.FEE_PARAMETER, on)))
        renewal = purpose == "renewal"
        driver = next(d for d in reversed(self.held["drivers"]) if d["cpf"] == doc["driver_cpf"])
        address = ", ".join(x for x in (driver.get("address"), driver.get("district")) if x)
        description = (f"Taxa de {'renovação' if renewal else 'expedição'} da autorização de transporte por "
                       f"aplicativo — protocolo {doc['protocol']}, placa {entities.fields.show('plate', doc['plate'])}")
        dam = self.dam(mun, actor, on, {"name": driver["name"], "document": doc["driver_cpf"], "address": address},
                       "taxa_autorizacao", description,
                       self.rules.ref("fee"), amount, self.calendar.add_days(on, fees.FEE_DUE_DAYS),
                       {"collection": "authorizations", "id": str(doc["_id"]), "label": f"Autorização {doc['protocol']}"},
                       paid_on=on if paid else None)
        fee = {"dam_id": str(dam["_id"]), "number": dam["number"], "amount": amount, "due": dam["due_on"],
               "purpose": purpose, "paid": False, "fee_total": amount, "received": [], "short": None,
               "charge_id": dam.get("charge_id")}
        doc["fee_dam"] = fee
        self.audit(actor, mun, "fee_dam", "authorizations", doc["_id"], {}, {"fee_dam": fee}, "", instant(on, self.rng),
                   stored=doc)
        if not paid:
            return
        received = [{"dam_id": fee["dam_id"], "number": fee["number"], "amount": amount, "paid_on": on, "alerts": []}]
        extra = {"fee_dam": {**fee, "received": received, "paid": True, "paid_on": on, "short": None}}
        if not renewal:
            _, extra["number"] = self.number(mun, fees.NUMBER_KIND, on.year)
            extra["issued_on"] = on
        kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
        self.event(mun, actor, doc, kind, on, note=f"DAM {fee['number']} pago", extra=extra, who=registry.DAM_ACTOR)
