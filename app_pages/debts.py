"""Débitos (secretaria): what the municipality is still owed, by how long it is overdue ("vencido há"),
with the totals per bucket and revenue, a new DAM for what a charge still owes, and the dívida ativa:
the export of the charges overdue past the municipality's term and marking them inscribed."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from rules.dam import charges as charge_rules
from services.dam import active_debt, debts, printing, rebill
from services.dam.dams import REVENUE_KINDS
from services.shared import fields, list_counts
from services.shared.errors import ServiceError
from ui import common
from ui import dams as ui_dams
from ui.lists import export_buttons

PER_PAGE = (25, 50, 100)
OPEN_VIEW, ACTIVE_VIEW = "Débitos em aberto", "Dívida ativa"

actor = common.guard("write")
db = common.db()
mun = common.municipality()
common.page_header("Débitos", "O que o município tem a receber, por tempo de atraso")


def query() -> debts.DebtQuery:
    cols = st.columns([3, 2, 2, 2])
    search = cols[0].text_input("Buscar", key="debts_search", placeholder="Contribuinte, CPF/CNPJ ou registro (Auto nº…)")
    bucket = cols[1].selectbox("Vencido há", ["", *charge_rules.BUCKET_LABELS], key="debts_bucket",
                               format_func=lambda k: charge_rules.BUCKET_LABELS.get(k, "Todos"), placeholder="Escolha...")
    kind = cols[2].selectbox("Receita", ["", *REVENUE_KINDS], key="debts_kind",
                             format_func=lambda k: REVENUE_KINDS.get(k, "Todas"), placeholder="Escolha...")
    status = cols[3].selectbox("Situação", ["", *charge_rules.OWING], key="debts_status",
                               format_func=lambda s: charge_rules.STATUSES.get(s, "Todas em aberto"),
                               placeholder="Escolha...")
    return debts.DebtQuery(search=search, bucket=bucket, revenue_kind=kind, status=status,
                           page=st.session_state.get("debts_page", 1),
                           per_page=st.session_state.get("debts_per_page", PER_PAGE[0]))


def money_rows(rows: list[dict]) -> pd.DataFrame:
    """Export rows as the screen shows them: R$ and dd/mm/aaaa."""
    return pd.DataFrame([{k: common.cell_text(v) for k, v in row.items()} for row in rows])


def totals(filters: debts.DebtQuery) -> None:
    ok, aging = common.attempt(debts.aging, db, actor, mun, filters)
    if not ok:
        return
    st.subheader("Totais por faixa e receita")
    cols = st.columns(len(charge_rules.BUCKETS))
    for col, (key, cell) in zip(cols, aging.by_bucket().items()):
        col.metric(charge_rules.BUCKET_LABELS[key], fmt.brl(cell.amount), fmt.count(cell.count, "débito", "débitos"),
                   delta_color="off",
                   delta_arrow="off")
    rows = aging.rows()
    common.table(money_rows(rows), empty="Nenhum débito em aberto neste filtro.", key="debts_totals")
    places = st.columns([3, 3, 4])
    export_buttons(places[0], places[1], "Débitos por faixa", mun, "debts_totals",
                   lambda: debts.aging_csv(db, actor, mun, filters), lambda: debts.aging_xlsx(db, actor, mun, filters))


def table(rows: list[dict]) -> None:
    frame = pd.DataFrame([{
        "Contribuinte": c["taxpayer"]["name"],
        "CPF/CNPJ": fields.show("cpf_cnpj", c["taxpayer"]["document"]),
        "Referente a": (c.get("owner") or {}).get("label") or c.get("description", ""),
        "Receita": debts.revenue_label(c.get("revenue_code"), c.get("revenue_kind")),
        "Vencimento": fmt.day(c["due_on"]),
        "Vencido há": fmt.count(c["days_overdue"], "dia", "dias") if c["days_overdue"] else "A vencer",
        "Principal": fmt.brl(c["principal"]),
        "Multa e juros": fmt.brl(c["late"]),
        "Pago": fmt.brl(c["paid"]),
        "Em aberto": fmt.brl(c["open"]),
        "Situação": charge_rules.STATUSES[c["status"]],
        "DAM em aberto": (c.get("live_dam") or {}).get("number") or "—",
    } for c in rows])
    common.table(frame, empty="Nenhum débito em aberto neste filtro.", key="debts_table", column_config={
        "Contribuinte": st.column_config.TextColumn(width="medium"),
        "Referente a": st.column_config.TextColumn(width="medium")})


def label(c: dict) -> str:
    return (f"{c['taxpayer']['name']} · {debts.revenue_label(c.get('revenue_code'), c.get('revenue_kind'))} · "
            f"venc. {fmt.day(c['due_on'])} · {fmt.brl(c['open'])} em aberto")


def detail(charge: dict) -> None:
    cols = st.columns(4)
    cols[0].metric("Em aberto", fmt.brl(charge["open"]))
    cols[1].metric("Vencimento", fmt.day(charge["due_on"]))
    cols[2].metric("Vencido há", fmt.count(charge["days_overdue"], "dia", "dias") if charge["days_overdue"] else "A vencer")
    cols[3].metric("Situação", charge_rules.STATUSES[charge["status"]])
    owner = (charge.get("owner") or {}).get("label")
    st.markdown(
        f"**Contribuinte:** {charge['taxpayer']['name']} · {fields.show('cpf_cnpj', charge['taxpayer']['document'])}  \n"
        f"**Receita:** {debts.revenue_label(charge.get('revenue_code'), charge.get('revenue_kind'))} — "
        f"{charge['description']}  \n**Fundamentação legal:** {charge['legal_basis']}"
        + (f"  \n**Referente a:** {owner}" if owner else "")
        + f"  \n**Principal:** {fmt.brl(charge['principal'])} · **Multa e juros:** {fmt.brl(charge['late'])} · "
          f"**Pago:** {fmt.brl(charge['paid'])}")
    if charge.get("inscription"):
        ins = charge["inscription"]
        st.info(f"Inscrito em dívida ativa em {fmt.day(ins['on'])} por {ins.get('by_name') or ins['by']}: {ins['book']}.")
    st.markdown("**DAMs do débito**")
    common.table(pd.DataFrame([{
        "Nº": d["number"], "Via": "Original" if d["kind"] == "original" else "2ª via" if d["kind"] == "2a_via"
        else "Do restante", "Valor": fmt.brl(d["amount"]), "Vencimento": fmt.day(d["due_on"]),
    } for d in charge.get("dams", [])]), empty="Nenhum DAM.", key="debts_detail_dams")
    if charge.get("payments"):
        st.markdown("**Pagamentos**")
        common.table(pd.DataFrame([{
            "DAM": p["dam_number"], "Pago em": fmt.day(p["paid_on"]), "Valor": fmt.brl(p["amount"]),
            "Multa e juros": fmt.brl(p["late"]),
        } for p in charge["payments"]]), key="debts_detail_payments")
    if rebill.issuable(charge):
        remainder_form(charge)
    elif charge.get("live_dam"):
        st.caption(f"O DAM {charge['live_dam']['number']} está em aberto: é ele que cobra este débito "
                   "(consulte-o na página DAM).")


def remainder_form(charge: dict) -> None:
    """A new DAM for what the charge still owes (its DAM was cancelled or paid short)."""
    errors = st.session_state.get("debts_remainder_errors", {})
    ui_dams.form_error(errors)
    cols = st.columns([2, 3])
    due = cols[0].date_input("Vencimento do novo DAM", common.today() + timedelta(days=30), min_value=common.today(),
                             format="DD/MM/YYYY", key="debts_remainder_due",
                             help="Se cair em fim de semana ou feriado, passa para o dia útil seguinte.")
    ui_dams.field_error(errors, "due")
    if cols[1].button(f"Emitir DAM do restante ({fmt.brl(charge['open'])})", type="primary", key="debts_remainder",
                      icon=":material/receipt_long:"):
        dam = ui_dams.submit("debts_remainder_errors", rebill.issue_open, db, actor, mun, charge["id"], due)
        if dam:
            st.session_state["debts_flash"] = ("success", [
                f"DAM {dam['number']} emitido: {fmt.brl(dam['amount'])}, vencimento {fmt.day(dam['due_on'])}."])
            st.session_state["debts_last_dam"] = dam["id"], dam["number"]
            st.rerun()


def last_dam() -> None:
    ready = st.session_state.get("debts_last_dam")
    if ready:
        dam_id, number = ready
        st.download_button(f"Baixar PDF do DAM {number}", lambda: printing.pdf_batch(db, actor, mun, [dam_id]),
                           f"dam_{number.replace('/', '_')}.pdf", "application/pdf", key="debts_last_pdf",
                           icon=":material/picture_as_pdf:", on_click="ignore")


def open_view() -> None:
    filters = query()
    totals(filters)
    st.subheader("Débitos")
    ok, page = common.attempt(debts.list_page, db, actor, mun, filters)
    if not ok:
        return
    table(page.rows)
    nav = st.columns([2, 2, 2, 2, 2])
    nav[0].number_input("Página", min_value=1, max_value=page.pages, key="debts_page")
    nav[1].selectbox("Por página", PER_PAGE, key="debts_per_page", placeholder="Escolha...")
    nav[2].markdown(f"<br>{list_counts.words(page.total, 'débito', 'débitos')} · "
                    f"{fmt.count(page.pages, 'página', 'páginas')}", unsafe_allow_html=True)
    export_buttons(nav[3], nav[4], "Débitos", mun, "debts", lambda: debts.export_csv(db, actor, mun, filters),
                   lambda: debts.export_xlsx(db, actor, mun, filters))
    st.divider()
    last_dam()
    by_id = {c["id"]: c for c in page.rows}
    linked = st.session_state.get("debts_open")
    if linked and linked not in by_id:  # opened from a link (audit log) or kept from another page of the list
        ok, charge = common.attempt(debts.get, db, actor, mun, linked)
        if ok:
            by_id = {linked: charge, **by_id}
        else:
            st.session_state.pop("debts_open")
    chosen = st.selectbox("Abrir débito", list(by_id), index=None, format_func=lambda i: label(by_id[i]),
                          key="debts_open", placeholder="Escolha um débito da lista…")
    if chosen:
        ok, charge = common.attempt(debts.get, db, actor, mun, chosen)
        if ok:
            detail(charge)


def active_view() -> None:
    st.caption(f"Fundamento: {charge_rules.LEGAL_BASIS_ACTIVE_DEBT}.")
    try:
        found = active_debt.candidates(db, actor, mun)
    except active_debt.InscriptionTermMissing as exc:
        st.warning(exc.message)
        return
    except ServiceError as exc:
        st.error(exc.message)
        return
    st.markdown(f"Débitos em aberto ou pagos a menor vencidos há mais de **{found.term_days} dias** "
                f"(prazo do município para a inscrição), em {fmt.day(found.on)}.")
    rows = active_debt.rows_of(found)
    shown = [{k: v for k, v in row.items() if k not in ("Débito", "Fundamento da inscrição", "Descrição")}
             for row in rows]
    common.table(money_rows(shown), empty="Nenhum débito a inscrever.", key="debts_active_table")
    if found.total > len(found.rows):
        st.info(f"Há {found.total} débitos a inscrever; esta relação traz os {len(found.rows)} mais antigos. "
                "Marque-os como inscritos e a relação seguinte aparece.")
    if not rows:
        return
    places = st.columns([3, 3, 4])
    export_buttons(places[0], places[1], "Dívida ativa", mun, "debts_active",
                   lambda: active_debt.export_csv(db, actor, mun), lambda: active_debt.export_xlsx(db, actor, mun))
    mark_form(found)


def mark_form(found: active_debt.Candidates) -> None:
    """Marking the exported list inscribed, after a confirmation that says what is marked."""
    st.subheader("Marcar como inscritos")
    errors = st.session_state.get("debts_mark_errors", {})
    ui_dams.form_error({"_form": errors.get("charge_ids") or errors.get("_form")} if errors else {})
    book = st.text_input("Livro, folha ou número da inscrição *", key="debts_mark_book",
                         placeholder="Ex.: Livro 3, folhas 10 a 14")
    ui_dams.field_error(errors, "book")
    confirm = st.session_state.get("debts_mark_confirm")
    if confirm is None:
        if st.button("Marcar como inscritos", key="debts_mark", icon=":material/gavel:"):
            st.session_state["debts_mark_confirm"] = found.ids
            st.rerun()
        return
    amount = sum((c["open"] for c in found.rows if c["id"] in set(confirm)), charge_rules.ZERO)
    st.warning(f"Confirma a inscrição em dívida ativa de {fmt.count(len(confirm), 'débito', 'débitos')}, {fmt.brl(amount)} em aberto, "
               f"registrados em «{book.strip() or '—'}»? Cada débito é conferido de novo antes de ser marcado.")
    yes, no = st.columns(2)
    if no.button("Voltar", key="debts_mark_no"):
        st.session_state.pop("debts_mark_confirm", None)
        st.rerun()
    if yes.button("Sim, marcar como inscritos", type="primary", key="debts_mark_yes"):
        st.session_state.pop("debts_mark_confirm", None)
        result = ui_dams.submit("debts_mark_errors", active_debt.mark_inscribed, db, actor, mun, confirm, book)
        if result is not None:
            lines = [fmt.count(len(result.inscribed), "débito marcado como inscrito", "débitos marcados como inscritos")
                     + " em dívida ativa."]
            lines += [f"Não marcado — {reason}." for _charge_id, reason in result.skipped]
            st.session_state["debts_flash"] = ("success", lines)
            st.session_state.pop("debts_mark_book", None)
            st.rerun()


common.flash("debts_flash")
view = st.radio("Ver", [OPEN_VIEW, ACTIVE_VIEW], horizontal=True, key="debts_view", label_visibility="collapsed")
if view == OPEN_VIEW:
    open_view()
else:
    active_view()
