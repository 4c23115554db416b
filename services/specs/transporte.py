"""Entity specs of the ride-hailing module (transporte por aplicativo)."""
from __future__ import annotations

from services.entities import EntitySpec, Field, register

PLATFORMS = register(
    EntitySpec(
        name="platforms",
        label="Plataforma",
        label_plural="Plataformas",
        module="transporte",
        title_field="name",
        default_sort="name",
        fields=(
            Field("name", "Nome", required=True, searchable=True),
            Field("cnpj", "CNPJ", "cnpj", required=True, unique=True, searchable=True),
            Field("contact_name", "Responsável", in_list=False),
            Field("phone", "Telefone", "phone"),
            Field("email", "E-mail", "email", in_list=False),
            Field("insurer", "Seguradora (APP)", in_list=False),
            Field("policy_number", "Apólice APP", in_list=False),
            Field("insurance_coverage", "Cobertura APP (R$)", "money", in_list=False),
            Field("insurance_valid_until", "Validade do seguro", "date"),
            Field("status", "Situação do credenciamento", "choice", required=True, filterable=True,
                  choices=(("ativo", "Credenciada"), ("pendente", "Pendente"), ("suspenso", "Suspensa"))),
        ),
    )
)
