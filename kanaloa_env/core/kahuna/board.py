"""Majorities on the board (K1.3, K5.1): bridge counts per island and the islands held.

`bridge_counts`, `bridges_at` and `held` are the kernels (a line set is an int64
there); the step, the mask and the observation use them. `island_counts` and
`held_islands` run them over arrays of line sets for Python callers (scenarios,
bots, descriptions).
"""

from __future__ import annotations

import numpy as np

from ..kernels import kernel, small_kernel
from .constants import LINES, LINES_AT, MAJORITY, NUM_ISLANDS, NUM_LINES

COUNT_BITS = 3  # bits per island in `bridge_counts` (a degree is at most 6, K1.3)
_LINES_AT = LINES_AT.astype(np.int64)
_MAJORITY = MAJORITY.astype(np.int64)
# Per line: 1 in the count of each of its two ends.
_ENDS = np.array([(1 << (COUNT_BITS * a)) + (1 << (COUNT_BITS * b)) for a, b in LINES], np.int64)


@small_kernel
def bridge_counts(lines):  # type: ignore[no-untyped-def]
    """K1.3: the number of lines of the line set `lines` at every island, packed:
    island x's count is `(counts >> 3x) & 7`."""
    counts = 0
    for line in range(NUM_LINES):
        counts += ((lines >> line) & 1) * _ENDS[line]
    return counts


@small_kernel
def bridges_at(lines, x):  # type: ignore[no-untyped-def]
    """K1.3: how many lines of the line set `lines` end at island x (the bits of
    `lines & LINES_AT[x]` counted without branches: in pairs, fours, then bytes)."""
    v = lines & _LINES_AT[x]
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return ((v * 0x01010101) & 0xFFFFFFFF) >> 24


@kernel
def held(lines):  # type: ignore[no-untyped-def]
    """K5.1: the island set where the line set `lines` occupies at least the majority
    threshold of lines."""
    counts = bridge_counts(lines)
    out = 0
    for x in range(NUM_ISLANDS):
        if (counts >> (COUNT_BITS * x)) & 7 >= _MAJORITY[x]:
            out |= 1 << x
    return out


@kernel
def _board_of(lines, counts, held_sets):  # type: ignore[no-untyped-def]
    for i in range(len(lines)):
        b = np.int64(lines[i])
        packed = bridge_counts(b)
        for x in range(NUM_ISLANDS):
            counts[i, x] = (packed >> (COUNT_BITS * x)) & 7
        held_sets[i] = held(b)


def _board(bridges: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    b = np.asarray(bridges, dtype=np.uint32)
    flat = np.ascontiguousarray(b).reshape(-1)
    counts = np.empty((len(flat), NUM_ISLANDS), dtype=np.uint8)
    held_sets = np.empty(len(flat), dtype=np.uint16)
    _board_of(flat, counts, held_sets)
    return counts, held_sets, b.shape


def island_counts(bridges: np.ndarray) -> np.ndarray:
    """(..., 12) uint8: the number of bridges of each line set (...) at every island."""
    counts, _, shape = _board(bridges)
    return counts.reshape(*shape, NUM_ISLANDS)


def held_islands(bridges: np.ndarray) -> np.ndarray:
    """Island bit sets (same shape, uint16): the islands where each line set of `bridges`
    (...) occupies at least the majority threshold of lines (K5.1)."""
    _, held_sets, shape = _board(bridges)
    return held_sets.reshape(shape)
