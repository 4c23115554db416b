"""Entity specs shared by every module: taxpayers (contribuintes)."""
from __future__ import annotations

from services.shared.schema import EntitySpec, Field, register

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
