"""Kanaloa behind the game protocol: `kanaloa_env.games.get_game("kanaloa")`.

The rules are the engine's (`kanaloa_env.core.kanaloa`, RULES.md); this sub-package
adds what the layers above ask of a game: the text table (`text.py`), the picture
(`image.py`), decisions in words (`describe.py`), moves at the terminal
(`moves.py`), the heuristic bot (`heuristic.py`) and the search bot's pieces
(`search.py`); belief sampling is the engine's (`core.kanaloa.belief`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ...core import kanaloa as engine
from ...core.kanaloa.belief import determinize
from ...core.kanaloa.config import DOLPHIN_MODES, Config
from ...core.kanaloa.constants import MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, action_name
from ...core.kanaloa.invariants import check_invariants, random_playthrough
from ...core.kanaloa.observation import OBS_DIM, OFFSETS
from ...core.kanaloa.state import State
from ..protocol import Game

__all__ = ["GAME", "KanaloaGame"]

# Observation bounds that are not [0, 1]. While a game runs every boat is less than a
# lap ahead of the last (R9.2), and the move that ends it adds at most one lap, so
# progress differences stay below 2 laps of at most 24 fields; the lapping distances
# are (lap + 1 - difference) / 24 with such differences (see OBS_LAYOUT).
_OBS_BOUNDS = {"progress": (-2.0, 2.0), "lapping": (-1.0, 3.125)}


def _observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_DIM, dtype=np.float32)
    high = np.ones(OBS_DIM, dtype=np.float32)
    for name, (lo, hi) in _OBS_BOUNDS.items():
        a, b = OFFSETS[name]
        low[a:b], high[a:b] = lo, hi
    low.flags.writeable = high.flags.writeable = False
    return low, high


_LOW, _HIGH = _observation_bounds()


class KanaloaGame(Game[State, Config]):
    """Kanaloa (3-5 players, `Discrete(66)`, 416 observation floats); see RULES.md."""

    name = "kanaloa"
    title = "Kanaloa"
    version = "v0"
    num_actions = NUM_ACTIONS
    obs_dim = OBS_DIM
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    default_num_players = 4
    config_class = Config
    state_class = State
    engine: ClassVar[ModuleType] = engine

    # ---- config ------------------------------------------------------------------

    def add_cli_options(self, parser: argparse.ArgumentParser) -> None:
        """`Game.add_cli_options`: add Kanaloa's variant flags to `parser`."""
        parser.add_argument(
            "--announce", action="store_true", help="play the 'announce no tricks' variant (R3.2)"
        )
        parser.add_argument(
            "--announced-boat-moves",
            action="store_true",
            help="a player who announced still moves for tricks won (R7.4)",
        )
        parser.add_argument(
            "--dolphin", choices=DOLPHIN_MODES, default=None, help="dolphin move (R6.3)"
        )
        parser.add_argument(
            "--dolphin-chain", action="store_true", help="a dolphin bonus move may chain (R6.3)"
        )
        parser.add_argument(
            "--max-rounds", type=int, default=None, help="truncate after N rounds (R9.4)"
        )

    def cli_overrides(self, args: argparse.Namespace) -> dict[str, Any]:
        """`Game.cli_overrides`: the config overrides that Kanaloa's flags in `args` ask for."""
        out: dict[str, Any] = {}
        if args.announce:
            out["nil_announcement"] = True
        if args.announced_boat_moves:
            out["announced_boat_moves"] = True
        if args.dolphin is not None:
            out["dolphin"] = args.dolphin
        if args.dolphin_chain:
            out["dolphin_chain"] = True
        if args.max_rounds is not None:
            out["max_rounds"] = args.max_rounds
        return out

    def config_from_overrides(self, num_players: int, overrides: Mapping[str, Any]) -> Config:
        """`Game.config_from_overrides`: a Kanaloa `Config` for `num_players` players from
        `overrides` (untrusted: ValueError/TypeError naming the bad key)."""
        if not isinstance(overrides, Mapping):
            raise TypeError(f"config overrides must be an object, got {type(overrides).__name__}")
        return Config.from_dict(num_players, dict(overrides))

    # ---- the engine ----------------------------------------------------------------

    def observe(
        self, state: State, seat: np.ndarray | int | None = None, threads: int = 1
    ) -> np.ndarray:
        """`Game.observe`: (B, OBS_DIM) float32 observations of `state` from `seat`'s point of
        view (default: each game's player to act), on up to `threads` threads."""
        return engine.observe(state, seat=seat, threads=threads)

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
                f"{onehot[bad].tolist()}): observations must come from kanaloa_env.core.observe"
            )
        return MIN_PLAYERS + np.argmax(onehot, axis=1).astype(np.int64)

    def public_view(self, state: State, seats: np.ndarray) -> State:
        """A copy of `state` with what player `seats[i]` may know in game `i`: other players' hands
        and the random key (which fixes future deals) zeroed, and the mask row cleared
        where another player is to act (its legal plays would show its cards)."""
        view = state.copy()
        seats = np.asarray(seats)
        keep = np.arange(state.num_players)[None, :] == seats[:, None]
        view.hands[~keep] = 0
        view.key[...] = 0
        view.legal[view.current_player != seats] = False
        return view

    def determinize(
        self, view: State, seats: np.ndarray, n: int, rng: np.random.Generator
    ) -> State:
        """`Game.determinize`: `n` full Kanaloa states per game of `view` consistent with what
        `seats` know, drawn from `rng`."""
        return determinize(view, seats, n, rng)

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

    def check_invariants(self, state: State) -> None:
        """`Game.check_invariants`: Kanaloa's invariant checker on `state`."""
        check_invariants(state)

    def random_playthrough(self, config: Config, num_games: int, seed: int, **kwargs: Any) -> Any:
        """`Game.random_playthrough`: `num_games` random games of `config` from `seed` under
        Kanaloa's invariant checks; `kwargs` go to the engine's `random_playthrough`."""
        return random_playthrough(config, num_games=num_games, seed=seed, **kwargs)

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
        """`Game.action_name`: the name of `action` in Kanaloa's action table."""
        return action_name(action)


GAME = KanaloaGame()
