"""Speed of Kahuna's HeuristicBot: milliseconds per decision, and arena games per second.

Per decision: `batch` games of heuristic self-play are stepped together until all
are over; at every step the bot decides for every live game in one call, and only
that call (`HeuristicBot.act`, not the engine step nor the `public_view` it is given)
is timed. The figure is the time of all calls over the decisions taken, so a large
batch shares the fixed cost of a call among many decisions; batch 1 is the cost of
one decision asked alone (the terminal game, the AEC env). Arena: complete
seat-balanced games per second of `run_tournament` (play only, the ratings apart),
heuristic against random and against itself, batch size 8192 (the arena's default).

    python benchmarks/bench_kahuna_bot.py                     # batches 1, 64, 1024; both arenas
    python benchmarks/bench_kahuna_bot.py --batch-sizes 1024 --arena-games 0

CPU is shared on the development machine, so figures are approximate: compare
figures from one run.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from kanaloa_env.core.kahuna import Config, init, public_view, step_inplace
from kanaloa_env.evaluation.arena import run_tournament
from kanaloa_env.games.kahuna.heuristic import HeuristicBot


def time_decisions(batch: int, seed: int = 0) -> tuple[int, float]:
    """(decisions, seconds in `act`) of `batch` games of heuristic self-play to the end."""
    state = init(Config(), batch, seed=seed)
    bot = HeuristicBot()
    rng = np.random.default_rng(seed)
    decisions, seconds = 0, 0.0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        seats = sub.current_player.astype(np.int64)
        view, masks = public_view(sub, seats), sub.legal.copy()
        obs = np.zeros((len(live), 1), dtype=np.float32)
        start = time.perf_counter()
        chosen = bot.act(obs, masks, rng, view=view, seats=seats)
        seconds += time.perf_counter() - start
        decisions += len(live)
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[live] = chosen
        step_inplace(state, actions, validate=False)
    return decisions, seconds


def arena_rate(opponent: str, games: int, seed: int = 0) -> float:
    """Games per second of play of `games` games of the heuristic against `opponent`."""
    result = run_tournament(["heuristic", opponent], game="kahuna", num_games=games, seed=seed)
    return result.games_per_second


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024])
    p.add_argument("--games-at-1", type=int, default=4, help="games played one at a time")
    p.add_argument("--arena-games", type=int, default=2000, help="0: no arena runs")
    args = p.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{'batch':>6} {'decisions':>10} {'ms/decision':>12}")
    for batch in args.batch_sizes:
        if batch == 1:
            runs = [time_decisions(1, seed) for seed in range(args.games_at_1)]
            n, s = sum(r[0] for r in runs), sum(r[1] for r in runs)
        else:
            n, s = time_decisions(batch)
        print(f"{batch:>6} {n:>10} {1e3 * s / n:>12.3f}")
    if args.arena_games:
        for opponent in ("random", "heuristic"):
            rate = arena_rate(opponent, args.arena_games)
            print(f"arena heuristic vs {opponent}: {args.arena_games} games, {rate:,.0f} games/s")


if __name__ == "__main__":
    main()
