"""Shared test set-up: import paths, hypothesis profiles, configs and a read-only guard.

`tests/` is put on `sys.path` so test modules anywhere below it can
`import reference` (the scalar rules reference) whether or not the test folders
are packages. Hypothesis runs without deadlines (no timed assertions, CPU is
shared) and derandomised, so CI is reproducible; `HYPOTHESIS_PROFILE=soak` runs
many more examples.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from kanaloa_env.core.kanaloa import Config, State
from kanaloa_env.games import register_game

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

register_game("kuhn", "kuhn:GAME")  # a third game from outside the package: tests/kuhn/

# The RLlib tests need ray[rllib], whose gymnasium pin keeps it out of the main test
# environment: where ray is missing they are not collected here, and
# integrations/test_rllib_venv.py runs them in an environment of their own.
collect_ignore = (
    [
        "integrations/test_rllib_doc.py",
        "integrations/test_rllib_env.py",
        "integrations/test_train_rllib.py",
    ]
    if importlib.util.find_spec("ray") is None
    else []
)

settings.register_profile(
    "default",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "soak",
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every table size with and without the "announce no tricks" variant.
CONFIGS = [Config(num_players=p, nil_announcement=v) for p in (3, 4, 5) for v in (False, True)]


@pytest.fixture(
    params=CONFIGS, ids=lambda c: f"P{c.num_players}{'-nil' if c.nil_announcement else ''}"
)
def any_config(request: pytest.FixtureRequest) -> Config:
    """Each of 3/4/5 players, with and without the announce variant."""
    return request.param


def freeze(state: State) -> State:
    """Mark every array of `state` read-only, so any write into it raises."""
    for arr in state.arrays().values():
        arr.flags.writeable = False
    return state


@pytest.fixture
def read_only() -> Callable[[State], State]:
    """`read_only(state)` freezes a state's arrays (pure functions must not write inputs)."""
    return freeze
