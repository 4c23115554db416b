"""Entity specs of the machinery module (serviços de máquinas e veículos, Decreto 017/2026, Nova Lacerda).

Municipal assets (machines and vehicles), the municipal staff who operate or drive them, and the
requesters (a person by CPF or a non-profit by CNPJ with its proof of constitution, art. 2 caput),
with the standing staff checked (art. 2 §1) and its date. Zones and localities are the TI parameter
``machinery_localities`` (services.machinery.localities). Requests, bookings and execution are
written by the stage modules of ``services.machinery``; these specs drive the lists, forms, CSV export and import.
"""
from __future__ import annotations

from services.shared.schema import EntitySpec, EntryOf, Field, register

LOCALITIES = "machinery_localities"  # the zones and localities parameter (services.machinery.localities)

MODULE = "maquinas"

ASSET_KINDS = (
    ("retroescavadeira", "Retroescavadeira"),
    ("motoniveladora", "Motoniveladora"),
    ("pa_carregadeira", "Pá carregadeira"),
    ("escavadeira", "Escavadeira hidráulica"),
    ("caminhao_basculante", "Caminhão basculante"),
    ("prancha", "Caminhão prancha com semirreboque"),
    ("onibus", "Ônibus"),
    ("micro_onibus_van", "Micro-ônibus ou van"),
)
ASSET_STATUS = (("disponivel", "Disponível"), ("em_servico", "Em serviço"), ("em_manutencao", "Em manutenção"))
METER_KINDS = (("horimetro", "Horímetro (horas)"), ("odometro", "Odômetro (km)"))

ASSETS = register(
    EntitySpec(
        name="machinery_assets",
        feminine=True,
        label="Máquina ou veículo",
        label_plural="Máquinas e veículos",
        module=MODULE,
        title_field="identifier",
        default_sort="identifier",
        fields=(
            Field("identifier", "Placa ou nº de patrimônio", required=True, unique=True, searchable=True),
            Field("kind", "Tipo", "choice", required=True, filterable=True, choices=ASSET_KINDS),
            Field("description", "Marca e modelo", searchable=True),
            Field("status", "Situação", "choice", required=True, filterable=True, choices=ASSET_STATUS),
            Field("meter_kind", "Medidor", "choice", required=True, choices=METER_KINDS, in_list=False),
            Field("meter_reading", "Horímetro/odômetro atual", "int",
                  help="Horas (horímetro) ou km (odômetro) na última leitura."),
            Field("notes", "Observações", "textarea", in_list=False),
        ),
    )
)

DUTIES = (("operador", "Operador de máquinas"), ("motorista", "Motorista"))
LICENCE_CATEGORIES = tuple((c, c) for c in ("B", "C", "D", "E", "AB", "AC", "AD", "AE"))

OPERATORS = register(
    EntitySpec(
        name="machinery_operators",
        label="Operador ou motorista",
        label_plural="Operadores e motoristas",
        module=MODULE,
        title_field="name",
        default_sort="name",
        fields=(
            Field("name", "Nome completo", required=True, searchable=True),
            Field("cpf", "CPF", "cpf", required=True, unique=True, searchable=True),
            Field("registration", "Matrícula (servidor municipal)", required=True, searchable=True),
            Field("duty", "Função", "choice", required=True, filterable=True, choices=DUTIES),
            Field("licence_category", "Categoria da CNH", "choice", required=True, choices=LICENCE_CATEGORIES),
            Field("licence_valid_until", "Validade da CNH", "date", in_list=False),
            Field("active", "Em atividade", "bool", required=True, filterable=True),
        ),
    )
)

REQUESTER_KINDS = (("pf", "Pessoa física"), ("entidade", "Associação ou entidade sem fins lucrativos"))
STANDINGS = (("nada_deve", "Nada deve"), ("parcelamento_em_dia", "Parcelamento em dia"),
             ("em_debito", "Em débito"), ("a_verificar", "A verificar pela Secretaria"))
AREAS = (("rural", "Rural"), ("urbana", "Urbana"))

REQUESTERS = register(
    EntitySpec(
        name="machinery_requesters",
        label="Solicitante",
        label_plural="Solicitantes",
        module=MODULE,
        title_field="name",
        default_sort="name",
        fields=(
            Field("name", "Nome / Razão social", required=True, searchable=True),
            Field("document", "CPF/CNPJ", "cpf_cnpj", required=True, unique=True, searchable=True),
            Field("kind", "Tipo", "choice", required=True, filterable=True, choices=REQUESTER_KINDS),
            Field("constitution_proof", "Comprovação de constituição (estatuto, ata, CNPJ)", in_list=False,
                  help="Entidades: estatuto registrado e comprovante do CNPJ (Decreto 017/2026, art. 2)."),
            Field("address", "Endereço", required=True, in_list=False),
            Field("zone", "Zona", required=True, filterable=True, choices_from=(LOCALITIES, "zone"),
                  help="As zonas e localidades do cronograma (art. 3, §1), cadastradas pela TI."),
            Field("locality", "Localidade", required=True, filterable=True, searchable=True,
                  choices_from=(LOCALITIES, "locality")),
            Field("phone", "Telefone", "phone"),
            Field("standing", "Situação fiscal do solicitante", "choice", required=True, filterable=True,
                  choices=STANDINGS, help="Verificada pela Secretaria (Decreto 017/2026, art. 2, §1)."),
            Field("standing_checked_on", "Situação verificada em", "date", required=True, not_future=True),
        ),
        # art. 3, §1: the zone and the locality are one entry of the list in force, not any of each
        entry_of=EntryOf(LOCALITIES, ("zone", "locality"),
                         "Localidade: {locality} não é uma localidade da {zone} na lista de zonas e localidades "
                         "em vigor (Decreto 017/2026, art. 3, §1); escolha uma localidade dessa zona."),
    )
)
