"""`python -m kanaloa_env.arena` and `from kanaloa_env.arena import run_tournament`.

Entry point only: the tournament lives in `kanaloa_env.evaluation.arena`, the
command line in `kanaloa_env.cli.arena`.
"""

from .cli.arena import main
from .evaluation.arena import EntrantStats, TournamentResult, run_tournament, seat_schedule

__all__ = ["EntrantStats", "TournamentResult", "main", "run_tournament", "seat_schedule"]

if __name__ == "__main__":
    from .cli.arena import run

    run()
