"""Belief sampling (determinization) for Kahuna: full states that agree with what one
player knows (K12).

A player sees its own hand and face-down discards, the board, the face-up row, the
face-up discards, the pile's size, the opponent's hand size and number of
face-down discards, and the opponent cards it remembers (`known`, K6.7). It does
not see the rest of the opponent's hand, the islands of the opponent's face-down
discards, the pile's order, or the key that fixes the later reshuffles (K7.3).
`determinize(state, seats, n, rng)` fills in that hidden part: it returns `n`
complete states per game in which the hidden cards are dealt uniformly at random
among all placements consistent with what `seats` knows, and the key is fresh.
The search bot (`kanaloa_env.games.kahuna.search`) plays on from such samples.

**What is consistent.** The *hidden* cards are the 24 (K1.4) less the seat's hand,
the seat's face-down discards, the face-up row, the face-up discards and the
opponent's remembered cards. A placement is consistent when the opponent's hand
gets exactly as many of them as it holds beyond `known`, the opponent's face-down
discards exactly their number, and the pile exactly its size; the order of the
pile counts, the order inside a hand or the discards does not. `known` is a lower
bound on the opponent's hand and nothing else the rules reveal constrains the
hidden cards, so every such placement is possible. The two cards of an island
are told apart, as in a shuffled deck, so a placement of *islands* comes with the
probability of the number of ways the physical cards make it.

**How.** One uniformly random order of the hidden cards per sample (the argsort
of 64-bit hashes, `rng.draws`): the first cards complete the opponent's hand, the
next are its face-down discards, the rest are the pile. Every order is equally
likely, so every consistent placement of the physical cards is. No rejection:
the cost does not depend on the position.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine import Sampler
from ..kernels import argsort_small, kernel, run_batch, small_kernel
from ..rng import draw_one, mix64_one, round_base
from . import cards
from .cards import list_cards
from .constants import NO_CARD, NUM_CARDS, NUM_ISLANDS, ROW_SLOTS
from .masks import refresh_game
from .state import State

__all__ = ["determinize", "determinize_from_keys", "hidden_cards", "hidden_counts"]

# Independent hash streams per sample (the `round` argument of `rng.draws`).
_STREAM_ORDER, _STREAM_KEY = 1, 3
_PAD = NUM_ISLANDS  # sorts after every island: the unused places of a sample's list
_SORT_SHIFT = np.uint64(59)  # pad or not in the top bits of a sort key, hash below
_HASH_SHIFT = np.uint64(5)


def _seen(state: State, seat: np.ndarray) -> np.ndarray:
    """(B, 12) int64 cards of each island that `seat` sees or remembers."""
    B = state.batch_size
    r = np.arange(B)
    q = 1 - seat
    # Counted per word: a bad state's sum of words could carry into the next island.
    seen = np.zeros((B, NUM_ISLANDS), dtype=np.int64)
    for w in (
        state.hands[r, seat],
        state.discard_down[r, seat],
        state.discard_up,
        state.known[r, q],
    ):
        seen += cards.counts(w).astype(np.int64)
    for s in range(ROW_SLOTS):
        x = state.face_up[:, s].astype(np.intp)
        np.add.at(seen, (r[x >= 0], x[x >= 0]), 1)
    return seen


def hidden_counts(state: State, seats: np.ndarray | Sequence[int] | int) -> np.ndarray:
    """(B, 3) int64: per game, how many hidden cards the opponent's hand holds beyond
    `known`, how many face-down discards it has, and the pile's size (what a sample
    fills, in that order).

    Works on the real state (the opponent's hand and discards are counted, not read)
    and on the public view for `seats` (`hidden_hand`, `hidden_down`).
    """
    seat = _check_seats(state, seats)
    return _hidden_counts(state, seat)


def _hidden_counts(state: State, seat: np.ndarray) -> np.ndarray:
    r = np.arange(state.batch_size)
    q = 1 - seat
    extra = (
        cards.size(state.hands[r, q]).astype(np.int64)
        + state.hidden_hand[r, q]
        - cards.size(state.known[r, q]).astype(np.int64)
    )
    down = cards.size(state.discard_down[r, q]).astype(np.int64) + state.hidden_down[r, q]
    return np.stack([extra, down, state.pile_size.astype(np.int64)], axis=1)


def hidden_cards(state: State, seats: np.ndarray | Sequence[int] | int) -> np.ndarray:
    """(B, 12) int64: per game, the cards of each island `seats` can neither see nor
    remember (in the opponent's hand beyond `known`, its face-down discards, or the
    pile).

    Raises:
        TypeError, ValueError: bad `seats`, or a state in which the seat sees more
            than two cards of an island.
    """
    seat = _check_seats(state, seats)
    seen = _seen(state, seat)
    bad = np.flatnonzero((seen > 2).any(axis=1))
    if bad.size:
        raise ValueError(
            f"game {int(bad[0])}: seat {int(seat[bad[0]])} sees more than 2 cards of an island "
            "(K1.4; not a Kahuna position)"
        )
    return 2 - seen


# ---- checks ----------------------------------------------------------------------


def _prepare(state: State, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B, 12) hidden cards per island and (B, 3) places to fill, checked to agree."""
    r = np.arange(state.batch_size)
    bad = np.flatnonzero((state.hidden_hand[r, seat] != 0) | (state.hidden_down[r, seat] != 0))
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"game {g}: the state hides seat {int(seat[g])}'s own cards (a public view made for "
            "the other seat); pass the real state or public_view(state, seats)"
        )
    q = 1 - seat
    bad = np.flatnonzero(~cards.contains(state.hands[r, q], state.known[r, q]))
    if bad.size:
        raise ValueError(
            f"game {int(bad[0])}: the opponent's remembered cards (known) are not in its hand "
            "(K6.7; not a Kahuna position)"
        )
    hidden = hidden_cards(state, seat)
    places = _hidden_counts(state, seat)
    bad = np.flatnonzero(hidden.sum(axis=1) != places.sum(axis=1))
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"game {g}: {int(hidden[g].sum())} cards are hidden from seat {int(seat[g])}, but "
            f"the opponent's unknown hand cards, its face-down discards and the pile make "
            f"{places[g].tolist()} (K1.4: every island has 2 cards; not a Kahuna position)"
        )
    return hidden, places


# ---- sampling --------------------------------------------------------------------


def _sample(state: State, seat: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> State:
    B = state.batch_size
    hidden, places = _prepare(state, seat)
    game = np.repeat(np.arange(B), counts)
    index = np.arange(len(game)) - np.repeat(np.cumsum(counts) - counts, counts)
    out = state.take(game)
    run_batch(
        _deal_range,
        len(game),
        1,
        out.config.rules,
        out.kernel_arrays(),
        game.astype(np.int64),
        index.astype(np.int64),
        seat.astype(np.int64),
        keys,
        cards.from_counts(hidden).astype(np.int64),
        places.astype(np.int64),
    )
    return out


@kernel
def _deal_range(c, s, game, index, seat, keys, hidden, places, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(NUM_CARDS, dtype=np.uint64)  # work arrays of a sample's order
    order = np.empty(NUM_CARDS, dtype=np.int64)
    listed = np.empty(NUM_CARDS, dtype=np.int64)
    for r in range(lo, hi):
        i = game[r]
        key = mix64_one(keys[i] ^ mix64_one(np.uint64(index[r])))
        deal_sample(c, s, r, seat[i], key, hidden[i], places[i], words, order, listed)


@small_kernel
def deal_sample(c, s, g, seat, key, hidden, places, words, order, listed):  # type: ignore[no-untyped-def]
    """Deal game g's hidden cards (`hidden`, a count word) anew for a sample with
    `key`: a uniformly random order of them (pads last), whose first `places[0]`
    cards complete the opponent's hand beyond `known`, the next `places[1]` are its
    face-down discards and the next `places[2]` the pile (top first); the key is
    fresh, the public-view counters 0, the mask recomputed. `words` (uint64),
    `order` and `listed` (int64) are work arrays of 24."""
    # The hidden cards listed by island, padded to 24 with `_PAD`.
    n = list_cards(hidden, listed)
    for j in range(n, NUM_CARDS):
        listed[j] = _PAD
    # A uniformly random order of the real cards (pads last): sort by (is pad, hash).
    # Two equal 59-bit hashes (odds ~2**-50) would only fix those two cards' order by
    # their places in the list; the result is still the same for the same key.
    base = round_base(key, np.int64(_STREAM_ORDER))
    for j in range(NUM_CARDS):
        pad = np.uint64(1) if j >= n else np.uint64(0)
        words[j] = (pad << _SORT_SHIFT) | (draw_one(base, j) >> _HASH_SHIFT)
    argsort_small(words, np.int64(NUM_CARDS), order)
    q = 1 - seat
    extra = places[0]
    down = places[1]
    pile = places[2]
    hand = np.int64(s.known[g, q])
    down_word = 0
    for j in range(extra + down):
        x = listed[order[j]]
        if j < extra:
            hand += 1 << (2 * x)
        else:
            down_word += 1 << (2 * x)
    s.hands[g, q] = hand
    s.discard_down[g, q] = down_word
    start = extra + down
    for k in range(s.pile.shape[1]):
        s.pile[g, k] = listed[order[start + k]] if k < pile else NO_CARD
    for p in range(2):
        s.hidden_hand[g, p] = 0
        s.hidden_down[g, p] = 0
    s.key[g] = draw_one(round_base(key, np.int64(_STREAM_KEY)), np.int64(0))
    refresh_game(c, s, g)


_SAMPLER = Sampler(State, _sample)
determinize = _SAMPLER.determinize
determinize_from_keys = _SAMPLER.determinize_from_keys
_check_seats = _SAMPLER.seats
