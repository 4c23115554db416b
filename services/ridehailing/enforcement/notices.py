"""Every notice of an auto to the offender as the case shows it (the screen and the case file PDF): its
channel and article, the sending or delivery, the opening or tacit receipt, the AR received or returned
undelivered, the edital's number, edition and publication, and the juntada (CG Decreto 06/2026 art. 25
§1–§2; MP Lei 1.552/2025 art. 21 §1–§2). The notices that did not reach the offender are kept on the auto
(``notice_attempts``) when a new one replaces them (``process.kept_attempt``)."""
from __future__ import annotations

from datetime import date

from rules.fmt import day
from services.ridehailing.enforcement import autos
from services.store import parse_date


def _line(notice: dict, on: date) -> str:
    """What happened to one notice, in pt-BR."""
    parts: list[str] = []
    sent, received = parse_date(notice.get("sent_on")), parse_date(notice.get("received_on"))
    if notice.get("message_id"):
        parts.append(autos.receipt_line(notice, on))
    elif notice.get("edital_number"):
        parts.append(f"edital nº {notice['edital_number']}")
        if notice.get("published_on"):
            parts.append(f"publicado em {day(parse_date(notice['published_on']))} (edição nº {notice['edition']} do "
                         f"órgão oficial); notificado em {day(received)}")
        else:
            parts.append(f"montado em {day(sent)}, aguardando publicação")
    else:
        if sent:
            parts.append(f"enviada em {day(sent)}")
        if notice.get("returned_on"):
            parts.append(f"AR devolvido em {day(parse_date(notice['returned_on']))} "
                         f"({notice.get('return_reason_label', '')})")
        elif received:
            parts.append(f"{'AR recebido' if notice.get('method') == 'post' else 'recebida'} em {day(received)}")
        elif notice.get("method") == "post":
            parts.append("aguardando o AR")
    if notice.get("bounced_on"):
        parts.append(f"mensagem devolvida em {day(parse_date(notice['bounced_on']))}")
    juntada = parse_date(notice.get("juntada_on"))
    if juntada:
        parts.append(f"juntada em {day(juntada)}")
    return "; ".join(p for p in parts if p)


def notice_rows(doc: dict, on: date) -> list[tuple[str, str]]:
    """Every notice to the offender, oldest first: (``Notificação N — forma (artigo)``, what happened),
    the current one as it stands on ``on`` (a notice never opened counts from its tacit day)."""
    current = (autos.as_of(doc, on).get("notification") or {})
    notices = [*doc.get("notice_attempts", []), *([current] if current.get("method") else [])]
    return [(f"Notificação {i} — {n.get('method_label', '')} ({n.get('method_reference', '')})", _line(n, on))
            for i, n in enumerate(notices, 1)]
