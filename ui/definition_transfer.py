"""The "Exportar ou importar a definição" part of "Cadastros definidos": a register (and, if asked, its
records) as a .json file, and a file checked whole — what it creates, each problem next to its record —
before TI imports it. Every widget key starts with ``regdef_transfer_``."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules import fmt
from services.shared import definition_transfer, municipalities, uploads
from services.shared.definition_transfer import ImportPlan
from ui import common
from ui.entity import announce, confirm_button

GENERATION = "regdef_transfer_generation"  # a new uploader after an import (an uploader cannot be emptied)
RENAME = "regdef_transfer_rename"


def transfer_section(db, actor, mun: str, chosen: str) -> None:
    """Export the chosen register; import one from a file into ``mun``."""
    with st.expander("Exportar ou importar a definição", icon=":material/swap_horiz:"):
        if chosen:
            _export(db, actor, mun, chosen)
        else:
            st.caption("Escolha um cadastro acima para exportá-lo.")
        st.divider()
        _import(db, actor, mun)


def _export(db, actor, mun: str, name: str) -> None:
    with_records = st.checkbox("Incluir os registros", key="regdef_transfer_records",
                               help="Os registros deste município, sem os removidos por engano.")
    made = None
    if with_records:  # made now: records with their files may pass the import's limit, said here
        ok, made = common.attempt(definition_transfer.export_register, db, actor, mun, name, with_records=True)
        if not ok:
            return
    st.download_button("Baixar a definição (.json)", made if with_records else (
                           lambda: definition_transfer.export_register(db, actor, mun, name, with_records=False)),
                       file_name=f"cadastro-{name}-{mun}-{common.today().isoformat()}.json",
                       mime="application/json", icon=":material/download:", key="regdef_transfer_download",
                       on_click="ignore")


def _import(db, actor, mun: str) -> None:
    generation = st.session_state.get(GENERATION, 0)
    upload = st.file_uploader(f"Importar definição (arquivo .json, {uploads.shown_limit('register_definition')})",
                              type=["json"], key=f"regdef_transfer_file_{generation}")
    if upload is None:
        return
    data = upload.getvalue()
    rename = (st.session_state.get(RENAME) or "").strip() or None
    ok, plan = common.attempt(definition_transfer.check_import, db, actor, mun, data, rename)
    if not ok:
        return
    _describe(db, plan)
    if plan.name_taken or rename:
        st.text_input("Novo identificador", key=RENAME, placeholder="Letras minúsculas sem acento, números e _",
                      help="Já existe um cadastro com o identificador do arquivo neste painel: o importado "
                           "recebe este (letras minúsculas sem acento, números e _).")
    if not plan.applicable:
        return
    place = dict((m.code, m.name) for m in municipalities.of_actor(db, actor)).get(mun, mun)
    if confirm_button("Importar", "regdef_transfer_import",
                      f"Criar o cadastro de {plan.label_plural.lower()} em {place} com "
                      f"{fmt.count(plan.records, 'registro', 'registros')}?", icon=":material/upload:"):
        ok, name = common.attempt(definition_transfer.import_register, db, actor, mun, data, rename_to=rename)
        if ok:
            announce(f"Cadastro de {plan.label_plural.lower()} importado com "
                     f"{fmt.count(plan.records, 'registro', 'registros')}; ele já "
                     "está no menu de quem o consulta.")
            st.session_state[GENERATION] = generation + 1
            common.forget(RENAME, "regdef_choice", regdef_choice=name)
            st.rerun()


def _describe(db, plan: ImportPlan) -> None:
    """What the file creates, and every problem next to where it is."""
    names = {m.code: m.name for m in municipalities.all_municipalities(db)}
    st.markdown(f"**{plan.label_plural or 'Cadastro sem nome'}**: {fmt.count(plan.fields, 'campo', 'campos')} e "
                f"{fmt.count(plan.records, 'registro', 'registros')}, exportado de {names.get(plan.source, plan.source)}.")
    if plan.applicable:
        st.success("Verificação concluída: nada impede a importação.", icon=":material/check_circle:")
        return
    st.error(f"{fmt.count(len(plan.problems), 'problema', 'problemas')}; nada foi gravado. Corrija os pontos abaixo e envie o arquivo de "
             "novo.", icon=":material/error:")
    st.dataframe(pd.DataFrame([{"Onde": p.where, "Problema": p.message} for p in plan.problems]),
                 hide_index=True, width="stretch")
