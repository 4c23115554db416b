"""Static PIX BR Code ("PIX copia e cola") for a DAM.

Reference: Banco Central do Brasil, "Manual de Padrões para Iniciação do Pix" (Anexo I,
BR Code), on EMV QRCPS-MPM. Each field is ID (2) + length (2) + value, in this order:

00 "01" · 26 merchant account (00 GUI ``br.gov.bcb.pix``, 01 key) · 52 "0000" · 53 "986" ·
54 amount (only when positive, "123.45") · 58 "BR" · 59 name (≤ 25) · 60 city (≤ 15) ·
62 additional data (05 txid, alphanumeric ≤ 25, or "***") · 63 CRC16-CCITT-FALSE
(polynomial 0x1021, initial 0xFFFF) over the whole payload including "6304", four uppercase
hexadecimal digits, zero-padded.

The payload is ASCII only: accents are stripped; other characters are refused. Name and city
are cut to their maximum lengths (they are only shown to the payer); a key or txid that does
not fit is refused, since cutting it would pay someone else or lose the DAM's identification.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from rules.base import RuleError, cents

MANUAL = "Banco Central do Brasil, Manual de Padrões para Iniciação do Pix, Anexo I (BR Code)"
GUI = "br.gov.bcb.pix"
NO_TXID = "***"
MAX_NAME = 25
MAX_CITY = 15
MAX_TXID = 25
MAX_KEY = 77  # field 26 holds at most 99 characters: "0014br.gov.bcb.pix" + "01" + 2 + key
_TXID = re.compile(r"[A-Za-z0-9]{1,25}")


class PixError(RuleError):
    """A PIX payload that the BR Code standard does not allow."""


class PixNotAscii(PixError):
    """A character that cannot be written in ASCII, even without its accent."""


class PixFieldTooLong(PixError):
    """A key or txid longer than its field allows."""


class InvalidTxid(PixError):
    """The txid is alphanumeric, 1 to 25 characters, or "***" when absent."""


class PixFieldMissing(PixError):
    """Merchant name and city are mandatory (fields 59 and 60)."""


class PixAmountOutOfRange(PixError):
    """The amount field has at most 13 characters ("9999999999.99")."""


def ascii_text(text: str) -> str:
    """``text`` without accents (``"Guimarães"`` → ``"Guimaraes"``); refuses what stays non-ASCII."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    if not stripped.isascii():
        raise PixNotAscii("O PIX aceita somente caracteres ASCII", value=text, reference=MANUAL)
    return stripped


def merchant_name_cut(merchant_name: str) -> str | None:
    """The payee name as the payer will see it when it is longer than field 59 allows (cut to 25
    characters), or None when it fits."""
    name = ascii_text(merchant_name.strip())
    return name[:MAX_NAME] if len(name) > MAX_NAME else None


def crc16_ccitt_false(data: bytes) -> int:
    """CRC16-CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def _field(field_id: str, value: str) -> str:
    return f"{field_id}{len(value):02d}{value}"


def dam_txid(year: int, sequence: int) -> str:
    """The txid of a DAM: ``DAM`` + year + sequence (``DAM2026000123``), alphanumeric."""
    return f"DAM{year:04d}{sequence:06d}"


def pix_payload(
    key: str,
    merchant_name: str,
    merchant_city: str,
    amount: Decimal | None = None,
    txid: str = NO_TXID,
) -> str:
    """The static BR Code payload ("copia e cola") that the DAM's QR code carries."""
    key = ascii_text(key.strip())
    if not key or len(key) > MAX_KEY:
        raise PixFieldTooLong(f"Chave PIX deve ter de 1 a {MAX_KEY} caracteres", value=key, reference=MANUAL)
    if txid != NO_TXID and not _TXID.fullmatch(txid):
        raise InvalidTxid("txid do PIX deve ser alfanumérico, até 25 caracteres", value=txid, reference=MANUAL)
    name = ascii_text(merchant_name.strip())[:MAX_NAME]
    city = ascii_text(merchant_city.strip())[:MAX_CITY]
    if not name or not city:
        raise PixFieldMissing("Nome e cidade do recebedor PIX são obrigatórios", value=(name, city), reference=MANUAL)
    payload = _field("00", "01")
    payload += _field("26", _field("00", GUI) + _field("01", key))
    payload += _field("52", "0000") + _field("53", "986")
    if amount is not None and amount > 0:
        # Manual, campo 54: valor com ponto decimal, até 13 caracteres, omitido quando livre
        text = f"{cents(amount):.2f}"
        if len(text) > 13:
            raise PixAmountOutOfRange("Valor do PIX não cabe no campo 54", value=amount, reference=MANUAL)
        payload += _field("54", text)
    payload += _field("58", "BR") + _field("59", name) + _field("60", city)
    payload += _field("62", _field("05", txid))
    payload += "6304"
    return payload + f"{crc16_ccitt_false(payload.encode('ascii')):04X}"
