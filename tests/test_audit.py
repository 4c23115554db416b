"""Every write service leaves exactly one audit entry with the right before/after."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from services.shared import accounts, custom_fields, entities, parameters
from tests.conftest import SECRETARIA_CG, TI

TAXPAYER = {"name": "João Teste", "document": "52998224725", "kind": "pf", "address": "Rua B, 2"}


def entries(db, **query):
    return list(db["audit"].find(query))


def only_new_entry(db, before_count):
    rows = list(db["audit"].find({}).sort("at", 1))
    assert len(rows) == before_count + 1, "exactly one audit entry per write"
    return rows[-1]


def test_create_records_who_where_what_and_the_new_values(db):
    count = db["audit"].count_documents({})
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entry = only_new_entry(db, count)
    assert (entry["username"], entry["municipality"], entry["action"], entry["collection"], entry["doc_id"]) == (
        "sec.cg", "chapada", "create", "taxpayers", doc_id)
    assert entry["changes"]["name"] == {"before": None, "after": "João Teste"}
    assert entry["at"] is not None


def test_update_records_only_changed_fields_with_before_and_after(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    count = db["audit"].count_documents({})
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "João Alterado", "address": "Rua B, 2"},
            expected_version=entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["version"])
    entry = only_new_entry(db, count)
    assert entry["changes"] == {"name": {"before": "João Teste", "after": "João Alterado"}}


def test_update_without_change_writes_nothing(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    count = db["audit"].count_documents({})
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "João Teste"},
            expected_version=entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["version"])
    assert db["audit"].count_documents({}) == count


@pytest.mark.parametrize("write,collection,field,after", [
    (lambda db: parameters.add_version(db, TI, "chapada", "upfm_value", date(2031, 1, 1), Decimal("150.00"),
                                       "Decreto 1/2031"), "parameters", "value", Decimal("150.00")),
    (lambda db: accounts.create_user(db, TI, "novo.user", "Novo", "secretaria", ["chapada"], "1234567890"),
     "users", "username", "novo.user"),
    (lambda db: custom_fields.add_custom_field(db, TI, "taxpayers", "chapada", "Apelido", "text"),
     "custom_fields", "label", "Apelido"),
], ids=["parameter version", "user", "custom field"])
def test_admin_writes_are_audited_once(db, write, collection, field, after):
    count = db["audit"].count_documents({})
    write(db)
    entry = only_new_entry(db, count)
    assert entry["collection"] == collection
    value = entry["changes"][field]["after"]
    assert (value.to_decimal() if hasattr(value, "to_decimal") else value) == after


def test_user_change_is_audited_without_the_password(db):
    accounts.create_user(db, TI, "ana", "Ana", "secretaria", ["chapada"], "1234567890")
    count = db["audit"].count_documents({})
    accounts.update_user(db, TI, "ana", password="outra-senha-1", role="gabinete")
    entry = only_new_entry(db, count)
    assert entry["changes"]["role"] == {"before": "secretaria", "after": "gabinete"}
    assert "outra-senha-1" not in str(entry) and "password_hash" not in entry["changes"]


def test_the_audit_log_offers_no_update_or_delete():
    import services.shared.audit as audit_module

    names = [n for n in dir(audit_module) if not n.startswith("_")]
    assert not [n for n in names if n.startswith(("update", "delete", "remove", "edit"))]


def test_the_action_filter_lists_every_recorded_action_without_scanning_the_log(db, monkeypatch):
    from services.shared import audit, audit_log

    audit.record(db, TI, "chapada", "export_test", "taxpayers", None, {}, {})
    collection_class = type(db["audit"])

    def no_scan(self, *args, **kwargs):
        raise AssertionError(f"distinct over {self.name}")

    monkeypatch.setattr(collection_class, "distinct", no_scan)
    listed = audit_log.actions(db, TI)
    assert "export_test" in listed and "seed" in listed
    assert listed == sorted(listed)


def test_an_older_log_fills_the_action_filter_once_at_start(db):
    from services.setup import bootstrap
    from services.shared import audit_log
    from services.store import insert_one

    insert_one(db["audit"], {"action": "legacy_action", "municipality": "chapada", "collection": "x"})
    db["meta"].delete_many({"_id": "audit_actions_backfilled"})
    bootstrap.prepare(db)
    assert "legacy_action" in audit_log.actions(db, TI)


def test_search_filters_sorts_newest_first_and_pages_in_the_store(db):
    from services.shared import audit, audit_log

    for number in range(5):
        audit.record(db, SECRETARIA_CG, "chapada", "pagetest", "dams", f"d{number}", {}, {"n": number})
    rows, total = audit_log.search(db, TI, "chapada", action="pagetest", limit=2, skip=1)
    assert total == 5
    assert [r["doc_id"] for r in rows] == ["d3", "d2"]
    rows, total = audit_log.search(db, TI, "chapada", username="sec.cg", collection="dams", limit=10)
    assert total == 5 and [r["doc_id"] for r in rows][0] == "d4"
    names = {options["name"] for _, options in audit.INDEXES["audit"]}
    assert {"i_mun_at", "i_mun_action_at", "i_mun_user_at", "i_mun_collection_at"} <= names
