"""What a game gives the search bot, and the helpers every game's pieces share.

The search bot (`kanaloa_env.bots.search.SearchBot`) is written once for all games:
it determinizes, plays rollouts and values the stopped games through a `SearchGame`,
which a game builds in its `search.py` (`Game.search_pieces(policy, horizon)`, with
the bot's defaults for that game in `Game.search_defaults()`). This module is the
contract between the two, below the bots, so that a game's pieces import it and
never the bots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from ..core.batch import BatchedState, check_view_call
from ..core.rng import draws

__all__ = [
    "HORIZONS",
    "POLICIES",
    "HeuristicRollouts",
    "SearchGame",
    "SearchRules",
    "check_act",
    "keyed_legal",
]

# The default policies and horizons a game's pieces take (`SearchGame` factories).
POLICIES = ("heuristic", "random")
HORIZONS = ("round", "game")


class SearchGame(Protocol):
    """What the search needs from a game (states are a `BatchedState` of that game)."""

    def check(self, view: Any, seats: Any, masks: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        """Validate a bot call's `view`, (b,) `seats` and (b, A) `masks`; return them
        as the game's state, intp seats and a bool array (TypeError/ValueError)."""
        ...

    def info_keys(self, view: Any, seats: np.ndarray, base: np.uint64) -> np.ndarray:
        """(b,) uint64 keys from `base` and only what each seat of `seats` knows of its game
        of `view`."""
        ...

    def determinize(
        self, view: Any, seats: np.ndarray, counts: np.ndarray, keys: np.ndarray
    ) -> Any:
        """`counts[i]` full states consistent with what `seats[i]` knows in game i of
        `view`, game-major, seeded by the (b,) uint64 `keys`."""
        ...

    def step(self, state: Any, actions: np.ndarray) -> None:
        """Apply (R,) actions in place.
        `state` is the batch of games."""
        ...

    def marker(self, state: Any) -> np.ndarray:
        """(R,) int: what `stopped` compares against (e.g. the round number).
        `state` is the batch of games."""
        ...

    def stopped(self, state: Any, marker: np.ndarray) -> np.ndarray:
        """(R,) bool: the game is over or has reached the horizon set at `marker`.
        `state` is the batch of games."""
        ...

    def value(self, state: Any, seats: np.ndarray) -> np.ndarray:
        """(R,) float in [0, 1]: how good a stopped position is for `seats`.
        `state` is the batch of games."""
        ...

    def policy(self, state: Any, keys: np.ndarray, step: int) -> np.ndarray:
        """(R,) legal actions of the default policy in the live games `state`;
        `keys` (R,) uint64 and `step` seed any randomness."""
        ...

    def prior(self, view: Any, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(b,) the action preferred among equal values (a cheap policy's choice) for
        `seats` in `view`, among the legal actions of `masks`."""
        ...


def keyed_legal(masks: np.ndarray, words: np.ndarray) -> np.ndarray:
    """(R,) a uniformly random legal action per row of `masks`, the k-th legal one for
    k = floor(u * count) with u from the row's random word in `words`."""
    count = masks.sum(axis=1)
    u = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    k = (u * count).astype(np.int64)
    return np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1).astype(np.int64)


# A heuristic bot that reads the state reads neither observations nor its generator.
_NO_OBS = np.zeros((0, 0), dtype=np.float32)
_NO_RNG = np.random.default_rng(0)


@dataclass(frozen=True)
class SearchRules:
    """A game's rules as the search pieces (`HeuristicRollouts`) use them.

    Attributes:
        state_type: the game's state class; `state_name` names it in errors.
        num_actions: the size of the action space (the masks' width).
        info_keys: `SearchGame.info_keys` (the game's `decision_keys`).
        determinize: `SearchGame.determinize` (the game's `determinize_from_keys`).
        step: applies (R,) legal actions to a state in place.
        round_counter: the state's field that grows when a round ends, the horizon
            "round" (Kanaloa's `round`, Kahuna's `num_scorings`).
    """

    state_type: type[BatchedState]
    state_name: str
    num_actions: int
    info_keys: Callable[[Any, np.ndarray, np.uint64], np.ndarray]
    determinize: Callable[[Any, np.ndarray, np.ndarray, np.ndarray], Any]
    step: Callable[[Any, np.ndarray], object]
    round_counter: str


@dataclass
class HeuristicRollouts:
    """A `SearchGame` but for `value`, for a game whose heuristic bot acts on states
    (`uses_state`, deterministic): its rules (`rules`, a `SearchRules`), the horizons
    "round" (until `rules.round_counter` grows, or the game ends) and "game",
    rollouts by that bot or uniformly at random (`rollout_policy` "heuristic" or
    "random"), and the bot's choice as the prior. A game's pieces subclass it, set
    `rules` and `_heuristic` (the bot) and write `value`."""

    rollout_policy: str = "heuristic"
    horizon: str = "round"
    _heuristic: Any = field(default=None, repr=False)
    rules: ClassVar[SearchRules]

    def check(
        self, view: object, seats: object, masks: object
    ) -> tuple[Any, np.ndarray, np.ndarray]:
        """`SearchGame.check`: `view`, `seats` and `masks` of a bot call checked for the
        game of `rules`."""
        r = self.rules
        return check_act(view, seats, masks, r.state_type, r.num_actions, r.state_name)

    def info_keys(self, view: Any, seats: np.ndarray, base: np.uint64) -> np.ndarray:
        """`SearchGame.info_keys`: the game's decision keys of `seats` in `view` from `base`."""
        return self.rules.info_keys(view, seats, base)

    def determinize(
        self, view: Any, seats: np.ndarray, counts: np.ndarray, keys: np.ndarray
    ) -> Any:
        """`SearchGame.determinize`: `counts[i]` full states agreeing with what `seats[i]`
        knows in game i of `view`, drawn from `keys` (the game's belief sampling)."""
        return self.rules.determinize(view, seats, counts, keys)

    def step(self, state: Any, actions: np.ndarray) -> None:
        """`SearchGame.step`: `actions` (B,) applied to `state` in place."""
        self.rules.step(state, actions)

    def marker(self, state: Any) -> np.ndarray:
        """`SearchGame.marker`: (B,) int64, each game of `state`'s round counter."""
        # A copy: the rollouts step the state, and the marker is where they began.
        counter: np.ndarray = getattr(state, self.rules.round_counter)
        return counter.astype(np.int64)

    def stopped(self, state: Any, marker: np.ndarray) -> np.ndarray:
        """`SearchGame.stopped`: (B,) bool, games of `state` over, or past the horizon
        from `marker`."""
        done: np.ndarray = state.terminated | state.truncated
        if self.horizon == "game":
            return done
        return done | (getattr(state, self.rules.round_counter) > marker)

    def policy(self, state: Any, keys: np.ndarray, step: int) -> np.ndarray:
        """`SearchGame.policy`: the heuristic's actions in `state`, or random legal ones
        drawn from `keys` and `step`."""
        if self.rollout_policy == "random":
            return keyed_legal(state.legal, draws(keys, step, 1)[:, 0])
        seats = state.current_player.astype(np.int64)
        # The sampled full state as the view: the bot reads only what its seat may.
        return self._heuristic.act(_NO_OBS, state.legal, _NO_RNG, view=state, seats=seats)

    def prior(self, view: Any, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """`SearchGame.prior`: the heuristic's choice for `seats` in `view` under `masks`."""
        return self._heuristic.act(_NO_OBS, masks, _NO_RNG, view=view, seats=seats)


def check_act(
    view: object,
    seats: object,
    masks: object,
    state_type: type[BatchedState],
    num_actions: int,
    state_name: str,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """A search bot call's arguments checked against each other (see `SearchBot.act`):
    `view` a `state_type` of b games (named `state_name` in errors), (b,) integer `seats`
    that are the players to act, (b, `num_actions`) bool `masks` within the view's legal
    mask with a legal action in every row. Returns them as the state, intp seats and
    the mask array."""
    view, seats, masks = check_view_call(
        "SearchBot", view, seats, masks, state_type, state_name, num_actions
    )
    current = view.current_player  # type: ignore[attr-defined]
    if (seats != current).any():
        raise ValueError(
            f"seats must be each game's player to act {current.tolist()}, got {seats.tolist()}"
        )
    if len(masks) and not masks.any(axis=1).all():
        raise ValueError("every mask row needs at least one legal action")
    if (masks & ~view.legal).any():  # type: ignore[attr-defined]
        raise ValueError("masks allow an action the view's legal mask does not")
    return view, seats.astype(np.intp), masks
