"""Every public service against bad input (issue 20, deliverable 9): wrong types, huge strings, NUL, operator
dicts and nested junk in any one argument give a pt-BR refusal (a ``ServiceError``) or a normal answer —
never another exception — and nothing is written when the call is refused.

The other arguments are the permission matrix's placeholders, and the actor may do what the service needs
in the municipality it names, so a refusal comes from the input, not from the permission check."""
from __future__ import annotations

import inspect

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.base import RuleError
from services.shared.auth import Actor
from services.shared.errors import ServiceError
from tests.test_permission_matrix import OWN, REQUIRED, call_args, digest, public_services

SERVICES = sorted(public_services().items())
JUNK = st.sampled_from([
    {"$ne": None}, {"$where": "sleep(1000)"}, ["0" * 24], [{"$gt": ""}], "a\x00b", "\x1b[2J", "x" * 1_000_001,
    1.5, float("nan"), -(10 ** 30), True, object(), b"\x00" * 10, {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}},
    None, "", "٣", "ｓｅｃｒｅｔａｒｉａ",
])


def actor_for(name: str) -> Actor:
    role = "ti" if REQUIRED.get(name) == "admin" else "secretaria"
    return Actor(f"{role}.cg", f"Perfil {role}", role, (OWN,))


def junk_targets(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.name not in ("db", "actor") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


CASES = [(name, fn, target) for name, fn in SERVICES for target in junk_targets(fn)]


def test_bad_input_in_any_argument_is_refused_in_portuguese_and_writes_nothing(db):
    # the store's digest taken after the last call, kept only when that call was refused and wrote nothing
    # (nothing else writes between two examples): the next example's "before" without reading it all again
    unchanged: list[str] = []

    @settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
    @given(st.sampled_from(CASES), JUNK)
    def call(case, junk):
        name, fn, target = case
        args, kwargs = call_args(fn, db, actor_for(name), OWN)
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        bound.arguments[target] = junk
        before = unchanged.pop() if unchanged else digest(db)
        try:
            fn(*bound.args, **bound.kwargs)
        except (ServiceError, RuleError) as refused:
            message = getattr(refused, "message", str(refused))
            assert message, name
            after = digest(db)
            assert after == before, f"{name}({target}={junk!r:.40}) wrote before refusing"
            unchanged.append(after)

    call()
