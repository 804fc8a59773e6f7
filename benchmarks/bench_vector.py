"""Learner steps per second of the native vector env against SB3's DummyVecEnv.

    python benchmarks/bench_vector.py                    # N = 1, 64, 1024, 8192; 3 s each
    python benchmarks/bench_vector.py --sizes 1 1024 --seconds 5
    python benchmarks/bench_vector.py --sizes 8192 --threads 2

Both sides are stable-baselines3 `VecEnv`s driven the same way: every step the
learner plays a uniformly random legal action in every game (masks from
sb3-contrib's `get_action_masks`), the opponents are `RandomBot`s, 4 players,
finished games auto-reset. "native" is `SB3VecEnv` (one `VectorDriver`,
the core at batch size N); "dummy" is `DummyVecEnv` over N single-agent
`SingleAgentEnv`s (the driver at N = 1 each, stepped one after the other). A learner
step includes the opponents' moves up to the learner's next decision.

Each measurement is a time-limited loop after one warm-up step, so large N gets
few but whole steps. Every env is measured in `--rounds` slices of `--seconds /
--rounds`, the envs taking turns, and keeps its best slice (`benchmarks/turns.py`:
on a shared machine whose speed drifts, each env then gets the machine at its
best). The ratio column divides by the best DummyVecEnv rate.
Figures are approximate; compare ratios from one run.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script


def measure(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """(learner steps per second, steps taken) of random legal play on an SB3 VecEnv."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    from kanaloa_env.bots import sample_legal

    rng = np.random.default_rng(seed)
    env.seed(seed)
    env.reset()
    env.step(sample_legal(get_action_masks(env), rng))  # warm-up
    steps = 0
    t0 = time.perf_counter()
    while True:
        env.step(sample_legal(get_action_masks(env), rng))
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps * env.num_envs / dt, steps * env.num_envs


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192], help="numbers of games N"
    )
    p.add_argument(
        "--dummy-sizes",
        type=int,
        nargs="+",
        default=[1, 64],
        help="N for DummyVecEnv (its rate per game hardly depends on N)",
    )
    add_turn_options(p, "env")
    p.add_argument("--num-players", type=int, default=4, help="players at the table")
    p.add_argument("--seed", type=int, default=0, help="seed of games and actions")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads stepping and encoding the native env's games (VectorDriver threads)",
    )
    args = p.parse_args(argv)

    from stable_baselines3.common.vec_env import DummyVecEnv

    from kanaloa_env.wrappers import SingleAgentEnv
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    envs: list[tuple[str, int, Any]] = []
    for n in args.dummy_sizes:
        envs.append(
            (
                "dummy",
                n,
                DummyVecEnv(
                    [
                        lambda: SingleAgentEnv(num_players=args.num_players, illegal_action="raise")
                        for _ in range(n)
                    ]
                ),
            )
        )
    for n in args.sizes:
        envs.append(
            (
                "native",
                n,
                SB3VecEnv(
                    n,
                    num_players=args.num_players,
                    seed=args.seed,
                    threads=args.threads,
                ),
            )
        )
    results = best_in_turns(
        [lambda sec, env=env: measure(env, sec, args.seed) for _, _, env in envs],
        args.seconds,
        args.rounds,
    )
    rows = [
        {"env": k, "N": n, "rate": rate, "steps": steps}
        for (k, n, _), (rate, steps) in zip(envs, results, strict=True)
    ]
    best_dummy = max(r["rate"] for r in rows if r["env"] == "dummy")

    print(
        f"learner steps/s, {args.num_players} players, random opponents and learner, "
        f"native env on {args.threads} thread(s)"
    )
    print(f"{'env':<8}{'N':>7}{'steps/s':>12}{'x dummy':>10}{'steps in best slice':>21}")
    for r in rows:
        print(
            f"{r['env']:<8}{r['N']:>7}{r['rate']:>12.0f}{r['rate'] / best_dummy:>10.1f}"
            f"{r['steps']:>21}"
        )
    return rows


if __name__ == "__main__":
    main()
