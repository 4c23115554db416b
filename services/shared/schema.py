"""The vocabulary of the low-code registers: a field, an entity spec, the registry of specs, and the
plain data a listing asks for and answers.

A spec lists its fields (kind, pt-BR label, required, choices, list column, filter, search) and its
indexes; ``services.shared.specs`` declares one per collection and adds it to :data:`SPECS` through
:func:`register`. This module imports no service: the specs, the generic services of
``services.shared.entities`` and the audit register all read it from below.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.shared import clock, fields, list_counts

LABEL_MAX = 80  # a label's length in a definition (register, field, state)


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    in_list: bool = True
    filterable: bool = False
    searchable: bool = False
    unique: bool = False  # unique per municipality; only for required fields (a missing value is null)
    help: str = ""
    not_future: bool = False  # a date of something already done (issued, filed, decided, inspected)
    max_years_ahead: int | None = None  # a year at most this many years after today's (the model year)
    refers_to: tuple[str, str] | None = None  # (collection, key field): the value must name a registered record
    # (parameter, key): a choice among the ``key`` of the entries of a dated list parameter in force
    # today (a requester's zone among the municipality's zones), resolved by entities.spec_for
    choices_from: tuple[str, str] | None = None
    # False for a value only a service writes (a defined register's state, moved by its flow): the
    # list, the filters and the exports show it; the form, the import and the validation skip it
    in_form: bool = True

    def parse(self, raw: Any) -> Any:
        return fields.parse(self.kind, raw, self.choices)

    def clean(self, raw: Any) -> Any:
        """The parsed value, refused when it is later than today (Cuiabá) allows."""
        value = self.parse(raw)
        if self.not_future:
            fields.not_after_today(value, clock.today())
        if self.max_years_ahead is not None:
            fields.year_at_most(value, clock.today().year + self.max_years_ahead)
        return value

    def show(self, value: Any) -> str:
        return fields.show(self.kind, value, self.choices)


@dataclass(frozen=True)
class EntryOf:
    """Fields whose values together must be one entry of a dated list parameter in force today: a
    requester's zone and locality are a pair of the municipality's list (Decreto 017/2026, art. 3,
    §1), not any zone beside any locality. ``message`` is formatted with the fields' values and shown
    under the last field (``entities.check_entries``)."""
    parameter: str
    fields: tuple[str, ...]
    message: str


@dataclass(frozen=True)
class State:
    """A state of a defined register's status flow; a deadline (business days) to leave it."""
    value: str
    label: str
    deadline_days: int | None = None


@dataclass(frozen=True)
class Transition:
    """An allowed move of a status flow, the button's label and the roles that may make it."""
    source: str
    target: str
    label: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Flow:
    """A simple status flow of a defined register (issue 24 item 4): a new record starts in the first state."""
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]

    @property
    def initial(self) -> str:
        return self.states[0].value

    def state(self, value: str | None) -> State | None:
        return next((s for s in self.states if s.value == value), None)

    def label(self, value: str | None) -> str:
        found = self.state(value)
        return found.label if found else (value or "—")

    def moves(self, source: str | None, role: str | None = None) -> tuple[Transition, ...]:
        """The moves out of ``source`` (those ``role`` may make, when given)."""
        return tuple(t for t in self.transitions if t.source == source and (role is None or role in t.roles))


@dataclass(frozen=True)
class EntitySpec:
    name: str
    label: str
    label_plural: str
    fields: tuple[Field, ...]
    module: str | None = None
    default_sort: str = "created_at"
    title_field: str = ""
    removable: bool = False  # a record entered by mistake can be removed (kept as removed, with who and why)
    feminine: bool = False  # the label's gender, for "Nova vistoria", "Plataforma salva"
    # A register defined by municipal IT (services.shared.definitions) names who reads and writes it and
    # which municipalities have it; None (a coded register) leaves it to the role's permission.
    read_roles: tuple[str, ...] | None = None
    write_roles: tuple[str, ...] | None = None
    municipalities: tuple[str, ...] | None = None
    defined: bool = False
    flow: Flow | None = None  # a defined register's status flow (its state is the field ``state``)
    entry_of: EntryOf | None = None  # fields that together are one entry of a list parameter in force

    def grants(self, role: str, permission: str, municipality: str) -> bool:
        """Whether the definition lets ``role`` read or write its records in ``municipality``."""
        if self.municipalities is not None and municipality not in self.municipalities:
            return False
        roles = self.write_roles if permission == "write" else self.read_roles
        if permission == "read" and roles is not None and self.write_roles is not None:
            roles = tuple(roles) + tuple(self.write_roles)  # who writes a register also reads it
        return roles is None or role in roles

    @property
    def new_label(self) -> str:
        return f"{'Nova' if self.feminine else 'Novo'} {self.label.lower()}"

    @property
    def saved(self) -> str:
        return "salva" if self.feminine else "salvo"

    def agreed(self, participle: str) -> str:
        """A masculine participle in the label's gender: "removido" → "removida" for a vistoria."""
        return participle[:-1] + "a" if self.feminine and participle.endswith("o") else participle

    def title_of(self, doc: dict) -> str | None:
        """A record's title as shown (its title field, else its first field): "" when empty, None when
        the title field is no longer one of the register's fields."""
        key = self.title_field or self.fields[0].name
        try:
            return self.field(key).show(doc.get(key)) or ""
        except KeyError:
            return None

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def list_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.in_list)

    def indexes(self) -> list[tuple[list[tuple[str, int]], dict]]:
        """Unique fields are unique per municipality; searchable and filter fields are indexed; the
        list's default order has its index, so its first page is read from it, not sorted from every
        record (Contribuintes by name took 4× longer at 60.000 taxpayers than at 6.000)."""
        result = [([("municipality", 1), ("created_at", 1)], {"name": f"i_{self.name}_created"})]
        if self.default_sort != "created_at":
            result.append(([("municipality", 1), (self.default_sort, 1), ("_id", 1)],
                           {"name": f"i_{self.name}_by_{self.default_sort}"}))
        for f in self.fields:
            if f.unique:
                result.append(([("municipality", 1), (f.name, 1)], {"unique": True, "name": f"u_{self.name}_{f.name}"}))
            elif f.filterable:
                result.append(([("municipality", 1), (f.name, 1)], {"name": f"i_{self.name}_{f.name}"}))
        return result


# Every spec of the product by name. It is complete once ``services.shared.specs`` is imported, which
# ``services.shared.entities`` (and so every service above it) does at the top.
SPECS: dict[str, EntitySpec] = {}


def register(spec: EntitySpec) -> EntitySpec:
    SPECS[spec.name] = spec
    return spec


@dataclass(frozen=True)
class ListQuery:
    search: str = ""
    filters: dict[str, Any] = field(default_factory=dict)
    sort: str | None = None
    descending: bool = False
    page: int = 1
    per_page: int = 25


@dataclass(frozen=True)
class Page:
    rows: list[dict]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return list_counts.pages(self.total, self.per_page)
