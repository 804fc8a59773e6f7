"""`python_floor`: a Python OpenSpiel game with no rules, the cost of OpenSpiel's
Python-game API alone for `bench_openspiel.py --floor`.

Shaped as Kanaloa looks to the benchmark's driver: four players; a chance node of 50
equally likely outcomes before every decision (Kanaloa deals about one card a
decision); 8 legal actions a decision; 600 decisions a game; an observer whose tensor
is Kanaloa's size and whose `set_from` writes nothing. Every answer is a constant, so
what it costs is the driver's loop and OpenSpiel's calls from C++ into Python and
back (`apply_action`, `current_player`): no game written as a Python OpenSpiel game
and driven this way can be faster.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

NAME = "python_floor"
PLAYERS = 4
DECISIONS = 600
OUTCOMES = [(k, 1 / 50) for k in range(50)]
LEGAL = list(range(8))
OBS_DIM = 416
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Python floor (no rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=PLAYERS,
    min_num_players=PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={},
)
GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=len(LEGAL),
    max_chance_outcomes=len(OUTCOMES),
    num_players=PLAYERS,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=2 * DECISIONS,
)


class FloorGame(pyspiel.Game):  # type: ignore[misc]
    """The rule-less game (see the module)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(GAME_TYPE, GAME_INFO, params or {})

    def new_initial_state(self) -> FloorState:
        """A game at its first chance node."""
        return FloorState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> FloorObserver:
        """An observer that writes nothing (`iig_obs_type` and `params` are ignored)."""
        return FloorObserver()


class FloorObserver:
    """A tensor of Kanaloa's size, never written."""

    def __init__(self) -> None:
        self.tensor = np.zeros(OBS_DIM, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: FloorState, player: int) -> None:
        """Nothing (`state` and `player` are ignored)."""

    def string_from(self, state: FloorState, player: int) -> str:
        """An empty string (`state` and `player` are ignored)."""
        return ""


class FloorState(pyspiel.State):  # type: ignore[misc]
    """Chance, then player n % 4, alternately, for `DECISIONS` decisions; every answer a
    constant, answered in Python as our games' states answer them."""

    def __init__(self, game: FloorGame) -> None:
        super().__init__(game)
        self.moves = 0
        self.player = _CHANCE

    def current_player(self) -> int:
        """The player to act."""
        return self.player

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.player == _TERMINAL

    def is_chance_node(self) -> bool:
        """Whether chance acts."""
        return self.player == _CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The 8 actions (`player` ignored)."""
        return LEGAL[:]

    def _legal_actions(self, player: int) -> list[int]:
        return LEGAL[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """50 outcomes, 1/50 each."""
        return OUTCOMES[:]

    def _apply_action(self, action: int) -> None:
        self.moves += 1
        if self.moves >= 2 * DECISIONS:
            self.player = _TERMINAL
        else:
            self.player = _CHANCE if self.player >= 0 else (self.moves // 2) % PLAYERS

    def _action_to_string(self, player: int, action: int) -> str:
        return str(action)

    def returns(self) -> list[float]:
        """Zeros."""
        return [0.0] * PLAYERS

    def __str__(self) -> str:
        return f"move {self.moves}"


def register() -> None:
    """Register `python_floor` with OpenSpiel (once)."""
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, FloorGame)
