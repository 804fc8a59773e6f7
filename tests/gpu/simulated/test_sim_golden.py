"""The GPU engines replay the golden trajectories exactly (`tests/golden`): every state
array, mask, observation of every seat, reward and end flag of the first recorded
games of every case, and a game far into a recorded batch played alone."""

from __future__ import annotations

import device_checks
import golden
import pytest

_IDS = [c.name for c in golden.CASES]


@pytest.mark.parametrize("case", golden.CASES, ids=_IDS)
def test_the_first_golden_games_replay_on_the_gpu_engine(case: golden.Case) -> None:
    (got,) = device_checks.golden_replay(2, names=[case.name])
    assert got["match"], got
    assert got["games"] == 2 and got["steps"] > 100


@pytest.mark.parametrize("name", ["kanaloa_p5_chain_deck", "kahuna_unplayable_12"])
def test_game_123_alone_replays_game_123_of_the_recorded_batch(name: str) -> None:
    (got,) = device_checks.golden_replay(1, first=123, names=[name])
    assert got["match"], got
