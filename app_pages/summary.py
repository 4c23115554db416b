"""Resumo do gabinete: what the services did, what they collected, what is late — aggregates only."""
from datetime import date, timedelta
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from rules.dam.charges import BUCKET_LABELS
from services.shared import exports, municipalities, privacy
from services.summary import report_tables, summary, text
from ui import charts, common
from ui import summary as ui_summary

actor = common.guard("summary")
common.page_header("Resumo", "Somente leitura · números agregados, sem dados pessoais")

PRESETS = ("Este mês", "Mês anterior", "Últimos 30 dias", "Este ano", "Ano anterior", "Personalizado")


def preset_period(name: str, today: date) -> tuple[date, date]:
    first = today.replace(day=1)
    if name == "Mês anterior":
        end = first - timedelta(days=1)
        return end.replace(day=1), end
    if name == "Últimos 30 dias":
        return today - timedelta(days=29), today
    if name == "Este ano":
        return today.replace(month=1, day=1), today
    if name == "Ano anterior":
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    return first, today


today = common.today()
municipality = common.municipality()  # the sidebar's choice, among the user's municipalities only
left, right = st.columns([2, 3])
preset = left.selectbox("Período", PRESETS, index=3, key="summary_preset", placeholder="Escolha...")
start, end = preset_period(preset, today)
if preset == "Personalizado":
    chosen = right.date_input("De – até", value=(start, end), format="DD/MM/YYYY", key="summary_range",
                              max_value=today)
    if isinstance(chosen, tuple) and len(chosen) == 2:
        start, end = chosen
else:
    right.markdown(f"**{start:%d/%m/%Y} a {end:%d/%m/%Y}**")
compare = left.radio("Comparar com", list(summary.COMPARISONS), key="summary_compare", horizontal=True,
                     format_func=lambda c: summary.COMPARISONS[c].capitalize())

ok, data = ui_summary.figures(actor, municipality, start, end, compare)
if not ok:
    st.stop()

st.caption(text.comparison_text(data))
ui_summary.metrics(data.kpis)

towns = municipalities.of_actor(common.db(), actor)
several = len(towns) > 1  # one report of every municipality the user sees: side by side, then one page each
st.download_button(
    "Relatório gerencial (PDF)", mime="application/pdf", key="summary_pdf", icon=":material/picture_as_pdf:",
    data=(lambda: summary.reports_pdf(common.db(), actor, [t.code for t in towns], start, end, compare)) if several
    else (lambda: ui_summary.report(actor, municipality, start, end, compare)),
    file_name=exports.file_name("relatorio gerencial municipios" if several else "relatorio gerencial",
                                None if several else municipality, today, "pdf"),
    help=f"{len(towns)} municípios: os números lado a lado e uma página por município." if several else None,
    on_click="ignore")

tables = report_tables.tables(data)
if several:  # a gabinete that sees several municipalities: their figures side by side
    others = [ui_summary.figures(actor, town.code, start, end, compare) for town in towns]
    tables["Municípios lado a lado"] = report_tables.side_by_side([figures for ok_, figures in others if ok_])
xlsx_place, csv_place = st.columns(2)
xlsx_place.download_button(
    "Tabelas do resumo (XLSX, uma aba por tabela)", mime=exports.XLSX_MIME, key="summary_xlsx",
    data=lambda: exports.to_xlsx_book({title: (rows, None) for title, rows in tables.items() if rows}),
    file_name=exports.file_name("resumo", municipality, today, "xlsx"), icon=":material/table_view:", on_click="ignore")
csv_place.download_button(
    "Tabelas do resumo (CSV, uma linha por célula)", mime=exports.CSV_MIME, key="summary_csv",
    data=lambda: exports.to_csv_tables(tables), file_name=exports.file_name("resumo", municipality, today, "csv"),
    icon=":material/download:", on_click="ignore")


def table(title: str, key: str) -> None:
    rows = tables.get(title)
    if not rows:
        return
    st.subheader(title)
    shown = [{k: fmt.brl(v) if isinstance(v, Decimal) else ("" if v is None else str(v)) for k, v in row.items()}
             for row in rows]
    st.dataframe(pd.DataFrame(shown), hide_index=True, width="stretch", key=f"summary_{key}")


if tables.get("Aguardando decisão"):
    table("Aguardando decisão", "waiting")
    st.caption(f"Posição em {today:%d/%m/%Y}: idade em dias corridos desde a apresentação da defesa ou do recurso, "
               "ou desde o último passo do pedido.")
if tables.get("Municípios lado a lado"):
    table("Municípios lado a lado", "towns")
    st.caption(f"{start:%d/%m/%Y} a {end:%d/%m/%Y}, cada município com as mesmas regras do seu Resumo; "
               "“—”: o município não tem o módulo.")

st.header("Arrecadação")
st.altair_chart(charts.grouped_money_bars(
    tables["Arrecadação por mês"], "Mês", ("Pagos (R$)", "Pagos no mesmo mês do ano anterior (R$)"),
    "Arrecadado por mês, comparado ao mesmo mês do ano anterior", "Mês"), width="stretch")
if tables["Arrecadação por receita"]:
    st.altair_chart(charts.grouped_money_bars(
        tables["Arrecadação por receita"], "Receita", ("Emitidos (R$)", "Pagos (R$)", "Vencidos (R$)"),
        "DAM por receita no período", "Receita"), width="stretch")
table("Arrecadação por receita", "kinds")
table("Arrecadação por mês", "months")
differences = data.revenue.differences
table("Valor emitido × valor pago", "differences")
st.markdown(text.difference_text(differences))

if data.debts is not None:
    owed = data.debts
    st.header("Débitos a receber")
    st.caption(f"Posição em {owed.on:%d/%m/%Y}: débitos em aberto, pagos a menor ou inscritos em dívida ativa, "
               "pelo tempo desde o vencimento.")
    columns = st.columns(len(owed.aging))
    for column, (key, (count, amount)) in zip(columns, owed.aging.items()):
        column.metric(BUCKET_LABELS[key], fmt.brl(amount), fmt.count(count, "débito", "débitos"),
                      delta_color="off", delta_arrow="off")
    share, before = owed.paid_share, owed.previous_paid_share
    change = None if share is None or before is None else f"{share - before:+.1f} p.p.".replace(".", ",", 1)
    st.metric("Parcela paga do valor lançado no período", text.share_text(share), change,
              help="Pago ÷ (principal + multa e juros dos DAMs pagos) dos débitos lançados no período, "
                   "cancelados fora; excesso a restituir não conta.")
    table("Débitos por tempo de atraso", "aging")
    table("Débitos lançados × pagos", "charged")
if data.ride_hailing is not None:
    st.header("Transporte por aplicativo")
    table("Indicadores do transporte", "ride")
    table("Autorizações por situação", "statuses")
    table("Plataformas", "platforms")
    table("Multas", "fines")
    if data.fines is not None:
        st.subheader("Notificações por canal")
        st.metric("Parcela das notificações por meio eletrônico", text.share_text(data.fines.electronic_share),
                  help="Notificações dos autos (ao autuado, à plataforma e da decisão) enviadas, entregues ou "
                       "publicadas no período, pelo canal usado.")
        table("Notificações por canal", "notices")
if data.bookings is not None:
    st.header("Máquinas e veículos municipais")
    for key, title in enumerate(("Agendamentos: prazos e valores", "Pedidos de serviço por zona", "Pedidos por serviço",
                                 "Pedidos por etapa", "Máquinas: horas e uso")):
        table(title, f"bookings{key}")
trend_tables = [title for title in report_tables.TREND_TABLES if tables.get(title)]
if trend_tables:
    st.header("Tendências mês a mês")
    st.caption("Cada número ao lado do mesmo mês do ano anterior.")
    for number, title in enumerate(trend_tables):
        rows = tables[title]
        columns = st.columns(2)
        figures_ = [c for c in rows[0] if c != "Mês" and not c.endswith(report_tables.YEAR_BEFORE)]
        for index, column in enumerate(figures_):
            columns[index % 2].altair_chart(charts.month_lines(
                rows, {column: "Período", column + report_tables.YEAR_BEFORE: "Mesmo mês do ano anterior"}, column),
                width="stretch")
        table(title, f"trends{number}")
st.caption(privacy.RULE_TEXT)
