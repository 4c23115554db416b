"""E-mail through the municipality's SMTP server, by an outbox: a message is stored first, then sent.

A service that must e-mail someone calls :func:`queue` inside the unit of work of the write that causes
it, so the message commits (or rolls back) with that write. :func:`send_pending` (called after the write,
by the portal's loop and at start-up) sends what is due through the server of
:func:`services.shared.config.smtp_settings`; a failed send stays in the outbox with its error and is
retried later (1, 2, 4… up to 60 minutes apart), never lost. Without ``PAINEL_SMTP_HOST`` messages stay
pending and each is written once to the log, so a demonstration shows them (never set it so in
production: the log would then hold the codes). A message marked ``secret`` (a one-time code) has its
body discarded once it is sent.
"""
from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from pymongo.database import Database

from services.shared import clock, config
from services.store import encode, insert_one

OUTBOX = "mail_outbox"
PENDING, SENDING, SENT = "pendente", "enviando", "enviada"
STUCK_MINUTES = 10  # a claim older than this (its process died while sending) is pending again
MAX_DELAY_MINUTES = 60
log = logging.getLogger("painel")


def queue(db: Database, municipality: str | None, to: str, subject: str, body: str, purpose: str,
          secret: bool = False, ref: dict | None = None) -> Any:
    """Store one message to ``to`` in the outbox (inside the caller's unit of work); returns its id.
    ``ref`` names the record the message is about (e.g. a domicile message), for the screens that show
    whether it went."""
    now = clock.now_utc()
    return insert_one(db[OUTBOX], encode({
        "municipality": municipality, "to": to, "subject": subject, "body": body, "purpose": purpose,
        "secret": secret, "status": PENDING, "attempts": 0, "last_error": None, "next_try_at": now,
        "created_at": now, "sent_at": None, "logged_at": None, **({"ref": dict(ref)} if ref else {})}))


def _due(now: datetime) -> dict:
    return {"$or": [{"status": PENDING, "next_try_at": {"$lte": encode(now)}},
                    {"status": SENDING, "claimed_at": {"$lte": encode(now - timedelta(minutes=STUCK_MINUTES))}}]}


def _message(settings: dict, doc: dict) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings["sender"]
    message["To"] = doc["to"]
    message["Subject"] = doc["subject"]
    message.set_content(doc["body"])
    return message


def _send(settings: dict, doc: dict) -> None:
    with smtplib.SMTP(settings["host"], settings["port"], timeout=20) as server:
        if settings["starttls"]:
            server.starttls()
        if settings["user"]:
            server.login(settings["user"], settings["password"])
        server.send_message(_message(settings, doc))


def _log_unsent(db: Database, now: datetime) -> None:
    """Without a server: each pending message once in the log (the demonstration reads its codes there)."""
    for doc in db[OUTBOX].find({"status": PENDING, "logged_at": None}).limit(100):
        log.warning("E-mail pendente (sem PAINEL_SMTP_HOST) para %s — %s\n%s", doc["to"], doc["subject"], doc["body"])
        db[OUTBOX].update_one({"_id": doc["_id"]}, {"$set": {"logged_at": encode(now)}})


def send_pending(db: Database, limit: int = 50) -> int:
    """Send the messages that are due; returns how many were sent. Safe to call from several processes:
    each message is claimed before it is sent."""
    now = clock.now_utc()
    settings = config.smtp_settings()
    if settings is None:
        _log_unsent(db, now)
        return 0
    sent = 0
    for doc in list(db[OUTBOX].find(_due(now)).sort("created_at", 1).limit(limit)):
        claimed = db[OUTBOX].update_one({"_id": doc["_id"], "status": doc["status"], "attempts": doc["attempts"]},
                                        {"$set": {"status": SENDING, "claimed_at": encode(now)}})
        if claimed.modified_count != 1:
            continue  # another process took it
        try:
            _send(settings, doc)
        except (OSError, smtplib.SMTPException) as error:
            attempts = doc["attempts"] + 1
            delay = min(2 ** (attempts - 1), MAX_DELAY_MINUTES)
            db[OUTBOX].update_one({"_id": doc["_id"]}, {"$set": encode({
                "status": PENDING, "attempts": attempts, "last_error": f"{type(error).__name__}: {error}"[:500],
                "next_try_at": now + timedelta(minutes=delay)})})
            log.warning("E-mail para %s não enviado (tentativa %d): %s", doc["to"], attempts, error)
            continue
        done: dict[str, Any] = {"status": SENT, "sent_at": now, "attempts": doc["attempts"] + 1, "last_error": None}
        if doc.get("secret"):
            done["body"] = "(conteúdo descartado após o envio)"
        db[OUTBOX].update_one({"_id": doc["_id"]}, {"$set": encode(done)})
        sent += 1
    return sent

