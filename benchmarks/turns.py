"""Measure several things in turns on a machine whose speed drifts.

This project's benchmark machine is a shared VM whose speed drifts by 25% or more
within a minute. Two rates measured one after the other then mostly measure the
drift. `best_in_turns` runs every measurement in short slices, all of them taking
turns, and keeps each one's best slice, so every measurement gets the machine at
its best.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


def best_in_turns(
    measurements: Sequence[Callable[[float], tuple[float, ...]]], seconds: float, rounds: int
) -> list[tuple[float, ...]]:
    """Run each `measure(slice_seconds) -> (rate, ...)` `rounds` times, in turns.

    Returns, per measurement, the result of its slice with the highest rate (the
    first element). A measurement that returns an empty tuple (nothing to measure,
    e.g. a reference that is not installed) gives an empty tuple.
    """
    if rounds < 1 or seconds <= 0:
        raise ValueError(f"need rounds >= 1 and seconds > 0, got {rounds} and {seconds}")
    best: list[tuple[float, ...]] = [() for _ in measurements]
    for _ in range(rounds):
        for i, measure in enumerate(measurements):
            got = measure(seconds / rounds)
            if got and (not best[i] or got[0] > best[i][0]):
                best[i] = got
    return best


def add_turn_options(parser: argparse.ArgumentParser, per: str) -> None:
    """`--seconds` and `--rounds` for `best_in_turns`, each measurement being one `per`
    (row, env, ...); argparse rejects values `best_in_turns` would."""
    # (a parser whose formatter adds the defaults itself gets no second mention)
    shows_defaults = issubclass(parser.formatter_class, argparse.ArgumentDefaultsHelpFormatter)
    default = "" if shows_defaults else " (default 3)"
    parser.add_argument(
        "--seconds",
        type=_positive(float),
        default=3.0,
        help=f"seconds per {per}, all rounds{default}",
    )
    parser.add_argument(
        "--rounds",
        type=_positive(int),
        default=3,
        help=f"slices per {per}, taken in turns; each keeps its best slice{default}",
    )


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse
