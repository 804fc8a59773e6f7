"""Set-up and dealing: the only code that draws random numbers (R2, R3.1)."""

from __future__ import annotations

import numpy as np

from ..engine import Setup, compiled_reset
from ..kernels import argsort_small, call, kernel
from ..rng import draw_one, round_base
from .config import Config
from .constants import (
    DECK_SIZE,
    HAND_SIZE,
    NO_CARD,
    NO_PLAYER,
    NO_SUIT,
    Pending,
    Phase,
    Suit,
)
from .masks import refresh_game
from .state import State

_SLOT_ORDER = 32  # where `reset_game` keeps the slot order in its work array, past the cards'


@kernel
def _reset_range(c, s, idx, keys, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(DECK_SIZE, dtype=np.uint64)
    order = np.empty(DECK_SIZE, dtype=np.int64)
    for i in range(lo, hi):
        reset_game(c, s, idx[i], keys[i], words, order)


_SETUP = Setup(State, Config, compiled_reset(_reset_range))
init, init_from_keys, reset_games = _SETUP.init, _SETUP.init_from_keys, _SETUP.reset_games


@kernel
def reset_game(c, s, g, key, words, order):  # type: ignore[no-untyped-def]
    """Set up game g as a new game with `key` (R2), at the first decision of round 1.

    `words` (uint64) and `order` (int64), at least 53 long, are work arrays.
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`).
    """
    P, N, K = c.num_players, c.route_cards, c.deck_cards
    s.key[g] = key
    base = round_base(key, 0)
    for i in range(K + 2 * N + 1):
        words[i] = draw_one(base, i)
    # R2.1: the cards left out are drawn among those without the start field: of the
    # other cards (in deck order), the N - 1 with the lowest words join the start card.
    argsort_small(words, K - 1, order)
    # R2.2: random order and orientation. The route's cards are (start card, drawn
    # cards); slot n gets the one ranked n by its word, turned over when the top bit of
    # its orientation word is set: field 2n + side has deck code 2 * card + (flip ^ side).
    slot_order = order[_SLOT_ORDER:]
    argsort_small(words[K:], N, slot_order)
    for n in range(N):
        j = slot_order[n]
        if j == 0:
            card = c.start_card
        else:
            other = order[j - 1]  # its index among the cards other than the start card
            card = other if other < c.start_card else other + 1
        code = 2 * card + np.int64(words[K + N + n] >> np.uint64(63))
        s.route[g, 2 * n] = code
        s.route[g, 2 * n + 1] = code ^ 1
        s.present[g, n] = True
    s.present_slots[g] = (1 << N) - 1
    # R2.3: every boat on the start field.
    start = 0
    for f in range(2 * N):
        if c.start[s.route[g, f]]:
            start = f
            break
    for p in range(P):
        s.boat_field[g, p] = start
        s.progress[g, p] = 0
        s.rewards[g, p] = 0
    s.round[g] = 1
    # R2.4: the first starting player is drawn at random.
    s.starting_player[g] = words[K + 2 * N] % np.uint64(P)
    s.winner[g] = NO_PLAYER
    s.terminated[g] = False
    s.truncated[g] = False
    s.pending[g] = Pending.NONE
    # R8.2: every boat on the start field, which is blue (R1.3).
    start_round(c, s, g, np.int64(Suit.BLUE), words, order)
    refresh_game(c, s, g)


@kernel
def deal_hands(c, s, g, words, order):  # type: ignore[no-untyped-def]
    """R3.1: shuffle the 53 play cards and deal 8 to each player, into `s.hands[g]`.

    The shuffle is the order of 53 random words of the game's key and round (the
    argsort of `rng.draws(key, round, 53)`); hand p gets the cards in places 8p..8p+7.
    `c` is the config's kernel rules (`Rules`).
    """
    base = round_base(s.key[g], s.round[g])
    for i in range(DECK_SIZE):
        words[i] = draw_one(base, i)
    argsort_small(words, np.int64(DECK_SIZE), order)
    for p in range(c.num_players):
        hand = 0
        for j in range(HAND_SIZE * p, HAND_SIZE * (p + 1)):
            hand |= 1 << order[j]
        s.hands[g, p] = hand


@kernel
def _deal_range(c, s, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(DECK_SIZE, dtype=np.uint64)
    order = np.empty(DECK_SIZE, dtype=np.int64)
    for g in range(lo, hi):
        deal_hands(c, s, g, words, order)


def deal(keys: np.ndarray, round_: np.ndarray | int, num_players: int) -> np.ndarray:
    """(b, P) uint64 hands of 8 cards (P: `num_players`) dealt from the shuffled 53 play
    cards (R3.1), for
    game keys `keys` (b,) in round `round_` (one or (b,))."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    state = State.empty(Config(num_players=num_players), len(keys))
    state.key[:] = keys
    state.round[:] = round_
    call(_deal_range, state.config.rules, state.kernel_arrays(), 0, len(keys))
    return state.hands


@kernel
def start_round(c, s, g, trump, words, order):  # type: ignore[no-untyped-def]
    """Deal and reset the per-round arrays of game g (R3.1-R3.3).

    `s.starting_player` and `s.round` must already hold the new round's; `trump` is
    the trump of its first trick (R5.5, R8.2); `words`, `order` are work arrays.
    `c` is the config's kernel rules (`Rules`).
    """
    deal_hands(c, s, g, words, order)
    s.history[g, :] = NO_CARD
    s.played[g] = 0
    s.num_played[g] = 0
    s.trick_number[g] = 0
    for p in range(c.num_players):
        s.tricks_won[g, p] = 0
        s.announced[g, p] = -1
        s.voids[g, p] = 0
    s.lead_suit[g] = NO_SUIT
    s.leader[g] = s.starting_player[g]
    s.current_player[g] = s.starting_player[g]
    s.phase[g] = Phase.ANNOUNCE if c.nil_announcement else Phase.PLAY
    s.trump[g] = trump
