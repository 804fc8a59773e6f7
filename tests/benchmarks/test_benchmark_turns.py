"""benchmarks/turns.py: measurements take turns and keep their best slice."""

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from turns import add_turn_options, best_in_turns  # noqa: E402


def test_measurements_take_turns_and_keep_their_best_slice() -> None:
    calls: list[tuple[str, float]] = []
    rates = {"a": iter([3.0, 5.0, 4.0]), "b": iter([7.0, 1.0, 2.0])}

    def measure(name: str):
        def run(seconds: float) -> tuple[float, ...]:
            calls.append((name, seconds))
            rate = next(rates[name])
            return rate, rate * 10

        return run

    best = best_in_turns([measure("a"), measure("b"), lambda s: ()], seconds=1.5, rounds=3)
    assert best == [(5.0, 50.0), (7.0, 70.0), ()]  # whole result of the best slice
    assert calls == [("a", 0.5), ("b", 0.5)] * 3  # in turns, each slice seconds / rounds


@pytest.mark.parametrize(("seconds", "rounds"), [(1.0, 0), (0.0, 3)])
def test_bad_rounds_or_seconds_raise(seconds: float, rounds: int) -> None:
    with pytest.raises(ValueError, match="need rounds >= 1 and seconds > 0"):
        best_in_turns([lambda s: (1.0,)], seconds, rounds)


def test_turn_options_parse_positive_values_and_reject_the_rest() -> None:
    parser = argparse.ArgumentParser()
    add_turn_options(parser, "row")
    args = parser.parse_args([])
    assert (args.seconds, args.rounds) == (3.0, 3)
    args = parser.parse_args(["--seconds", "0.5", "--rounds", "4"])
    assert (args.seconds, args.rounds) == (0.5, 4)
    for bad in (["--rounds", "0"], ["--seconds", "0"], ["--seconds", "-1"], ["--rounds", "1.5"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
    assert "seconds per row" in parser.format_help()
