"""Entity specs of the ride-hailing module (transporte por aplicativo).

Platforms (with the lists and monthly ISSQN they hand in), drivers, vehicles, authorizations and
inspections, plus the driver's dated records (documents handed in, traffic infractions, training
courses). Drivers and vehicles are linked by CPF and plate, platforms' records by CNPJ, so a CSV
import needs no internal ids. The workflow of an authorization (events,
numbers, fee, inspection answers) is written by ``services.ridehailing.registry``; the specs here drive the
lists, forms, CSV export and import.
"""
from __future__ import annotations

from rules.ridehailing.concepts import Holder, Severity
from services.shared.schema import EntitySpec, Field, register

MODULE = "transporte"

PLATFORMS = register(
    EntitySpec(
        name="platforms",
        feminine=True,
        label="Plataforma",
        label_plural="Plataformas",
        module=MODULE,
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
            Field("insurance_valid_from", "Início da vigência do seguro", "date", in_list=False),
            Field("insurance_valid_until", "Validade do seguro", "date"),
            Field("status", "Situação do credenciamento", "choice", required=True, filterable=True,
                  choices=(("ativo", "Credenciada"), ("pendente", "Pendente"), ("suspenso", "Suspensa"))),
            Field("credentialed_on", "Credenciada em", "date", not_future=True,
                  help="Data do credenciamento: conta o prazo da primeira relação e o primeiro mês do ISSQN."),
        ),
    )
)

PLATFORM_REPORT_KINDS = (("lista", "Relação de condutores e veículos entregue"),
                         ("issqn", "ISSQN mensal recolhido"))

PLATFORM_REPORTS = register(
    EntitySpec(
        name="platform_reports",
        feminine=True,
        label="Relação ou ISSQN da plataforma",
        label_plural="Relações e ISSQN das plataformas",
        module=MODULE,
        default_sort="on",
        fields=(
            Field("platform_cnpj", "CNPJ da plataforma", "cnpj", required=True, filterable=True, searchable=True,
                  refers_to=("platforms", "cnpj")),
            Field("kind", "Obrigação", "choice", required=True, filterable=True, choices=PLATFORM_REPORT_KINDS),
            Field("on", "Data da entrega ou mês de competência", "date", required=True, not_future=True,
                  help="Relação: dia em que foi entregue. ISSQN: qualquer dia do mês de competência pago."),
            Field("reference", "Protocolo ou DAM", searchable=True),
        ),
    )
)

CNH_CATEGORIES = tuple((c, c) for c in ("A", "B", "C", "D", "E", "AB", "AC", "AD", "AE"))

DRIVERS = register(
    EntitySpec(
        name="drivers",
        label="Condutor",
        label_plural="Condutores",
        module=MODULE,
        title_field="name",
        default_sort="name",
        fields=(
            Field("name", "Nome completo", required=True, searchable=True),
            Field("cpf", "CPF", "cpf", required=True, unique=True, searchable=True),
            Field("address", "Endereço", required=True, in_list=False),
            Field("district", "Bairro", in_list=False),
            Field("resides_in_municipality", "Reside no Município", "bool", required=True, filterable=True),
            Field("phone", "Telefone", "phone"),
            Field("email", "E-mail", "email", in_list=False),
            Field("cnh_number", "Nº da CNH", required=True, in_list=False, searchable=True),
            Field("cnh_category", "Categoria da CNH", "choice", required=True, choices=CNH_CATEGORIES),
            Field("cnh_first_license", "Primeira habilitação", "date", required=True, in_list=False, not_future=True),
            Field("cnh_valid_until", "Validade da CNH", "date", required=True),
            Field("cnh_ear", "CNH com observação EAR", "bool", in_list=False),
            Field("inss_number", "Inscrição no INSS (NIT/PIS)", in_list=False),
            Field("inss_enrolled", "Contribuinte individual do INSS", "bool", in_list=False),
            Field("platform_cnpj", "CNPJ da plataforma", "cnpj", in_list=False, refers_to=("platforms", "cnpj")),
            Field("exclusive_platform_declaration", "Declarou serviço exclusivo por plataforma", "bool",
                  in_list=False),
            Field("fit_for_duty", "Apto para a função (atestado)", "bool", in_list=False),
            Field("disqualifying_criminal_record", "Antecedente criminal impeditivo", "bool", in_list=False),
            Field("ctb_303_306_record", "Crime dos arts. 303/306 do CTB", "bool", in_list=False),
        ),
    )
)

DOCUMENT_CODES = (
    ("cnh", "CNH"), ("inss", "Inscrição no INSS"), ("criminal", "Certidão de antecedentes criminais"),
    ("municipal_tax", "Certidão de débitos municipais"), ("medical", "Atestado médico"),
    ("residence", "Comprovante de residência"), ("platform_declaration", "Declaração de serviço exclusivo"),
    ("vehicle_plate", "Documento do veículo emplacado no Município"), ("garage", "Comprovante de local de guarda"),
)

DRIVER_DOCUMENTS = register(
    EntitySpec(
        name="driver_documents",
        removable=True,
        label="Documento do condutor",
        label_plural="Documentos dos condutores",
        module=MODULE,
        default_sort="issued_on",
        fields=(
            Field("driver_cpf", "CPF do condutor", "cpf", required=True, filterable=True, searchable=True,
                  refers_to=("drivers", "cpf")),
            Field("code", "Documento", "choice", required=True, choices=DOCUMENT_CODES),
            Field("issued_on", "Emissão", "date", required=True, not_future=True),
            Field("valid_until", "Validade impressa", "date",
                  help="Deixe em branco se o documento não traz validade: vale o prazo do parâmetro."),
            # the copy the driver sent with the application on the portal (services.ridehailing.applications)
            Field("file", "Cópia enviada", "file", in_list=False),
        ),
    )
)

SEVERITIES = tuple((s.name.lower(), s.value.capitalize()) for s in Severity)

TRAFFIC_INFRACTIONS = register(
    EntitySpec(
        name="traffic_infractions",
        feminine=True,
        removable=True,
        label="Infração de trânsito",
        label_plural="Infrações de trânsito (CNH)",
        module=MODULE,
        default_sort="committed_on",
        fields=(
            Field("driver_cpf", "CPF do condutor", "cpf", required=True, filterable=True, searchable=True,
                  refers_to=("drivers", "cpf")),
            Field("committed_on", "Data da infração", "date", required=True, not_future=True),
            Field("severity", "Gravidade", "choice", required=True, choices=SEVERITIES),
            Field("description", "Descrição"),
        ),
    )
)

TRAINING_COURSES = register(
    EntitySpec(
        name="training_courses",
        removable=True,
        label="Curso ou palestra",
        label_plural="Cursos e palestras",
        module=MODULE,
        default_sort="held_on",
        fields=(
            Field("driver_cpf", "CPF do condutor", "cpf", required=True, filterable=True, searchable=True,
                  refers_to=("drivers", "cpf")),
            Field("held_on", "Data", "date", required=True, not_future=True),
            Field("title", "Curso ou palestra", required=True),
        ),
    )
)

HOLDERS = tuple((h.name.lower(), h.value.capitalize()) for h in Holder)

VEHICLES = register(
    EntitySpec(
        name="vehicles",
        label="Veículo",
        label_plural="Veículos",
        module=MODULE,
        title_field="plate",
        default_sort="plate",
        fields=(
            Field("plate", "Placa", "plate", required=True, unique=True, searchable=True),
            Field("renavam", "RENAVAM", "renavam", required=True, in_list=False, searchable=True),
            Field("make", "Marca", required=True),
            Field("model", "Modelo", required=True, searchable=True),
            Field("model_year", "Ano modelo", "int", required=True, max_years_ahead=1),
            Field("color", "Cor", in_list=False),
            Field("doors", "Portas", "int", required=True, in_list=False),
            Field("seats", "Lugares (com o condutor)", "int", required=True, in_list=False),
            Field("air_conditioning", "Ar-condicionado", "bool", in_list=False),
            Field("plated_in_municipality", "Emplacado no Município", "bool", in_list=False),
            Field("driver_cpf", "CPF do condutor", "cpf", required=True, filterable=True, searchable=True,
                  refers_to=("drivers", "cpf")),
            Field("holder", "Vínculo do condutor com o veículo", "choice", required=True, choices=HOLDERS),
            Field("holder_name", "Em nome de (CRLV)", in_list=False),
            Field("relative_degree", "Grau de parentesco (0 = cônjuge)", "int", in_list=False),
            Field("lessor_vehicle_count", "Veículos locados pelo locador (contado este)", "int", in_list=False),
            Field("first_registration", "Primeiro licenciamento", "date", in_list=False, not_future=True),
            Field("dpvat_paid", "DPVAT quitado", "bool", in_list=False),
            Field("licensing_valid", "Licenciamento em dia", "bool", in_list=False),
            Field("ipva_paid", "IPVA em dia", "bool", in_list=False),
            Field("garage_proof", "Local de guarda comprovado", "bool", in_list=False),
            Field("garage_address", "Endereço de guarda", in_list=False),
        ),
    )
)

AUTHORIZATION_STATUS = (
    ("requested", "Requerida"), ("refused", "Indeferida"), ("awaiting_inspection", "Aguardando vistoria"),
    ("awaiting_fee", "Aguardando pagamento da taxa"), ("active", "Ativa"), ("blocked", "Bloqueada"),
    ("suspended", "Suspensa"), ("revoked", "Revogada"), ("cassada", "Cassada"), ("expired", "Vencida"),
    ("cancelled", "Cancelada"),
)

AUTHORIZATIONS = register(
    EntitySpec(
        name="authorizations",
        feminine=True,
        label="Autorização",
        label_plural="Autorizações",
        module=MODULE,
        title_field="protocol",
        default_sort="protocol_date",
        fields=(
            Field("protocol", "Protocolo", required=True, unique=True, searchable=True),
            Field("protocol_date", "Data do protocolo", "date", required=True, not_future=True),
            Field("driver_cpf", "CPF do condutor", "cpf", required=True, filterable=True, searchable=True,
                  refers_to=("drivers", "cpf")),
            Field("plate", "Placa", "plate", required=True, searchable=True),
            Field("number", "Nº da autorização", searchable=True),
            Field("status", "Situação", "choice", filterable=True, choices=AUTHORIZATION_STATUS),
            Field("valid_until", "Validade", "date"),
        ),
    )
)

INSPECTION_KINDS = (("initial", "Inicial"), ("annual", "Anual"), ("extraordinary", "Extraordinária"),
                    ("return", "Retorno (pendências)"), ("substitution", "Substituição de veículo"))

INSPECTIONS = register(
    EntitySpec(
        name="inspections",
        feminine=True,
        label="Vistoria",
        label_plural="Vistorias",
        module=MODULE,
        default_sort="performed_on",
        fields=(
            Field("authorization_id", "Autorização", required=True, in_list=False),
            Field("plate", "Placa", "plate", required=True, searchable=True),
            Field("kind", "Tipo", "choice", required=True, filterable=True, choices=INSPECTION_KINDS),
            Field("performed_on", "Data da vistoria", "date", required=True, not_future=True),
            Field("result", "Resultado", "choice", required=True, filterable=True,
                  choices=(("approved", "Aprovado"), ("failed", "Reprovado"))),
            Field("fix_deadline", "Prazo para sanar", "date"),
            Field("inspector", "Vistoriador"),
            Field("notes", "Observações", "textarea", in_list=False),
        ),
    )
)
