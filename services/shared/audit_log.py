"""The audit log as people read it: the search of the Auditoria page (``ti`` only), the filter of
actions, the register of acts in pt-BR (each action, record and changed field by its name, values
formatted, other records named by their own key) and its CSV/XLSX export.

The search filters and sorts in the store on indexes that start with the municipality and end with
the instant (``services.shared.audit.INDEXES``); entries are written by ``services.shared.audit``.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from babel.numbers import format_currency
from bson import ObjectId
from pymongo.database import Database

from services.shared import audit, clock, exports, specs  # noqa: F401  (importing specs registers every spec)
from services.shared.auth import authorize, scope_of
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.schema import SPECS
from services.store import decode, encode


@checked
def search(
    db: Database,
    actor: Any,
    municipality: str | None = None,
    username: str | None = None,
    collection: str | None = None,
    action: str | None = None,
    start: date | None = None,
    end: date | None = None,
    limit: int = 200,
    skip: int = 0,
) -> tuple[list[dict], int]:
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
    total = db["audit"].count_documents(query)
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
}
ACTION_LABELS = {
    ("pay", "dams"): "Pagamento de DAM",
    ("create", "dams"): "Emissão de DAM",
    ("cancel", "dams"): "Cancelamento de DAM",
    ("import", "files"): "Importação de arquivo de retorno",
    ("seed", "parameters"): "Carga inicial de parâmetro",
    ("create", "parameters"): "Definição de parâmetro",
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
         "cassada": "Cassação", "cancelled": "Cancelamento", "fee_dam": "Emissão do DAM da taxa",
         "fee_short": "Pagamento a menor da taxa", "open_keys_released": "Liberação de placa e condutor",
         "attach": "Anexo", "import": "Importação", "draft": "Rascunho", "incident": "Ocorrência",
         "price_table_update": "Atualização da tabela de preços",
         "data_change_reported": "Comunicação de alteração", "data_change_closed": "Conclusão de alteração",
         # autos de infração (services.ridehailing.enforcement.autos)
         "lavrar": "Lavratura", "notify": "Notificação", "notify_platform": "Notificação da plataforma",
         "defence": "Defesa", "decide": "Decisão", "appeal": "Recurso", "decide_appeal": "Decisão do recurso",
         "fine_dam": "Emissão do DAM da multa", "fine_paid": "Pagamento da multa", "sanction": "Penalidade",
         "measure": "Medida administrativa", "void": "Anulação", "discard": "Descarte do rascunho",
         "recurrence_review": "Reincidência a rever", "recurrence_reviewed": "Reincidência revista",
         "measure_released": "Liberação de medida",
         # service bookings (services.machinery.bookings)
         "technical_visit": "Vistoria técnica", "social_report_requested": "Pedido de parecer social",
         "social_report_answered": "Parecer social", "quote": "Orçamento", "payment_plan": "Plano de pagamento",
         "dam_paid": "Baixa de DAM", "refuse": "Recusa", "urgent": "Urgência", "book": "Agendamento",
         "cancel_booking": "Cancelamento do agendamento", "start": "Início da execução", "complete": "Conclusão",
         "credit_returned": "Devolução de crédito", "trip": "Dados da viagem", "reschedule": "Remarcação",
         "refund": "Restituição de crédito",
         "inscribe": "Inscrição em dívida ativa"}
COLLECTION_LABELS = {"users": "Usuário", "dams": "DAM", "parameters": "Parâmetro", "files": "Arquivo",
                     "custom_fields": "Campo personalizado", "data_changes": "Alteração de dados",
                     "municipalities": "Município", "sessions": "Sessão", "autos": "Auto de infração",
                     "booking_requests": "Pedido de serviço", "machinery_bookings": "Agendamento de máquina",
                     "platform_lists": "Relação da plataforma", "platform_drafts": "Achado de conciliação",
                     "platform_data_requests": "Pedido de dados à plataforma",
                     "platform_trips": "Dados de viagem", "platform_trip_imports": "Importação de dados de viagem",
                     "platform_issqn": "ISSQN da plataforma", "charges": "Débito"}


def entity_label(collection: str) -> str:
    """The pt-BR name of what a collection holds ("Condutor"), from its spec when it has one."""
    if collection in COLLECTION_LABELS:
        return COLLECTION_LABELS[collection]
    spec = SPECS.get(collection)
    return spec.label if spec is not None else collection


def action_label(action: str, collection: str) -> str:
    """An action as the register names it: "Pagamento de DAM", "Cadastro de condutor"."""
    if action in SESSION_ACTIONS:
        return SESSION_ACTIONS[action]
    if (action, collection) in ACTION_LABELS:
        return ACTION_LABELS[(action, collection)]
    verb = VERBS.get(action, action.replace("_", " ").capitalize())
    label = entity_label(collection)
    acronym = label.split()[:1] and label.split()[0].isupper()  # "DAM", "ISSQN da plataforma" keep their case
    return f"{verb} de {label if acronym else label[:1].lower() + label[1:]}"


def field_label(collection: str, name: str) -> str:
    """A changed field by its label on the form ("Placa"), else the identifier."""
    spec = SPECS.get(collection)
    if spec is not None:
        try:
            return spec.field(name).label
        except KeyError:
            pass
    return FIELD_NAMES.get(name, name)


# Fields of records without a register spec (DAMs, autos, bookings, platform obligations), by the
# word the screens use for them.
FIELD_NAMES = {
    "password": "Senha", "active": "Ativo", "role": "Perfil", "municipalities": "Municípios", "name": "Nome",
    "locked_until": "Bloqueada até", "payment": "Pagamento", "status": "Situação", "amount": "Valor",
    "act": "Ato", "after_due": "Após o vencimento", "agent_name": "Agente", "agent_registration": "Matrícula do agente",
    "answered_at": "Respondido em", "appeal": "Recurso", "attachments": "Anexos", "auto_id": "Auto de infração",
    "auto_on": "Data do auto", "barcode": "Código de barras", "base": "Base de cálculo",
    "base_severity": "Gravidade da infração", "cancel_reason": "Motivo do cancelamento", "changed_on": "Alterado em",
    "changes": "Alterações", "charge_id": "Débito", "charge_role": "Papel no débito", "closing_note": "Observação de conclusão", "cnpj": "CNPJ", "coat_of_arms": "Brasão",
    "collection": "Registro", "committed_on": "Data da infração", "competence": "Competência",
    "convocation": "Convocação", "created_at": "Criado em", "created_by": "Criado por", "dam_id": "DAM",
    "dam_number": "Número do DAM", "deadline_at": "Prazo", "decision": "Decisão", "declarations": "Declarações",
    "defence": "Defesa", "description": "Descrição", "difficult_access": "Acesso difícil",
    "discount": "Desconto", "discount_claims": "Descontos pedidos", "driver_address": "Endereço do condutor",
    "driver_cpf": "CPF do condutor", "driver_name": "Condutor", "due_note": "Observação do vencimento",
    "due_on": "Vencimento", "effective": "Vigência", "environmental_licence": "Licença ambiental",
    "events": "Eventos", "evidence": "Provas", "execution": "Execução", "facts": "Fatos",
    "failed_logins": "Tentativas de entrada recusadas", "fee_dam": "DAM da taxa", "file_name": "Arquivo",
    "file_sha": "Arquivo (SHA-256)", "findings": "Verificações", "fine": "Multa", "fine_amount": "Valor da multa",
    "fine_dam": "DAM da multa", "harms_essential_activities": "Prejudica atividades essenciais",
    "hit_count": "Achados", "identification": "Identificação", "infraction_code": "Infração",
    "infraction_reference": "Fundamento", "infraction_text": "Descrição da infração", "instructions": "Instruções",
    "interest": "Juros", "issued_on": "Emissão", "justification": "Justificativa",
    "late_notification": "Notificação fora do prazo", "legal_basis": "Fundamento legal", "line": "Linha",
    "locality": "Localidade", "measures": "Medidas", "measures_applied": "Medidas aplicadas",
    "municipality": "Município", "note": "Observação", "notification": "Notificação", "notified_at": "Notificado em",
    "number": "Número", "offender_document": "Documento do autuado", "offender_name": "Autuado", "origin": "Origem",
    "paid_on": "Pago em", "pays": "Refere-se a", "penalties": "Penalidades", "pix_payload": "PIX copia e cola",
    "place": "Local", "plate": "Placa", "platform_cnpj": "CNPJ da plataforma", "platform_id": "Plataforma",
    "platform_name": "Plataforma", "principal": "Valor principal", "property": "Imóvel", "protocol": "Protocolo",
    "protocolled_at": "Protocolado em", "quote": "Orçamento", "received_on": "Recebido em", "record_id": "Registro",
    "recorded_at": "Registrado em", "recorded_by": "Registrado por", "recurrence_of": "Reincidência de",
    "recurrent": "Reincidente", "reference": "Referência", "refusal": "Recusa", "refusal_reasons": "Motivos",
    "removed": "Removido", "removes_natural_materials": "Retira materiais naturais",
    "reported_on": "Comunicado em", "requested_due": "Vencimento pedido", "requested_on": "Pedido em",
    "requester": "Solicitante", "requester_id": "Solicitante", "requester_is_public_agent": "Solicitante é agente público",
    "residence_proof": "Comprovante de residência", "revenue_code": "Código da receita",
    "revenue_kind": "Receita", "route": "Roteiro", "row_count": "Linhas", "sanctions_applied": "Penalidades aplicadas",
    "schedule": "Agenda", "sequence": "Sequência", "services": "Serviços", "settlement": "Acerto final",
    "settlement_open": "Acerto pendente", "severity": "Gravidade", "signer": "Quem assina",
    "social_report": "Parecer social", "stage": "Fase", "subject": "Assunto", "suspension_days": "Dias de suspensão",
    "target_kind": "Autuado (tipo)", "taxpayer_address": "Endereço do contribuinte",
    "taxpayer_document": "CPF/CNPJ do contribuinte", "taxpayer_name": "Contribuinte", "technical_visit": "Vistoria técnica",
    "time": "Hora", "trip": "Viagem", "trip_responsible": "Responsável pela viagem", "trips": "Viagens",
    "updated_at": "Alterado em", "urgency_justification": "Justificativa da urgência", "urgent": "Urgente",
    "username": "Usuário", "value": "Valor", "version": "Versão", "void_reason": "Motivo da nulidade",
    "void_reference": "Fundamento da nulidade", "year": "Exercício", "zone": "Zona",
    # inside a changed value (a payment, a decision, an event): the words of the documents
    "bank": "Banco", "by": "Por", "on": "Em", "until": "Até", "reason": "Motivo", "reasons": "Motivos",
    "kind": "Tipo", "paid": "Pago", "paid_amount": "Valor pago", "due": "Vencimento", "label": "Descrição",
    "day": "Dia", "notes": "Observações", "flags": "Alertas", "message": "Mensagem", "ok": "Atende",
    "outcome": "Resultado", "code": "Código", "penalty": "Penalidade", "start": "Início", "total": "Total",
    "lines": "Linhas", "hours": "Horas", "item": "Item", "deadline": "Prazo", "received": "Recebido",
    "purpose": "Finalidade", "fee_total": "Total da taxa", "called_on": "Convocado em", "at": "Em",
    "method": "Meio", "method_label": "Meio", "sent_on": "Enviado em", "decided_on": "Decidido em",
    "authority": "Autoridade", "filed_on": "Protocolado em", "late": "Fora do prazo", "measure": "Medida",
    "summary": "Resumo", "limit": "Limite", "defence_deadline": "Prazo da defesa", "authorization_id": "Autorização",
    "field": "Campo", "before": "Antes", "after": "Depois",
    "address": "Endereço", "phone": "Telefone", "document": "Documento", "gross": "Valor bruto",
    "discount_total": "Descontos", "operator": "Operador", "executed": "Executado", "advance": "Adiantamento",
    "amount_due": "Valor devido", "completed_on": "Concluído em", "started_on": "Iniciado em",
    "ended_on": "Encerrado em", "worked_hours": "Horas trabalhadas", "distance_km": "Distância (km)",
    "incidents": "Ocorrências", "bookings": "Agendamentos", "instalments": "Parcelas", "extension": "Prorrogação",
    "driver": "Motorista", "passengers": "Passageiros", "requested_by": "Pedido por", "answered_on": "Respondido em",
}


def shown_value(value: Any, collection: str = "", name: str = "") -> str:
    """A changed value as a person reads it: empty as '—', money as R$, dates dd/mm/aaaa, instants
    in Cuiabá time, yes/no in Portuguese, a field's choice by its label."""
    if value in (None, "", [], {}):
        return "—"
    spec = SPECS.get(collection) if collection else None
    if spec is not None and not isinstance(value, (dict, list)):
        try:
            return spec.field(name).show(value)
        except (KeyError, ValueError, TypeError, AttributeError):
            pass
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, Decimal):
        return _brl(value)
    if isinstance(value, datetime):
        return clock.to_local(value).strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, list):
        return ", ".join(shown_value(v, collection) for v in value)
    if isinstance(value, dict):  # a payment, a decision: each part by its label
        return "; ".join(f"{field_label(collection, k)}: {shown_value(v, collection, k)}" for k, v in value.items())
    text = str(value)
    if len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit():
        return f"{text[8:]}/{text[5:7]}/{text[:4]}"
    return text


def _brl(value: Decimal) -> str:
    return format_currency(value, "BRL", locale="pt_BR")


def changes_shown(entry: dict) -> str:
    """The changed fields by label, each "before → after" formatted."""
    collection = entry.get("collection", "")
    return "; ".join(
        f"{field_label(collection, k)}: {shown_value(v['before'], collection, k)} → "
        f"{shown_value(v['after'], collection, k)}"
        for k, v in entry.get("changes", {}).items())


# A changed field that holds another record's id, shown by that record's own key.
REFERENCES = {"dam_id": ("dams", "number"), "fee_dam": ("dams", "number"), "fine_dam": ("dams", "number"),
              "auto_id": ("autos", "number"), "authorization_id": ("authorizations", "protocol"),
              "platform_id": ("platforms", "name"), "requester_id": ("machinery_requesters", "name")}


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
    with ``db``, another record named in a change is shown by its key (number, protocol, name)."""
    if db is not None:
        entries = _referenced(db, entries)
    return [dict(zip(EXPORT_COLUMNS, (
        e["at"], e["username"], e.get("municipality") or "", action_label(e["action"], e["collection"]),
        entity_label(e["collection"]), e.get("key") or e.get("doc_id") or "", changes_shown(e), e.get("note") or "",
    ))) for e in entries]


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
