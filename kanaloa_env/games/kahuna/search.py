"""Kahuna's pieces for the search bot (`kanaloa_env.bots.search.SearchBot(game="kahuna")`).

The search loop (`evaluate_actions`, `SearchBot`) is game-agnostic; `KahunaSearch`
gives it Kahuna's belief sampling (`core.kahuna.belief`), steps, default policy,
horizon and value of a stopped position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...bots.search import check_act, keyed_legal
from ...core.kahuna import cards
from ...core.kahuna.belief import determinize_from_keys, hidden_counts
from ...core.kahuna.constants import NUM_ACTIONS
from ...core.kahuna.state import State
from ...core.kahuna.step import step_inplace
from ...core.rng import draws, mix64
from .heuristic import HeuristicBot

__all__ = [
    "KAHUNA_SEARCH_DEFAULTS",
    "VALUE_WEIGHTS",
    "KahunaSearch",
    "decision_keys",
    "value_features",
    "win_chance",
]

KAHUNA_SEARCH_DEFAULTS: dict[str, Any] = {
    "rollouts": 24,
    "policy": "heuristic",
    "horizon": "round",
}
"""The `SearchBot` fields of Kahuna's "search" bot (`make_bot("search", game="kahuna")`)."""


@dataclass
class KahunaSearch:
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

    rollout_policy: str = "heuristic"
    horizon: str = "round"
    _heuristic: HeuristicBot = field(default_factory=HeuristicBot, repr=False)

    def check(
        self, view: object, seats: object, masks: object
    ) -> tuple[State, np.ndarray, np.ndarray]:
        return check_act(view, seats, masks, State, NUM_ACTIONS, "Kahuna State")

    def info_keys(self, view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
        return decision_keys(view, seats, base)

    def determinize(
        self, view: State, seats: np.ndarray, counts: np.ndarray, keys: np.ndarray
    ) -> State:
        return determinize_from_keys(view, seats, counts, keys)

    def step(self, state: State, actions: np.ndarray) -> None:
        # The search passes legal actions only (the mask's, the policy's).
        step_inplace(state, actions, validate=False)

    def marker(self, state: State) -> np.ndarray:
        return state.num_scorings.astype(np.int64)

    def stopped(self, state: State, marker: np.ndarray) -> np.ndarray:
        done = state.terminated | state.truncated
        if self.horizon == "game":
            return done
        return done | (state.num_scorings > marker)

    def value(self, state: State, seats: np.ndarray) -> np.ndarray:
        over = state.terminated | state.truncated
        final = np.where(state.winner < 0, 0.5, (state.winner == seats).astype(np.float64)).astype(
            np.float64
        )
        if over.all():
            return final
        return np.where(over, final, win_chance(state, seats))

    def policy(self, state: State, keys: np.ndarray, step: int) -> np.ndarray:
        if self.rollout_policy == "random":
            return keyed_legal(state.legal, draws(keys, step, 1)[:, 0])
        seats = state.current_player.astype(np.int64)
        # The sampled state as the view: in a determinization both hands are known anyway.
        return self._heuristic.act(_NO_OBS, state.legal, _NO_RNG, view=state, seats=seats)

    def prior(self, view: State, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self._heuristic.act(_NO_OBS, masks, _NO_RNG, view=view, seats=seats)


# The heuristic reads neither observations nor its generator (it is deterministic).
_NO_OBS = np.zeros((0, 0), dtype=np.float32)
_NO_RNG = np.random.default_rng(0)


def value_features(state: State, seats: np.ndarray) -> np.ndarray:
    """(B, 4) float64 features of a position for `seats` (B,): the difference of the
    points scored so far, of the stones on the board, of the bridges on the board
    (over 25), and +1 when `seats` is to act (-1 otherwise). Each is the seat's figure
    less the opponent's, so swapping the seats negates them."""
    rows = np.arange(state.batch_size)
    me = np.asarray(seats, dtype=np.intp)
    q = 1 - me
    points = state.scorings.sum(axis=1, dtype=np.int64)
    stones = np.bitwise_count(state.stones).astype(np.int64)
    bridges = np.bitwise_count(state.bridges).astype(np.int64)
    return np.stack(
        [
            (points[rows, me] - points[rows, q]).astype(np.float64),
            (stones[rows, me] - stones[rows, q]).astype(np.float64),
            (bridges[rows, me] - bridges[rows, q]) / 25.0,
            np.where(state.current_player == me, 1.0, -1.0),
        ],
        axis=1,
    )


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
    weights."""
    f = value_features(state, seats)
    k = np.clip(state.num_scorings.astype(np.intp), 1, 2)
    w = np.stack([VALUE_WEIGHTS[1], VALUE_WEIGHTS[2]])[k - 1]
    return np.asarray(1.0 / (1.0 + np.exp(-(f * w).sum(axis=1))))


def decision_keys(view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
    """(b,) uint64: a key per decision from `base` and what the seat knows of its game
    (K12: its hand and face-down discards, the board, the row, the public discards,
    the counts, the remembered cards, the flags), so equal decisions get equal keys
    whatever else is in the batch; the real state and the seat's public view give
    the same key."""
    b = view.batch_size
    rows = np.arange(b)
    me = seats.astype(np.intp)
    q = 1 - me
    h = mix64(np.full(b, base, dtype=np.uint64) ^ seats.astype(np.uint64))
    parts = [
        view.hands[rows, me],
        view.discard_down[rows, me],
        view.known[rows, me],
        view.known[rows, q],
        view.discard_up,
        view.phase,
        view.current_player,
        view.starting_player,
        view.turn,
        view.final_turns_left,
        view.handed_back,
        view.last_turn_skipped,
        view.num_scorings,
        view.pile_size,
        cards.size(view.hands[rows, me]),
    ]
    parts.extend(hidden_counts(view, me).T)
    for name in ("bridges", "stones", "face_up", "scorings"):
        parts.extend(getattr(view, name).reshape(b, -1).T)
    for col in parts:
        h = mix64(h ^ np.asarray(col).astype(np.int64).view(np.uint64))
    return h
