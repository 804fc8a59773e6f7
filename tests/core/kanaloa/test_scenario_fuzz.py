"""Fuzzing `from_scenario` (issue 19.2): every mutation of a valid scenario either
loads into a state that passes `check_invariants`, observes within the declared
bounds, round-trips and plays on, or is
rejected with a ValueError/TypeError that names a key.

The mutations (tests/core/kanaloa/scenario_mutations.py) start from the stored examples and
dumps of random games at 3, 4 and 5 players. The CI test runs a seeded few thousand;
the `slow` soak many more with other seeds.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from scenario_mutations import KNOWN_KEYS, mutate, valid_pool

from kanaloa_env.core.kanaloa import from_scenario, observe, step, to_scenario
from kanaloa_env.games import get_game
from kanaloa_env.testing import check_invariants

LOW, HIGH = get_game("kanaloa").observation_bounds()
_NAMED = re.compile(r"^scenario key '([^']+)'")


@pytest.fixture(scope="module")
def pool() -> list[dict[str, Any]]:
    return valid_pool()


def _root(path: str) -> str:
    """'boats[1].progress' -> 'boats'."""
    return path if path == "hands/played_this_round" else re.split(r"[\[.]", path, maxsplit=1)[0]


def check_one(sc: dict[str, Any], what: str, rng: np.random.Generator) -> bool:
    """Load one mutated scenario and check the outcome; True when it loaded."""
    try:
        state = from_scenario(sc)
    except (ValueError, TypeError) as e:
        m = _NAMED.match(str(e))
        assert m, f"{what}: the rejection names no key: {e}"
        added = {k for k in sc if k not in KNOWN_KEYS}
        assert _root(m.group(1)) in KNOWN_KEYS | added, f"{what}: names {m.group(1)!r}: {e}"
        return False
    check_invariants(state)
    for seat in range(state.num_players):  # (a boat a lap ahead once gave 833 here)
        obs = observe(state, seat=seat)[0]
        assert ((obs >= LOW) & (obs <= HIGH)).all(), f"{what}: observation out of bounds"
    dump = to_scenario(state, 0, include_key=True)
    again = from_scenario(dump)
    assert to_scenario(again, 0, include_key=True) == dump, what
    if not state.done[0]:  # and it plays on: one legal decision, still a valid state
        action = rng.choice(np.flatnonzero(state.legal[0]))
        check_invariants(step(state, np.array([action])))
    return True


def run(pool: list[dict[str, Any]], mutations: int, seed: int) -> tuple[int, int]:
    rng = np.random.default_rng(seed)
    loaded = 0
    for n in range(mutations):
        sc, what = mutate(pool[int(rng.integers(len(pool)))], rng)
        loaded += check_one(sc, f"mutation {n} (seed {seed}): {what}", rng)
    return loaded, mutations - loaded


def test_pool_is_valid_and_varied(pool: list[dict[str, Any]]) -> None:
    phases = set()
    for sc in pool:
        state = from_scenario(sc)
        check_invariants(state)
        phases.add(sc["phase"])
    assert {"announce", "play", "remove_round_end", "game_over"} <= phases
    assert {sc["num_players"] for sc in pool} == {3, 4, 5}


def test_mutated_scenarios_load_valid_or_are_rejected_naming_a_key(
    pool: list[dict[str, Any]],
) -> None:
    loaded, rejected = run(pool, mutations=2000, seed=0)
    # Both outcomes occur: the mutations reach past the type checks.
    assert loaded >= 50 and rejected >= 1000, (loaded, rejected)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 11))
def test_mutation_soak(pool: list[dict[str, Any]], seed: int) -> None:
    run(pool, mutations=5000, seed=seed)
