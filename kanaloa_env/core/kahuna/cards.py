"""Multisets of island cards as "count words": two bits per island.

The two cards of an island are identical (K1.4), so a hand, the face-up discards,
a player's face-down discards and the `known` memory (K6.7) are multisets of
islands with at most 2 copies each. A count word is a uint32 holding island x's
count (0..2) in bits 2x and 2x+1, so adding a card is `+ ONE[x]`, removing one is
`- ONE[x]`, and the sum of disjoint multisets is their `+` (no field passes 3,
since each island has only 2 cards). `FULL` is all 24 cards.

`count_of` and `num_cards` read a count word in compiled code (an int64 there); the
array functions serve Python code (scenarios, views, the invariant checker, tests).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..kernels import small_kernel
from .constants import CARDS_PER_ISLAND, ISLAND_NAMES, NUM_ISLANDS

COUNT_BITS = 2
ONE = np.array([1 << (COUNT_BITS * x) for x in range(NUM_ISLANDS)], dtype=np.uint32)
ONE.flags.writeable = False
LOW = np.uint32(sum(1 << (COUNT_BITS * x) for x in range(NUM_ISLANDS)))  # 0x555555
HIGH = np.uint32(LOW << np.uint32(1))  # 0xAAAAAA
FULL = int(CARDS_PER_ISLAND * LOW)  # two cards of every island: the whole deck
_SHIFTS = (COUNT_BITS * np.arange(NUM_ISLANDS)).astype(np.uint32)
_THREE = np.uint32(3)


@small_kernel
def count_of(word, x):  # type: ignore[no-untyped-def]
    """The cards of island x in the count word `word` (an int64)."""
    return (word >> (COUNT_BITS * x)) & 3


@small_kernel
def num_cards(word):  # type: ignore[no-untyped-def]
    """The number of cards in the count word `word` (an int64): its 2-bit counts
    summed in pairs, then in fours, then all."""
    w = (word & 0x333333) + ((word >> 2) & 0x333333)
    w = (w & 0x0F0F0F) + ((w >> 4) & 0x0F0F0F)
    return (w + (w >> 8) + (w >> 16)) & 0xFF


@small_kernel
def list_cards(word, listed):  # type: ignore[no-untyped-def]
    """Write the cards of the count word `word` (an int64) into `listed` (int64, 24 or
    more) by island, each as often as it is held (canonical order, as `islands_of`);
    return how many there are."""
    n = 0
    for x in range(NUM_ISLANDS):
        k = count_of(word, x)
        if k >= 1:
            listed[n] = x
            n += 1
        if k >= 2:
            listed[n] = x
            n += 1
    return n


def size(words: np.ndarray) -> np.ndarray:
    """Number of cards in each count word (same shape, uint8).
    `words` is and `order` work arrays of the shuffle."""
    return np.bitwise_count(words & LOW) + (np.bitwise_count(words & HIGH) << np.uint8(1))


def counts(words: np.ndarray) -> np.ndarray:
    """(..., 12) uint32: the count of every island in each word of shape (...).
    `words` is and `order` work arrays of the shuffle."""
    return (np.asarray(words, dtype=np.uint32)[..., None] >> _SHIFTS) & _THREE


def from_counts(counts_: np.ndarray) -> np.ndarray:
    """The count words of `counts_`, (..., 12) counts in 0..3 (shape (...), uint32)."""
    c = np.asarray(counts_).astype(np.uint32)
    return np.bitwise_or.reduce(c << _SHIFTS, axis=-1).astype(np.uint32)


def contains(big: np.ndarray, small: np.ndarray) -> np.ndarray:
    """Whether each multiset `small` is a sub-multiset of `big` (island by island)."""
    return np.asarray((counts(small) <= counts(big)).all(axis=-1))


def word_of(islands: Iterable[int]) -> int:
    """The count word of `islands`, a sequence of island indices (a Python int)."""
    w = 0
    for x in islands:
        w += 1 << (COUNT_BITS * int(x))
    return w


def islands_of(word: int) -> list[int]:
    """The islands of a count word in canonical order, each as often as it is held."""
    w = int(word)
    return [x for x in range(NUM_ISLANDS) for _ in range((w >> (COUNT_BITS * x)) & 3)]


def names_of(word: int) -> list[str]:
    """`islands_of(word)` as island names."""
    return [ISLAND_NAMES[x] for x in islands_of(word)]
