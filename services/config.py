"""Settings read from the environment, in one place."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
DEFAULT_SESSION_IDLE_MINUTES = 30


def mongodb_uri() -> str | None:
    """MONGODB_URI: a real MongoDB server (replica set or Atlas). Unset: the embedded store."""
    return os.environ.get("MONGODB_URI") or None


def mongodb_db() -> str:
    return os.environ.get("MONGODB_DB", "painel_municipal")


def data_dir() -> Path:
    """PAINEL_DATA_DIR: folder of the embedded store (default ``data/`` in the project)."""
    return Path(os.environ.get("PAINEL_DATA_DIR") or PROJECT_DIR / "data")


def public_check_secret() -> bytes:
    """PAINEL_SECRET signs public-check tokens; a per-install file (mode 0600) is made when unset.

    The file is written whole under a temporary name and linked into place, so two processes
    starting together agree on one secret and neither reads a half-written file.
    """
    secret = os.environ.get("PAINEL_SECRET")
    if secret:
        return secret.encode()
    path = data_dir() / ".secret"
    if not path.exists():
        _create_secret(path)
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return path.read_bytes()


def _create_secret(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".secret.{os.getpid()}.{os.urandom(4).hex()}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(os.urandom(32).hex().encode())
            file.flush()
            os.fsync(file.fileno())
        os.link(draft, path)
    except FileExistsError:
        pass  # another process made it first: use theirs
    finally:
        draft.unlink(missing_ok=True)


def public_base_url() -> str:
    return os.environ.get("PAINEL_PUBLIC_URL", "http://localhost:8501")


def session_idle_minutes() -> int:
    """PAINEL_SESSION_IDLE_MINUTES: minutes without a request after which a session ends (default 30)."""
    raw = os.environ.get("PAINEL_SESSION_IDLE_MINUTES", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_SESSION_IDLE_MINUTES


def return_file_max_mb() -> float:
    """PAINEL_RETURN_FILE_MAX_MB: the largest bank return file accepted, in MB (default 5)."""
    try:
        value = float(os.environ.get("PAINEL_RETURN_FILE_MAX_MB") or 5)
    except ValueError:
        return 5.0
    return value if value > 0 else 5.0


def allow_standalone_mongodb() -> bool:
    """PAINEL_ALLOW_STANDALONE_MONGODB=1: accept a MongoDB server without transactions (tests, a trial)."""
    return os.environ.get("PAINEL_ALLOW_STANDALONE_MONGODB", "").strip() in ("1", "true", "sim")
