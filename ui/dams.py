"""What the DAM page draws besides its list: the form helpers, the DAM typed by hand and the bank's
return file (FEBRABAN layout, :mod:`services.dam.bank_import`)."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pandas as pd
import streamlit as st

from rules import fmt
from services.dam import bank_import, bank_report, dams, printing
from services.shared import clock, fields
from services.shared.auth import Actor
from services.shared.errors import ServiceError, ValidationFailed
from ui import common
from ui.entity import record_picker

COUNT_TITLES = {bank_report.PAID: "Baixados", bank_report.UNMATCHED: "Não encontrados",
                bank_report.DUPLICATED: "Duplicados", bank_report.CANCELLED: "DAM cancelado"}


def field_error(errors: dict[str, str], name: str) -> None:
    """The error of one field, right under it (red)."""
    if errors.get(name):
        st.caption(f":red[{errors[name]}]")


def submit(errors_key: str, action, *args, **kwargs):
    """Run a service for a form: its errors are kept by field for the next run (the form keeps what
    was typed); returns the result, or None after a refusal (the page reruns to show it)."""
    try:
        result = action(*args, **kwargs)
    except ValidationFailed as exc:
        st.session_state[errors_key] = exc.errors
    except ServiceError as exc:
        st.session_state[errors_key] = {exc.field or "_form": exc.message}
    except Exception:  # noqa: BLE001 — never a traceback on screen
        common.log.exception("DAM form %s", errors_key)
        st.session_state[errors_key] = {"_form": "Ocorreu um erro inesperado. Nada foi alterado; tente novamente "
                                                 "ou avise a TI."}
    else:
        st.session_state.pop(errors_key, None)
        return result
    st.rerun()
    return None


def form_error(errors: dict[str, str]) -> None:
    """An error of the whole form (not of one field), above it."""
    if errors.get("_form"):
        st.error(errors["_form"])


def money_input(raw: str):
    """What was typed, as a Decimal for the service to check (None when not a number)."""
    try:
        return fields.parse_decimal(raw) if raw.strip() else None
    except ValueError:
        return None


def fill_taxpayer(people: dict[str, dict]) -> None:
    """Copy the chosen taxpayer's name, document and address into the form (they can still be edited)."""
    person = people.get(st.session_state.get("dams_issue_taxpayer"))
    if person:
        address = ", ".join(part for part in (person.get("address"), person.get("district")) if part)
        st.session_state.update(dams_issue_name=person["name"], dams_issue_document=fields.show("cpf_cnpj", person["document"]),
                                dams_issue_address=address)


def issue_tab(db: Any, actor: Actor, mun: str) -> None:
    """A DAM typed by hand, to a taxpayer of Contribuintes, and the PDF of the one just issued."""
    record_picker("taxpayers", actor, mun, "Contribuinte cadastrado (ou digite os dados abaixo)",
                  lambda p: f"{p['name']} · {fields.show('cpf_cnpj', p['document'])}", "dams_issue_taxpayer",
                  on_change=fill_taxpayer)
    errors = st.session_state.get("dams_issue_errors", {})
    form_error(errors)
    with st.form("dams_issue_form"):
        cols = st.columns(2)
        with cols[0]:
            name = st.text_input("Nome / Razão social *", key="dams_issue_name")
            field_error(errors, "taxpayer_name")
        with cols[1]:
            document = st.text_input("CPF/CNPJ *", key="dams_issue_document")
            field_error(errors, "taxpayer_document")
        address = st.text_input("Endereço *", key="dams_issue_address")
        field_error(errors, "taxpayer_address")
        cols = st.columns(3)
        with cols[0]:
            kind = st.selectbox("Tipo de receita *", list(dams.REVENUE_KINDS), index=None, key="dams_issue_kind",
                                format_func=dams.REVENUE_KINDS.get, placeholder="Escolha…")
            field_error(errors, "revenue_kind")
        with cols[1]:
            legal_basis = st.text_input("Fundamentação legal *", key="dams_issue_legal_basis",
                                        placeholder="Ex.: Lei Municipal 1.552/2025, art. 30")
            field_error(errors, "legal_basis")
        with cols[2]:
            reference = st.text_input("Exercício / referência", key="dams_issue_reference",
                                      placeholder=f"{clock.today().year} (ano da emissão)")
        description = st.text_area("Discriminação da receita *", key="dams_issue_description", height=80)
        field_error(errors, "description")
        cols = st.columns(3)
        with cols[0]:
            raw = st.text_input("Valor principal (R$) *", key="dams_issue_amount", placeholder="1.234,56")
            field_error(errors, "amount")
        with cols[1]:
            raw_discount = st.text_input("Desconto (R$)", key="dams_issue_discount", placeholder="0,00")
            field_error(errors, "discount")
        with cols[2]:
            due = st.date_input("Vencimento *", clock.today() + timedelta(days=30), min_value=clock.today(),
                                format="DD/MM/YYYY", key="dams_issue_due",
                                help="Se cair em fim de semana ou feriado, passa para o dia útil seguinte.")
            field_error(errors, "due")
        instructions = st.text_area("Instruções ao contribuinte (uma por linha)", key="dams_issue_instructions", height=80)
        submitted = st.form_submit_button("Emitir DAM", type="primary")
    if submitted:
        discount = money_input(raw_discount) if raw_discount.strip() else Decimal("0")
        dam = submit(
            "dams_issue_errors", dams.issue, db, actor, mun, taxpayer_name=name, taxpayer_document=document,
            taxpayer_address=address, revenue_kind=kind, description=description, legal_basis=legal_basis,
            amount=money_input(raw), due=due, instructions=instructions, reference=reference, discount=discount,
            registered_taxpayer=True,
        )
        if dam:
            lines = [f"DAM {dam['number']} emitido: {dam['taxpayer_name']}, {fmt.brl(dam['amount'])}, "
                     f"vencimento {fmt.day(dam['due_on'])}."]
            if dam["due_on"] != dam["requested_due"]:
                lines.append(dam["due_note"])
            st.session_state["dams_flash"] = ("success", lines)
            st.session_state["dams_last_issued"] = dam["id"]
            common.forget(*(f"dams_issue_{key}" for key in ("taxpayer", "name", "document", "address", "kind",
                                                             "legal_basis", "description", "amount", "instructions",
                                                             "reference", "discount", "taxpayer_term")),
                          dams_issue_taxpayer=None, dams_issue_kind=None)  # the browser's copy too (ui.common.forget)
            st.rerun()
    last = st.session_state.get("dams_last_issued")
    if last:
        ok, dam = common.attempt(dams.get, db, actor, mun, last)
        if ok:
            st.download_button(f"Baixar PDF do DAM {dam['number']} recém-emitido",
                               lambda: printing.pdf_batch(db, actor, mun, [last]),
                               f"dam_{dam['number'].replace('/', '_')}.pdf", "application/pdf",
                               key="dams_issue_pdf", icon=":material/picture_as_pdf:", on_click="ignore")


def report(result: bank_report.ImportResult) -> None:
    """What an import did: counts, then the lines of each outcome."""
    when = clock.to_local(result.imported_at).strftime("%d/%m/%Y %H:%M")
    header = f"Banco {result.bank} · NSA {result.file_sequence} · gerado em {fmt.day(result.generated_on)}"
    if result.already_imported:
        st.info(f"Este arquivo já foi importado em {when} por {result.imported_by}. Nada foi alterado. "
                "Abaixo, o relatório daquela importação.")
    else:
        st.success(f"Arquivo importado: {fmt.count(len(result.paid), 'DAM baixado', 'DAMs baixados')}.")
    st.caption(header)
    cols = st.columns(6)
    cols[0].metric("Linhas", len(result.lines))
    cols[1].metric("Baixados", len(result.paid))
    cols[2].metric("Não encontrados", len(result.unmatched))
    cols[3].metric("Duplicados", len(result.duplicated))
    cols[4].metric("Valor diferente", len(result.different_amount))
    cols[5].metric("DAM cancelado", len(result.cancelled))
    for title, lines in (("Valor diferente do DAM", result.different_amount), ("Pagos após o vencimento", result.late),
                         ("DAM cancelado (restituir ou aproveitar)", result.cancelled),
                         ("Duplicados", result.duplicated), ("Não encontrados", result.unmatched),
                         ("Baixados", result.paid)):
        if not lines:
            continue
        with st.expander(f"{title} ({len(lines)})", expanded=title != "Não encontrados" and title != "Baixados"):
            st.dataframe(pd.DataFrame([{
                "Linha": line.line_number, "DAM": line.dam_number or "", "Pago em": fmt.day(line.paid_on),
                "Valor recebido": fmt.brl(line.amount_received),
                "Valor do DAM": fmt.brl(line.dam_amount) if line.dam_amount is not None else "",
                "Observação": line.message, "Código de barras": line.barcode,
            } for line in lines]), hide_index=True, width="stretch",
                column_config={"Observação": st.column_config.TextColumn(width="large")})


def import_tab(db: Any, actor: Actor, mun: str) -> None:
    """The upload of the bank's return file, the report of its import and the files imported before."""
    st.caption("Arquivo retorno de arrecadação no layout FEBRABAN de 150 posições (registros A, G e Z). "
               "Importar o mesmo arquivo de novo não altera nada.")
    upload = st.file_uploader("Arquivo retorno do banco", type=["ret", "txt", "rcb"], key="dams_return_file")
    if upload is not None and st.button("Importar arquivo", type="primary", key="dams_import"):
        with st.spinner("Conferindo e baixando os pagamentos…"):
            ok, result = common.attempt(bank_import.import_return_file, db, actor, mun, upload.getvalue())
        if ok:
            st.session_state["dams_import_result"] = result
    result = st.session_state.get("dams_import_result")
    if result:
        report(result)
    ok, files = common.attempt(bank_import.imported_files, db, actor, mun)
    if ok and files:
        st.subheader("Arquivos importados")
        st.dataframe(pd.DataFrame([{
            "Importado em": clock.to_local(f["imported_at"]).strftime("%d/%m/%Y %H:%M"), "Por": f["imported_by"],
            "Banco": f"{f['bank_code']} {f['bank_name']}", "NSA": f["file_sequence"],
            "Registros": f["records"], "Total": fmt.brl(f["total_amount"]),
            **{title: f.get("counts", {}).get(k, 0) for k, title in COUNT_TITLES.items()},
        } for f in files]), hide_index=True, width="stretch")
