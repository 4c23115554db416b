"""Dated parameters (TI): the history of each value and a new version from a date. Never edited in place."""
from datetime import date
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from rules.params import ParameterMissing
from services.setup import deployment
from services.shared import clock, exports, fields, municipalities, parameters
from services.shared.errors import ValidationFailed
from services.shared.parameter_labels import FIRST_KINDS, affects, label
from ui import common
from ui.entity import announce, announced, confirm_button, field_error, forget, form_errors, submit
from ui.lists import export_buttons

actor = common.guard("admin")
common.page_header("Parâmetros", "Valores com data de vigência e o ato que os fixou")
announced()
db = common.db()
mun = common.municipality()
rows = parameters.history(db, mun)
names = sorted({r["name"] for r in rows})
if st.session_state.get("params_name") not in names:  # a link to a parameter of another municipality
    st.session_state.pop("params_name", None)
chosen = st.selectbox("Parâmetro", ["(todos)"] + names, key="params_name",
                      format_func=lambda n: n if n == "(todos)" else label(n), placeholder="Escolha...")


def shown(value):
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, Decimal):
        return fmt.number(value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {shown(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(f"{v.get('day')} {v.get('name')}" if isinstance(v, dict) else str(v) for v in value)
    return str(value)


today = clock.today()
book = parameters.book(db, mun)


def in_force(name):
    try:
        return book.version(name, today)
    except ParameterMissing:
        return None


current = {name: in_force(name) for name in names}
# the name the store keeps (dam_late_fine_daily_percent) only when TI asks for it (issue 35 item 12)
technical = st.toggle("Mostrar o nome técnico de cada parâmetro", key="params_technical")
table = pd.DataFrame([{
    "Parâmetro": label(r["name"]), **({"Nome técnico": r["name"]} if technical else {}),
    "Vigência a partir de": fmt.day(parameters.parse_date(r["effective"])),
    "Valor": shown(r["value"]), "Ato": r["act"], "Observação": r.get("note", ""),
    "Em vigor hoje": "Sim" if current.get(r["name"]) and current[r["name"]].effective == parameters.parse_date(r["effective"]) else "",
} for r in rows if chosen in ("(todos)", r["name"])])
common.table(table)
records = table.to_dict("records")
export_places = st.columns([2, 2, 6])
export_buttons(export_places[0], export_places[1], "Parâmetros", mun, "params",
               lambda: exports.to_csv(records, list(table.columns)),
               lambda: exports.to_xlsx(records, list(table.columns), sheet="Parâmetros"))

town = municipalities.get(db, mun).name
st.subheader(f"Nova versão — {town}")
st.caption(f"A nova versão vale somente para {town}. Tabelas (como a de preços públicos) são atualizadas na tela "
           "do próprio módulo; os feriados, logo abaixo.")
# Each parameter keeps the kind of value it was created with (issue 22 item 10): the form reads the value
# as that kind, so a money value cannot be typed in as a text.
PARSERS = {"decimal": fields.parse_decimal, "int": lambda v: fields.parse("int", v), "text": str,
           "bool": lambda v: fields.parse("bool", v)}
KIND_HINTS = {"decimal": "valor (R$) ou número decimal, ex.: 1.621,00 ou 0,05", "int": "número inteiro, ex.: 10",
              "text": "texto", "bool": "Sim ou Não"}
latest = {}  # the kind of each parameter: its latest version's (rows: by name, newest first)
for r in rows:
    latest.setdefault(r["name"], parameters.value_kind(r["value"]))
# a parameter the Implantação lists as never set is offered too, with the kind its first version must have
ok, missing = common.attempt(deployment.missing_values, db, actor, mun)
unset = [item.parameter for item in missing if item.parameter and item.parameter not in latest] if ok else []
kinds = {**{n: FIRST_KINDS.get(n) for n in unset}, **latest}
editable = sorted((n for n, k in kinds.items() if k in PARSERS), key=lambda n: label(n).casefold())


def md(text):
    """Text for markdown: a "R$" is not the start of LaTeX (two of them made a formula)."""
    return text.replace("$", "\\$")


def kind_of(name):
    return kinds.get(name) or "text"


def typed(name, raw):
    """The typed value read as the parameter's kind (error under "Valor")."""
    try:
        return PARSERS[kind_of(name)](raw) if raw else None
    except ValueError as exc:
        raise ValidationFailed({"value": f"Valor: {exc}."}) from None


def review(name, raw, effective, act, note):
    """The before/after of the version, checked; kept for the confirmation below the form."""
    shown_preview = parameters.preview(db, actor, mun, name or "", effective, typed(name, raw), act, note)
    st.session_state["params_pending"] = (mun, shown_preview)
    st.session_state["params_save_armed"] = True


form_errors("params_new", ["name", "value", "effective", "act", "note"])
with st.form("params_new"):
    name = st.selectbox(f"Parâmetro de {town}", editable, key="params_new_name",  # only the names the panel reads
                        format_func=lambda n: label(n) + (" — não cadastrado" if n in unset else ""),
                        placeholder="Escolha...")
    field_error("params_new", "name")
    raw = st.text_input("Valor", key="params_new_value",
                        help=md("O tipo do valor é o do parâmetro: " + "; ".join(KIND_HINTS.values()) + "."))
    field_error("params_new", "value")
    effective = st.date_input("Em vigor a partir de", value=today, format="DD/MM/YYYY", key="params_new_effective",
                              min_value=date(2000, 1, 1))
    field_error("params_new", "effective")
    act = st.text_input("Ato que fixou o valor", key="params_new_act", placeholder="Ex.: Decreto Municipal 20/2027")
    field_error("params_new", "act")
    note = st.text_input("Observação", key="params_new_note")
    field_error("params_new", "note")
    if st.form_submit_button("Revisar antes de gravar", type="primary"):
        submit("params_new", review, name, raw, effective, act, note)
        st.rerun()
if name in editable:  # the technical name, for the deployment notes and the scripts of TI
    st.caption(md(f"Tipo do valor de '{label(name)}': {KIND_HINTS[kind_of(name)]}. O tipo não muda entre versões. "
                  f"Nome técnico: `{name}`."))


def impact_lines(p):
    """What TI reads before confirming: before and after, from when, and what is open today."""
    before = (f"{shown(p.today.value)} (desde {fmt.day(p.today.effective)}, {p.today.act})" if p.today
              else "nenhum valor em vigor hoje")
    lines = [f"**Em vigor hoje:** {before}",
             f"**Novo valor:** {shown(p.new.value)} a partir de {fmt.day(p.new.effective)} ({p.new.act})"]
    if p.later:
        lines.append(f"**Atenção:** já há versão a partir de {fmt.day(p.later.effective)} "
                     f"({shown(p.later.value)}); o novo valor vale só até a véspera dessa data.")
    if p.new.effective < today:
        lines.append("**Data anterior a hoje:** o que já foi calculado, emitido ou decidido não muda.")
    lines.append(f"**O que muda:** {affects(p.name)}")
    lines += [f"- Multa {severity} de infração em {fmt.day(p.new.effective)}: {before_fine} → **{after_fine}**"
              for severity, before_fine, after_fine in p.fines]
    lines.append(f"**Hoje em {p.municipality}:** "
                 f"{fmt.count(p.open_dams, 'DAM emitido e não pago', 'DAMs emitidos e não pagos')} e "
                 f"{fmt.count(p.owing_charges, 'débito em aberto', 'débitos em aberto')}, "
                 f"{fmt.plural(p.owing_charges, 'do qual', 'dos quais')} "
                 f"{fmt.count(p.overdue_charges, 'vencido', 'vencidos')} antes de "
                 f"{fmt.day(p.new.effective)}. DAMs e débitos guardam o valor com que foram lançados.")
    return lines


pending = st.session_state.get("params_pending")
if pending and (pending[0] != mun or not st.session_state.get("params_save_armed")):
    st.session_state.pop("params_pending", None)  # cancelled, or the sidebar changed the municipality
    st.session_state.pop("params_save_armed", None)
    pending = None
if pending:
    p = pending[1]
    st.markdown(md(f"#### Confirmar: {label(p.name)} de {p.municipality}"))
    st.markdown(md("\n\n".join(impact_lines(p))))
    if confirm_button("Gravar nova versão", "params_save",
                      md(f"Gravar a nova versão de '{label(p.name)}' de {p.municipality}?"), icon=":material/save:"):
        st.session_state.pop("params_pending", None)
        submit("params_new", parameters.add_version, db, actor, mun, p.name, p.new.effective, p.new.value,
               p.new.act, p.new.note)
        forget("params_new_value", "params_new_act", "params_new_note")
        announce(md(f"Nova versão de '{label(p.name)}' de {p.municipality} registrada. "
                    "As versões anteriores continuam no histórico."))
        st.rerun()


def holiday_version(text, effective, act):
    """Every bad line under the list (by line), then the version saved."""
    try:
        entries = parameters.parse_holiday_lines(text)
    except ValidationFailed as exc:
        raise ValidationFailed({"text": " ".join(exc.errors.values())}) from None
    parameters.add_version(db, actor, mun, parameters.HOLIDAYS, effective, entries, act)


st.subheader("Feriados municipais (nova versão da lista)")
form_errors("params_holidays", ["text", "effective", "act", "value"])
st.caption("Uma linha por feriado: 'dd/mm Nome' para todo ano ou 'dd/mm/aaaa Nome' para uma data só.")
with st.form("params_holidays"):
    try:
        existing = book.get(parameters.HOLIDAYS, today)
    except ParameterMissing:
        existing = []

    def as_line(entry):
        day = entry["day"]
        shown_day = f"{day[3:]}/{day[:2]}" if len(day) == 5 else fmt.day(date.fromisoformat(day))
        return f"{shown_day} {entry['name']}"

    text = st.text_area("Feriados", "\n".join(as_line(e) for e in existing), key="params_holidays_text", height=160)
    field_error("params_holidays", "text")
    h_effective = st.date_input("Em vigor a partir de", value=today, format="DD/MM/YYYY", key="params_holidays_effective")
    field_error("params_holidays", "effective")
    h_act = st.text_input("Ato que fixou os feriados", key="params_holidays_act")
    field_error("params_holidays", "act")
    if st.form_submit_button("Registrar lista de feriados"):
        submit("params_holidays", holiday_version, text, h_effective, h_act)
        forget("params_holidays_act")
        announce("Lista de feriados registrada.")
        st.rerun()
