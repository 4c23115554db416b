"""A BPC family's request printed on every booking document (plain data, no store)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

from rules.machinery.statement import StatementTotals
from services.machinery.booking_pdf import (
            BoardRow,
            BookingPrint,
            InstalmentPrint,
            LinePrint,
            Town,
            WeekPrint,
)

TOWN = Town("Nova Lacerda", "Secretaria Municipal de Obras e Infraestrutura",
            "Avenida Mato Grosso, 200, Centro, Nova Lacerda - MT, 78243-000")
BPC_FAMILY = BookingPrint(
    town=TOWN, act="Decreto Municipal 017/2026", protocol="0007/2026", requested_on=date(2026, 11, 3),
    requester_name="Maria Aparecida dos Santos", requester_document="123.456.789-09",
    requester_address="Sítio Boa Esperança, Estrada do Guaporé km 12", zone="Zona Rural Norte",
    locality="Assentamento Guaporé", place="Sítio Boa Esperança: aterro do quintal",
    services=("5 cargas de terra/cascalho",), issued_on=date(2026, 12, 1),
    lines=(LinePrint("12", "Transporte de carga de terra/cascalho", "Por viagem ou por carga", D("5"),
                     D("150.00"), D("750.00"), D("525.00"), D("225.00")),),
    gross=D("750.00"), discount_total=D("525.00"), total=D("225.00"),
    discount_reason="Desconto de 70%: Recebimento do Benefício de Prestação Continuada (BPC) — comprovante nº 8876",
    price_table="Tabela de preços em vigor desde 24/03/2026 (Decreto 017/2026 (Nova Lacerda), Anexo I)",
    instalments=(InstalmentPrint("Pagamento integral (art. 8, §1)", D("225.00"), date(2026, 11, 10), "0031/2026",
                                 D("225.00"), D("0.00"), "pago em 06/11/2026", date(2026, 11, 6)),),
    totals=StatementTotals(charged=D("225.00"), paid=D("225.00"), open=D("0.00"), owed_back=D("0.00")),
    payments=(("0031/2026", date(2026, 11, 6), D("225.00")),),
    schedule_day=date(2026, 11, 20), team=(("Caminhão basculante QBA-1234", "José Pereira (motorista)"),),
    started_on=date(2026, 11, 20), ended_on=date(2026, 11, 20), loads_delivered=5,
    meters=(("Caminhão basculante QBA-1234", D("48210"), D("48262")),),
)
WEEK = WeekPrint(TOWN, date(2026, 11, 16), (
    (date(2026, 11, 16), (BoardRow("0005/2026", "Associação dos Produtores do Guaporé", "Zona Rural Norte",
                                   "Assentamento Guaporé", "6 h retroescavadeira", "Retroescavadeira RE-02",
                                   "Antônio Lima"),)),
    (date(2026, 11, 17), ()),
    (date(2026, 11, 20), (BoardRow("0007/2026", "Maria Aparecida dos Santos", "Zona Rural Norte",
                                   "Assentamento Guaporé", "5 cargas de terra", "Caminhão basculante QBA-1234",
                                   "José Pereira"),)),
), date(2026, 11, 13))
