"""The files of a defined register's records (issue 35 item 13): a field of kind ``file`` holds a document
or a photo of the record.

A form (or an import) sends a :class:`Sent` — the file's name and bytes — for the field. It passes the
one upload guard (``uploads``, kind ``register_file``: PAINEL_REGISTER_FILE_MAX_MB, PDF, JPEG or PNG by
its content) in :func:`value`, and the record keeps only what names it — ``{"name", "size", "type",
"sha256"}`` — while the bytes are kept once by ``store.put_file`` (:func:`keep`, before the record's
unit of work). A record never takes a stored value from outside: only a file sent with its bytes, so
no one can point a record at another file of the store. The download is
``entity_files.record_file``; the audit entry of the record's write names the file by that value.
"""
from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from pymongo.database import Database

from services import store
from services.shared import uploads
from services.shared.schema import EntitySpec

KIND = "register_file"  # the upload guard's kind (config.UPLOAD_LIMITS)
MIME = {"pdf": "application/pdf", "jpeg": "image/jpeg", "png": "image/png"}
NAME_MAX = 200  # characters of a file's name kept


class Sent(NamedTuple):
    """A file sent for a field: its name as the user's computer called it, and its bytes (a named tuple:
    the boundary checks it as the plain data it is)."""

    name: str
    data: bytes

    def __repr__(self) -> str:  # never the bytes in a log or a message
        return f"Sent({self.name!r}, {len(self.data)} bytes)"


def value(raw: Any, field: str) -> dict[str, Any]:
    """What the record keeps of a sent file, after the upload guard (``ValidationFailed`` under ``field``
    otherwise); anything but a :class:`Sent` is refused by the field's kind (``fields.parse``)."""
    name = _name(raw.name)
    upload = uploads.check(KIND, raw.data, name, field=field)
    return {"name": name, "size": upload.size, "type": upload.type, "sha256": hashlib.sha256(raw.data).hexdigest()}


def _name(text: str) -> str:
    """The file's own name (no folder), without control characters, at most NAME_MAX characters."""
    base = str(text or "").replace("\\", "/").rsplit("/", 1)[-1]
    clean = "".join(ch for ch in base if ch.isprintable()).strip()
    return clean[-NAME_MAX:] or "arquivo"


def keep(db: Database, spec: EntitySpec, rows: list[dict[str, Any]]) -> None:
    """Keep the bytes of every file sent in ``rows`` (already validated), once each (by its hash)."""
    for values in rows:
        for f in spec.fields:
            if f.kind == "file" and isinstance(values.get(f.name), Sent):
                store.put_file(db, bytes(values[f.name].data), _name(values[f.name].name))


def is_sent(raw: Any) -> bool:
    return isinstance(raw, Sent)


def mime(kept: dict[str, Any]) -> str:
    return MIME.get(str(kept.get("type")), "application/octet-stream")
