"""What Decreto 06/2026 (Chapada dos Guimarães) declares: documents, vistoria items, infractions."""
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

ACT = "Decreto 06/2026 (Chapada dos Guimarães)"


def art(text: str) -> str:
    return f"{ACT}, {text}"


DOCUMENTS = (
    DocumentRequirement("cnh", "CNH categoria B ou superior", art("art. 12, I")),
    DocumentRequirement("inss", "Comprovante de inscrição no INSS como contribuinte individual", art("art. 12, II")),
    DocumentRequirement("criminal", "Certidão negativa de antecedentes criminais", art("art. 12, III"),
                        "criminal_certificate_days"),
    DocumentRequirement("municipal_tax", "Certidão negativa (ou positiva com efeitos de negativa) de débitos "
                        "municipais", art("art. 12, IV"), "tax_certificate_days"),
    DocumentRequirement("medical", "Atestado médico de aptidão", art("art. 12, V"), "medical_certificate_days"),
    DocumentRequirement("residence", "Comprovante de residência no Município", art("art. 12, VI"),
                        "residence_proof_days"),
    DocumentRequirement("platform_declaration", "Declaração de serviço exclusivo por plataforma", art("art. 12, VII")),
    DocumentRequirement("vehicle_plate", "Documento do veículo emplacado no Município", art("art. 12, VIII")),
)

INSPECTION = tuple(ChecklistItem(code, text, art(f"art. 14, {code}")) for code, text in (
    ("I", "Características originais de fábrica; conservação, funcionamento, segurança, higiene e limpeza"),
    ("II", "Equipamentos obrigatórios da legislação de trânsito"),
    ("III", "Idade máxima de 10 anos, contada do ano modelo"),
    ("IV", "Exigências do Código de Trânsito Brasileiro"),
    ("V", "Seguro DPVAT quitado"),
    ("VI", "Ar-condicionado"),
    ("VII", "Aprovação na vistoria da Secretaria Municipal de Finanças"),
    ("VIII", "Taxa do Código Tributário Municipal recolhida"),
    ("IX", "Emplacado em Chapada dos Guimarães"),
))

DUTIES = (
    ("I", "Portar a autorização específica emitida pela Secretaria Municipal de Finanças"),
    ("II", "Trajar-se adequadamente (vedados bermudas, regatas e similares)"),
    ("III", "Tratar com urbanidade os passageiros"),
    ("IV", "Não dormir nem fazer refeições no interior do veículo"),
    ("V", "Dirigir com segurança e conforto aos passageiros"),
    ("VI", "Obedecer à velocidade estipulada nas vias públicas"),
    ("VII", "Cumprir as normas do Decreto e os atos administrativos"),
    ("VIII", "Não fumar no interior do veículo"),
    ("IX", "Não transportar pessoas sob influência de álcool ou substância psicotrópica"),
    ("X", "Observar a lotação máxima do veículo"),
    ("XI", "Não fazer ponto nem arrecadar passageiros na via pública, parques e similares"),
    ("XII", "Não interromper a via pública para desembarcar passageiro"),
    ("XIII", "Transportar apenas pessoas com contrato pela plataforma"),
    ("XIV", "Apresentar o veículo limpo e higienizado"),
    ("XV", "Usar somente veículo conservado e seguro, sem avarias"),
    ("XVI", "Não usar adesivos publicitários ou da plataforma na parte externa"),
    ("XVII", "Cumprir as determinações da Secretaria Municipal de Finanças"),
    ("XVIII", "Atender às obrigações fiscais e fornecer os dados solicitados"),
    ("XIX", "Comunicar alteração de dados cadastrais em até 7 dias"),
    ("XX", "Usar somente o veículo cadastrado"),
    ("XXI", "Responder pela veracidade das informações e documentos"),
    ("XXII", "Recolher multas e taxas no prazo"),
    ("XXIII", "Não recusar passageiro com deficiência"),
    ("XXIV", "Acomodar com segurança a cadeira de rodas"),
)

SUSPENSION_12 = (Penalty.MULTA, Penalty.SUSPENSAO)

CATALOGUE = (
    InfractionType("CG-29-I", "Não atender a notificação para realizar a vistoria", art("art. 29, I"),
                   Severity.LEVE),
    InfractionType("CG-29-II", "Realizar serviços com o veículo reprovado em vistoria, no prazo de "
                   "regularização", art("art. 29, II c/c art. 17, §2º"), Severity.LEVE,
                   measures=(Measure.IMPEDIMENTO,)),
    *(InfractionType(f"CG-18-{n}", f"Descumprir dever do condutor: {text}", art(f"art. 29, III c/c art. 18, {n}"),
                     Severity.MEDIA) for n, text in DUTIES),
    InfractionType("CG-29-IV", "Embarcar usuário na via pública sem intermediação da plataforma",
                   art("art. 29, IV"), Severity.GRAVE,
                   on_recurrence=RecurrenceEffect(art("art. 29, §1º"), (Penalty.SUSPENSAO,), suspension_days=30)),
    InfractionType("CG-29-V", "Agredir fisicamente o Agente Fiscalizador no exercício de suas funções",
                   art("art. 29, V"), Severity.GRAVISSIMA, SUSPENSION_12, suspension_months=12,
                   on_recurrence=RecurrenceEffect(art("art. 29, §2º"), (Penalty.CASSACAO,))),
    InfractionType("CG-29-VI", "Utilizar ponto de táxi ou de ônibus para embarque e desembarque",
                   art("art. 29, VI"), Severity.GRAVE),
    InfractionType("CG-29-VII", "Oferecer cartões ou similares para serviço fora da plataforma",
                   art("art. 29, VII"), Severity.GRAVE, SUSPENSION_12, suspension_months=12),
    InfractionType("CG-30", "Transporte ilegal: serviço em desacordo com a Lei 2.103/2025", art("art. 30"),
                   Severity.GRAVISSIMA,
                   on_recurrence=RecurrenceEffect(art("art. 30, parágrafo único"),
                                                  measures=(Measure.APREENSAO_VEICULO,)),
                   unregistered=True),
)

NOTIFICATION_METHODS = (
    NotificationMethod("direct", "notificação direta", art("art. 25, §1º, I")),
    NotificationMethod("official_gazette", "publicação no Diário Oficial dos Municípios", art("art. 25, §1º, II")),
    NotificationMethod("post", "via postal ou carta com aviso de recepção", art("art. 25, §1º, III")),
    NotificationMethod("electronic", "meio eletrônico com prova de recebimento", art("art. 25, §1º, IV")),
    # delivered by the panel to the domicile; received on opening or tacitly (rules/notice.py)
    NotificationMethod("domicile", "domicílio eletrônico", art("art. 25, §1º, IV")),
)

TRIP_DATA = tuple(TripDataField(code, label, art(f"art. 11, §1º, {n}")) for n, code, label in (
    ("I", "origin_destination", "origem e destino da viagem"),
    ("II", "duration_distance", "tempo de duração e distância do trajeto"),
    ("III", "route_map", "mapa do trajeto"),
    ("IV", "driver", "identificação do condutor"),
    ("V", "fare", "composição do valor pago"),
    ("VI", "rating", "avaliação do serviço pelo usuário"),
))
