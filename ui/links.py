"""Addresses the panel prints (the QR code of the sticker and certificate), from Streamlit's request."""
from __future__ import annotations

import streamlit as st
from streamlit import config as st_config

from services.shared import config


def public_base_url() -> str:
    """The public-check base URL for the documents built on this run.

    PAINEL_PUBLIC_URL when set; otherwise the address the user's browser is at (``st.context.url``,
    or the Host header a proxy forwarded), under ``server.baseUrlPath``; with no request, the
    server's ``browser.serverAddress`` and port. Call it while the page runs, not inside a
    download button's deferred callable (that runs outside the script run).
    """
    headers = st.context.headers
    return config.public_base_url(
        st.context.url,
        host=(headers.get("X-Forwarded-Host") or headers.get("Host") or "").split(",")[0],
        scheme=headers.get("X-Forwarded-Proto"),
        server_address=st_config.get_option("browser.serverAddress"),
        server_port=st_config.get_option("browser.serverPort"),
        base_path=st_config.get_option("server.baseUrlPath") or "",
        tls=bool(st_config.get_option("server.sslCertFile")),
    )
