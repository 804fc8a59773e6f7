"""Kahuna behind the game protocol: `kanaloa_env.games.get_game("kahuna")`.

The rules are the engine's (`kanaloa_env.core.kahuna`, KAHUNA-RULES.md); this
sub-package adds what the layers above ask of a game: the text view (`text.py`),
the picture of the board (`image.py`), decisions in words (`describe.py`), moves
at the terminal (`moves.py`), the heuristic bot (`heuristic.py`) and the search
bot's pieces (`search.py`); belief sampling is the engine's (`core.kahuna.belief`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ...core import kahuna as engine
from ...core.kahuna.config import DISCARD_RULES, Config
from ...core.kahuna.constants import (
    DEGREE,
    MAJORITY,
    MAX_STONES,
    MIN_STONES,
)
from ...core.kahuna.observation import OBS_DIM, OFFSETS
from ...core.kahuna.state import State
from ...core.layout import bounds
from ..protocol import ConfigFlag, Game

__all__ = ["GAME", "KahunaGame"]


# Every feature lies in [0, 1] (docs/observation-kahuna.md: indicators, and counts over
# their maxima) except the bridges at an island over its majority threshold, at most
# degree / threshold (K1.3: 5/3 at an island of degree 5).
_MAJORITY_BOUNDS = (0.0, DEGREE / MAJORITY)
_LOW, _HIGH = bounds(
    OFFSETS, OBS_DIM, {"my_majority": _MAJORITY_BOUNDS, "their_majority": _MAJORITY_BOUNDS}
)


class KahunaGame(Game[State, Config]):
    """Kahuna (2 players, `Discrete(153)`); see KAHUNA-RULES.md and docs/kahuna.md."""

    name = "kahuna"
    title = "Kahuna"
    player_counts = (2,)
    default_num_players = 2
    engine: ClassVar[ModuleType] = engine  # NUM_ACTIONS, OBS_DIM, Config, State, init, ...
    config_flags = (
        ConfigFlag(
            "--stones",
            "stones_per_player",
            f"stones per player, {MIN_STONES}..{MAX_STONES} (K1.6; default 10)",
            type=int,
            choices=range(MIN_STONES, MAX_STONES + 1),
            metavar="N",
        ),
        ConfigFlag(
            "--first-player",
            "first_player",
            "who takes the first turn (K2.2; default random)",
            choices=("random", "0", "1"),
            convert=lambda fp: fp if fp == "random" else int(fp),
        ),
        ConfigFlag(
            "--discard-rule",
            "discard_rule",
            "when a card may be discarded in the play phase (K4.4; default any_time)",
            choices=DISCARD_RULES,
        ),
        ConfigFlag(
            "--no-early-end",
            "early_end",
            "no early end when a player has no bridge in rounds 2 and 3 (K8.2)",
            switch=False,
        ),
        ConfigFlag("--max-turns", "max_turns", "truncate after N turns (K9.1)", type=int),
    )

    # ---- config ------------------------------------------------------------------

    def num_players_of(self, config: Config) -> int:
        """`Game.num_players_of`: always 2, whatever `config`."""
        return 2

    def config_from_overrides(self, num_players: int, overrides: Mapping[str, Any]) -> Config:
        """`Game.config_from_overrides`: a Kahuna `Config` for `num_players` players from
        `overrides` (untrusted: ValueError/TypeError naming the bad key)."""
        if num_players != 2:
            raise ValueError(f"Kahuna is played by 2 players, got num_players={num_players}")
        if not isinstance(overrides, Mapping):
            raise TypeError(f"config overrides must be an object, got {type(overrides).__name__}")
        return Config.from_dict(dict(overrides))

    # ---- the engine (the calls into it are the protocol's defaults over `engine`) --------

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """`Game.observation_bounds`: the (OBS_DIM,) lowest and highest values of Kahuna's
        observations."""
        return _LOW, _HIGH

    def final_ranks(self, state: State) -> np.ndarray:
        """(B, 2) ranks of the finished games of `state`: the winner 1, the loser 2; a draw
        or a truncated game 1.5 each (K8.1, K9.1)."""
        ranks = np.full((state.batch_size, 2), 1.5)
        won = state.winner >= 0
        w = state.winner[won].astype(np.intp)
        rows = np.flatnonzero(won)
        ranks[rows, w] = 1.0
        ranks[rows, 1 - w] = 2.0
        return ranks

    def game_summary(self, state: State) -> dict[str, np.ndarray]:
        """Per game of `state`: turns played; per player the points of the scorings, stones
        and bridges on the board at the end."""
        return {
            "turns": state.turn.copy(),
            "points": state.scorings.sum(axis=1, dtype=np.int16),
            "stones": np.bitwise_count(state.stones).astype(np.int8),
            "bridges": np.bitwise_count(state.bridges).astype(np.int8),
        }

    def shaping_potential(self, state: State, seats: np.ndarray) -> np.ndarray:
        """(B,) float32 for the player `seats[i]` of each game of `state`: (own stones -
        opponent's stones) / 12, the count every scoring compares (K7.2)."""
        stones = np.bitwise_count(state.stones).astype(np.float32)
        me = np.asarray(seats, dtype=np.intp)
        rows = np.arange(state.batch_size)
        return ((stones[rows, me] - stones[rows, 1 - me]) / MAX_STONES).astype(np.float32)


GAME = KahunaGame()
