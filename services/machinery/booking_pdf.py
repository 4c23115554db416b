"""Documents of a machinery service request of Nova Lacerda (Decreto 017/2026), on the letterhead.

- the quote (orçamento), line by line with the price-table version and the discount's evidence;
- the service order (ordem de serviço) the team takes to the field: where, what, machines, operators,
  the amount and whether it is paid;
- the receipt (comprovante) of the service paid and executed, for the requester: the payments received;
- the statement (extrato) of the request: quote, every charge with what it charged, paid and left
  open, the payments, the settlement of the hours worked, and what is owed back;
- the week schedule board the team prints (landscape), by day, zone and locality.
Each builder makes a fresh FPDF from plain data and returns the bytes.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from fpdf import FPDF
from fpdf.fonts import FontFace

from rules.fmt import brl, day, number, weekday
from rules.machinery.statement import StatementTotals
from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import (
    LEFT,
    WIDTH,
    Letterhead,
    box,
    footer,
    letterhead,
    signature,
    title,
)
from services.shared.pdf.style import BLUE, GREY, Fonts

FOOTER = "Documento emitido pelo Painel Municipal — Decreto Municipal 017/2026 (Nova Lacerda)."


@dataclass(frozen=True)
class Town:
    name: str
    secretariat: str
    address: str
    head: Letterhead | None = None  # coat of arms, CNPJ (services.shared.municipalities.letterhead)


@dataclass(frozen=True)
class LinePrint:
    item: str
    description: str
    unit: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal
    discount: Decimal
    net: Decimal
    note: str = ""


@dataclass(frozen=True)
class InstalmentPrint:
    """One charge of the request (or an instalment deferred by art. 8 §3, not charged yet)."""

    label: str
    charged: Decimal
    due: date | None
    dam_number: str
    paid: Decimal
    open: Decimal
    situation: str
    paid_on: date | None = None
    deferred: bool = False


@dataclass(frozen=True)
class BookingPrint:
    """What every document of a request shows; empty parts are left out."""

    town: Town
    act: str
    protocol: str
    requested_on: date
    requester_name: str
    requester_document: str
    requester_address: str
    zone: str
    locality: str
    place: str
    services: tuple[str, ...]
    issued_on: date
    lines: tuple[LinePrint, ...] = ()
    gross: Decimal = Decimal("0.00")
    discount_total: Decimal = Decimal("0.00")
    total: Decimal = Decimal("0.00")
    discount_reason: str = ""
    price_table: str = ""
    km_reading: str = ""
    instalments: tuple[InstalmentPrint, ...] = ()
    estimate: str = ""  # the balance estimate, before completion: no charge
    totals: StatementTotals | None = None
    payments: tuple[tuple[str, date, Decimal], ...] = ()  # (DAM number, paid on, amount)
    clearance: str = ""  # whether the upfront charges are paid (art. 8 §1-§2), for the service order
    schedule_day: date | None = None
    schedule_period: str = ""  # the booked days when more than one ("06/04/2026 a 10/04/2026 (5 dias)")
    team: tuple[tuple[str, str], ...] = ()  # (machine or vehicle, operator or driver)
    started_on: date | None = None
    ended_on: date | None = None
    meters: tuple[tuple[str, Decimal, Decimal], ...] = ()  # (machine, start, end)
    loads_delivered: int | None = None
    settlement: str = ""
    trip: tuple[tuple[str, str], ...] = ()  # (label, value) of a bus or van hire (art. 6)
    notes: tuple[str, ...] = field(default_factory=tuple)


def _start(data_town: Town, stamp: auth_stamp.Stamp | None = None) -> tuple[FPDF, Fonts, float]:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(True, margin=28)  # the authentication stamp below
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, data_town.name, data_town.secretariat, data_town.address, head=data_town.head)
    return pdf, fonts, y


def _heading(pdf: FPDF, fonts: Fonts, text: str) -> None:
    pdf.ln(2)
    pdf.set_text_color(*BLUE)
    fonts.use(10, bold=True)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 6, fonts.text(text.upper()), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)


def _paragraph(pdf: FPDF, fonts: Fonts, text: str, size: float = 9, grey: bool = False) -> None:
    if grey:
        pdf.set_text_color(*GREY)
    fonts.use(size)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 4.6, fonts.text(text), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)


def _table(pdf: FPDF, fonts: Fonts, head: Sequence[str], rows: Sequence[Sequence[str]],
           widths: Sequence[float], size: float = 8, right: Sequence[int] = ()) -> None:
    fonts.use(size)
    pdf.set_x(LEFT)
    with pdf.table(col_widths=widths, width=sum(widths), align="LEFT", line_height=4.6,
                   headings_style=FontFace(emphasis="BOLD", fill_color=(225, 233, 241)),
                   text_align=tuple("RIGHT" if i in right else "LEFT" for i in range(len(head)))) as table:
        table.row([fonts.text(h) for h in head])
        for row in rows:
            table.row([fonts.text(c) for c in row])
    pdf.ln(1)


def _identity(pdf: FPDF, fonts: Fonts, y: float, data: BookingPrint) -> None:
    box(pdf, fonts, LEFT, y, 45, "Protocolo", data.protocol)
    box(pdf, fonts, LEFT + 45, y, 40, "Data do pedido", day(data.requested_on))
    box(pdf, fonts, LEFT + 85, y, 95, "Zona / localidade", f"{data.zone} / {data.locality}")
    y += 12
    box(pdf, fonts, LEFT, y, 125, "Solicitante", data.requester_name)
    box(pdf, fonts, LEFT + 125, y, 55, "CPF/CNPJ", data.requester_document)
    y += 12
    box(pdf, fonts, LEFT, y, WIDTH, "Endereço", data.requester_address, size=9)
    pdf.set_y(y + 13)
    if data.place:
        _paragraph(pdf, fonts, f"Local ou rota do serviço: {data.place}")
    if data.services:
        _paragraph(pdf, fonts, "Serviços pedidos: " + "; ".join(data.services))


def _quote_table(pdf: FPDF, fonts: Fonts, data: BookingPrint) -> None:
    _heading(pdf, fonts, "Orçamento (Anexo I)")
    rows = [(line.item, line.description + (f" — {line.note}" if line.note else ""), line.unit,
             number(line.quantity), brl(line.unit_price), brl(line.amount),
             brl(line.discount) if line.discount else "—", brl(line.net)) for line in data.lines]
    _table(pdf, fonts, ("Item", "Serviço", "Unidade", "Qtd.", "Preço unit.", "Valor", "Desconto", "Líquido"),
           rows, (10, 40, 25, 11, 22, 24, 24, 24), right=(3, 4, 5, 6, 7))  # R$ 99.999,99 on one line
    fonts.use(9, bold=True)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 5, fonts.text(f"Total bruto {brl(data.gross)} · descontos {brl(data.discount_total)} · "
                                  f"total {brl(data.total)}"), align="R", new_x="LMARGIN", new_y="NEXT")
    if data.discount_reason:
        _paragraph(pdf, fonts, data.discount_reason, 8)
    if data.price_table:
        _paragraph(pdf, fonts, data.price_table, 8, grey=True)
    if data.km_reading:
        _paragraph(pdf, fonts, data.km_reading, 8, grey=True)


def _instalments(pdf: FPDF, fonts: Fonts, data: BookingPrint, heading: str = "Pagamento (art. 8)") -> None:
    """The charges of the request: what each DAM charges, paid, open, where it stands."""
    if data.instalments:
        _heading(pdf, fonts, heading)
        rows = [(i.label, brl(i.charged), day(i.due) if i.due else "—", i.dam_number or "—",
                 "—" if i.deferred else brl(i.paid), "—" if i.deferred else brl(i.open), i.situation)
                for i in data.instalments]
        _table(pdf, fonts, ("Parcela", "Cobrado", "Vencimento", "DAM", "Pago", "Em aberto", "Situação"), rows,
               (44, 22, 22, 18, 20, 20, 34), right=(1, 4, 5))
    if data.estimate:
        _paragraph(pdf, fonts, data.estimate, 8, grey=True)


def _payments(pdf: FPDF, fonts: Fonts, data: BookingPrint) -> None:
    if data.payments:
        _heading(pdf, fonts, "Pagamentos recebidos")
        _table(pdf, fonts, ("DAM", "Pago em", "Valor"),
               [(number_, day(on), brl(amount)) for number_, on, amount in data.payments], (40, 40, 40), right=(2,))


def _totals(pdf: FPDF, fonts: Fonts, data: BookingPrint) -> None:
    """Charged, paid, open and owed back, from the charges (never the estimate)."""
    if data.totals is None:
        return
    t = data.totals
    fonts.use(9, bold=True)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 5, fonts.text(f"Cobrado {brl(t.charged)} · pago {brl(t.paid)} · em aberto {brl(t.open)} · "
                                        f"a devolver ao interessado {brl(t.owed_back)}"),
                   new_x="LMARGIN", new_y="NEXT")


def _end(pdf: FPDF, fonts: Fonts, data: BookingPrint, signers: Sequence[str]) -> bytes:
    for note in data.notes:
        _paragraph(pdf, fonts, note, 8)
    if pdf.get_y() > 230:
        pdf.add_page()
    fonts.use(9)
    pdf.set_xy(LEFT, max(pdf.get_y() + 6, 229))
    pdf.cell(WIDTH, 5, fonts.text(f"{data.town.name}, {day(data.issued_on)}."), align="C")
    y = pdf.get_y() + 22
    width = WIDTH / len(signers)
    for index, who in enumerate(signers):
        signature(pdf, fonts, LEFT + index * width + 8, y, width - 16, who)
    footer(pdf, fonts, FOOTER)
    return bytes(pdf.output())


def render_quote(data: BookingPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The quote of a request, line by line, with its price table and discount evidence."""
    pdf, fonts, y = _start(data.town, stamp)
    y = title(pdf, fonts, y, "ORÇAMENTO DE SERVIÇO COM BENS PÚBLICOS", f"Pedido nº {data.protocol}")
    _identity(pdf, fonts, y, data)
    _quote_table(pdf, fonts, data)
    _instalments(pdf, fonts, data)
    return _end(pdf, fonts, data, (data.town.secretariat,))


def render_service_order(data: BookingPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The service order for the team: where, when, what, which machines and operators."""
    pdf, fonts, y = _start(data.town, stamp)
    y = title(pdf, fonts, y, "ORDEM DE SERVIÇO", f"Pedido nº {data.protocol}")
    booked = data.schedule_period or (day(data.schedule_day) if data.schedule_day else "a agendar")
    box(pdf, fonts, LEFT, y, WIDTH, "Data agendada", booked)
    _identity(pdf, fonts, y + 12, data)
    _instalments(pdf, fonts, data, "Valor e pagamento (art. 8)")
    _paragraph(pdf, fonts, f"Valor do orçamento: {brl(data.total)}", 9)
    if data.clearance:
        _paragraph(pdf, fonts, data.clearance, 9)
    _heading(pdf, fonts, "Equipe e equipamentos")
    _table(pdf, fonts, ("Máquina ou veículo", "Operador ou motorista"), data.team or [("—", "—")], (90, 90))
    if data.trip:
        _heading(pdf, fonts, "Locação de ônibus, micro-ônibus ou van (art. 6)")
        _table(pdf, fonts, ("Viagem", "Informação"), data.trip, (55, 125))
    _heading(pdf, fonts, "Registro da execução (preencher em campo)")
    rows = [(machine, "", "") for machine, _ in data.team] or [("", "", "")]
    _table(pdf, fonts, ("Máquina ou veículo", "Horímetro/odômetro inicial", "Horímetro/odômetro final"),
           rows, (80, 50, 50))
    _paragraph(pdf, fonts, "Cargas entregues: ______   Início: ___/___/______   Término: ___/___/______")
    return _end(pdf, fonts, data, ("Responsável pela equipe", "Solicitante ou responsável no local"))


def render_receipt(data: BookingPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The receipt for the requester: the service executed and the payments received."""
    pdf, fonts, y = _start(data.town, stamp)
    y = title(pdf, fonts, y, "COMPROVANTE DE PRESTAÇÃO DE SERVIÇO", f"Pedido nº {data.protocol}")
    _identity(pdf, fonts, y, data)
    _heading(pdf, fonts, "Execução")
    executed = [("Início", day(data.started_on) if data.started_on else "—"),
                ("Conclusão", day(data.ended_on) if data.ended_on else "—")]
    if data.loads_delivered is not None:
        executed.append(("Cargas entregues", str(data.loads_delivered)))
    executed += [(f"{machine}", f"de {number(start)} a {number(end)} ({number(end - start)})")
                 for machine, start, end in data.meters]
    _table(pdf, fonts, ("Registro", "Informação"), executed, (70, 110))
    _instalments(pdf, fonts, data)
    _payments(pdf, fonts, data)
    paid = data.totals.paid if data.totals else Decimal("0.00")
    _paragraph(pdf, fonts, f"Recebemos de {data.requester_name} o total de {brl(paid)} pelos pagamentos acima, "
                           f"referentes ao pedido nº {data.protocol} ({data.act}).", 9)
    if data.settlement:
        _paragraph(pdf, fonts, data.settlement, 9)
    _totals(pdf, fonts, data)
    return _end(pdf, fonts, data, (data.town.secretariat,))


def render_statement(data: BookingPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The statement of a request: quote, every instalment, paid, balance or credit."""
    pdf, fonts, y = _start(data.town, stamp)
    y = title(pdf, fonts, y, "EXTRATO DO PEDIDO DE SERVIÇO", f"Pedido nº {data.protocol}")
    _identity(pdf, fonts, y, data)
    if data.lines:
        _quote_table(pdf, fonts, data)
    _instalments(pdf, fonts, data)
    _payments(pdf, fonts, data)
    if data.settlement:
        _paragraph(pdf, fonts, data.settlement, 9)
    _totals(pdf, fonts, data)
    return _end(pdf, fonts, data, (data.town.secretariat,))


@dataclass(frozen=True)
class BoardRow:
    protocol: str
    requester: str
    zone: str
    locality: str
    services: str
    machine: str
    operator: str


@dataclass(frozen=True)
class WeekPrint:
    town: Town
    week_start: date
    days: tuple[tuple[date, tuple[BoardRow, ...]], ...]
    issued_on: date


def render_week_board(data: WeekPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The week schedule board (landscape): each day with its bookings by zone and locality."""
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(True, margin=28)  # the authentication stamp below
    pdf.set_margins(LEFT, 10, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    fonts.use(13, bold=True)
    pdf.set_text_color(*BLUE)
    pdf.cell(0, 7, fonts.text(f"PREFEITURA DE {data.town.name.upper()} — {data.town.secretariat}"),
             new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    fonts.use(11, bold=True)
    end = data.days[-1][0] if data.days else data.week_start
    pdf.cell(0, 7, fonts.text(f"Agenda da semana de {day(data.week_start)} a {day(end)} "
                              "(Decreto 017/2026, art. 3: por zona e localidade, em ordem de protocolo)"),
             new_x="LMARGIN", new_y="NEXT")
    for when, rows in data.days:
        pdf.set_text_color(*BLUE)
        fonts.use(10, bold=True)
        pdf.cell(0, 6, fonts.text(f"{weekday(when)}, {day(when)}"), new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0, 0, 0)
        if not rows:
            _paragraph(pdf, fonts, "Sem serviços agendados.", 8, grey=True)
            continue
        _table(pdf, fonts, ("Zona", "Localidade", "Protocolo", "Solicitante", "Serviços", "Máquina", "Operador"),
               [(r.zone, r.locality, r.protocol, r.requester, r.services, r.machine, r.operator) for r in rows],
               (28, 34, 20, 50, 55, 40, 40))
    fonts.use(7)
    pdf.set_text_color(*GREY)
    pdf.cell(0, 5, fonts.text(f"Emitida em {day(data.issued_on)}. {FOOTER}"))
    return bytes(pdf.output())
