"""Learner steps per second of the vector driver with a weighted opponent pool.

    python benchmarks/bench_pool.py                       # 256 games, heuristic x12 + random x4
    python benchmarks/bench_pool.py --repeats 3 --seconds 6

The pool is `opponent_sampling="random"` over `--repeats` heuristic entries and
`--others` random bots, so about repeats / (repeats + others) of the opponent seats
are heuristic. "one object" lists the same `HeuristicBot` `--repeats` times: the
driver lets it act once per step on all its seats. "distinct objects" lists as many
separate `HeuristicBot`s, each acting on its own seats (what the driver did for
every entry before it grouped entries by object). The learner plays uniformly
random legal actions; 4 players. Figures are approximate; compare the ratio of one
run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script

from kanaloa_env.bots import RandomBot, sample_legal
from kanaloa_env.games.kanaloa.heuristic import HeuristicBot
from kanaloa_env.wrappers import VectorDriver


def measurement(opponents: list, num_envs: int):
    """A `best_in_turns` measurement: (learner steps/s,) of a driver against `opponents`."""
    driver = VectorDriver(num_envs, num_players=4, opponents=opponents, opponent_sampling="random")
    rng = np.random.default_rng(0)
    driver.reset(seed=0)

    def measure(seconds: float) -> tuple[float]:
        steps = 0
        t0 = time.perf_counter()
        while (dt := time.perf_counter() - t0) < seconds:
            driver.step(sample_legal(driver.action_masks(), rng))
            steps += num_envs
        return (steps / dt,)

    return measure


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--num-envs", type=int, default=256, help="games played side by side")
    p.add_argument("--repeats", type=int, default=12, help="heuristic entries in the pool")
    p.add_argument("--others", type=int, default=4, help="random-bot entries in the pool")
    add_turn_options(p, "pool")
    args = p.parse_args(argv)
    heuristic = HeuristicBot()
    others = [RandomBot() for _ in range(args.others)]
    pools = {
        "one object": [heuristic] * args.repeats + others,
        "distinct objects": [HeuristicBot() for _ in range(args.repeats)] + others,
    }
    best = best_in_turns(
        [measurement(pool, args.num_envs) for pool in pools.values()], args.seconds, args.rounds
    )
    rates = {name: r[0] for name, r in zip(pools, best, strict=True)}
    for name, rate in rates.items():
        print(f"{name:>17}: {rate:>9,.0f} learner steps/s")
    print(f"ratio: {rates['one object'] / rates['distinct objects']:.2f}")
    return rates


if __name__ == "__main__":
    main()
