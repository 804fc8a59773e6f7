"""Random legal games on the GPU and CPU engines side by side, finished games restarted
from the same keys, agree after every step (`device_checks.differential`; on a GPU
the session script runs it over >= 1M decisions a game)."""

from __future__ import annotations

from typing import Any

import device_checks
import pytest


@pytest.mark.parametrize(
    ("game", "options"),
    device_checks.DIFFERENTIAL_CASES,
    ids=[f"{g}-{i}" for i, (g, _) in enumerate(device_checks.DIFFERENTIAL_CASES)],
)
def test_gpu_and_cpu_play_the_same_random_games(game: str, options: dict[str, Any]) -> None:
    got = device_checks.differential(game, 4, 800, seed=11, **dict(options))
    assert got["match"], got["first_difference"]
    assert got["decisions"] >= 800 and got["games_finished"] >= 1


@pytest.mark.parametrize(
    ("game", "options"),
    device_checks.HEURISTIC_CASES,
    ids=[f"{g}-{i}" for i, (g, _) in enumerate(device_checks.HEURISTIC_CASES)],
)
def test_the_device_heuristic_agrees_with_the_cpu_bot_in_every_position(
    game: str, options: dict[str, Any]
) -> None:
    got = device_checks.heuristic_agreement(game, 6, 180, seed=3, **dict(options))
    assert got["positions"] >= 180 and got["agreed"] == got["positions"], got["first_split"]
    assert got["ok"]
