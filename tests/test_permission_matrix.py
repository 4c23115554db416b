"""Permission matrix: every public service that takes an actor × every role × (own, other municipality).

One table (``REQUIRED`` below) says which permission each public service needs; the test finds every
public function of ``services`` whose signature takes an ``actor`` and fails if one is missing from
the table, so a new service cannot skip the matrix. Each is called with an actor of each role who
works only in Chapada, once on Chapada and once on Matupá. Expected: ``PermissionDenied`` exactly when
the role lacks the permission or the municipality is not the actor's, and nothing stored changes
when refused. Arguments other than the municipality are placeholders: a service must authorize
before it looks anything up, so a refusal never depends on whether a record exists.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil
from datetime import date
from decimal import Decimal

import pytest
from bson import json_util

import services
from services.auth import PERMISSIONS, Actor
from services.errors import NotFound, PermissionDenied
from tests import figures

OWN, OTHER = "chapada", "matupa"
ACTORS = {role: Actor(f"{role}.cg", f"Perfil {role}", role, (OWN,)) for role in PERMISSIONS}

# The one table: public service → permission it needs. "admin" services of users act on users of a
# municipality (the target user's municipalities play the municipality's part).
REQUIRED: dict[str, str] = {
    "services.audit.actions": "admin",
    "services.audit.export_csv": "admin",
    "services.audit.export_xlsx": "admin",
    "services.audit.search": "admin",
    "services.auth.create_user": "admin",
    "services.auth.list_users": "admin",
    "services.auth.update_user": "admin",
    "services.booking_documents.quote_pdf": "read",
    "services.booking_documents.receipt_pdf": "read",
    "services.booking_documents.service_order_pdf": "read",
    "services.booking_documents.statement_pdf": "read",
    "services.booking_documents.week_board_pdf": "read",
    "services.bank_import.import_return_file": "write",
    "services.bank_import.imported_files": "read",
    "services.bank_import.raw_file": "read",
    "services.bookings.add_attachment": "write",
    "services.bookings.attachment": "read",
    "services.bookings.book": "write",
    "services.bookings.cancel_booking": "write",
    "services.bookings.check": "read",
    "services.bookings.complete": "write",
    "services.bookings.create_request": "write",
    "services.bookings.get_request": "read",
    "services.bookings.issue_payment": "write",
    "services.bookings.list_requests": "read",
    "services.bookings.make_quote": "write",
    "services.bookings.mark_urgent": "write",
    "services.bookings.pending": "read",
    "services.bookings.record_credit_returned": "write",
    "services.bookings.record_incident": "write",
    "services.bookings.record_social_report": "write",
    "services.bookings.record_technical_visit": "write",
    "services.bookings.record_trip": "write",
    "services.bookings.refuse_request": "write",
    "services.bookings.request_social_report": "write",
    "services.bookings.requester_block": "read",
    "services.bookings.schedule_board": "read",
    "services.bookings.set_localities": "admin",
    "services.bookings.start_execution": "write",
    "services.bookings.week_schedule": "read",
    "services.dams.cancel": "write",
    "services.dams.export_csv": "read",
    "services.dams.export_xlsx": "read",
    "services.dams.get": "read",
    "services.dams.issue": "write",
    "services.dams.list_all": "read",
    "services.dams.list_page": "read",
    "services.dams.ids_to_print": "read",
    "services.dams.pdf": "read",
    "services.dams.pdf_batch": "read",
    "services.dams.retry_linked_update": "write",
    "services.dams.record_payment": "write",
    "services.dams.reissue": "write",
    "services.dams.quote_reissue": "read",
    "services.deployment.missing_values": "admin",
    "services.deployment.identity": "admin",
    "services.deployment.coat_of_arms": "admin",
    "services.deployment.set_identity": "admin",
    "services.deployment.set_coat_of_arms": "admin",

    "services.enforcement.assess": "read",
    "services.enforcement.apply_sanction": "write",
    "services.enforcement.decide": "write",
    "services.enforcement.decide_appeal": "write",
    "services.enforcement.draft_auto": "write",
    "services.enforcement.export_csv": "read",
    "services.enforcement.export_xlsx": "read",
    "services.enforcement.file_appeal": "write",
    "services.enforcement.file_defence": "write",
    "services.enforcement.get": "read",
    "services.enforcement.history": "read",
    "services.enforcement.issue_fine_dam": "write",
    "services.enforcement.lavrar": "write",
    "services.enforcement.list_autos": "read",
    "services.enforcement.notify": "write",
    "services.enforcement.pending": "read",
    "services.enforcement.process_status": "read",
    "services.enforcement.record_measure": "write",
    "services.enforcement_documents.auto_pdf": "read",
    "services.enforcement_documents.case_file_pdf": "read",
    "services.enforcement_documents.notification_pdf": "read",
    "services.entities.add_custom_field": "admin",
    "services.entities.browse": "admin",
    "services.entities.create": "write",
    "services.entities.export_csv": "read",
    "services.entities.export_xlsx": "read",
    "services.entities.get": "read",
    "services.entities.import_csv": "write",
    "services.entities.list_all": "read",
    "services.entities.list_page": "read",
    "services.entities.lookup": "read",
    "services.entities.update": "write",
    "services.parameters.add_version": "admin",
    "services.platform_obligations.answer_data_request": "write",
    "services.platform_obligations.assess_issqn": "write",
    "services.platform_obligations.data_requests": "read",
    "services.platform_obligations.draft_autos": "write",
    "services.platform_obligations.drafts": "read",
    "services.platform_obligations.import_trips": "write",
    "services.platform_obligations.issqn_months": "read",
    "services.platform_obligations.issue_issqn_dam": "write",
    "services.platform_obligations.list_file": "read",
    "services.platform_obligations.list_statuses": "read",
    "services.platform_obligations.pending": "read",
    "services.platform_obligations.receive_list": "write",
    "services.platform_obligations.received_lists": "read",
    "services.platform_obligations.request_data": "write",
    "services.localities.export_csv": "read",
    "services.localities.export_xlsx": "read",
    "services.localities.in_force": "read",
    "services.localities.save": "admin",
    "services.price_tables.export_csv": "read",
    "services.price_tables.export_xlsx": "read",
    "services.price_tables.in_force": "read",
    "services.price_tables.preview_update": "admin",
    "services.price_tables.save_update": "admin",
    "services.price_tables.versions": "read",
    "services.ridehailing.approve": "write",
    "services.ridehailing.call_inspection": "write",
    "services.ridehailing.driver_eligibility": "read",
    "services.ridehailing.evaluate": "read",
    "services.ridehailing.get_authorization": "read",
    "services.ridehailing.issue_fee_dam": "write",
    "services.ridehailing.record_history": "read",
    "services.ridehailing.record_inspection": "write",
    "services.ridehailing.record_sanction": "write",
    "services.ridehailing.refuse": "write",
    "services.ridehailing.request_authorization": "write",
    "services.ridehailing.request_renewal": "write",
    "services.ridehailing.status": "read",
    "services.ridehailing.substitute_vehicle": "write",
    "services.ridehailing.authorization_page": "read",
    "services.ridehailing.authorization_rows": "read",
    "services.ridehailing.data_version": "read",
    "services.ridehailing.record_earlier_payment": "write",
    "services.ridehailing.vehicle_eligibility": "read",
    "services.ridehailing.apply_penalty": "write",
    "services.ridehailing.authorization_of": "read",
    "services.ridehailing_changes.close_change": "write",
    "services.ridehailing_changes.history": "read",
    "services.ridehailing_changes.open_irregular": "read",
    "services.ridehailing_changes.record_change": "write",
    "services.ridehailing_changes.report_change": "write",
    "services.ridehailing_documents.certificate_pdf": "read",
    "services.ridehailing_documents.convocation_notice_pdf": "read",
    "services.ridehailing_documents.inspection_report_pdf": "read",
    "services.ridehailing_documents.sticker_pdf": "read",
    "services.ridehailing_platforms.add_report": "write",
    "services.ridehailing_platforms.compliance": "read",
    "services.ridehailing_platforms.platform_concept": "read",
    "services.ridehailing_platforms.platform_reports": "read",
    "services.ridehailing_queue.pendencias": "read",
    "services.summary.data_version": "summary",
    "services.entities.remove": "write",
    "services.entities.custom_field_rows": "admin",
    "services.entities.edit_custom_field": "admin",
    "services.entities.referenced": "read",
    "services.ridehailing.cancel_request": "write",
    "services.ridehailing.inspection_computed": "read",
    "services.ridehailing.open_authorization": "read",
    "services.ridehailing.export_authorizations": "read",
    "services.summary.report_pdf": "summary",
    "services.summary.summary": "summary",
}
# Functions that take an actor but act on no municipality's data (the permission check itself,
# the actor's own list of municipalities, the query that limits to the actor's scope), and the audit
# log's append, which records what an authorized service did and is reached from no page; the end of
# the actor's own session.
NOT_SERVICES = {"services.auth.authorize", "services.municipalities.of_actor", "services.entities.scope_of",
                "services.auth.users_scope", "services.audit.record", "services.auth.logout"}


def public_services() -> dict[str, object]:
    found = {}
    for info in pkgutil.walk_packages(services.__path__, "services."):
        module = importlib.import_module(info.name)
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or fn.__module__ != info.name:
                continue
            if "actor" in inspect.signature(fn).parameters:
                found[f"{info.name}.{name}"] = fn
    return {k: v for k, v in found.items() if k not in NOT_SERVICES}


def placeholder(param: inspect.Parameter, municipality: str):
    """A value of the parameter's kind that points at nothing in particular."""
    name, kind = param.name, str(param.annotation)
    if name == "municipality":
        return municipality
    if name == "municipalities":
        return [municipality]
    if name in ("username",):
        return f"alguem.{municipality}"
    if name == "role":
        return "secretaria"
    if "date" in kind:
        return date(2026, 3, 2)
    if "Decimal" in kind:
        return Decimal("10.00")
    if "bytes" in kind:
        return b"x"
    if "dict" in kind and name in ("dam",):
        return {"id": "0" * 24, "municipality": municipality, "status": "issued", "number": "0001/2026"}
    if "dict" in kind:
        return {}
    if "list" in kind:
        return []
    if "bool" in kind:
        return False
    if "int" in kind:
        return 1
    if "Query" in kind:
        module = importlib.import_module(param.annotation.__module__) if not isinstance(param.annotation, str) else None
        return module and param.annotation()
    if "EventKind" in kind:
        from rules.ridehailing.concepts import EventKind

        return next(iter(EventKind))
    if name in ("collection", "entity"):
        return "drivers"
    if name in ("password",):
        return "senha-de-teste-1"
    return "0" * 24


def call_args(fn, db, actor, municipality):
    hints = inspect.get_annotations(fn, eval_str=True)
    args, kwargs = [], {}
    for param in inspect.signature(fn).parameters.values():
        if param.name in hints:
            param = param.replace(annotation=hints[param.name])
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if param.name == "db":
            value = db
        elif param.name == "actor":
            value = actor
        elif param.default is not inspect.Parameter.empty and param.name != "municipality":
            continue
        else:
            value = placeholder(param, municipality)
        if param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[param.name] = value
        else:
            args.append(value)
    return args, kwargs


def scoped(fn) -> bool:
    """Whether the call names the municipality it acts in (directly, as the target user's, or the DAM's)."""
    return bool({"municipality", "municipalities", "username", "dam"} & set(inspect.signature(fn).parameters))


def digest(db) -> str:
    h = hashlib.sha256()
    for name in sorted(db.list_collection_names()):
        for doc in db[name].find({}).sort("_id", 1):
            h.update(json_util.dumps(doc, sort_keys=True).encode())
    return h.hexdigest()


def test_every_public_service_is_in_the_table():
    found = set(public_services())
    assert found - set(REQUIRED) == set(), "services missing from the permission table"
    assert set(REQUIRED) - found == set(), "table lists services that no longer exist"


def test_permission_matrix(db):
    from services import auth

    for municipality in (OWN, OTHER):  # the targets of the user-administration services
        auth.create_user(db, auth.SYSTEM, f"alguem.{municipality}", "Usuária de teste", "secretaria",
                         [municipality], "senha-de-teste-1")
    checked, leaks = 0, []
    for qualified, fn in sorted(public_services().items()):
        needed = REQUIRED[qualified]
        for role, actor in ACTORS.items():
            for municipality in (OWN, OTHER) if scoped(fn) else (OWN,):
                allowed = actor.can(needed) and municipality == OWN
                before = None if allowed else digest(db)
                args, kwargs = call_args(fn, db, actor, municipality)
                try:
                    fn(*args, **kwargs)
                    refused = False
                except PermissionDenied:
                    refused = True
                except NotFound:  # a user outside the admin's scope is answered as unknown (the target exists)
                    refused = "username" in inspect.signature(fn).parameters and municipality == OTHER
                except Exception:  # noqa: BLE001 — any other refusal (not found, invalid) is not a permission answer
                    refused = False
                checked += 1
                if refused == allowed:
                    leaks.append(f"{qualified} as {role} on {municipality}: {'refused' if refused else 'allowed'}")
                elif not allowed and digest(db) != before:
                    leaks.append(f"{qualified} as {role} on {municipality}: refused but changed the store")
    figures.report(f"permissões: {checked} chamadas de serviço × perfil × município verificadas, "
                   f"{len(leaks)} vazamentos")
    assert leaks == [], "\n".join(leaks)


def test_no_page_opens_on_a_municipality_that_is_not_the_actors(db):
    """A page opened with another municipality chosen (a forged session) stops before any data."""
    from streamlit.testing.v1 import AppTest

    from tests.test_pages_smoke import ROOT
    from ui.navigation import PAGES

    leaks = []
    for page in PAGES:
        for role, actor in ACTORS.items():
            at = AppTest.from_file(str(ROOT / page.path), default_timeout=60)
            at.session_state["actor"] = actor
            at.session_state["municipality"] = OTHER
            at.run()
            refusals = {"Seu perfil não tem acesso a esta página.", "Você não tem acesso a este município."}
            if at.exception or [e.value for e in at.error] not in ([r] for r in refusals):
                leaks.append(f"{page.path} as {role} on {OTHER}")
    figures.report(f"permissões: {len(PAGES) * len(ACTORS)} páginas × perfis abertas no município de outro, "
                   f"{len(leaks)} vazamentos")
    assert leaks == [], "\n".join(leaks)


def test_data_explorer_shows_a_ti_only_the_users_within_their_municipalities(db):
    from services import auth, entities

    for municipality in (OWN, OTHER):
        auth.create_user(db, auth.SYSTEM, f"pessoa.{municipality}", "Pessoa", "secretaria", [municipality],
                         "senha-de-teste-1")
    rows, total = entities.browse(db, ACTORS["ti"], "users", None)
    assert [r["username"] for r in rows] == ["pessoa.chapada"] and total == 1
    assert all("password_hash" not in r and "hash_scheme" not in r for r in rows)
