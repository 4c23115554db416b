"""A file field of a defined register on screen (issue 35 item 13): the upload in the record's form, with
the file it holds now, and the download of each file of an opened record."""
from __future__ import annotations

import streamlit as st

from services.shared import entity_files, record_files, uploads
from services.shared.record_files import Sent
from services.shared.schema import EntitySpec, Field
from ui import common

TYPES = ["pdf", "jpg", "jpeg", "png"]  # what the browser offers; the service checks the content


def file_input(f: Field, label: str, key: str, current: dict | None) -> Sent | None:
    """The upload of a file field: the file sent now (None: none sent, the record keeps what it holds).
    Its key changes when the form is emptied (:func:`forget`): an upload cannot be set back otherwise."""
    generation = st.session_state.get(f"{key}_generation", 0)
    limits = f"PDF, JPEG ou PNG, {uploads.shown_limit(record_files.KIND)}."
    now = f" Atual: {f.show(current)}; envie outro para substituí-lo." if current else ""
    sent = st.file_uploader(label, type=TYPES, key=f"{key}_{generation}", help=f"{f.help} {limits}{now}".strip())
    if current:
        st.caption(f"Arquivo atual: {f.show(current)}")
    return Sent(sent.name, sent.getvalue()) if sent is not None else None


def forget(key: str) -> None:
    """Empty a file field on the next run (its upload drawn anew under another key)."""
    st.session_state[f"{key}_generation"] = st.session_state.get(f"{key}_generation", 0) + 1


def downloads(spec: EntitySpec, actor, mun: str, doc: dict) -> None:
    """A download button for each file the opened record holds."""
    for f in spec.fields:
        kept = doc.get(f.name)
        if f.kind != "file" or not isinstance(kept, dict):
            continue
        st.download_button(f"Baixar {f.label.lower()}: {f.show(kept)}", key=f"{spec.name}_{doc['id']}_{f.name}_get",
                           data=lambda f=f: _data(spec, actor, mun, doc["id"], f.name), file_name=str(kept["name"]),
                           mime=record_files.mime(kept), icon=":material/download:", on_click="ignore")


def _data(spec: EntitySpec, actor, mun: str, doc_id: str, name: str) -> bytes:
    return entity_files.record_file(common.db(), actor, spec.name, mun, doc_id, name)[2]
