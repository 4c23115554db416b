"""The entity specs of the product: one declarative definition per collection.

Adding a field here makes it appear in the form, the list, the CSV export and import and the
validation, with no other change.
"""
from __future__ import annotations

from services.entities import EntitySpec, Field, register

UF = (("MT", "MT"),)

TAXPAYERS = register(
    EntitySpec(
        name="taxpayers",
        label="Contribuinte",
        label_plural="Contribuintes",
        title_field="name",
        default_sort="name",
        fields=(
            Field("name", "Nome / Razão social", required=True, searchable=True),
            Field("document", "CPF/CNPJ", "cpf_cnpj", required=True, unique=True, searchable=True),
            Field("kind", "Tipo", "choice", required=True, filterable=True,
                  choices=(("pf", "Pessoa física"), ("pj", "Pessoa jurídica"), ("entidade", "Entidade sem fins lucrativos"))),
            Field("address", "Endereço", required=True, in_list=False),
            Field("district", "Bairro / localidade", filterable=False, searchable=True),
            Field("phone", "Telefone", "phone"),
            Field("email", "E-mail", "email", in_list=False),
        ),
    )
)

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
