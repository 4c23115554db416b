"""Cadastros definidos (TI): a new register without code — its fields, who reads and writes it, which
municipalities have it — and changes that keep the records already typed."""
import streamlit as st

from services.shared import definitions, municipalities
from services.shared.definition_words import ROLE_NAMES as ROLE_LABELS
from services.shared.errors import ServiceError, ValidationFailed
from ui import common
from ui import definition_form as form
from ui import flow_form
from ui.definition_transfer import transfer_section
from ui.entity import announce, announced

NEW = ""

actor = common.guard("admin")
common.page_header("Cadastros definidos", "Cadastros criados pela TI, sem programação")
announced()
db = common.db()
mun = common.municipality()
ok, registers = common.attempt(definitions.defined_registers, db, actor, mun)
registers = registers if ok else []
by_name = {r.name: r for r in registers}
chosen = st.selectbox("Cadastro", [NEW] + list(by_name), placeholder="Escolha...", key="regdef_choice",
                      format_func=lambda n: "Novo cadastro" if n == NEW else
                      by_name[n].label_plural + ("" if by_name[n].active else " (desativado)"))
current = None
if chosen:
    ok, current = common.attempt(definitions.definition, db, actor, mun, chosen)
    if not ok:
        st.stop()
if st.session_state.get("regdef_loaded") != (chosen, (current or {}).get("version")):
    form.load(current)
    flow_form.load(current)
    st.session_state["regdef_loaded"] = (chosen, (current or {}).get("version"))
    st.session_state.pop("regdef_breaking", None)
base = current or {}
key = f"regdef_{chosen or 'new'}_{base.get('version', 0)}"

cols = st.columns(3)
label = cols[0].text_input("Nome no singular", base.get("label", ""), key=f"{key}_label",
                           placeholder="Ex.: Banca da feira")
form.error("label")
plural = cols[1].text_input("Nome no plural", base.get("label_plural", ""), key=f"{key}_plural",
                            placeholder="Ex.: Bancas da feira")
form.error("label_plural")
feminine = cols[2].radio("Gênero do nome", [False, True], index=int(bool(base.get("feminine"))),
                         key=f"{key}_feminine", horizontal=True,
                         format_func=lambda f: "Feminino (nova, salva)" if f else "Masculino (novo, salvo)")
if not chosen:
    name = st.text_input("Identificador do cadastro", key=f"{key}_name", placeholder="Ex.: bancas (letras minúsculas sem acento, números e _)",
                         help="Letras minúsculas sem acento, números e _. Em branco: feito a partir do nome no "
                              "plural. Não muda depois de criado.").strip() or form.identifier_of(plural)
    form.error("name")
else:
    name = chosen
places = {m.code: m.name for m in municipalities.of_actor(db, actor)}
cols = st.columns(3)
chosen_places = cols[0].multiselect("Municípios que têm o cadastro", list(places),
                                    [c for c in base.get("municipalities", [mun]) if c in places],
                                    placeholder="Escolha...", key=f"{key}_places", format_func=places.get)
form.error("municipalities")
readers = cols[1].multiselect("Quem consulta", list(ROLE_LABELS), base.get("read_roles", ["secretaria"]),
                              placeholder="Escolha...", key=f"{key}_readers", format_func=ROLE_LABELS.get)
form.error("read_roles")
writers = cols[2].multiselect("Quem cadastra", ["secretaria"], base.get("write_roles", ["secretaria"]),
                              placeholder="Escolha...", key=f"{key}_writers", format_func=ROLE_LABELS.get)
form.error("write_roles")

st.subheader("Campos")
ok, targets = common.attempt(definitions.reference_targets, db, actor, mun)
field_list = form.field_rows([t for t in (targets if ok else []) if t[0] != name])
form.error("fields")
orders = ["created_at"] + [f["name"] for f in field_list if f["name"]]
labels = {"created_at": "Data de cadastro", **{f["name"]: f["label"] or f["name"] for f in field_list}}
sort = st.selectbox("Ordem padrão da lista", orders, placeholder="Escolha...", key=f"{key}_sort", format_func=labels.get,
                    index=orders.index(base.get("default_sort")) if base.get("default_sort") in orders else 0)
form.error("default_sort")
flow = flow_form.flow_rows()
st.subheader("Pedidos do público (portal)")
asked = base.get("public") or {}
offered = [f["name"] for f in field_list if f["name"] and f["kind"] != "reference" and not f.get("unique")]
opens = st.checkbox("Recebe pedidos do público", bool(asked.get("open")), key=f"{key}_public_open",
                    help="Quem entra no portal de serviços do município preenche os campos escolhidos e recebe um "
                         "protocolo; a secretaria completa os outros. O pedido entra na primeira situação do fluxo.")
public_fields = st.multiselect("Campos que o público preenche", offered,
                               [n for n in asked.get("fields", []) if n in offered], placeholder="Escolha...",
                               key=f"{key}_public_fields", format_func=labels.get, disabled=not opens,
                               help="Os obrigatórios entram aqui. Campos únicos e referências ficam com a "
                                    "secretaria.")
form.error("public")
definition = {"name": name, "label": label, "label_plural": plural, "feminine": feminine, "fields": field_list,
              "default_sort": sort, "municipalities": chosen_places, "read_roles": readers, "write_roles": writers,
              "title_field": base.get("title_field"), "flow": flow,
              "public": {"open": opens, "fields": public_fields} if opens or asked else None}


def attempt_write(action, *args, **kwargs) -> bool:
    try:
        action(*args, **kwargs)
    except ValidationFailed as exc:
        st.session_state[form.ERRORS] = exc.errors
        st.error("Corrija os pontos indicados abaixo de cada campo.", icon=":material/error:")
        return False
    except ServiceError as exc:
        st.error(exc.message, icon=":material/error:")
        return False
    st.session_state.pop(form.ERRORS, None)
    return True


breaking = st.session_state.get("regdef_breaking")
if breaking:
    st.subheader("Esta mudança afeta registros já cadastrados")
    fixes = form.fix_inputs(breaking)
    cols = st.columns(2)
    if cols[0].button("Aplicar a mudança e ajustar os registros", type="primary", key="regdef_apply"):
        if attempt_write(definitions.change_register, db, actor, mun, name, definition, fixes,
                         expected_version=base["version"]):
            st.session_state.pop("regdef_breaking", None)
            announce(f"Cadastro de {plural.lower()} alterado; os registros foram ajustados.")
            st.rerun()
    if cols[1].button("Cancelar", key="regdef_cancel"):
        st.session_state.pop("regdef_breaking", None)
        st.rerun()
elif st.button("Criar o cadastro" if not chosen else "Salvar as mudanças", type="primary", key="regdef_save"):
    if not chosen:
        if attempt_write(definitions.define_register, db, actor, mun, definition):
            announce(f"Cadastro de {plural.lower()} criado; ele já está no menu de quem o consulta.")
            common.forget("regdef_choice", regdef_choice=name)
            st.rerun()
    else:
        try:
            issues = definitions.preview_change(db, actor, mun, name, definition)
        except ValidationFailed as exc:
            st.session_state[form.ERRORS] = exc.errors
            st.rerun()
        if issues:
            st.session_state["regdef_breaking"] = issues
            st.rerun()
        elif attempt_write(definitions.change_register, db, actor, mun, name, definition,
                           expected_version=base["version"]):
            announce(f"Cadastro de {plural.lower()} alterado.")
            st.rerun()
if chosen:
    st.divider()
    active = by_name[chosen].active
    if st.button("Desativar o cadastro" if active else "Reativar o cadastro", key="regdef_active",
                 help="Desativado, o cadastro sai do menu e das telas; os registros ficam guardados."):
        if attempt_write(definitions.set_active, db, actor, mun, name, not active, expected_version=base["version"]):
            announce("Cadastro desativado; os registros ficam guardados." if active else "Cadastro reativado.")
            st.rerun()

transfer_section(db, actor, mun, chosen)
