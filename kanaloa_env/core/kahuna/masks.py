"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks).

`mask_row` writes the legal actions of one game's player to act into a row;
`refresh_game` writes game g's row of the cached mask `State.legal`, and `step`
calls it after every decision, so `legal_action_mask` only copies the cache.
"""

from __future__ import annotations

import numpy as np

from ..engine import game_indices
from ..kernels import kernel, popcount, small_kernel
from .cards import count_of, num_cards
from .config import DISCARD_RULES
from .constants import (
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    DISCARD_BASE,
    DRAW,
    END_PLAY,
    HAND_LIMIT,
    LINE_A,
    LINE_B,
    NUM_ACTIONS,
    NUM_ISLANDS,
    NUM_LINES,
    PLACE_BASE,
    REMOVE_BASE,
    REMOVE_PAIRS,
    ROW_SLOTS,
    SKIP,
    TAKE_BASE,
    Phase,
)
from .state import State

_NO_LEGAL_PLAY = DISCARD_RULES.index("no_legal_play")
_UNPLAYABLE_CARDS = DISCARD_RULES.index("unplayable_cards")
_LINE_A = LINE_A.astype(np.int64)
_LINE_B = LINE_B.astype(np.int64)
# Per island: the lines whose first end (a) it is, and those whose second end (b) it is.
_LINES_A_AT = np.array(
    [sum(1 << n for n, a in enumerate(LINE_A) if a == x) for x in range(NUM_ISLANDS)], np.int64
)
_LINES_B_AT = np.array(
    [sum(1 << n for n, b in enumerate(LINE_B) if b == x) for x in range(NUM_ISLANDS)], np.int64
)
_ALL_ISLANDS = (1 << NUM_ISLANDS) - 1


@small_kernel
def mask_row(c, s, g, row):  # type: ignore[no-untyped-def]
    """Write into `row` (153,) bool the legal actions of game g's player to act (all
    False once the game is over, K8.3).
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`)."""
    phase = s.phase[g]
    if phase == Phase.GAME_OVER:
        row[:] = False
        return
    p = np.int64(s.current_player[g])
    hand = np.int64(s.hands[g, p])
    mine = np.int64(s.bridges[g, p])
    theirs = np.int64(s.bridges[g, 1 - p])
    play = phase == Phase.PLAY
    final = s.final_turns_left[g] > 0
    # The lines whose first end (a) or second end (b) p holds a card of, or two cards
    # (needed in the PLAY phase only).
    a_one = b_one = a_two = b_two = 0
    if play:
        for x in range(NUM_ISLANDS):
            n = count_of(hand, x)
            one = -np.int64(n != 0)  # all bits set if p holds an x card
            two = -(n >> 1)  # all bits set if p holds both x cards
            a_one |= _LINES_A_AT[x] & one
            b_one |= _LINES_B_AT[x] & one
            a_two |= _LINES_A_AT[x] & two
            b_two |= _LINES_B_AT[x] & two
    # K4.1: PLACE on a free line, with a card of the end named, bridges in the supply
    # (K1.5); K4.2: REMOVE an opponent's bridge with two cards of one end or one of each;
    # both only in the PLAY phase (K3.2).
    free = ~(mine | theirs) & ALL_LINES if play and popcount(mine) < BRIDGES_PER_PLAYER else 0
    if not play:
        theirs = 0
    place_a = free & a_one
    place_b = free & b_one
    remove_aa = theirs & a_two
    remove_bb = theirs & b_two
    remove_ab = theirs & a_one & b_one
    # (Entry by entry, in order: a loop the compiler turns into vector code.)
    for i in range(2 * NUM_LINES):  # PLACE_BASE + 2 * line + end (0: a, 1: b)
        row[PLACE_BASE + i] = ((place_b if i & 1 else place_a) >> (i >> 1)) & 1
    for i in range(REMOVE_PAIRS * NUM_LINES):  # REMOVE_BASE + 3 * line + pair
        pair = i % REMOVE_PAIRS
        lines = remove_aa if pair == 0 else remove_bb if pair == 1 else remove_ab
        row[REMOVE_BASE + i] = (lines >> (i // REMOVE_PAIRS)) & 1
    row[END_PLAY] = play  # K3.2, K3.3
    # K4.4: DISCARD in a non-final PLAY phase, as the config's discard rule allows;
    # K6.4: a hand-back in DRAW with 5 cards or after a first one.
    size = num_cards(hand)
    keep = 0  # the islands whose DISCARD is legal if a card of it is held
    if play and not final:
        rule = c.discard_rule
        if rule == _NO_LEGAL_PLAY:  # only without a legal PLACE or REMOVE
            if place_a | place_b | remove_aa | remove_bb | remove_ab == 0:
                keep = _ALL_ISLANDS
        elif rule == _UNPLAYABLE_CARDS:  # x only if no legal PLACE or REMOVE spends an x card
            spends_a = place_a | remove_aa | remove_ab
            spends_b = place_b | remove_bb | remove_ab
            spent = 0
            for line in range(NUM_LINES):
                spent |= ((spends_a >> line) & 1) << _LINE_A[line]
                spent |= ((spends_b >> line) & 1) << _LINE_B[line]
            keep = _ALL_ISLANDS & ~spent
        else:
            keep = _ALL_ISLANDS
    elif phase == Phase.DRAW and (size == HAND_LIMIT or s.handed_back[g]):
        keep = _ALL_ISLANDS
    for x in range(NUM_ISLANDS):
        row[DISCARD_BASE + x] = ((keep >> x) & 1) & (count_of(hand, x) != 0)
    # K6: TAKE (a filled slot) and DRAW (a pile) with a hand of at most 4 (K6.4), SKIP
    # unless the opponent's turn ended with SKIP (K6.3) or a card was handed back; not
    # in a final turn (K3.3).
    room = not final and size < HAND_LIMIT
    for slot in range(ROW_SLOTS):
        row[TAKE_BASE + slot] = room and s.face_up[g, slot] >= 0
    row[DRAW] = room and s.pile_size[g] > 0
    row[SKIP] = not final and not s.last_turn_skipped[g] and not s.handed_back[g]


@small_kernel
def refresh_game(c, s, g):  # type: ignore[no-untyped-def]
    """Write game g's row of the cached mask `s.legal`.
    `c` is the config's kernel rules (`Rules`)."""
    mask_row(c, s, g, s.legal[g])


@kernel
def _masks_of(c, s, idx, out):  # type: ignore[no-untyped-def]
    for i in range(len(idx)):
        mask_row(c, s, idx[i], out[i])


def _games(state: State, idx: np.ndarray | None) -> np.ndarray:
    if idx is None:
        return np.arange(state.batch_size, dtype=np.int64)
    return game_indices(state, idx, "masks")


def refresh(state: State, idx: np.ndarray | None = None) -> None:
    """Recompute the cached mask `state.legal` in place (its only writer), optionally
    only for the games `idx`."""
    state.legal[_games(state, idx)] = compute_mask(state, idx)


def compute_mask(state: State, idx: np.ndarray | None = None) -> np.ndarray:
    """(B, 153) bool legal actions of each game's player to act, computed afresh
    (len(idx) rows with `idx`; the invariant checker compares it with the cache); all
    False once a game is over (K8.3).
    `state` is the batch of games."""
    games = _games(state, idx)
    out = np.empty((len(games), NUM_ACTIONS), dtype=bool)
    _masks_of(state.config.rules, state.kernel_arrays(), games, out)
    return out


def legal_action_mask(state: State) -> np.ndarray:
    """(B, 153) bool legal-action mask for `state.current_player` of every game.

    A finished game's row is all False (unlike pgx's all-True). Returns a copy.
    """
    return state.legal.copy()


assert ROW_SLOTS == 3 and TAKE_BASE + ROW_SLOTS == DRAW and DRAW + 1 == SKIP == NUM_ACTIONS - 1
assert PLACE_BASE == 0 and REMOVE_BASE == 2 * NUM_LINES and END_PLAY == DISCARD_BASE + NUM_ISLANDS
