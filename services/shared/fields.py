"""Field kinds of the entity specs: how a typed value is parsed, validated, stored and shown.

Each kind turns what a user typed (or a CSV cell) into a clean value, or raises ``ValueError``
with a pt-BR message. Validators come from well-kept libraries: validate-docbr (CPF, CNPJ) and
brutils (plates in the old and Mercosul formats, RENAVAM, phones).
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import brutils
from validate_docbr import CNPJ, CPF

from rules import fmt
from rules.base import cents

KINDS = {
    "text": "Texto",
    "textarea": "Texto longo",
    "int": "Número inteiro",
    "money": "Valor (R$)",
    "date": "Data",
    "bool": "Sim/Não",
    "choice": "Lista de opções",
    "cpf": "CPF",
    "cnpj": "CNPJ",
    "cpf_cnpj": "CPF ou CNPJ",
    "plate": "Placa",
    "renavam": "RENAVAM",
    "email": "E-mail",
    "phone": "Telefone",
}

TRUE_WORDS = {"sim", "s", "true", "1", "x", "yes"}
FALSE_WORDS = {"não", "nao", "n", "false", "0", "no"}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TEXT_MAX = {"text": 500, "textarea": 5000}  # characters; a record is a register entry, not a file
INT_RANGE = (-(2**63), 2**63 - 1)  # what every store keeps as an integer


def digits(text: str) -> str:
    return "".join(ch for ch in str(text) if ch.isdigit())


MAX_AMOUNT = Decimal("1e15")  # no amount of a municipal register comes near a quadrillion reais


def parse_decimal(raw: Any) -> Decimal:
    """1.234,5678 or 1234.5678 or Decimal → Decimal, exactly as typed (rates keep their places)."""
    if isinstance(raw, (Decimal, int)):
        value = Decimal(raw)
    else:
        text = str(raw).replace("R$", "").replace("%", "").replace(" ", "").replace("\xa0", "")
        if "," in text:
            text = text.replace(".", "").replace(",", ".")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValueError("valor inválido; use o formato 1.234,56") from None
    if not value.is_finite():
        raise ValueError("valor inválido; use o formato 1.234,56")
    if abs(value) >= MAX_AMOUNT:
        raise ValueError("valor grande demais")
    return value


def parse_money(raw: Any) -> Decimal:
    """R$ 1.234,56 or 1234.56 or Decimal → Decimal in centavos."""
    return cents(parse_decimal(raw))


def parse_date_input(raw: Any) -> date:
    if isinstance(raw, datetime):
        return raw.date()
    if isinstance(raw, date):
        return raw
    text = str(raw).strip()
    for pattern in ("%d/%m/%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ValueError("data inválida; use dd/mm/aaaa")


def not_after_today(day: date, today: date) -> date:
    """A date of something already done (a licence issued, a protocol filed) is never after today."""
    if day > today:
        raise ValueError(f"não pode ser posterior a hoje ({fmt.day(today)})")
    return day


def year_at_most(year: int, latest: int) -> int:
    """A year that cannot pass ``latest`` (a model year is at most next year's)."""
    if year > latest:
        raise ValueError(f"não pode passar de {latest}")
    return year


def parse(kind: str, raw: Any, choices: tuple[tuple[str, str], ...] = ()) -> Any:
    """A clean value of ``kind`` from ``raw``; raises ValueError with a pt-BR reason."""
    if isinstance(raw, str):
        raw = raw.strip()
    if kind in ("text", "textarea"):
        return _plain_text(kind, str(raw))
    if kind == "int":
        try:
            number = int(str(raw).replace(".", ""))
        except ValueError:
            raise ValueError("número inteiro inválido") from None
        if not INT_RANGE[0] <= number <= INT_RANGE[1]:
            raise ValueError("número grande demais")
        return number
    if kind == "money":
        value = parse_money(raw)
        if value < 0:
            raise ValueError("o valor não pode ser negativo")
        return value
    if kind == "date":
        return parse_date_input(raw)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError("responda Sim ou Não")
    if kind == "choice":
        values = {v for v, _ in choices}
        by_label = {label.lower(): v for v, label in choices}
        if isinstance(raw, str) and raw in values:
            return raw
        if str(raw).lower() in by_label:
            return by_label[str(raw).lower()]
        raise ValueError("opção inválida; escolha uma das opções: " + ", ".join(label for _, label in choices))
    if kind == "cpf":
        number = digits(raw)
        if not CPF().validate(number):
            raise ValueError("CPF inválido (confira os dígitos verificadores)")
        return number
    if kind == "cnpj":
        number = digits(raw)
        if not CNPJ().validate(number):
            raise ValueError("CNPJ inválido (confira os dígitos verificadores)")
        return number
    if kind == "cpf_cnpj":
        number = digits(raw)
        if len(number) == 11 and CPF().validate(number) or len(number) == 14 and CNPJ().validate(number):
            return number
        raise ValueError("CPF ou CNPJ inválido")
    if kind == "plate":
        plate = re.sub(r"[^A-Za-z0-9]", "", str(raw)).upper()
        if not brutils.is_valid_license_plate(plate):
            raise ValueError("placa inválida; use AAA-9999 ou o padrão Mercosul AAA9A99")
        return plate
    if kind == "renavam":
        number = digits(raw).zfill(11)
        if not brutils.is_valid_renavam(number):
            raise ValueError("RENAVAM inválido (11 dígitos com dígito verificador)")
        return number
    if kind == "email":
        if not EMAIL.match(str(raw)):
            raise ValueError("e-mail inválido")
        return str(raw).lower()
    if kind == "phone":
        number = digits(raw)
        if len(number) not in (10, 11):
            raise ValueError("telefone inválido; informe DDD e número")
        return number
    if kind == "file":  # a file comes with its bytes through services.shared.record_files, never typed
        raise ValueError("envie o arquivo (PDF, JPEG ou PNG) pelo formulário do registro")
    raise ValueError(f"tipo de campo desconhecido: {kind}")


def _plain_text(kind: str, text: str) -> str:
    """Typed text without control characters (NUL included; a long text keeps its line breaks and tabs)."""
    kept = "\n\t" if kind == "textarea" else ""
    clean = "".join(ch for ch in text if ch in kept or unicodedata.category(ch) != "Cc").strip()
    if len(clean) > TEXT_MAX[kind]:
        raise ValueError(f"texto longo demais (máximo {TEXT_MAX[kind]} caracteres)")
    return clean


def show(kind: str, value: Any, choices: tuple[tuple[str, str], ...] = ()) -> str:
    """The value as a Brazilian user reads it."""
    if value is None or value == "":
        return ""
    if kind == "money":
        return fmt.brl(Decimal(value))
    if kind == "date":
        return fmt.day(parse_date_input(value))
    if kind == "bool":
        return "Sim" if value else "Não"
    if kind == "choice":
        return dict(choices).get(value, str(value))
    if kind == "cpf":
        return fmt.cpf(value)
    if kind == "cnpj":
        return fmt.cnpj(value)
    if kind == "cpf_cnpj":
        return fmt.cpf(value) if len(str(value)) == 11 else fmt.cnpj(value)
    if kind == "plate":
        plate = str(value)
        return f"{plate[:3]}-{plate[3:]}" if plate[4].isdigit() else plate
    if kind == "phone":
        number = str(value)
        return f"({number[:2]}) {number[2:-4]}-{number[-4:]}"
    if kind == "file" and isinstance(value, dict):  # a kept file: its name and size
        return f"{value.get('name')} ({file_size(int(value.get('size') or 0))})"
    return str(value)


def file_size(size: int) -> str:
    """A file's size as people read it: "820 bytes", "12,5 KB", "1,2 MB"."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{fmt.number(Decimal(size) / 1024, 1)} KB"
    return f"{fmt.number(Decimal(size) / (1024 * 1024), 1)} MB"


def search_form(kind: str, text: str) -> str:
    """How a search term is matched against stored values (CPF typed with dots, plate with dash). A
    term with letters is no number: a plate "PSG-9X98" never matches the CPFs holding "998"."""
    if kind in ("cpf", "cnpj", "cpf_cnpj", "renavam", "phone") and digits(text) \
            and not any(ch.isalpha() for ch in text):
        return digits(text)
    if kind == "plate":
        return re.sub(r"[^A-Za-z0-9]", "", text).upper()
    return text


def identifier_of(label: str) -> str:
    """An identifier made from a label ("Data da concessão" → ``data_da_concessao``)."""
    plain = unicodedata.normalize("NFKD", str(label).strip().lower()).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "_", plain).strip("_")[:40].strip("_")
    return slug if not slug[:1].isdigit() else f"c_{slug}"[:40]
