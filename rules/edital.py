"""The channel of an auto's notice and the notification by edital (CG Decreto 06/2026 art. 25 §1–§2; MP
Lei 1.552/2025 art. 21 §1–§2; docs/LEITURAS.md, seção 7, leituras 24, 27 e 28).

- **Which channel** (:func:`propose`): the electronic domicile when the addressee has an active one (CG
  art. 25 §1 IV; MP art. 21 §1 "por via eletrônica"); else post with AR at the known address (CG art. 25
  §1 III; MP art. 21 §1); else — unknown address, an AR returned undelivered, a domicile message that
  could not be delivered — the edital (CG art. 25 §1 II, "publicação no diário oficial dos Municípios";
  MP art. 21 §1, "edital no órgão oficial do Município"), which needs no address.
- **When the edital notifies** (:func:`notified_on`): CG art. 25 §1 says the offender "considera-se
  notificado ... da publicação"; MP art. 21 §1 gives the edital as a way of delivering the notice, with
  no added term. The day is the publication's plus :data:`EDITAL_DAYS` calendar days, a dated municipal
  parameter, 0 by default (the federal edital's 15 days, Decreto 70.235/1972 art. 23 §2 IV, are not in
  the municipal acts). The juntada (CG art. 25 §2; MP art. 21 §2) is the record of the publication in
  the case: never before that day, nor before the day the panel records it (:func:`juntada_on`).
- **Matupá's limit** (MP art. 21 §1, "no prazo máximo de 90 dias da lavratura") applies to that day,
  whatever the channel (``rules/notice.py``, :func:`rules.notice.within_limit`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from rules.fmt import day
from rules.params import ParameterVersion

EDITAL_DAYS = "edital_dias_apos_publicacao"
DEFAULT_EDITAL_DAYS = 0
DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = (
    ParameterVersion(EDITAL_DAYS, date(2000, 1, 1), DEFAULT_EDITAL_DAYS,
                     "Decreto 06/2026 (Chapada dos Guimarães), art. 25, §1º, II; "
                     "Lei 1.552/2025 (Matupá), art. 21, §1º",
                     "Dias corridos após a publicação do edital em que o autuado se considera notificado; os atos "
                     "dizem “da publicação” (0). O Decreto 70.235/1972, art. 23, §2º, IV, usaria 15 "
                     "(docs/LEITURAS.md, seção 7, leitura 28)"),
)

ELECTRONIC, POSTAL, EDITAL = "eletronico", "postal", "edital"
CHANNELS = {ELECTRONIC: "Domicílio eletrônico", POSTAL: "Via postal com aviso de recebimento (AR)",
            EDITAL: "Edital"}

# Why the Correios return an AR undelivered (the reasons printed on the AR's back)
RETURN_REASONS = {
    "mudou_se": "Mudou-se",
    "endereco_insuficiente": "Endereço insuficiente",
    "numero_inexistente": "Não existe o número indicado",
    "desconhecido": "Desconhecido",
    "recusado": "Recusado",
    "nao_procurado": "Não procurado",
    "ausente": "Ausente",
    "falecido": "Falecido",
    "outros": "Outros",
}


@dataclass(frozen=True)
class Proposal:
    """The channel the law allows for a notice, and why (pt-BR, with the article's role)."""

    channel: str
    reason: str
    method: str  # the act's notification method code (rules/ridehailing catalogue)

    @property
    def label(self) -> str:
        return CHANNELS[self.channel]


def propose(has_domicile: bool, address_known: bool, returned_reason: str = "", bounced: bool = False) -> Proposal:
    """The channel in the law's order: domicile, post with AR, edital when the addressee cannot be reached."""
    if has_domicile and not bounced:
        return Proposal(ELECTRONIC, "O autuado tem domicílio eletrônico ativo: a notificação é entregue lá e "
                                    "conta da abertura ou da ciência tácita", "domicile")
    if not address_known:
        return Proposal(EDITAL, "Endereço desconhecido e sem domicílio eletrônico: o autuado não pode ser "
                                "alcançado pelo correio", "official_gazette")
    if returned_reason:
        why = RETURN_REASONS.get(returned_reason, returned_reason)
        return Proposal(EDITAL, f"AR devolvido ({why}) e sem domicílio eletrônico: o autuado não foi alcançado no "
                                "endereço", "official_gazette")
    if bounced:
        return Proposal(POSTAL, "A mensagem do domicílio eletrônico não foi entregue: notifique pelo correio no "
                                "endereço conhecido", "post")
    return Proposal(POSTAL, "Sem domicílio eletrônico ativo: via postal com AR no endereço conhecido; se o AR "
                            "voltar sem entrega, por edital", "post")


def notified_on(published_on: date, days: int = DEFAULT_EDITAL_DAYS) -> date:
    """The day the edital notifies: the publication plus ``days`` calendar days (0: the publication day),
    not moved to a business day — it is when the notice counts as received, not a term to act in."""
    if days < 0:
        raise ValueError("os dias após a publicação do edital não podem ser negativos")
    return published_on + timedelta(days=days)


def juntada_on(notified: date, recorded_on: date) -> date:
    """The juntada of the publication's record: the day it notifies, or the day the panel records it if
    later (the defence term, CG art. 25 §2 / MP art. 21 §2, never runs before the record is in the case)."""
    return max(notified, recorded_on)


# ---- the edital's text (Diário Oficial dos Municípios, AMM/MT) ----

MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
          "novembro", "dezembro")


def long_day(value: date) -> str:
    """``6 de dezembro de 2026`` (the date line of an act)."""
    return f"{value.day} de {MONTHS[value.month - 1]} de {value.year}"


@dataclass(frozen=True)
class EditalLine:
    """One auto listed in the edital: what may be published of the offender (name, masked CPF or CNPJ)."""

    number: str
    auto_on: date
    infraction: str  # the infraction's article
    name: str
    document: str  # already masked for a CPF (LGPD): ***.456.789-**


@dataclass(frozen=True)
class EditalText:
    municipality: str
    secretariat: str
    secretariat_address: str
    number: str  # "0001/2026"
    act: str  # the municipal act
    notification_reference: str  # CG art. 25 §1 II / MP art. 21 §1
    defence_reference: str
    defence_days: int
    days_after: int  # EDITAL_DAYS in force
    limit_days: int | None  # Matupá's 90 days
    lines: Sequence[EditalLine]
    dated: date
    signer_name: str
    signer_role: str


def article(reference: str, act: str) -> str:
    """``art. 25, §1º, II`` of ``Decreto 06/2026 (...), art. 25, §1º, II`` (the act named once in the text)."""
    return reference[len(act) + 2:] if reference.startswith(act + ", ") else reference


def edital_lines(data: EditalText) -> list[str]:
    """The edital as the gazette publishes it, line by line: heading, number, legal basis, the autos,
    the term and where to file the defence, place, date and signer."""
    plural = len(data.lines) != 1
    notified = ("na data da publicação deste edital" if data.days_after == 0
                else f"{data.days_after} dias corridos após a publicação deste edital")
    limit = (f" A notificação observa o prazo máximo de {data.limit_days} dias da lavratura do auto "
             f"({data.notification_reference})." if data.limit_days else "")
    out = [
        "ESTADO DE MATO GROSSO",
        f"PREFEITURA MUNICIPAL DE {data.municipality.upper()}",
        data.secretariat.upper(),
        "",
        f"EDITAL DE NOTIFICAÇÃO Nº {data.number}",
        "",
        f"A {data.secretariat} de {data.municipality}, com fundamento no "
        f"{article(data.notification_reference, data.act)} e no {article(data.defence_reference, data.act)}, "
        f"{'da' if data.act.startswith('Lei') else 'do'} {data.act}, NOTIFICA "
        + ("os autuados abaixo relacionados, que não puderam ser notificados pessoalmente, pelo correio ou "
           "pelo domicílio eletrônico, da lavratura dos respectivos Autos de Infração:" if plural else
           "o autuado abaixo identificado, que não pôde ser notificado pessoalmente, pelo correio ou pelo "
           "domicílio eletrônico, da lavratura do respectivo Auto de Infração:"),
        "",
        "AUTO Nº | LAVRADO EM | INFRAÇÃO | AUTUADO | CPF/CNPJ",
    ]
    out += [f"{line.number} | {day(line.auto_on)} | {article(line.infraction, data.act)} | {line.name} | "
            f"{line.document or '—'}" for line in data.lines]
    out += [
        "",
        f"Considera-se o autuado notificado {notified} ({data.notification_reference}).{limit} O prazo de "
        f"{data.defence_days} dias para apresentar defesa conta-se da juntada da publicação ao processo "
        f"administrativo ({data.defence_reference}). A defesa deve ser protocolada na {data.secretariat}, "
        f"{data.secretariat_address}, onde os autos do processo estão à disposição do autuado.",
        "",
        f"{data.municipality} - MT, {long_day(data.dated)}.",
        "",
        data.signer_name.upper(),
        data.signer_role,
    ]
    return out
