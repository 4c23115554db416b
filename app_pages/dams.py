"""DAMs (secretaria): list and filter, issue by hand, print one or many, record a payment,
import the bank's return file, cancel with reason and confirmation (the form of a DAM typed by hand
and the return-file tab are drawn by :mod:`ui.dams`)."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from services.dam import dams, lists, payments, printing, reissue
from services.ridehailing import authorizations
from services.shared import clock, fields, list_counts
from services.shared.errors import ServiceError, ValidationFailed
from ui import charges as ui_charges
from ui import common
from ui import dams as ui_dams
from ui.lists import export_buttons

PER_PAGE = (25, 50, 100)
MAX_BATCH = 500

actor = common.guard("write")
db = common.db()
mun = common.municipality()
common.page_header("DAM — Documento de Arrecadação Municipal", "Emissão, impressão, baixa e arquivo retorno")


def query() -> lists.DamQuery:
    cols = st.columns([4, 2, 2])
    search = cols[0].text_input("Buscar", key="dams_search", placeholder="Contribuinte, CPF/CNPJ ou nº do DAM")
    status = cols[1].selectbox("Situação", ["", *dams.SITUATIONS], key="dams_status",
                               format_func=lambda s: dams.SITUATIONS.get(s, "Todas"), placeholder="Escolha...")
    kind = cols[2].selectbox("Receita", ["", *dams.REVENUE_KINDS], key="dams_kind",
                             format_func=lambda k: dams.REVENUE_KINDS.get(k, "Todas"), placeholder="Escolha...")
    cols = st.columns([2, 3, 3])  # the period on a row of its own: "dd/mm/aaaa – dd/mm/aaaa" is never cut
    date_field = cols[0].selectbox("Período por", ["issued_on", "due_on"], key="dams_date_field",
                                   format_func={"issued_on": "Data de emissão", "due_on": "Vencimento"}.get,
                                       placeholder="Escolha...")
    period = cols[1].date_input("Período", value=(), format="DD/MM/YYYY", key="dams_period")
    start = period[0] if len(period) > 0 else None
    end = period[1] if len(period) > 1 else start
    return lists.DamQuery(search=search, status=status, revenue_kind=kind, start=start, end=end,
                         date_field=date_field, page=st.session_state.get("dams_page", 1),
                         per_page=st.session_state.get("dams_per_page", PER_PAGE[0]))


def table(rows: list[dict]) -> None:
    frame = pd.DataFrame([{
        "Nº": d["number"],
        "Contribuinte": d["taxpayer_name"],
        "CPF/CNPJ": fields.show("cpf_cnpj", d["taxpayer_document"]),
        "Receita": dams.REVENUE_KINDS.get(d["revenue_kind"], d["revenue_kind"]),
        "Valor": fmt.brl(d["amount"]),
        "Emissão": fmt.day(d["issued_on"]),
        "Vencimento": fmt.day(d["due_on"]),
        "Situação": " ⚠ ".join(filter(None, (dams.SITUATIONS[d["situation"]], payments.flag_text(d.get("payment"))))),
    } for d in rows], columns=["Nº", "Contribuinte", "CPF/CNPJ", "Receita", "Valor", "Emissão", "Vencimento",
                               "Situação"])
    st.dataframe(frame, hide_index=True, width="stretch", key="dams_table", column_config={
        "Contribuinte": st.column_config.TextColumn(width="medium"),
        "Situação": st.column_config.TextColumn(width="medium"),
        **{name: st.column_config.TextColumn(width="small") for name in ("Nº", "Valor")},
        **{name: st.column_config.TextColumn(width=100) for name in ("Emissão", "Vencimento")},  # dd/mm/aaaa whole
    })


def label(d: dict) -> str:
    return f"{d['number']} · {d['taxpayer_name']} · {fmt.brl(d['amount'])} · {dams.SITUATIONS[d['situation']]}"


def batch_print(page_rows: list[dict], filters: lists.DamQuery) -> None:
    st.subheader("Imprimir em lote")
    printable = {d["id"]: d for d in page_rows if d["status"] != dams.CANCELLED}
    chosen = st.multiselect("DAMs a imprimir (vazio: todos do filtro atual, exceto cancelados)", list(printable),
                            format_func=lambda i: label(printable[i]), key="dams_batch_ids",
                            placeholder="Todos do filtro atual")
    if st.button("Imprimir em lote", key="dams_batch", icon=":material/print:"):
        if chosen:
            ids = chosen
        else:
            ok, every = common.attempt(lists.ids_to_print, db, actor, mun, filters)
            ids = every if ok else []
        if len(ids) > MAX_BATCH:
            st.warning(f"O filtro tem {len(ids)} DAMs; serão impressos os {MAX_BATCH} primeiros. Refine o filtro para o restante.")
            ids = ids[:MAX_BATCH]
        if not ids:
            st.info("Nenhum DAM para imprimir neste filtro.")
            return
        bar = st.progress(0.0, text="Gerando PDF…")
        ok, data = common.attempt(printing.pdf_batch, db, actor, mun, ids,
                                  lambda i, n: bar.progress(i / n, text=f"DAM {i} de {n}"))
        if ok:
            st.session_state["dams_batch_pdf"] = (data, len(ids))
    ready = st.session_state.get("dams_batch_pdf")
    if ready:
        data, count = ready
        st.download_button(f"Baixar PDF com {fmt.count(count, 'DAM', 'DAMs')}", data, f"dams_{mun}_{clock.today():%Y%m%d}.pdf",
                           "application/pdf", key="dams_batch_download", icon=":material/download:", on_click="ignore")


def detail(dam: dict) -> None:
    cols = st.columns(4)
    cols[0].metric("Valor", fmt.brl(dam["amount"]))
    cols[1].metric("Vencimento", fmt.day(dam["due_on"]))
    cols[2].metric("Situação", dams.SITUATIONS[dam["situation"]])
    cols[3].metric("Emissão", fmt.day(dam["issued_on"]))
    st.markdown(
        f"**Contribuinte:** {dam['taxpayer_name']} · {fields.show('cpf_cnpj', dam['taxpayer_document'])}  \n"
        f"**Endereço:** {dam['taxpayer_address']}  \n"
        f"**Receita:** {dams.REVENUE_KINDS.get(dam['revenue_kind'], dam['revenue_kind'])} — {dam['description']}  \n"
        f"**Fundamentação legal:** {dam['legal_basis']}"
        + (f"  \n**Referente a:** {dam['pays']['label']}" if dam.get("pays") and dam["pays"].get("label") else "")
    )
    if dam.get("fine") or dam.get("interest") or dam.get("discount"):
        st.markdown(f"**Valor principal:** {fmt.brl(dam.get('principal', dam['amount']))} · "
                    f"**Desconto:** {fmt.brl(dam.get('discount') or 0)} · **Multa:** {fmt.brl(dam.get('fine') or 0)} · "
                    f"**Juros:** {fmt.brl(dam.get('interest') or 0)}")
    if (dam.get("pays") or {}).get("collection") == "authorizations":  # the fee of an authorization
        if st.button("Abrir a autorização (selo e certificado)", key="dams_open_authorization",
                     icon=":material/open_in_new:"):
            st.session_state["auth_goto"] = dam["pays"]["id"]
            st.switch_page("app_pages/authorizations.py")
    if dam.get("charge_id"):
        ui_charges.panel(db, actor, mun, dam["charge_id"], "dams_charge")
    if dam.get("replaces"):
        st.info(f"{dam['replaces']['via']}ª via do DAM {dam['replaces']['number']}.")
    if dam.get("replaced_by"):
        st.info(f"Substituído pela 2ª via: DAM {dam['replaced_by']['number']}.")
    st.caption(dam["due_note"])
    st.text("Linha digitável")
    st.code(" ".join(f"{dam['line'][i:i + 11]}-{dam['line'][i + 11]}" for i in range(0, 48, 12)), language=None)
    payment = dam.get("payment")
    if payment:
        st.success(f"Pago em {fmt.day(payment['paid_on'])}: {fmt.brl(payment['amount'])} · {payment['bank']}")
        for note in payment.get("notes", []):
            st.warning(note)
    if dam.get("handlers_pending"):
        pending_update(dam)
    if dam["status"] == dams.CANCELLED and not dam.get("replaced_by"):
        st.error(f"Cancelado. Motivo: {dam.get('cancel_reason') or '—'}")
    elif dam["status"] == dams.CANCELLED:
        st.caption(f"Cancelado: {dam.get('cancel_reason')}.")
    else:
        st.download_button(f"Baixar PDF do DAM {dam['number']}",
                           lambda: printing.pdf_batch(db, actor, mun, [dam["id"]]),
                           f"dam_{dam['number'].replace('/', '_')}.pdf", "application/pdf",
                           key="dams_pdf_one", icon=":material/picture_as_pdf:", on_click="ignore")
    with st.expander("Histórico"):
        st.dataframe(pd.DataFrame([{
            "Quando": clock.to_local(h["at"]).strftime("%d/%m/%Y %H:%M"), "Situação": dams.SITUATIONS.get(h["status"], h["status"]),
            "Usuário": h["by"], "Observação": h.get("note", ""),
        } for h in dam.get("history", [])]), hide_index=True, width="stretch")
    if dam["situation"] == dams.OVERDUE:
        reissue_form(dam)
    if dam["status"] == dams.ISSUED:
        payment_form(dam)
        cancel_form(dam)


def pending_update(dam: dict) -> None:
    """A paid DAM whose linked record was not updated yet: say so and offer the retry."""
    st.warning(payments.pending_message(dam))
    if st.button("Tentar de novo a atualização do registro vinculado", key="dams_retry_linked",
                 icon=":material/refresh:"):
        ok, done = common.attempt(payments.retry_linked_update, db, actor, mun, dam["id"])
        if ok:
            if done.get("handlers_pending"):
                st.session_state["dams_flash"] = ("warning", [payments.pending_message(done)])
            else:
                st.session_state["dams_flash"] = ("success", [f"Registro vinculado ao DAM {done['number']} atualizado."])
            st.rerun()


def payment_form(dam: dict) -> None:
    errors = st.session_state.get("dams_pay_errors", {})
    with st.expander("Registrar pagamento (baixa manual)", expanded=bool(errors)):
        st.caption("Valor diferente ou pagamento após o vencimento são aceitos e ficam sinalizados para a Fazenda conferir.")
        ui_dams.form_error(errors)
        with st.form("dams_pay_form"):
            cols = st.columns(3)
            with cols[0]:
                paid_on = st.date_input("Data do pagamento", clock.today(), format="DD/MM/YYYY", key="dams_pay_date")
                ui_dams.field_error(errors, "paid_on")
            with cols[1]:
                raw = st.text_input("Valor pago (R$)", fmt.number(dam["amount"], 2), key="dams_pay_amount")
                ui_dams.field_error(errors, "amount")
            with cols[2]:
                bank = st.text_input("Banco ou agente (PIX, caixa…)", key="dams_pay_bank")
                ui_dams.field_error(errors, "bank")
            submitted = st.form_submit_button("Registrar pagamento", type="primary")
        if submitted:
            paid = ui_dams.submit("dams_pay_errors", payments.record_payment, db, actor, mun, dam["id"], paid_on,
                                  ui_dams.money_input(raw), bank)
            if paid:
                notes = paid["payment"]["notes"]
                if paid.get("handlers_pending"):  # the payment stands; only the linked update is pending
                    st.session_state["dams_flash"] = ("warning", [payments.pending_message(paid), *notes])
                else:
                    st.session_state["dams_flash"] = ("success", [" ".join(
                        [f"Pagamento do DAM {paid['number']} registrado.", *issued_authorization(paid)])
                        + (" Com alertas:" if notes else ""), *notes])
                common.forget("dams_pay_date", "dams_pay_amount", "dams_pay_bank", dams_pay_date=clock.today())
                st.rerun()


def issued_authorization(paid: dict) -> list[str]:
    """What the payment of a fee produced: the authorization issued, whose sticker and certificate are
    one click away (the button on the DAM)."""
    owner = paid.get("pays") or {}
    if owner.get("collection") != "authorizations":
        return []
    ok, doc = common.attempt(authorizations.get_authorization, db, actor, mun, owner["id"])
    if not ok or not doc.get("number"):
        return []
    return [f"Autorização nº {doc['number']} expedida: em «Abrir a autorização» baixe o selo e o certificado."]


def reissue_form(dam: dict) -> None:
    """The 2ª via of an overdue DAM: the new due date, the updated amount, then the confirmation."""
    errors = st.session_state.get("dams_reissue_errors", {})
    with st.expander("Emitir 2ª via com valor atualizado", expanded=True):
        st.caption("A 2ª via cobra o valor principal com a multa e os juros de mora do Código Tributário Municipal "
                   "até o novo vencimento. Este DAM é cancelado e substituído por ela.")
        ui_dams.form_error(errors)
        due = st.date_input("Novo vencimento", clock.today() + timedelta(days=5), min_value=clock.today(),
                            format="DD/MM/YYYY", key="dams_reissue_due")
        ui_dams.field_error(errors, "due")
        try:
            quote = reissue.quote_reissue(db, actor, mun, dam["id"], due)
        except (ServiceError, ValidationFailed) as exc:
            st.warning(exc.message)
            return
        cols = st.columns(4)
        cols[0].metric("Valor principal", fmt.brl(quote.principal))
        cols[1].metric("Multa de mora", fmt.brl(quote.fine))
        cols[2].metric("Juros de mora", fmt.brl(quote.interest))
        cols[3].metric(f"Total até {fmt.day(quote.due_on)}", fmt.brl(quote.total))
        for reason in quote.reasons:
            st.caption(reason)
        if st.button("Emitir 2ª via e cancelar este DAM", type="primary", key="dams_reissue",
                     icon=":material/autorenew:"):
            new = ui_dams.submit("dams_reissue_errors", reissue.reissue, db, actor, mun, dam["id"], due)
            if new:
                st.session_state["dams_flash"] = ("success", [
                    f"2ª via emitida: DAM {new['number']}, {fmt.brl(new['amount'])}, vencimento "
                    f"{fmt.day(new['due_on'])}. O DAM {dam['number']} foi cancelado."])
                st.rerun()


def cancel_form(dam: dict) -> None:
    with st.expander("Cancelar DAM", expanded=st.session_state.get("dams_cancel_confirm") == dam["id"]):
        reason = st.text_area("Motivo do cancelamento *", key="dams_cancel_reason")
        withdraw = st.checkbox(
            "O valor não é devido: cancelar também o débito", value=not dam.get("pays"), key="dams_cancel_withdraw",
            help="Desmarcado, o débito continua devido e aguarda um novo DAM (o registro vinculado mantém seu lugar). "
                 "Marque quando o DAM foi emitido por engano ou em duplicidade.")
        if st.session_state.get("dams_cancel_confirm") != dam["id"]:
            if st.button("Cancelar DAM", key="dams_cancel", icon=":material/block:"):
                st.session_state["dams_cancel_confirm"] = dam["id"]
                st.rerun()
            return
        st.warning(f"Confirma o cancelamento do DAM {dam['number']}? O DAM deixa de valer e não pode ser reativado.")
        yes, no = st.columns(2)
        if no.button("Voltar", key="dams_cancel_no"):
            st.session_state.pop("dams_cancel_confirm", None)
            st.rerun()
        if yes.button("Sim, cancelar", type="primary", key="dams_cancel_yes"):
            ok, done = common.attempt(dams.cancel, db, actor, mun, dam["id"], reason, withdraw)
            if ok:
                st.session_state.pop("dams_cancel_confirm", None)
                st.session_state["dams_flash"] = ("success", [f"DAM {done['number']} cancelado."])
                st.rerun()


def list_tab() -> None:
    filters = query()
    ok, page = common.attempt(lists.list_page, db, actor, mun, filters)
    if not ok:
        return
    table(page.rows)
    nav = st.columns([2, 2, 2, 2, 2])
    nav[0].number_input("Página", min_value=1, max_value=page.pages, key="dams_page")
    nav[1].selectbox("Por página", PER_PAGE, key="dams_per_page", placeholder="Escolha...")
    nav[2].markdown(f"<br>{list_counts.words(page.total, 'DAM', 'DAMs')} · {fmt.count(page.pages, 'página', 'páginas')}",
                    unsafe_allow_html=True)
    export_buttons(nav[3], nav[4], "DAMs", mun, "dams", lambda: lists.export_csv(db, actor, mun, filters),
                   lambda: lists.export_xlsx(db, actor, mun, filters))
    st.divider()
    by_id = {d["id"]: d for d in page.rows}
    if st.session_state.get("dams_open_next"):  # a DAM just issued from another (its charge's new DAM)
        st.session_state["dams_open"] = st.session_state.pop("dams_open_next")
    linked = st.session_state.get("dams_open")
    if linked and linked not in by_id:  # opened from a link (audit log) or kept from another page of the list
        ok, dam = common.attempt(dams.get, db, actor, mun, linked)
        if ok:
            by_id = {linked: dam, **by_id}
        else:
            st.session_state.pop("dams_open")
    chosen = st.selectbox("Abrir DAM", list(by_id), index=None, format_func=lambda i: label(by_id[i]),
                          key="dams_open", placeholder="Escolha um DAM da lista…")
    if chosen:
        ok, dam = common.attempt(dams.get, db, actor, mun, chosen)
        if ok:
            detail(dam)
    st.divider()
    batch_print(page.rows, filters)


common.flash("dams_flash")
tab_list, tab_issue, tab_import = st.tabs(["DAMs emitidos", "Emitir DAM", "Arquivo retorno do banco"])
with tab_list:
    list_tab()
with tab_issue:
    ui_dams.issue_tab(db, actor, mun)
with tab_import:
    ui_dams.import_tab(db, actor, mun)
