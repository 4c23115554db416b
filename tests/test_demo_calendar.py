"""The demo store is made on whatever day a newcomer runs ``make run``, and the test suite makes it on
the day CI runs. Its scenario of today and its histories count back from that day, so the stories it
tells must hold on every day of the year:

- in January, Chapada's authorizations paid the year before ended on 31 December (Decreto 06/2026,
  art. 9 §1); the scenario's "in force" ones were renewed in time (art. 9 §2), so they are still in
  force, the renewal asked today finds one to renew, and the stories are the same as in July. Before,
  ``python -m seed --demo`` stopped from 1 January to 10 April on "Ação não cabe a uma autorização na
  situação 'Vencida'";
- on 1 July 2027 Nova Lacerda's history booked a truck on a day the scenario of today had already
  booked it, and the demo stopped on the schedule's conflict.

Each case makes the demo in a child process whose clock reads that day (the two years of revenue and
ride-hailing history are left out: they do not touch these stories and take most of the time).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SET_TEST_BCRYPT_ROUNDS

MADE_ON = """
import json
from collections import Counter
from datetime import datetime, timezone
from services.shared import clock
day = datetime.fromisoformat({moment!r}).replace(tzinfo=clock.LOCAL_TZ)
shift, real = day - datetime.now(timezone.utc), clock.now_utc
clock.now_utc = lambda: real() + shift
from seed import demo, revenue_history, ridehailing_history
revenue_history.seed_revenue_history = ridehailing_history.seed_ridehailing_history = lambda *args: None
from services.ridehailing import registry
from services.store import connect
db = connect()
demo.seed_demo(db)
today = clock.today()
stories = {{}}
for code in ("chapada", "matupa"):
    scope = registry.Scope(db, code)
    stories[code] = Counter(scope.state(doc, today).status.value
                            for doc in db["authorizations"].find({{"municipality": code}}))
stories["bookings"] = db["machinery_bookings"].count_documents({{"municipality": "nova_lacerda"}})
print(json.dumps(stories, sort_keys=True))
"""


def made_on(moment: str, folder) -> dict:
    env = {**os.environ, "PAINEL_DATA_DIR": str(folder)}
    env.pop("MONGODB_URI", None)
    done = subprocess.run([sys.executable, "-c", SET_TEST_BCRYPT_ROUNDS + MADE_ON.format(moment=moment)],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def july(tmp_path_factory):
    """The demo made on an ordinary day (1 July 2027, the day its bookings' history used to collide)."""
    return made_on("2027-07-01T10:00", tmp_path_factory.mktemp("july"))


def test_the_demo_made_in_july_holds_every_booking_of_its_history_and_scenario(july):
    assert july["bookings"] > 0


@pytest.mark.parametrize("moment", ["2027-01-04T10:00"])
def test_the_demo_made_early_in_the_year_tells_the_same_ride_hailing_stories_as_in_july(july, moment, tmp_path):
    early = made_on(moment, tmp_path)
    assert early["chapada"] == july["chapada"]  # art. 9 §1-2: renewed in time, still in force
    assert early["matupa"] == july["matupa"]
    assert july["chapada"]["active"] >= 8 and july["matupa"]["expired"] == 1
