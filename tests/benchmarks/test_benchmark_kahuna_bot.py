"""benchmarks/bench_kahuna_bot.py: its decision timing plays games to the end, its arena runs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_kahuna_bot  # noqa: E402


def test_time_decisions_counts_every_decision_of_whole_games() -> None:
    decisions, seconds = bench_kahuna_bot.time_decisions(4, seed=1)
    assert seconds > 0
    # Every game has at least one decision per turn, and a game lasts dozens of turns.
    assert decisions > 4 * 20


def test_arena_rate_is_positive() -> None:
    assert bench_kahuna_bot.arena_rate("random", 4) > 0
