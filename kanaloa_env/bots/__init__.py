"""Batched bots: `act(observations, masks, rng) -> actions`, for every game of the package.

`make_bot(spec, game=...)` builds one from a name ("random", each game's own such as
"heuristic", "search" for a game with search pieces, "net" for a game that ships
trained networks and "guided", the search guided by them), a policy file
(`.npz`), a saved model path, a model, a function or a bot object; `bot_actions` is
how every layer calls one. Game-specific bots live with their game
(`kanaloa_env.games.<game>`): `make_bot("heuristic", game="kahuna")` is Kahuna's
heuristic.
"""

from typing import Any

from .base import Bot, RandomBot, public_view, sample_legal
from .call import bot_actions, needs_observations
from .model import CallableBot, MaskablePPOBot  # torch is imported only when a model loads
from .registry import bot_names, make_bot

__all__ = [
    "Bot",
    "CallableBot",
    "MaskablePPOBot",
    "PolicyBot",
    "RandomBot",
    "SearchBot",
    "bot_actions",
    "bot_names",
    "make_bot",
    "needs_observations",
    "public_view",
    "sample_legal",
]


def __getattr__(name: str) -> Any:
    # The bots of other modules, imported on first use (torch, the games' modules).
    if name == "PolicyBot":
        from .policy_bot import PolicyBot

        return PolicyBot
    if name == "SearchBot":
        from .search import SearchBot

        return SearchBot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
