"""The one boundary: every public service checks its arguments against its type hints (issue 20).

``@checked`` reads the function's hints once, when the module is imported, and builds one small
checker per parameter; each call then runs them (a few ``isinstance`` and ``len`` per argument, no
work per stored document). A wrong value raises ``ValidationFailed`` with a pt-BR message under the
parameter's name before the service reads or writes anything, so nothing is written and no traceback reaches a page.

What a hint means here:

- ``str``: a text, at most ``TEXT_LIMITS[kind]`` characters, the kind chosen by the parameter's name
  (``LONG_TEXTS``, ``MEDIUM_TEXTS``, otherwise short); NUL, control characters and lone surrogates
  refused (a long text keeps line breaks and tabs); ``None`` is an empty field (""). A search term
  is cut to its first 200 characters and read without control characters instead. A dict
  (``{"$ne": None}``) or list is refused, which is what stops an operator reaching a query.
- ``Decimal``: money and quantities; an ``int`` is accepted and converted, a ``float`` (binary,
  inexact) or a non-finite value refused. ``int`` and ``bool`` are exact (a bool is not an int).
- ``date`` (a ``datetime`` refused: its day hangs on a zone) / ``datetime``; ``Enum``; ``Literal`` choices.
- ``list[X]``, ``tuple[X, ...]``, ``Sequence[X]``: a list or tuple of at most ``ITEM_LIMITS`` items,
  each checked as X; fixed tuples ``tuple[X, Y]`` item by item; ``dict[K, V]`` with text keys that
  are not operators.
- a dataclass (``RequestInput``): an instance, checked field by field by the same rules.
- ``Any`` / bare ``dict``: plain data (texts, numbers, dates, lists and dicts of them, a few levels
  deep), never an operator key.

An own checker rather than pydantic's ``validate_call``: the messages are pt-BR and per field, our
types (``Decimal`` without float, frozen dataclass inputs, ``Actor`` and the store handle) pass as
they are instead of being coerced or copied, and the limits depend on what the field is.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import numbers
import re
import typing
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal
from types import NoneType, UnionType

from services.shared.errors import ValidationFailed

# Characters a field may hold: the screens send at most this; a pasted book is refused, not stored.
TEXT_LIMITS = {"short": 200, "medium": 2_000, "long": 20_000, "search": 200, "secret": 100_000}
# Passwords are kept whole and checked in full (services.shared.auth hashes any length).
SECRET_TEXTS = frozenset({"password", "new_password", "current_password"})
# How a field is named in a message, as the screens name it; others by their name made readable.
LABELS = {
    "username": "Usuário", "password": "Senha", "new_password": "Nova senha", "name": "Nome",
    "municipality": "Município", "amount": "Valor", "paid_on": "Data do pagamento", "bank": "Banco ou agente",
    "due": "Vencimento", "reason": "Motivo", "note": "Observação", "description": "Descrição",
    "search": "Busca", "driver_cpf": "CPF do condutor", "offender_name": "Nome do autuado",
    "measure_index": "Medida", "released_on": "Liberada em", "plate": "Placa", "facts": "Fatos",
    "place": "Local", "justification": "Justificativa", "stage": "Fase", "method": "Meio",
    "taxpayer_name": "Contribuinte", "taxpayer_document": "CPF/CNPJ", "taxpayer_address": "Endereço",
    "legal_basis": "Fundamentação legal", "revenue_kind": "Tipo de receita", "rows": "Linhas",
    "effective": "Vigência", "entity": "Cadastro", "collection": "Cadastro", "version": "Versão", "values": "Valores",
    "data": "Arquivo", "services": "Serviços", "charge_ids": "Débitos", "charge_id": "Débito",
    "offender_address": "Endereço do autuado", "offender_phone": "Telefone", "offender_email": "E-mail",
}
# Free texts a clerk writes in a text area (facts of an auto, justification, reasons of a decision…).
LONG_TEXTS = frozenset({
    "facts", "justification", "reasons", "reason", "summary", "note", "notes", "description", "instructions",
    "route", "text", "passengers", "property_description", "observations", "value",
})
# One-line texts that may be longer than a name: an address, a place, the act that set a value.
MEDIUM_TEXTS = frozenset({
    "place", "address", "taxpayer_address", "act", "legal_basis", "reference", "identification",
    "residence_proof", "property_proof", "environmental_licence", "prior_authorization", "evidence_reference",
    "label", "file_name", "name", "by", "authority", "trip_responsible", "inspector",
    "responsible_name", "kind", "choices", "offender_address",
})
# Search terms: trimmed to their first characters and read without control characters, as the
# register's search always did (issue 10), so a pasted megabyte costs nothing and is not an error.
SEARCH_TEXTS = frozenset({"search", "term"})
# Texts that may not be empty: the municipality a service acts in (an empty one would match no scope).
REQUIRED_TEXTS = frozenset({"municipality", "entity", "collection"})
# Items a list may hold, by parameter name (a batch of DAMs to print may be long; service lines not).
ITEM_LIMITS = {"dam_ids": 20_000, "rows": 5_000, "entries": 5_000,
               "charge_ids": 1_000,  # a list of dívida ativa exported at once (active_debt.MAX_BATCH)
               "definition": 10_000}  # a register's definition: its own check names a choice list too long
DEFAULT_ITEMS = 200
DATA_DEPTH = 4  # nesting of plain data (Any)
TRUSTED = frozenset({"db", "actor"})  # the store handle and the signed-in actor come from the app

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_LONG = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_INT_LIMIT = 10**15

Check = Callable[[str, object], object]


class _Refused(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _label(field: str) -> str:
    return LABELS.get(field) or field.replace("_", " ").capitalize()


def _number(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _text(kind: str) -> Check:
    limit = TEXT_LIMITS[kind]
    control = _CONTROL_LONG if kind == "long" else _CONTROL

    def check(field: str, value: object) -> object:
        if value is None:  # a form field left empty
            return ""
        if not isinstance(value, str):
            raise _Refused(field, f"{_label(field)}: informe um texto.")
        if kind == "search":  # a search term is not stored: read its first characters, skip control ones
            return control.sub("", value[:limit])
        if len(value) > limit:
            raise _Refused(field, f"{_label(field)}: tem {_number(len(value))} caracteres; o limite é "
                                  f"{_number(limit)}.")
        found = control.search(value)
        if found:
            char = found.group()
            name = "NUL" if char == "\x00" else "caractere de controle"
            raise _Refused(field, f"{_label(field)}: o caractere U+{ord(char):04X} não é permitido ({name}).")
        return value
    return check


def _required(check: Check) -> Check:
    """A text that names where the service acts (the municipality): never empty."""
    def wrapped(field: str, value: object) -> object:
        value = check(field, value)
        if not value:
            raise _Refused(field, f"{_label(field)}: escolha um.")
        return value
    return wrapped


def _text_kind(name: str) -> str:
    special = "secret" if name in SECRET_TEXTS else "search" if name in SEARCH_TEXTS else None
    return special or ("long" if name in LONG_TEXTS else "medium" if name in MEDIUM_TEXTS else "short")


def _of(test: Callable[[object], bool], label: str | Callable[[object], str]) -> Check:
    def check(field: str, value: object) -> object:
        if not test(value):
            raise _Refused(field, f"{_label(field)}: informe {label(value) if callable(label) else label}.")
        return value
    return check


def _integer(field: str, value: object) -> object:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Refused(field, f"{_label(field)}: informe um número inteiro.")
    if abs(value) > _INT_LIMIT:
        raise _Refused(field, f"{_label(field)}: tem um número fora do limite.")
    return value


def _decimal(field: str, value: object) -> object:
    if type(value) is int:
        value = Decimal(value)
    if not isinstance(value, Decimal) or not value.is_finite():
        raise _Refused(field, f"{_label(field)}: informe um valor decimal (por exemplo 10,50).")
    if abs(value) > _INT_LIMIT:
        raise _Refused(field, f"{_label(field)}: tem um valor fora do limite.")
    return value


def _enum(kind: type[enum.Enum]) -> Check:
    def check(field: str, value: object) -> object:
        if isinstance(value, kind):
            return value
        if isinstance(value, str | int) and not isinstance(value, bool):
            try:
                return kind(value)
            except ValueError:
                pass
        raise _Refused(field, f"{_label(field)}: tem uma opção que não existe.")
    return check


def _choices(options: tuple) -> Check:
    def check(field: str, value: object) -> object:
        if isinstance(value, dict | list) or value not in options:
            raise _Refused(field, f"{_label(field)}: tem uma opção que não existe.")
        return value
    return check


def _items(name: str, item: Check) -> Check:
    limit = ITEM_LIMITS.get(name, DEFAULT_ITEMS)

    def check(field: str, value: object) -> object:
        if not isinstance(value, list | tuple):
            raise _Refused(field, f"{_label(field)}: informe uma lista.")
        if len(value) > limit:
            raise _Refused(field, f"{_label(field)}: tem {_number(len(value))} itens; o limite é {_number(limit)}.")
        for v in value:
            item(field, v)
        return value
    return check


def _fixed(items: list[Check]) -> Check:
    def check(field: str, value: object) -> object:
        if not isinstance(value, list | tuple) or len(value) != len(items):
            raise _Refused(field, f"{_label(field)}: deve ter {len(items)} partes.")
        for c, v in zip(items, value, strict=True):
            c(field, v)
        return value
    return check


def _key(field: str, key: object) -> None:
    if not isinstance(key, str) or key.startswith("$") or len(key) > TEXT_LIMITS["short"] or _CONTROL.search(key):
        raise _Refused(field, f"{_label(field)}: tem um nome de chave inválido.")


def _mapping(name: str, value_check: Check) -> Check:
    limit = ITEM_LIMITS.get(name, DEFAULT_ITEMS)

    def check(field: str, value: object) -> object:
        if not isinstance(value, dict):
            raise _Refused(field, f"{_label(field)}: informe um conjunto de valores.")
        if len(value) > limit:
            raise _Refused(field, f"{_label(field)}: tem {_number(len(value))} itens; o limite é {_number(limit)}.")
        for k, v in value.items():
            _key(field, k)
            value_check(field, v)
        return value
    return check


def _data(name: str) -> Check:
    """Plain data where the hint says Any: scalars, and lists/dicts of them, never an operator key."""
    text = _text("long")
    limit = ITEM_LIMITS.get(name, DEFAULT_ITEMS)

    def check(field: str, value: object, depth: int = 0) -> object:
        if value is None or isinstance(value, bool | int | Decimal | date | bytes):
            if isinstance(value, Decimal) and not value.is_finite():
                raise _Refused(field, f"{_label(field)}: tem um número inválido.")
            return _integer(field, value) if type(value) is int else value  # within what the store keeps
        if isinstance(value, numbers.Number) and not isinstance(value, complex):
            return value  # a cell of a table (numpy integers, an empty cell read as NaN): plain data
        if isinstance(value, str):
            return text(field, value)
        if depth >= DATA_DEPTH or not isinstance(value, list | tuple | dict):
            raise _Refused(field, f"{_label(field)}: tem um valor que não é aceito.")
        if len(value) > limit:
            raise _Refused(field, f"{_label(field)}: tem {_number(len(value))} itens; o limite é {_number(limit)}.")
        for k in value if isinstance(value, dict) else ():
            _key(field, k)
        for v in value.values() if isinstance(value, dict) else value:
            check(field, v, depth + 1)
        return value
    return check


def _union(options: list[Check], none_ok: bool) -> Check:
    def check(field: str, value: object) -> object:
        if value is None and none_ok:
            return None
        first: _Refused | None = None
        for option in options:
            try:
                return option(field, value)
            except _Refused as refused:
                first = first or refused
        if first is None:
            raise _Refused(field, f"{_label(field)}: não aceita esse valor.")
        raise first
    return check


@functools.cache
def _dataclass(kind: type) -> Check:
    hints = typing.get_type_hints(kind)
    fields = [(f.name, _checker(f.name, hints[f.name])) for f in dataclasses.fields(kind)]

    def check(field: str, value: object) -> object:
        if not isinstance(value, kind):
            raise _Refused(field, f"{_label(field)}: não tem a forma esperada.")
        changed = {}
        for name, field_check in fields:
            given = getattr(value, name)
            kept = field_check(name, given)
            if kept is not given and (type(kept) is not type(given) or kept != given):
                changed[name] = kept
        return dataclasses.replace(value, **changed) if changed else value
    return check


def _instance(kind: type) -> Check:
    def check(field: str, value: object) -> object:
        if not isinstance(value, kind):
            raise _Refused(field, f"{_label(field)}: não tem a forma esperada.")
        return value
    return check


def _callable(field: str, value: object) -> object:
    if not callable(value):
        raise _Refused(field, f"{_label(field)}: não tem a forma esperada.")
    return value


SCALARS: dict[type, Check] = {
    bool: _of(lambda v: type(v) is bool, "sim ou não"), int: _integer, Decimal: _decimal,
    bytes: _of(lambda v: isinstance(v, bytes), "um arquivo"),
    date: _of(lambda v: isinstance(v, date) and not isinstance(v, datetime),  # a pandas Timestamp is a datetime
              lambda v: "uma data, sem hora" if isinstance(v, datetime) else "uma data"),
    datetime: _of(lambda v: isinstance(v, datetime), "uma data e hora"),
}


def _checker(name: str, hint: object) -> Check:  # one branch per kind of hint
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any or hint is object:
        return _data(name)
    if hint is dict or origin is dict and args[1] is typing.Any:
        return _mapping(name, _data(name))
    if hint is str and name in REQUIRED_TEXTS:
        return _required(_text(_text_kind(name)))
    if hint is str:
        return _text(_text_kind(name))
    if hint in SCALARS:
        return SCALARS[hint]
    if origin in (typing.Union, UnionType):
        options = [a for a in args if a is not NoneType]
        return _union([_checker(name, a) for a in options], NoneType in args)
    if origin is typing.Literal:
        return _choices(args)
    if origin is dict:
        return _mapping(name, _checker(name, args[1]))
    if origin is tuple and args and args[-1] is not Ellipsis:
        return _fixed([_checker(name, a) for a in args])
    if origin in (list, tuple, Sequence):
        return _items(name, _checker(name, args[0] if args else typing.Any))
    if hint in (list, tuple):
        return _items(name, _data(name))
    if origin is Callable or hint is Callable:
        return _callable
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(hint)
    if dataclasses.is_dataclass(hint):
        return _dataclass(hint)
    if isinstance(hint, type):
        return _instance(hint)
    raise TypeError(f"boundary: no check for the hint {hint!r} of {name!r}")


def check_value(name: str, hint: object, value: object) -> object:
    """What ``@checked`` does to a parameter, for data a service reads out of a file it was sent."""
    try:
        return _checker(name, hint)(name, value)
    except _Refused as refused:
        raise ValidationFailed({refused.field: refused.message}) from None


def checked(fn: Callable) -> Callable:
    """Check every argument of a public service against its hints before the service runs."""
    hints = typing.get_type_hints(fn)
    signature = inspect.signature(fn)
    missing = [p for p in signature.parameters if p not in TRUSTED and p not in hints]
    if missing:
        raise TypeError(f"boundary: {fn.__qualname__} has parameters without a type hint: {missing}")
    checks = {p.name: _checker(p.name, hints[p.name]) for p in signature.parameters.values() if p.name not in TRUSTED}
    keyword = next((p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)

    def by_key(key: str) -> Check:  # **changes: each key checked as the field it names (a password is long)
        return _checker(key, hints[keyword])

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        errors: dict[str, str] = {}
        for name, value in bound.arguments.items():
            check = checks.get(name)
            if check is None:
                continue
            parameter = signature.parameters[name]
            try:
                if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                    bound.arguments[name] = {k: by_key(k)(k, v) for k, v in value.items()}
                elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
                    bound.arguments[name] = tuple(check(name, v) for v in value)
                else:
                    bound.arguments[name] = check(name, value)
            except _Refused as refused:
                errors.setdefault(refused.field, refused.message)
        if errors:
            raise ValidationFailed(errors)
        return fn(*bound.args, **bound.kwargs)
    return wrapper
