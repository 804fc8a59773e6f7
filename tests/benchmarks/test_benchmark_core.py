"""benchmarks/bench_core.py: its loops run and its breakdown adds up."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_core  # noqa: E402

from kanaloa_env.core.kanaloa import Config, init  # noqa: E402
from kanaloa_env.core.rng import game_keys  # noqa: E402


@pytest.mark.parametrize("threads", [1, 2])
def test_breakdown_parts_add_up_to_its_rate(threads: int) -> None:
    rate, *times = bench_core.breakdown(64, 0.2, num_players=4, threads=threads)
    assert len(times) == len(bench_core.BREAKDOWN_PARTS)
    assert rate > 0 and all(t > 0 for t in times[:3])
    # The rate is the batch over the summed parts: decisions per ms * 1000.
    assert rate * sum(times) / 1e3 == pytest.approx(64)


def test_reset_finished_deals_new_games_into_finished_ones_only() -> None:
    state = init(Config(num_players=3), 4, seed=0)
    state.terminated[1] = state.truncated[3] = True
    before = state.copy()
    assert bench_core.reset_finished(state, 10) == 12  # two new games, keys 10 and 11
    assert not (state.terminated | state.truncated).any()
    for g in (0, 2):
        assert state.take([g]) == before.take([g])
    assert state.key[[1, 3]].tolist() == game_keys(0, np.arange(10, 12)).tolist()
