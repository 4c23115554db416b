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

import collections.abc
import dataclasses
import enum
import hashlib
import importlib
import inspect
import pkgutil
import types
import typing
from datetime import date, datetime
from decimal import Decimal

import bson

import services
from services.shared.auth import PERMISSIONS, Actor
from services.shared.errors import NotFound, PermissionDenied
from tests import figures

OWN, OTHER = "chapada", "matupa"
ACTORS = {role: Actor(f"{role}.cg", f"Perfil {role}", role, (OWN,)) for role in PERMISSIONS}

# The one table: public service → permission it needs. "admin" services of users act on users of a
# municipality (the target user's municipalities play the municipality's part).
REQUIRED: dict[str, str] = {
    "services.shared.audit_log.actions": "admin",
    "services.shared.audit_log.export_csv": "admin",
    "services.shared.audit_log.export_xlsx": "admin",
    "services.shared.audit_log.search": "admin",
    "services.shared.accounts.create_user": "admin",
    "services.shared.accounts.list_users": "admin",
    "services.shared.accounts.managed_user": "admin",
    "services.shared.accounts.users_page": "admin",
    "services.shared.accounts.update_user": "admin",
    "services.shared.regulated_accounts.authorize_agent": "write",
    "services.shared.regulated_accounts.revoke_agent": "write",
    "services.shared.regulated_accounts.platform_agents": "read",
    "services.shared.regulated_accounts.enroll": "write",
    "services.shared.regulated_accounts.portal_accounts": "read",
    "services.machinery.documents.quote_pdf": "read",
    "services.machinery.documents.receipt_pdf": "read",
    "services.machinery.documents.service_order_pdf": "read",
    "services.machinery.documents.statement_pdf": "read",
    "services.machinery.documents.week_board_pdf": "read",
    "services.dam.bank_import.import_return_file": "write",
    "services.dam.bank_import.imported_files": "read",
    "services.dam.bank_import.raw_file": "read",
    "services.machinery.attachments.add_attachment": "write",
    "services.machinery.attachments.attachment": "read",
    "services.machinery.schedule.book": "write",
    "services.machinery.schedule.cancel_booking": "write",
    "services.machinery.schedule.reschedule": "write",
    "services.machinery.schedule.week_board": "read",
    "services.machinery.schedule.period_preview": "read",
    "services.machinery.protocol.check": "read",
    "services.machinery.execution.complete": "write",
    "services.machinery.protocol.create_request": "write",
    "services.machinery.booking_requests.get_request": "read",
    "services.machinery.payment.issue_payment": "write",
    "services.machinery.booking_requests.list_requests": "read",
    "services.machinery.quotes.make_quote": "write",
    "services.machinery.schedule.mark_urgent": "write",
    "services.machinery.pending.pending": "read",
    "services.machinery.pending.page": "read",
    "services.machinery.pending.overview": "read",
    "services.machinery.execution.record_credit_returned": "write",
    "services.machinery.trips.record_incident": "write",
    "services.machinery.quotes.record_social_report": "write",
    "services.machinery.quotes.record_technical_visit": "write",
    "services.machinery.trips.record_trip": "write",
    "services.machinery.payment.refuse_request": "write",
    "services.machinery.payment.record_refusal_refund": "write",
    "services.machinery.booking_requests.mark_refused": "write",
    "services.machinery.quotes.request_social_report": "write",
    "services.machinery.protocol.requester_block": "read",
    # issue 38 item 3: open also to the requester's own account on the portal (booking_requests.module_service's
    # reach; tests/test_bookings_requester.py: another person's records are NotFound)
    "services.machinery.requesters.requester_of": "read",
    "services.machinery.requesters.save_requester": "write",
    "services.machinery.requesters.request_id_of": "read",
    "services.machinery.requesters.requester_blocks": "read",
    "services.machinery.schedule.queue_place": "read",
    "services.machinery.schedule.queue_page": "read",
    "services.machinery.schedule.queue_rows": "read",
    "services.machinery.schedule.booked_page": "read",
    "services.machinery.schedule.free_assets": "read",
    "services.machinery.schedule.free_operators": "read",
    "services.machinery.localities.set_localities": "admin",
    "services.machinery.execution.start_execution": "write",
    "services.machinery.schedule.week_schedule": "read",
    "services.dam.dams.cancel": "write",
    "services.dam.lists.export_csv": "read",
    "services.dam.lists.export_xlsx": "read",
    "services.dam.dams.get": "read",
    "services.dam.dams.issue": "write",
    "services.dam.lists.list_all": "read",
    "services.dam.lists.list_page": "read",
    "services.dam.lists.ids_to_print": "read",
    "services.dam.printing.pdf": "read",
    "services.dam.printing.pdf_batch": "read",
    "services.dam.payments.retry_linked_update": "write",
    "services.dam.payments.record_payment": "write",
    "services.dam.reissue.reissue": "write",
    "services.dam.reissue.quote_reissue": "read",
    "services.dam.rebill.issue_open": "write",
    "services.machinery.payment.issue_new_dam": "write",
    "services.machinery.ledger.request_charges": "read",
    "services.dam.charges.get": "read",
    "services.dam.debts.list_page": "read",
    "services.dam.debts.list_all": "read",
    "services.dam.debts.get": "read",
    "services.dam.debts.aging": "read",
    "services.dam.debts.export_csv": "read",
    "services.dam.debts.export_xlsx": "read",
    "services.dam.debts.aging_csv": "read",
    "services.dam.debts.aging_xlsx": "read",
    "services.dam.active_debt.candidates": "read",
    "services.dam.active_debt.export_csv": "read",
    "services.dam.active_debt.export_xlsx": "read",
    "services.dam.active_debt.mark_inscribed": "write",
    "services.setup.deployment.missing_values": "admin",
    "services.setup.deployment.identity": "admin",
    "services.setup.deployment.coat_of_arms": "admin",
    "services.setup.deployment.set_identity": "admin",
    "services.setup.deployment.set_coat_of_arms": "admin",
    "services.setup.signature.certificate": "admin",
    "services.setup.signature.set_certificate": "admin",
    "services.setup.signature.set_signed_kinds": "admin",
    "services.setup.signature.expiry_notice": "admin",

    "services.ridehailing.enforcement.assessment.assess": "read",
    "services.ridehailing.enforcement.penalties.apply_sanction": "write",
    "services.ridehailing.enforcement.process.decide": "write",
    "services.ridehailing.enforcement.process.decide_appeal": "write",
    "services.ridehailing.enforcement.lavratura.draft_auto": "write",
    "services.ridehailing.enforcement.lists.export_csv": "read",
    "services.ridehailing.enforcement.lists.export_xlsx": "read",
    "services.ridehailing.enforcement.process.file_appeal": "write",
    "services.ridehailing.enforcement.process.file_defence": "write",
    "services.ridehailing.enforcement.autos.get": "read",
    "services.ridehailing.enforcement.lists.history": "read",
    "services.ridehailing.enforcement.penalties.issue_fine_dam": "write",
    "services.ridehailing.enforcement.lavratura.lavrar": "write",
    "services.ridehailing.enforcement.lists.list_autos": "read",
    "services.ridehailing.enforcement.process.notify": "write",
    "services.ridehailing.enforcement.electronic.available": "read",
    "services.ridehailing.enforcement.electronic.notify_by_domicile": "write",
    "services.ridehailing.enforcement.channels.propose": "read",
    "services.ridehailing.enforcement.channels.record_ar_returned": "write",
    "services.ridehailing.enforcement.editais.to_publish_count": "read",
    "services.ridehailing.enforcement.editais.candidates": "read",
    "services.ridehailing.enforcement.editais.assemble": "write",
    "services.ridehailing.enforcement.editais.get": "read",
    "services.ridehailing.enforcement.editais.record_publication": "write",
    "services.ridehailing.enforcement.editais.list_editais": "read",
    "services.ridehailing.enforcement.editais.export_csv": "read",
    "services.ridehailing.enforcement.editais.export_xlsx": "read",
    "services.ridehailing.enforcement.editais.edital_text": "read",
    "services.ridehailing.enforcement.edital_pdf.edital_pdf": "read",
    "services.ridehailing.enforcement.decision_notice.available": "read",
    "services.ridehailing.enforcement.decision_notice.decision_notification_pdf": "read",
    "services.ridehailing.enforcement.decision_notice.notify_decision": "write",
    "services.ridehailing.convocation_delivery.deliver": "write",
    "services.ridehailing.convocation_delivery.call_and_deliver": "write",
    "services.ridehailing.convocation_delivery.delivered": "read",
    "services.ridehailing.renewal_reminders.due_reminders": "read",
    "services.ridehailing.renewal_reminders.send_reminders": "write",
    "services.ridehailing.enforcement.lists.pending": "read",
    "services.ridehailing.enforcement.process.process_status": "read",
    "services.ridehailing.enforcement.penalties.record_measure": "write",
    "services.ridehailing.enforcement.penalties.release_measure": "write",
    "services.ridehailing.enforcement.lavratura.discard_draft": "write",
    "services.ridehailing.enforcement.lavratura.review_recurrence": "write",
    "services.ridehailing.enforcement.documents.auto_pdf": "read",
    "services.ridehailing.enforcement.documents.case_file_pdf": "read",
    "services.ridehailing.enforcement.documents.notification_pdf": "read",
    "services.shared.saved_views.save_view": "read",
    "services.shared.saved_views.views": "read",
    "services.shared.saved_views.delete_view": "read",
    "services.shared.custom_fields.add_custom_field": "admin",
    "services.shared.explorer.browse": "admin",
    "services.shared.entities.create": "write",
    "services.shared.domicile.open_domicile": "write",  # or the addressee themselves (the portal's activation)
    "services.shared.domicile.has_domicile": "read",
    "services.shared.domicile.deliver": "write",
    "services.shared.domicile.message": "read",
    "services.shared.domicile.alert_line": "read",
    "services.shared.domicile_watch.watch": "read",
    # the addressee's own inbox: no staff role reads it (services.shared.domicile.addressee_of)
    "services.shared.domicile.addressee_of": "domicilio",
    "services.shared.domicile.inbox": "domicilio",
    "services.shared.domicile.open_message": "domicilio",
    "services.shared.domicile.message_pdf": "domicilio",
    "services.shared.domicile.own_message": "domicilio",
    "services.shared.domicile.message_id_of": "domicilio",
    # the taxpayer's own DAMs on the portal: no staff role reads them so (services.dam.own_dams.payer_of)
    "services.dam.own_dams.payer_of": "domicilio",
    "services.dam.own_dams.my_dams": "domicilio",
    "services.dam.own_dams.own_dam": "domicilio",
    "services.dam.own_dams.own_pdf": "domicilio",
    "services.dam.own_dams.reissue_own": "domicilio",
    # issue 36 item 4: the roots TI trusts, and a platform's signed answer (its own person only)
    "services.shared.trust_anchors.add_anchors": "admin",
    "services.shared.trust_anchors.anchors": "admin",
    "services.shared.trust_anchors.remove_anchor": "admin",
    "services.ridehailing.data_answers.own_requests": "domicilio",
    "services.ridehailing.data_answers.own_request": "domicilio",
    "services.ridehailing.data_answers.answer_request": "domicilio",
    "services.ridehailing.data_answers.send_trip_file": "domicilio",
    "services.ridehailing.data_answers.send_driver_list": "domicilio",
    "services.ridehailing.data_answers.answer_file": "read",
    # issue 38 item 1: a driver candidate's own application and its steps (services.ridehailing.applications.applicant)
    "services.ridehailing.applications.applicant": "domicilio",
    "services.ridehailing.applications.application": "domicilio",
    "services.ridehailing.applications.save_part": "domicilio",
    "services.ridehailing.applications.save_documents": "domicilio",
    "services.ridehailing.applications.submit": "domicilio",
    "services.ridehailing.application_status.own_requests": "domicilio",
    "services.ridehailing.application_status.own_request": "domicilio",
    "services.ridehailing.application_status.own_pdf": "domicilio",
    # issue 38 item 4: the public forms of the defined registers (the person's own requests only)
    "services.shared.public_forms.open_forms": "domicilio",
    "services.shared.public_forms.public_form": "domicilio",
    "services.shared.public_forms.submit": "domicilio",
    "services.shared.public_forms.my_requests": "domicilio",
    "services.shared.public_forms.my_request": "domicilio",
    # issue 38: the driver's desk on the portal (their own autos, authorizations and data changes only)
    "services.ridehailing.enforcement.own_autos.own_autos": "domicilio",
    "services.ridehailing.enforcement.own_autos.own_auto": "domicilio",
    "services.ridehailing.own_authorizations.own_authorizations": "domicilio",
    "services.ridehailing.own_authorizations.own_authorization": "domicilio",
    "services.ridehailing.own_authorizations.renew": "domicilio",
    "services.ridehailing.changes.own_changes": "domicilio",
    "services.ridehailing.changes.own_subjects": "domicilio",
    "services.ridehailing.changes.apply_reported": "write",
    "services.ridehailing.changes.change_proof": "read",
    "services.ridehailing.enforcement.documents.filing_file": "read",
    "services.shared.entities.create_many": "write",
    "services.ridehailing.registry.documents_due": "read",
    "services.shared.entity_files.export_csv": "read",
    "services.shared.entity_files.export_xlsx": "read",
    "services.shared.entities.get": "read",
    "services.shared.entity_files.import_csv": "write",
    "services.shared.entity_files.record_file": "read",
    "services.shared.entity_lists.list_all": "read",
    "services.shared.entity_lists.list_page": "read",
    "services.shared.entity_lists.lookup": "read",
    "services.shared.entities.update": "write",
    "services.shared.parameters.add_version": "admin",
    "services.shared.parameters.preview": "admin",
    "services.ridehailing.trip_data.answer_data_request": "write",
    "services.ridehailing.issqn.assess_issqn": "write",
    "services.ridehailing.trip_data.data_requests": "read",
    "services.ridehailing.platform_lists.draft_autos": "write",
    "services.ridehailing.platform_lists.drafts": "read",
    "services.ridehailing.trip_data.import_trips": "write",
    "services.ridehailing.issqn.issqn_months": "read",
    "services.ridehailing.issqn.issue_issqn_dam": "write",
    "services.ridehailing.platform_lists.list_file": "read",
    "services.ridehailing.platform_lists.list_statuses": "read",
    "services.ridehailing.platform_lists.pending": "read",
    "services.ridehailing.trip_data.pending": "read",
    "services.ridehailing.platform_lists.receive_list": "write",
    "services.ridehailing.platform_lists.received_lists": "read",
    "services.ridehailing.trip_data.request_data": "write",
    "services.machinery.localities.export_csv": "read",
    "services.machinery.localities.export_xlsx": "read",
    "services.machinery.localities.in_force": "read",
    "services.machinery.localities.save": "admin",
    "services.machinery.price_tables.export_csv": "read",
    "services.machinery.price_tables.export_xlsx": "read",
    "services.machinery.price_tables.in_force": "read",
    "services.machinery.price_tables.preview_update": "admin",
    "services.machinery.price_tables.save_update": "admin",
    "services.machinery.price_tables.versions": "read",
    "services.ridehailing.authorizations.approve": "write",
    "services.ridehailing.inspections.call_inspection": "write",
    "services.ridehailing.registry.driver_eligibility": "read",
    "services.ridehailing.authorizations.evaluate": "read",
    "services.ridehailing.authorizations.get_authorization": "read",
    "services.ridehailing.fees.issue_fee_dam": "write",
    "services.ridehailing.registry.record_history": "read",
    "services.ridehailing.inspections.record_inspection": "write",
    "services.ridehailing.authorizations.record_sanction": "write",
    "services.ridehailing.authorizations.refuse": "write",
    "services.ridehailing.authorizations.request_authorization": "write",
    "services.ridehailing.fees.request_renewal": "write",
    "services.ridehailing.authorizations.status": "read",
    "services.ridehailing.authorizations.substitute_vehicle": "write",
    "services.ridehailing.authorization_lists.authorization_page": "read",
    "services.search.search": "read",
    "services.search.related": "read",
    "services.ridehailing.authorization_lists.authorization_rows": "read",
    "services.ridehailing.authorization_lists.data_version": "read",
    "services.ridehailing.fees.record_earlier_payment": "write",
    "services.ridehailing.registry.vehicle_eligibility": "read",
    "services.ridehailing.authorizations.apply_penalty": "write",
    "services.ridehailing.authorizations.lift_penalty": "write",
    "services.ridehailing.authorizations.authorization_of": "read",
    "services.ridehailing.changes.close_change": "write",
    "services.ridehailing.changes.history": "read",
    "services.ridehailing.changes.open_irregular": "read",
    "services.ridehailing.changes.record_change": "write",
    "services.ridehailing.changes.report_change": "write",
    "services.ridehailing.documents.certificate_pdf": "read",
    "services.ridehailing.documents.convocation_notice_pdf": "read",
    "services.ridehailing.documents.inspection_report_pdf": "read",
    "services.ridehailing.documents.sticker_pdf": "read",
    "services.ridehailing.platforms.add_report": "write",
    "services.ridehailing.platforms.compliance": "read",
    "services.ridehailing.platforms.platform_concept": "read",
    "services.ridehailing.platforms.platform_reports": "read",
    "services.ridehailing.work_queue.pendencias": "read",
    "services.ridehailing.work_queue.page": "read",
    "services.ridehailing.work_queue.overview": "read",
    "services.summary.summary.data_version": "summary",
    "services.shared.entities.remove": "write",
    "services.shared.custom_fields.custom_field_rows": "admin",
    "services.shared.custom_fields.edit_custom_field": "admin",
    "services.shared.definition_transfer.check_import": "admin",
    "services.shared.definition_transfer.export_register": "admin",
    "services.shared.definition_transfer.import_register": "admin",
    "services.shared.definitions.change_register": "admin",
    "services.shared.definitions.define_register": "admin",
    "services.shared.definitions.defined_registers": "admin",
    "services.shared.definitions.definition": "admin",
    "services.shared.definitions.preview_change": "admin",
    "services.shared.definitions.reference_targets": "admin",
    "services.shared.definitions.readable_registers": "read",
    "services.shared.definitions.register_counts": "summary",
    "services.shared.definitions.set_active": "admin",
    "services.shared.flows.deadlines": "read",
    "services.shared.flows.move": "read",
    "services.shared.flows.status": "read",
    "services.shared.entity_lists.referenced": "read",
    "services.ridehailing.authorizations.cancel_request": "write",
    "services.ridehailing.inspections.inspection_computed": "read",
    "services.ridehailing.authorizations.open_authorization": "read",
    "services.ridehailing.authorization_lists.export_authorizations": "read",
    "services.summary.summary.report_pdf": "summary",
    "services.summary.summary.reports_pdf": "summary",
    "services.summary.summary.summary": "summary",
}
# Functions that take an actor but act on no municipality's data (the permission check itself,
# the actor's own list of municipalities, the query that limits to the actor's scope), and the audit
# log's append, which records what an authorized service did and is reached from no page; the end of
# the actor's own session.
NOT_SERVICES = {"services.shared.auth.authorize", "services.shared.municipalities.of_actor",
                "services.shared.auth.scope_of", "services.shared.accounts.users_scope", "services.shared.audit.record",
                "services.shared.sessions.logout",
                # authorize plus what a defined register grants; the fixed records of a definition's change,
                # written inside definitions.change_register's unit of work once it authorized
                "services.shared.entities.authorize_entity", "services.shared.definition_changes.apply",
                # a charge's credit paid back with its audit entry, inside the unit of work of the
                # request's service (execution.record_credit_returned, payment.record_refusal_refund)
                "services.machinery.ledger.refund",
                # the trip import once authorized: called by import_trips (staff, write) and by
                # data_answers.send_trip_file (the platform's own person), each after its own check
                "services.ridehailing.trip_data.import_checked",
                # the same for a list of drivers and vehicles: receive_list and draft_autos (staff, write) and
                # data_answers.send_driver_list (the platform's own person), each after its own check, down to
                # the report of the list and the draft autos of its reconciliation
                "services.ridehailing.platform_lists.receive_checked",
                "services.ridehailing.platform_lists.autos_checked", "services.ridehailing.platforms.report_checked",
                "services.ridehailing.enforcement.lavratura.draft_checked",
                "services.shared.entities.create_checked",
                # the clerk's protocol and prints once authorized: called by request_authorization, sticker_pdf and
                # certificate_pdf (staff) and by the driver's own application on the portal, after its own check
                "services.ridehailing.authorizations.request_checked",
                "services.ridehailing.documents.issued_pdf_checked",
                "services.shared.entities.create_checked", "services.shared.entities.update_checked",
                # whether the actor's role sees the small-cell marks: a question about the actor, no data
                "services.shared.privacy.applies_to",
                # whose records a regulated actor reaches: a question about the actor, no data
                "services.shared.regulated_accounts.addressee",
                "services.shared.regulated_accounts.agent_cpf", "services.machinery.booking_requests.requester_document",
                "services.shared.regulated_accounts.agent_cpf",
                "services.shared.regulated_accounts.is_regulated",
                # the owner check a clerk's service makes for a regulated actor once it loaded the record, and
                # the DAM issued by fees.issue_fee_dam once it checked the person's own authorization (issue 38)
                "services.shared.regulated_accounts.require_own",
                "services.shared.regulated_accounts.authorize_regulated",
                "services.ridehailing.enforcement.own_autos.owned",
                "services.dam.own_dams.issue_authorized",
                # the record of a document an authorized service prints (its actor is the issuer), reached
                # only from those services, like audit.record; the public verification takes no actor
                "services.shared.authenticity.issue", "services.shared.authenticity.issue_many"}


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
    name = param.name
    if name == "municipality":
        return municipality
    if name == "municipalities":
        return [municipality]
    if name in ("username",):
        return f"alguem.{municipality}"
    if name == "role":
        return "secretaria"
    if name in ("collection", "entity"):
        return "drivers"
    if name in ("password",):
        return "senha-de-teste-1"
    return of_kind(name, param.annotation)


def of_kind(name: str, hint):
    """A placeholder of the hinted type (the boundary refuses any other before the permission check)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return of_kind(name, next(a for a in args if a is not type(None)))
    if hint is str:
        return "0" * 24
    simple = {datetime: datetime(2026, 3, 2, 12, 0), date: date(2026, 3, 2), Decimal: Decimal("10.00"), bytes: b"x",
              bool: False, int: 1}
    if hint in simple:
        return simple[hint]
    if hint is dict or origin is dict:
        return {}
    if origin is tuple and args and args[-1] is not Ellipsis:
        return tuple(of_kind(name, a) for a in args)
    if hint in (list, tuple) or origin in (list, tuple, collections.abc.Sequence):
        return []
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint))
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: of_kind(f.name, hints[f.name]) for f in dataclasses.fields(hint)
                       if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING})
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
    """Every stored document, in order, as BSON: any change of a value, of its type or of a key's place shows.
    (Encoded in C: this matrix and the bad-input property test spend most of their time here.)"""
    h = hashlib.sha256()
    for name in sorted(db.list_collection_names()):
        for doc in db[name].find({}).sort("_id", 1):
            h.update(bson.encode(doc))
    return h.hexdigest()


def test_every_public_service_is_in_the_table():
    found = set(public_services())
    assert found - set(REQUIRED) == set(), "services missing from the permission table"
    assert set(REQUIRED) - found == set(), "table lists services that no longer exist"


def test_permission_matrix(db):
    from services.shared import accounts, auth

    for municipality in (OWN, OTHER):  # the targets of the user-administration services
        accounts.create_user(db, auth.SYSTEM, f"alguem.{municipality}", "Usuária de teste", "secretaria",
                             [municipality], "senha-de-teste-1")
    checked, leaks = 0, []
    # the store's digest after the last refused call: nothing runs between it and the next call unless
    # an allowed call does (which may write), so it is the next refused call's "before" until then
    known = None
    for qualified, fn in sorted(public_services().items()):
        needed = REQUIRED[qualified]
        for role, actor in ACTORS.items():
            for municipality in (OWN, OTHER) if scoped(fn) else (OWN,):
                allowed = actor.can(needed) and municipality == OWN
                before = None if allowed else known or digest(db)
                known = None
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
                elif not allowed:
                    known = digest(db)
                    if known != before:
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
    from services.shared import accounts, auth, explorer

    for municipality in (OWN, OTHER):
        accounts.create_user(db, auth.SYSTEM, f"pessoa.{municipality}", "Pessoa", "secretaria", [municipality],
                             "senha-de-teste-1")
    rows, total = explorer.browse(db, ACTORS["ti"], "users", None)
    assert [r["username"] for r in rows] == ["pessoa.chapada"] and total == 1
    assert all("password_hash" not in r and "hash_scheme" not in r for r in rows)
