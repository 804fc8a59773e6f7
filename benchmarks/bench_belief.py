"""Belief sampling on real positions: time per game, and what rejection sampling would face.

Plays heuristic self-play games and, at every decision, samples determinizations
for the player to act (`kanaloa_env.core.kanaloa.belief.determinize`). Reports
the time per game (one call over the batch of live games, divided by their
number) and, per position, the acceptance rate that rejection sampling (deal the
hidden cards uniformly, keep a consistent deal) would have: consistent deals
(`count_deals`) over all deals of the hidden cards into the hand sizes.

    python benchmarks/bench_belief.py                    # 3, 4 and 5 players
    python benchmarks/bench_belief.py --players 5 --games 256 --samples 32
    python benchmarks/bench_belief.py --game kahuna      # Kahuna: time per decision only

Kahuna's sampler (`kanaloa_env.core.kahuna.belief`) has no constraint to reject on
(every placement of the hidden cards into the counts is consistent), so only its
time is measured there.

CPU is shared on the development machine, so times are approximate.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from kanaloa_env.bots import public_view
from kanaloa_env.core.kanaloa import Config, init, step
from kanaloa_env.core.kanaloa.belief import count_deals, determinize, hand_sizes, hidden_cards
from kanaloa_env.games.kanaloa.heuristic import HeuristicBot


def all_deals(hidden: int, sizes: list[int]) -> int:
    """Deals of `hidden` cards into hands of `sizes`, the rest out of the deal."""
    out = math.factorial(hidden) // math.factorial(hidden - sum(sizes))
    for k in sizes:
        out //= math.factorial(k)
    return out


def bench(players: int, games: int, samples: int, seed: int) -> dict[str, float]:
    """Self-play `games` games; determinize every decision; time and acceptance rates."""
    cfg = Config(num_players=players)
    state = init(cfg, games, seed=seed)
    bot = HeuristicBot()
    rng = np.random.default_rng(seed)
    seconds, decisions = 0.0, 0
    rates: list[float] = []
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        seats = sub.current_player.astype(np.int64)
        view = public_view(sub, seats)
        start = time.perf_counter()
        determinize(view, seats, samples, rng)
        seconds += time.perf_counter() - start
        decisions += len(live)
        sizes = hand_sizes(sub)
        hidden = np.bitwise_count(hidden_cards(sub, seats))
        for g, count in enumerate(count_deals(view, seats)):
            others = [int(sizes[g, p]) for p in range(players) if p != seats[g]]
            rates.append(count / all_deals(int(hidden[g]), others))
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[live] = bot.act(None, sub.legal, rng, view=view, seats=seats)
        state = step(state, actions)
    r = np.array(rates)
    return {
        "ms_per_game": 1e3 * seconds / decisions,
        "positions": float(len(r)),
        "below_1pct": float((r < 0.01).mean()),
        "below_1e-3": float((r < 1e-3).mean()),
        "min_rate": float(r.min()),
    }


def bench_kahuna(games: int, samples: int, seed: int) -> dict[str, float]:
    """Kahuna heuristic self-play; determinize every decision for the player to act
    from its public view; time per decision."""
    from kanaloa_env.core.kahuna import Config as KahunaConfig
    from kanaloa_env.core.kahuna import init as kahuna_init
    from kanaloa_env.core.kahuna import public_view as kahuna_view
    from kanaloa_env.core.kahuna import step_inplace
    from kanaloa_env.core.kahuna.belief import determinize as kahuna_determinize
    from kanaloa_env.games.kahuna.heuristic import HeuristicBot as KahunaHeuristic

    state = kahuna_init(KahunaConfig(), games, seed=seed)
    bot = KahunaHeuristic()
    rng = np.random.default_rng(seed)
    no_obs = np.zeros((0, 0), dtype=np.float32)
    seconds, decisions = 0.0, 0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        seats = sub.current_player.astype(np.int64)
        view = kahuna_view(sub, seats)
        start = time.perf_counter()
        kahuna_determinize(view, seats, samples, rng)
        seconds += time.perf_counter() - start
        decisions += len(live)
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[live] = bot.act(no_obs, sub.legal, rng, view=view, seats=seats)
        step_inplace(state, actions, validate=False)
    return {"ms_per_decision": 1e3 * seconds / decisions, "positions": float(decisions)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=[3, 4, 5])
    p.add_argument("--games", type=int, default=128, help="self-play games per table size")
    p.add_argument("--samples", type=int, default=16, help="determinizations per decision")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--game", default="kanaloa", choices=["kanaloa", "kahuna"])
    args = p.parse_args()
    print(f"{args.games} heuristic games per line, {args.samples} samples per decision")
    if args.game == "kahuna":
        k = bench_kahuna(args.games, args.samples, args.seed)
        print(
            f"kahuna: {k['ms_per_decision']:.3f} ms per decision, {int(k['positions'])} positions"
        )
        return
    print(
        f"{'players':>7} {'ms/game':>8} {'positions':>9} {'acc<1%':>7} {'acc<1e-3':>8} "
        f"{'min acceptance':>14}"
    )
    for players in args.players:
        r = bench(players, args.games, args.samples, args.seed)
        print(
            f"{players:>7} {r['ms_per_game']:>8.3f} {int(r['positions']):>9} "
            f"{100 * r['below_1pct']:>6.2f}% {100 * r['below_1e-3']:>7.2f}% {r['min_rate']:>14.2e}"
        )


if __name__ == "__main__":
    main()
