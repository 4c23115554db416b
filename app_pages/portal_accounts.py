"""Portal dos regulados: the secretariat's side of the accounts of the public portal (issue 36) — the persons
each platform authorized, the credenciamento de ofício that e-mails the activation code, and the accounts."""
import streamlit as st

from rules.fmt import moment
from services.shared import clock, entity_lists, fields, mail, regulated_accounts, schema
from ui import common
from ui.entity import confirm_button

actor = common.guard("write")
db = common.db()
mun = common.municipality()
common.page_header("Portal dos regulados", "Contas de condutores e de agentes autorizados das plataformas")
st.caption("Condutores e plataformas entram pelo portal público, separado deste painel. O código de ativação "
           "vai sempre ao e-mail do cadastro; cada pessoa escolhe a sua senha.")

common.flash("portal_flash")


def done_with(message: str) -> None:
    """Keep the message for the rerun that shows the lists as changed."""
    st.session_state["portal_flash"] = ("success", message)
    st.rerun()


ok, platforms = common.attempt(entity_lists.list_all, db, actor, "platforms", mun, schema.ListQuery(sort="name"))
platforms = platforms if ok else []

st.subheader("Agentes autorizados das plataformas")
if not platforms:
    st.info("Cadastre as plataformas em Transporte por aplicativo › Plataformas.")
else:
    names = {p["cnpj"]: p["name"] for p in platforms}
    cnpj = st.selectbox("Plataforma", list(names), format_func=names.get, key="portal_platform",
                        placeholder="Escolha...")
    ok, agents = common.attempt(regulated_accounts.platform_agents, db, actor, mun, cnpj)
    if ok and agents:
        st.dataframe([{"CPF": fields.show("cpf", a["cpf"]), "Nome": a["name"], "E-mail": a["email"],
                       "Autorizado": "Sim" if a["active"] else "Não (retirado)", "Conta": a["account"]}
                      for a in agents], hide_index=True, width="stretch")
    elif ok:
        st.caption("Nenhuma pessoa autorizada por esta plataforma ainda.")
    with st.form("portal_agent_form", clear_on_submit=True):
        st.markdown("**Autorizar uma pessoa indicada pela plataforma**")
        cpf = st.text_input("CPF da pessoa", key="portal_agent_cpf")
        name = st.text_input("Nome", key="portal_agent_name")
        email = st.text_input("E-mail (recebe os códigos de acesso)", key="portal_agent_email")
        if st.form_submit_button("Autorizar"):
            done, _ = common.attempt(regulated_accounts.authorize_agent, db, actor, mun, cnpj, cpf, name, email)
            if done:
                done_with("Pessoa autorizada. Ela pode ativar a conta no portal, ou use o credenciamento abaixo.")
    active = [a for a in agents or [] if a["active"]] if ok else []
    if active:
        labels = {a["cpf"]: f"{a['name']} ({fields.show('cpf', a['cpf'])})" for a in active}
        gone = st.selectbox("Retirar a autorização de", list(labels), format_func=labels.get, key="portal_revoke",
                            placeholder="Escolha...")
        if confirm_button("Retirar autorização", "portal_revoke_button",
                          f"Retirar a autorização de {labels.get(gone, '')}? A pessoa não entrará mais no portal."):
            done, _ = common.attempt(regulated_accounts.revoke_agent, db, actor, mun, cnpj, gone)
            if done:
                done_with("Autorização retirada: a pessoa não entra mais no portal.")

st.subheader("Credenciamento de ofício")
with st.form("portal_enroll_form", clear_on_submit=True):
    kind = st.radio("Quem", list(regulated_accounts.KINDS), format_func=regulated_accounts.KINDS.get,
                    horizontal=True, key="portal_enroll_kind")
    document = st.text_input("CPF do condutor ou CNPJ da plataforma", key="portal_enroll_document")
    person_cpf = st.text_input("CPF do agente autorizado (só para plataforma)", key="portal_enroll_cpf")
    if st.form_submit_button("Credenciar e enviar o código"):
        done, _ = common.attempt(regulated_accounts.enroll, db, actor, mun, kind, document, person_cpf)
        if done:
            mail.send_pending(db)
            done_with("Conta aberta: o código de ativação foi para o e-mail do cadastro.")

st.subheader("Contas do portal")
ok, accounts = common.attempt(regulated_accounts.portal_accounts, db, actor, mun)
if ok and accounts:
    st.dataframe([{
        "Quem": regulated_accounts.KINDS[a["kind"]], "Nome": a["name"],
        "CPF ou CNPJ": fields.show("cpf" if a["kind"] == "condutor" else "cnpj", a["document"]),
        "Situação": "Ativa" if a["status"] == "ativa" else "Aguardando ativação",
        "Consentimento (LGPD)": (f"{moment(clock.to_local(a['consent_at']))} · versão {a['consent_version']}"
                                 if a["consent_at"] else "—"),
        "Último acesso": moment(clock.to_local(a["last_login"])) if a["last_login"] else "—",
    } for a in accounts], hide_index=True, width="stretch")
elif ok:
    st.caption("Nenhuma conta no portal ainda.")
