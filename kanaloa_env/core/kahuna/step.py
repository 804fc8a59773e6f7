"""`step`: validate the actions, apply one decision per game, resolve what follows.

Order (one place to read it, `_apply`): (1) validate every game's action before
any write, so a bad batch raises and leaves the state as it was; (2) apply each
kind of action to the index set of its games: PLACE with its claims (K4.1, K5.2,
K5.3), REMOVE (K4.2), DISCARD or hand-back (K4.4, K6.4), END_PLAY, TAKE, DRAW and
SKIP (K6); then stone losses (K5.4) where opponent bridges left the board;
(3) the early-end check (K8.2) where bridges changed; (4) turn ends: exhaustion
and scorings with their reshuffle and early-end check (K6.5, K7), the final turns
and the last scoring (K7.4, K7.5, K8.1), truncation (K9.1); rewards are set where
a game ends (K10.1); (5) the cached mask.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..batch import check_actions
from . import cards, masks
from .board import flat, held_islands
from .constants import (
    ACTION_CARD,
    ACTION_CARD2,
    ACTION_KIND,
    ACTION_LINE,
    ACTION_SLOT,
    FINAL_TURNS,
    LINE_A,
    LINE_B,
    LINES_AT,
    MAJORITY,
    MAX_PILE,
    NO_CARD,
    NO_PLAYER,
    NUM_ACTIONS,
    PHASE_NAMES,
    ROW_SLOTS,
    SCORING_POINTS,
    Kind,
    Phase,
    action_name,
)
from .setup import shuffle_discards
from .state import State

_PLAY, _DRAW_PHASE, _GAME_OVER = (int(p) for p in Phase)
_PLACE, _REMOVE, _DISCARD, _END_PLAY, _TAKE, _DRAW, _SKIP = (int(k) for k in Kind)
_NONE = len(Kind)  # the kind of a finished game's (ignored) action
_LINE_BIT = (np.uint32(1) << np.arange(32, dtype=np.uint32))[: len(LINE_A)]
_ISLAND_BIT = (np.uint16(1) << np.arange(16, dtype=np.uint16))[:12]
_OTHER_END = (LINE_A.astype(np.int16) + LINE_B).astype(np.int8)  # a + b - x is the end not x
_ONE = cards.ONE
_WORTH = np.array([*SCORING_POINTS, 0], dtype=np.int8)  # points of scorings 1, 2 (K7.2)


def step(state: State, actions: np.ndarray) -> State:
    """Apply one decision in every game of the batch and return the new state.

    Args:
        state: a batch of `B` games; not modified.
        actions: (B,) integer actions (the spec's action table) for each game's
            `current_player`. Games that are over ignore their entry.

    Returns:
        A new `State`: `rewards` holds this step's rewards (K10.1), `terminated`,
        `truncated` and `winner` the end, `legal` the next mask.

    Raises:
        TypeError: `actions` is not an integer array.
        ValueError: wrong shape, out of range, or illegal in some game (the message
            names the games, players, phases and actions at fault); the state is
            then unchanged.
    """
    actions = validate_actions(state, actions)
    new = state.copy()
    _apply(new, actions)
    return new


def step_inplace(state: State, actions: np.ndarray, validate: bool = True) -> State:
    """Like `step`, but updates `state`'s arrays in place and returns it.

    On an error nothing has been written. `validate=False` skips the checks, for
    callers that have already checked the actions against `state.legal` (an
    unchecked illegal action corrupts the state).
    """
    if validate:
        actions = validate_actions(state, actions)
    else:
        actions = np.asarray(actions, dtype=np.int64)
    _apply(state, actions)
    return state


def validate_actions(state: State, actions: object) -> np.ndarray:
    """Check `actions` against the batch; return them as a (B,) int64 array or raise.

    Raises:
        TypeError: not an integer array.
        ValueError: wrong shape, or an action out of range or illegal in a game that
            is not over (the message lists the games, players, phases and actions).
    """
    return check_actions(actions, state.legal, lambda: state.phase != _GAME_OVER, _describe(state))


def _describe(state: State) -> Callable[[int, int], str]:
    """What `check_actions` says of game g's action a: player, phase and the action."""

    def describe(g: int, act: int) -> str:
        what = action_name(act) if 0 <= act < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"
        phase = PHASE_NAMES[int(state.phase[g])]
        if state.final_turns_left[g] > 0:
            phase += " (final turn)"
        return (
            f"player {int(state.current_player[g])} in phase {phase} "
            f"cannot take action {act} ({what})"
        )

    return describe


def _apply(s: State, a: np.ndarray) -> None:
    """Apply validated actions `a` (B,) int64 in place (see the module docstring)."""
    s.rewards.fill(0)
    # (mode="clip": a finished game's entry may be anything, and is ignored below)
    kind = ACTION_KIND.take(a, mode="clip")
    over = s.phase == _GAME_OVER
    if np.count_nonzero(over):
        kind[over] = _NONE
    games = [(kind == k).nonzero()[0] for k in range(len(Kind))]
    place, remove, discard, end_play, take, draw, skip = games
    lost_bridges = [remove]  # games whose opponent lost bridges: stone losses (K5.4)
    if place.size:
        lost_bridges.append(_place(s, place, a.take(place)))
    if remove.size:
        _remove(s, remove, a.take(remove))
    if discard.size:
        _discard(s, discard, a.take(discard))
    if take.size:
        _take(s, take, a.take(take))
    if draw.size:
        _draw(s, draw)
    changed = np.concatenate(lost_bridges)
    if changed.size:
        _stone_losses(s, changed)
        _early_end(s, np.concatenate([place, remove]))
    if end_play.size:
        final = s.final_turns_left.take(end_play) > 0
        s.phase[end_play[~final]] = _DRAW_PHASE  # K3.2
        if np.count_nonzero(final):
            _end_final_turn(s, end_play[final])
    turn_over = np.concatenate([take, draw, skip])
    if turn_over.size:
        skipped = np.arange(len(turn_over)) >= len(take) + len(draw)
        _end_turn(s, turn_over, skipped)
    masks.refresh(s)


# ---- the actions ---------------------------------------------------------------


def _seat_index(s: State, g: np.ndarray) -> np.ndarray:
    """Flat indices into (B, 2) arrays of the player to act in games `g`."""
    return 2 * g + s.current_player.take(g)


def _spend_face_up(s: State, g: np.ndarray, fp: np.ndarray, x: np.ndarray) -> None:
    """K4.5: p spends one card of island x face up; K6.7: the opponent saw it go."""
    one = _ONE.take(x)
    flat(s.hands)[fp] = s.hands.take(fp) - one
    s.discard_up[g] = s.discard_up.take(g) + one
    known = s.known.take(fp)
    flat(s.known)[fp] = known - one * ((known & (one * np.uint32(3))) != 0)


def _place(s: State, g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """K4.1: put a bridge on the free line, paying a card of end x; then the claims
    K5.2/K5.3 at x, then at the other end. Returns the games with a claim (the
    opponent lost bridges there)."""
    fp = _seat_index(s, g)
    x = ACTION_CARD.take(a)
    line = ACTION_LINE.take(a)
    _spend_face_up(s, g, fp, x)
    flat(s.bridges)[fp] = s.bridges.take(fp) | _LINE_BIT.take(line)
    first = _claim(s, fp, x)
    second = _claim(s, fp, _OTHER_END.take(line) - x)
    return g[first | second]


def _claim(s: State, fp: np.ndarray, x: np.ndarray) -> np.ndarray:
    """K5.2, K5.3: where p's count at island x now equals its majority threshold, p
    claims x: a stone if p's supply is not empty (A2), and every bridge of the
    opponent at x goes back. `fp` are the players' flat indices into (B, 2) arrays.
    Returns (b,) bool: the games with a claim."""
    at = LINES_AT.take(x)
    claimed = np.bitwise_count(s.bridges.take(fp) & at) == MAJORITY.take(x)
    c = claimed.nonzero()[0]
    if c.size:
        fc = fp[c]
        stones = s.stones.take(fc)
        room = np.bitwise_count(stones) < s.config.stones_per_player
        flat(s.stones)[fc] = stones | (_ISLAND_BIT.take(x[c]) * room)
        fq = fc ^ 1
        flat(s.bridges)[fq] = s.bridges.take(fq) & ~at[c]
    return claimed


def _remove(s: State, g: np.ndarray, a: np.ndarray) -> None:
    """K4.2: pay two cards of the line's ends; the opponent's bridge goes back."""
    fp = _seat_index(s, g)
    _spend_face_up(s, g, fp, ACTION_CARD.take(a))
    _spend_face_up(s, g, fp, ACTION_CARD2.take(a))
    fq = fp ^ 1
    flat(s.bridges)[fq] = s.bridges.take(fq) & ~_LINE_BIT.take(ACTION_LINE.take(a))


def _stone_losses(s: State, g: np.ndarray) -> None:
    """K5.4: the opponent's stones where the opponent no longer holds the island go
    back (the mover's counts never fall in its own action, K5.5)."""
    fq = _seat_index(s, g) ^ 1
    flat(s.stones)[fq] = s.stones.take(fq) & held_islands(s.bridges.take(fq))


def _discard(s: State, g: np.ndarray, a: np.ndarray) -> None:
    """K4.4 / K6.4: one card face down under the discard pile; in the DRAW phase a
    hand-back. K6.7: the opponent forgets one copy of every island it knew."""
    fp = _seat_index(s, g)
    one = _ONE.take(ACTION_CARD.take(a))
    flat(s.hands)[fp] = s.hands.take(fp) - one
    flat(s.discard_down)[fp] = s.discard_down.take(fp) + one
    known = s.known.take(fp)
    flat(s.known)[fp] = known - cards.present(known)
    s.handed_back[g] = s.phase.take(g) == _DRAW_PHASE


def _pop_pile(s: State, g: np.ndarray) -> np.ndarray:
    """The top card of each game's pile (-1 where empty), taken off the pile."""
    size = s.pile_size.take(g)
    has = size > 0
    pos = MAX_PILE * g + np.maximum(size - 1, 0)
    top = np.where(has, s.pile.take(pos), NO_CARD).astype(np.int8)
    flat(s.pile)[pos[has]] = NO_CARD
    s.pile_size[g] = size - has
    return top


def _take(s: State, g: np.ndarray, a: np.ndarray) -> None:
    """K6.1: take a face-up card, refilled at once from the pile; K6.7: now known."""
    fp = _seat_index(s, g)
    fi = ROW_SLOTS * g + ACTION_SLOT.take(a)
    one = _ONE.take(s.face_up.take(fi))
    flat(s.hands)[fp] = s.hands.take(fp) + one
    flat(s.known)[fp] = s.known.take(fp) + one
    flat(s.face_up)[fi] = _pop_pile(s, g)


def _draw(s: State, g: np.ndarray) -> None:
    """K6.2: take the top card of the pile (seen by nobody else)."""
    fp = _seat_index(s, g)
    flat(s.hands)[fp] = s.hands.take(fp) + _ONE.take(_pop_pile(s, g))


# ---- turn ends, scorings, the end ----------------------------------------------


def _early_end(s: State, g: np.ndarray) -> None:
    """K8.2: in rounds 2 and 3 a player without bridges loses at once; both: a draw."""
    if not s.config.early_end or g.size == 0:
        return
    g = g[s.phase.take(g) != _GAME_OVER]
    bare = s.bridges[g] == 0  # (b, 2)
    end = (s.num_scorings.take(g) > 0) & bare.any(axis=1)
    if np.count_nonzero(end):
        e = end.nonzero()[0]
        # The one with bridges wins: player 1 if player 0 has none, and vice versa.
        winner = np.where(bare[e, 0] & bare[e, 1], NO_PLAYER, bare[e, 0].astype(np.int8))
        _end_game(s, g[e], winner)


def _end_turn(s: State, g: np.ndarray, skipped: np.ndarray) -> None:
    """K6.5: a non-final turn ends (TAKE, DRAW or SKIP); then exhaustion (K7.1) with
    its scoring or the start of the final turns (K7.2-K7.4), then truncation (K9.1)."""
    s.turn[g] += 1
    s.last_turn_skipped[g] = skipped
    s.handed_back[g] = False
    s.phase[g] = _PLAY
    s.current_player[g] ^= 1
    empty = (s.pile_size.take(g) == 0) & (s.face_up[g] < 0).all(axis=1)
    final = np.zeros(len(g), dtype=bool)
    if np.count_nonzero(empty):
        e = g[empty]
        last = s.num_scorings.take(e) == len(SCORING_POINTS)
        # K7.4: the third exhaustion starts the final turns, drawer's opponent first.
        s.final_turns_left[e[last]] = FINAL_TURNS
        final[empty] = last
        mid = e[~last]
        if mid.size:
            _score(s, mid)  # K7.2
            shuffle_discards(s, mid)  # K7.3
            _early_end(s, mid)
    # K9.1: truncation, unless the final turns have begun or the game is over.
    cut = ~final & (s.turn.take(g) >= s.config.max_turns) & (s.phase.take(g) != _GAME_OVER)
    if np.count_nonzero(cut):
        _truncate(s, g[cut])


def _end_final_turn(s: State, g: np.ndarray) -> None:
    """K7.4, K7.5: a final turn ends (a completed turn); after the second one the
    third scoring, and the game is over (K8.1)."""
    s.turn[g] += 1
    s.current_player[g] ^= 1
    left = s.final_turns_left.take(g) - 1
    s.final_turns_left[g] = left
    done = g[left == 0]
    if done.size:
        _score(s, done)
        _end_game(s, done, _final_winner(s, done))


def _score(s: State, g: np.ndarray) -> None:
    """K7.2 / K7.5: the player with more stones on the board gets 1 point (first
    scoring), 2 (second) or the difference (third); equal counts give nothing."""
    n = np.bitwise_count(s.stones[g]).astype(np.int8)  # (b, 2)
    k = s.num_scorings.take(g)
    diff = n[:, 0] - n[:, 1]
    worth = np.where(k < len(SCORING_POINTS), _WORTH.take(k), np.abs(diff))
    pts = np.zeros((len(g), 2), dtype=np.int8)
    pts[:, 0] = worth * (diff > 0)
    pts[:, 1] = worth * (diff < 0)
    s.scorings[g, k] = pts
    s.num_scorings[g] = k + 1


def _final_winner(s: State, g: np.ndarray) -> np.ndarray:
    """K8.1: higher total; then more points in the third scoring; then more bridges
    on the board; else a draw (-1)."""
    sc = s.scorings[g].astype(np.int16)  # (b, 3, 2)
    keys = (sc.sum(axis=1), sc[:, 2], np.bitwise_count(s.bridges[g]).astype(np.int16))
    winner = np.full(len(g), NO_PLAYER, dtype=np.int8)
    open_ = np.ones(len(g), dtype=bool)
    for key in keys:
        d = key[:, 0] - key[:, 1]
        winner[open_ & (d > 0)] = 0
        winner[open_ & (d < 0)] = 1
        open_ &= d == 0
    return winner


def _end_game(s: State, g: np.ndarray, winner: np.ndarray) -> None:
    """K8.3 / K10.1: the game is over; winner +1, loser -1, a draw 0 each."""
    s.terminated[g] = True
    s.winner[g] = winner
    s.phase[g] = _GAME_OVER
    s.current_player[g] = NO_PLAYER
    s.handed_back[g] = False
    w = winner.astype(np.int64)
    r = np.zeros((len(g), 2), dtype=np.float32)
    has = w >= 0
    r[has, w[has]] = 1.0
    r[has, 1 - w[has]] = -1.0
    s.rewards[g] = r


def _truncate(s: State, g: np.ndarray) -> None:
    """K9.1: stopped after max_turns: not terminated, no winner, rewards 0."""
    s.truncated[g] = True
    s.phase[g] = _GAME_OVER
    s.current_player[g] = NO_PLAYER
