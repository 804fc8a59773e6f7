"""The guided search against the plain search bot at one table, and what each pays a decision.

Half the seats (two at 4 players, one in Kahuna) play `SearchBot` guided by the game's
shipped network (`guide=PolicyBot.shipped(game)`, `guide_top` = `--top`: the network's K
likeliest legal moves are searched, the rest only when they are all that is left), the
other half the plain search bot, seats alternating, in a seat-balanced arena. Prints one
JSON line: the guided seats' share of the wins with its 95% Wilson interval, and each
side's CPU milliseconds per decision measured inside `act` (torch on one thread).

    python benchmarks/bench_guided.py --rollouts 128 --top 3 --games 400 --seed 7
    python benchmarks/bench_guided.py --rollouts 256 --plain-rollouts 128 --games 400 --seed 8
    python benchmarks/bench_guided.py --game kahuna --rollouts 24 --games 200 --seed 8

The target of issue 30: the guided seats win >= 60% at <= 2x the plain search's CPU per
decision (docs/baselines.md has the figures measured).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from kanaloa_env.arena import run_tournament
from kanaloa_env.bots.search import SearchBot, guided_search
from kanaloa_env.evaluation.stats import wilson_interval


def bench(
    game: str, rollouts: int, plain_rollouts: int, top: int, games: int, seed: int
) -> dict[str, object]:
    """Guided seats against plain-search seats; the result as a dict (see the module doc)."""
    players = 4 if game == "kanaloa" else 2
    guided = [
        guided_search(game, rollouts=rollouts, guide_top=top, name=f"guided{i}")
        for i in range(players // 2)
    ]
    plain = [
        SearchBot(rollouts=plain_rollouts, game=game, name=f"plain{i}") for i in range(players // 2)
    ]
    bots = [b for pair in zip(guided, plain, strict=True) for b in pair]
    t0 = time.time()
    res = run_tournament(bots, num_players=players, num_games=games, seed=seed, game=game)
    wins = sum(s.wins for s in res.stats if s.name.startswith("guided"))
    low, high = wilson_interval(wins, games)

    def cpu_ms(side: list[SearchBot]) -> float:
        decisions = sum(b.stats.decisions for b in side)
        return 1e3 * sum(b.stats.cpu_s for b in side) / max(1, decisions)

    return {
        "game": game,
        "players": players,
        "rollouts": rollouts,
        "plain_rollouts": plain_rollouts,
        "top": top,
        "games": games,
        "seed": seed,
        "guided_share": wins / games,
        "ci": [round(low, 4), round(high, 4)],
        "cpu_ms_guided": round(cpu_ms(guided), 3),
        "cpu_ms_plain": round(cpu_ms(plain), 3),
        "wall_s": round(time.time() - t0, 1),
        "load": round(os.getloadavg()[0], 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["kanaloa", "kahuna"], default="kanaloa")
    p.add_argument("--rollouts", type=int, default=128, help="the guided search's rollouts")
    p.add_argument(
        "--plain-rollouts", type=int, default=None, help="the plain search's (default: the same)"
    )
    p.add_argument("--top", type=int, default=3, help="guide_top: moves the network proposes")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    plain = args.rollouts if args.plain_rollouts is None else args.plain_rollouts
    out = bench(args.game, args.rollouts, plain, args.top, args.games, args.seed)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
