"""Build bots from short specs: the one place a name, a path, a model or a function becomes a bot.

```python
from kanaloa_env.bots import make_bot
bot = make_bot("heuristic")                       # Kanaloa's heuristic (the default game)
bot = make_bot("heuristic", game="kahuna")        # Kahuna's
bot = make_bot("search", game="kahuna")           # the search bot with Kahuna's pieces
bot = make_bot("runs/maskable_ppo/model.zip")     # a saved MaskablePPO model (trusted files only)
bot = make_bot(lambda obs, masks, rng: masks.argmax(axis=1))
```

Every layer that takes a bot (the vector driver's opponents, the arena, terminal
play, evaluation) resolves it here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from ..games import get_game
from ..games.protocol import Game
from .base import Bot, RandomBot
from .call import check_game

#: Bot names every game has, with their factories (a game adds its own: `Game.bot_factories`).
COMMON_BOTS: dict[str, Callable[[], Any]] = {"random": RandomBot}
# The piece of the game protocol behind each of the conventional game bots.
_PIECES = {"heuristic": "bot_factories", "search": "search_pieces"}
MODEL_SUFFIX = ".zip"
POLICY_SUFFIX = ".npz"  # weights-only policy files (kanaloa_env.bots.policy_file)


def game_bots(game: Game) -> dict[str, Callable[[], Any]]:
    """The named bots of `game`: `COMMON_BOTS`, the game's own (`Game.bot_factories`),
    for a game with search pieces (`Game.search_pieces`) "search": the generic
    `SearchBot` with the game's `search_defaults()`, for a game with shipped policy
    files (`policy_bot.shipped_paths`) "net": `PolicyBot.shipped(game)`, and for one
    with both "guided": the search guided by that network (`search.guided_search`)."""
    from .policy_bot import PolicyBot, shipped_paths

    bots = {**COMMON_BOTS, **game.bot_factories()}
    if "search" not in bots and game.provides("search_pieces"):
        from .search import SearchBot

        bots["search"] = functools.partial(SearchBot, game=game.name, **game.search_defaults())
    if "net" not in bots and shipped_paths(game):
        bots["net"] = functools.partial(PolicyBot.shipped, game)
        if "guided" not in bots and game.provides("search_pieces"):
            from .search import guided_search

            bots["guided"] = functools.partial(guided_search, game)
    return bots


def bot_names(game: str | Game | None = None) -> tuple[str, ...]:
    """The bot names `make_bot` understands for `game` (default Kanaloa)."""
    return tuple(game_bots(get_game(game)))


def is_bot(obj: object) -> bool:
    """Whether `obj` follows the bot protocol: an object (not a class) with a callable `act`."""
    return not isinstance(obj, type) and callable(getattr(obj, "act", None))


def _is_sb3_model(obj: object) -> bool:
    policy = getattr(obj, "policy", obj)
    return not isinstance(obj, type) and hasattr(policy, "get_distribution")


def make_bot(
    spec: Any,
    game: str | Game | None = None,
    *,
    deterministic: bool = True,
) -> Bot:
    """A bot from a spec.

    Args:
        spec: a bot name (`bot_names(game)`: "random", and the game's own, e.g.
            "heuristic", "search", "net": the game's shipped trained network where it
            ships one, see docs/models.md, "guided": the search guided by it); a path to a weights-only policy file `.npz`
            (`kanaloa_env.bots.policy_file`, nothing in it runs on load); a path to a
            saved stable-baselines3 MaskablePPO model `.zip` (loading one unpickles
            parts of it, which can run code stored in the file: load only files you
            trust);
            a stable-baselines3 model or policy object; a callable
            `act(observations, masks, rng) -> actions`; or an object that already
            follows the bot protocol (returned as is).
        game: the game the bot is to play (a name or `Game`; default Kanaloa).
        deterministic: for models, play the most likely legal action (default) or
            sample from the masked policy.

    Returns:
        The bot.

    Raises:
        ValueError: an unknown name (the message lists the known names), a model
            file that does not exist, cannot be read or cannot be loaded, a model for
            another game, a bot written for another game, or a bot that needs torch
            without it installed (the message names the `train` extra).
        TypeError: `spec` is none of the above (a bot class rather than an instance
            included).
    """
    g = get_game(game)
    if is_bot(spec):
        check_game(spec, g)
        return spec  # type: ignore[no-any-return]
    if isinstance(spec, type) and callable(getattr(spec, "act", None)):
        raise TypeError(
            f"a bot spec must be a bot object, got the class {spec.__name__}: "
            f"pass an instance, {spec.__name__}()"
        )
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        if text in COMMON_BOTS:  # without importing the game's own bots
            return COMMON_BOTS[text]()  # type: ignore[no-any-return]
        factories = game_bots(g)
        if text in factories:
            try:
                return factories[text]()  # type: ignore[no-any-return]
            except ImportError as exc:  # the message says which extra to install
                raise ValueError(f"cannot make bot {text!r}: {exc}") from exc
        if looks_like_path(text):
            return load_model_bot(text, g, deterministic=deterministic)
        why = ""
        if text in ("net", "guided"):
            from .policy_bot import SHIPPED_DIR

            why = f" ({g.title} ships no policy files {g.name}_*p{POLICY_SUFFIX} in {SHIPPED_DIR})"
        elif text in _PIECES and not g.provides(_PIECES[text]):
            piece = _PIECES[text]
            why = (
                f" ({g.title} has no `{piece}`, the game protocol's piece for "
                f"{g.OPTIONAL_METHODS[piece]}; see docs/adding-a-game.md)"
            )
        raise ValueError(
            f"unknown bot {text!r} for {g.title}{why}: use one of {list(factories)}, the path "
            f"of a policy file ({POLICY_SUFFIX}) or of a saved model ({MODEL_SUFFIX})"
        )
    if _is_sb3_model(spec):
        from .model import MaskablePPOBot

        return MaskablePPOBot(spec, deterministic=deterministic, game=g)
    if callable(spec):
        from .model import CallableBot

        return CallableBot(spec)
    raise TypeError(
        f"a bot spec must be a name {list(bot_names(g))}, a model path, a stable-baselines3 "
        f"model, a callable act(observations, masks, rng) or a bot object with an act() "
        f"method, got {type(spec).__name__}"
    )


def looks_like_path(text: str) -> bool:
    """Whether `text`, a bot spec, names a file rather than a bot: a `.zip` or `.npz`
    suffix, a separator, or a file."""
    return (
        text.endswith((MODEL_SUFFIX, POLICY_SUFFIX))
        or os.sep in text
        or "/" in text
        or os.path.isfile(text)
    )


def load_model_bot(path: str, game: str | Game | None = None, deterministic: bool = True) -> Bot:
    """Load a policy file (`.npz`, weights only) or a saved MaskablePPO model (`.zip`) as a
    bot, with a clear error when that is impossible.

    The bot plays `game` (a name or `Game`; default Kanaloa), greedily when
    `deterministic`. As with stable-baselines3's `load`, `path` may leave out the `.zip`
    suffix. Loading
    a `.zip` unpickles parts of it, which runs code stored in the file: load only
    models you trust. A policy file is read without unpickling (`bots.policy_file`).
    """
    if path.endswith(POLICY_SUFFIX):
        from .policy_bot import PolicyBot

        try:
            bot = PolicyBot.load(path, deterministic=deterministic)
        except ImportError as exc:
            raise ValueError(f"cannot load policy {path!r}: {exc}") from exc
        g = get_game(game)
        if bot.game != g.name:
            raise ValueError(f"policy file {path!r} plays {bot.game}, not {g.name}")
        return bot
    if not os.path.isfile(path) and os.path.isfile(path + MODEL_SUFFIX):
        path += MODEL_SUFFIX
    if not os.path.isfile(path):
        raise ValueError(f"model file {path!r} does not exist (or is not a file)")
    if not os.access(path, os.R_OK):
        raise ValueError(f"model file {path!r} is not readable")
    try:
        # Imported here: model bots need torch and sb3-contrib, which plain play does not.
        from .model import MaskablePPOBot
    except ImportError as exc:
        raise ValueError(
            f"cannot load model {path!r}: kanaloa_env.bots.model is unavailable ({exc}); "
            "install the 'train' extra (torch, sb3-contrib)"
        ) from exc
    try:
        return MaskablePPOBot.load(path, deterministic=deterministic, game=game)
    except Exception as exc:  # any loader failure is a bad model file to the user
        raise ValueError(f"cannot load model {path!r}: {type(exc).__name__}: {exc}") from exc


def bot_label(spec: Any, bot: Bot) -> str:
    """A short display name of `bot`, made from `spec` (what the caller named it by):
    the bot name, a model file's stem, or the object's `name`."""
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        if not looks_like_path(text):
            return text
        base = os.path.basename(text.rstrip("/\\")) or text
        for suffix in (MODEL_SUFFIX, POLICY_SUFFIX):
            if base.endswith(suffix):
                return base[: -len(suffix)]
        return base
    return str(getattr(bot, "name", None) or type(bot).__name__)
