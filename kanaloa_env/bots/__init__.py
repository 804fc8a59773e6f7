"""Batched bots: `act(observations, masks, rng) -> actions`.

`make_bot(spec)` builds one from a name ("random", "heuristic", "ppo"), a policy
file (`.npz`), a saved model path or a bot object.
"""

from .base import Bot, RandomBot, public_view, sample_legal
from .heuristic import HeuristicBot
from .model import CallableBot, MaskablePPOBot  # torch is imported only when a model loads
from .policy_file import PolicyBot  # likewise
from .registry import BOT_NAMES, make_bot, needs_observations

__all__ = [
    "BOT_NAMES",
    "Bot",
    "CallableBot",
    "HeuristicBot",
    "MaskablePPOBot",
    "PolicyBot",
    "RandomBot",
    "make_bot",
    "needs_observations",
    "public_view",
    "sample_legal",
]
