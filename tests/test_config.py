"""Settings: the per-install secret file is private to the panel's user."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from services.shared import config


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_generated_secret_file_is_readable_only_by_its_owner(data_dir, monkeypatch):
    monkeypatch.delenv("PAINEL_SECRET", raising=False)
    old_umask = os.umask(0o022)
    try:
        secret = config.public_check_secret()
    finally:
        os.umask(old_umask)
    path = data_dir / ".secret"
    assert mode(path) == 0o600 and len(secret) == 64
    assert config.public_check_secret() == secret


def test_a_world_readable_secret_file_made_before_is_closed(data_dir, monkeypatch):
    monkeypatch.delenv("PAINEL_SECRET", raising=False)
    path = data_dir / ".secret"
    path.write_bytes(b"ab" * 32)
    path.chmod(0o644)
    assert config.public_check_secret() == b"ab" * 32
    assert mode(path) == 0o600


def test_processes_starting_together_agree_on_one_secret(data_dir, monkeypatch):
    monkeypatch.delenv("PAINEL_SECRET", raising=False)
    start = threading.Barrier(8)
    secrets = []

    def read():
        start.wait()
        secrets.append(config.public_check_secret())

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(secrets) == 8 and len(set(secrets)) == 1 and len(secrets[0]) == 64
    assert [p.name for p in data_dir.iterdir() if p.name.startswith(".secret")] == [".secret"]


def test_session_idle_minutes_default_and_setting(monkeypatch):
    monkeypatch.delenv("PAINEL_SESSION_IDLE_MINUTES", raising=False)
    assert config.session_idle_minutes() == 30
    monkeypatch.setenv("PAINEL_SESSION_IDLE_MINUTES", "45")
    assert config.session_idle_minutes() == 45


def test_without_painel_data_dir_the_store_lives_in_the_project_data_folder(monkeypatch):
    """README: without PAINEL_DATA_DIR the embedded store is in ``data/`` of the project (the folder
    beside app.py), wherever the config module sits in services/."""
    monkeypatch.delenv("PAINEL_DATA_DIR", raising=False)
    project = Path(__file__).resolve().parent.parent
    assert (project / "app.py").exists()
    assert config.data_dir() == project / "data"
