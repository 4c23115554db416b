"""Start-up: indexes, municipalities and default parameters, all idempotent (no demo value: seed/ adds those)."""
from __future__ import annotations

from pymongo.database import Database

from rules.params import ParameterVersion
from services import store

# Importing a domain module registers its DAM-paid handlers (services.shared.events), and importing
# services.shared.specs registers the entity specs: each handler must be known before the pending ones
# are resumed (a paid DAM whose collection has none stays pending).
from services.dam import charge_migration, outbox
from services.machinery import booking_requests, payment, trips  # noqa: F401  (payment: the bookings' handler)
from services.ridehailing import (  # noqa: F401  (renewal_reminders: its messages' code)
    authorization_records,
    fees,
    issqn,
    platform_lists,
    renewal_reminders,
    trip_data,
)
from services.ridehailing.enforcement import autos, opening, penalties  # noqa: F401  (the fine's, the opening's handlers)
from services.ridehailing.enforcement import editais
from services.setup.defaults import MUNICIPALITIES, initial_parameters
from services.shared import accounts, audit, authenticity, clock, config, domicile, entities, regulated_accounts, saved_views, specs, trust_anchors, views  # noqa: F401
from services.shared.auth import SYSTEM
from services.shared.errors import ServiceError
from services.store import DuplicateKeyError, encode, ensure_indexes, exists, insert_one


class StoreWithoutTransactions(ServiceError):
    """A MongoDB server that cannot commit a write, its audit entry and its number together."""


def require_transactions(db: Database) -> None:
    """Refuse a standalone MongoDB server: a crash there could leave a record without its audit entry
    or a skipped number, which a tax authority cannot explain. The embedded store and every replica
    set (Atlas always is one) commit each unit of work whole (docs/DESENVOLVIMENTO.md)."""
    if store.is_standalone_server(db) and not config.allow_standalone_mongodb():
        raise StoreWithoutTransactions(
            "O MongoDB configurado (MONGODB_URI) é um servidor isolado, sem transações: uma queda no meio "
            "de uma gravação poderia deixar um registro sem auditoria ou um número pulado. Use um replica "
            "set (o Atlas sempre é; um servidor único vira replica set com `mongod --replSet rs0` e "
            "`rs.initiate()`) ou defina PAINEL_ALLOW_STANDALONE_MONGODB=1 para um teste.")


def prepare(db: Database) -> None:
    """Create indexes, municipalities and missing parameter versions. Safe to run at every start."""
    store.check_store(db)  # a lost store file is refused, never re-created empty
    require_transactions(db)

    ensure_indexes(db, entities.all_indexes())
    audit.prepare(db)  # search indexes; audit_actions filled once from an older log
    accounts.normalise_stored_usernames(db)  # users stored before the username rule (NFKC, no case)
    for municipality in MUNICIPALITIES:
        db["municipalities"].update_one({"code": municipality["code"]}, {"$set": municipality}, upsert=True)
        for version in initial_parameters(municipality["code"]):
            ensure_parameter(db, municipality["code"], version)
    authorization_records.prepare(db)  # open-authorization keys and their unique indexes
    autos.prepare(db)  # indexes of the autos de infração
    editais.prepare(db)  # editais de notificação: listed by status, numbered per year
    authenticity.prepare(db)  # the codes of the issued documents (unique index)
    domicile.prepare(db)  # the electronic domicile: one per addressee, the inbox read a page at a time
    trust_anchors.prepare(db)  # the roots TI uploads for the signed files of the portal
    platform_lists.prepare(db)  # lists and drafts of the platforms
    trip_data.prepare(db)  # data requests, trip imports and trips
    issqn.prepare(db)  # ISSQN of each vehicle and month
    booking_requests.prepare(db)  # requests and bookings (Nova Lacerda): lists by status read only their page
    saved_views.prepare(db)  # one name per view of a person (or of the secretariat) in a register
    regulated_accounts.prepare(db)  # one account per driver or platform person and municipality
    charge_migration.migrate(db)  # DAMs written before the charges get theirs (refuses if the amounts differ)
    outbox.resume_pending(db)  # paid DAMs whose handlers did not complete (crash, failure) run them again
    views.prepare(db, [m["code"] for m in MUNICIPALITIES])  # read models of a store made before them


def ensure_parameter(db: Database, municipality: str, version: ParameterVersion) -> None:
    """Add the version unless one of that name and date exists (history is never overwritten)."""
    key = {"municipality": municipality, "name": version.name, "effective": version.effective.isoformat()}
    if exists(db["parameters"], key):
        return
    doc = {**key, "value": version.value, "act": version.act, "note": version.note,
           "created_by": SYSTEM.username, "created_at": clock.now_utc()}
    inserted = insert_one(db["parameters"], encode(doc))
    audit.record(db, SYSTEM, municipality, "seed", "parameters", inserted, {}, doc)


def store_kind(db: Database) -> str | None:
    """'demo' or 'real' once decided; None on an empty store."""
    meta = db["meta"].find_one({"_id": "store"})
    return meta["kind"] if meta else None


def mark_store(db: Database, kind: str) -> None:
    """Decide the store's kind once; later calls leave it as it is."""
    if db["meta"].find_one({"_id": "store"}) is None:
        try:
            insert_one(db["meta"], {"_id": "store", "kind": kind})
        except DuplicateKeyError:
            pass
