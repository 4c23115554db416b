"""pt-BR labels of the dated parameters, for the TI screen (the identifier stays in English). The one
list of them: Parâmetros, Implantação and every message that names a parameter read it."""
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.dam.parameters import REVENUE_CODE_PREFIX, REVENUE_KINDS

LABELS = {
    FINE_DAILY: "Multa de mora do DAM: % por dia de atraso (Código Tributário Municipal)",
    FINE_MAX: "Multa de mora do DAM: % máximo (Código Tributário Municipal)",
    INTEREST_MONTHLY: "Juros de mora do DAM: % ao mês ou fração (Código Tributário Municipal)",
    **{REVENUE_CODE_PREFIX + kind: f"Código de receita do DAM: {what[:1].lower()}{what[1:]}"
       for kind, what in REVENUE_KINDS.items()},
    "active_debt_days": "Prazo para inscrição em dívida ativa após o vencimento (dias)",
    "advance_share_machine_hours": "Parcela antecipada das horas-máquina (fração)",
    "authorization_fee": "Taxa de autorização e renovação do transporte por aplicativo (R$)",
    "balance_due_days": "Prazo do saldo após a conclusão (dias)",
    "criminal_certificate_days": "Validade da certidão criminal sem data impressa (dias)",
    "dam_due_days": "Vencimento do DAM após a emissão (dias)",
    "dam_febraban_code": "Código FEBRABAN do município (4 dígitos)",
    "dam_value_identifier": "Identificador de valor do código de barras (6 ou 8)",
    "defence_period_days": "Prazo de defesa (dias)",
    "discount_rate_bpc_or_social_report": "Desconto BPC ou parecer social (fração)",
    "discount_rate_family_income": "Desconto renda familiar (fração)",
    "discount_rate_non_profit": "Desconto entidade sem fins lucrativos (fração)",
    "domicilio_ciencia_tacita_dias": "Domicílio eletrônico: dias para a ciência tácita da notificação não aberta",
    "edital_dias_apos_publicacao": "Edital de notificação: dias após a publicação em que o autuado se considera "
                                   "notificado",
    "dpvat_required": "Exigir DPVAT",
    "extended_due_max_days": "Prazo máximo de pagamento estendido (dias)",
    "fine_cap_grave": "Teto da multa grave (R$)",
    "fine_due_days": "Vencimento do DAM da multa após a emissão (dias)",
    "fine_cap_gravissima": "Teto da multa gravíssima (R$)",
    "fine_cap_leve": "Teto da multa leve (R$)",
    "fine_cap_media": "Teto da multa média (R$)",
    "fine_grave": "Multa grave (R$ ou UPFM)",
    "fine_gravissima": "Multa gravíssima (R$ ou UPFM)",
    "fine_leve": "Multa leve (R$ ou UPFM)",
    "fine_media": "Multa média (R$ ou UPFM)",
    "income_limit_minimum_wages": "Limite de renda familiar (salários mínimos)",
    "inspection_call_days": "Prazo de convocação para vistoria (dias)",
    "issqn_due_day": "Dia de vencimento do ISSQN mensal",
    "issqn_rate": "Alíquota do ISSQN do transporte por aplicativo (fração)",
    "km_reading_items_07_09": "Leitura dos itens 07/09 (quilômetro excedente)",
    "load_limit_counting": "Contagem do limite de cargas",
    "loads_per_stage_limit": "Cargas por etapa do cronograma",
    "machinery_localities": "Zonas e localidades do cronograma (art. 3, §1)",
    "medical_certificate_days": "Validade do atestado médico sem data impressa (dias)",
    "minimum_wage": "Salário mínimo (R$)",
    "municipal_holidays": "Feriados municipais",
    "ouvidoria_phone": "Telefone da Ouvidoria",
    "pix_enabled": "PIX no DAM",
    "pix_key": "Chave PIX do município",
    "pix_merchant_city": "Cidade do recebedor no PIX",
    "pix_merchant_name": "Nome do recebedor no PIX (até 25 caracteres)",
    "preferred_notice_days": "Antecedência preferencial do pedido (dias)",
    "public_price_table": "Tabela de preços públicos (Anexo I)",
    "quote_quantity_ceiling": "Quantidade máxima por linha do orçamento",
    "recurrence_basis": "Base da reincidência",
    "recurrence_window_months": "Janela da reincidência (meses)",
    "relative_registration_allowed": "Aceitar veículo em nome de parente",
    "renewal_lead_business_days": "Antecedência do pedido de renovação (dias úteis)",
    "residence_proof_days": "Validade do comprovante de residência (dias)",
    "tax_certificate_days": "Validade da certidão negativa municipal (dias)",
    "upfm_value": "Valor da UPFM (R$)",
    "vehicle_transition_max_use_years": "Transição: anos de uso admitidos",
    "vehicle_transition_until": "Transição: válida até",
}


def label(name: str) -> str:
    return LABELS.get(name, name)


# What a new value changes, in the words TI reads before confirming it (issue 22 item 10). A parameter
# not listed changes what the panel computes with it from the new version's date on.
AFFECTS = {
    "upfm_value": "as multas fixadas em UPFM dos autos lavrados a partir da data (a UPFM em vigor no dia da "
                  "infração) e todo valor calculado em UPFM desde então",
    "authorization_fee": "a taxa dos DAMs de autorização e de renovação emitidos a partir da data",
    "minimum_wage": "o limite de renda familiar dos descontos pedidos a partir da data",
    "dam_due_days": "o vencimento dos DAMs emitidos a partir da data",
    "fine_due_days": "o vencimento dos DAMs de multa emitidos a partir da data",
    FINE_DAILY: "a multa de mora da 2ª via de DAM vencido emitida a partir da data",
    FINE_MAX: "o teto da multa de mora da 2ª via de DAM vencido emitida a partir da data",
    INTEREST_MONTHLY: "os juros de mora da 2ª via de DAM vencido emitida a partir da data",
    "dam_febraban_code": "o código de barras dos DAMs emitidos a partir da data",
    "pix_enabled": "o PIX dos DAMs emitidos a partir da data",
    "pix_key": "o PIX dos DAMs emitidos a partir da data",
    **{name: "as multas dos autos lavrados a partir da data"
       for name in ("fine_leve", "fine_media", "fine_grave", "fine_gravissima",
                    "fine_cap_leve", "fine_cap_media", "fine_cap_grave", "fine_cap_gravissima")},
    **{REVENUE_CODE_PREFIX + kind: "o código de receita dos DAMs emitidos a partir da data" for kind in REVENUE_KINDS},
}


def affects(name: str) -> str:
    """What a new version of ``name`` changes, from its date on."""
    return AFFECTS.get(name, "o que o painel calcular com este parâmetro a partir da data") + "."


# The kind of value of the parameters a new store leaves for TI to set (the Implantação page lists them):
# with no version yet, this is the kind their first version must have (issue 22 item 10). A parameter
# with versions keeps the kind of its latest one.
FIRST_KINDS = {
    FINE_DAILY: "decimal", FINE_MAX: "decimal", INTEREST_MONTHLY: "decimal", "upfm_value": "decimal",
    "authorization_fee": "decimal", "issqn_rate": "decimal", "minimum_wage": "decimal", "active_debt_days": "int",
    "pix_key": "text", "pix_merchant_name": "text", "pix_merchant_city": "text", "ouvidoria_phone": "text",
    "dam_febraban_code": "text", "pix_enabled": "bool",
    **{REVENUE_CODE_PREFIX + kind: "text" for kind in REVENUE_KINDS},
}
