"""What a change of a register's definition does to its stored records, and the fix that keeps them.

Adding a field, renaming a label or adding a choice touch no record. Four changes would leave stored
records invalid, so they apply only with a fix given by TI: a new required field (a default for the
records without a value), a type change (old value → new value for the values the new type does not
read; the others are converted), removing a choice in use (old choice → new choice), and making a
field unique over duplicates (a new value for each repeated record but the first). :func:`breaking`
lists them — how many records, which — and :func:`apply` writes the fixed records inside the caller's
unit of work, each with its own audit entry, or refuses when a fix is missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pymongo.database import Database

from services.shared import audit, clock
from services.shared.definition_spec import to_spec
from services.shared.errors import ValidationFailed
from services.shared.schema import EntitySpec, Field
from services.store import decode, encode

NOT_REMOVED = {"removed": {"$exists": False}}
DEFAULT = "*"  # the key of a default in a field's fixes
SAMPLE = 20  # records named in a preview


@dataclass(frozen=True)
class Breaking:
    field: str
    label: str
    reason: str  # pt-BR
    count: int
    records: tuple[tuple[str, str], ...]  # (id, title) of the first SAMPLE records touched
    asks: str  # "default" | "mapping" | "per_record"
    values: tuple[str, ...] = ()  # the old values to map (mapping), as stored
    choices: tuple[tuple[str, str], ...] = ()  # the new field's choices, when a mapping must end in one
    old_labels: tuple[tuple[str, str], ...] = ()  # the old values' labels, when they were choices

    @property
    def shown(self) -> dict[str, str]:
        return dict(self.old_labels)


def breaking(db: Database, before: dict[str, Any], after: dict[str, Any]) -> list[Breaking]:
    """The changes that would break stored records, with none of them fixed yet."""
    return _plan(db, before, after, {})[1]


def apply(db: Database, actor: Any, before: dict[str, Any], after: dict[str, Any],
          fixes: dict[str, dict[str, str]]) -> int:
    """Write the fixed records (inside the caller's unit of work); refuse if a breaking change lacks its
    fix. Returns how many records changed."""
    updates, open_issues = _plan(db, before, after, fixes)
    if open_issues:
        raise ValidationFailed({i.field: f"{i.label}: {i.reason}" for i in open_issues})
    name = before["name"]
    now = clock.now_utc()
    for doc_id, (municipality, old, new) in updates.items():
        db[name].update_one({"_id": doc_id}, {"$set": encode({**new, "updated_at": now,
                                                                "updated_by": actor.username}),
                                                "$inc": {"version": 1}})
        audit.record(db, actor, municipality, "update", name, str(doc_id), old, new,
                     "Ajuste pela mudança do cadastro")
    return len(updates)


def reindex(db: Database, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Drop the indexes the old definition made that the new one no longer declares (a field no longer
    unique or filterable); :func:`services.shared.definitions.prepare` creates the new ones."""
    wanted = {options["name"] for _, options in to_spec(after).indexes()}
    for _, options in to_spec(before).indexes():
        if options["name"] not in wanted and options["name"] in db[before["name"]].index_information():
            db[before["name"]].drop_index(options["name"])


def _title(spec: EntitySpec, doc: dict) -> str:
    title = spec.title_of(doc)
    return str(doc["_id"]) if title is None else title or "(sem valor)"


def _plan(db: Database, before: dict[str, Any], after: dict[str, Any], fixes: dict[str, dict[str, str]]
          ) -> tuple[dict[Any, tuple[str, dict, dict]], list[Breaking]]:
    old_spec, new_spec = to_spec(before), to_spec(after)
    old_fields = {f.name: f for f in old_spec.fields}
    records = [decode(d) for d in db[before["name"]].find(NOT_REMOVED).sort("created_at", 1)]
    updates: dict[Any, tuple[str, dict, dict]] = {}
    issues: list[Breaking] = []

    def put(doc: dict, name: str, value: Any) -> None:
        municipality, old, new = updates.setdefault(doc["_id"], (doc["municipality"], {}, {}))
        old[name], new[name] = doc.get(name), value

    for f in new_spec.fields:
        was = old_fields.get(f.name)
        fix = fixes.get(f.name) or {}
        touched: list[dict] = []
        unmapped: dict[str, None] = {}
        for doc in records:
            value = doc.get(f.name)
            if value is None or value == "":
                if f.required and (was is None or not was.required):
                    if DEFAULT in fix:
                        put(doc, f.name, _parse(f, fix[DEFAULT]))
                    else:
                        touched.append(doc)
                continue
            if was is None or _same_type(was, f) and not f.choices:
                continue
            new_value = _converted(f, was, value, fix)
            if new_value is _UNREADABLE:
                touched.append(doc)
                unmapped[str(value)] = None
            elif encode(new_value) != encode(value):
                put(doc, f.name, new_value)
        if touched:
            issues.append(_issue(old_spec, f, was, touched, tuple(unmapped)))
    issues.extend(_duplicates(old_spec, new_spec, records, updates, fixes, put))
    return updates, issues


_UNREADABLE = object()


def _same_type(was: Field, now: Field) -> bool:
    return was.kind == now.kind and was.refers_to == now.refers_to


def _parse(f: Field, raw: Any) -> Any:
    try:
        return f.clean(raw)
    except ValueError as exc:
        raise ValidationFailed({f.name: f"{f.label}: o valor padrão “{raw}” não vale: {exc}."}) from None


def _converted(f: Field, was: Field, value: Any, fix: dict[str, str]) -> Any:
    """The stored value under the new field: mapped by TI, else read by the new type, else unreadable."""
    if str(value) in fix:
        return _parse(f, fix[str(value)])
    if was.kind == "file" and f.kind != "file":  # a kept file is no text, number or date
        return _UNREADABLE
    if _same_type(was, f) and f.kind == "choice" and str(value) not in {v for v, _ in f.choices}:
        return _UNREADABLE
    try:
        return f.clean(was.show(value) if was.kind in ("money", "date") else value)
    except ValueError:
        return _UNREADABLE


def _issue(spec: EntitySpec, f: Field, was: Field | None, touched: list[dict], values: tuple[str, ...]) -> Breaking:
    sample = tuple((str(d["_id"]), _title(spec, d)) for d in touched[:SAMPLE])
    count = len(touched)
    many = f"{count} registro{'s' if count > 1 else ''}"
    if not values:
        return Breaking(f.name, f.label, f"campo novo obrigatório: {many} sem valor; informe um valor padrão.",
                        count, sample, "default", choices=f.choices)
    if was is not None and _same_type(was, f):
        return Breaking(f.name, f.label, f"opções retiradas ainda em uso em {many}; diga a nova opção de cada uma.",
                        count, sample, "mapping", values, f.choices, tuple(c for c in was.choices if c[0] in values))
    return Breaking(f.name, f.label, f"mudança de tipo: {many} com valor que o novo tipo não lê; diga o novo valor "
                    "de cada um.", count, sample, "mapping", values, f.choices)


def _duplicates(old_spec: EntitySpec, new_spec: EntitySpec, records: list[dict], updates: dict,
                fixes: dict[str, dict[str, str]], put) -> list[Breaking]:
    """A field made unique over repeated values: every repeated record but the first needs a new value."""
    issues = []
    old_fields = {f.name: f for f in old_spec.fields}
    for f in new_spec.fields:
        if not f.unique or (f.name in old_fields and old_fields[f.name].unique):
            continue
        fix = fixes.get(f.name) or {}
        seen: set[tuple[str, str]] = set()
        repeated: list[dict] = []
        for doc in records:
            pending = updates.get(doc["_id"], (None, {}, {}))[2]
            value = pending.get(f.name, doc.get(f.name))
            if str(doc["_id"]) in fix:
                value = _parse(f, fix[str(doc["_id"])])
                put(doc, f.name, value)
            key = (doc["municipality"], str(encode(value)))
            if key in seen:
                repeated.append(doc)
            seen.add(key)
        if repeated:
            count = len(repeated)
            issues.append(Breaking(
                f.name, f.label, f"o campo passa a ser único e {count} registro{'s' if count > 1 else ''} repete"
                f"{'m' if count > 1 else ''} um valor já usado; informe um novo valor para cada.",
                count, tuple((str(d["_id"]), _title(old_spec, d)) for d in repeated[:SAMPLE]), "per_record"))
    return issues
