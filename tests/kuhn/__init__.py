"""Kuhn poker behind the game protocol: a third game that plugs in from outside the package.

It lives under `tests/` and is registered by one line of `tests/conftest.py`
(`register_game("kuhn", "kuhn:GAME")`); nothing of `kanaloa_env` names it. The rules
and the engine are `engine.py`; this package adds what the layers above ask of a
game, by the protocol's conventions: positions and invariants (`positions.py`), the text table (`text.py`), the picture
(`image.py`), decisions in words (`describe.py`), moves at the terminal (`moves.py`)
and the heuristic bot (`heuristic.py`). docs/adding-a-game.md walks through it.
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from kanaloa_env.games.protocol import Game

from . import engine, positions
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

    observe = staticmethod(engine.observe)

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

    # ---- optional pieces: the engine's functions, and a summary --------------------------

    public_view = staticmethod(engine.public_view)
    determinize = staticmethod(engine.determinize)
    check_invariants = staticmethod(positions.check_invariants)
    random_playthrough = staticmethod(positions.random_playthrough)
    to_scenario = staticmethod(positions.to_scenario)
    from_scenario = staticmethod(positions.from_scenario)

    def game_summary(self, state: State) -> dict[str, np.ndarray]:
        """Decisions taken and whether the cards were shown."""
        taken = (state.history != engine.NO_ACTION).sum(axis=1).astype(np.int8)
        return {"decisions": taken, "showdown": engine.outcome(state).showdown}


State.load_check = positions.check_invariants  # (a loaded file must pass it)
GAME = KuhnGame()
