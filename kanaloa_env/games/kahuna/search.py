"""Kahuna's pieces for the search bot (`make_bot("search", game="kahuna")`,
`SearchBot(game="kahuna")`).

The search loop (`kanaloa_env.bots.search`) is game-agnostic; `KahunaSearch` gives it
Kahuna's belief sampling (`core.kahuna.belief`), steps, default policy, horizon and
value of a stopped position; `Game.search_pieces` and `Game.search_defaults` find
them here by convention (`search_pieces`, `SEARCH_DEFAULTS`). The value of stopped
positions and the decision keys are compiled per game (`core.kernels`): the search
asks for them at small batches, where numpy's cost per call dominated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

import numpy as np

from ...core.batch import check_seats
from ...core.kahuna.belief import determinize_from_keys
from ...core.kahuna.cards import num_cards
from ...core.kahuna.constants import NUM_ACTIONS, NUM_SCORINGS, ROW_SLOTS
from ...core.kahuna.state import State
from ...core.kahuna.step import step_inplace
from ...core.kernels import call, kernel, popcount, small_kernel
from ...core.rng import mix64_one
from ..search import HeuristicRollouts, SearchRules
from .heuristic import HeuristicBot

__all__ = [
    "SEARCH_DEFAULTS",
    "VALUE_WEIGHTS",
    "KahunaSearch",
    "decision_keys",
    "search_pieces",
    "value_features",
    "win_chance",
]

SEARCH_DEFAULTS: dict[str, Any] = {
    "rollouts": 24,
    "policy": "heuristic",
    "horizon": "round",
}
"""The `SearchBot` fields of Kahuna's "search" bot (`make_bot("search", game="kahuna")`)."""


def value_features(state: State, seats: np.ndarray) -> np.ndarray:
    """(B, 4) float64 features of a position for `seats` (B,): the difference of the
    points scored so far, of the stones on the board, of the bridges on the board
    (over 25), and +1 when `seats` is to act (-1 otherwise). Each is the seat's figure
    less the opponent's, so swapping the seats negates them.
    `state` is the batch of games."""
    return _features_of(state, seats)[0]


# Fitted by `python benchmarks/fit_kahuna_value.py` (logistic regression on 4000 heuristic
# self-play games, seed 2025, one row per player right after scorings 1 and 2; test
# log-loss 0.521 and 0.274 against 0.693 for the constant 0.5). Features:
# `value_features` (points, stones, bridges / 25, to act). The bridges weigh most:
# a player short of bridges is near the early end (K8.2) and has fewer to build on.
VALUE_WEIGHTS: dict[int, np.ndarray] = {
    1: np.array([0.497, -0.054, 9.398, 0.464]),
    2: np.array([0.650, 0.112, 8.557, 0.334]),
}


def win_chance(state: State, seats: np.ndarray) -> np.ndarray:
    """(B,) float64 in (0, 1): the estimated chance of `seats` to win the game from a
    position after scoring 1 or 2 (a logistic model, `VALUE_WEIGHTS`, of
    `value_features`); positions before the first scoring use the first scoring's
    weights.
    `state` is the batch of games."""
    return _chance(_features_of(state, seats)[1])


_WEIGHTS = np.stack([VALUE_WEIGHTS[1], VALUE_WEIGHTS[2]])  # (2, 4): after scoring 1, 2


def _seats_of(seats: np.ndarray, B: int) -> np.ndarray:
    """(B,) int64 seats, C-contiguous, from (B,) seats or one (broadcast)."""
    me = np.asarray(seats, dtype=np.int64)
    if me.shape == (B,) and me.flags.c_contiguous:
        return me
    return np.ascontiguousarray(np.broadcast_to(me, (B,)))


def _board(state: State) -> tuple[np.ndarray, ...]:
    """The arrays of `state` that `_features_at` reads (`board`), in its order."""
    return state.scorings, state.stones, state.bridges, state.current_player, state.num_scorings


def _features_of(state: State, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B, 4) `value_features` and (B,) their weighted sums (`_features_at`)."""
    B = state.batch_size
    feats = np.empty((B, 4), dtype=np.float64)
    logits = np.empty(B, dtype=np.float64)
    me = _seats_of(seats, B)
    call(_features_all, _board(state), me, _WEIGHTS, feats, logits)
    return feats, logits


def _chance(logits: np.ndarray) -> np.ndarray:
    """The logistic function of `logits` (B,), computed with numpy, not in the kernel:
    numpy's vectorised `exp` may differ from C's in the last bit, and the search's
    decisions are defined by numpy's."""
    return np.asarray(1.0 / (1.0 + np.exp(-logits)))


@small_kernel
def _features_at(board, g, seat, weights, feats):  # type: ignore[no-untyped-def]
    """Write game g's `value_features` for `seat` into `feats` (4,); return their sum
    weighted by `weights` (2, 4) of the scorings done (1 or 2; the first's before the
    first), summed one by one from 0 as numpy sums fewer than 8 terms. `board`: the
    state's scorings, stones, bridges, current_player and num_scorings."""
    scorings, stones, bridges, to_act, num_scorings = board
    q = 1 - seat
    points = 0
    for k in range(NUM_SCORINGS):
        points += np.int64(scorings[g, k, seat]) - np.int64(scorings[g, k, q])
    stones_ = popcount(np.int64(stones[g, seat])) - popcount(np.int64(stones[g, q]))
    bridges_ = popcount(np.int64(bridges[g, seat])) - popcount(np.int64(bridges[g, q]))
    feats[0] = np.float64(points)
    feats[1] = np.float64(stones_)
    feats[2] = np.float64(bridges_) / 25.0
    feats[3] = 1.0 if to_act[g] == seat else -1.0
    w = weights[min(max(np.int64(num_scorings[g]), 1), 2) - 1]
    z = 0.0
    for i in range(4):
        z += feats[i] * w[i]
    return z


@kernel
def _features_all(board, seats, weights, feats, logits):  # type: ignore[no-untyped-def]
    for g in range(len(seats)):
        logits[g] = _features_at(board, g, seats[g], weights, feats[g])


@kernel
def _value_of(ends, board, seats, weights, out, over, logits):  # type: ignore[no-untyped-def]
    """`KahunaSearch.value`: into `out` the value of each finished game (K8.1, K9.1),
    into `over` which are finished, into `logits` the weighted features of every game
    (`_features_at`); returns whether all are finished. `ends`: the state's
    terminated, truncated and winner."""
    terminated, truncated, winner = ends
    feats = np.empty(4, dtype=np.float64)
    all_over = True
    for g in range(len(seats)):
        over[g] = terminated[g] or truncated[g]
        all_over = all_over and over[g]
        out[g] = 0.5 if winner[g] < 0 else 1.0 if winner[g] == seats[g] else 0.0
        logits[g] = _features_at(board, g, seats[g], weights, feats)
    return all_over


def decision_keys(view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
    """(b,) uint64: a key per decision from `base` and what the seat `seats[i]` knows of
    its game of `view`
    (K12: its hand and face-down discards, the board, the row, the public discards,
    the counts, the remembered cards, the flags), so equal decisions get equal keys
    whatever else is in the batch; the real state and the seat's public view give
    the same key."""
    me = check_seats(seats.astype(np.intp), view.batch_size, 2).astype(np.int64)
    out = np.empty(view.batch_size, dtype=np.uint64)
    call(_decision_keys, view.kernel_arrays(), me, np.uint64(base), out)
    return out


@small_kernel
def _mix(h, value):  # type: ignore[no-untyped-def]
    """`mix64` of the key `h` xor an integer (its int64 bits as uint64)."""
    return mix64_one(h ^ np.uint64(np.int64(value)))


@kernel
def _decision_keys(s, seats, base, out):  # type: ignore[no-untyped-def]
    """`decision_keys` into `out`: per game, `mix64` of the key so far xor each of what
    the seat knows in turn, in one fixed order (the keys, and so the deals sampled
    from them, depend on it)."""
    for g in range(len(seats)):
        me = seats[g]
        q = 1 - me
        h = mix64_one(base ^ np.uint64(me))
        h = _mix(h, s.hands[g, me])
        h = _mix(h, s.discard_down[g, me])
        h = _mix(h, s.known[g, me])
        h = _mix(h, s.known[g, q])
        h = _mix(h, s.discard_up[g])
        h = _mix(h, s.phase[g])
        h = _mix(h, s.current_player[g])
        h = _mix(h, s.starting_player[g])
        h = _mix(h, s.turn[g])
        h = _mix(h, s.final_turns_left[g])
        h = _mix(h, s.handed_back[g])
        h = _mix(h, s.last_turn_skipped[g])
        h = _mix(h, s.num_scorings[g])
        h = _mix(h, s.pile_size[g])
        h = _mix(h, num_cards(np.int64(s.hands[g, me])))
        # The hidden places (`belief.hidden_counts`): the opponent's cards beyond `known`,
        # its face-down discards, the pile.
        theirs = num_cards(np.int64(s.hands[g, q])) - num_cards(np.int64(s.known[g, q]))
        h = _mix(h, theirs + s.hidden_hand[g, q])
        h = _mix(h, num_cards(np.int64(s.discard_down[g, q])) + s.hidden_down[g, q])
        h = _mix(h, s.pile_size[g])
        for p in range(2):
            h = _mix(h, s.bridges[g, p])
        for p in range(2):
            h = _mix(h, s.stones[g, p])
        for slot in range(ROW_SLOTS):
            h = _mix(h, s.face_up[g, slot])
        for k in range(NUM_SCORINGS):
            for p in range(2):
                h = _mix(h, s.scorings[g, k, p])
        out[g] = h


@dataclass
class KahunaSearch(HeuristicRollouts):
    """Kahuna's `SearchGame`: belief sampling, the default policy, horizon and value.

    Horizon "round" stops a rollout at the next scoring (K7.2; the third scoring ends
    the game), "game" at the end of the game. A finished game is worth 1 for a win,
    0 for a loss and 0.5 for a draw or a truncated game (K8.1, K9.1); a game stopped
    after scoring 1 or 2 is worth `win_chance`, the chance to win estimated from the
    points and the board.

    Attributes:
        rollout_policy: "heuristic" (Kahuna's `HeuristicBot`, reading the full sampled
            state) or "random" (uniform over the legal actions).
        horizon: "round" or "game".
    """

    rules: ClassVar[SearchRules] = SearchRules(
        State,
        "Kahuna State",
        NUM_ACTIONS,
        info_keys=decision_keys,
        determinize=determinize_from_keys,
        # The search passes legal actions only (the mask's, the policy's).
        step=partial(step_inplace, validate=False),
        round_counter="num_scorings",
    )
    _heuristic: HeuristicBot = field(default_factory=HeuristicBot, repr=False)

    def value(self, state: State, seats: np.ndarray) -> np.ndarray:
        """`SearchGame.value` of each game of `state` for `seats`: the result of a finished
        game, else the seat's chance from the position (`win_chance`)."""
        B = state.batch_size
        out = np.empty(B, dtype=np.float64)
        over = np.empty(B, dtype=bool)
        logits = np.empty(B, dtype=np.float64)
        me = _seats_of(seats, B)
        ends = (state.terminated, state.truncated, state.winner)
        all_over = call(_value_of, ends, _board(state), me, _WEIGHTS, out, over, logits)
        if all_over:
            return out
        return np.where(over, out, _chance(logits))


def search_pieces(policy: str, horizon: str) -> KahunaSearch:
    """Kahuna's `SearchGame` with the default `policy` and `horizon` (`Game.search_pieces`)."""
    return KahunaSearch(rollout_policy=policy, horizon=horizon)
