"""The words of the register of acts (the Auditoria page, :mod:`.audit_log`): every changed field and
every stored code by the name the screens give it, never the identifier (issue 22 item 9: no
``payment_terms``, ``aguardando_orcamento`` or ``nova_lacerda`` in the log).

Codes whose labels live on a lower floor (``rules/``, the registers' specs, the roles) are named here
from there. A room above this one (the machinery's statuses, the autos' stages) keeps its own words and
names them with :func:`name_codes`: imports run downward, so the Auditoria page, which sees every room,
hands them in (``app_pages/audit.py``). A code nobody named is shown as stored.
"""
from __future__ import annotations

from collections.abc import Mapping

from rules.base import Level
from rules.dam.charges import STATUSES as CHARGE_STATUSES
from rules.dam.parameters import REVENUE_KINDS
from rules.machinery.discounts import DiscountCriterion, EvidenceKind
from rules.machinery.payment import ExtensionGround
from rules.machinery.quote import KmReading
from rules.ridehailing.concepts import Severity
from rules.ridehailing.lifecycle import LABELS as AUTHORIZATION_STATUSES
from services.shared.auth import ROLES
from services.shared.signing_keys import KINDS as SIGNED_DOCUMENT_KINDS
from services.shared.specs.maquinas import REQUESTER_KINDS, STANDINGS
from services.shared.specs.transporte import INSPECTION_KINDS

# Fields of records without a register spec (DAMs, autos, bookings, platform obligations), by the
# word the screens use for them.
FIELD_NAMES = {
    "password": "Senha", "active": "Ativo", "role": "Perfil", "municipalities": "Municípios", "name": "Nome",
    "locked_until": "Bloqueada até", "payment": "Pagamento", "status": "Situação", "amount": "Valor",
    "status_next": "Próxima situação", "status_next_on": "Próxima situação a partir de",
    "act": "Ato", "after_due": "Após o vencimento", "agent_name": "Agente", "agent_registration": "Matrícula do agente",
    "answered_at": "Respondido em", "appeal": "Recurso", "attachments": "Anexos", "auto_id": "Auto de infração",
    "auto_on": "Data do auto", "barcode": "Código de barras", "base": "Base de cálculo",
    "base_severity": "Gravidade da infração", "cancel_reason": "Motivo do cancelamento", "changed_on": "Alterado em",
    "changes": "Alterações", "charge_id": "Débito", "charge_role": "Papel no débito", "closing_note": "Observação de conclusão", "cnpj": "CNPJ", "coat_of_arms": "Brasão",
    "collection": "Registro", "committed_on": "Data da infração", "competence": "Competência",
    "convocation": "Convocação", "created_at": "Criado em", "created_by": "Criado por", "dam_id": "DAM",
    "dam_number": "Número do DAM", "deadline_at": "Prazo", "decision": "Decisão", "declarations": "Declarações",
    "defence": "Defesa", "description": "Descrição", "difficult_access": "Acesso difícil",
    "driver_phone": "Telefone do condutor", "driver_email": "E-mail do condutor",
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
# a portal account the person opened themself (services.shared.regulated_access.sign_up)
FIELD_NAMES["self_registered"] = "Conta aberta pela própria pessoa"
# the electronic domicile (services.shared.domicile) and an auto notified through it
FIELD_NAMES.update({
    "delivered_at": "Entregue em", "delivered_on": "Dia da entrega", "delivered_by": "Entregue por",
    "opened_at": "Aberta em", "opened_on": "Dia da abertura", "opened_by": "Aberto por", "email": "E-mail",
    "tacit_days": "Dias para a ciência tácita", "alert_ids": "Alertas por e-mail", "tacit_on": "Ciência tácita em", "message_id": "Mensagem",
    "tacit_defence_deadline": "Prazo da defesa se a ciência for tácita", "receipt": "Ciência", "warning": "Aviso",
    "pdf_sha256": "PDF (SHA-256)", "title": "Título", "category": "Categoria", "ref": "Refere-se a",
    # issue 36 item 2: other communications delivered to the domicile
    "decision_notification": "Notificação da decisão", "appeal_deadline": "Prazo de recurso",
    "tacit_appeal_deadline": "Prazo de recurso se a ciência for tácita", "renewal_reminders": "Lembretes de renovação",
    "convocation_message_id": "Mensagem da convocação",
})

# issue 38 item 4: a defined register open to the public, and who asked on the portal
FIELD_NAMES.update({"public": "Pedidos do público (portal)", "channel": "Canal"})

# Parts of a changed value (a quote, a payment plan, an execution, an event) found in the log.
FIELD_NAMES.update({
    "short": "Pagamento a menor", "alerts": "Alertas", "difference": "Diferença", "credit": "Crédito",
    "id": "Registro", "juntada_on": "Juntada ao processo em", "method_reference": "Fundamento do meio",
    "asset": "Máquina ou veículo", "asset_id": "Máquina ou veículo", "operator_id": "Operador",
    "payment_terms": "Concorda com os critérios de pagamento", "liability": "Assume a responsabilidade pelo uso",
    "criterion": "Critério", "rate": "Percentual", "evidence_kind": "Comprovante",
    "evidence_reference": "Referência do comprovante", "family_income": "Renda familiar",
    "loads_delivered": "Cargas entregues", "meters": "Medidores", "photos": "Fotos", "end": "Fim",
    "days_after_completion": "Dias após a conclusão", "ground": "Hipótese", "ground_label": "Hipótese",
    "prior_authorization": "Autorização prévia", "level": "Peso", "deferred": "Adiada",
    "due_rule": "Regra do vencimento", "key": "Parcela", "discount_reason": "Motivo do desconto", "net": "Líquido",
    "quantity": "Quantidade", "unit": "Unidade", "unit_price": "Preço unitário", "prices": "Preços",
    "version_id": "Versão", "private": "Imóvel particular", "proof": "Comprovante",
    "standing": "Situação fiscal", "standing_checked_on": "Situação fiscal conferida em",
    "km_reading": "Leitura do quilômetro (itens 07/09)", "km_reading_applies": "A leitura do quilômetro mudou o valor",
    "km_reading_text": "Leitura do quilômetro", "price_table": "Tabela de preços", "days": "Dias", "loads": "Cargas",
    "credit_returned_on": "Crédito devolvido em", "credit_to_return": "Crédito a devolver",
    "answer_note": "Observação da resposta", "favourable": "Favorável", "required": "Exigida",
    "driver_operator_id": "Motorista", "responsible_document": "Documento do responsável",
    "responsible_name": "Responsável", "area": "Área", "file_sequence": "Sequência do arquivo",
})
# Fields the data explorer shows besides those of the log (issue 35 item 9: no ``live_dam`` there either).
FIELD_NAMES.update({
    "_id": "Identificador", "action": "Ação", "acts": "Atos", "answers": "Respostas", "closed_on": "Concluído em",
    "content_type": "Tipo de arquivo", "cpf": "CPF", "dams": "DAMs", "demo_records": "Dados de demonstração",
    "desired_start": "Início desejado", "destination": "Destino", "duration_min": "Duração (min)",
    "fare": "Tarifa", "fare_composition": "Composição da tarifa", "handlers_done_at": "Efeitos concluídos em",
    "history": "Histórico", "inscription": "Inscrição em dívida ativa", "live_dam": "DAM em vigor",
    "maquinas": "Máquinas e serviços", "modules": "Módulos", "open": "Em aberto", "open_driver": "Vaga do condutor",
    "open_plate": "Vaga da placa", "owner": "Origem do débito", "payments": "Pagamentos", "rating": "Avaliação",
    "route_map": "Mapa do trajeto", "rows": "Linhas", "secretariat": "Secretaria", "sha256": "Resumo SHA-256",
    "started_at": "Início da viagem", "suspension_months": "Meses de suspensão", "taxpayer": "Contribuinte",
    "transporte": "Transporte por aplicativo", "trip_on": "Data da viagem", "updated_by": "Alterado por",
    "uploaded_at": "Enviado em", "via": "Via", "user_name": "Nome do usuário", "doc_id": "Registro (identificador)",
    "request_id": "Pedido", "list_id": "Relação da plataforma", "import_id": "Importação",
})
# the signed answers of the platforms and the trust anchors (issue 36 item 4)
FIELD_NAMES.update({
    "period_from": "Período (início)", "period_to": "Período (fim)", "channel": "Canal", "answer": "Resposta",
    "signature_name": "Assinatura destacada (.p7s)", "signature_sha": "Assinatura destacada (SHA-256)",
    "answered_by": "Enviada por (CPF)", "answered_by_name": "Enviada por", "signer_name": "Assinada por",
    "signer_cpf": "CPF de quem assinou", "cert_serial": "Número de série do certificado",
    "cert_issuer": "Emissor do certificado", "cert_valid_from": "Certificado válido desde",
    "cert_valid_to": "Certificado válido até", "signed_at": "Assinada em", "verified_at": "Verificada em",
    "result": "Resultado da verificação", "serial": "Número de série", "fingerprint": "Impressão digital (SHA-256)",
    "not_before": "Válido desde", "not_after": "Válido até", "added_at": "Incluído em", "added_by": "Incluído por",
    "holder": "Titular do certificado",
})
# a trip file or a list of drivers sent signed on the portal (issue 36 item 4)
FIELD_NAMES.update({"signature": "Assinatura digital", "sent_by": "Enviado por (CPF)", "sent_by_name": "Enviado por"})
# the driver's desk on the portal (issue 38 item 1): a defence or appeal joined, a data change reported there
FIELD_NAMES.update({"filed_at": "Juntada em", "pending": "A conferir", "proposed": "Valores comunicados",
                    "reported_at": "Comunicada em (data e hora)", "applied_at": "Aplicada ao cadastro em",
                    "applied_by": "Aplicada por"})
# A code its sibling already says in words ("ground" beside "ground_label"): not shown.
NAMED_BY = {"ground": "ground_label", "method": "method_label"}
# Decimals that are not money (meter readings, hours, quantities, rates): shown as numbers, not R$.
NOT_MONEY = frozenset({"start", "end", "hours", "worked_hours", "quantity", "rate", "loads", "distance_km",
                       "loads_delivered", "family_income_minimum_wages"})

# Stored codes by the field that holds them: {field: {code: label}}.
CODES: dict[str, dict[str, str]] = {}


def name_codes(field: str, *labels: Mapping[str, str]) -> None:
    """Name the codes a field stores (``name_codes("status", {"aguardando_orcamento": "Aguardando orçamento"})``)."""
    for mapping in labels:
        CODES.setdefault(field, {}).update({str(code): label for code, label in mapping.items()})


def code_label(field: str, value: str) -> str | None:
    """The label of a stored code of ``field``, None when nobody named it."""
    return CODES.get(field, {}).get(value)


def _enum_names(kind) -> dict[str, str]:
    return {member.name: member.value for member in kind}


name_codes("status", CHARGE_STATUSES, {s.value: label for s, label in AUTHORIZATION_STATUSES.items()},
           {"emitido": "Emitido", "pago": "Pago", "cancelado": "Cancelado",  # a DAM
            "dispensada": "Dispensada", "pendente": "Pendente", "favoravel": "Favorável",  # a technical visit
            "desfavoravel": "Desfavorável", "lavrado": "Lavrado", "nulo": "Nulo"})
name_codes("revenue_kind", REVENUE_KINDS)
name_codes("standing", dict(STANDINGS))
name_codes("kind", dict(REQUESTER_KINDS), dict(INSPECTION_KINDS), {"manual": "Baixa manual", "retorno": "Arquivo retorno do banco"})
name_codes("charge_role", {"original": "Original", "2a_via": "2ª via", "reemissao": "Reemissão",
                           "diferenca": "Diferença"})
name_codes("criterion", _enum_names(DiscountCriterion))
name_codes("evidence_kind", _enum_names(EvidenceKind))
name_codes("ground", _enum_names(ExtensionGround))
name_codes("km_reading", {KmReading.EXCESS_OVER_200.value: "Excedente a 200 km",
                          KmReading.WHOLE_DISTANCE.value: "Toda a distância"})
name_codes("severity", {s.value: s.value.capitalize() for s in Severity})
name_codes("base_severity", CODES["severity"])
name_codes("role", ROLES)
name_codes("level", {Level.ERROR.value: "Impede", Level.WARNING.value: "Alerta", Level.INFO.value: "Informação"})
name_codes("key", {"integral": "Pagamento integral", "adiantamento": "Adiantamento", "saldo": "Saldo"})
name_codes("instalments", CODES["key"])
name_codes("purpose", {"initial": "Autorização inicial", "renewal": "Renovação"})
name_codes("area", {"rural": "Rural", "urbana": "Urbana"})
name_codes("penalties", {"multa": "Multa"})
name_codes("method", {"direct": "Notificação direta", "official_gazette": "Diário Oficial", "post": "Via postal",
                      "electronic": "Meio eletrônico"})
name_codes("flags", {"valor_divergente": "Valor divergente", "pago_em_atraso": "Pago em atraso",
                     "dam_cancelado": "DAM cancelado", "dam_substituido": "DAM substituído",
                     "debito_pago_a_menor": "Débito pago a menor", "credito_a_restituir": "Crédito a restituir"})
name_codes("modules", {"transporte": "Transporte por aplicativo", "maquinas": "Máquinas e serviços"})
name_codes("demo_records", {"cnpj": "CNPJ", "signer": "Quem assina", "coat_of_arms": "Brasão"})

# the municipality's digital signature (services.setup.signature): the certificate, never its password
FIELD_NAMES.update({"signing_certificate": "Certificado digital A1", "signed_kinds": "Documentos assinados digitalmente",
                    "holder": "Titular", "issuer": "Emitido por", "valid_until": "Válido até"})
name_codes("signed_kinds", SIGNED_DOCUMENT_KINDS)

# the public portal: the person a platform authorized (services.shared.regulated_accounts)
FIELD_NAMES.setdefault("cpf", "CPF")
FIELD_NAMES.update({"person_cpf": "CPF do agente autorizado", "activated_at": "Ativada em",
                    "last_login": "Último acesso", "authorized_at": "Autorizado em", "authorized_by": "Autorizado por",
                    "revoked_at": "Autorização retirada em"})

# the channel of each notice and the edital de notificação (services.ridehailing.enforcement.channels, editais)
FIELD_NAMES.update({
    "notice_attempts": "Notificações não entregues", "returned_on": "AR devolvido em",
    "return_reason": "Motivo da devolução do AR", "return_reason_label": "Motivo da devolução do AR",
    "edital_id": "Edital", "edital_number": "Número do edital", "edition": "Edição do órgão oficial",
    "published_on": "Publicado em", "notified_on": "Notificado em", "signer_name": "Assinado por",
    "signer_role": "Cargo de quem assina", "days_after": "Dias após a publicação", "defence_days": "Prazo de defesa (dias)",
    "dated": "Data do edital", "refused": "Autos recusados", "infraction": "Infração", "bounced_on": "Devolvida em",
    "recorded_by": "Registrado por", "recorded_at": "Registrado em",
})
NAMED_BY["return_reason"] = "return_reason_label"
