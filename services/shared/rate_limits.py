"""Counters of attempts in the store, so a limit holds across processes and restarts (the public portal's
login, activation and password reset, per IP address and per account).

A fixed window: the attempt's count is incremented atomically under the key of (bucket, who, window) and
compared with the limit. The key keeps only a SHA-256 of who (an IP address or a CPF is not stored).
"""
from __future__ import annotations

import hashlib
import random

from pymongo.database import Database

from services.shared import clock
from services.store import encode

LIMITS = "rate_limits"


def _key(bucket: str, who: str, window: int) -> str:
    return f"{bucket}|{hashlib.sha256(who.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}|{window}"


def allow(db: Database, bucket: str, who: str, limit: int, window_seconds: int) -> bool:
    """Count one attempt of ``who`` in ``bucket``; False when it is past ``limit`` in this window."""
    now = clock.now_utc()
    window = int(now.timestamp()) // window_seconds
    key = _key(bucket, who, window)
    db[LIMITS].update_one({"_id": key}, {"$inc": {"count": 1}}, upsert=True)
    doc = db[LIMITS].find_one({"_id": key}) or {}
    if not doc.get("until"):
        db[LIMITS].update_one({"_id": key}, {"$set": {"until": (window + 1) * window_seconds}})
    if random.random() < 0.02:  # now and then, forget the windows that are over
        db[LIMITS].delete_many({"until": {"$lt": encode(int(now.timestamp()))}})
    return int(doc.get("count", 1)) <= limit


def seconds_left(window_seconds: int) -> int:
    """Seconds until the current window ends (the Retry-After of a refusal)."""
    now = int(clock.now_utc().timestamp())
    return window_seconds - now % window_seconds
