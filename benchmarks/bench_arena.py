"""Complete arena games per second, with random and with heuristic bots.

Each line plays one seat-balanced tournament (`kanaloa_env.arena.run_tournament`,
no progress bar, no files) and reports games per second of play (the rating
update is timed apart, as it is a per-game Python loop in openskill), games per
second including the ratings, games per CPU-second of this process (whole run,
ratings included; steadier than wall time on a shared machine), the mean
decisions per game and the rounds per game.

    python benchmarks/bench_arena.py                       # 4 players, both line-ups
    python benchmarks/bench_arena.py --games 16384 --batch-size 8192
    python benchmarks/bench_arena.py --players 3 5 --lineups random

Target: at least 5,000 complete games/s with four random bots at 4 players.
CPU is shared on the development machine, so figures are approximate.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from kanaloa_env.evaluation.arena import DEFAULT_BATCH_SIZE, run_tournament

LINEUPS = {
    "random": lambda p: ["random"] * p,
    "heuristic": lambda p: ["heuristic"] * p,
    "mixed": lambda p: ["heuristic"] + ["random"] * (p - 1),
}


def bench(lineup: str, players: int, games: int, batch: int, seed: int) -> dict[str, float]:
    """One tournament; returns games/s of play and per-game averages."""
    bots = LINEUPS[lineup](players)
    # A first small tournament loads the compiled kernels (about half a second on a first
    # call in a process), which is not what a line measures.
    run_tournament(bots, players, players, seed=seed, batch_size=players)
    start, cpu = time.perf_counter(), time.process_time()
    result = run_tournament(bots, players, games, seed=seed, batch_size=batch)
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "games_per_s": result.games_per_second,
        "games_per_cpu_s": games / cpu,
        "with_ratings_per_s": games / total,
        "decisions": float(np.mean(result.decisions)),
        "rounds": float(np.mean(result.summary["rounds"])),
        "rating_s": result.rating_seconds,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[4], choices=[3, 4, 5])
    p.add_argument("--lineups", nargs="+", default=["random", "heuristic"], choices=list(LINEUPS))
    p.add_argument("--games", type=int, default=16384, help="games per measurement")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{args.games} games per line, batch size {args.batch_size}")
    head = (
        f"{'players':>7} {'bots':<10} {'games/s':>9} {'incl. ratings':>14} {'per CPU-s':>10} "
        f"{'decisions/game':>15} {'rounds/game':>12}"
    )
    print(head)
    print("-" * len(head))
    for players in args.players:
        for lineup in args.lineups:
            r = bench(lineup, players, args.games, args.batch_size, args.seed)
            print(
                f"{players:>7} {lineup:<10} {r['games_per_s']:>9,.0f} "
                f"{r['with_ratings_per_s']:>14,.0f} {r['games_per_cpu_s']:>10,.0f} "
                f"{r['decisions']:>15.1f} {r['rounds']:>12.2f}"
            )


if __name__ == "__main__":
    main()
