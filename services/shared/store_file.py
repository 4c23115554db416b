"""The embedded store's file as the product sees it: its marker and its faults, told in pt-BR.

The marker (``painel.store.json`` beside ``painel.sqlite3``: the store's id and creation time) is
written when the store is first opened. From then on a missing or 0-byte store file beside the
marker — or beside other files of the store (its WAL, the kept files under ``files/``) — is a lost
store, never a new one: opening it is refused and the message points at the restore command, so
DAM and auto numbers never start again at 0001 by accident. A brand-new empty folder gets a store.

A store found damaged inside (a bad page met by a read or write, or by the start's quick_check) gets
a second marker, ``painel.damaged.json``: the log says so, and every process refuses the file (at its
next write or start) until a restore replaces it. ``PAINEL_DATA_DIR`` that is a file is refused here.

:func:`fault` turns what SQLite or the operating system raise into a :class:`StoreFault` whose
message says what to do; ``services/store.py`` applies it where the product meets the engine.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import uuid
from datetime import datetime, timezone
from pathlib import Path

from services.shared.errors import ServiceError

RESTORE = "python -m seed --restore PASTA"
BUSY = "O sistema está ocupado; tente de novo em instantes."
DISK_FULL = "Disco cheio no servidor: nada foi gravado; avise a TI."
# SQLite's primary result codes (the low byte of an extended code)
_BUSY, _LOCKED, _CORRUPT, _FULL, _NOTADB = 5, 6, 11, 13, 26


log = logging.getLogger("painel")


class StoreFault(ServiceError):
    """The store cannot do what was asked (busy, disk full, file lost or damaged); nothing was written."""


def marker_of(path: Path) -> Path:
    """``painel.sqlite3`` → ``painel.store.json``."""
    return path.with_suffix(".store.json")


def lost(path: Path) -> StoreFault:
    return StoreFault(
        f"O arquivo do armazenamento {path} sumiu ou está vazio, mas a pasta {path.parent} guarda um "
        f"armazenamento que já existiu: o painel não cria um novo vazio (os números de DAM e de autos "
        f"recomeçariam em 0001). Restaure a última cópia com {RESTORE}.")


def damaged(path: Path) -> StoreFault:
    return StoreFault(
        f"Armazenamento danificado: o arquivo {path} está danificado e o painel não lê nem grava mais nada "
        f"nele. Guarde-o à parte (mova-o, com o {path.name}-wal se houver, para outra pasta) e restaure a "
        f"última cópia com {RESTORE}.")


def damage_marker_of(path: Path) -> Path:
    """``painel.sqlite3`` → ``painel.damaged.json``: the store was found damaged (by any process)."""
    return path.with_suffix(".damaged.json")


def mark_damaged(path: Path, what: str) -> None:
    """Tell the log and every other process (the file beside the store) that ``path`` is damaged; the
    marker stays until a restore replaces the file (:func:`clear_damage`)."""
    log.error("Armazenamento danificado: %s (%s). Nada mais é lido nem gravado nele; restaure a última "
              "cópia com %s.", path, what, RESTORE)
    marker = damage_marker_of(path)
    if marker.exists():
        return
    content = {"file": path.name, "found_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "sqlite": what}
    try:
        _write_whole(marker, content)
    except OSError:  # a full or read-only disk: this process refuses anyway
        log.exception("O aviso de armazenamento danificado (%s) não pôde ser gravado.", marker)


def damage_seen(path: Path) -> str | None:
    """What was found when another process (or an earlier run) marked ``path`` damaged; None if none did."""
    marker = damage_marker_of(path)
    if not os.path.exists(marker):
        return None
    try:
        return str(json.loads(marker.read_text("utf-8")).get("sqlite") or "danificado")
    except (OSError, ValueError, AttributeError):
        return "danificado"


def clear_damage(path: Path) -> None:
    """A restore put a sound file in place of a damaged one."""
    damage_marker_of(path).unlink(missing_ok=True)


def folder_fault(folder: Path, exc: OSError | None = None) -> StoreFault:
    """``PAINEL_DATA_DIR`` that is no folder the panel can use, told in pt-BR (never a raw FileExistsError)."""
    if exc is None or isinstance(exc, (FileExistsError, NotADirectoryError)):
        return StoreFault(
            f"PAINEL_DATA_DIR aponta para {folder}, que é um arquivo (ou fica dentro de um arquivo), não uma "
            f"pasta: o armazenamento embutido guarda seus arquivos numa pasta. Corrija PAINEL_DATA_DIR para uma "
            f"pasta (existente ou a criar) e inicie o painel de novo.")
    if isinstance(exc, PermissionError):
        return StoreFault(f"Sem permissão para usar a pasta de dados {folder} (PAINEL_DATA_DIR): dê ao usuário "
                          f"do painel permissão de leitura e escrita nela e inicie o painel de novo.")
    return fault(exc) or StoreFault(f"A pasta de dados {folder} (PAINEL_DATA_DIR) não pôde ser criada: "
                                    f"{os.strerror(exc.errno) if exc.errno else exc}.")


def prepare_folder(folder: Path) -> None:
    """The data folder, made when missing; a path that is a file or cannot be made is refused in pt-BR."""
    if folder.exists() and not folder.is_dir():
        raise folder_fault(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise folder_fault(folder, exc) from exc


def _other_files(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    files = path.parent / "files"
    return (wal.exists() and wal.stat().st_size > 0) or (files.is_dir() and any(files.iterdir()))


def is_missing(path: Path) -> bool:
    """Whether the store file is absent or 0 bytes."""
    return not path.exists() or path.stat().st_size == 0


def check_present(path: Path) -> None:
    """Refuse a missing or 0-byte store file where a store existed; a brand-new folder passes."""
    if is_missing(path) and (marker_of(path).exists() or _other_files(path)):
        raise lost(path)


def ensure_marker(path: Path) -> None:
    """Write the marker once, whole (temporary file, fsync, rename)."""
    marker = marker_of(path)
    if marker.exists():
        return
    content = {"id": uuid.uuid4().hex, "file": path.name,
               "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    _write_whole(marker, content)


def _write_whole(marker: Path, content: dict) -> None:
    draft = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
    with open(draft, "w", encoding="utf-8") as out:
        json.dump(content, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(draft, marker)


def fault(exc: BaseException, path: Path | None = None) -> StoreFault | None:
    """The pt-BR fault for an engine or disk error; None when ``exc`` is none of them.

    SQLite rolls a transaction back by itself on some errors (a full disk): the engine's own
    ROLLBACK then fails with "no transaction is active", so the error it met is looked for in the
    exceptions being handled when it was raised."""
    seen = 0
    while exc is not None and seen < 5:
        found = _fault(exc, path)
        if found is not None:
            return found
        exc, seen = exc.__context__, seen + 1
    return None


def _fault(exc: BaseException, path: Path | None) -> StoreFault | None:
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return StoreFault(DISK_FULL)
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc).lower()
    if code in (_BUSY, _LOCKED) or "database is locked" in text or "database is busy" in text:
        return StoreFault(BUSY)
    if code == _FULL or "disk is full" in text:
        return StoreFault(DISK_FULL)
    if code in (_CORRUPT, _NOTADB) or "not a database" in text or "disk image is malformed" in text:
        return damaged(path) if path is not None else StoreFault(
            f"O arquivo do armazenamento está danificado; restaure a última cópia com {RESTORE}.")
    return None
