"""When a notice counts as received, by the channel it went through (the date a term runs from).

- **eletrônico** (domicílio eletrônico; CG Decreto 06/2026 art. 25 §1 IV "por meio eletrônico, com
  prova de recebimento, mediante envio ao domicílio tributário"; MP Lei 1.552/2025 art. 21 §1 "por via
  eletrônica"): the acts give the channel but not when it counts; the anchor whose words CG art. 25
  §1 IV repeats is Decreto Federal 70.235/1972 art. 23 III and §2 III: notified on the day the
  addressee opens the message, or N days after its delivery if it is not opened before (ciência
  tácita). N is the dated municipal parameter :data:`TACIT_DAYS` (15 by default, as art. 23 §2 III
  "a"), in force on the day of delivery; the N days are calendar days, the day of delivery excluded,
  and the date is not moved to a business day: it is when the notice is deemed received, not a term
  for anyone to act (docs/LEITURAS.md, seção 7, leitura 27);
- **postal** (CG art. 25 §1 III; MP art. 21 §1): the date on the returned AR;
- **edital** (CG art. 25 §1 II; MP art. 21 §1): the publication date (neither act adds a term);
- **pessoal** (notificação direta, CG art. 25 §1 I): the date the addressee signs it.

Matupá's limit (MP art. 21 §1, "no prazo máximo de 90 dias da lavratura do auto") applies to the date
received, whatever the channel: :func:`within_limit`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from rules.base import Finding
from rules.calendar import LegalCalendar
from rules.fmt import day
from rules.params import ParameterVersion

TACIT_DAYS = "domicilio_ciencia_tacita_dias"
DEFAULT_TACIT_DAYS = 15
DTE = "Decreto Federal 70.235/1972, art. 23, III e §2º, III"
DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = (
    ParameterVersion(TACIT_DAYS, date(2000, 1, 1), DEFAULT_TACIT_DAYS, DTE,
                     "Dias corridos após a entrega no domicílio eletrônico em que a notificação não aberta "
                     "se considera recebida (ciência tácita); omisso nos atos municipais, adota-se o "
                     "Decreto 70.235/1972 (docs/LEITURAS.md, seção 7, leitura 27)"),
)

# channel → how the acts name the date that counts
CHANNELS = {
    "eletronico": "Domicílio eletrônico: abertura da mensagem ou ciência tácita",
    "postal": "Via postal com aviso de recebimento: data do AR",
    "edital": "Edital: data da publicação",
    "pessoal": "Notificação direta: data da assinatura",
}
OPENED, TACIT, WAITING = "aberta", "tacita", "aguardando"
STATES = {OPENED: "Aberta", TACIT: "Ciência tácita", WAITING: "Aguardando ciência"}


@dataclass(frozen=True)
class Receipt:
    """Where an electronic notice stands on a day: opened, tacitly received, or waiting."""

    state: str
    received_on: date | None  # None while waiting
    delivered_on: date
    tacit_on: date
    opened_on: date | None
    reference: str = DTE

    def text(self) -> str:
        """How the case shows it, in pt-BR."""
        if self.state == OPENED:
            return f"Entregue em {day(self.delivered_on)}; aberta em {day(self.opened_on)}"
        if self.state == TACIT:
            late = f" (aberta depois, em {day(self.opened_on)})" if self.opened_on else ""
            return f"Entregue em {day(self.delivered_on)}; ciência tácita em {day(self.tacit_on)}{late}"
        return (f"Entregue em {day(self.delivered_on)}; aguardando ciência (tácita em "
                f"{day(self.tacit_on)} se não for aberta)")


def tacit_on(delivered_on: date, days: int) -> date:
    """The day a notice never opened counts as received: ``days`` calendar days after the delivery,
    the delivery day excluded (Decreto 70.235/1972 art. 23 §2 III "a"; Lei 9.784/1999 art. 66 caput
    and §2), not moved to a business day (module docstring)."""
    if days < 1:
        raise ValueError("o prazo da ciência tácita é de pelo menos um dia")
    return delivered_on + timedelta(days=days)


def electronic_receipt(delivered_on: date, opened_on: date | None, days: int, on: date) -> Receipt:
    """The receipt of a notice delivered to the domicile on ``delivered_on``, as of ``on``: the opening
    day if it was opened by the tacit day (art. 23 §2 III "b"), else the tacit day once reached
    ("a"); an opening after the tacit day does not move it."""
    tacit = tacit_on(delivered_on, days)
    opened = opened_on if opened_on is not None and opened_on <= on else None
    if opened is not None and opened <= tacit:
        return Receipt(OPENED, opened, delivered_on, tacit, opened)
    if on >= tacit:
        return Receipt(TACIT, tacit, delivered_on, tacit, opened)
    return Receipt(WAITING, None, delivered_on, tacit, None)


def received_on(channel: str, on: date, *, delivered_on: date | None = None, opened_on: date | None = None,
                tacit_days: int = DEFAULT_TACIT_DAYS, ar_on: date | None = None, published_on: date | None = None,
                signed_on: date | None = None) -> date | None:
    """The date the notice counts as received by ``channel`` (:data:`CHANNELS`), as of ``on``; None
    while it has not (an electronic notice waiting, an AR not back, an edital not published)."""
    if channel == "eletronico":
        if delivered_on is None:
            return None
        return electronic_receipt(delivered_on, opened_on, tacit_days, on).received_on
    given = {"postal": ar_on, "edital": published_on, "pessoal": signed_on}
    if channel not in given:
        raise ValueError(f"canal de notificação desconhecido: {channel}")
    when = given[channel]
    return when if when is not None and when <= on else None


def within_limit(auto_on: date, received: date, limit_days: int, calendar: LegalCalendar,
                 reference: str) -> Finding:
    """Matupá: the notice received within ``limit_days`` of the auto (MP art. 21 §1), whatever the
    channel; the end moved to a business day (Lei 9.784/1999 art. 66 §1)."""
    limit = calendar.add_days(auto_on, limit_days)
    return Finding(received <= limit, f"Notificação recebida em {day(received)}; prazo máximo {day(limit)} "
                                      f"({limit_days} dias da lavratura)", reference)
