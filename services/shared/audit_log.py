"""The audit log as people read it: the search of the Auditoria page (``ti`` only), the filter of
actions, the register of acts in pt-BR (each action, record and changed field by its name, values
formatted, other records named by their own key) and its CSV/XLSX export.

The search filters and sorts in the store on indexes that start with the municipality and end with
the instant (``services.shared.audit.INDEXES``); entries are written by ``services.shared.audit``.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from babel.numbers import format_currency
from bson import ObjectId
from pymongo.database import Database

from rules import fmt
from services.shared import audit, clock, exports, list_counts, municipalities, specs  # noqa: F401  (importing specs registers every spec)
from services.shared.audit_words import FIELD_NAMES, NAMED_BY, NOT_MONEY, code_label, name_codes
from services.shared.auth import authorize, scope_of
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.parameter_labels import label as parameter_label
from services.shared.definition_spec import COLLECTION as DEFINITIONS, to_spec
from services.shared.definition_words import PART_NAMES, changes_in_words
from services.shared.schema import SPECS, EntitySpec
from services.store import decode, encode


@checked
def search(db: Database, actor: Any, municipality: str | None = None, username: str | None = None,
           collection: str | None = None, action: str | None = None, start: date | None = None,
           end: date | None = None, limit: int = 200, skip: int = 0) -> tuple[list[dict], int]:
    """Entries matching the filters, newest first, with the total count (``ti`` only)."""
    authorize(actor, "admin", municipality)
    query: dict[str, Any] = {"municipality": municipality} if municipality else scope_of(actor)
    if username:
        query["username"] = username
    if collection:
        query["collection"] = collection
    if action:
        query["action"] = action
    span: dict[str, datetime] = {}
    if start:
        span["$gte"] = datetime.combine(start, datetime.min.time(), clock.LOCAL_TZ)
    if end:
        span["$lt"] = datetime.combine(end, datetime.max.time(), clock.LOCAL_TZ)
    if span:
        query["at"] = encode(span)
    total = list_counts.counted(db["audit"], query)
    rows = db["audit"].find(query).sort("at", -1).skip(skip).limit(limit)
    return [decode(r) for r in rows], total


@checked
def actions(db: Database, actor: Any) -> list[str]:
    """The kinds of action present in the log, for the filter (``ti`` only)."""
    authorize(actor, "admin")
    return sorted(doc["_id"] for doc in db[audit.ACTIONS].find({}, {"_id": 1}))


EXPORT_LIMIT = 100_000
EXPORT_COLUMNS = ("Quando", "Usuário", "Município", "Ação", "Registro", "Chave", "Alterações", "Observação")

# What each kind of action is called in the register of acts (the identifier stays in English).
SESSION_ACTIONS = {
    "login": "Entrada no painel",
    "login_failed": "Tentativa de entrada recusada",
    "lock": "Bloqueio da conta por tentativas",
    "logout": "Saída do painel",
    "session_expired": "Sessão encerrada",
    # the public portal's accounts (services.shared.regulated_access)
    "code_sent": "Envio de código de acesso ao e-mail do cadastro",
    "code_refused": "Pedido de código de acesso sem envio",
    "code_failed": "Código de acesso recusado",
    "activate": "Ativação de conta do portal",
    "consent": "Consentimento ao aviso de privacidade (LGPD)",
    "password_reset": "Nova senha com código de acesso",
    "enroll": "Credenciamento de ofício no portal",
    "sign_up": "Abertura de conta no portal pela própria pessoa",
    "sign_up_refused": "Pedido de abertura de conta sem envio",
}
ACTION_LABELS = {
    ("pay", "dams"): "Pagamento de DAM",
    ("create", "dams"): "Emissão de DAM",
    ("cancel", "dams"): "Cancelamento de DAM",
    ("import", "files"): "Importação de arquivo de retorno",
    ("seed", "parameters"): "Carga inicial de parâmetro",
    ("create", "parameters"): "Definição de parâmetro", ("create", DEFINITIONS): "Criação de cadastro definido",
    ("open_keys_released", "authorizations"): "Liberação de vagas de autorização",
    ("data_change", "data_changes"): "Comunicação de alteração de dados",
    ("data_change_closed", "data_changes"): "Conclusão de alteração de dados",
    ("data_change_reported", "data_changes"): "Registro de alteração de dados",
}
VERBS = {"create": "Cadastro", "update": "Alteração", "delete": "Exclusão", "remove": "Remoção",
         "cancel": "Cancelamento", "pay": "Pagamento", "requested": "Pedido", "granted": "Concessão",
         "denied": "Indeferimento", "renewed": "Renovação", "revoked": "Revogação", "suspended": "Suspensão",
         # authorization events (rules.ridehailing.lifecycle.EventKind)
         "refused": "Indeferimento", "approved": "Aprovação", "inspection_passed": "Vistoria aprovada",
         "inspection_failed": "Vistoria reprovada", "inspection_called": "Convocação para vistoria",
         "fee_paid": "Pagamento da taxa", "renewal_requested": "Pedido de renovação",
         "renewal_fee_paid": "Pagamento da taxa de renovação", "vehicle_substituted": "Substituição do veículo",
         "cassada": "Cassação", "cancelled": "Cancelamento", "penalty_lifted": "Penalidade afastada", "fee_dam": "Emissão do DAM da taxa",
         "fee_short": "Pagamento a menor da taxa", "open_keys_released": "Liberação de placa e condutor",
         "attach": "Anexo", "import": "Importação", "draft": "Rascunho", "incident": "Ocorrência",
         "price_table_update": "Atualização da tabela de preços",
         "data_change_reported": "Comunicação de alteração", "data_change_closed": "Conclusão de alteração",
         "data_change_applied": "Alteração comunicada aplicada ao cadastro",
         # autos de infração (services.ridehailing.enforcement.autos)
         "lavrar": "Lavratura", "notify": "Notificação", "notify_platform": "Notificação da plataforma",
         "defence": "Defesa", "decide": "Decisão", "appeal": "Recurso", "decide_appeal": "Decisão do recurso",
         "fine_dam": "Emissão do DAM da multa", "fine_paid": "Pagamento da multa", "sanction": "Penalidade",
         "measure": "Medida administrativa", "void": "Anulação", "discard": "Descarte do rascunho",
         "recurrence_review": "Reincidência a rever", "recurrence_reviewed": "Reincidência revista",
         "measure_released": "Liberação de medida", "notice_opened": "Ciência da notificação",
         "ar_returned": "AR devolvido", "publish": "Publicação do edital",
         "notify_decision": "Notificação da decisão", "decision_notice_opened": "Ciência da decisão",
         "renewal_reminder": "Lembrete de renovação", "convocation_delivered": "Convocação entregue",
         # the electronic domicile (services.shared.domicile)
         "open_domicile": "Abertura", "deliver": "Entrega", "open_message": "Abertura pelo destinatário",
         # service bookings (services.machinery.bookings)
         "technical_visit": "Vistoria técnica", "social_report_requested": "Pedido de parecer social",
         "social_report_answered": "Parecer social", "quote": "Orçamento", "payment_plan": "Plano de pagamento",
         "dam_paid": "Baixa de DAM", "refuse": "Recusa", "urgent": "Urgência", "book": "Agendamento",
         "cancel_booking": "Cancelamento do agendamento", "start": "Início da execução", "complete": "Conclusão",
         "credit_returned": "Devolução de crédito", "trip": "Dados da viagem", "reschedule": "Remarcação",
         "refund": "Restituição de crédito",
         "inscribe": "Inscrição em dívida ativa", "seed": "Carga inicial"}
name_codes("kind", VERBS)  # an authorization's events (rules.ridehailing.lifecycle.EventKind)
name_codes("action", VERBS)  # an auto's events (services.ridehailing.enforcement.autos)
COLLECTION_LABELS = {"users": "Usuário", "dams": "DAM", "parameters": "Parâmetro", "files": "Arquivo",
                     "custom_fields": "Campo personalizado", "data_changes": "Alteração de dados",
                     "municipalities": "Município", "sessions": "Sessão", "autos": "Auto de infração",
                     "booking_requests": "Pedido de serviço", "machinery_bookings": "Agendamento de máquina",
                     "platform_lists": "Relação da plataforma", "platform_drafts": "Achado de conciliação",
                     "platform_data_requests": "Pedido de dados à plataforma",
                     "platform_trips": "Dados de viagem", "platform_trip_imports": "Importação de dados de viagem",
                     "platform_issqn": "ISSQN da plataforma", "charges": "Débito",
                     "saved_views": "Visão salva", "register_definitions": "Cadastro definido",
                     "regulated_accounts": "Conta do portal de serviços",
                     "driver_applications": "Pedido de autorização pelo portal",
                     "platform_agents": "Agente autorizado da plataforma",
                     "domiciles": "Domicílio eletrônico", "domicile_messages": "Mensagem do domicílio eletrônico",
                     "editais": "Edital de notificação"}


# The registers defined by municipal IT as the reader last loaded their definitions (:func:`load_defined`):
# their labels come from the definition in the store, not from what this process happened to open.
_DEFINED: dict[str, EntitySpec] = {}


def _spec(collection: str) -> EntitySpec | None:
    return _DEFINED.get(collection) or SPECS.get(collection)


def load_defined(db: Database, names: Any = None) -> dict[str, EntitySpec]:
    """The defined registers among ``names`` (all of them when None) from their definitions, active or
    not, in one query, kept for the labels of the register; returns them by name."""
    query: dict[str, Any] = {}
    if names is not None:
        wanted = sorted({n for n in names if n and n not in COLLECTION_LABELS
                         and (n not in SPECS or SPECS[n].defined)})
        if not wanted:
            return {}
        query = {"name": {"$in": wanted}}
    found = {doc["name"]: to_spec({**decode(doc), "defined": True}) for doc in db[DEFINITIONS].find(query)}
    _DEFINED.update(found)
    return found


def entity_label(collection: str) -> str:
    """The pt-BR name of what a collection holds ("Condutor"), from its spec when it has one."""
    if collection in COLLECTION_LABELS:
        return COLLECTION_LABELS[collection]
    spec = _spec(collection)
    return spec.label if spec is not None else collection


def collections(db: Database | None = None) -> list[str]:
    """The kinds of record the log may name, for the filter, in the order of their pt-BR names (with
    ``db``, every register defined in the store too)."""
    if db is not None:
        load_defined(db)
    return sorted(set(COLLECTION_LABELS) | set(SPECS) | set(_DEFINED), key=lambda c: entity_label(c).casefold())


def action_label(action: str, collection: str) -> str:
    """An action as the register names it: "Pagamento de DAM", "Cadastro de condutor"."""
    if action in SESSION_ACTIONS:
        return SESSION_ACTIONS[action]
    if (action, collection) in ACTION_LABELS:
        return ACTION_LABELS[(action, collection)]
    verb = VERBS.get(action, action.replace("_", " ").capitalize())
    if not collection:  # the filter of actions, before a kind of record is chosen
        return verb
    label = entity_label(collection)
    acronym = label.split()[:1] and label.split()[0].isupper()  # "DAM", "ISSQN da plataforma" keep their case
    return f"{verb} de {label if acronym else label[:1].lower() + label[1:]}"


def field_label(collection: str, name: str) -> str:
    """A changed field by its label on the form ("Placa"), a part of a definition by its name on
    "Cadastros definidos", else the identifier."""
    if collection == DEFINITIONS and name in PART_NAMES:
        return PART_NAMES[name]
    spec = _spec(collection)
    if spec is not None:
        try:
            return spec.field(name).label
        except KeyError:
            pass
    return FIELD_NAMES.get(name, name)


def shown_value(value: Any, collection: str = "", name: str = "", towns: Mapping[str, str] | None = None) -> str:
    """A changed value as a person reads it: empty as '—', money as R$, dates dd/mm/aaaa, instants
    in Cuiabá time, yes/no in Portuguese, a field's choice or a stored code by its label, a
    municipality by its name (``towns``: code → name)."""
    if value in (None, "", [], {}):
        return "—"
    spec = _spec(collection) if collection else None
    kept_file = spec is not None and isinstance(value, dict) and any(  # a record's file: its name and size
        f.name == name and f.kind == "file" for f in spec.fields)
    if spec is not None and (not isinstance(value, (dict, list)) or kept_file):
        try:
            return spec.field(name).show(value)
        except (KeyError, ValueError, TypeError, AttributeError):
            pass
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, Decimal):
        return fmt.number(value) if name in NOT_MONEY else _brl(value)
    if isinstance(value, datetime):
        return clock.to_local(value).strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, list):
        return ", ".join(shown_value(v, collection, name, towns) for v in value)
    if isinstance(value, dict):  # a payment, a decision: each part by its label (an item "01" as its field)
        return "; ".join(f"{field_label(collection, k)}: {shown_value(v, collection, name if k.isdigit() else k, towns)}"
                         for k, v in value.items() if not _hidden(k, v, value))
    text = str(value)
    if len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit():
        return f"{text[8:]}/{text[5:7]}/{text[:4]}"
    return _code(text, collection, name, towns or {})


def _hidden(name: str, value: Any, parts: dict) -> bool:
    """A part not shown: one its sibling already says ("ground" beside "ground_label"), or a bare record
    id inside a changed value (the record's number or name is beside it)."""
    if NAMED_BY.get(name) in parts:
        return True
    return (name == "id" or name.endswith("_id")) and isinstance(value, str) and ObjectId.is_valid(value)


def _code(text: str, collection: str, name: str, towns: Mapping[str, str]) -> str:
    """A stored code by its label: a municipality, a record's kind, a parameter, a status."""
    if name in ("municipality", "municipalities"):
        return towns.get(text, text)
    if name in ("collection", "pays"):
        return entity_label(text)
    if collection == "parameters" and name == "name":
        return parameter_label(text)
    if name == "field":  # a data change names the field of a driver or a vehicle
        return next((spec.field(text).label for spec in SPECS.values() if any(f.name == text for f in spec.fields)),
                    field_label("", text))
    return code_label(name, text) or text


def _brl(value: Decimal) -> str:
    return format_currency(value, "BRL", locale="pt_BR")


def changes_shown(entry: dict, towns: Mapping[str, str] | None = None) -> str:
    """The changed fields by label, each "before → after" formatted."""
    collection = entry.get("collection", "")
    if collection == DEFINITIONS:  # a register's definition: in the words of "Cadastros definidos"
        return changes_in_words(entry, _spec(str(entry.get("key") or "")), towns or {}, entity_label)
    return "; ".join(
        f"{field_label(collection, k)}: {shown_value(v['before'], collection, k, towns)} → "
        f"{shown_value(v['after'], collection, k, towns)}"
        for k, v in entry.get("changes", {}).items())


# A changed field that holds another record's id, shown by that record's own key.
REFERENCES = {"dam_id": ("dams", "number"), "fee_dam": ("dams", "number"), "fine_dam": ("dams", "number"),
              "auto_id": ("autos", "number"), "authorization_id": ("authorizations", "protocol"),
              "platform_id": ("platforms", "name"), "requester_id": ("machinery_requesters", "name"),
              "charge_id": ("charges", "description")}


def _referenced(db: Database, entries: list[dict]) -> list[dict]:
    """The entries with each id of :data:`REFERENCES` replaced by the record's key ("DAM 0014/2026"
    reads better than its id): one query per referenced collection, whatever the number of entries."""
    wanted: dict[tuple[str, str], set[ObjectId]] = {}  # (collection, key field) -> ids
    for entry in entries:
        for name, change in entry.get("changes", {}).items():
            if name in REFERENCES:
                for side in ("before", "after"):
                    if isinstance(change.get(side), str) and ObjectId.is_valid(change[side]):
                        wanted.setdefault(REFERENCES[name], set()).add(ObjectId(change[side]))
    keys: dict[str, str] = {}
    for (collection, field), ids in wanted.items():
        for doc in db[collection].find({"_id": {"$in": sorted(ids)}}, {field: 1}):
            if doc.get(field):
                keys[str(doc["_id"])] = str(doc[field])
    if not keys:
        return entries
    return [{**entry, "changes": {
        name: {side: keys.get(value, value) if name in REFERENCES and isinstance(value, str) else value
               for side, value in change.items()}
        for name, change in entry.get("changes", {}).items()}} for entry in entries]


def rows_shown(entries: list[dict], db: Database | None = None) -> list[dict[str, Any]]:
    """Entries as the audit page lists and exports them (pt-BR headers; the instant as a datetime);
    with ``db``, another record named in a change is shown by its key (number, protocol, name) and a
    municipality by its name."""
    towns: dict[str, str] = {}
    keys: dict[tuple[str, str], str] = {}
    if db is not None:
        entries = _referenced(db, entries)
        towns = {town.code: town.name for town in municipalities.all_municipalities(db)}
        keys = _defined_keys(db, entries)
    return [dict(zip(EXPORT_COLUMNS, (
        e["at"], e["username"], towns.get(e.get("municipality") or "", e.get("municipality") or ""),
        action_label(e["action"], e["collection"]), entity_label(e["collection"]), _key(e, towns, keys),
        changes_shown(e, towns), e.get("note") or "",
    ))) for e in entries]


def _defined_keys(db: Database, entries: list[dict]) -> dict[tuple[str, str], str]:
    """The key of each record of a defined register named by ``entries``, as its list shows it (its
    title field), and a definition's entries by the register's name: the definitions in one query, then
    one query per defined register named, whatever the number of entries."""
    names = {e.get("collection") for e in entries}
    names |= {str(e.get("key")) for e in entries if e.get("collection") == DEFINITIONS and e.get("key")}
    defined = load_defined(db, names)
    keys = {(DEFINITIONS, name): spec.label_plural for name, spec in defined.items()}
    wanted: dict[str, set[ObjectId]] = {}
    for entry in entries:
        if entry.get("collection") in defined and ObjectId.is_valid(str(entry.get("doc_id") or "")):
            wanted.setdefault(entry["collection"], set()).add(ObjectId(str(entry["doc_id"])))
    for name, ids in wanted.items():
        spec = defined[name]
        title = spec.title_field or spec.fields[0].name
        for doc in db[name].find({"_id": {"$in": sorted(ids)}}, {title: 1}):
            shown = spec.title_of(decode(doc))
            if shown:
                keys[(name, str(doc["_id"]))] = shown
    return keys


def _key(entry: dict, towns: Mapping[str, str], keys: Mapping[tuple[str, str], str] | None = None) -> str:
    """The record's own key; a parameter by its label, a municipality by its name, a record of a defined
    register by its title and a definition by its register's name (``keys``, :func:`_defined_keys`)."""
    key = str(entry.get("key") or entry.get("doc_id") or "")
    collection = entry["collection"]
    if collection == "parameters":
        return parameter_label(key)
    if keys:
        found = keys.get((collection, key if collection == DEFINITIONS else str(entry.get("doc_id") or "")))
        if found:
            return found
    return towns.get(key, key) if collection == "municipalities" else key


def _export_rows(db: Database, actor: Any, municipality: str | None, username: str | None,
                 collection: str | None, action: str | None, start: date | None, end: date | None) -> list[dict]:
    entries, total = search(db, actor, municipality, username, collection, action, start, end, EXPORT_LIMIT)
    if total > EXPORT_LIMIT:
        raise ValidationFailed({"export": f"O filtro tem {total} registros; exporte no máximo {EXPORT_LIMIT} "
                                          "(escolha um período menor)."})
    return rows_shown(entries, db)


@checked
def export_csv(db: Database, actor: Any, municipality: str | None = None, username: str | None = None,
               collection: str | None = None, action: str | None = None, start: date | None = None,
               end: date | None = None) -> bytes:
    """Every entry of the filter (not only the page shown), newest first, as a pt-BR CSV (``ti`` only)."""
    rows = _export_rows(db, actor, municipality, username, collection, action, start, end)
    return exports.to_csv(rows, EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Any, municipality: str | None = None, username: str | None = None,
                collection: str | None = None, action: str | None = None, start: date | None = None,
                end: date | None = None) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet, the instant as a date and time (``ti`` only)."""
    rows = _export_rows(db, actor, municipality, username, collection, action, start, end)
    return exports.to_xlsx(rows, EXPORT_COLUMNS, sheet="Auditoria")
