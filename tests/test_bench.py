"""The benchmark's dataset is the same on every run and has the shapes the services write; the runner
works on a tiny dataset. No figure is asserted: speed is for bench/run.py, not for tests."""
from __future__ import annotations

import dataclasses
import random
from collections import Counter
from datetime import date, datetime, time, timedelta

import pytest
from bson import ObjectId

from bench import dataset, dataset_chains, dataset_plan, dataset_store, run, run_writes
from rules.machinery.nova_lacerda import DECREE_IN_FORCE
from seed import ridehailing as ride_seed
from services import store
from services.dam import dams, payments
from services.ridehailing import authorization_records, fees
from services.shared import clock, entities, views
from services.shared.auth import Actor
from tests.conftest import copy_store, shared_template

TINY = 0.05  # 5 % of scale 1: a handful of records per collection, and enough drivers for Chapada's autos
GENERATED = ("taxpayers", "platforms", "platform_reports", "drivers", "driver_documents", "vehicles",
             "authorizations", "inspections", "dams", "counters", "traffic_infractions", "training_courses")


def tiny_store(folder):
    db = store.connect(uri="", data_dir=str(folder))
    dataset.generate(db, 1, TINY)
    return db


def replayed(doc: dict) -> bool:
    """Written by the services in ``bench/dataset_services.py`` (their ids are the store's own)."""
    who = doc.get("created_by") or doc.get("username") or ""
    return who.startswith("carga.") or (who == "sistema.dam" and (doc.get("municipality") == "nova_lacerda"
                                                                  or doc.get("collection") == "autos"))


def contents(db) -> dict[str, list]:
    """What the bulk generator writes (the records replayed through the services get fresh ids)."""
    found = {name: sorted((d for d in db[name].find({}) if not replayed(d)), key=lambda d: str(d["_id"]))
             for name in GENERATED}
    entries = [e for e in db["audit"].find({}) if e["collection"] not in ("users", "parameters") and not replayed(e)]
    found["audit"] = sorted(entries, key=lambda d: str(d["_id"]))
    return found


@pytest.fixture
def today_is_the_datasets(monkeypatch):
    monkeypatch.setattr(clock, "today", lambda: dataset_plan.TODAY)


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """The tiny dataset, generated once per run at the dataset's fixed today (as bench/run.py generates
    it); the tests that read a generated store, or generate again over one, get a copy (``generated_copy``)."""

    def build(folder):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(clock, "today", lambda: dataset_plan.TODAY)
            tiny_store(folder).client.close()

    return shared_template(tmp_path_factory, "bench-tiny", build)


def generated_copy(template, folder):
    return store.connect(uri="", data_dir=str(copy_store(template, folder)))


def test_the_same_scale_gives_the_same_documents(tmp_path, monkeypatch, today_is_the_datasets, generated):
    """A second generation is the first one again, and (watched on it, a generation being a minute on a
    loaded machine) it rebuilds every municipality's read models."""
    rebuilt, rebuild = [], views.rebuild
    monkeypatch.setattr(views, "rebuild", lambda db, code, progress=None: rebuilt.append(code) or rebuild(db, code,
                                                                                                         progress))
    first = contents(generated_copy(generated, tmp_path / "a"))
    second = contents(tiny_store(tmp_path / "b"))
    assert all(first[name] for name in first), [name for name in first if not first[name]]
    assert first == second
    assert sorted(rebuilt) == ["chapada", "matupa", "nova_lacerda"]


def test_a_part_that_fails_stops_the_generation_with_its_traceback():
    assert dataset_store.forked([lambda: 7, lambda: {"n": 1}]) == [7, {"n": 1}]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        dataset_store.forked([lambda: 7, lambda: 1 / 0])


def per_municipality(db) -> Counter:
    return Counter((name, doc.get("municipality")) for name in db.list_collection_names()
                   for doc in db[name].find({}, {"municipality": 1}))


def test_a_dataset_already_generated_is_reused(tmp_path, today_is_the_datasets, capsys, generated):
    db = generated_copy(generated, tmp_path / "a")
    before = db["dams"].count_documents({})
    dataset.generate(db, 1, TINY)
    assert db["dams"].count_documents({}) == before
    assert "reaproveitado" in capsys.readouterr().out


def test_authorizations_cover_the_statuses_of_the_law(tmp_path, today_is_the_datasets, generated):
    db = generated_copy(generated, tmp_path / "a")
    statuses = {authorization_records.state_of(store.decode(d), d["municipality"], dataset_plan.TODAY, db).status.value
                for d in db["authorizations"].find({})}
    assert {"requested", "refused", "awaiting_inspection", "awaiting_fee", "active", "blocked", "suspended",
            "revoked", "cassada"} <= statuses


def keys(doc: dict) -> set[str]:
    return set(doc) - {"_id"}


def test_documents_have_the_shape_the_services_write(db, tmp_path, generated):
    """A request taken through the real services to a paid fee, against the generated ones."""
    dataset.prepare(db)
    actor = Actor("carga.chapada", "Carga", "secretaria", ("chapada",))
    auth_id = ride_seed._flow(db, actor, "chapada", random.Random(1), clock.today() - timedelta(days=12), "inspected")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth_id, clock.today())
    payments.record_payment(db, actor, "chapada", dam["id"], clock.today(), dam["amount"], "Banco do Brasil")
    real = {name: db[name].find_one({"municipality": "chapada"}) for name in ("drivers", "vehicles", "inspections")}
    real_auth = db["authorizations"].find_one({})
    real_dam = db["dams"].find_one({})
    real_audit = db["audit"].find_one({"collection": "authorizations", "action": "inspection_passed"})

    generated = generated_copy(generated, tmp_path / "g")
    for name, doc in real.items():
        # ``updated_by`` is what entities.update adds: the generator changes some records after creating them
        assert keys(generated[name].find_one({})) - {"updated_by"} == keys(doc), name
    active = next(d for d in generated["authorizations"].find({}) if (d.get("fee_dam") or {}).get("paid"))
    assert keys(active) - {"convocation", "refusal_reasons"} == keys(real_auth)
    assert set(active["events"][0]) == set(real_auth["events"][0])
    assert set(active["fee_dam"]) == set(real_auth["fee_dam"])
    assert set(active["fee_dam"]["received"][0]) == set(real_auth["fee_dam"]["received"][0])
    paid = generated["dams"].find_one({"status": dams.PAID})
    assert keys(paid) == keys(real_dam)
    real_charge = db["charges"].find_one({})
    charge = generated["charges"].find_one({"_id": ObjectId(paid["charge_id"])})
    assert keys(charge) == keys(real_charge) and charge["status"] == real_charge["status"] == "pago"
    assert set(charge["payments"][0]) == set(real_charge["payments"][0])
    assert set(charge["dams"][0]) == set(real_charge["dams"][0])
    assert set(paid["payment"]) == set(real_dam["payment"])
    assert set(paid["history"][-1]) == set(real_dam["history"][-1])
    entry = generated["audit"].find_one({"collection": "authorizations", "action": "inspection_passed"})
    assert keys(entry) == keys(real_audit)


def test_the_runner_prints_every_figure_on_a_tiny_dataset(tmp_path, monkeypatch, capsys, generated):
    """On a copy of the tiny dataset already generated (the runner reuses a dataset it finds; it generates
    one in ``test_a_generation_cut_short_is_made_again``)."""
    copy_store(generated, tmp_path / "scale-1")
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / "unused"))
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.delenv("MONGODB_DB", raising=False)
    results = run.main(["--scales", "1", "--pages", "drivers", "machinery_requests", "--repeat", "1",
                        "--write-runs", "2", "--batch", "2", "--return-lines", "3", "--no-startup",
                        "--no-first-write", "--fraction", str(TINY), "--data-root", str(tmp_path)])
    pages = results[1]["pages"]
    drivers = pages[("secretaria", "chapada", "app_pages/drivers.py")]
    assert drivers["warm"]["calls"] > 0 and drivers["after"]["wall"] > 0 and drivers["save"] == "event"
    # Nova Lacerda's machinery page is opened by Nova Lacerda's own clerk, after a machinery request
    requests = pages[("secretaria", "nova_lacerda", "app_pages/machinery_requests.py")]
    assert isinstance(requests, dict) and requests["save"] == "booking", requests
    assert ("secretaria", "chapada", "app_pages/machinery_requests.py") not in pages
    writes = results[1]["writes"]
    assert len(writes) == 6 and all(isinstance(v, dict) and v["p99"] >= v["p50"] > 0 for v in writes.values()), writes
    out = capsys.readouterr().out
    assert "Condutores" in out and "Metas da issue 21" in out and "carga média no início" in out
    generated = store.connect(uri="", data_dir=str(tmp_path / "scale-1"))  # the figures wrote into a copy
    assert generated["dams"].count_documents({"created_by": run_writes.WRITER.username}) == 0


def dated_after_today(db) -> list:
    """(collection, id) of every document with a datetime after the dataset's today."""
    end = datetime.combine(dataset_plan.TODAY + timedelta(days=1), time(0), clock.LOCAL_TZ)

    def moments(value):
        if isinstance(value, datetime):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from moments(item)
        elif isinstance(value, list):
            for item in value:
                yield from moments(item)

    return [(name, doc["_id"]) for name in db.list_collection_names() for doc in db[name].find({})
            if any(moment >= end for moment in moments(store.decode(doc)))]


def test_nothing_is_dated_after_the_datasets_today(tmp_path, generated):
    """Issue 21: entries dated after today froze the Resumo's cache key (and are no real history)."""
    assert dated_after_today(generated_copy(generated, tmp_path / "a")) == []


def test_nova_lacerda_and_the_autos_are_filled_through_the_services(tmp_path, generated):
    db = generated_copy(generated, tmp_path / "a")
    statuses = {d["status"] for d in db["booking_requests"].find({"municipality": "nova_lacerda"})}
    assert len(statuses) >= 4, statuses
    assert db["machinery_requesters"].count_documents({"municipality": "nova_lacerda"}) > 0
    assert db["dams"].count_documents({"municipality": "nova_lacerda", "pays.collection": "booking_requests"}) > 0


def test_a_dry_run_builds_the_documents_of_a_written_dataset(tmp_path, today_is_the_datasets, generated):
    written = generated_copy(generated, tmp_path / "a")
    built = dataset.build_only(1, TINY)
    assert built["counts"] == dataset.marker(written)["counts"]


def test_the_generator_stops_when_a_service_writes_records_it_does_not_reproduce(tmp_path, monkeypatch,
                                                                                today_is_the_datasets):
    """Records are cloned from the first one ``entities.create`` writes: a service that changes its
    documents must not leave the benchmark on the old shapes."""
    monkeypatch.setattr(entities, "encode", lambda value: {**store.encode(value), "archived": False})
    with pytest.raises(RuntimeError, match="não reproduz"):
        tiny_store(tmp_path / "a")


def check_digits_ok(document: str) -> bool:
    """CPF (11 digits) or CNPJ (14) whose last two digits are its modulus-11 check digits."""
    digits = [int(c) for c in document]
    if len(digits) == 11:
        for size in (9, 10):
            total = sum(d * w for d, w in zip(digits[:size], range(size + 1, 1, -1)))
            if (total * 10 % 11) % 10 != digits[size]:
                return False
        return True
    for size, weights in ((12, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]), (13, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])):
        remainder = sum(d * w for d, w in zip(digits[:size], weights)) % 11
        if (0 if remainder < 2 else 11 - remainder) != digits[size]:
            return False
    return len(digits) == 14


def nested_keys(doc: dict, prefix: str = "") -> set[str]:
    """Every key path of a document (list items merged), ids aside."""
    found = set()
    for key, value in doc.items():
        if key == "_id":
            continue
        path = f"{prefix}{key}"
        found.add(path)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and key not in ("prices", "worked_hours", "changes"):
                found |= nested_keys(item, path + ".")
    return found


CLONED_FROM = ("booking_requests", "autos", "dams", "charges")


@pytest.fixture(scope="session")
def cloned_template(tmp_path_factory, generated):
    """The tiny dataset with its replayed requests and autos cloned three times over, made once per run."""

    def build(folder):
        db = generated_copy(generated, folder)
        requests = db["booking_requests"].count_documents({})
        autos = {mun: db["autos"].count_documents({"municipality": mun}) for mun in ("chapada", "matupa")}
        dataset_chains.clone(db, 1, targets={"nova_lacerda": 3 * requests, "chapada": 3 * autos["chapada"],
                                             "matupa": 3 * autos["matupa"]})
        db.client.close()

    return shared_template(tmp_path_factory, "bench-cloned", build)


@pytest.fixture
def cloned(tmp_path, generated, cloned_template):
    """A copy of the tiny dataset with its replayed requests and autos cloned three times over (``cloned_template``),
    and the records of the kinds cloned that the dataset had before (``generated``)."""
    before = generated_copy(generated, tmp_path / "g")
    templates = {name: [d for d in before[name].find({})] for name in CLONED_FROM}
    return generated_copy(cloned_template, tmp_path / "c"), templates


def test_cloned_requests_and_autos_have_the_shapes_the_services_write(cloned):
    db, templates = cloned
    old = {name: {d["_id"] for d in docs} for name, docs in templates.items()}
    assert db["booking_requests"].count_documents({}) == 3 * len(templates["booking_requests"])
    assert db["autos"].count_documents({"municipality": "chapada"}) > len([a for a in templates["autos"]
                                                                          if a["municipality"] == "chapada"])
    for name in ("booking_requests", "autos", "dams", "charges"):
        def kind(doc: dict) -> tuple:
            return doc.get("status"), doc.get("stage") if name == "autos" else None, doc.get("revenue_kind")

        shapes: dict[tuple, set] = {}
        for doc in templates[name]:
            shapes.setdefault(kind(doc), set()).add(frozenset(nested_keys(doc)))
        new = [d for d in db[name].find({}) if d["_id"] not in old[name]]
        assert new, name
        for doc in new:  # each clone has the shape of a record the services wrote in its status
            assert frozenset(nested_keys(doc)) in shapes[kind(doc)], (name, kind(doc))


def test_cloned_records_point_at_each_other(cloned):
    db, _ = cloned
    by_id = {name: {str(d["_id"]): d for d in db[name].find({})}
             for name in ("charges", "dams", "machinery_bookings", "machinery_assets", "machinery_operators",
                          "machinery_requesters", "autos")}
    for request in db["booking_requests"].find({}):
        rid = str(request["_id"])
        requester = by_id["machinery_requesters"][request["requester_id"]]
        assert requester["document"] == request["requester"]["document"] and check_digits_ok(requester["document"])
        for instalment in request.get("payment", {}).get("instalments", []) if request.get("payment") else []:
            if instalment["dam_id"]:
                dam = by_id["dams"][instalment["dam_id"]]
                assert dam["pays"]["id"] == rid and dam["number"] == instalment["dam_number"]
                assert by_id["charges"][instalment["charge_id"]]["owner"]["id"] == rid
        for booking in (request.get("schedule") or {}).get("bookings", []):
            assert booking["asset_id"] in by_id["machinery_assets"]
            assert by_id["machinery_operators"][booking["operator_id"]]["name"] == booking["operator"]
    for booking in by_id["machinery_bookings"].values():
        request = db["booking_requests"].find_one({"_id": ObjectId(booking["request_id"])})
        assert booking["day"] in request["schedule"]["days"] and booking["protocol"] == request["protocol"]
    for auto in by_id["autos"].values():
        driver = db["drivers"].find_one({"municipality": auto["municipality"], "cpf": auto["driver_cpf"]})
        assert driver is not None and driver["name"] == auto["driver_name"]
        if auto.get("fine_dam"):
            dam = by_id["dams"][auto["fine_dam"]["id"]]
            assert dam["pays"]["id"] == str(auto["_id"]) and dam["number"] == auto["fine_dam"]["number"]
    for dam in by_id["dams"].values():
        assert dam["number"] == f"{dam['sequence']:04d}/{dam['year']}"
        assert by_id["charges"][dam["charge_id"]]["live_dam"] in (None, {"id": str(dam["_id"]), "number": dam["number"]})
    for operator in by_id["machinery_operators"].values():
        assert check_digits_ok(operator["cpf"])
    numbers = [(d["municipality"], d["number"]) for d in by_id["dams"].values()]
    assert len(numbers) == len(set(numbers))


def test_cloned_chains_stay_inside_the_span_of_their_law(cloned):
    db, _ = cloned
    assert dated_after_today(db) == []
    for request in db["booking_requests"].find({}):
        assert DECREE_IN_FORCE <= date.fromisoformat(request["requested_on"]) <= dataset_plan.TODAY
    for auto in db["autos"].find({"auto_on": {"$ne": None}}):
        assert dataset_plan.RIDE_FIRST_DAY[auto["municipality"]] <= date.fromisoformat(auto["auto_on"]) <= dataset_plan.TODAY


def test_the_cloned_counts_scale():
    one, ten = dataset_plan.cloned_counts(1), dataset_plan.cloned_counts(10)
    assert one == {"nova_lacerda": 600, "chapada": 200, "matupa": 100}
    assert ten == {mun: 10 * count for mun, count in one.items()}


def test_a_generation_cut_short_is_made_again_and_side_by_side_gives_the_same_documents(tmp_path,
                                                                                       today_is_the_datasets,
                                                                                       capsys, generated):
    """A generation stopped before any driver was written left DAMs and no marker: the next run took the
    store as empty and failed on the DAMs' unique numbers (E11000 on 0001/2026).

    The dataset made again is written as bench/run.py writes it, the municipalities in two processes at
    once (each draws from its own seed): the same documents as one after the other (``generated``). One
    generation checks both (a generation is a minute on a loaded machine)."""
    folder = tmp_path / "scale-1"
    left = store.connect(uri="", data_dir=str(folder))
    left["dams"].insert_one({"municipality": "chapada", "number": "0001/2026", "year": 2026, "sequence": 1})
    store.close_all()
    with pytest.raises(SystemExit, match="já tem outros dados"):  # a folder the generator did not make: refused
        dataset.generate(store.connect(uri="", data_dir=str(folder)), 1, TINY)
    store.close_all()

    db, found = run.open_dataset(1, tmp_path, TINY)  # the benchmark's own folder: made again

    assert "incompleto (uma geração interrompida): refazendo" in capsys.readouterr().out
    assert found["scale"] == 1 and found["counts"]["dams"] > 0
    assert db["dams"].find_one({"taxpayer_name": {"$exists": False}}) is None  # the one left was dropped

    side_by_side, one_by_one = db, generated_copy(generated, tmp_path / "a")
    assert contents(side_by_side) == contents(one_by_one)
    assert {d["municipality"] for d in side_by_side["dams"].find({})} == {"chapada", "matupa", "nova_lacerda"}
    # the clones, the views and the counters too (the replayed records' ids are the store's own: counted)
    assert per_municipality(side_by_side) == per_municipality(one_by_one)
    assert sorted(side_by_side["counters"].find({}), key=str) == sorted(one_by_one["counters"].find({}), key=str)


def test_a_view_that_keeps_something_new_makes_a_new_dataset(monkeypatch):
    """A dataset made before a view changed would be rebuilt by the panel's first start, inside the figures."""
    before = dataset.generator_version()
    view = views.all_views()[0]
    monkeypatch.setitem(views._VIEWS, view.name, dataclasses.replace(view, version=view.version + 1))
    assert dataset.generator_version() != before


def test_the_portal_benchmark_prints_every_figure_on_a_tiny_dataset(tmp_path, capsys):
    """``bench/portal.py`` at two tiny scales (a small signed PDF instead of 5 MB) and the phone's first visit
    throttled to Slow 4G, one visit a page; no figure is asserted."""
    from bench import portal as portal_bench

    results = portal_bench.main(["--scales", "1,2", "--repeat", "2", "--upload-repeat", "1", "--others", "3",
                                 "--file-bytes", "60000", "--phone-runs", "1", "--data-root", str(tmp_path)])
    for scale in (1, 2):
        assert set(results[scale]["figures"]) == {"inbox", "notice", "pdf", "upload"}
        assert all(f["p50"] > 0 for f in results[scale]["figures"].values())
    assert results[2]["counts"]["own"] == 2 and results[2]["counts"]["messages"] == 2 * results[1]["counts"]["messages"]
    phone = results["phone"]
    assert len(phone) == 4 and all(p["bytes"] > 0 and p["load_s"] > 0 for p in phone.values())
    out = capsys.readouterr().out
    assert "razão p50 / p95" in out and "Slow 4G" in out and "metas" in out


def test_the_peak_benchmark_runs_every_step_without_error_on_a_tiny_dataset(tmp_path, capsys, monkeypatch,
                                                                           generated):
    """``bench/peak.py`` on the tiny dataset with a few sessions a side, no pause: every step of the portal
    (a driver and a platform's person, over HTTP on ``python -m portal``) and of the clerks (AppTest) is
    taken with no error and the verdict printed; no figure is asserted."""
    from bench import peak

    monkeypatch.delenv("PAINEL_DATA_DIR", raising=False)  # restored after the working copy sets it
    copy_store(generated, tmp_path / "scale-1")
    results = peak.main(["--scale", "1", "--fraction", str(TINY), "--portal-sessions", "6", "--staff-sessions", "2",
                         "--rounds", "1", "--think", "0", "--ramp", "0", "--file-bytes", "60000",
                         "--data-root", str(tmp_path)])
    for side in ("portal", "staff"):
        assert not any(results[side]["errors"].values()), results[side]["errors"]
    assert all(results["portal"]["times"][step] for step in results["portal"]["times"])
    assert all(len(results["staff"]["times"][step]) >= 2 for step in ("inicio", "renovar", "dam"))
    out = capsys.readouterr().out
    assert "127.0.0.N" in out and ("PASS" in out or "FAIL" in out)
