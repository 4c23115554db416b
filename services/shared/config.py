"""Settings read from the environment, in one place."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]  # services/shared/config.py → the project
DEFAULT_SESSION_IDLE_MINUTES = 30
DEFAULT_SESSION_HOURS = 12


def mongodb_uri() -> str | None:
    """MONGODB_URI: a real MongoDB server (replica set or Atlas). Unset: the embedded store."""
    return os.environ.get("MONGODB_URI") or None


def mongodb_db() -> str:
    return os.environ.get("MONGODB_DB", "painel_municipal")


def data_dir() -> Path:
    """PAINEL_DATA_DIR: folder of the embedded store (default ``data/`` in the project)."""
    return Path(os.environ.get("PAINEL_DATA_DIR") or PROJECT_DIR / "data")


def sqlite_busy_seconds() -> float:
    """PAINEL_SQLITE_BUSY_SECONDS: how long a write waits for another writer before "ocupado" (30)."""
    try:
        return max(0.0, float(os.environ.get("PAINEL_SQLITE_BUSY_SECONDS") or 30))
    except ValueError:
        return 30.0


def sqlite_synchronous() -> str:
    """PAINEL_SQLITE_SYNCHRONOUS: SQLite's durability. FULL (default) syncs the WAL on every commit: a power
    cut loses no committed write; NORMAL syncs at checkpoints only."""
    return os.environ.get("PAINEL_SQLITE_SYNCHRONOUS") or "FULL"


def sqlite_cache_mb() -> int:
    """PAINEL_SQLITE_CACHE_MB: at most this many MB of the store's pages kept in memory by each
    connection (64; SQLite's own default is 2 MB, and an insert into a random-keyed index of a store
    larger than that reads its page back from the disk). The benchmark's generator raises it."""
    try:
        return max(2, int(os.environ.get("PAINEL_SQLITE_CACHE_MB") or 64))
    except ValueError:
        return 64


def sqlite_mmap_mb() -> int:
    """PAINEL_SQLITE_MMAP_MB: how much of the store file SQLite reads through a memory map (1024; 0 turns
    it off): a page read is then a memory access, not a system call and a copy."""
    try:
        return max(0, int(os.environ.get("PAINEL_SQLITE_MMAP_MB") or 1024))
    except ValueError:
        return 1024


def sqlite_pragmas() -> dict[str, int]:
    """What each connection of the embedded store is set to (``services.store``)."""
    return {"busy_timeout": int(sqlite_busy_seconds() * 1000), "cache_size": -1024 * sqlite_cache_mb(),  # KiB
            "mmap_size": 1024 * 1024 * sqlite_mmap_mb()}


def store_check_seconds() -> float:
    """PAINEL_STORE_CHECK_SECONDS: how long the start may spend reading the embedded store whole for
    damage (SQLite's quick_check; 0,5: about 0,15 s for the benchmark's scale 1, 216 MB, read from the
    page cache, 2 to 3 s from the disk; 0 turns it off); what is left is checked where reads and writes
    meet it."""
    try:
        return max(0.0, float(os.environ.get("PAINEL_STORE_CHECK_SECONDS") or 0.5))
    except ValueError:
        return 0.5


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


def session_idle_minutes() -> int:
    """PAINEL_SESSION_IDLE_MINUTES: minutes without a request after which a session ends (default 30)."""
    raw = os.environ.get("PAINEL_SESSION_IDLE_MINUTES", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_SESSION_IDLE_MINUTES


def session_max_hours() -> int:
    """PAINEL_SESSION_HOURS: how long a login cookie lasts at most, active or not (default 12)."""
    raw = os.environ.get("PAINEL_SESSION_HOURS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_SESSION_HOURS


# The largest file accepted of each kind a user sends, in MB (services.shared.uploads); each has its
# variable PAINEL_<KIND>_MAX_MB (upload_variable), listed in the README's settings.
UPLOAD_LIMITS = {
    "return_file": 5,      # bank return file (services.dam.bank_import)
    "platform_list": 5,    # a platform's list of drivers and vehicles, CSV or XLSX
    "trip_file": 10,       # a platform's trip data, CSV or XLSX
    "register_csv": 5,     # a register imported as CSV (services.shared.entity_files)
    "register_definition": 5,  # a register's definition and records moved between stores (definition_transfer)
    "attachment": 10,      # a file of a machinery service request (PDF, JPEG, PNG)
    "evidence": 10,        # an evidence file or a defence/appeal attachment of an auto (PDF, JPEG, PNG)
    "register_file": 10,   # a document or photo of a record of a register defined by TI (PDF, JPEG, PNG)
    "certificate_a1": 1,   # the municipality's A1 certificate, PKCS#12 (services.setup.signature)
    "signed_answer": 10,   # a platform's signed answer to a data request (PDF with PAdES, or CSV/XLSX)
    "signature": 1,        # the detached CMS signature (.p7s) of a CSV or XLSX answer
    "trust_anchor": 1,     # a root certificate TI uploads (PEM or DER), services.shared.trust_anchors
    "document_check": 5,   # a PDF sent to the public verification page to confer its bytes
    "data_change_proof": 5,  # the document a driver sends on the portal with a change of their data
}


def upload_variable(kind: str) -> str:
    """The environment variable of ``kind``'s limit, e.g. PAINEL_PLATFORM_LIST_MAX_MB."""
    return f"PAINEL_{kind.upper()}_MAX_MB"


def upload_max_mb(kind: str) -> float:
    """PAINEL_<KIND>_MAX_MB, or the default of UPLOAD_LIMITS when unset, not a number or not positive."""
    default = float(UPLOAD_LIMITS[kind])
    try:
        value = float(os.environ.get(upload_variable(kind)) or default)
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default


def return_file_max_mb() -> float:
    """PAINEL_RETURN_FILE_MAX_MB: the largest bank return file accepted, in MB (default 5)."""
    return upload_max_mb("return_file")


def allow_standalone_mongodb() -> bool:
    """PAINEL_ALLOW_STANDALONE_MONGODB=1: accept a MongoDB server without transactions (tests, a trial)."""
    return os.environ.get("PAINEL_ALLOW_STANDALONE_MONGODB", "").strip() in ("1", "true", "sim")


def smtp_settings() -> dict | None:
    """The municipality's SMTP server, for the e-mails of ``services.shared.mail``; None when
    ``PAINEL_SMTP_HOST`` is unset (messages then wait in the outbox). ``PAINEL_SMTP_PORT`` (587),
    ``PAINEL_SMTP_USER`` and ``PAINEL_SMTP_PASSWORD`` (no login when unset), ``PAINEL_SMTP_FROM`` (the
    sender; the user by default), ``PAINEL_SMTP_STARTTLS`` (1 by default; 0 for a server without TLS)."""
    host = os.environ.get("PAINEL_SMTP_HOST") or ""
    if not host:
        return None
    try:
        port = int(os.environ.get("PAINEL_SMTP_PORT") or 587)
    except ValueError:
        port = 587
    user = os.environ.get("PAINEL_SMTP_USER") or ""
    return {"host": host, "port": port, "user": user, "password": os.environ.get("PAINEL_SMTP_PASSWORD") or "",
            "sender": os.environ.get("PAINEL_SMTP_FROM") or user or f"painel@{host}",
            "starttls": (os.environ.get("PAINEL_SMTP_STARTTLS") or "1").strip().lower() not in ("0", "false", "nao", "não")}


def portal_url_configured() -> bool:
    """Whether PAINEL_PORTAL_URL is set (without it, links lead to this machine's portal only)."""
    return bool(os.environ.get("PAINEL_PORTAL_URL", "").strip())


def portal_url() -> str:
    """PAINEL_PORTAL_URL: the public portal's address, as the e-mail alerts of the electronic domicile
    link to it, and the QR codes of every PDF (``/verificar``) and of the sticker and certificate (``/?t=``)
    lead to it (no trailing slash); by default the portal's local port (PORTAL_PORT, 8502), as
    ``python -m portal`` serves it."""
    configured = os.environ.get("PAINEL_PORTAL_URL", "").strip()
    if configured:
        return configured.rstrip("/")
    port = os.environ.get("PORTAL_PORT", "").strip()
    return f"http://localhost:{port if port.isdigit() else 8502}"
