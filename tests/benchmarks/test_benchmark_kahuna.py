"""benchmarks/bench_kahuna.py: its loops run, its breakdown adds up, its reference runs."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_kahuna  # noqa: E402

from kanaloa_env.core.kahuna import Config, init  # noqa: E402
from kanaloa_env.core.rng import game_keys  # noqa: E402


@pytest.mark.parametrize("with_obs", [False, True])
def test_bench_kahuna_measures_a_positive_rate(with_obs: bool) -> None:
    assert bench_kahuna.bench_kahuna(16, 0.05, with_obs) > 0


def test_breakdown_parts_add_up_to_its_rate() -> None:
    rate, *times = bench_kahuna.breakdown(32, 0.2)
    assert len(times) == len(bench_kahuna.BREAKDOWN_PARTS)
    assert rate > 0 and all(t > 0 for t in times[:3])
    assert rate * sum(times) / 1e3 == pytest.approx(32)


def test_reset_finished_starts_new_games_in_finished_ones_only() -> None:
    state = init(Config(), 4, seed=0)
    state.terminated[1] = state.truncated[3] = True
    before = state.copy()
    assert bench_kahuna.reset_finished(state, 10) == 12
    assert not (state.terminated | state.truncated).any()
    for g in (0, 2):
        assert state.take([g]) == before.take([g])
    assert state.key[[1, 3]].tolist() == game_keys(0, np.arange(10, 12)).tolist()


def test_the_reference_runs() -> None:
    # OpenSpiel is in the dev extra, so this runs wherever the suite does.
    got = bench_kahuna.bench_dots_and_boxes(0.05)
    assert got is not None and got[0] > 0
