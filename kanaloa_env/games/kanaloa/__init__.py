"""Kanaloa behind the game protocol: `kanaloa_env.games.get_game("kanaloa")`.

The rules are the engine's (`kanaloa_env.core.kanaloa`, RULES.md); this sub-package
adds what the layers above ask of a game: the text table (`text.py`), the picture
(`image.py`), decisions in words (`describe.py`), moves at the terminal
(`moves.py`), the heuristic bot (`heuristic.py`) and the search bot's pieces
(`search.py`); belief sampling is the engine's (`core.kanaloa.belief`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ...core import kanaloa as engine
from ...core.kanaloa.config import DOLPHIN_MODES, Config
from ...core.kanaloa.constants import MAX_PLAYERS, MIN_PLAYERS
from ...core.kanaloa.observation import OBS_DIM, OFFSETS
from ...core.kanaloa.state import State
from ...core.layout import bounds
from ..protocol import ConfigFlag, Game

__all__ = ["GAME", "KanaloaGame"]

# Observation bounds that are not [0, 1]. While a game runs every boat is less than a
# lap ahead of the last (R9.2), and the move that ends it adds at most one lap, so
# progress differences stay below 2 laps of at most 24 fields; the lapping distances
# are (lap + 1 - difference) / 24 with such differences (see OBS_LAYOUT).
_LOW, _HIGH = bounds(OFFSETS, OBS_DIM, {"progress": (-2.0, 2.0), "lapping": (-1.0, 3.125)})


class KanaloaGame(Game[State, Config]):
    """Kanaloa (3-5 players, `Discrete(66)`, 416 observation floats); see RULES.md."""

    name = "kanaloa"
    title = "Kanaloa"
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    default_num_players = 4
    engine: ClassVar[ModuleType] = engine  # NUM_ACTIONS, OBS_DIM, Config, State, init, ...
    config_flags = (
        ConfigFlag(
            "--announce",
            "nil_announcement",
            "play the 'announce no tricks' variant (R3.2)",
            switch=True,
        ),
        ConfigFlag(
            "--announced-boat-moves",
            "announced_boat_moves",
            "a player who announced still moves for tricks won (R7.4)",
            switch=True,
        ),
        ConfigFlag("--dolphin", "dolphin", "dolphin move (R6.3)", choices=DOLPHIN_MODES),
        ConfigFlag(
            "--dolphin-chain", "dolphin_chain", "a dolphin bonus move may chain (R6.3)", switch=True
        ),
        ConfigFlag("--max-rounds", "max_rounds", "truncate after N rounds (R9.4)", type=int),
    )

    # ---- config ------------------------------------------------------------------

    def config_from_overrides(self, num_players: int, overrides: Mapping[str, Any]) -> Config:
        """`Game.config_from_overrides`: a Kanaloa `Config` for `num_players` players from
        `overrides` (untrusted: ValueError/TypeError naming the bad key)."""
        if not isinstance(overrides, Mapping):
            raise TypeError(f"config overrides must be an object, got {type(overrides).__name__}")
        return Config.from_dict(num_players, dict(overrides))

    # ---- the engine (the calls into it are the protocol's defaults over `engine`) --------

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """`Game.observation_bounds`: the (OBS_DIM,) lowest and highest values of Kanaloa's
        observations."""
        return _LOW, _HIGH

    def observed_table_sizes(self, observations: np.ndarray) -> np.ndarray:
        """The table size of each row of `observations`, read from its `table_size` one-hot
        (docs/observation.md)."""
        lo, hi = OFFSETS["table_size"]
        onehot = np.asarray(observations)[:, lo:hi]
        ok = (onehot.sum(axis=1) == 1) & ((onehot == 0) | (onehot == 1)).all(axis=1)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"observation row {bad} has no valid table size (its table_size one-hot is "
                f"{onehot[bad].tolist()}): observations must come from "
                "kanaloa_env.core.kanaloa.observe"
            )
        return MIN_PLAYERS + np.argmax(onehot, axis=1).astype(np.int64)

    def final_ranks(self, state: State) -> np.ndarray:
        """(B, P) ranks of the finished games of `state`: the winner first, the others by
        progress (R9.1); a truncated game by progress."""
        key = state.progress.astype(np.float64)
        winner = state.winner.astype(np.intp)
        has = winner >= 0
        key[np.flatnonzero(has), winner[has]] = np.inf
        ahead = (key[:, None, :] > key[:, :, None]).sum(axis=2)
        tied = (key[:, None, :] == key[:, :, None]).sum(axis=2) - 1
        return 1.0 + ahead + tied / 2.0

    def game_summary(self, state: State) -> dict[str, np.ndarray]:
        """`Game.game_summary`: the rounds played and each boat's progress in the games of
        `state`."""
        return {"rounds": state.round.copy(), "progress": state.progress.copy()}

    def shaping_potential(self, state: State, seats: np.ndarray) -> np.ndarray:
        """(B,) float32 for the player `seats[i]` of each game of `state`: (own progress -
        mean progress of the others) / route fields: boat moves (R6, R9.1) rewarded when
        they happen."""
        P = state.num_players
        prog = state.progress.astype(np.float32)
        own = prog[np.arange(state.batch_size), np.asarray(seats, dtype=np.intp)]
        others = (prog.sum(axis=1) - own) / (P - 1)
        return ((own - others) / state.config.route_fields).astype(np.float32)


GAME = KanaloaGame()
