"""Public check of a ride-hailing authorization (no login), opened from the QR code of the stickers and
certificates printed before the public portal (`<panel>/?t=TOKEN`); new ones lead to the portal's
`/autorizacao` (portal/authorization_check.py), which answers through the same service."""
import streamlit as st

from services.ridehailing import public_check
from services.shared import clock
from services.shared.errors import ServiceError
from ui import common

st.title("Verificação de autorização")
st.caption("Transporte remunerado privado individual de passageiros por aplicativo")
token = st.query_params.get("t", "")
try:
    result = public_check.check(common.db(), token, clock.today())
except ServiceError as exc:
    st.error(exc.message)
    st.stop()

st.caption(f"Prefeitura de {result.municipality_name} · consulta em {clock.today():%d/%m/%Y}")
if result.valid:
    st.success(f"Autorização {result.number} **válida** até {result.valid_until_text}.", icon=":material/verified:")
else:
    st.error(f"Autorização **{result.status_word}**. {result.detail}".strip(), icon=":material/gpp_bad:")
phone = f": **{result.ouvidoria_phone}**" if result.ouvidoria_phone else ""
st.info(f"Em caso de irregularidade, ligue para a Ouvidoria do Município{phone}.", icon=":material/call:")
cols = st.columns(3)
cols[0].metric("Placa", result.plate)
cols[1].metric("Veículo", result.vehicle_model)
cols[2].metric("Condutor", result.driver_first_name)
st.caption("Confira se a placa e o veículo são os mesmos do carro que atendeu você.")
