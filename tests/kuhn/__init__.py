"""Kuhn poker behind the game protocol: a third game that plugs in from outside the package.

It lives under `tests/` and is registered by one line of `tests/conftest.py`
(`register_game("kuhn", "kuhn:GAME")`); nothing of `kanaloa_env` names it. The rules
and the engine are `engine.py`; this package adds what the layers above ask of a
game, by the protocol's conventions: the text table (`text.py`), the picture
(`image.py`), decisions in words (`describe.py`), moves at the terminal (`moves.py`)
and the heuristic bot (`heuristic.py`). docs/adding-a-game.md walks through it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from kanaloa_env.games.protocol import Game

from . import engine
from .engine import ACTION_NAMES, NUM_ACTIONS, OBS_DIM, Config, State

__all__ = ["GAME", "KuhnGame"]


class KuhnGame(Game[State, Config]):
    """Kuhn poker (2 players, `Discrete(4)`: check, bet, call, fold); see `engine`."""

    name = "kuhn"
    title = "Kuhn poker"
    version = "v0"
    num_actions = NUM_ACTIONS
    obs_dim = OBS_DIM
    player_counts = (2,)
    default_num_players = 2
    config_class = Config
    state_class = State
    # init, init_from_keys, reset_games, step, step_inplace, validate_actions:
    # the protocol's defaults call these functions of the engine module.
    engine: ClassVar[ModuleType] = engine

    # ---- config (the protocol's defaults, plus two command-line flags) --------------

    def add_cli_options(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--ante", type=int, default=None, help="chips each player antes")
        parser.add_argument("--bet", type=int, default=None, help="chips a bet costs")

    def cli_overrides(self, args: argparse.Namespace) -> dict[str, Any]:
        return {k: getattr(args, k) for k in ("ante", "bet") if getattr(args, k) is not None}

    # ---- the engine (required) ---------------------------------------------------------

    def observe(
        self, state: State, seat: np.ndarray | int | None = None, threads: int = 1
    ) -> np.ndarray:
        return engine.observe(state, seat)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """[0, 1] everywhere: one-hots, flags and stakes over the largest stake."""
        return np.zeros(OBS_DIM, np.float32), np.ones(OBS_DIM, np.float32)

    def final_ranks(self, state: State) -> np.ndarray:
        """The winner 1, the loser 2 (every finished game has a winner)."""
        ranks = np.full((state.batch_size, 2), 1.5)
        rows = np.flatnonzero(state.winner >= 0)
        w = state.winner[rows].astype(np.intp)
        ranks[rows, w] = 1.0
        ranks[rows, 1 - w] = 2.0
        return ranks

    def action_name(self, action: int) -> str:
        return ACTION_NAMES[action]

    # ---- optional pieces ---------------------------------------------------------------

    def game_summary(self, state: State) -> dict[str, np.ndarray]:
        """Decisions taken and whether the cards were shown."""
        taken = (state.history != engine.NO_ACTION).sum(axis=1).astype(np.int8)
        folded = (state.history == engine.FOLD).any(axis=1)
        return {"decisions": taken, "showdown": state.terminated & ~folded}

    def public_view(self, state: State, seats: np.ndarray) -> State:
        return engine.public_view(state, seats)

    def determinize(
        self, view: State, seats: np.ndarray, n: int, rng: np.random.Generator
    ) -> State:
        return engine.determinize(view, seats, n, rng)

    def check_invariants(self, state: State) -> None:
        engine.check_invariants(state)

    def random_playthrough(self, config: Config, num_games: int, seed: int, **kwargs: Any) -> Any:
        return engine.random_playthrough(config, num_games=num_games, seed=seed, **kwargs)

    def to_scenario(self, state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
        return engine.to_scenario(state, i, include_key=include_key)

    def from_scenario(self, scenario: Mapping[str, Any], seed: int | None = None) -> State:
        return engine.from_scenario(scenario, seed=seed)


GAME = KuhnGame()
