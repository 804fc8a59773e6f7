"""Majorities on the board (K5.1): bridge counts per island and the islands held."""

from __future__ import annotations

import numpy as np

from .constants import LINES_AT, MAJORITY, NUM_ISLANDS

_ISLAND_BITS = (1 << np.arange(NUM_ISLANDS)).astype(np.uint16)


def island_counts(bridges: np.ndarray) -> np.ndarray:
    """(..., 12) uint8: the number of bridges of each line set (...) at every island."""
    return np.bitwise_count(np.asarray(bridges, dtype=np.uint32)[..., None] & LINES_AT)


def held_islands(bridges: np.ndarray) -> np.ndarray:
    """Island bit sets (same shape, uint16): the islands where each line set (...)
    occupies at least the majority threshold of lines (K5.1)."""
    held = island_counts(bridges) >= MAJORITY
    return (held @ _ISLAND_BITS).astype(np.uint16)


def flat(x: np.ndarray) -> np.ndarray:
    """A 1-d view of a C-contiguous array, to assign on flat indices; raises
    AttributeError instead of silently writing into a copy."""
    if not x.flags.c_contiguous:
        raise AttributeError("flat needs a C-contiguous array (it would copy)")
    return x.ravel()
