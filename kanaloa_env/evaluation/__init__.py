"""Evaluation: tournaments among bots with ratings (`arena`), a policy's win rate against
bots (`evaluate`), the ratings and the statistics they use.

The command line of the arena is `kanaloa_env.cli.arena` (`python -m kanaloa_env.arena`).
"""

from .arena import EntrantStats, TournamentResult, run_tournament, seat_schedule
from .evaluate import EvalResult, evaluate
from .stats import wilson_interval

__all__ = [
    "EntrantStats",
    "EvalResult",
    "TournamentResult",
    "evaluate",
    "run_tournament",
    "seat_schedule",
    "wilson_interval",
]
