"""Ride-hailing drivers: register, documents of the law's checklist, records and the eligibility verdict."""
import pandas as pd
import streamlit as st

from rules.fmt import count, day
from services.ridehailing import registry
from services.shared import clock, entities, entity_files, entity_lists, record_files, schema
from services.shared.errors import ValidationFailed
from services.shared.schema import ListQuery
from ui import common, search_results
from ui.entity import (
    announce,
    confirm_button,
    field_error,
    forget,
    form_errors,
    record_picker,
    submit,
)
from ui.ridehailing import change_form, histories, next_step_bar, registry_page
from ui.verdicts import verdict

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
spec = entities.spec_for(db, "drivers", mun)
common.page_header("Condutores", rules.act)


def children(entity: str, cpf: str) -> list[dict]:
    ok, rows = common.attempt(entity_lists.list_all, db, actor, entity, mun, ListQuery(filters={"driver_cpf": cpf}))
    return rows if ok else []


def add_child(entity: str, cpf: str, form_key: str, widgets, names: list[str], what: str) -> None:
    """A small form that adds a dated record of the driver (document, infraction, course): each error
    under its field, what was typed kept until it is saved."""
    form_errors(form_key, names)
    with st.form(form_key):
        values = widgets()
        submitted = st.form_submit_button("Adicionar", icon=":material/add:")
    if submitted:
        submit(form_key, entities.create, db, actor, entity, mun, {"driver_cpf": cpf, **values})
        dated = ("issued_on", "committed_on", "held_on")  # their widgets start on today
        forget(*(f"{form_key}_{name}" for name in names),
               **{f"{form_key}_{name}": None for name in names if name in ("code", "severity")},
               **{f"{form_key}_{name}": clock.today() for name in names if name in dated})
        announce(f"{what} {'adicionada' if entities.spec(entity).feminine else 'adicionado'}.")
        st.rerun()


def removable_table(entity: str, rows: list[dict], frame: pd.DataFrame, key: str, what: str, describe,
                    empty: str) -> None:
    """The records as a table (``empty``: what it says without any); a selected row can be removed when
    it was entered by mistake, with a reason and a confirmation (it stays in the store as removed, and
    in the audit log)."""
    generation = st.session_state.setdefault(f"{key}_generation", 0)  # a new table after each removal
    event = common.table(frame, key=f"{key}_table_{generation}", empty=empty, on_select="rerun",
                         selection_mode="single-row")
    picked = event.selection.rows if event and event.selection else []
    if not picked or picked[0] >= len(rows):
        if rows:
            st.caption(f"Selecione uma linha para remover {what} {'lançada' if what.startswith('a ') else 'lançado'} "
                       "por engano.")
        return
    row = rows[picked[0]]
    st.text_input(f"Motivo da remoção de {describe(row)} *", key=f"{key}_reason",
                  placeholder="Ex.: lançado no condutor errado")
    field_error(key, "reason")
    form_errors(key, ["reason"])
    if confirm_button(f"Remover {what}", f"{key}_remove",
                      f"Remover {describe(row)}? O registro sai da lista e da verificação, e fica guardado como "
                      "removido, com o seu nome, a data e o motivo, no registro de auditoria."):
        submit(key, entities.remove, db, actor, entity, mun, row["id"], st.session_state.get(f"{key}_reason", ""),
               expected_version=row["version"])
        forget(f"{key}_reason")
        st.session_state[f"{key}_generation"] = generation + 1
        announce(f"Registro removido: {describe(row)}. O motivo ficou no registro de auditoria.")
        st.rerun()


def documents(cpf: str) -> None:
    st.markdown(f"**Documentos exigidos** — {rules.act}")
    rows = children("driver_documents", cpf)
    labels = dict(schema.SPECS["driver_documents"].field("code").choices)
    required = {req.code: req.label for req in rules.documents}
    doc_spec = schema.SPECS["driver_documents"]
    handed = [{"Documento": required.get(r["code"]) or labels.get(r["code"], r["code"]),
               "Emissão": day(r["issued_on"]),
               "Validade impressa": day(r["valid_until"]) if r.get("valid_until") else "—",
               "Cópia enviada pelo portal": doc_spec.field("file").show(r.get("file")) or "—"} for r in rows]
    removable_table("driver_documents", rows,
                    pd.DataFrame(handed, columns=["Documento", "Emissão", "Validade impressa",
                                                  "Cópia enviada pelo portal"]), "drivers_docs", "o documento",
                    lambda r: f"{labels.get(r['code'], r['code'])}, emissão em {day(r['issued_on'])}",
                    "Nenhum documento entregue.")
    for row in rows:  # the copies the driver sent with the application on the portal
        if isinstance(row.get("file"), dict):
            st.download_button(f"Baixar {required.get(row['code']) or labels.get(row['code'], row['code'])}: "
                               f"{doc_spec.field('file').show(row['file'])}", key=f"drivers_doc_file_{row['id']}",
                               data=lambda row=row: entity_files.record_file(db, actor, "driver_documents", mun,
                                                                             row["id"], "file")[2],
                               file_name=str(row["file"]["name"]), mime=record_files.mime(row["file"]),
                               icon=":material/download:", on_click="ignore")
    # what the verdict does not accept: not presented, or past its validity (printed, or the law's days)
    ok, offered = common.attempt(registry.documents_due, db, actor, mun, cpf, clock.today())
    offered = offered if ok else []
    st.caption(f"{count(len(offered), 'documento', 'documentos')} a entregar." if offered else
               "Todos os documentos exigidos estão no cadastro e válidos; um vencido volta a ser pedido aqui.")
    if offered:
        hand_in(cpf, offered, required)


def hand_in(cpf: str, offered: list[str], required: dict[str, str]) -> None:
    """Every document still to hand in, in one form: tick those the driver brought, check their dates,
    one click launches them all (all or none; an error stays under its row, what was typed kept)."""
    form = "drivers_doc_form"
    form_errors(form, [f"{code}.{name}" for code in offered for name in ("code", "issued_on", "valid_until")])
    with st.form(form):
        head = st.columns([4, 2, 2])
        head[0].markdown("**Documento entregue**")
        head[1].markdown("**Emissão**")
        head[2].markdown("**Validade impressa (se houver)**")
        for code in offered:
            cols = st.columns([4, 2, 2])
            cols[0].checkbox(required[code], key=f"{form}_{code}")
            with cols[1]:
                st.date_input(f"Emissão — {required[code]}", clock.today(), format="DD/MM/YYYY",
                              key=f"{form}_{code}_issued_on", label_visibility="collapsed")
                field_error(form, f"{code}.issued_on")
            with cols[2]:
                st.date_input(f"Validade impressa — {required[code]}", value=None, format="DD/MM/YYYY",
                              key=f"{form}_{code}_valid_until", label_visibility="collapsed",
                              help="Validade impressa no documento, se houver")
                field_error(form, f"{code}.valid_until")
        submitted = st.form_submit_button("Lançar os documentos marcados", icon=":material/add:")
    if not submitted:
        return
    chosen = [code for code in offered if st.session_state.get(f"{form}_{code}")]
    if not chosen:
        st.session_state[f"{form}_errors"] = {"_form": "Marque ao menos um documento entregue."}
        st.rerun()
    rows = [{"driver_cpf": cpf, "code": code, "issued_on": st.session_state.get(f"{form}_{code}_issued_on"),
             "valid_until": st.session_state.get(f"{form}_{code}_valid_until")} for code in chosen]
    submit(form, launch_documents, rows, chosen)
    forget(*(f"{form}_{code}{suffix}" for code in chosen for suffix in ("", "_issued_on", "_valid_until")))
    announce(f"{count(len(chosen), 'documento lançado', 'documentos lançados')}: "
             + ", ".join(required[c] for c in chosen) + ".")
    st.rerun()


def launch_documents(rows: list[dict], codes: list[str]) -> list[str]:
    """The documents in one unit of work; an error of row N is shown under that document's row."""
    try:
        return entities.create_many(db, actor, "driver_documents", mun, rows)
    except ValidationFailed as exc:
        by_row = {}
        for key, message in exc.errors.items():
            index, _, name = key.partition(".")
            by_row[f"{codes[int(index)]}.{name}" if index.isdigit() else key] = message
        raise ValidationFailed(by_row) from None


def records(cpf: str) -> None:
    left, right = st.columns(2)
    with left:
        st.markdown("**Infrações de trânsito (CNH)**")
        rows = children("traffic_infractions", cpf)
        severity = schema.SPECS["traffic_infractions"].field("severity")
        removable_table("traffic_infractions", rows, pd.DataFrame(
            [{"Data": day(r["committed_on"]), "Gravidade": severity.show(r["severity"]),
              "Descrição": r.get("description") or ""} for r in rows], columns=["Data", "Gravidade", "Descrição"]),
            "drivers_infractions", "a infração",
            lambda r: f"Infração {severity.show(r['severity']).lower()} de {day(r['committed_on'])}",
            "Nenhuma infração registrada.")
        form = "drivers_inf_form"

        def infraction() -> dict:
            on = st.date_input("Data da infração", clock.today(), format="DD/MM/YYYY", key=f"{form}_committed_on")
            field_error(form, "committed_on")
            level = st.selectbox("Gravidade", [v for v, _ in severity.choices], format_func=severity.show,
                                 key=f"{form}_severity", placeholder="Escolha...")
            field_error(form, "severity")
            text = st.text_input("Descrição", key=f"{form}_description")
            field_error(form, "description")
            return {"committed_on": on, "severity": level, "description": text}

        add_child("traffic_infractions", cpf, form, infraction, ["committed_on", "severity", "description"],
                  "Infração")
    with right:
        st.markdown("**Cursos e palestras de qualificação**")
        rows = children("training_courses", cpf)
        removable_table("training_courses", rows, pd.DataFrame(
            [{"Data": day(r["held_on"]), "Curso": r["title"]} for r in rows], columns=["Data", "Curso"]),
            "drivers_courses", "o curso", lambda r: f"Curso \"{r['title']}\" de {day(r['held_on'])}",
            "Nenhum curso registrado.")
        form = "drivers_course_form"

        def course() -> dict:
            on = st.date_input("Data", clock.today(), format="DD/MM/YYYY", key=f"{form}_held_on")
            field_error(form, "held_on")
            title = st.text_input("Curso ou palestra", key=f"{form}_title")
            field_error(form, "title")
            return {"held_on": on, "title": title}

        add_child("training_courses", cpf, form, course, ["held_on", "title"], "Curso")


def driver_detail(doc: dict) -> None:
    st.subheader(f"{doc['name']} · CPF {spec.field('cpf').show(doc['cpf'])}")
    next_step_bar("drivers", actor, mun, doc, "drivers_next")
    on = st.date_input("Verificar na data do protocolo", clock.today(), format="DD/MM/YYYY", key="drivers_on")
    ok, decision = common.attempt(registry.driver_eligibility, db, actor, mun, doc["cpf"], on)
    if ok:
        verdict(decision, "Condutor", "drivers_verdict")
    tab_docs, tab_records, tab_links, tab_edit, tab_history = st.tabs(
        ["Documentos", "Infrações e cursos", "Vínculos", "Editar dados", "Histórico de alterações"])
    with tab_docs:
        documents(doc["cpf"])
    with tab_records:
        records(doc["cpf"])
    with tab_links:
        search_results.related(actor, mun, doc["cpf"], doc["id"], "Nenhum veículo, autorização, auto ou DAM com este "
                               "CPF.")
    with tab_edit:
        change_form(spec, actor, mun, doc, rules.ref("data_change"))
    with tab_history:
        histories(actor, mun, "drivers", doc["id"])


def picker() -> str | None:
    """Open a record by name or CPF when no row of the table is selected."""
    doc = record_picker("drivers", actor, mun, "Abrir condutor",
                        lambda d: f"{d['name']} · CPF {spec.field('cpf').show(d['cpf'])}", "drivers_open")
    return doc["id"] if doc else None


registry_page(spec, actor, mun, "Novo condutor", picker, driver_detail, "drivers_open")
