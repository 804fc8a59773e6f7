"""Set-up: the only code that draws random numbers (K2.1, K2.2; the reshuffle of K7.3
is `shuffle_game`).

Every draw comes from the game's own key (`core.rng`): the set-up shuffle is the
order of the words `draw_one(round_base(key, 0), 0..23)` (`permutations(key, 0,
24)`), the reshuffle after scoring s that of round s, and the first-player coin is
the top bit of a word of a stream of its own, so a seed fixes a whole game, and game
i of a batch is the same game at any batch size. `reset_game` and `shuffle_game`
are compiled kernels; `init`, `init_from_keys`, `reset_games` and
`shuffle_discards` run them over a batch.
"""

from __future__ import annotations

import numpy as np

from ..engine import Setup, compiled_reset, game_indices
from ..kernels import argsort_small, kernel, run_batch, small_kernel
from ..rng import draw_one, round_base
from .cards import list_cards
from .config import Config
from .constants import (
    CARDS_PER_ISLAND,
    MAX_PILE,
    NO_CARD,
    NO_PLAYER,
    NUM_CARDS,
    NUM_SCORINGS,
    ROW_SLOTS,
    START_HAND,
    Phase,
)
from .masks import refresh_game
from .state import State

# The coin's stream: far from the shuffles' streams 0 (set-up), 1 and 2 (reshuffles).
COIN_STREAM = 1 << 32
_TOP_BIT = np.uint64(63)


@kernel
def _reset_range(c, s, idx, keys, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(NUM_CARDS, dtype=np.uint64)  # work arrays of the shuffle
    order = np.empty(NUM_CARDS, dtype=np.int64)
    for i in range(lo, hi):
        reset_game(c, s, idx[i], keys[i], words, order)


_SETUP = Setup(State, Config, compiled_reset(_reset_range))
init, init_from_keys, reset_games = _SETUP.init, _SETUP.init_from_keys, _SETUP.reset_games


@kernel
def shuffled_cards(key, round_, words, order):  # type: ignore[no-untyped-def]
    """Write into `order[:24]` the shuffle of the 24 cards for round `round_` of the game
    with `key`: the argsort of its words (`rng.permutations(key, round_, 24)`). Card j
    is island j // 2 (K1.4). `words` (uint64) and `order` (int64) are work arrays."""
    base = round_base(key, round_)
    for i in range(NUM_CARDS):
        words[i] = draw_one(base, i)
    argsort_small(words, np.int64(NUM_CARDS), order)


@small_kernel
def reset_game(c, s, g, key, words, order):  # type: ignore[no-untyped-def]
    """Set up game g as a new game with `key` (K2), at its first decision.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and
    `words` and `order` work arrays of the shuffle."""
    s.key[g] = key
    # K2.1: 3 cards to player 0, 3 to player 1, 3 face up, 15 in the pile (first = top).
    shuffled_cards(key, np.int64(0), words, order)
    for p in range(2):
        hand = 0
        for j in range(START_HAND * p, START_HAND * (p + 1)):
            hand += 1 << (2 * (order[j] // CARDS_PER_ISLAND))
        s.hands[g, p] = hand
    row_end = 2 * START_HAND + ROW_SLOTS
    for slot in range(ROW_SLOTS):
        s.face_up[g, slot] = order[2 * START_HAND + slot] // CARDS_PER_ISLAND
    rest = NUM_CARDS - row_end
    for i in range(MAX_PILE):  # stored bottom first: position i holds card 23 - i
        s.pile[g, i] = order[NUM_CARDS - 1 - i] // CARDS_PER_ISLAND if i < rest else NO_CARD
    s.pile_size[g] = rest
    # K2.2: the starting player.
    if c.random_first:
        coin = draw_one(round_base(key, np.int64(COIN_STREAM)), np.int64(0))
        first = np.int64(coin >> _TOP_BIT)
    else:
        first = c.first_player
    s.starting_player[g] = first
    s.current_player[g] = first
    s.phase[g] = Phase.PLAY
    s.turn[g] = 0
    s.final_turns_left[g] = 0
    s.handed_back[g] = False
    s.last_turn_skipped[g] = False
    s.discard_up[g] = 0
    s.num_scorings[g] = 0
    for p in range(2):
        s.bridges[g, p] = 0
        s.stones[g, p] = 0
        s.known[g, p] = 0
        s.discard_down[g, p] = 0
        s.hidden_hand[g, p] = 0
        s.hidden_down[g, p] = 0
        s.rewards[g, p] = 0
        for k in range(NUM_SCORINGS):
            s.scorings[g, k, p] = 0
    s.winner[g] = NO_PLAYER
    s.terminated[g] = False
    s.truncated[g] = False
    refresh_game(c, s, g)


@kernel
def shuffle_game(s, g, words, order, listed):  # type: ignore[no-untyped-def]
    """K7.3: shuffle every discard of game g (face up and face down) into a new pile and
    deal 3 of them face up into slots 0-2.

    The order is the set-up shuffle of round s for scoring s (`num_scorings`, already
    counted): the discards, listed in canonical order, take the places of the shuffle's
    entries below their number, so each game's order is uniform. `words`, `order` and
    `listed` (int64) are work arrays of 24.
    """
    pool = np.int64(s.discard_up[g]) + np.int64(s.discard_down[g, 0])
    pool += np.int64(s.discard_down[g, 1])
    n = list_cards(pool, listed)
    shuffled_cards(s.key[g], np.int64(s.num_scorings[g]), words, order)
    # First card = top: the row gets cards 0..2, the pile the rest, top first (stored
    # bottom first: card j >= 3 at position n - 1 - j).
    j = 0
    for i in range(NUM_CARDS):
        if order[i] < n:
            card = listed[order[i]]
            if j < ROW_SLOTS:
                s.face_up[g, j] = card
            else:
                s.pile[g, n - 1 - j] = card
            j += 1
    for i in range(n - ROW_SLOTS, MAX_PILE):
        s.pile[g, i] = NO_CARD
    s.pile_size[g] = n - ROW_SLOTS
    s.discard_up[g] = 0
    s.discard_down[g, 0] = 0
    s.discard_down[g, 1] = 0


@kernel
def _shuffle_range(s, idx, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(NUM_CARDS, dtype=np.uint64)
    order = np.empty(NUM_CARDS, dtype=np.int64)
    listed = np.empty(NUM_CARDS, dtype=np.int64)
    for i in range(lo, hi):
        shuffle_game(s, idx[i], words, order, listed)


def shuffle_discards(state: State, idx: np.ndarray) -> None:
    """K7.3 (`shuffle_game`) in the games `idx` of `state`, in place."""
    games = game_indices(state, idx, "shuffle_discards")
    run_batch(_shuffle_range, len(games), 1, state.kernel_arrays(), games)
