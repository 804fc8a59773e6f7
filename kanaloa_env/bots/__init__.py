"""Batched bots: `act(observations, masks, rng) -> actions`.

`make_bot(spec)` builds one from a name ("random", "heuristic", "search"), a saved model
path or a bot object.
"""

from .base import Bot, RandomBot, public_view, sample_legal
from .heuristic import HeuristicBot
from .model import CallableBot, MaskablePPOBot  # torch is imported only when a model loads
from .registry import BOT_NAMES, make_bot, needs_observations
from .search import SearchBot

__all__ = [
    "BOT_NAMES",
    "Bot",
    "CallableBot",
    "HeuristicBot",
    "MaskablePPOBot",
    "RandomBot",
    "SearchBot",
    "make_bot",
    "needs_observations",
    "public_view",
    "sample_legal",
]
