"""The one way every layer asks a bot for actions: observe if it reads observations, give a
state-reading bot the public view, check what comes back.

Used by the vector driver (opponents), the arena, records and evaluation.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..core.batch import check_actions
from ..games.protocol import Game

__all__ = ["bot_actions", "bot_name", "check_game", "needs_observations", "uses_state"]


def bot_name(bot: Any) -> str:
    """The bot's `name`, else its class name."""
    return str(getattr(bot, "name", None) or type(bot).__name__)


def needs_observations(bot: Any) -> bool:
    """Whether a caller must encode observations for `bot`.

    A bot says it needs none with `uses_observations = False` (as `RandomBot`
    does); for a bot without the attribute the answer is True. Encoding
    observations costs more than a core step, so callers skip it when they can.
    """
    return bool(getattr(bot, "uses_observations", True))


def uses_state(bot: Any) -> bool:
    """Whether `bot` reads the public view of the state (`uses_state = True`)."""
    return bool(getattr(bot, "uses_state", False))


def check_game(bot: Any, game: Game[Any, Any]) -> None:
    """ValueError if `bot` is written for another game (its `game` attribute names one)."""
    own = getattr(bot, "game", None)
    if own is not None and own != game.name:
        raise ValueError(f"bot {bot_name(bot)!r} plays {own}, not {game.name}")


@lru_cache(maxsize=8)
def _zeros(obs_dim: int) -> np.ndarray:
    row = np.zeros(obs_dim, dtype=np.float32)
    row.flags.writeable = False
    return row


def bot_actions(
    bot: Any,
    game: Game[Any, Any],
    state: Any,
    rng: np.random.Generator,
    rows: np.ndarray | None = None,
    observations: np.ndarray | None = None,
    threads: int = 1,
    label: str | None = None,
) -> np.ndarray:
    """The actions `bot` takes for the player to act in games `rows` of `state`, checked.

    Args:
        bot: an object with `act(observations, masks, rng, **kwargs)`.
        game: the game of `state`.
        state: a batch of games; every game in `rows` has a player to act.
        rng: the bot's random generator.
        rows: (b,) indices of the games the bot decides in; None: every game.
        observations: the (b, obs_dim) observations of those games' players to act,
            if the caller has them; else they are encoded here when the bot reads them.
        threads: threads for encoding observations (`observe(..., threads=)`).
        label: the bot's name in error messages (default its `name`).

    Returns:
        (b,) int64 legal actions.

    Raises:
        ValueError: the bot returned the wrong shape or type, or an illegal action
            (naming the bot, the rows of its batch and the actions).
    """
    whole = rows is None
    masks = state.legal.copy() if whole else state.legal[rows]
    b = len(masks)
    sub = None
    if observations is None:
        if needs_observations(bot):
            sub = state if whole else state.take(rows)
            observations = game.observe(sub, threads=threads)
        else:  # the bot declared it does not read them: a read-only zero view costs nothing
            observations = np.broadcast_to(_zeros(game.obs_dim), (b, game.obs_dim))
    kwargs: dict[str, Any] = {}
    if uses_state(bot):
        if sub is None:
            sub = state if whole else state.take(rows)
        seats = sub.current_player.astype(np.int64)
        kwargs = {"view": game.public_view(sub, seats), "seats": seats}
    out = bot.act(observations, masks, rng, **kwargs)
    who = f"bot {label or bot_name(bot)!r}: "
    act = np.asarray(out)
    if act.dtype == bool:
        raise ValueError(f"{who}returned booleans; expected ({b},) integer actions")
    try:
        return check_actions(act, masks, who=who)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
