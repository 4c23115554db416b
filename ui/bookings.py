"""What the pages of the machinery bookings module (Nova Lacerda, Decreto 017/2026) share."""
from __future__ import annotations

import streamlit as st

from rules.registry import MACHINERY
from services.shared import municipalities
from services.shared.auth import Actor
from ui import common

MODULE_OFF = "O módulo de serviços de máquinas não está habilitado neste município."


def guard(permission: str) -> Actor:
    """The actor, as :func:`ui.common.guard`, and only where the municipality has the module."""
    actor = common.guard(permission)
    if MACHINERY not in municipalities.get(common.db(), common.municipality()).modules:
        st.error(MODULE_OFF)
        st.stop()
    return actor
