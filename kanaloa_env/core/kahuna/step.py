"""`step`: validate the actions, apply one decision per game, resolve what follows.

Order: (1) validate every game's action before any write, so a bad batch raises and
leaves the state as it was; then per game (`step_game`, compiled; the games of a
batch run in a compiled loop, on several threads when asked): (2) the action:
PLACE with its claims (K4.1, K5.2, K5.3), REMOVE (K4.2), DISCARD or hand-back
(K4.4, K6.4), END_PLAY, TAKE, DRAW or SKIP (K6); stone losses (K5.4) where the
opponent's bridges left the board; (3) the early-end check (K8.2) where bridges
changed; (4) turn ends: exhaustion and scorings with their reshuffle and early-end
check (K6.5, K7), the final turns and the last scoring (K7.4, K7.5, K8.1),
truncation (K9.1); rewards are set where a game ends (K10.1); (5) the cached mask.
"""

from __future__ import annotations

import numpy as np

from ..engine import Stepper, compiled_step
from ..kernels import kernel, popcount, small_kernel
from .board import bridges_at, held
from .cards import LOW, count_of
from .constants import (
    ACTION_KIND,
    DISCARD_BASE,
    FINAL_TURNS,
    LINE_A,
    LINE_B,
    LINES_AT,
    MAJORITY,
    NO_CARD,
    NO_PLAYER,
    NUM_ACTIONS,
    NUM_CARDS,
    PHASE_NAMES,
    PLACE_BASE,
    REMOVE_BASE,
    REMOVE_PAIRS,
    SCORING_POINTS,
    TAKE_BASE,
    Kind,
    Phase,
    action_name,
)
from .masks import refresh_game
from .setup import shuffle_game
from .state import State

_KIND = ACTION_KIND.astype(np.int64)
_LINE_A = LINE_A.astype(np.int64)
_LINE_B = LINE_B.astype(np.int64)
_LINES_AT = LINES_AT.astype(np.int64)
_MAJORITY = MAJORITY.astype(np.int64)
_LOW = int(LOW)
_FIRST, _SECOND = SCORING_POINTS  # K7.2: the points of the first and second scoring


def _describe(state: State, g: int, act: int) -> str:
    """What is wrong with action `act` in game `g`: the player, the phase, the action."""
    what = action_name(act) if 0 <= act < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"
    phase = PHASE_NAMES[int(state.phase[g])]
    if state.final_turns_left[g] > 0:
        phase += " (final turn)"
    return (
        f"player {int(state.current_player[g])} in phase {phase} cannot take action {act} ({what})"
    )


@kernel
def _step_range(c, s, actions, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(NUM_CARDS, dtype=np.uint64)  # work arrays of the reshuffle
    order = np.empty(NUM_CARDS, dtype=np.int64)
    listed = np.empty(NUM_CARDS, dtype=np.int64)
    for g in range(lo, hi):
        step_game(c, s, g, actions[g], words, order, listed)


_STEPPER = Stepper(compiled_step(_step_range), _describe)
step = _STEPPER.step
step_inplace = _STEPPER.step_inplace
validate_actions = _STEPPER.validate_actions


@small_kernel
def step_game(c, s, g, a, words, order, listed):  # type: ignore[no-untyped-def]
    """Apply action `a` in game g and everything it sets in motion; a game that is over
    passes through unchanged (its rewards 0). `words`, `order`, `listed`: work arrays
    of the reshuffle (K7.3).
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`)."""
    s.rewards[g, 0] = 0
    s.rewards[g, 1] = 0
    if s.phase[g] != Phase.GAME_OVER:
        kind = _KIND[a]  # what the action does (the action table's ranges, constants.py)
        if kind == Kind.PLACE or kind == Kind.REMOVE:
            if kind == Kind.PLACE:
                _place(c, s, g, a - PLACE_BASE)
            else:
                _remove(s, g, a - REMOVE_BASE)
            _early_end(c, s, g)  # K8.2: bridges left the board
        elif kind == Kind.DISCARD:
            _discard(s, g, a - DISCARD_BASE)
        elif kind == Kind.END_PLAY:
            if s.final_turns_left[g] > 0:
                _end_final_turn(s, g)
            else:
                s.phase[g] = Phase.DRAW  # K3.2
        else:  # TAKE, DRAW or SKIP ends the turn (K6)
            if kind == Kind.TAKE:
                _take(s, g, a - TAKE_BASE)
            elif kind == Kind.DRAW:
                _draw(s, g)
            if _end_turn(s, g, kind == Kind.SKIP, words, order, listed):
                _early_end(c, s, g)  # K8.2 at the start of round 2 or 3
            # K9.1: truncation, unless the final turns have begun or the game is over.
            if (
                s.final_turns_left[g] == 0
                and s.turn[g] >= c.max_turns
                and s.phase[g] != Phase.GAME_OVER
            ):
                s.truncated[g] = True
                s.phase[g] = Phase.GAME_OVER
                s.current_player[g] = NO_PLAYER
    refresh_game(c, s, g)


# ---- the actions ---------------------------------------------------------------


@small_kernel
def _spend_face_up(s, g, p, x):  # type: ignore[no-untyped-def]
    """K4.5: p spends one card of island x face up; K6.7: the opponent saw it go."""
    one = 1 << (2 * x)
    s.hands[g, p] = np.int64(s.hands[g, p]) - one
    s.discard_up[g] = np.int64(s.discard_up[g]) + one
    known = np.int64(s.known[g, p])
    if count_of(known, x) > 0:
        s.known[g, p] = known - one


@small_kernel
def _place(c, s, g, i):  # type: ignore[no-untyped-def]
    """K4.1: put a bridge on the free line `i // 2`, paying a card of its end a (i
    even) or b (i odd); then the claims K5.2/K5.3 at that end, then at the other;
    stone losses (K5.4) where the opponent lost bridges."""
    p = np.int64(s.current_player[g])
    line = i >> 1
    a = _LINE_A[line]
    b = _LINE_B[line]
    x = b if i & 1 else a
    _spend_face_up(s, g, p, x)
    s.bridges[g, p] = np.int64(s.bridges[g, p]) | (1 << line)
    first = _claim(c, s, g, p, x)
    second = _claim(c, s, g, p, a + b - x)
    if first or second:
        _stone_losses(s, g, 1 - p)


@small_kernel
def _claim(c, s, g, p, x):  # type: ignore[no-untyped-def]
    """K5.2, K5.3: if p's count at island x now equals its majority threshold, p
    claims x: a stone if p's supply is not empty (A2), and every bridge of the
    opponent at x goes back. Returns whether p claimed x."""
    if bridges_at(np.int64(s.bridges[g, p]), x) != _MAJORITY[x]:
        return False
    stones = np.int64(s.stones[g, p])
    if popcount(stones) < c.stones_per_player:
        s.stones[g, p] = stones | (1 << x)
    q = 1 - p
    s.bridges[g, q] = np.int64(s.bridges[g, q]) & ~_LINES_AT[x]
    return True


@small_kernel
def _remove(s, g, i):  # type: ignore[no-untyped-def]
    """K4.2: pay two cards of the ends of line `i // 3` (pair `i % 3`: a + a, b + b or
    a + b); the opponent's bridge goes back; stone losses (K5.4)."""
    p = np.int64(s.current_player[g])
    line = i // REMOVE_PAIRS
    pair = i % REMOVE_PAIRS
    a = _LINE_A[line]
    b = _LINE_B[line]
    _spend_face_up(s, g, p, b if pair == 1 else a)
    _spend_face_up(s, g, p, a if pair == 0 else b)
    q = 1 - p
    s.bridges[g, q] = np.int64(s.bridges[g, q]) & ~(1 << line)
    _stone_losses(s, g, q)


@small_kernel
def _stone_losses(s, g, q):  # type: ignore[no-untyped-def]
    """K5.4: q's stones where q no longer holds the island go back (the mover's counts
    never fall in its own action, K5.5)."""
    s.stones[g, q] = np.int64(s.stones[g, q]) & held(np.int64(s.bridges[g, q]))


@small_kernel
def _discard(s, g, x):  # type: ignore[no-untyped-def]
    """K4.4 / K6.4: one card of island x face down under the discard pile; in the DRAW
    phase a hand-back. K6.7: the opponent forgets one copy of every island it knew."""
    p = np.int64(s.current_player[g])
    one = 1 << (2 * x)
    s.hands[g, p] = np.int64(s.hands[g, p]) - one
    s.discard_down[g, p] = np.int64(s.discard_down[g, p]) + one
    known = np.int64(s.known[g, p])
    s.known[g, p] = known - ((known | (known >> 1)) & _LOW)
    s.handed_back[g] = s.phase[g] == Phase.DRAW


@small_kernel
def _pop_pile(s, g):  # type: ignore[no-untyped-def]
    """The top card of the pile (-1 when it is empty), taken off the pile."""
    size = np.int64(s.pile_size[g])
    if size == 0:
        return NO_CARD
    top = np.int64(s.pile[g, size - 1])
    s.pile[g, size - 1] = NO_CARD
    s.pile_size[g] = size - 1
    return top


@small_kernel
def _take(s, g, slot):  # type: ignore[no-untyped-def]
    """K6.1: take a face-up card, refilled at once from the pile; K6.7: now known."""
    p = np.int64(s.current_player[g])
    one = 1 << (2 * np.int64(s.face_up[g, slot]))
    s.hands[g, p] = np.int64(s.hands[g, p]) + one
    s.known[g, p] = np.int64(s.known[g, p]) + one
    s.face_up[g, slot] = _pop_pile(s, g)


@small_kernel
def _draw(s, g):  # type: ignore[no-untyped-def]
    """K6.2: take the top card of the pile (seen by nobody else)."""
    p = np.int64(s.current_player[g])
    s.hands[g, p] = np.int64(s.hands[g, p]) + (1 << (2 * _pop_pile(s, g)))


# ---- turn ends, scorings, the end ----------------------------------------------


@small_kernel
def _early_end(c, s, g):  # type: ignore[no-untyped-def]
    """K8.2: in rounds 2 and 3 a player without bridges loses at once; both: a draw."""
    if not c.early_end or s.phase[g] == Phase.GAME_OVER or s.num_scorings[g] == 0:
        return
    bare0 = s.bridges[g, 0] == 0
    bare1 = s.bridges[g, 1] == 0
    if bare0 or bare1:
        # The one with bridges wins: player 1 if player 0 has none, and vice versa.
        _end_game(s, g, np.int64(NO_PLAYER if bare0 and bare1 else 1 if bare0 else 0))


@small_kernel
def _end_turn(s, g, skipped, words, order, listed):  # type: ignore[no-untyped-def]
    """K6.5: a non-final turn ends (TAKE, DRAW or SKIP); then exhaustion (K7.1) with its
    scoring and reshuffle or the start of the final turns (K7.2-K7.4). Returns whether
    a scoring took place."""
    s.turn[g] += 1
    s.last_turn_skipped[g] = skipped
    s.handed_back[g] = False
    s.phase[g] = Phase.PLAY
    s.current_player[g] ^= 1
    if s.pile_size[g] > 0 or s.face_up[g, 0] >= 0 or s.face_up[g, 1] >= 0 or s.face_up[g, 2] >= 0:
        return False
    if s.num_scorings[g] == len(SCORING_POINTS):
        # K7.4: the third exhaustion starts the final turns, drawer's opponent first.
        s.final_turns_left[g] = FINAL_TURNS
        return False
    _score(s, g)  # K7.2
    shuffle_game(s, g, words, order, listed)  # K7.3
    return True


@small_kernel
def _end_final_turn(s, g):  # type: ignore[no-untyped-def]
    """K7.4, K7.5: a final turn ends (a completed turn); after the second one the third
    scoring, and the game is over (K8.1)."""
    s.turn[g] += 1
    s.current_player[g] ^= 1
    left = s.final_turns_left[g] - 1
    s.final_turns_left[g] = left
    if left == 0:
        _score(s, g)
        _end_game(s, g, _final_winner(s, g))


@small_kernel
def _score(s, g):  # type: ignore[no-untyped-def]
    """K7.2 / K7.5: the player with more stones on the board gets 1 point (first
    scoring), 2 (second) or the difference (third); equal counts give nothing."""
    diff = popcount(np.int64(s.stones[g, 0])) - popcount(np.int64(s.stones[g, 1]))
    k = np.int64(s.num_scorings[g])
    worth = _FIRST if k == 0 else _SECOND if k == 1 else abs(diff)
    s.scorings[g, k, 0] = worth if diff > 0 else 0
    s.scorings[g, k, 1] = worth if diff < 0 else 0
    s.num_scorings[g] = k + 1


@small_kernel
def _final_winner(s, g):  # type: ignore[no-untyped-def]
    """K8.1: higher total; then more points in the third scoring; then more bridges
    on the board; else a draw (-1)."""
    total0 = 0
    total1 = 0
    for k in range(3):
        total0 += s.scorings[g, k, 0]
        total1 += s.scorings[g, k, 1]
    if total0 != total1:
        return 0 if total0 > total1 else 1
    third0 = np.int64(s.scorings[g, 2, 0])
    third1 = np.int64(s.scorings[g, 2, 1])
    if third0 != third1:
        return 0 if third0 > third1 else 1
    bridges0 = popcount(np.int64(s.bridges[g, 0]))
    bridges1 = popcount(np.int64(s.bridges[g, 1]))
    if bridges0 != bridges1:
        return 0 if bridges0 > bridges1 else 1
    return NO_PLAYER


@small_kernel
def _end_game(s, g, winner):  # type: ignore[no-untyped-def]
    """K8.3 / K10.1: the game is over; winner +1, loser -1, a draw 0 each."""
    s.terminated[g] = True
    s.winner[g] = winner
    s.phase[g] = Phase.GAME_OVER
    s.current_player[g] = NO_PLAYER
    s.handed_back[g] = False
    if winner >= 0:
        s.rewards[g, winner] = 1.0
        s.rewards[g, 1 - winner] = -1.0
