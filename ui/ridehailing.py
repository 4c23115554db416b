"""Display helpers of the ride-hailing screens: findings with their articles, status badges, and the
edit form of drivers and vehicles that records when the fact changed (7-day rule)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from rules.fmt import day
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services.ridehailing import (
    authorization_lists,
    authorizations,
    fees,
    registry,
    work_queue,
)
from services.ridehailing import changes as ridehailing_changes
from services.ridehailing.queue_item import Pendencia
from services.ridehailing.trip_data import REQUESTS as TRIP_DATA_REQUESTS
from services.shared import clock, config, entities, entity_lists, schema
from services.shared.schema import EntitySpec
from ui import common, navigation
from ui.entity import (
    announced,
    entity_form,
    entity_import,
    field_error,
    form_errors,
    form_fields,
    references,
    saved_panel,
    submit,
)
from ui.lists import entity_list
from ui.verdicts import finding_word

READ_TTL_SECONDS = 300  # cached lists live at most this long; writes change the data version sooner
STATUS_COLOURS = {
    Status.ACTIVE: "green", Status.AWAITING_FEE: "orange", Status.AWAITING_INSPECTION: "orange",
    Status.REQUESTED: "blue", Status.BLOCKED: "red", Status.SUSPENDED: "red", Status.REFUSED: "gray",
    Status.CANCELLED: "gray", Status.REVOKED: "gray", Status.CASSADA: "red", Status.EXPIRED: "gray",
}


def status_badge(state: AuthorizationState) -> str:
    return f":{STATUS_COLOURS.get(state.status, 'gray')}-badge[{state.label}]"


EVENT_LABELS = {
    "requested": "Requerimento protocolado", "refused": "Indeferido", "approved": "Aprovado",
    "inspection_passed": "Vistoria aprovada", "inspection_failed": "Vistoria reprovada",
    "inspection_called": "Convocação para vistoria", "fee_paid": "Taxa paga — autorização expedida",
    "renewal_requested": "Renovação requerida", "renewal_fee_paid": "Taxa de renovação paga",
    "vehicle_substituted": "Veículo substituído", "suspended": "Suspensão", "revoked": "Revogação",
    "cassada": "Cassação", "cancelled": "Protocolo cancelado (lançado por engano)",
    "penalty_lifted": "Penalidade suspensa ou afastada (recurso)",
}


# ---- cached reads: each page builds its rows once per render and per data version ----

def _store_key() -> str:
    return f"{config.mongodb_uri() or ''}|{config.data_dir()}"


@st.cache_data(ttl=READ_TTL_SECONDS, show_spinner=False)
def _page(store: str, actor, mun: str, on, search: str, page: int, per_page: int, version: str,
          status: str | None = None, sort: str | None = None, descending: bool = True) -> authorization_lists.RowsPage:
    return authorization_lists.authorization_page(common.db(), actor, mun, on, search, page, per_page, status, sort,
                                                  descending)


def authorization_page(actor, mun: str, search: str, page: int, per_page: int, status: str | None = None,
                       sort: str | None = None, descending: bool = True) -> tuple[bool, authorization_lists.RowsPage]:
    """(ok, page) of the authorization list on today, cached under the store's data version."""
    ok, version = common.attempt(authorization_lists.data_version, common.db(), actor, mun)
    if not ok:
        return False, None
    return common.attempt(_page, _store_key(), actor, mun, clock.today(), search, page, per_page, version,
                          status, sort, descending)


def queue_page(actor, mun: str, **chosen) -> tuple[bool, work_queue.QueuePage | None]:
    """(ok, one page of Pendências today): read from the queue kept as data, a page at a time (no cache:
    a few counts and one page of an index)."""
    return common.attempt(work_queue.page, common.db(), actor, mun, clock.today(), **chosen)


def queue_overview(actor, mun: str) -> tuple[bool, work_queue.Overview | None]:
    """(ok, the Início's counts and first urgent items of the queue today)."""
    return common.attempt(work_queue.overview, common.db(), actor, mun, clock.today())


def whole_queue(actor, mun: str, kinds: tuple[str, ...] = (), only_late: bool = False) -> list[Pendencia]:
    """Every item of the queue the filter keeps, earliest first: what an export writes (made on its click)."""
    return work_queue.pendencias(common.db(), actor, mun, clock.today(), kinds, only_late)


PICKER_ROWS = 20


def authorization_picker(actor, mun: str, label: str, key: str, statuses: tuple[Status, ...],
                         describe) -> str | None:
    """Pick an authorization by typing its plate, CPF, driver's name or protocol: the store answers the
    newest matches (one page, whatever the size of the register); only those in ``statuses`` are offered."""
    term = st.text_input("Buscar", key=f"{key}_term", placeholder=f"{label}: placa, CPF, nome do condutor ou protocolo")
    ok, found = authorization_page(actor, mun, term, 1, PICKER_ROWS)
    labels = {r.id: describe(r) for r in (found.rows if ok else []) if r.state.status in statuses}
    known = st.session_state.setdefault(f"{key}_labels", {})
    known.update(labels)
    chosen = st.session_state.get(key)
    if chosen and chosen not in known:  # opened from another page: the record is read once
        ok, doc = common.attempt(authorizations.get_authorization, common.db(), actor, mun, chosen)
        if ok:
            known[chosen] = (f"{schema.SPECS['vehicles'].field('plate').show(doc['plate'])} · "
                             f"protocolo {doc['protocol']}")
    if chosen in known and chosen not in labels:  # keep the current choice while another term is typed
        labels = {chosen: known[chosen], **labels}
    return st.selectbox(label, list(labels), format_func=labels.get, index=None, key=key,
                        placeholder="Escolha entre os encontrados…" if labels else "Nenhuma autorização encontrada")


def clear_reads() -> None:
    """Forget the cached lists (called by the pages after each write they make)."""
    _page.clear()


def change_form(spec: EntitySpec, actor, mun: str, doc: dict, reference: str) -> None:
    """Edit a driver or vehicle saying when the fact changed and when the driver reported it; each
    error shows under its field and what was typed stays."""
    key = f"{spec.name}_change_{doc['id']}"
    version_key = f"{key}_version"  # the version first loaded: a save over someone else's is refused
    st.session_state.setdefault(version_key, doc.get("version", 0))
    form_errors(key, ["changed_on", "reported_on", *(f.name for f in spec.fields)])
    picked = references(spec, key, doc, actor, mun)
    with st.form(key):
        st.caption(f"O condutor deve comunicar a alteração de dados em até 7 dias ({reference}).")
        cols = st.columns(3)
        with cols[0]:
            changed_on = st.date_input("Data da alteração (quando o fato mudou) *", value=None, format="DD/MM/YYYY",
                                       key=f"{key}_changed_on")
            field_error(key, "changed_on")
        with cols[1]:
            reported_on = st.date_input("Comunicada pelo condutor em", clock.today(), format="DD/MM/YYYY",
                                        key=f"{key}_reported_on")
            field_error(key, "reported_on")
        unreported = cols[2].checkbox("Não comunicada (constatada pela Secretaria)", key=f"{key}_unreported")
        values = {**picked, **form_fields(spec, key, doc)}
        submitted = st.form_submit_button("Salvar alteração", type="primary")
    if submitted:
        ok, change_id = submit(key, ridehailing_changes.record_change, common.db(), actor, mun, spec.name,
                               doc["id"], values, changed_on, None if unreported else reported_on,
                               expected_version=st.session_state[version_key])
        st.session_state.pop(version_key, None)
        st.session_state[f"{spec.name}_change_flash"] = (
            ("success", "Alteração salva com as datas do fato e da comunicação.") if change_id
            else ("info", "Nenhum dado foi alterado."))
        st.rerun()


def change_history(actor, mun: str, collection: str, doc_id: str) -> None:
    """The changes with both dates and the 7-day verdict; a not-reported one can get its report date."""
    common.flash(f"{collection}_change_flash")
    ok, changes = common.attempt(ridehailing_changes.history, common.db(), actor, mun, collection, doc_id,
                                 clock.today())
    if not ok:
        return
    common.table(pd.DataFrame([{
        "Prazo de 7 dias": finding_word(c.finding), "Data da alteração": day(c.changed_on),
        "Comunicada em": day(c.reported_on) if c.reported_on else "não comunicada", "Prazo": day(c.deadline),
        "Dados alterados": c.fields_text, "Situação": c.finding.message, "Fundamento legal": c.finding.reference,
        "Providência": f"{day(c.closed_on)}: {c.closing_note}" if c.closed_on else "",
        "Pelo portal": (f"{clock.to_local(c.reported_at):%d/%m/%Y às %H:%M}" + (" — a conferir" if c.pending else "")
                        if c.reported_at else ""),
    } for c in changes], columns=["Prazo de 7 dias", "Data da alteração", "Comunicada em", "Prazo", "Dados alterados",
                                  "Situação", "Fundamento legal", "Providência", "Pelo portal"]),
        key=f"{collection}_changes_table", empty="Nenhuma alteração de dados registrada.")
    for c in (c for c in changes if c.pending and c.closed_on is None):  # reported on the portal: apply or close
        with st.container(border=True):
            st.markdown(f"**Comunicada pelo condutor no portal** em {clock.to_local(c.reported_at):%d/%m/%Y às %H:%M}: "
                        f"{c.fields_text} (alteração de {day(c.changed_on)}).")
            cols = st.columns(2)
            cols[0].download_button(f"Comprovante: {c.proof}", lambda cid=c.id: ridehailing_changes.change_proof(
                common.db(), actor, mun, cid)[0], c.proof, key=f"{collection}_proof_{c.id}", on_click="ignore")
            if cols[1].button("Aplicar no cadastro", key=f"{collection}_apply_{c.id}", type="primary"):
                ok, _ = common.attempt(ridehailing_changes.apply_reported, common.db(), actor, mun, c.id)
                if ok:
                    clear_reads()
                    st.rerun()
    unreported = {c.id: f"{day(c.changed_on)} · {c.fields_text}" for c in changes if c.reported_on is None}
    if unreported:
        with st.form(f"{collection}_report_form"):
            chosen = st.selectbox("Alteração não comunicada", list(unreported), format_func=unreported.get,
                                  key=f"{collection}_report_change", placeholder="Escolha...")
            on = st.date_input("Comunicada em", clock.today(), format="DD/MM/YYYY", key=f"{collection}_report_on")
            if st.form_submit_button("Registrar a comunicação"):
                ok, _ = common.attempt(ridehailing_changes.report_change, common.db(), actor, mun, chosen, on)
                if ok:
                    st.rerun()
    irregular = {c.id: f"{day(c.changed_on)} · {c.fields_text}" for c in changes
                 if c.closed_on is None and (c.pending or c.reported_on is None or not c.finding.ok)}
    if irregular:
        with st.form(f"{collection}_close_form"):
            chosen = st.selectbox("Alteração fora do prazo", list(irregular), format_func=irregular.get,
                                  key=f"{collection}_close_change", placeholder="Escolha...")
            note = st.text_input("Providência tomada (p.ex. auto de infração nº)", key=f"{collection}_close_note")
            if st.form_submit_button("Encerrar a pendência"):
                ok, _ = common.attempt(ridehailing_changes.close_change, common.db(), actor, mun, chosen, note)
                if ok:
                    st.rerun()


def histories(actor, mun: str, collection: str, doc_id: str) -> None:
    """The data changes with their dates, and below them every audited write of the record."""
    change_history(actor, mun, collection, doc_id)
    with st.expander("Gravações no cadastro (registro de auditoria)"):
        ok, changes = common.attempt(registry.record_history, common.db(), actor, mun, collection, doc_id)
        if ok:
            common.table(pd.DataFrame(changes, columns=["Data", "Usuário", "Campo", "Antes", "Depois"]),
                         key=f"{collection}_history_table", empty="Nenhuma gravação no registro de auditoria.")


@dataclass(frozen=True)
class Step:
    """The next step of a record: a button that opens the page where it is done, already filled in."""

    label: str
    page: str
    state: dict = field(default_factory=dict)
    icon: str = ":material/arrow_forward:"
    action: Callable[[], str] | None = None  # done by the button before the page opens; its message
    flash: str = ""  # the session key of the opened page's message


def follow(step: Step) -> None:
    """Fill in the step's page's widgets and open it."""
    for name, value in step.state.items():
        st.session_state[name] = value
    st.switch_page(step.page)


def go(step: Step, key: str) -> None:
    """The button of a next step: it does the step when it can, then fills in the target page's
    widgets and opens it."""
    if st.button(step.label, key=key, type="primary", icon=step.icon):
        if step.action is not None:
            ok, message = common.attempt(step.action)
            if not ok:
                return
            st.session_state[step.flash] = ("success", message)
        follow(step)


def pendencia_step(item: Pendencia) -> Step | None:
    """Where a pendência's work is done, its record chosen (issue 35 item 11): a vistoria on Vistorias,
    the rest of an authorization on it, an auto in its process, a data change on the driver or vehicle,
    a platform's list and a trip data request on Obrigações das plataformas."""
    collection, record_id = item.record
    if not record_id:
        return None
    if collection == "authorizations" and item.kind in work_queue.INSPECTION_KINDS:
        return Step("Registrar vistoria", "app_pages/inspections.py",
                    {"insp_auth": record_id, "insp_tabs": "Registrar vistoria"})
    if collection == "platforms":
        return Step("Receber a relação", "app_pages/platform_obligations.py",
                    {"pob_list_platform": record_id, "pob_tabs": "Relações e conciliação"})
    if collection == TRIP_DATA_REQUESTS:
        return Step("Registrar a resposta", "app_pages/platform_obligations.py",
                    {"pob_ans_id": record_id, "pob_tabs": "Pedidos de dados"})
    state = {navigation.OPEN_KEYS[collection]: record_id}
    if collection in navigation.OPEN_TABS:
        state.update([navigation.OPEN_TABS[collection]])
    return Step("Abrir o registro", navigation.RECORD_PAGES[collection], state)


def authorization_step(actor, mun: str, auth_id: str) -> Step | None:
    """What comes next for an authorization in its status today."""
    ok, state = common.attempt(authorizations.status, common.db(), actor, mun, auth_id, clock.today())
    if not ok:
        return None
    if state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
        return Step("Registrar vistoria", "app_pages/inspections.py", {"insp_auth": auth_id}, ":material/fact_check:")
    if state.status is Status.AWAITING_FEE:
        bill = fees.bill_of(common.db(), authorizations.get_authorization(common.db(), actor, mun, auth_id))
        if bill is not None and bill.live:  # its DAM is out: the authorization shows it and its PDF
            return Step(f"Ver o DAM {bill.live['number']} da taxa", "app_pages/authorizations.py",
                        {"auth_goto": auth_id}, ":material/receipt_long:")

        def issue() -> str:
            dam = fees.issue_fee_dam(common.db(), actor, mun, auth_id, clock.today())
            return f"DAM nº {dam['number']} da taxa emitido, vencimento {dam['due_on']:%d/%m/%Y}: baixe o PDF abaixo."
        return Step("Emitir DAM da taxa", "app_pages/authorizations.py", {"auth_goto": auth_id},
                    ":material/receipt_long:", issue, "auth_flash")
    if state.status is Status.REQUESTED:
        return Step("Avaliar o requerimento", "app_pages/authorizations.py", {"auth_goto": auth_id}, ":material/gavel:")
    return Step("Abrir a autorização", "app_pages/authorizations.py", {"auth_goto": auth_id}, ":material/verified:")


def request_step(driver_id: str, plate: str | None = None) -> Step:
    state = {"auth_tabs": "Novo requerimento", "auth_new_driver": driver_id}
    if plate:
        state["auth_new_plate"] = plate
    return Step("Protocolar o requerimento", "app_pages/authorizations.py", state, ":material/post_add:")


def next_step(entity: str, actor, mun: str, doc: dict) -> Step | None:
    """The next step of a driver (register his vehicle, then the request) or of a vehicle (the request),
    or of the authorization in progress (vistoria, fee DAM)."""
    db = common.db()
    cpf = doc["cpf"] if entity == "drivers" else doc.get("driver_cpf")
    if not cpf:
        return None
    if entity == "drivers":
        ok, vehicles = common.attempt(entity_lists.lookup, db, actor, "vehicles", mun, "", {"driver_cpf": cpf}, 1)
        if ok and not vehicles:
            return Step("Cadastrar o veículo", "app_pages/vehicles.py",
                        {"vehicles_tabs": "Novo veículo", "vehicles_form_new_driver_cpf": cpf},
                        ":material/directions_car:")
    ok, current = common.attempt(authorizations.open_authorization, db, actor, mun, cpf)
    if not ok:
        return None
    if current is not None:
        return authorization_step(actor, mun, current["id"])
    if entity == "drivers":
        return request_step(doc["id"])
    ok, driver = common.attempt(entity_lists.referenced, db, actor, "drivers", mun, "cpf", cpf)
    return request_step(driver["id"], doc["plate"]) if ok and driver else None


def next_step_bar(entity: str, actor, mun: str, doc: dict, key: str) -> None:
    """"Próximo passo" with its button, under a record's title."""
    step = next_step(entity, actor, mun, doc)
    if step:
        cols = st.columns([1, 3])
        cols[0].markdown("**Próximo passo:**")
        with cols[1]:
            go(step, key)


def registry_page(spec: EntitySpec, actor, mun: str, new_label: str, picker, detail, open_key: str) -> None:
    """List (with a picker when no row is selected) and the detail of the chosen record; new; import.

    After a new record is saved the form is blank and offers "Abrir o registro" and the next step."""
    tabs_key = f"{spec.name}_tabs"
    announced()
    tab_list, tab_new, tab_import = common.tabs(["Lista", new_label, "Importar CSV"], tabs_key)

    def then(doc: dict) -> None:
        step = next_step(spec.name, actor, mun, doc)
        if step:
            go(step, f"{spec.name}_saved_next")

    with tab_list:
        selected = entity_list(spec, actor, mun) or picker()
        if selected:
            st.divider()
            ok, doc = common.attempt(entities.get, common.db(), actor, spec.name, mun, selected)
            if ok:
                detail(doc)
    with tab_new:
        entity_form(spec, actor, mun,
                    after_save=lambda record_id: saved_panel(spec, actor, mun, record_id, tabs_key, open_key, then))
    with tab_import:
        entity_import(spec, actor, mun)
