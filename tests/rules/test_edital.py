"""The channel of a notice and the edital's term (rules/edital.py), each row naming its article."""
from __future__ import annotations

from datetime import date

import pytest

from rules import edital, notice
from rules.calendar import LegalCalendar

CAL = LegalCalendar()
PUBLISHED = date(2026, 3, 2)  # a Monday

CHANNEL_ROWS = [
    # has_domicile, address_known, returned_reason, bounced → channel, method
    pytest.param(True, True, "", False, edital.ELECTRONIC, "domicile",
                 id="CG art. 25 §1 IV / MP art. 21 §1: active domicile, electronic first"),
    pytest.param(True, False, "", False, edital.ELECTRONIC, "domicile",
                 id="CG art. 25 §1 IV: the domicile reaches someone with no known address"),
    pytest.param(True, True, "mudou_se", False, edital.ELECTRONIC, "domicile",
                 id="CG art. 25 §1 IV: AR returned but a domicile exists"),
    pytest.param(False, True, "", False, edital.POSTAL, "post",
                 id="CG art. 25 §1 III / MP art. 21 §1: no domicile, known address: post with AR"),
    pytest.param(False, False, "", False, edital.EDITAL, "official_gazette",
                 id="CG art. 25 §1 II / MP art. 21 §1: unknown address, no domicile: edital"),
    pytest.param(False, True, "mudou_se", False, edital.EDITAL, "official_gazette",
                 id="CG art. 25 §1 II / MP art. 21 §1: AR returned (mudou-se): edital"),
    pytest.param(False, True, "recusado", False, edital.EDITAL, "official_gazette",
                 id="CG art. 25 §1 II / MP art. 21 §1: AR returned (recusado): edital"),
    pytest.param(True, True, "", True, edital.POSTAL, "post",
                 id="CG art. 25 §1 III: domicile message bounced, known address: post"),
    pytest.param(True, False, "", True, edital.EDITAL, "official_gazette",
                 id="CG art. 25 §1 II: domicile message bounced, no address: edital"),
]


@pytest.mark.parametrize("has_domicile, known, returned, bounced, channel, method", CHANNEL_ROWS)
def test_the_channel_the_law_allows_in_its_order(has_domicile, known, returned, bounced, channel, method):
    proposal = edital.propose(has_domicile, known, returned, bounced)
    assert (proposal.channel, proposal.method) == (channel, method)
    assert proposal.reason and proposal.label == edital.CHANNELS[channel]
    if returned and channel == edital.EDITAL:
        assert edital.RETURN_REASONS[returned] in proposal.reason


TERM_ROWS = [
    # published_on, days after (parameter), recorded_on → notified, juntada
    pytest.param(PUBLISHED, 0, PUBLISHED, PUBLISHED, PUBLISHED,
                 id="CG art. 25 §1 II 'da publicação' and §2: notified and joined on the publication day"),
    pytest.param(PUBLISHED, 0, date(2026, 3, 5), PUBLISHED, date(2026, 3, 5),
                 id="CG art. 25 §2 / MP art. 21 §2: recorded 3 days later, the term runs from that juntada"),
    pytest.param(date(2026, 3, 6), 0, date(2026, 3, 6), date(2026, 3, 6), date(2026, 3, 6),
                 id="MP art. 21 §1 'por edital': a Friday publication notifies on the Friday (not moved)"),
    pytest.param(PUBLISHED, 15, PUBLISHED, date(2026, 3, 17), date(2026, 3, 17),
                 id="Decreto 70.235 art. 23 §2 IV, if the municipality adopts it: 15 days after publication"),
    pytest.param(PUBLISHED, 15, date(2026, 3, 20), date(2026, 3, 17), date(2026, 3, 20),
                 id="Decreto 70.235 art. 23 §2 IV: recorded after the 15th day, joined when recorded"),
]


@pytest.mark.parametrize("published, days, recorded, notified, joined", TERM_ROWS)
def test_the_edital_notifies_on_the_day_the_reading_gives(published, days, recorded, notified, joined):
    assert edital.notified_on(published, days) == notified
    assert edital.juntada_on(notified, recorded) == joined


def test_the_default_is_the_publication_day_as_a_dated_parameter():
    (version,) = edital.DEFAULT_PARAMETERS
    assert (version.name, version.value) == (edital.EDITAL_DAYS, 0)
    assert "art. 25, §1º, II" in version.act and "art. 21, §1º" in version.act
    with pytest.raises(ValueError):
        edital.notified_on(PUBLISHED, -1)


AUTO_ON = date(2026, 1, 5)  # a Monday; the 90th day is 05/04/2026, a Sunday → 06/04/2026

LIMIT_ROWS = [
    # published_on, days after → within the limit
    pytest.param(date(2026, 4, 6), 0, True, id="MP art. 21 §1: published on the 90th day (moved to Monday)"),
    pytest.param(date(2026, 4, 7), 0, False, id="MP art. 21 §1: published on the 91st day: late"),
    pytest.param(date(2026, 3, 25), 15, False,
                 id="MP art. 21 §1: with 15 days after publication, the notice lands after the limit"),
    pytest.param(date(2026, 3, 20), 15, True, id="MP art. 21 §1: with 15 days, notified on 04/04, in time"),
]


@pytest.mark.parametrize("published, days, ok", LIMIT_ROWS)
def test_matupa_90_days_count_for_the_edital_as_for_any_channel(published, days, ok):
    received = edital.notified_on(published, days)
    assert notice.within_limit(AUTO_ON, received, 90, CAL, "Lei 1.552/2025 (Matupá), art. 21, §1º").ok is ok


def test_the_edital_text_in_the_gazette_format():
    data = edital.EditalText(
        "Chapada dos Guimarães", "Secretaria Municipal de Finanças", "Rua Quinco Caldas, 100", "0003/2026",
        "Decreto 06/2026 (Chapada dos Guimarães)", "Decreto 06/2026 (Chapada dos Guimarães), art. 25, §1º, II",
        "Decreto 06/2026 (Chapada dos Guimarães), art. 25, §2º", 30, 0, None,
        (edital.EditalLine("0007/2026", date(2026, 3, 2), "Decreto 06/2026 (Chapada dos Guimarães), art. 30",
                           "Marcos Sem Cadastro", "***.456.789-**"),),
        date(2026, 12, 6), "Ana Paula Souza", "Secretária Municipal de Finanças")
    lines = edital.edital_lines(data)
    assert lines[:5] == ["ESTADO DE MATO GROSSO", "PREFEITURA MUNICIPAL DE CHAPADA DOS GUIMARÃES",
                         "SECRETARIA MUNICIPAL DE FINANÇAS", "", "EDITAL DE NOTIFICAÇÃO Nº 0003/2026"]
    text = "\n".join(lines)
    assert "com fundamento no art. 25, §1º, II e no art. 25, §2º, do Decreto 06/2026" in text
    assert "0007/2026 | 02/03/2026 | art. 30 | Marcos Sem Cadastro | ***.456.789-**" in text
    assert "notificado na data da publicação deste edital" in text and "30 dias para apresentar defesa" in text
    assert "protocolada na Secretaria Municipal de Finanças, Rua Quinco Caldas, 100" in text
    assert lines[-4:] == ["Chapada dos Guimarães - MT, 6 de dezembro de 2026.", "", "ANA PAULA SOUZA",
                          "Secretária Municipal de Finanças"]
