"""The two kinds of chain cloned at scale (``bench/dataset_clones.py``): Nova Lacerda's machinery
requests (on the replay's fleet, or a clone of it when every crew is booked that day, and a requester
cloned about once every :data:`~bench.dataset_clones.REQUESTS_PER_REQUESTER` requests) and the autos
of one driver, moved to a driver of the same municipality without autos."""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import date, timedelta

from pymongo.database import Database

from bench.dataset_clones import NL, PLATE_LETTERS, REQUESTS_PER_REQUESTER, Cloner, Rewrite, span
from bench.dataset_plan import RIDE_FIRST_DAY, SEED, cloned_counts
from rules.machinery.nova_lacerda import DECREE_IN_FORCE
from seed import people as people_seed

TRIES = 12  # shifts tried on the fleets there are before a new one


class Fleet:
    """The replay's machines and operators, or a clone of them: the strings and ids a chain maps."""

    def __init__(self) -> None:
        self.exact: dict[str, str] = {}
        self.names: list[tuple[str, str]] = []
        self.ids: dict = {}
        self.since = date.min  # a requester's clone: the day it was registered

    def onto(self, rewrite: Rewrite) -> None:
        rewrite.exact.update(self.exact)
        rewrite.names += self.names
        rewrite.ids.update(self.ids)


class Chains(Cloner):
    def machinery(self, target: int) -> None:
        db = self.db
        requests = sorted(db["booking_requests"].find({"municipality": NL}), key=lambda d: (d["year"], d["sequence"]))
        if not requests or len(requests) >= target:
            return
        self.assets = sorted(db["machinery_assets"].find({"municipality": NL}), key=lambda d: d["identifier"])
        self.operators = sorted(db["machinery_operators"].find({"municipality": NL}), key=lambda d: d["cpf"])
        self.requesters = {str(r["_id"]): r for r in db["machinery_requesters"].find({"municipality": NL})}
        self.documents |= {r["document"] for r in self.requesters.values()} | {o["cpf"] for o in self.operators}
        self.plates = {a["identifier"] for a in self.assets}
        self.fleets = [Fleet()]
        self.taken: list[set[tuple]] = [set()]  # per fleet
        self.pool: dict[str, list[Fleet]] = defaultdict(list)
        chains = [self.chain_docs("booking_requests", r) for r in requests]
        for docs in chains:
            self.free_fleet(docs, timedelta(0))
        for n in range(target - len(requests)):
            docs = chains[n % len(chains)]
            for _ in range(TRIES):  # another week before another fleet
                rewrite = Rewrite(self.shift([d for _, d in docs], DECREE_IN_FORCE))
                fleet = self.free_fleet(docs, rewrite.shift, grow=False)
                if fleet is not None:
                    break
            else:
                fleet = self.free_fleet(docs, rewrite.shift)
            self.fleets[fleet].onto(rewrite)
            self.requester(docs[0][1]["requester_id"], rewrite).onto(rewrite)
            self.write_chain(NL, docs, rewrite)
        self.flush()

    def free_fleet(self, docs: list[tuple[str, dict]], shift: timedelta, grow: bool = True) -> int | None:
        """The first fleet whose machines and operators are free on the chain's (shifted) days (a new
        one when none is and ``grow``), its days then taken. Each fleet keeps its own taken days, so a
        booked fleet is passed at its first clash (``isdisjoint`` stops there): the search no longer
        rebuilds the chain's days for every fleet, which made the clones' time grow with the square of
        the scale."""
        keys = set()
        for name, b in docs:
            if name == "machinery_bookings":
                moved = (date.fromisoformat(b["day"]) + shift).isoformat()
                keys |= {("asset", b["asset_id"], moved), ("operator", b["operator_id"], moved)}
        for f, taken in enumerate(self.taken):
            if keys.isdisjoint(taken):
                taken |= keys
                return f
        if not grow:
            return None
        f = len(self.fleets)
        self.fleets.append(self.new_fleet(f))
        self.taken.append(set(keys))
        return f

    def plate(self) -> str:
        rng = self.rng
        while True:
            plate = (f"Q{rng.choice(PLATE_LETTERS)}{rng.choice(PLATE_LETTERS)}{rng.randint(0, 9)}"
                     f"{rng.choice(PLATE_LETTERS)}{rng.randint(10, 99)}")
            if plate not in self.plates:
                self.plates.add(plate)
                return plate

    def new_fleet(self, f: int) -> Fleet:
        """A clone of the replay's machines (new identifiers) and operators (new people)."""
        fleet = Fleet()
        rewrite = Rewrite(timedelta(0))
        for asset in self.assets:
            old = asset["identifier"]
            new = f"PAT-{f + 1:02d}{old[-2:]}" if old.startswith("PAT-") else self.plate()
            if new in self.plates:  # a store cloned before
                new = self.plate()
            self.plates.add(new)
            rewrite.new_id(asset["_id"], self.new_id())
            fleet.exact[old] = new
        for operator in self.operators:
            rewrite.new_id(operator["_id"], self.new_id())
            name = people_seed.person(self.rng)
            fleet.exact[operator["cpf"]] = self.person_document(operator["cpf"])
            fleet.exact[operator["name"]] = name
            fleet.names.append((operator["name"], name))
        fleet.exact.update(rewrite.exact)
        fleet.ids.update(rewrite.ids)
        fleet.onto(rewrite)
        for name, docs in (("machinery_assets", self.assets), ("machinery_operators", self.operators)):
            for doc in docs:
                new = rewrite(doc)
                if name == "machinery_operators" and str(new.get("registration", "")).isdigit():
                    new["registration"] = str(int(new["registration"]) + 100 * f)
                self.add(name, new)
                for entry in self.audit.get(str(doc["_id"]), ()):
                    self.add("audit", {**rewrite(entry), "_id": self.new_id()})
        return fleet

    def requester(self, template_id: str, rewrite: Rewrite) -> Fleet:
        """A clone of the chain's requester, new about once every REQUESTS_PER_REQUESTER requests."""
        first_day = self.span[0] + rewrite.shift
        pool = [known for known in self.pool[template_id] if known.since <= first_day]  # registered by then
        if pool and self.rng.random() >= 1 / REQUESTS_PER_REQUESTER:
            return self.rng.choice(pool)
        template = self.requesters[template_id]
        registered = span([template])[0]  # registered in the week before the chain's first day
        own = Rewrite(timedelta(weeks=(first_day - registered).days // 7))
        own.new_id(template["_id"], self.new_id())
        if template["kind"] == "pf":
            name = people_seed.person(self.rng)
        else:
            name = f"{self.rng.choice(people_seed.LAST)} {self.rng.choice(('Agropecuária', 'Comércio', 'Serviços'))} Ltda"
        own.exact[template["document"]] = self.person_document(template["document"])
        if template.get("phone"):
            own.exact[template["phone"]] = people_seed.phone(self.rng, NL)
        own.exact[template["name"]] = name
        own.names.append((template["name"], name))
        self.add("machinery_requesters", own(template))
        for entry in self.audit.get(template_id, ()):
            self.add("audit", {**own(entry), "_id": self.new_id()})
        clone = Fleet()
        clone.exact, clone.names, clone.ids = own.exact, own.names, own.ids
        clone.since = registered + own.shift
        self.pool[template_id].append(clone)
        return clone

    def autos(self, mun: str, target: int) -> None:
        db = self.db
        autos = sorted(db["autos"].find({"municipality": mun}), key=lambda d: (d.get("number") or "", str(d["created_at"])))
        groups: dict[str, list[dict]] = defaultdict(list)
        for auto in autos:
            groups[auto["driver_cpf"]].append(auto)
        templates = [g for _, g in sorted(groups.items()) if not any(a.get("sanctions_applied") for a in g)]
        drivers = {d["cpf"]: d for d in db["drivers"].find({"municipality": mun})}
        free = sorted(cpf for cpf in drivers if cpf not in groups)
        self.rng.shuffle(free)
        total, n = len(autos), 0
        while total < target and free and templates:
            group = templates[n % len(templates)]
            n += 1
            docs = [pair for auto in group for pair in self.chain_docs("autos", auto)]
            rewrite = Rewrite(self.shift([d for _, d in docs], RIDE_FIRST_DAY[mun]))
            old, new = drivers[group[0]["driver_cpf"]], drivers[free.pop()]
            rewrite.exact[old["cpf"]] = new["cpf"]
            for field in ("name", "address"):
                if old.get(field) and new.get(field):
                    rewrite.names.append((old[field], new[field]))
            self.write_chain(mun, docs, rewrite)
            total += len(group)
        self.flush()


def clone(db: Database, scale: int, fraction: float = 1.0, municipalities: tuple[str, ...] = (NL, "chapada", "matupa"),
          targets: dict[str, int] | None = None) -> Counter[str]:
    """Clone the replayed chains of ``municipalities`` up to the plan's counts (or ``targets``); the
    documents written per collection. Each municipality draws from its own seed, so two processes can
    clone different municipalities side by side (``bench/dataset.py``) and write what one would."""
    targets = targets or cloned_counts(scale, fraction)
    chains = Chains(db, random.Random())
    for mun in municipalities:
        chains.rng.seed(f"{SEED * 7 + scale}:{mun}")
        if mun == NL:
            chains.machinery(targets[NL])
        else:
            chains.autos(mun, targets[mun])
    return chains.finish()
