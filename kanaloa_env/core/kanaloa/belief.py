"""Belief sampling (determinization): full states that agree with what one seat knows.

A player at the table sees its own hand and everything public: the cards played
this round (and so every player's hand size), the suits a player showed it lacks
(`voids`, R4.3), announcements, tricks won, the route and the boats. It does not
see the other hands, the cards left out of the deal (53 - 8P each round, R3.1), or
the key that fixes the next deals. `determinize(state, seats, n, rng)` fills in
that hidden part: it returns `n` complete states per game in which the other
players' hands are a uniformly random deal among all deals consistent with what
`seats` knows, and the key is fresh. Search bots (perfect-information Monte
Carlo, information-set MCTS) simulate from such samples; belief models can be
checked against them. docs/belief.md shows both uses.

**What is consistent.** Every card neither in the seat's hand nor played this
round is *hidden*: it is in another player's hand or out of the deal. A deal of
the hidden cards is consistent when every other player gets exactly its hand size
(`hand_sizes`) and no player gets a Tiki card of a suit it is void in (Kanaloa and
octopus cards have no suit, R4.2, so voids never exclude them). Nothing else the
rules reveal constrains the hands. The copies of a Kanaloa or octopus card are
told apart, as in a shuffled deck, so a deal of card *types* comes with the
probability of the number of ways the physical cards can make it (two hidden
Kanaloa cards go one to each of two players twice as often as both to one).

**Exactly uniform, by counting.** The sampler is exact sequential sampling:
cards are grouped by which players may hold them (one group per pattern of
voids: at most four groups of Tiki suits plus one group that anyone may hold),
players with the same voids are merged (their union is split uniformly
afterwards), and players without voids join the cards left out of the deal (the
remainder, split uniformly). A dynamic program counts, with Python's exact
integers, the deals that complete each partial choice of how many cards of each
group go to each voided player; those counts are drawn group by group with
probability proportional to the number of deals they leave (exact integer draws,
`random.Random.randrange`); the cards inside each group are then dealt in a
uniformly random order (64-bit hashes, see `rng`). Each consistent deal thus has
exactly the same probability. Rejection sampling (deal uniformly, keep consistent
deals) would be exact as well and is fast on most positions, but its cost grows
with the inverse of its acceptance rate, which several voids late in a round
push down (a few positions in a thousand accept fewer than 1% of the deals,
benchmarks/HISTORY.md). The counting sampler's cost does not depend on how unlikely the voids make a
deal, and a search bot needs every decision's samples on time.
"""

from __future__ import annotations

import itertools
import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..engine import Sampler
from ..kernels import argsort_small, call, kernel
from ..rng import draw_one, mix64, round_base
from . import masks
from .constants import (
    DECK_SIZE,
    HAND_SIZE,
    KANALOA_BITS,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    OCTOPUS_BITS,
    SUIT_BITS,
    TIKI_BITS,
)
from .state import State

__all__ = [
    "count_deals",
    "determinize",
    "determinize_from_keys",
    "hand_sizes",
    "hidden_cards",
]

_ALL_BITS = TIKI_BITS | KANALOA_BITS | OCTOPUS_BITS
_CARD_BITS = np.left_shift(np.uint64(1), np.arange(DECK_SIZE, dtype=np.uint64))
# Suit of each physical card (bit): 0..3, or 4 for a Kanaloa or octopus copy.
_BIT_SUIT = np.array([c // 12 for c in range(48)] + [NUM_SUITS] * 5, dtype=np.int64)
_MAX_GROUPS = NUM_SUITS + 1  # at most four restricted Tiki groups and the open group
_MAX_CLASSES = NUM_SUITS  # voided classes: distinct void sets of at most four opponents
_POOL = _MAX_CLASSES  # the class of hidden cards no voided player gets
_NONE = _MAX_CLASSES + 1  # not a hidden card
_SORT_SHIFT = np.uint64(58)  # group or class in the top bits of a sort key, hash below
# Independent hash streams per sample (the `round` argument of `rng.draws`).
_STREAM_GROUP_ORDER, _STREAM_CLASS_ORDER, _STREAM_KEY = 1, 2, 3
_FACTORIAL = [math.factorial(k) for k in range(DECK_SIZE + 1)]


def hand_sizes(state: State) -> np.ndarray:
    """(B, P) int64: the number of cards each player holds, from public information.

    Every player starts the round with 8 cards (R3.1) and plays one per completed
    trick; the cards of the current trick (`num_played - P * trick_number`) came
    from its leader and the seats after it in turn order.
    `state` is the batch of games.
    """
    P = state.num_players
    done = state.trick_number.astype(np.int64)
    in_trick = state.num_played.astype(np.int64) - done * P
    rel = (np.arange(P)[None, :] - state.leader.astype(np.int64)[:, None]) % P
    return HAND_SIZE - done[:, None] - (rel < in_trick[:, None])


def hidden_cards(state: State, seats: np.ndarray | int) -> np.ndarray:
    """(B,) uint64: the physical cards `seats` cannot see (not in its hand, not played).

    Tiki cards are their own bits. Of the Kanaloa (octopus) copies, as many as are
    neither held by the seat nor played are hidden; they are given the highest copy
    bits the seat does not hold (which copy a player holds never matters: a play
    removes the lowest copy it holds, `played` records copies from the lowest up).
    `state` is the batch of games.
    """
    B = state.batch_size
    seat = _check_seats(state, seats)
    own = state.hands[np.arange(B), seat]
    played = state.played
    hidden = TIKI_BITS & ~own & ~played
    for bits, copies in ((KANALOA_BITS, NUM_KANALOA), (OCTOPUS_BITS, NUM_OCTOPUS)):
        free = bits & ~own
        held = np.bitwise_count(own & bits).astype(np.int64)
        count = copies - held - np.bitwise_count(played & bits).astype(np.int64)
        # Drop the lowest free bits until `count` remain (at most 3 rounds).
        extra = np.bitwise_count(free).astype(np.int64) - count
        for _ in range(max(NUM_KANALOA, NUM_OCTOPUS)):
            drop = extra > 0
            free = np.where(drop, free & (free - np.uint64(1)), free)
            extra -= drop
        hidden |= np.where(count > 0, free, np.uint64(0))
    return hidden


def count_deals(state: State, seats: np.ndarray | Sequence[int] | int) -> list[int]:
    """Per game, the exact number of deals of the hidden cards consistent with what
    `seats` knows (`determinize` draws each of them with the same probability).

    A deal gives every other player its hand and leaves the rest out of the deal;
    physical cards are told apart, the cards out of the deal are a set. Without
    voids this is `H! / (prod h_p! * (53 - 8P)!)` for `H` hidden cards; every void
    shrinks it; 0 when the voids allow no deal at all. Python ints (they exceed
    2**64).

    Raises:
        TypeError, ValueError: as `determinize` (but voids that allow no deal give 0).
    `state` is the batch of games.
    """
    seat = _check_seats(state, seats)
    sizes, hidden, _, suit_count, voids = _prepare(state, seat)
    out = []
    for g in range(state.batch_size):
        lay = _layout(sizes[g], voids[g], int(seat[g]), suit_count[g])
        total = lay.counter.ways(0, lay.caps)
        for members, cap in zip(lay.classes, lay.caps, strict=True):
            total *= _multinomial(cap, [int(sizes[g, p]) for p in members])
        pool = int(np.bitwise_count(hidden[g])) - sum(lay.caps)
        total *= _multinomial(pool, [int(sizes[g, p]) for p in lay.pool])
        out.append(total)
    return out


def _multinomial(total: int, parts: list[int]) -> int:
    """total! / (prod parts! * (total - sum parts)!)."""
    out = _FACTORIAL[total] // _FACTORIAL[total - sum(parts)]
    for k in parts:
        out //= _FACTORIAL[k]
    return out


# ---- counting the deals ----------------------------------------------------------


class _DealCounter:
    """Counts and draws how many cards of each restricted group each voided class gets.

    `groups` holds, per restricted group, (mask of the classes allowed to hold its
    cards, number of its cards); `open_size` is the number of cards every class may
    hold; a class's capacity is its players' total hand size. `ways(j, r)` is the
    number of ways to give the classes, from groups j.. and the open group, exactly
    `r` more cards each (the rest going to the pool of unvoided players and cards
    out of the deal); the pool's own arrangements are the same for every choice and
    are not counted.
    """

    def __init__(self, groups: tuple[tuple[int, int], ...], open_size: int) -> None:
        self.groups = groups
        self.open_size = open_size
        self._ways: dict[tuple[int, tuple[int, ...]], int] = {}
        self._choices: dict[
            tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]
        ] = {}

    def ways(self, j: int, r: tuple[int, ...]) -> int:
        if j == len(self.groups):
            left = self.open_size - sum(r)
            if left < 0:
                return 0
            out = _FACTORIAL[self.open_size] // _FACTORIAL[left]
            for k in r:
                out //= _FACTORIAL[k]
            return out
        key = (j, r)
        if key not in self._ways:
            cum = self.choices(j, r)[1]
            self._ways[key] = cum[-1] if cum else 0
        return self._ways[key]

    def choices(self, j: int, r: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """The possible counts of group j per class given capacities `r`, and their
        cumulative numbers of completing deals."""
        key = (j, r)
        if key in self._choices:
            return self._choices[key]
        allowed, size = self.groups[j]
        ranges = [
            range(min(cap, size) + 1) if allowed >> v & 1 else range(1) for v, cap in enumerate(r)
        ]
        options: list[tuple[int, ...]] = []
        cum: list[int] = []
        total = 0
        for take in itertools.product(*ranges):
            used = sum(take)
            if used > size:
                continue
            rest = tuple(a - t for a, t in zip(r, take, strict=True))
            w = self.ways(j + 1, rest)
            if w == 0:
                continue
            # Which cards of the group: size! / (prod take! (size - used)!).
            w *= _FACTORIAL[size] // _FACTORIAL[size - used]
            for t in take:
                w //= _FACTORIAL[t]
            total += w
            options.append(take)
            cum.append(total)
        self._choices[key] = (options, cum)
        return options, cum

    def draw(self, caps: tuple[int, ...], rnd: random.Random) -> list[tuple[int, ...]]:
        """Per group (the restricted ones, then the open one), the cards each class
        gets, drawn with probability proportional to the deals they leave."""
        out = []
        r = caps
        for j in range(len(self.groups)):
            options, cum = self.choices(j, r)
            take = options[bisect_right(cum, rnd.randrange(cum[-1]))]
            out.append(take)
            r = tuple(a - t for a, t in zip(r, take, strict=True))
        out.append(r)  # the open group fills what is left
        return out


@dataclass(frozen=True)
class _Layout:
    """One game's hidden cards as the sampler sees them.

    `classes`: the voided players, grouped by equal void sets (each a list of
    seats); `caps`: each class's total hand size; `pool`: the other players with
    cards (no voids), who share the cards no class gets with the cards out of the
    deal. `group_of_suit` (5,): the group of each suit's hidden cards (the
    specials, index 4, are in the open group, the last); `group_sizes`: hidden
    cards per group; `counter` counts the deals of the restricted groups.
    """

    classes: list[list[int]]
    caps: tuple[int, ...]
    pool: list[int]
    group_of_suit: np.ndarray
    group_sizes: list[int]
    counter: _DealCounter


def _layout(sizes: np.ndarray, voids: np.ndarray, me: int, suit_count: np.ndarray) -> _Layout:
    """The `_Layout` of one game from its (P,) hand sizes and voids, the seat `me` and
    the (5,) hidden cards per suit (specials last)."""
    by_voids: dict[int, list[int]] = {}
    pool: list[int] = []
    for p in range(len(sizes)):
        if p == me or sizes[p] == 0:
            continue
        v = int(voids[p])
        if v:
            by_voids.setdefault(v, []).append(p)
        else:
            pool.append(p)
    order = sorted(by_voids, key=lambda v: by_voids[v][0])
    classes = [by_voids[v] for v in order]
    caps = tuple(int(sizes[members].sum()) for members in classes)
    full = (1 << len(classes)) - 1
    # The classes allowed to hold each suit; suits with one pattern form a group.
    pattern = [sum(1 << k for k, v in enumerate(order) if not v >> s & 1) for s in range(NUM_SUITS)]
    restricted = sorted({x for x in pattern if x != full})
    group_of_suit = [restricted.index(x) if x != full else len(restricted) for x in pattern]
    group_of_suit.append(len(restricted))  # the specials: anyone may hold them
    group_sizes = [0] * (len(restricted) + 1)
    for s in range(NUM_SUITS + 1):
        group_sizes[group_of_suit[s]] += int(suit_count[s])
    counter = _counter(tuple(zip(restricted, group_sizes[:-1], strict=True)), group_sizes[-1])
    return _Layout(
        classes, caps, pool, np.array(group_of_suit, dtype=np.int64), group_sizes, counter
    )


@lru_cache(maxsize=4096)
def _counter(groups: tuple[tuple[int, int], ...], open_size: int) -> _DealCounter:
    """A `_DealCounter`, shared by the positions with the same groups (its tables are
    filled as they are asked for, so a repeated position costs nothing more)."""
    return _DealCounter(groups, open_size)


# ---- sampling --------------------------------------------------------------------


def _prepare(
    state: State, seat: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Hand sizes (B, P), hidden cards (B,), own hands (B,), hidden cards per suit
    (B, 5, specials last) and voids (B, P) of the games, checked for consistency."""
    B = state.batch_size
    games = np.arange(B)
    sizes = hand_sizes(state)
    own = state.hands[games, seat]
    own_size = np.bitwise_count(own & _ALL_BITS).astype(np.int64)
    bad = np.flatnonzero(own_size != sizes[games, seat])
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"game {g}: seat {int(seat[g])} holds {int(own_size[g])} cards but the tricks "
            f"played leave it {int(sizes[g, seat[g]])} (not a reachable position)"
        )
    bad = np.flatnonzero(own & state.played & TIKI_BITS)
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"game {g}: seat {int(seat[g])} holds a card that was played this round "
            "(not a reachable position)"
        )
    hidden = hidden_cards(state, seat)
    expected = DECK_SIZE - own_size - state.num_played.astype(np.int64)
    bad = np.flatnonzero(np.bitwise_count(hidden).astype(np.int64) != expected)
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"game {g}: the seat's hand and the cards played leave "
            f"{int(np.bitwise_count(hidden[g]))} hidden cards, not {int(expected[g])} "
            "(a card held and played, or too many copies of a special card)"
        )
    suit_count = np.stack(
        [np.bitwise_count(hidden & SUIT_BITS[s]) for s in range(NUM_SUITS)]
        + [np.bitwise_count(hidden & (KANALOA_BITS | OCTOPUS_BITS))],
        axis=1,
    ).astype(np.int64)
    voids = (state.voids & np.uint8(15)).astype(np.int64)
    return sizes, hidden, own, suit_count, voids


def _sample(state: State, seat: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> State:
    B, P = state.batch_size, state.num_players
    sizes, hidden, own, suit_count, voids = _prepare(state, seat)

    # Per game: the card groups and classes, and per sample the drawn counts (Python:
    # exact integers); the deal itself is a compiled kernel (`_deal_sample`).
    R = int(counts.sum())
    group_of_suit = np.zeros((B, NUM_SUITS + 1), dtype=np.int64)
    group_sizes = np.zeros((B, _MAX_GROUPS), dtype=np.int64)
    member_seat = np.full((B, _MAX_CLASSES + 1, P), -1, dtype=np.int64)
    member_end = np.full((B, _MAX_CLASSES + 1, P), DECK_SIZE + 1, dtype=np.int64)
    take = np.zeros((R, _MAX_GROUPS, _MAX_CLASSES), dtype=np.int64)
    row = 0
    for g in range(B):
        lay = _layout(sizes[g], voids[g], int(seat[g]), suit_count[g])
        if lay.counter.ways(0, lay.caps) == 0:
            raise ValueError(
                f"game {g}: no deal of the hidden cards is consistent with the hand sizes "
                f"{sizes[g].tolist()} and voids {voids[g].tolist()} (not a reachable position)"
            )
        group_of_suit[g] = lay.group_of_suit
        group_sizes[g, : len(lay.group_sizes)] = lay.group_sizes
        for k, members in enumerate(lay.classes):
            member_seat[g, k, : len(members)] = members
            member_end[g, k, : len(members)] = np.cumsum(sizes[g, members])
        # (the pool's cards past the unvoided players' hands are out of the deal)
        member_seat[g, _POOL, : len(lay.pool)] = lay.pool
        member_end[g, _POOL, : len(lay.pool)] = np.cumsum(sizes[g, lay.pool])
        rnd = random.Random(int(keys[g]))
        for _ in range(int(counts[g])):
            # Per group (the open one last), the cards each class gets.
            for j, t in enumerate(lay.counter.draw(lay.caps, rnd)):
                take[row, j, : len(t)] = t
            row += 1

    game = np.repeat(np.arange(B), counts)
    index = np.arange(R) - np.repeat(np.cumsum(counts) - counts, counts)
    sample_keys = mix64(keys[game] ^ mix64(index.astype(np.uint64)))
    out = state.take(game)
    call(
        _deal_samples,
        hidden.astype(np.int64),
        own.astype(np.int64),
        seat.astype(np.int64),
        group_of_suit,
        group_sizes,
        member_seat,
        member_end,
        take,
        game,
        sample_keys,
        out.hands,
        out.key,
    )
    masks.refresh(out)
    return out


# Bit c of a hand is card c; its suit, 4 for a Kanaloa or octopus copy.
_CARD_SUIT_OF_BIT = _BIT_SUIT


@kernel
def _random_positions(labels, key, stream, words, sort_keys, order, pos):  # type: ignore[no-untyped-def]
    """Write into `pos` (53,) each card's position when the cards are sorted by
    `labels` (53,) and, within a label, put in a uniformly random order.

    The order within a label is that of one random 64-bit word per card (`rng.draws`
    of the sample's key and stream), of which the top 58 bits sort below the label's
    6. Where two cards of one label (other than `_NONE`) draw equal words, odds
    ~2**-47, the words are drawn again from a further stream, so that no tie breaks
    the order. `words`, `sort_keys`, `order`: work arrays of 53.
    """
    attempt = 0
    while True:
        base = round_base(key, stream + 16 * attempt)
        for c in range(DECK_SIZE):
            words[c] = draw_one(base, c)
            sort_keys[c] = (np.uint64(labels[c]) << _SORT_SHIFT) | (words[c] >> np.uint64(6))
        argsort_small(sort_keys, np.int64(DECK_SIZE), order)
        tied = False
        for i in range(DECK_SIZE):
            pos[order[i]] = i
            if (
                i > 0
                and sort_keys[order[i]] == sort_keys[order[i - 1]]
                and labels[order[i]] != _NONE
            ):
                tied = True
        if not tied:
            return
        attempt += 1


@kernel
def _deal_samples(  # type: ignore[no-untyped-def]
    hidden,
    own,
    seat,
    group_of_suit,
    group_sizes,
    member_seat,
    member_end,
    take,
    game,
    sample_keys,
    hands,
    keys,
):
    """Deal the hidden cards of each sample r (of game `game[r]`) into `hands[r]`.

    Each group's cards in a random order, its first cards to the classes by the drawn
    counts `take[r]`, the rest to the pool; then each class's cards in a random order,
    split among its players by hand size (`member_seat`, `member_end`); the pool's
    cards past the unvoided players' hands stay out of the deal. The sample's key
    for later deals is fresh.
    """
    P = hands.shape[1]
    labels = np.empty(DECK_SIZE, dtype=np.int64)
    cls = np.empty(DECK_SIZE, dtype=np.int64)
    words = np.empty(DECK_SIZE, dtype=np.uint64)
    sort_keys = np.empty(DECK_SIZE, dtype=np.uint64)
    order = np.empty(DECK_SIZE, dtype=np.int64)
    pos = np.empty(DECK_SIZE, dtype=np.int64)
    starts = np.empty(_NONE + 1, dtype=np.int64)
    for r in range(len(game)):
        g = game[r]
        key = sample_keys[r]
        # The group of each hidden card; where each group starts in the sorted order.
        for c in range(DECK_SIZE):
            labels[c] = group_of_suit[g, _CARD_SUIT_OF_BIT[c]] if (hidden[g] >> c) & 1 else _NONE
        starts[0] = 0
        for j in range(_MAX_GROUPS):
            starts[j + 1] = starts[j] + group_sizes[g, j]
        _random_positions(labels, key, _STREAM_GROUP_ORDER, words, sort_keys, order, pos)
        # A card's class: the number of class ends of its group at or below its rank.
        for c in range(DECK_SIZE):
            j = labels[c]
            if j == _NONE:
                cls[c] = _NONE
                continue
            rank = pos[c] - starts[j]
            end = 0
            k = 0
            for v in range(_MAX_CLASSES):
                end += take[r, j, v]
                if rank >= end:
                    k += 1
            cls[c] = k
        _random_positions(cls, key, _STREAM_CLASS_ORDER, words, sort_keys, order, pos)
        starts[0] = 0
        for k in range(_NONE):
            n = 0
            for c in range(DECK_SIZE):
                if cls[c] == k:
                    n += 1
            starts[k + 1] = starts[k] + n
        for p in range(P):
            hands[r, p] = 0
        for c in range(DECK_SIZE):
            k = cls[c]
            if k == _NONE:
                continue
            rank = pos[c] - starts[k]
            m = 0
            for i in range(P):
                if rank >= member_end[g, k, i]:
                    m += 1
            if m < P and member_seat[g, k, m] >= 0:
                p = member_seat[g, k, m]
                hands[r, p] = np.int64(hands[r, p]) | (np.int64(1) << c)
        hands[r, seat[g]] = own[g]
        keys[r] = draw_one(round_base(key, _STREAM_KEY), 0)


_SAMPLER = Sampler(State, _sample)
determinize = _SAMPLER.determinize
determinize_from_keys = _SAMPLER.determinize_from_keys
_check_seats = _SAMPLER.seats
