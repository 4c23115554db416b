"""The Editais tab of the Autos de infração screen (``services.ridehailing.enforcement.editais``): the
notices that need an edital (no known address, an AR returned), the edital assembled from them, its text
to paste into the Diário Oficial dos Municípios and its PDF, and the record of its publication (edition
and date), from which every listed auto counts as notified (CG Decreto 06/2026 art. 25 §1 II; MP Lei
1.552/2025 art. 21 §1)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules.fmt import count, day
from services.ridehailing.enforcement import autos, edital_pdf, editais
from services.shared import clock
from services.shared.auth import Actor
from ui import common
from ui.lists import export_buttons
from ui.ridehailing import clear_reads


def _done(message: str) -> None:
    clear_reads()
    st.session_state["autos_flash"] = ("success", message)
    st.session_state["autos_tab_next"] = "Editais"
    st.rerun()


def editais_tab(actor: Actor, mun: str, submit) -> None:
    pending(actor, mun, submit)
    st.divider()
    listed(actor, mun, submit)


def pending(actor: Actor, mun: str, submit) -> None:
    db = common.db()
    st.markdown("#### Notificações a publicar por edital")
    st.caption("Autuados sem domicílio eletrônico que não podem ser alcançados pelo correio: endereço "
               f"desconhecido ou AR devolvido ({autos.edital_reference(mun)}).")
    ok, rows = common.attempt(editais.candidates, db, actor, mun)
    if not ok:
        return
    frame = pd.DataFrame([{"Auto": r["number"], "Lavrado em": day(r["auto_on"]), "Autuado": r["name"],
                           "CPF/CNPJ": r["document"], "Infração": r["infraction"], "Motivo": r["why"],
                           "Publicar até": day(r["limit"]) if r["limit"] else ""} for r in rows],
                         columns=["Auto", "Lavrado em", "Autuado", "CPF/CNPJ", "Infração", "Motivo", "Publicar até"])
    common.table(frame, empty="Nenhuma notificação aguarda edital.", key="editais_pending_table")
    if not rows:
        return
    with st.form("editais_assemble"):
        cols = st.columns(2)
        signer = cols[0].text_input("Assinado por", key="editais_signer")
        signer_slot = cols[0].empty()
        role = cols[1].text_input("Cargo", key="editais_signer_role",
                                  placeholder="Ex.: Secretária Municipal de Finanças")
        role_slot = cols[1].empty()
        sent = st.form_submit_button(f"Montar edital com {count(len(rows), 'auto', 'autos')}", type="primary")
    if sent:
        done, made = submit({"signer_name": signer_slot, "signer_role": role_slot}, editais.assemble, db, actor, mun,
                            signer_name=signer, signer_role=role, auto_ids=[r["auto_id"] for r in rows])
        if done:
            st.session_state["editais_open_next"] = made["id"]
            listed_autos = count(len(made["lines"]), "auto", "autos")
            _done(f"Edital nº {made['number']} montado com {listed_autos}: baixe o texto, publique e registre a "
                  "publicação.")


def listed(actor: Actor, mun: str, submit) -> None:
    db = common.db()
    st.markdown("#### Editais")
    cols = st.columns([3, 2])
    search = cols[0].text_input("Buscar", key="editais_search", placeholder="Número, edição, auto ou nome")
    status = cols[1].selectbox("Situação", [""] + list(editais.STATUSES), key="editais_status",
                               format_func=lambda s: editais.STATUSES.get(s, "Todas"), placeholder=common.CHOOSE)
    ok, rows = common.attempt(editais.list_editais, db, actor, mun, search, status)
    if not ok:
        return
    frame = pd.DataFrame([{k: common.cell_text(v) if k in ("Data", "Publicado em") and v else v
                           for k, v in r.items() if k != "id"} for r in rows], columns=editais.EXPORT_COLUMNS)
    common.table(frame, empty="Nenhum edital.", key="editais_table")
    places = st.columns(2)
    export_buttons(places[0], places[1], "editais", mun, "editais",
                   lambda: editais.export_csv(db, actor, mun, search, status),
                   lambda: editais.export_xlsx(db, actor, mun, search, status))
    if not rows:
        return
    options = {r["id"]: f"{r['Número']} · {r['Situação']} · {r['Autos']}" for r in rows}
    if st.session_state.get("editais_open_next") in options:
        st.session_state["editais_open"] = st.session_state.pop("editais_open_next")
    chosen = st.selectbox("Edital", list(options), index=None, format_func=options.get, key="editais_open",
                          placeholder="Escolha um edital")
    if chosen:
        one(actor, mun, chosen, submit)


def one(actor: Actor, mun: str, edital_id: str, submit) -> None:
    db = common.db()
    ok, edital = common.attempt(editais.get, db, actor, mun, edital_id)
    if not ok:
        return
    name = edital["number"].replace("/", "-")
    cols = st.columns(2)
    cols[0].download_button("Texto para publicação (TXT)",
                            lambda: editais.edital_text(db, actor, mun, edital_id).encode("utf-8"),
                            f"edital_{name}.txt", "text/plain", key="editais_txt", icon=":material/description:",
                            on_click="ignore")
    cols[1].download_button("Edital (PDF)", lambda: edital_pdf.edital_pdf(db, actor, mun, edital_id),
                            f"edital_{name}.pdf", "application/pdf", key="editais_pdf",
                            icon=":material/picture_as_pdf:", on_click="ignore")
    if edital["status"] == "publicado":
        st.success(f"Edital nº {edital['number']} publicado em {day(edital['published_on'])}, edição nº "
                   f"{edital['edition']}: autuados notificados em {day(edital['notified_on'])}, juntada em "
                   f"{day(edital['juntada_on'])}.")
        for refused in edital.get("refused") or []:
            st.error(f"Auto nº {refused['number']}: {refused['reason']}.")
        return
    with st.expander("Texto do edital", expanded=False):
        ok, text = common.attempt(editais.edital_text, db, actor, mun, edital_id)
        if ok:
            st.code(text, language=None)
    with st.form("editais_publish"):
        cols = st.columns(2)
        edition = cols[0].text_input("Edição do órgão oficial", key="editais_edition", placeholder="Ex.: 4.321")
        edition_slot = cols[0].empty()
        published_on = cols[1].date_input("Publicado em", clock.today(), format="DD/MM/YYYY", key="editais_published")
        published_slot = cols[1].empty()
        sent = st.form_submit_button("Registrar publicação", type="primary")
    if sent:
        done, result = submit({"edition": edition_slot, "published_on": published_slot}, editais.record_publication,
                              db, actor, mun, edital_id, edition=edition, published_on=published_on)
        if done:
            notified = count(len(result["notified"]), "auto notificado", "autos notificados")
            message = (f"Publicação registrada: {notified} em {day(result['notified_on'])}; o prazo de defesa conta "
                       f"da juntada em {day(result['juntada_on'])}.")
            st.session_state["editais_open_next"] = edital_id
            if result["refused"]:
                clear_reads()
                st.session_state["autos_flash"] = ("success", [message, *(f"Auto nº {r['number']}: {r['reason']}."
                                                                        for r in result["refused"])])
                st.session_state["autos_tab_next"] = "Editais"
                st.rerun()
            _done(message)
