"""Strength and speed of the search bot against heuristic (or random) bots, in the arena.

Plays a seat-balanced tournament (`kanaloa_env.arena.run_tournament`) of one
`SearchBot` against `P - 1` opponents (`--opponent`, default the game's heuristic)
for each budget given, in Kanaloa or Kahuna (`--game`; Kahuna is 2 players), and reports the
search bot's win rate with its 95% Wilson interval (one seat of P: 1/P is par)
and its time per decision as measured inside `act` (wall and CPU time of this
process, per decision asked and per decision searched, i.e. with two or more
legal actions). The machine's load average is printed with each line: on a
shared machine the wall time swings with it, the CPU time much less.

    python benchmarks/bench_search.py                          # default budget, 400 games
    python benchmarks/bench_search.py --rollouts 64 192 --games 1000 --seed 1
    python benchmarks/bench_search.py --time-ms 50 --games 200
    python benchmarks/bench_search.py --game kahuna --rollouts 256 --policy random --games 400

Equivalent arena command for the default bot (no timing):
`python -m kanaloa_env.arena --bots search heuristic heuristic heuristic --players 4
--games 400 --seed 0`.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import Any

import numpy as np

from kanaloa_env.arena import run_tournament
from kanaloa_env.bots.search import SearchBot
from kanaloa_env.games import get_game


def bench(
    bot: SearchBot,
    players: int,
    games: int,
    seed: int,
    progress: bool,
    game: str = "kanaloa",
    opponent: str = "heuristic",
) -> dict[str, float]:
    """One tournament of `bot` against `opponent` bots; the bot's results and times."""
    start = time.perf_counter()
    result = run_tournament(
        [bot] + [opponent] * (players - 1),
        num_players=players,
        num_games=games,
        seed=seed,
        progress=progress,
        game=game,
    )
    row = next(s for s in result.stats if s.name == bot.name)
    st = bot.stats
    return {
        "games": row.games,
        "wins": row.wins,
        "win_rate": row.win_rate,
        "ci_low": row.ci_low,
        "ci_high": row.ci_high,
        "mean_rank": row.mean_rank,
        "ms": st.ms_per_decision,
        "cpu_ms": st.cpu_ms_per_decision,
        "ms_searched": 1e3 * st.wall_s / max(st.searched, 1),
        "cpu_ms_searched": 1e3 * st.cpu_s / max(st.searched, 1),
        "decisions": st.decisions / games,
        "rollouts": st.rollouts / max(st.searched, 1),
        "minutes": (time.perf_counter() - start) / 60,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rollouts", type=int, nargs="*", default=None, help="budgets to measure")
    p.add_argument("--time-ms", type=float, nargs="*", default=None, help="timed budgets")
    p.add_argument("--game", default="kanaloa", choices=["kanaloa", "kahuna"])
    p.add_argument("--opponent", default="heuristic", choices=["heuristic", "random"])
    p.add_argument("--policy", default=None, choices=["heuristic", "random"])
    p.add_argument("--horizon", default=None, choices=["round", "game"])
    p.add_argument("--selection", default=None, choices=["uniform", "halving"])
    p.add_argument("--players", type=int, default=None, choices=[2, 3, 4, 5])
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--progress", action="store_true", help="show the arena's progress bar")
    args = p.parse_args()
    g = get_game(args.game)
    players = args.players or g.default_num_players
    if players not in g.player_counts:
        p.error(f"{g.title} is played by {g.player_counts_text()} players")
    # The game's defaults where not given (the bot `make_bot("search", game=...)`).
    options: dict[str, Any] = {**g.search_defaults(), "game": args.game}
    for name in ("policy", "horizon", "selection"):
        if getattr(args, name):
            options[name] = getattr(args, name)
    given = {k: v for k, v in options.items() if k != "rollouts"}
    bots = [SearchBot(rollouts=r, **given) for r in (args.rollouts or [])]
    bots += [SearchBot(rollouts=None, time_ms=t, **given) for t in (args.time_ms or [])]
    if not bots:
        bots = [SearchBot(**options)]
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(
        f"{args.game}: search vs {players - 1} {args.opponent}, {players} players, "
        f"{args.games} games, seed {args.seed}, policy {bots[0].policy}, "
        f"horizon {bots[0].horizon}, selection {bots[0].selection}"
    )
    print(
        f"{'budget':>14} {'win rate':>9} {'95% CI':>17} {'rank':>5} {'ms/dec':>7} {'cpu':>6} "
        f"{'ms/srch':>7} {'cpu':>6} {'dec/g':>5} {'roll/srch':>9} {'min':>5} {'load':>5}"
    )
    for bot in bots:
        r = bench(bot, players, args.games, args.seed, args.progress, args.game, args.opponent)
        budget = f"{bot.rollouts} rollouts" if bot.time_ms is None else f"{bot.time_ms:g} ms"
        print(
            f"{budget:>14} {100 * r['win_rate']:>8.1f}% "
            f"[{100 * r['ci_low']:>5.1f}%, {100 * r['ci_high']:>5.1f}%] {r['mean_rank']:>5.2f} "
            f"{r['ms']:>7.1f} {r['cpu_ms']:>6.1f} {r['ms_searched']:>7.1f} "
            f"{r['cpu_ms_searched']:>6.1f} {r['decisions']:>5.1f} {r['rollouts']:>9.0f} "
            f"{r['minutes']:>5.1f} {r['load']:>5.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
