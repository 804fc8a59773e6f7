"""Multisets of island cards as "count words": two bits per island.

The two cards of an island are identical (K1.4), so a hand, the face-up discards,
a player's face-down discards and the `known` memory (K6.7) are multisets of
islands with at most 2 copies each. A count word is a uint32 holding island x's
count (0..2) in bits 2x and 2x+1, so adding a card is `+ ONE[x]`, removing one is
`- ONE[x]`, and the sum of disjoint multisets is their `+` (no field passes 3,
since each island has only 2 cards). `FULL` is all 24 cards.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .constants import CARDS_PER_ISLAND, ISLAND_NAMES, NUM_ISLANDS

COUNT_BITS = 2
ONE = np.array([1 << (COUNT_BITS * x) for x in range(NUM_ISLANDS)], dtype=np.uint32)
ONE.flags.writeable = False
LOW = np.uint32(sum(1 << (COUNT_BITS * x) for x in range(NUM_ISLANDS)))  # 0x555555
HIGH = np.uint32(LOW << np.uint32(1))  # 0xAAAAAA
FULL = int(CARDS_PER_ISLAND * LOW)  # two cards of every island: the whole deck
_SHIFTS = (COUNT_BITS * np.arange(NUM_ISLANDS)).astype(np.uint32)
_ONE_BIT = np.uint32(1)
_THREE = np.uint32(3)


def size(words: np.ndarray) -> np.ndarray:
    """Number of cards in each count word (same shape, uint8)."""
    return np.bitwise_count(words & LOW) + (np.bitwise_count(words & HIGH) << np.uint8(1))


def present(words: np.ndarray) -> np.ndarray:
    """Bit 2x set where island x has at least one card (same shape, uint32)."""
    return (words | (words >> _ONE_BIT)) & LOW


def counts(words: np.ndarray) -> np.ndarray:
    """(..., 12) uint32: the count of every island in each word of shape (...)."""
    return (np.asarray(words, dtype=np.uint32)[..., None] >> _SHIFTS) & _THREE


def from_counts(counts_: np.ndarray) -> np.ndarray:
    """The count words of (..., 12) counts in 0..3 (shape (...), uint32)."""
    c = np.asarray(counts_).astype(np.uint32)
    return np.bitwise_or.reduce(c << _SHIFTS, axis=-1).astype(np.uint32)


def contains(big: np.ndarray, small: np.ndarray) -> np.ndarray:
    """Whether each multiset `small` is a sub-multiset of `big` (island by island)."""
    return np.asarray((counts(small) <= counts(big)).all(axis=-1))


def word_of(islands: Iterable[int]) -> int:
    """The count word of a sequence of island indices (a Python int)."""
    w = 0
    for x in islands:
        w += 1 << (COUNT_BITS * int(x))
    return w


def islands_of(word: int) -> list[int]:
    """The islands of a count word in canonical order, each as often as it is held."""
    w = int(word)
    return [x for x in range(NUM_ISLANDS) for _ in range((w >> (COUNT_BITS * x)) & 3)]


def names_of(word: int) -> list[str]:
    """`islands_of` as island names."""
    return [ISLAND_NAMES[x] for x in islands_of(word)]
