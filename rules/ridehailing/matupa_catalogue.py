"""What Lei 1.552/2025 (Matupá) declares: documents, vistoria items, infractions."""
from __future__ import annotations

from rules.ridehailing.catalogue import (
    ChecklistItem,
    DocumentRequirement,
    InfractionType,
    NotificationMethod,
    RecurrenceEffect,
    TripDataField,
)
from rules.ridehailing.concepts import Measure, Penalty, Severity

ACT = "Lei 1.552/2025 (Matupá)"


def art(text: str) -> str:
    return f"{ACT}, {text}"


DOCUMENTS = (
    DocumentRequirement("cnh", "CNH categoria B ou superior, com observação EAR", art("art. 11, I e art. 12, II")),
    DocumentRequirement("platform_declaration", "Compromisso formal de serviço exclusivo por plataforma",
                        art("art. 11, II")),
    DocumentRequirement("inss", "Inscrição no INSS como contribuinte individual", art("art. 11, III")),
    DocumentRequirement("criminal", "Certidão negativa de antecedentes criminais", art("art. 11, IV"),
                        "criminal_certificate_days"),
    DocumentRequirement("medical", "Atestado médico de aptidão física e mental", art("art. 11, V"),
                        "medical_certificate_days"),
    DocumentRequirement("residence", "Comprovante de residência no Município", art("art. 11, VI"),
                        "residence_proof_days"),
    DocumentRequirement("vehicle_plate", "Documento do veículo emplacado no Município e vinculado ao condutor",
                        art("art. 8º, I")),
    DocumentRequirement("municipal_tax", "Certidão negativa (ou positiva com efeitos de negativa) de débitos "
                        "municipais", art("art. 8º, II"), "tax_certificate_days"),
    DocumentRequirement("garage", "Comprovação de local para guarda do veículo", art("art. 8º, III")),
)

INSPECTION = tuple(ChecklistItem(code, text, art(f"art. 14, §1º, {code}")) for code, text in (
    ("I", "Características originais de fábrica; conservação, funcionamento, segurança, higiene e limpeza"),
    ("II", "Equipamentos exigidos pela legislação de trânsito"),
    ("III", "Conformidade com o Código de Trânsito Brasileiro"),
    ("IV", "Seguro DPVAT, licenciamento e IPVA regulares"),
    ("V", "Ar-condicionado"),
    ("VI", "Aprovação em vistoria municipal"),
    ("VII", "Taxas previstas recolhidas"),
    ("VIII", "Emplacado no Município de Matupá"),
))

DUTIES = (  # art. 12, with the severity that art. 26, III gives each inciso
    ("I", "Portar a autorização expedida pelo Município", Severity.MEDIA),
    ("II", "Possuir e portar CNH válida com a observação EAR", Severity.GRAVISSIMA),
    ("III", "Trajar-se adequadamente", Severity.LEVE),
    ("IV", "Tratar com urbanidade os passageiros", Severity.LEVE),
    ("V", "Não dormir ou fazer refeições dentro do veículo", Severity.LEVE),
    ("VI", "Dirigir com segurança e conforto", Severity.MEDIA),
    ("VII", "Respeitar os limites de velocidade", Severity.LEVE),
    ("VIII", "Cumprir rigorosamente a Lei e os atos administrativos", Severity.MEDIA),
    ("IX", "Não fumar no veículo", Severity.LEVE),
    ("X", "Não consumir bebidas alcoólicas no dia de trabalho", Severity.LEVE),
    ("XI", "Obedecer à lotação máxima do veículo", Severity.MEDIA),
    ("XII", "Não fazer ponto fixo em vias públicas nem abordar passageiros fora do aplicativo", Severity.MEDIA),
    ("XIII", "Não interromper o trânsito sem necessidade", Severity.MEDIA),
    ("XIV", "Transportar apenas passageiros contratados pelo aplicativo", Severity.LEVE),
    ("XV", "Manter o veículo limpo e higienizado", Severity.LEVE),
    ("XVI", "Utilizar apenas veículos em boas condições e sem avarias", Severity.MEDIA),
    ("XVII", "Não aplicar publicidade externa não autorizada", Severity.LEVE),
    ("XVIII", "Cumprir as determinações da Administração Municipal", Severity.MEDIA),
    ("XIX", "Atender às obrigações fiscais e fornecer documentos", Severity.MEDIA),
    ("XX", "Comunicar alterações cadastrais em até 7 dias", Severity.LEVE),
    ("XXI", "Utilizar exclusivamente o veículo autorizado", Severity.LEVE),
    ("XXII", "Garantir a veracidade das informações prestadas", Severity.LEVE),
    ("XXIII", "Pagar taxas e multas municipais", Severity.MEDIA),
    ("XXIV", "Não recusar pessoa com deficiência ou mobilidade reduzida e acomodar a cadeira de rodas",
     Severity.GRAVISSIMA),
    ("XXV", "Operar apenas com veículo cadastrado e autorização válida", Severity.GRAVISSIMA),
    ("XXVI", "Manter vigente a apólice de seguro APP", Severity.GRAVISSIMA),
    ("XXVII", "Não fraudar, adulterar ou inserir informações falsas", Severity.GRAVISSIMA),
)

_ITEM = {Severity.LEVE: "a", Severity.MEDIA: "b", Severity.GRAVISSIMA: "d"}
SEIZURE = RecurrenceEffect(art("art. 27, parágrafo único"), measures=(Measure.APREENSAO_VEICULO,))

CATALOGUE = (
    InfractionType("MP-26-I", "Deixar de atender à convocação para vistoria do veículo", art("art. 26, I"),
                   Severity.LEVE),
    InfractionType("MP-26-II", "Não apresentar o veículo no prazo legal após aprovação da autorização",
                   art("art. 26, II"), Severity.LEVE),
    *(InfractionType(f"MP-12-{n}", f"Descumprir dever do condutor: {text}",
                     art(f"art. 26, III, {_ITEM[severity]} c/c art. 12, {n}"), severity)
      for n, text, severity in DUTIES),
    InfractionType("MP-26-III-c", "Conduta que gere risco direto à segurança do passageiro ou de terceiros",
                   art("art. 26, III, c"), Severity.GRAVE),
    InfractionType("MP-26-IV", "Embarcar passageiro sem solicitação prévia pela plataforma",
                   art("art. 26, IV"), Severity.GRAVE, (Penalty.MULTA, Penalty.SUSPENSAO), suspension_days=30),
    InfractionType("MP-26-V", "Agredir verbalmente agente fiscalizador no exercício da função",
                   art("art. 26, V"), Severity.GRAVE, (Penalty.MULTA, Penalty.SUSPENSAO), suspension_days=90),
    InfractionType("MP-26-VI", "Agredir fisicamente agente fiscalizador no exercício da função",
                   art("art. 26, VI"), Severity.GRAVISSIMA, (Penalty.MULTA, Penalty.CASSACAO)),
    InfractionType("MP-26-VII", "Utilizar ponto de táxi, ainda que temporariamente", art("art. 26, VII"),
                   Severity.GRAVE),
    InfractionType("MP-27", "Transporte ilegal: serviço em desconformidade com a Lei", art("art. 27, I"),
                   Severity.GRAVISSIMA, on_recurrence=SEIZURE, unregistered=True),
)

NOTIFICATION_METHODS = (
    NotificationMethod("post", "via postal com aviso de recebimento", art("art. 21, §1º")),
    NotificationMethod("electronic", "via eletrônica", art("art. 21, §1º")),
    # delivered by the panel to the domicile; received on opening or tacitly (rules/notice.py)
    NotificationMethod("domicile", "domicílio eletrônico", art("art. 21, §1º")),
    NotificationMethod("official_gazette", "edital no órgão oficial do Município", art("art. 21, §1º")),
)

TRIP_DATA = tuple(TripDataField(code, label, art(f"art. 4º, §1º, {n}")) for n, code, label in (
    ("I", "origin_destination", "origem e destino da viagem"),
    ("II", "duration_distance", "tempo e distância da viagem"),
    ("III", "route_map", "mapa do trajeto"),
    ("IV", "driver", "identificação do condutor"),
    ("V", "fare", "composição do valor pago"),
    ("VI", "rating", "avaliação do serviço prestado"),
))
