"""Kanaloa's pieces for the search bot (`make_bot("search")`, `SearchBot(game="kanaloa")`).

The search loop (`kanaloa_env.bots.search`) is game-agnostic; `KanaloaSearch` gives
it Kanaloa's belief sampling (`core.kanaloa.belief`), steps, default policy (the
heuristic bot), horizon and the value of a stopped position (`win_chances`).
`Game.search_pieces` and `Game.search_defaults` find them here by convention
(`search_pieces`, `SEARCH_DEFAULTS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...core.kanaloa import route
from ...core.kanaloa.belief import determinize_from_keys
from ...core.kanaloa.constants import NUM_ACTIONS
from ...core.kanaloa.state import State
from ...core.kanaloa.step import step_inplace
from ...core.rng import mix64
from ..search import HeuristicRollouts, SearchRules
from .heuristic import HeuristicBot

__all__ = [
    "SEARCH_DEFAULTS",
    "WIN_WEIGHTS",
    "KanaloaSearch",
    "decision_keys",
    "search_pieces",
    "win_chances",
]

SEARCH_DEFAULTS: dict[str, Any] = {
    "rollouts": 512,
    "policy": "heuristic",
    "horizon": "round",
}
"""The `SearchBot` fields of Kanaloa's "search" bot (`make_bot("search", game="kanaloa")`)."""


def win_chances(state: State) -> np.ndarray:
    """(B, P) estimated chance of each seat to win from the boats' positions.

    A conditional logit over the seats: seat p's chance is proportional to
    exp(w . f_p) with features of its boat relative to the others (`_features`);
    the weights `WIN_WEIGHTS` were fitted on heuristic self-play (see there).
    `state` is the batch of games.
    """
    lap = route.lap_length(state, np.arange(state.batch_size)).astype(np.float64)
    f = _features(state.progress.astype(np.float64), lap)
    w = WIN_WEIGHTS[state.num_players]
    z = f @ w
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _features(progress: np.ndarray, lap: np.ndarray) -> np.ndarray:
    """(B, P, F) per seat: lead over the best other boat and margin over the last
    other boat, both in laps, and whether it is the last boat."""
    P = progress.shape[1]
    others = np.where(np.eye(P, dtype=bool)[None], np.nan, progress[:, None, :])
    best = np.nanmax(others, axis=2)
    last = np.nanmin(others, axis=2)
    lead = (progress - best) / lap[:, None]
    margin = (progress - last) / lap[:, None]
    is_last = (progress < last).astype(np.float64)
    return np.stack([lead, margin, is_last], axis=2)


# Fitted by `python benchmarks/fit_search_value.py` (4000 heuristic self-play games per
# table size, seed 2024 + P; test log-loss 0.999, 1.262, 1.472 at 3, 4, 5 players against
# 1.099, 1.386, 1.609 for a uniform guess). Features: lead, margin, is last (`_features`).
WIN_WEIGHTS: dict[int, np.ndarray] = {
    3: np.array([0.199, 1.606, 0.172]),
    4: np.array([0.468, 1.622, 0.035]),
    5: np.array([0.315, 2.258, 0.103]),
}


def decision_keys(view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
    """(b,) uint64: a key per decision from `base` and what the seat `seats[i]` knows of
    its game of `view`
    (its hand and the public fields), so equal decisions get equal keys whatever
    else is in the batch."""
    b = view.batch_size
    rows = np.arange(b)
    h = mix64(np.full(b, base, dtype=np.uint64) ^ seats.astype(np.uint64))
    parts = [view.hands[rows, seats]]
    for name in (
        "phase",
        "round",
        "current_player",
        "leader",
        "num_played",
        "played",
        "trump",
        "pending",
        "present_slots",
    ):
        parts.append(getattr(view, name))
    for name in ("history", "progress", "boat_field", "announced", "voids", "tricks_won", "route"):
        parts.extend(getattr(view, name).T)
    for col in parts:
        h = mix64(h ^ col.astype(np.int64).view(np.uint64))
    return h


@dataclass
class KanaloaSearch(HeuristicRollouts):
    """Kanaloa's `SearchGame`: belief sampling, the default policy, horizon and value.

    `value` at the horizon "round" estimates the deciding seat's chance to win
    from the boats' positions at the start of the next round (`win_chances`); a
    finished game is worth 1 for a win, 0 otherwise (a truncated game 0).
    """

    rules: ClassVar[SearchRules] = SearchRules(
        State,
        "kanaloa_env.core.kanaloa.State",
        NUM_ACTIONS,
        info_keys=decision_keys,
        determinize=determinize_from_keys,
        step=step_inplace,
        round_counter="round",
    )
    _heuristic: HeuristicBot = field(default_factory=HeuristicBot, repr=False)

    def value(self, state: State, seats: np.ndarray) -> np.ndarray:
        """`SearchGame.value` of each game of `state` for `seats`: 1 for a win, 0 for a
        loss, else the seat's chance from the position (`win_chances`)."""
        rows = np.arange(state.batch_size)
        won = (state.winner == seats).astype(np.float64)
        over = state.terminated | state.truncated
        if over.all():
            return won
        chances = win_chances(state)[rows, seats]
        return np.where(over, won, chances)


def search_pieces(policy: str, horizon: str) -> KanaloaSearch:
    """Kanaloa's `SearchGame` with the default `policy` and `horizon` (`Game.search_pieces`)."""
    return KanaloaSearch(rollout_policy=policy, horizon=horizon)
