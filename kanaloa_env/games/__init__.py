"""The games of the package, each behind the game protocol (`kanaloa_env.games.protocol.Game`).

```python
from kanaloa_env.games import get_game
game = get_game("kahuna")
cfg = game.make_config(discard_rule="no_legal_play")
state = game.init(cfg, batch_size=1024, seed=0)
```

Every layer above the engines (AEC env, vector driver, bots, records, rendering,
arena, command-line tools) takes a game name or a `Game` and asks it, never an
engine, for what it needs. A game of the package is imported on first use.

A game from elsewhere plugs in with one call (docs/adding-a-game.md):

```python
from kanaloa_env.games import register_game
register_game("kuhn", "kuhn:GAME")        # or the Game object itself
```

It is checked at once (`Game.missing_pieces`: a TypeError names the game and what
it lacks), and from then on every layer takes the name, and the env registries of
PettingZoo (`kanaloa_env/kuhn-v0`) and Gymnasium (`kanaloa_env/Kuhn-v0`) have it.
Register it before `gymnasium.make`/`pettingzoo.make` use its id, and in every
process that uses it (worker processes included).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from .protocol import Game, Move, Region

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "Game",
    "GameEntry",
    "Move",
    "Region",
    "game_of_config",
    "game_of_state",
    "get_game",
    "on_register",
    "register_game",
]


class GameEntry(NamedTuple):
    """Where a game's `Game` instance (or class) lives ("module:attribute") and its env
    version, known without importing the game (the env registries need only the version)."""

    target: str
    version: str


#: Every game of the package, by name.
GAMES: dict[str, GameEntry] = {
    "kanaloa": GameEntry("kanaloa_env.games.kanaloa:GAME", "v0"),
    "kahuna": GameEntry("kanaloa_env.games.kahuna:GAME", "v0"),
}
DEFAULT_GAME = "kanaloa"

_loaded: dict[str, Game[Any, Any]] = {}
_hooks: list[Callable[[str], None]] = []
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _resolve(target: str) -> Any:
    """The object a "module:attribute" target names (a class is instantiated)."""
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"a game target is 'module:attribute', got {target!r}")
    obj = getattr(importlib.import_module(module), attr)
    return obj() if isinstance(obj, type) and issubclass(obj, Game) else obj


def _check(name: str, game: Any, version: str, where: str) -> Game[Any, Any]:
    """`game` if it is a complete `Game` named `name` at `version`, else the error."""
    if not isinstance(game, Game):
        raise TypeError(
            f"game {name!r}: {where} is a {type(game).__name__}, not a "
            "kanaloa_env.games.Game (subclass kanaloa_env.games.protocol.Game)"
        )
    missing = game.missing_pieces()
    if missing:
        raise TypeError(
            f"game {name!r} ({type(game).__module__}.{type(game).__qualname__}) lacks "
            f"required pieces of the game protocol: {', '.join(missing)} "
            "(see kanaloa_env.games.protocol.Game.REQUIRED_ATTRIBUTES and REQUIRED_METHODS)"
        )
    if game.name != name or game.version != version:
        raise ValueError(
            f"game {name!r}: {where} is named {game.name!r} at version {game.version!r}, "
            f"registered as {name!r} at {version!r}"
        )
    return game


def register_game(
    name: str, game: str | Game[Any, Any] | type[Game[Any, Any]], version: str | None = None
) -> Game[Any, Any]:
    """Add a game to `GAMES`, so that every layer takes its name.

    Args:
        name: the game's id (lower case letters, digits, `_`); must be the game's `name`.
        game: the `Game` object, its class, or where it lives as "module:attribute"
            (imported now, so that it is checked now).
        version: the env version; default the game's own (`Game.version`), which it
            must equal.

    Returns:
        The registered `Game`. Registering the same game again under its name returns
        it (conftest files and workers may run twice); another game under a taken
        name is a ValueError.

    Raises:
        TypeError: `game` is not a `Game`, or lacks required pieces of the protocol
            (the message names the game and each missing piece).
        ValueError: a bad or taken name, or a name or version that is not the game's.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"a game name is lower case letters, digits and '_', starting with a letter; "
            f"got {name!r}"
        )
    where = repr(game) if isinstance(game, str) else "the object given"
    obj = _resolve(game) if isinstance(game, str) else game
    if isinstance(obj, type) and issubclass(obj, Game):
        obj = obj()
    own = str(getattr(obj, "version", ""))
    g = _check(name, obj, own if version is None else version, where)
    if name in GAMES:
        if _loaded.get(name) is g or (name not in _loaded and get_game(name) is g):
            return g
        raise ValueError(f"a game named {name!r} is registered already ({GAMES[name].target})")
    target = game if isinstance(game, str) else f"{type(g).__module__}:{type(g).__qualname__}"
    GAMES[name] = GameEntry(target, g.version)
    _loaded[name] = g
    for hook in list(_hooks):
        hook(name)
    return g


def on_register(hook: Callable[[str], None]) -> None:
    """Call `hook(name)` for every game registered now and for each one registered later
    (how the package's PettingZoo and Gymnasium ids follow `register_game`)."""
    _hooks.append(hook)
    for name in list(GAMES):
        hook(name)


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
        entry = GAMES[key]
        _loaded[key] = _check(key, _resolve(entry.target), entry.version, entry.target)
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
