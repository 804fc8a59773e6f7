"""Kahuna behind the game protocol: `kanaloa_env.games.get_game("kahuna")`.

The rules are the engine's (`kanaloa_env.core.kahuna`, KAHUNA-RULES.md); this
sub-package adds what the layers above ask of a game: the text view (`text.py`),
the picture of the board (`image.py`), decisions in words (`describe.py`), moves
at the terminal (`moves.py`), the heuristic bot (`heuristic.py`) and the search
bot's pieces (`search.py`); belief sampling is the engine's (`core.kahuna.belief`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ...core import kahuna as engine
from ...core.kahuna.belief import determinize
from ...core.kahuna.config import DISCARD_RULES, Config
from ...core.kahuna.constants import (
    DEGREE,
    MAJORITY,
    MAX_STONES,
    MIN_STONES,
    NUM_ACTIONS,
    action_name,
)
from ...core.kahuna.observation import OBS_DIM, OFFSETS
from ...core.kahuna.state import State
from ..protocol import Game

__all__ = ["GAME", "KahunaGame"]


def _observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Every feature lies in [0, 1] (docs/observation-kahuna.md: indicators, and counts
    over their maxima) except the bridges at an island over its majority threshold,
    at most degree / threshold (K1.3: 5/3 at an island of degree 5)."""
    low = np.zeros(OBS_DIM, dtype=np.float32)
    high = np.ones(OBS_DIM, dtype=np.float32)
    for part in ("my_majority", "their_majority"):
        a, b = OFFSETS[part]
        high[a:b] = DEGREE / MAJORITY
    low.flags.writeable = high.flags.writeable = False
    return low, high


_LOW, _HIGH = _observation_bounds()


class KahunaGame(Game[State, Config]):
    """Kahuna (2 players, `Discrete(153)`); see KAHUNA-RULES.md and docs/kahuna.md."""

    name = "kahuna"
    title = "Kahuna"
    version = "v0"
    num_actions = NUM_ACTIONS
    obs_dim = OBS_DIM
    player_counts = (2,)
    default_num_players = 2
    config_class = Config
    state_class = State
    engine: ClassVar[ModuleType] = engine

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

    def add_cli_options(self, parser: argparse.ArgumentParser) -> None:
        """`Game.add_cli_options`: add Kahuna's variant flags to `parser`."""
        parser.add_argument(
            "--stones",
            type=int,
            default=None,
            choices=range(MIN_STONES, MAX_STONES + 1),
            metavar="N",
            help=f"stones per player, {MIN_STONES}..{MAX_STONES} (K1.6; default 10)",
        )
        parser.add_argument(
            "--first-player",
            choices=("random", "0", "1"),
            default=None,
            help="who takes the first turn (K2.2; default random)",
        )
        parser.add_argument(
            "--discard-rule",
            choices=DISCARD_RULES,
            default=None,
            help="when a card may be discarded in the play phase (K4.4; default any_time)",
        )
        parser.add_argument(
            "--no-early-end",
            action="store_true",
            help="no early end when a player has no bridge in rounds 2 and 3 (K8.2)",
        )
        parser.add_argument(
            "--max-turns", type=int, default=None, help="truncate after N turns (K9.1)"
        )

    def cli_overrides(self, args: argparse.Namespace) -> dict[str, Any]:
        """`Game.cli_overrides`: the config overrides that Kahuna's flags in `args` ask for."""
        out: dict[str, Any] = {}
        if args.stones is not None:
            out["stones_per_player"] = args.stones
        if args.first_player is not None:
            fp = args.first_player
            out["first_player"] = fp if fp == "random" else int(fp)
        if args.discard_rule is not None:
            out["discard_rule"] = args.discard_rule
        if args.no_early_end:
            out["early_end"] = False
        if args.max_turns is not None:
            out["max_turns"] = args.max_turns
        return out

    # ---- the engine ----------------------------------------------------------------

    def observe(
        self, state: State, seat: np.ndarray | int | None = None, threads: int = 1
    ) -> np.ndarray:
        """`Game.observe`: (B, OBS_DIM) float32 observations of `state` from `seat`'s point of
        view (default: each game's player to act), on up to `threads` threads."""
        return engine.observe(state, seat=seat, threads=threads)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """`Game.observation_bounds`: the (OBS_DIM,) lowest and highest values of Kahuna's
        observations."""
        return _LOW, _HIGH

    def public_view(self, state: State, seats: np.ndarray) -> State:
        """`Game.public_view`: a copy of `state` with only what player `seats[i]` may know in
        game `i`."""
        return engine.public_view(state, seats)

    def determinize(
        self, view: State, seats: np.ndarray, n: int, rng: np.random.Generator
    ) -> State:
        """`Game.determinize`: `n` full Kahuna states per game of `view` consistent with what
        `seats` know, drawn from `rng`."""
        return determinize(view, seats, n, rng)

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

    def check_invariants(self, state: State) -> None:
        """`Game.check_invariants`: Kahuna's invariant checker on `state`."""
        engine.check_invariants(state)

    def random_playthrough(self, config: Config, num_games: int, seed: int, **kwargs: Any) -> Any:
        """`Game.random_playthrough`: `num_games` random games of `config` from `seed` under
        Kahuna's invariant checks; `kwargs` go to the engine's `random_playthrough`."""
        return engine.random_playthrough(config, num_games=num_games, seed=seed, **kwargs)

    # ---- positions -------------------------------------------------------------------

    def to_scenario(self, state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
        """`Game.to_scenario`: game `i` of `state` as a scenario dict, with the key of future
        chance if `include_key`."""
        return engine.to_scenario(state, i, include_key=include_key)

    def from_scenario(self, scenario: Mapping[str, Any], seed: int | None = None) -> State:
        """`Game.from_scenario`: a batch of one from `scenario`; `seed` fixes later chance where
        the scenario has no key."""
        return engine.from_scenario(scenario, seed=seed)  # type: ignore[arg-type]

    # ---- words and pictures (the views are this package's modules: see Game) ------------

    def gpu_bot(self, bot: Any) -> Any | None:
        """The GPU form of `bot`: the heuristic decides on the GPU (`gpu_heuristic`); other
        bots have none (None)."""
        from .heuristic import HeuristicBot

        if type(bot) is not HeuristicBot:
            return None
        from .gpu_heuristic import gpu_heuristic

        return gpu_heuristic(bot)

    def action_name(self, action: int) -> str:
        """`Game.action_name`: the name of `action` in Kahuna's action table."""
        return action_name(action)


GAME = KahunaGame()
