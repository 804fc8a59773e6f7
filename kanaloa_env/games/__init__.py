"""The games of the package, each behind the game protocol (`kanaloa_env.games.protocol.Game`).

```python
from kanaloa_env.games import get_game
game = get_game("kahuna")
cfg = game.make_config(discard_rule="no_legal_play")
state = game.init(cfg, batch_size=1024, seed=0)
```

Every layer above the engines (AEC env, vector driver, bots, records, rendering,
arena, command-line tools) takes a game name or a `Game` and asks it, never an
engine, for what it needs. A game is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

from .protocol import Game, Move

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "Game",
    "GameEntry",
    "Move",
    "game_of_config",
    "game_of_state",
    "get_game",
]


class GameEntry(NamedTuple):
    """Where a game's `Game` instance lives ("module:attribute") and its env version,
    known without importing the game (the env registries need only the version)."""

    target: str
    version: str


#: Every game of the package, by name.
GAMES: dict[str, GameEntry] = {
    "kanaloa": GameEntry("kanaloa_env.games.kanaloa:GAME", "v0"),
    "kahuna": GameEntry("kanaloa_env.games.kahuna:GAME", "v0"),
}
DEFAULT_GAME = "kanaloa"

_loaded: dict[str, Game[Any, Any]] = {}


def get_game(game: str | Game[Any, Any] | None = None) -> Game[Any, Any]:
    """The `Game` named `game` (default Kanaloa); a `Game` is returned as is.

    Raises:
        ValueError: an unknown name (the message lists the games).
        TypeError: neither a name nor a `Game`.
    """
    if isinstance(game, Game):
        return game
    if game is None:
        game = DEFAULT_GAME
    if not isinstance(game, str):
        raise TypeError(f"game must be a game name {sorted(GAMES)} or a Game, got {game!r}")
    key = game.lower()
    if key not in GAMES:
        raise ValueError(f"unknown game {game!r}; the games are {sorted(GAMES)}")
    if key not in _loaded:
        module, attr = GAMES[key].target.split(":")
        loaded = getattr(importlib.import_module(module), attr)
        if loaded.name != key or loaded.version != GAMES[key].version:
            raise RuntimeError(f"games.GAMES[{key!r}] does not match {module}.{attr}")
        _loaded[key] = loaded
    return _loaded[key]


def _find(test: Any, what: str, obj: Any) -> Game[Any, Any]:
    # Games already loaded first: finding Kanaloa's need not import Kahuna.
    for name in sorted(GAMES, key=lambda n: n not in _loaded):
        g = get_game(name)
        if test(g):
            return g
    raise TypeError(
        f"expected a {what} of one of the games {sorted(GAMES)}, got {type(obj).__name__}"
    )


def game_of_state(state: Any) -> Game[Any, Any]:
    """The `Game` whose engine made `state` (by the state's class)."""
    return _find(lambda g: isinstance(state, g.state_class), "State", state)


def game_of_config(config: Any) -> Game[Any, Any]:
    """The `Game` whose engine `config` configures (by the config's class)."""
    return _find(lambda g: isinstance(config, g.config_class), "Config", config)
