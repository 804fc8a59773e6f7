"""The engines replay the recorded golden trajectories exactly (`golden.py`): every state
array, mask, observation, reward and end flag of 200 seeded games per config, belief
samples along the way and whole games between heuristic bots; and a game stepped alone
(batch 1) is the same game as in the batch."""

from __future__ import annotations

import numpy as np
import pytest
from golden import (
    BOT_CASES,
    CASES,
    Case,
    beliefs,
    bot_decisions,
    bot_games,
    path_of,
    trajectories,
)

_IDS = [c.name for c in CASES]


def _recorded(case: Case) -> dict[str, np.ndarray]:
    with np.load(path_of(case)) as data:
        return {k: data[k] for k in data.files}


def _first_difference(want: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> str:
    """Which game went another way first, and at which step when it is traced."""
    bad = np.flatnonzero(
        (want["steps"] != got["steps"]) | (want["digest"] != got["digest"]).any(axis=1)
    )
    g = int(bad[0])
    where = ""
    if g < len(want["trace"]):
        n = min(want["trace"].shape[1], got["trace"].shape[1])
        diff = np.flatnonzero(want["trace"][g, :n] != got["trace"][g, :n])
        if diff.size:
            where = f", first at step {int(diff[0])}"
    return (
        f"{len(bad)} of {len(want['steps'])} games differ; game {g} "
        f"({want['steps'][g]} steps recorded, {got['steps'][g]} now{where})"
    )


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_trajectories(case: Case) -> None:
    want = _recorded(case)
    got = trajectories(case)
    same = np.array_equal(want["steps"], got["steps"]) and np.array_equal(
        want["digest"], got["digest"]
    )
    assert same, _first_difference(want, got)


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_one_game_at_a_time(case: Case) -> None:
    """Game g stepped in a batch of one replays game g of the recorded batch."""
    want = _recorded(case)
    for g in (0, 7, 123):
        got = trajectories(case, games=1, first=g)
        assert got["steps"][0] == want["steps"][g], g
        assert np.array_equal(got["digest"][0], want["digest"][g]), g


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_beliefs(case: Case) -> None:
    assert np.array_equal(beliefs(case), _recorded(case)["beliefs"])


@pytest.mark.parametrize("name", sorted(BOT_CASES))
def test_bot_games(name: str) -> None:
    case = next(c for c in CASES if c.name == name)
    assert np.array_equal(bot_games(case, BOT_CASES[name]), _recorded(case)["bots"])


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_heuristic_decisions(case: Case) -> None:
    assert np.array_equal(bot_decisions(case, "heuristic"), _recorded(case)["heuristic"])
