"""Implantação (TI): per municipality of the user, the values the law leaves to it that are still
missing or still a demo value, and where each is set; the Prefeitura's own data printed on every
document (CNPJ, coat of arms, who signs the certificates) is set here."""
import pandas as pd
import streamlit as st

from rules import fmt
from services.setup import deployment, signature
from services.shared import clock, fields, municipalities, signing_keys, uploads
from services.shared.errors import ServiceError, ValidationFailed
from ui import common, navigation
from ui.trust_anchors import anchors_section

actor = common.guard("admin")
common.page_header("Implantação", "Valores que a lei deixa ao município e que ainda faltam")
db = common.db()
st.caption("Enquanto um valor faltar, as telas que dependem dele não o inventam: o DAM não é emitido sem o "
           "código FEBRABAN, a multa em UPFM não é calculada sem a UPFM, a 2ª via do DAM não é emitida sem a "
           "multa e os juros de mora do Código Tributário, e os documentos saem com cabeçalho neutro (sem "
           "brasão nem CNPJ). A chave PIX só é necessária se o município receber por PIX.")


def errors_of(key: str) -> dict[str, str]:
    return st.session_state.get(key, {})


def show_error(errors: dict[str, str], name: str) -> None:
    if errors.get(name):
        st.caption(f":red[{errors[name]}]")


def call(errors_key: str, action, *args) -> bool:
    """Run a service; its errors are kept by field for the next run, a success is told."""
    try:
        action(*args)
    except ValidationFailed as exc:
        st.session_state[errors_key] = exc.errors
        return False
    except ServiceError as exc:
        st.session_state[errors_key] = {exc.field or "_form": exc.message}
        return False
    st.session_state.pop(errors_key, None)
    return True


def identity_form(town: municipalities.Municipality) -> None:
    """CNPJ, signer and coat of arms of one municipality, each error under its field."""
    key = f"deployment_{town.code}"
    ok, current = common.attempt(deployment.identity, db, actor, town.code)
    if not ok:
        return
    with st.expander("Dados da Prefeitura nos documentos (CNPJ, brasão, quem assina)",
                     expanded=not (current.cnpj and current.coat_of_arms and current.signer_name)):
        if st.session_state.pop(f"{key}_done", None):
            st.success(st.session_state.pop(f"{key}_done_text", "Dados da Prefeitura gravados."))
        errors = errors_of(f"{key}_errors")
        if errors.get("_form"):
            st.error(errors["_form"])
        with st.form(f"{key}_identity"):
            cnpj = st.text_input("CNPJ da Prefeitura *", value=fields.show("cnpj", current.cnpj) if current.cnpj else "",
                                 key=f"{key}_cnpj")
            show_error(errors, "cnpj")
            cols = st.columns(2)
            with cols[0]:
                name = st.text_input("Quem assina os certificados (nome)", value=current.signer_name,
                                     key=f"{key}_signer_name")
                show_error(errors, "signer_name")
            with cols[1]:
                role = st.text_input("Cargo de quem assina", value=current.signer_role, key=f"{key}_signer_role",
                                     placeholder="Ex.: Secretário Municipal de Finanças")
                show_error(errors, "signer_role")
            if st.form_submit_button("Gravar dados da Prefeitura", type="primary"):
                if call(f"{key}_errors", deployment.set_identity, db, actor, town.code, cnpj, name, role):
                    st.session_state[f"{key}_done"] = True
                st.rerun()
        arms_errors = errors_of(f"{key}_arms_errors")
        cols = st.columns([1, 3])
        ok, image = common.attempt(deployment.coat_of_arms, db, actor, town.code)
        if ok and image:
            cols[0].image(image, caption="Brasão atual", width=120)
        elif ok:
            cols[0].caption("Sem brasão: os documentos saem com cabeçalho neutro.")
        with cols[1]:
            upload = st.file_uploader("Brasão do município (PNG ou JPEG, até 1 MB)", type=["png", "jpg", "jpeg"],
                                      key=f"{key}_arms")
            show_error(arms_errors, "coat_of_arms")
            if upload is not None:
                st.image(upload.getvalue(), caption="Prévia do arquivo escolhido", width=120)
                if st.button("Enviar brasão", key=f"{key}_arms_send", icon=":material/upload:"):
                    if call(f"{key}_arms_errors", deployment.set_coat_of_arms, db, actor, town.code,
                            upload.getvalue(), upload.name):
                        st.session_state[f"{key}_done"] = True
                        st.session_state[f"{key}_done_text"] = "Brasão gravado: já aparece nos documentos."
                    st.rerun()


def signature_section(town: municipalities.Municipality) -> None:
    """The A1 certificate that signs the documents (issue 37): what it says, a new one, the kinds signed."""
    key = f"signature_{town.code}"
    ok, current = common.attempt(signature.certificate, db, actor, town.code)
    if not ok:
        return
    with st.expander(deployment.SIGNATURE_SECTION, expanded=current is None):
        if st.session_state.pop(f"{key}_done", None):
            st.success(st.session_state.pop(f"{key}_done_text", "Gravado."))
        if current is None:
            st.warning("Sem certificado: os documentos saem sem assinatura digital, com o código de autenticação.")
        else:
            st.markdown(f"**Titular:** {current.holder}  \n"
                        f"**CNPJ:** {fmt.cnpj(current.cnpj) if current.cnpj else 'não informado no certificado'}  \n"
                        f"**Emitido por:** {current.issuer}  \n"
                        f"**Validade:** de {fmt.day(clock.local_date(current.valid_from))} a "
                        f"{fmt.day(clock.local_date(current.valid_until))}  \n"
                        f"**Enviado por** {current.uploaded_by} em {fmt.moment(clock.to_local(current.uploaded_at))}")
            if current.password_at:
                st.caption(f"Senha lida de: {current.password_at}. A senha nunca é gravada no armazenamento.")
            else:
                st.error("A senha do certificado não está disponível neste servidor: os documentos saem sem "
                         f"assinatura digital. Defina {signing_keys.password_variable(town.code)} ou envie o "
                         "certificado de novo com a senha.")
        errors = errors_of(f"{key}_errors")
        if errors.get("_form"):
            st.error(errors["_form"])
        upload = st.file_uploader(f"Certificado A1 da Prefeitura (ICP-Brasil, .pfx ou .p12, "
                                  f"{uploads.shown_limit(signature.UPLOAD_KIND)})", type=["pfx", "p12"],
                                  key=f"{key}_file")
        show_error(errors, signing_keys.FIELD)
        if signature.password_from_environment(town.code):
            st.caption(f"A senha vem da variável de ambiente {signing_keys.password_variable(town.code)} do "
                       "servidor.")
            secret = None
        else:
            secret = st.text_input("Senha do certificado", type="password", key=f"{key}_password",
                                   help="Guardada só num arquivo de chave (permissão 0600) na pasta de dados do "
                                        "servidor, nunca no armazenamento nem nas cópias de segurança.")
            show_error(errors, signing_keys.PASSWORD_FIELD)
        if upload is not None and st.button("Enviar certificado", key=f"{key}_send", icon=":material/upload:"):
            if call(f"{key}_errors", signature.set_certificate, db, actor, town.code, upload.getvalue(), upload.name,
                    secret):
                st.session_state[f"{key}_done"] = True
                st.session_state[f"{key}_done_text"] = "Certificado gravado: os documentos escolhidos saem assinados."
            st.rerun()
        kinds_form(key, town, current)


def kinds_form(key: str, town: municipalities.Municipality, current: signature.Certificate | None) -> None:
    kinds_errors = errors_of(f"{key}_kinds_errors")
    chosen = current.kinds if current is not None else ()
    with st.form(f"{key}_kinds"):
        picked = st.multiselect("Documentos assinados digitalmente", list(signing_keys.KINDS),
                                default=list(chosen), format_func=signing_keys.KINDS.get,
                                key=f"{key}_kinds", placeholder="Escolha...",
                                disabled=current is None,
                                help="Os demais saem só com o código de autenticação.")
        show_error(kinds_errors, "kinds")
        if st.form_submit_button("Gravar documentos assinados", disabled=current is None):
            if call(f"{key}_kinds_errors", signature.set_signed_kinds, db, actor, town.code, picked):
                st.session_state[f"{key}_done"] = True
                st.session_state[f"{key}_done_text"] = "Documentos assinados gravados."
            st.rerun()


for town in municipalities.of_actor(db, actor):
    st.subheader(town.name)
    ok, items = common.attempt(deployment.missing_values, db, actor, town.code)
    if ok and not items:
        st.success("Todos os valores do município estão cadastrados.")
    elif ok:
        pending = sum(item.status == deployment.NOT_SET for item in items)
        demo = sum(item.status == deployment.DEMO_VALUE for item in items)
        st.markdown(f"**{pending}** {fmt.plural(pending, 'não cadastrado', 'não cadastrados')}, **{demo}** com valor de "
                    "demonstração.",
                    help="Um valor de demonstração cita um ato com a palavra 'demonstração'.")
        st.dataframe(pd.DataFrame([{
            "Valor": item.what, "Situação": item.status, "Onde cadastrar": item.where, "Ato citado": item.act,
        } for item in items]), hide_index=True, width="stretch", key=f"deployment_{town.code}")
    # Parâmetros changes the municipality chosen in the sidebar: this button chooses this one (issue 22 item 10)
    if st.button(f"Cadastrar em Parâmetros de {town.name}", key=f"deployment_{town.code}_params",
                 icon=":material/tune:"):
        if town.code != common.municipality():
            st.session_state[navigation.SWITCH_MUNICIPALITY] = town.code
        st.switch_page("app_pages/parameters.py")
    identity_form(town)
    signature_section(town)
    if "transporte" in town.modules:  # the signed files of the platforms (issue 36 item 4)
        anchors_section(db, actor, town.code)
