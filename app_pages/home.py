"""Início: the clerk's inbox — what is late, due today and this week, per kind, each row opening its
record — and, for the gabinete, the headline figures of every municipality it may see (issue 22)."""
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from services.dam import debts
from services.machinery import pending
from services.setup import signature
from services.shared import municipalities, signing_keys
from ui import common, navigation
from ui.domicile_watch import domicile_inbox
from ui import summary as ui_summary
from ui.flow import inbox as flow_inbox
from ui.ridehailing import follow, pendencia_step, queue_overview
from ui.saved_views import links as saved_view_links

WEEK_DAYS = 7
SHOWN = 10  # rows of each inbox list; the Pendências pages list them all

actor = common.guard("summary")
db = common.db()
mun = municipalities.get(db, common.municipality())
today = common.today()
common.page_header(f"Olá, {actor.name.split(' (')[0]}",
                   f"{mun.name} · {fmt.day(today)}" if actor.can("write") else fmt.day(today))


def when(due, late: bool) -> str:
    """A late item since its deadline; one with no legal term (deciding an auto) open since its date."""
    if late:
        return f"Atrasada desde {fmt.day(due)}"
    if due < today:
        return f"Em aberto desde {fmt.day(due)}"
    return "Hoje" if due == today else fmt.day(due)


# "Atrasada desde 12/11/2026" whole, never "Atrasada desde 12/11/2…"
WHEN_COLUMN = st.column_config.TextColumn(width=200)


def counts(late: int, due_today: int, this_week: int) -> None:
    cols = st.columns(3)
    cols[0].metric("Atrasadas", late)
    cols[1].metric("Para hoje (ou já em aberto)", due_today)
    cols[2].metric(f"Nos próximos {WEEK_DAYS} dias", this_week)


def ride_hailing_inbox() -> None:
    st.subheader("Transporte por aplicativo")
    ok, found = queue_overview(actor, mun.code)
    if not ok:
        return
    counts(found.late, found.open_today, found.this_week)
    if not found.urgent:
        st.success("Nada atrasado nem vencendo nesta semana.")
    else:
        st.caption(" · ".join(f"**{kind}**: {fmt.count(late, 'atrasada', 'atrasadas')}, {soon} a vencer"
                              for kind, (late, soon)
                              in sorted(found.per_kind.items())))
        shown = list(found.urgent[:SHOWN])
        event = common.table(pd.DataFrame([{"Prazo": when(p.due, p.late), "Tipo": p.kind, "Registro": p.protocol,
                                            "O que fazer": p.message} for p in shown]),
                             key="home_ride", on_select="rerun", selection_mode="single-row",
                             column_config={"Prazo": WHEN_COLUMN,
                                            "O que fazer": st.column_config.TextColumn(width="large")})
        picked = event.selection.rows if event is not None and event.selection else []
        step = pendencia_step(shown[picked[0]]) if picked else None
        if step is not None:  # a click on the row opens its record where the work is
            st.session_state.pop("home_ride", None)
            follow(step)
        st.caption("Clique numa linha para abrir o registro.")
    st.page_link("app_pages/pendencias.py", label=f"Todas as pendências ({found.total})", icon=":material/list:")


def machinery_inbox() -> None:
    st.subheader("Máquinas e veículos")
    ok, found = common.attempt(pending.overview, db, actor, mun.code, today, WEEK_DAYS, SHOWN)
    if not ok:
        return
    counts(found.overdue, found.open_today, found.this_week)
    if found.urgent:
        event = common.table(pd.DataFrame([{"Data": when(i.on, i.overdue) if i.on else "—", "Pendência": i.title,
                                            "Detalhe": i.detail} for i in found.urgent]), key="home_machinery",
                             on_select="rerun", selection_mode="single-row", column_config={"Data": WHEN_COLUMN})
        picked = event.selection.rows if event is not None and event.selection else []
        if picked:  # a click on the row opens its request, where each of its steps is done
            st.session_state.pop("home_machinery", None)
            navigation.open_record("booking_requests", found.urgent[picked[0]].record_id, mun.code)
        st.caption("Clique numa linha para abrir o pedido.")
    else:
        st.success("Nada atrasado nem vencendo nesta semana.")
    st.page_link("app_pages/machinery_pending.py", label=f"Todas as pendências do módulo ({found.total})",
                 icon=":material/list:")


def money_inbox() -> None:
    ok, aging = common.attempt(debts.aging, db, actor, mun.code)
    if not ok:
        return
    owed = aging.by_bucket()
    overdue = [cell for key, cell in owed.items() if key != "a_vencer"]
    count, amount = sum(c.count for c in overdue), sum((c.amount for c in overdue), Decimal("0.00"))
    st.subheader("Débitos")
    cols = st.columns(3)
    cols[0].metric("Débitos vencidos", count)
    cols[1].metric("Valor vencido", fmt.brl(amount))
    cols[2].metric("A vencer", fmt.brl(owed["a_vencer"].amount))
    st.page_link("app_pages/debts.py", label="Abrir Débitos", icon=":material/receipt_long:")


def open_summary(code: str) -> None:
    st.session_state["municipality"] = code  # before the sidebar is drawn: a callback runs first
    st.session_state["home_open_summary"] = True


def headlines() -> None:
    """The gabinete: this month's headline figures of every municipality it may see."""
    start = today.replace(day=1)
    st.caption(f"Números de {fmt.day(start)} a {fmt.day(today)}, comparados com as mesmas datas do ano anterior.")
    for town in municipalities.of_actor(db, actor):
        st.subheader(town.name)
        ok, data = ui_summary.figures(actor, town.code, start, today)
        if ok:
            ui_summary.metrics(data.kpis[:3])
        st.button(f"Abrir o Resumo de {town.name}", key=f"home_summary_{town.code}", on_click=open_summary,
                  args=(town.code,), icon=":material/insights:")
    if st.session_state.pop("home_open_summary", False):
        st.switch_page("app_pages/summary.py")


def certificate_notices() -> None:
    """TI: the municipality's A1 certificate expiring within 30 days (a warning) or expired (an error)."""
    for town in municipalities.of_actor(db, actor):
        ok, notice = common.attempt(signature.expiry_notice, db, actor, town.code, today)
        if ok and notice is not None:
            show = st.error if notice.level == signing_keys.EXPIRED else st.warning
            show(f"**{notice.name}** — {notice.text}", icon=":material/verified_user:")


if actor.can("admin"):
    certificate_notices()
if actor.can("write"):
    if "transporte" in mun.modules:
        ride_hailing_inbox()
        domicile_inbox(actor, mun.code, today)  # alerts failing, tacit receipts near, editais to publish
    if "maquinas" in mun.modules:
        machinery_inbox()
    money_inbox()
    flow_inbox(actor, mun.code, today, WEEK_DAYS)
    saved_view_links(actor, mun.code, {p.path for p in navigation.visible_pages(actor, mun.modules)})
elif actor.can("summary") and actor.role == "gabinete":
    headlines()

st.subheader("Acesso rápido")
pages = [p for p in navigation.visible_pages(actor, mun.modules) if p.path != "app_pages/home.py"]
columns = st.columns(3)
for index, page in enumerate(pages):
    columns[index % 3].page_link(page.path, label=page.title, icon=page.icon)
