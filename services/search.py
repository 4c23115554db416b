"""One box, every register: what a clerk types (CPF/CNPJ, plate, protocol, authorization, auto or DAM
number, name) found in every municipality the user acts in, grouped by kind.

Each kind is searched by the search its own list already runs (the same fields, the same escaping),
at most ``PER_KIND`` + 1 rows per kind and municipality: the number of queries depends on the
kinds and the user's municipalities, never on the size of the registers.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules import fmt
from services.dam import dams
from services.dam.lists import DamQuery
from services.dam.lists import list_page as dam_page
from services.machinery import booking_requests
from services.ridehailing import authorization_lists
from services.ridehailing.enforcement import autos
from services.ridehailing.enforcement.lists import list_autos
from services.shared import entity_lists, fields, municipalities, schema
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.definition_spec import COLLECTION as DEFINITIONS
from services.shared.definition_spec import to_spec
from services.shared.schema import EntitySpec
from services.store import decode

PER_KIND = 5
RELATED = 20  # of each kind on a person's or a vehicle's page
MIN_TERM = 2  # characters: one letter would list half of every register


@dataclass(frozen=True)
class Hit:
    municipality: str  # code
    title: str
    detail: str
    record_id: str


@dataclass(frozen=True)
class Group:
    kind: str  # the collection its records live in (the page that opens them: ui.navigation)
    label: str
    hits: tuple[Hit, ...]
    more: bool  # some municipality had more than PER_KIND: the kind's own list shows them all
    defined: bool = False  # a register defined by municipal IT (its page is the one of every such register)


Found = tuple[list[Hit], bool]  # the hits shown, and whether there were more
Finder = Callable[[Database, Actor, str, str, date, int], Found]


def _entity(name: str, key: str, detail: str = "") -> Finder:
    def found(db: Database, actor: Actor, code: str, term: str, on: date, limit: int) -> Found:
        spec = schema.SPECS[name]
        rows = entity_lists.lookup(db, actor, name, code, term, limit=limit + 1)
        shown = spec.field(key)
        hits = [Hit(code, str(r.get(spec.title_field) or ""),
                    str(r.get(detail) or "") if detail else f"{shown.label} {shown.show(r.get(key))}", r["id"])
                for r in rows]
        return hits[:limit], len(hits) > limit
    return found


def _authorizations(db: Database, actor: Actor, code: str, term: str, on: date, limit: int) -> Found:
    listing = authorization_lists.authorization_page(db, actor, code, on, term, per_page=limit)
    plate = schema.SPECS["vehicles"].field("plate").show
    hits = [Hit(code, f"Protocolo {r.protocol}" + (f" · autorização nº {r.number}" if r.number else ""),
                f"{r.driver_name} · placa {plate(r.plate)} · {r.state.label}", r.id) for r in listing.rows]
    return hits, listing.total > limit


def _autos(db: Database, actor: Actor, code: str, term: str, on: date, limit: int) -> Found:
    rows = list_autos(db, actor, code, term, limit=limit + 1)
    hits = [Hit(code, f"Auto nº {r.number}" if r.number else "Auto em rascunho",
                f"{r.offender_name} · {r.infraction_code} · {autos.STAGES.get(r.stage, r.stage)}", r.id) for r in rows]
    return hits[:limit], len(hits) > limit


def _dams(db: Database, actor: Actor, code: str, term: str, on: date, limit: int) -> Found:
    page = dam_page(db, actor, code, DamQuery(search=term, per_page=limit))
    hits = [Hit(code, f"DAM nº {d['number']}",
                f"{d['taxpayer_name']} · {fmt.brl(d['amount'])} · vencimento {fmt.day(d['due_on'])} · "
                f"{dams.SITUATIONS.get(d['situation'], d['situation'])}", d["id"]) for d in page.rows]
    return hits, page.total > limit


def _bookings(db: Database, actor: Actor, code: str, term: str, on: date, limit: int) -> Found:
    rows = booking_requests.list_requests(db, actor, code, search=term, limit=limit + 1)
    hits = [Hit(code, f"Pedido {r['protocol']}", f"{r['requester']['name']} · {r['services_text']} · "
                f"{r['status_label']}", r["id"]) for r in rows]
    return hits[:limit], len(hits) > limit


# (collection, label, module the municipality must run or None, finder), in the order shown
KINDS = (
    ("drivers", "Condutores", "transporte", _entity("drivers", "cpf")),
    ("vehicles", "Veículos", "transporte", _entity("vehicles", "plate", "model")),
    ("authorizations", "Autorizações", "transporte", _authorizations),
    ("autos", "Autos de infração", "transporte", _autos),
    ("platforms", "Plataformas", "transporte", _entity("platforms", "cnpj")),
    ("machinery_requesters", "Solicitantes", "maquinas", _entity("machinery_requesters", "document")),
    ("booking_requests", "Pedidos de serviço", "maquinas", _bookings),
    ("taxpayers", "Contribuintes", None, _entity("taxpayers", "document")),
    ("dams", "DAMs", None, _dams),
)


def clean(term: str) -> str:
    """The term as searched: control characters dropped, trimmed (the lists cap its length)."""
    return "".join(ch for ch in str(term or "") if ch.isprintable()).strip()


@checked
def search(db: Database, actor: Actor, term: str, on: date) -> list[Group]:
    """The records matching ``term`` in every municipality the user may read, grouped by kind (kinds
    with no match left out); nothing for a term shorter than ``MIN_TERM``."""
    authorize(actor, "read")
    term = clean(term)
    if len(fields.search_form("text", term)) < MIN_TERM:
        return []
    places = municipalities.of_actor(db, actor)
    return _groups(db, actor, places, term, on, PER_KIND) + _defined_groups(db, actor, places, term, PER_KIND)


@checked
def related(db: Database, actor: Actor, municipality: str, key: str, exclude_id: str, on: date) -> list[Group]:
    """What refers to a person or a vehicle (its CPF/CNPJ or plate) in ``municipality``: its
    vehicles, authorizations, autos, requests and DAMs, at most ``RELATED`` of each kind, the
    record itself left out — what its own page lists, each opening on its page."""
    authorize(actor, "read", municipality)
    place = municipalities.get(db, municipality)
    groups = _groups(db, actor, [place], clean(key), on, RELATED, exclude_id)
    return groups


def _groups(db: Database, actor: Actor, places: list, term: str, on: date, limit: int,
            exclude_id: str = "") -> list[Group]:
    groups = []
    for kind, label, module, finder in KINDS:
        hits: list[Hit] = []
        more = False
        for place in places:
            if module is None or module in place.modules:
                found, beyond = finder(db, actor, place.code, term, on, limit)
                hits.extend(h for h in found if h.record_id != exclude_id)
                more = more or beyond
        if hits:
            groups.append(Group(kind, label, tuple(hits), more))
    return groups


DETAILS = 3  # fields of a defined register's record beside its title


def _defined_groups(db: Database, actor: Actor, places: list, term: str, limit: int) -> list[Group]:
    """The registers defined by municipal IT that the actor reads in ``places``, each searched by its
    searchable fields: the definitions in one query, then one query per register and municipality (at
    most ``limit`` + 1 rows), never one per record."""
    codes = [place.code for place in places]
    groups = []
    for doc in db[DEFINITIONS].find({"active": True, "municipalities": {"$in": codes}}).sort("label_plural", 1):
        spec = to_spec({**decode(doc), "defined": True})
        hits: list[Hit] = []
        more = False
        for code in codes:
            if spec.grants(actor.role, "read", code):
                rows = entity_lists.searched(db, spec, code, term, limit + 1)
                hits.extend(_defined_hit(spec, code, row) for row in rows[:limit])
                more = more or len(rows) > limit
        if hits:
            groups.append(Group(spec.name, spec.label_plural, tuple(hits), more, defined=True))
    return groups


def _defined_hit(spec: EntitySpec, code: str, row: dict) -> Hit:
    """A record as its list shows it: its title, then its searchable and listed fields with a value."""
    title_name = spec.title_field or spec.fields[0].name
    shown = [f for f in spec.fields if f.name != title_name and row.get(f.name) not in (None, "")
             and (f.searchable or f.in_list)]
    shown.sort(key=lambda f: not f.searchable)  # what matched the term first
    detail = " · ".join(f"{f.label} {f.show(row[f.name])}" for f in shown[:DETAILS])
    return Hit(code, spec.title_of(row) or "(sem título)", detail, row["id"])
