"""Measure several things in turns on a machine whose speed drifts.

This project's benchmark machine is a shared VM whose speed drifts by 25% or more
within a minute. Two rates measured one after the other then mostly measure the
drift. `best_in_turns` runs every measurement in short slices, all of them taking
turns, and keeps each one's best slice, so every measurement gets the machine at
its best.
"""

from __future__ import annotations

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
