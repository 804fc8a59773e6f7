"""Batched bots: `act(observations, masks, rng) -> actions`, for every game of the package.

`make_bot(spec, game=...)` builds one from a name ("random", and each game's own such
as "heuristic", "search" and Kanaloa's "ppo"), a policy file (`.npz`), a saved model path, a model, a function or a bot object;
`bot_actions` is how every layer calls one. Game-specific bots live with their game
(`kanaloa_env.games.<game>`).
"""

from typing import Any

from .base import Bot, RandomBot, public_view, sample_legal
from .call import bot_actions, needs_observations
from .model import CallableBot, MaskablePPOBot  # torch is imported only when a model loads
from .registry import bot_names, make_bot

__all__ = [
    "Bot",
    "CallableBot",
    "HeuristicBot",
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
    # Kanaloa's heuristic and search bots, importable from here without importing the
    # game's modules (and their imports of this package) at package import time.
    if name == "HeuristicBot":
        from ..games.kanaloa.heuristic import HeuristicBot

        return HeuristicBot
    if name == "PolicyBot":
        from .policy_file import PolicyBot

        return PolicyBot
    if name == "SearchBot":
        from .search import SearchBot

        return SearchBot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
