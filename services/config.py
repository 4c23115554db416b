"""Settings read from the environment, in one place."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent


def mongodb_uri() -> str | None:
    """MONGODB_URI: a real MongoDB server (replica set or Atlas). Unset: the embedded store."""
    return os.environ.get("MONGODB_URI") or None


def mongodb_db() -> str:
    return os.environ.get("MONGODB_DB", "painel_municipal")


def data_dir() -> Path:
    """PAINEL_DATA_DIR: folder of the embedded store (default ``data/`` in the project)."""
    return Path(os.environ.get("PAINEL_DATA_DIR") or PROJECT_DIR / "data")


def public_check_secret() -> bytes:
    """PAINEL_SECRET signs public-check tokens; a per-install file is made when unset."""
    secret = os.environ.get("PAINEL_SECRET")
    if secret:
        return secret.encode()
    path = data_dir() / ".secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(32).hex().encode())
    return path.read_bytes()


def public_base_url() -> str:
    return os.environ.get("PAINEL_PUBLIC_URL", "http://localhost:8501")


def return_file_max_mb() -> float:
    """PAINEL_RETURN_FILE_MAX_MB: the largest bank return file accepted, in MB (default 5)."""
    try:
        value = float(os.environ.get("PAINEL_RETURN_FILE_MAX_MB") or 5)
    except ValueError:
        return 5.0
    return value if value > 0 else 5.0
