"""Our bots as OpenSpiel bots (`pyspiel.Bot`), for `pyspiel.evaluate_bots` and OpenSpiel's
tools: any bot `kanaloa_env.bots.make_bot` builds ("random", "heuristic", "net",
"search", "guided", a policy file `.npz`, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..bots import bot_actions, make_bot
from ..bots.call import bot_name
from .game import OpenSpielGame, OpenSpielState

__all__ = ["OpenSpielBot", "make_openspiel_bot"]


class OpenSpielBot(pyspiel.Bot):  # type: ignore[misc]
    """One of our bots playing seat `player_id` of one of our OpenSpiel games.

    It decides from what the seat may know, as everywhere in the package
    (`kanaloa_env.bots.bot_actions`: the observation, or the public view for a bot that
    reads the state); it keeps nothing between decisions, so `restart_at` and
    `inform_action` have nothing to do.

    Args:
        game: one of our OpenSpiel games (`pyspiel.load_game("python_kanaloa")`, ...).
        player_id: the seat the bot plays, 0..P-1.
        spec: the bot, any spec `kanaloa_env.bots.make_bot` accepts ("random",
            "heuristic", a policy file, a bot object, ...).
        seed: the seed of the bot's own random generator (None: fresh entropy).

    Raises:
        TypeError: `game` is not one of our OpenSpiel games.
        ValueError: `player_id` out of range, or a `spec` `make_bot` rejects.
    """

    def __init__(
        self, game: OpenSpielGame, player_id: int, spec: Any = "random", seed: int | None = None
    ) -> None:
        pyspiel.Bot.__init__(self)
        if not isinstance(game, OpenSpielGame):
            raise TypeError(
                f"OpenSpielBot plays our games (python_kanaloa, python_kahuna, ...), got "
                f"{type(game).__name__}"
            )
        players = game.num_players()
        if not isinstance(player_id, (int, np.integer)) or not 0 <= player_id < players:
            raise ValueError(f"player_id must be 0..{players - 1}, got {player_id!r}")
        self._ours = game.ours
        self._bot = make_bot(spec, game=game.ours)
        self._rng = np.random.default_rng(seed)
        self.player_id = int(player_id)
        self.name = bot_name(self._bot)

    def step(self, state: OpenSpielState) -> int:
        """The bot's action for `state`, whose player to act is this bot's seat."""
        if not isinstance(state, OpenSpielState) or state.ours is not self._ours:
            raise TypeError(f"OpenSpielBot for {self._ours.name} got a {type(state).__name__}")
        player = state.current_player()
        if player != self.player_id:
            raise ValueError(
                f"OpenSpielBot {self.name!r} plays player_{self.player_id}, but "
                f"{'no player' if player < 0 else f'player_{player}'} is to act"
            )
        return int(bot_actions(self._bot, self._ours, state.engine, self._rng)[0])

    def restart_at(self, state: OpenSpielState) -> None:
        """OpenSpiel's call when a game restarts at `state`: nothing to reset, the bot
        keeps nothing between decisions."""

    def inform_action(self, state: OpenSpielState, player_id: int, action: int) -> None:
        """OpenSpiel's call after player `player_id` plays `action` in `state`: nothing to
        record, the bot reads each position afresh."""

    def provides_policy(self) -> bool:
        """False: the bot gives an action (`step`), not a policy over the actions."""
        return False

    def provides_force_action(self) -> bool:
        """False: the bot does not take actions forced on it (it keeps no state)."""
        return False

    def is_clonable(self) -> bool:
        """False: OpenSpiel's `clone` is not offered (the bot keeps no state to clone;
        make another with `make_openspiel_bot`)."""
        return False


def make_openspiel_bot(
    game: OpenSpielGame, player_id: int, spec: Any = "random", seed: int | None = None
) -> OpenSpielBot:
    """`OpenSpielBot(game, player_id, spec, seed)`: bot `spec` (a `make_bot` spec) at
    seat `player_id` of `game`."""
    return OpenSpielBot(game, player_id, spec, seed)
