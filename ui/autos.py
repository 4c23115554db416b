"""The process of one auto de infração on the Autos de infração screen (``app_pages/autos.py``): its
summary, the lavratura of a draft, its PDFs, its deadlines and the form of each stage (notification,
defence, decision, appeal, penalties and measures), each error shown in a slot under its field."""
from __future__ import annotations

from decimal import Decimal

import streamlit as st

from rules import fmt
from rules.fmt import brl, day
from rules.ridehailing.concepts import Measure
from services.dam import printing
from services.ridehailing import registry
from services.ridehailing.enforcement import autos, lavratura, penalties, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import clock, fields
from services.shared.auth import Actor
from services.shared.errors import ServiceError, ValidationFailed
from ui import common
from ui.auto_case import deadlines, documents, filing, notices
from ui.auto_channel import channel_section
from ui.auto_contact import contact_line, draft_contact
from ui.autos_domicile import decision_notice_summary, notice_summary
from ui.entity import confirm_button
from ui.ridehailing import clear_reads

# ---- forms: each error in a slot under its field ----

def submit(slots: dict, action, *args, **kwargs):
    """Run a service; a field error is shown under its field, any other error at the form."""
    def call():
        try:
            return "ok", action(*args, **kwargs)
        except ValidationFailed as exc:
            return "fields", exc.errors
        except ServiceError as exc:
            if exc.field in slots:
                return "fields", {exc.field: exc.message}
            raise

    ok, result = common.attempt(call)
    if not ok:
        return False, None
    status, value = result
    if status == "fields":
        for name, message in value.items():
            (slots[name] if name in slots else st).error(message)
        return False, None
    return True, value


def done(message: str, open_id: str | None = None) -> None:
    """After a write: the message on the rerun, in the process tab (on the auto ``open_id`` when new)."""
    clear_reads()
    st.session_state["autos_flash"] = ("success", message)
    st.session_state["autos_tab_next"] = "Processo do auto"
    if open_id:  # opened by the process tab on the rerun, before its picker exists
        st.session_state["autos_open_next"] = open_id
    st.rerun()


def field(widget, *args, **kwargs):
    """A widget with an empty slot under it for its error."""
    value = widget(*args, **kwargs)
    return value, st.empty()


# ---- one auto's process ----

def auto_process(actor: Actor, mun: str, doc: dict) -> None:
    """One auto: its summary, then the draft's lavratura or its PDFs, deadlines and stage forms."""
    summary(doc)
    if doc["status"] == "descartado":
        discard = doc.get("discard") or {}
        st.info(f"Rascunho descartado em {day(discard['on'])} por {discard['by']}: {discard['reason']}")
        return
    if doc["status"] == "rascunho":
        lavrar_draft(actor, mun, doc)
        discard_draft(actor, mun, doc)
        return
    documents(actor, mun, doc)
    recurrence_review(actor, mun, doc)
    if doc["status"] == "nulo":
        st.error(f"Auto nulo: {doc.get('void_reason', '')} ({doc.get('void_reference', '')}).")
        return
    ok, state = common.attempt(process.process_status, common.db(), actor, mun, doc["id"], clock.today())
    if ok:
        deadlines(mun, state)
    notices(doc)
    notification(actor, mun, doc)
    defence_and_decision(actor, mun, doc, state if ok else None)
    penalties_stage(actor, mun, doc, state if ok else None)


def summary(doc: dict) -> None:
    st.subheader(f"Auto nº {doc['number']}" if doc["number"] else "Rascunho de auto")
    cols = st.columns(4)
    cols[0].metric("Etapa", doc["stage_label"])
    cols[1].metric("Gravidade", doc.get("severity") or "—")
    cols[2].metric("Multa", brl(doc["fine_amount"]) if doc.get("fine_amount") is not None else "—")
    cols[3].metric("Autuado", autos.TARGETS[doc["target_kind"]])
    st.write(f"**{doc['offender_name']}** · {doc['infraction_code']} — {doc.get('infraction_text') or ''} "
             f"({doc.get('infraction_reference') or ''})")
    if doc["target_kind"] == "unregistered" and doc["status"] != "rascunho":
        st.caption(contact_line(doc))
    if doc.get("recurrence_of"):
        prior = doc["recurrence_of"]
        st.warning(f"Reincidência: conta o auto nº {prior['number']} de {day(prior['committed_on'])}.")
    if doc.get("findings"):
        with st.expander("Por que esta gravidade, multa e penalidades"):
            for f in doc["findings"]:
                st.write(f"{'✅' if f['ok'] else '❌'} {f['message']} — *{f['reference']}*")


def lavrar_draft(actor: Actor, mun: str, doc: dict) -> None:
    db, today = common.db(), clock.today()
    st.info(f"Rascunho ({doc.get('origin') or 'manual'}): confira e lavre.")
    with st.form("autos_draft_form"):
        cols = st.columns(3)
        committed_on, committed_slot = field(cols[0].date_input, "Data da infração", doc.get("committed_on") or today,
                                             format="DD/MM/YYYY", key="autos_draft_on")
        time, time_slot = field(cols[1].text_input, "Hora (HH:MM)", key="autos_draft_time")
        registration, registration_slot = field(cols[2].text_input, "Matrícula do agente", key="autos_draft_agent")
        place, place_slot = field(st.text_input, "Local", key="autos_draft_place")
        contact, contact_slots = draft_contact(mun, doc)
        submitted = st.form_submit_button("Lavrar auto", type="primary")
    if submitted:
        ok, _ = submit({"committed_on": committed_slot, "time": time_slot, "agent_registration": registration_slot,
                        "place": place_slot, **contact_slots}, lavratura.lavrar, db, actor, mun,
                       AutoInput(committed_on=committed_on, time=time, place=place, agent_registration=registration,
                                 **contact), doc["id"])
        if ok:
            done("Auto lavrado.")


def recurrence_review(actor: Actor, mun: str, doc: dict) -> None:
    """An auto whose recurrence fell with an earlier auto annulled on appeal: recalculated before a penalty."""
    review = doc.get("recurrence_review") or {}
    if not review.get("open"):
        return
    st.warning(f"Reincidência a rever: {review['reason']}. Recalcule a gravidade, a multa e as penalidades "
               "antes de aplicá-las.")
    if st.button("Recalcular sem o auto anulado", key="autos_review", type="primary", icon=":material/refresh:"):
        ok, found = common.attempt(lavratura.review_recurrence, common.db(), actor, mun, doc["id"])
        if ok:
            done(f"Reincidência revista: infração {found['severity']}, multa {brl(found['fine_amount'])}.")


def discard_draft(actor: Actor, mun: str, doc: dict) -> None:
    """A draft that will not be lavrado (a false positive) is discarded with its reason, never deleted."""
    with st.expander("Descartar o rascunho", icon=":material/delete:"):
        st.caption("O rascunho fica no histórico como descartado, com o motivo, e na auditoria; não é apagado.")
        reason = st.text_input("Motivo do descarte *", key="autos_discard_reason")
        reason_slot = st.empty()
        if confirm_button("Descartar o rascunho", "autos_discard",
                          "Descartar este rascunho? Ele não poderá mais ser lavrado."):
            ok, _ = submit({"reason": reason_slot}, lavratura.discard_draft, common.db(), actor, mun, doc["id"],
                           reason=reason)
            if ok:
                st.session_state.pop("autos_discard_reason", None)
                done("Rascunho descartado. O motivo ficou no histórico e na auditoria.")


def notification(actor: Actor, mun: str, doc: dict) -> None:
    db, rules, today = common.db(), registry.rules_of(mun), clock.today()
    methods = {m.code: m for m in rules.notification_methods if m.code != process.DOMICILE}  # not typed
    channel_section(actor, mun, doc, done, submit)
    notice = notice_summary(actor, mun, doc, done)
    recorded = notice.get("juntada_on") or notice.get("message_id")
    place = st.expander("Notificação à plataforma ou correção") if recorded else st.container()
    with place:
        if not recorded:
            st.markdown("#### Notificação")
        with st.form("autos_notice_form"):
            recipient = st.radio("Destinatário", ["infrator", "plataforma"], horizontal=True, key="autos_notice_to")
            method, method_slot = field(st.selectbox, "Forma (prevista no ato)", list(methods), key="autos_notice_method",
                                        format_func=lambda c: f"{methods[c].label} — {methods[c].reference}",
                                        placeholder=common.CHOOSE)
            cols = st.columns(3)
            sent_on, sent_slot = field(cols[0].date_input, "Enviada em", notice.get("sent_on") or today,
                                       format="DD/MM/YYYY", key="autos_notice_sent")
            received_on, received_slot = field(cols[1].date_input, "Recebida em", notice.get("received_on"),
                                               format="DD/MM/YYYY", key="autos_notice_received")
            juntada_on, juntada_slot = field(cols[2].date_input, "Juntada em", notice.get("juntada_on"),
                                             format="DD/MM/YYYY", key="autos_notice_juntada")
            submitted = st.form_submit_button("Registrar notificação", type="primary")
        if submitted:
            ok, result = submit({"method": method_slot, "sent_on": sent_slot, "received_on": received_slot,
                                 "juntada_on": juntada_slot}, process.notify, db, actor, mun, doc["id"],
                                method=method, sent_on=sent_on, received_on=received_on, juntada_on=juntada_on,
                                recipient=recipient)
            if ok:
                deadline = result.get("defence_deadline")
                done("Notificação registrada." + (f" Prazo de defesa até {day(deadline)}." if deadline else ""))


def ruling_form(actor: Actor, mun: str, key: str, label: str, service, doc: dict,
                outcomes: tuple[str, ...] | None = None) -> None:
    """A decision form; ``outcomes`` narrows the choices (before the decision opens, only annulling)."""
    db, today = common.db(), clock.today()
    with st.form(key):
        outcome, outcome_slot = field(st.selectbox, "Resultado", list(outcomes or autos.OUTCOMES), key=f"{key}_outcome",
                                      format_func=autos.OUTCOMES.get, placeholder=common.CHOOSE)
        reasons, reasons_slot = field(st.text_area, "Fundamentação", key=f"{key}_reasons")
        cols = st.columns(3)
        authority, authority_slot = field(cols[0].text_input, "Autoridade", key=f"{key}_authority")
        decided_on, decided_slot = field(cols[1].date_input, "Decidido em", today, format="DD/MM/YYYY", key=f"{key}_on")
        amount, amount_slot = field(cols[2].text_input, "Multa mantida, R$ (se em parte)",
                                    value=fmt.number(doc.get("fine_amount") or Decimal("0"), 2), key=f"{key}_amount")
        submitted = st.form_submit_button(label, type="primary")
    if submitted and outcome == "parcialmente":
        try:
            fine_amount = fields.parse_money(amount)
        except ValueError as exc:
            amount_slot.error(f"Multa mantida: {exc}.")
            return
    else:
        fine_amount = None
    if submitted:
        ok, _ = submit({"outcome": outcome_slot, "reasons": reasons_slot, "authority": authority_slot,
                        "decided_on": decided_slot, "fine_amount": amount_slot}, service, db, actor, mun, doc["id"],
                       outcome=outcome, reasons=reasons, authority=authority, decided_on=decided_on,
                       fine_amount=fine_amount)
        if ok:
            done(f"Decisão registrada: {autos.OUTCOMES[outcome]}.")


def filing_form(actor: Actor, mun: str, key: str, label: str, service, doc: dict) -> None:
    db, today = common.db(), clock.today()
    with st.form(key):
        cols = st.columns(2)
        filed_on, filed_slot = field(cols[0].date_input, "Apresentada em", today, format="DD/MM/YYYY", key=f"{key}_on")
        by, by_slot = field(cols[1].text_input, "Apresentada por", key=f"{key}_by")
        summary_text, summary_slot = field(st.text_area, "Resumo", key=f"{key}_summary")
        files = st.file_uploader("Anexos", accept_multiple_files=True, key=f"{key}_files")
        submitted = st.form_submit_button(label, type="primary")
    if submitted:
        ok, result = submit({"filed_on": filed_slot, "by": by_slot, "summary": summary_slot}, service, db, actor, mun,
                            doc["id"], filed_on=filed_on, by=by, summary=summary_text,
                            attachments=[(f.name, f.getvalue()) for f in files or []])
        if ok:
            done({"Registrar defesa": "Defesa registrada", "Registrar recurso": "Recurso registrado"}.get(label, label)
                 + (" — fora do prazo." if result.get("late") else "."))


def decision_stage(actor: Actor, mun: str, doc: dict, state: dict | None) -> None:
    """The first decision: upholding the auto opens when the defence is filed or its term ends
    (CG art. 25 §2; MP art. 21 §2, art. 23 §2; LEITURAS §1 item 33); annulling, at any time."""
    opens = (state or {}).get("decision_opens")
    if state is not None and (opens is None or clock.today() < opens):
        when = (f"em {day(opens)}, o dia seguinte ao fim do prazo de defesa ({day(state['defence_deadline'])}), "
                "ou antes, assim que a defesa for registrada" if opens else
                "depois da juntada da notificação aos autos, quando começa o prazo de defesa")
        st.info(f"A decisão que mantém o auto abre {when}. Até lá só é possível anular o auto.")
        with st.expander("Anular o auto"):
            ruling_form(actor, mun, "autos_annul", "Registrar anulação", process.decide, doc, outcomes=("anulado",))
        return
    ruling_form(actor, mun, "autos_decision", "Registrar decisão", process.decide, doc)


def defence_and_decision(actor: Actor, mun: str, doc: dict, state: dict | None = None) -> None:
    defence, decision, appeal = doc.get("defence"), doc.get("decision"), doc.get("appeal") or {}
    with st.expander("Defesa" + (f" — apresentada em {day(defence['filed_on'])}" if defence else "")):
        if defence:
            filing(actor, mun, doc, "defence")
        elif not decision:
            filing_form(actor, mun, "autos_defence", "Registrar defesa", process.file_defence, doc)
    st.markdown("#### Decisão")
    if decision:
        st.write(f"{autos.OUTCOMES[decision['outcome']]} em {day(decision['decided_on'])} por "
                 f"{decision['authority']}: {decision['reasons']}")
        decision_notice_summary(actor, mun, doc, done)
    else:
        decision_stage(actor, mun, doc, state)
    if decision:
        with st.expander("Recurso" + (" — em análise" if appeal and not appeal.get("decision") else "")):
            if not appeal:
                filing_form(actor, mun, "autos_appeal", "Registrar recurso", process.file_appeal, doc)
            elif not appeal.get("decision"):
                filing(actor, mun, doc, "appeal")
                ruling_form(actor, mun, "autos_appeal_decision", "Registrar decisão do recurso", process.decide_appeal,
                            doc)
            else:
                ruled = appeal["decision"]
                st.write(f"Recurso: {autos.OUTCOMES[ruled['outcome']]} em {day(ruled['decided_on'])} por "
                         f"{ruled['authority']}: {ruled['reasons']}")


def penalties_stage(actor: Actor, mun: str, doc: dict, state: dict | None) -> None:
    db, today = common.db(), clock.today()
    ruled = (doc.get("appeal") or {}).get("decision") or doc.get("decision") or {}
    if not ruled:
        return
    st.markdown("#### Penalidades")
    if state and not state["effect"].in_effect:  # when they take effect (rules.ridehailing.process.penalty_effect)
        st.info(f"Efeito das penalidades: {state['effect'].label} — {state['effect'].finding.text()}.")
    with st.container():
        fine = doc.get("fine_dam") or {}
        standing, reissuable = penalties.fine_standing(db, doc) if fine else ("", False)
        if fine:
            st.write(f"DAM {fine['number']} da multa ({brl(fine['amount'])}), vence em {day(fine['due_on'])}: "
                     + (f"**{standing}**" if fine.get("paid") else standing))
            if live := penalties.fine_to_pay(db, doc):  # the slip to hand over, whichever DAM it is now
                st.download_button(f"Baixar o DAM {live['number']} da multa (PDF)",
                                   lambda: printing.pdf(db, actor, mun, [live["id"]]),
                                   f"dam_{live['number'].replace('/', '_')}.pdf", "application/pdf",
                                   key="autos_fine_pdf", icon=":material/picture_as_pdf:", on_click="ignore")
        if ((not fine and "multa" in ruled.get("penalties", [])) or reissuable) and state and state["may_apply"]:
            label = "Emitir novo DAM da multa (valor em aberto)" if reissuable else "Emitir DAM da multa"
            if st.button(label, key="autos_fine_dam", type="primary"):
                ok, dam = common.attempt(penalties.issue_fine_dam, db, actor, mun, doc["id"])
                if ok:
                    done(f"DAM {dam['number']} da multa emitido, vencimento {day(dam['due_on'])}.")
        for applied in doc.get("sanctions_applied", []):
            st.write(f"{applied['penalty'].capitalize()} a partir de {day(applied['start'])}"
                     + (f" até {day(applied['until'])}" if applied.get("until") else "")
                     + (f" — afastada em {day(applied['lifted_on'])}: {applied['lifted_reason']}" if applied.get("lifted_on") else ""))
        others = [p for p in ruled.get("penalties", []) if p != "multa" and not any(
            a["penalty"] == p and not a.get("lifted_on") for a in doc.get("sanctions_applied", []))]
        if others and state and state["effective_on"]:  # scheduled or in effect: from the rule's day
            with st.form("autos_sanction_form"):
                penalty = st.selectbox("Penalidade decidida", others, key="autos_sanction_penalty",
                    placeholder="Escolha...")
                start, start_slot = field(st.date_input, "Início", max(state["effective_on"], today),
                                          format="DD/MM/YYYY", key="autos_sanction_start")
                note = st.text_input("Observação", key="autos_sanction_note")
                submitted = st.form_submit_button("Aplicar penalidade", type="primary")
            if submitted:
                ok, applied = submit({"start": start_slot}, penalties.apply_sanction, db, actor, mun, doc["id"],
                                     penalty=penalty, start=start, note=note)
                if ok:
                    done(f"{penalty.capitalize()} aplicada a partir de {day(applied['start'])}"
                         + (f" até {day(applied['until'])}." if applied.get("until") else "."))
        measures_taken(actor, mun, doc)
        with st.form("autos_measure_form"):
            cols = st.columns(3)
            measure = cols[0].selectbox("Medida administrativa", [m.value for m in Measure], key="autos_measure",
                placeholder="Escolha...")
            on, on_slot = field(cols[1].date_input, "Data", today, format="DD/MM/YYYY", key="autos_measure_on")
            by, by_slot = field(cols[2].text_input, "Responsável", key="autos_measure_by")
            submitted = st.form_submit_button("Registrar medida")
        if submitted:
            ok, _ = submit({"on": on_slot, "by": by_slot}, penalties.record_measure, db, actor, mun, doc["id"],
                           measure=measure, on=on, by=by)
            if ok:
                done("Medida registrada.")


def measures_taken(actor: Actor, mun: str, doc: dict) -> None:
    """Each measure taken; one that lasts "até a regularização" with its release, or a form to record it."""
    db, today = common.db(), clock.today()
    for m in autos.measures_of(doc):
        released = m["released"]
        st.write(f"{m['measure'].capitalize()} em {day(m['on'])} por {m['by']}"
                 + (f" — liberada em {day(released['on'])} por {released['by']}" if released else
                    (" — **em vigor até a regularização**" if m["lasting"] else "")))
        if not m["lasting"] or released:
            continue
        key = f"autos_release_{m['index']}"
        with st.expander(f"Registrar a liberação ({m['measure']})"):
            with st.form(key):
                cols = st.columns(2)
                on, on_slot = field(cols[0].date_input, "Liberada em", today, format="DD/MM/YYYY", key=f"{key}_on")
                by, by_slot = field(cols[1].text_input, "Responsável", key=f"{key}_by")
                note = st.text_input("Observação (ex.: documento regularizado apresentado)", key=f"{key}_note")
                submitted = st.form_submit_button("Registrar liberação")
            if submitted:
                ok, _ = submit({"released_on": on_slot, "by": by_slot}, penalties.release_measure, db, actor, mun,
                               doc["id"], measure_index=m["index"], released_on=on, by=by, note=note)
                if ok:
                    done(f"Liberação registrada em {day(on)}.")
