"""Shared fixtures: a real embedded store in a temp folder (a fake, not a mock), actors of each role."""
from __future__ import annotations

import pytest

from services import bootstrap
from services.auth import Actor
from services.store import connect

SECRETARIA_CG = Actor("sec.cg", "Servidora de Chapada", "secretaria", ("chapada",))
SECRETARIA_MP = Actor("sec.mp", "Servidor de Matupá", "secretaria", ("matupa",))
GABINETE = Actor("gab", "Gabinete", "gabinete", ("chapada", "matupa", "nova_lacerda"))
TI = Actor("ti.test", "TI", "ti", ("chapada", "matupa", "nova_lacerda"))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("PAINEL_DATA_DIR", str(folder))
    monkeypatch.delenv("MONGODB_URI", raising=False)
    return folder


@pytest.fixture
def db(data_dir):
    database = connect(data_dir=str(data_dir))
    bootstrap.prepare(database)
    return database
