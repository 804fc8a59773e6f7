"""Throughput of the batched Kahuna engine against OpenSpiel's C++ `dots_and_boxes`, in one run.

Random legal self-play: every decision reads the mask, picks a uniformly random
legal action and steps the whole batch; finished games are reset in place (as the
vector env does). Measured once without and once with the observation encoded
every decision, at batch sizes 1, 64, 1024 and 8192, plus the state's bytes per
game. The reference is OpenSpiel's `dots_and_boxes(num_rows=3,num_cols=3)` (24
lines claimed on a grid, the closest game OpenSpiel has) driven from Python with
its observation tensor read every decision through OpenSpiel's numpy observer
(`make_observation(game).set_from(state, player)`), and a uniform pick among its
legal actions.

    python benchmarks/bench_kahuna.py               # all batch sizes, 3 s each in 3 turns
    python benchmarks/bench_kahuna.py --seconds 1 --batch-sizes 8192
    python benchmarks/bench_kahuna.py --batch-sizes 8192 --breakdown   # where a decision's time goes

Target (issue 15): at batch 8192 with observations, at least 5x dots_and_boxes
measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.kahuna import OBS_DIM, Config, State, init, observe, reset_games, step_inplace
from kanaloa_env.core.rng import game_keys

TARGET_RATIO = 5.0


def bench_kahuna(batch: int, seconds: float, with_obs: bool) -> float:
    """Decisions per second of random legal self-play at batch size `batch`."""
    state = init(Config(), batch, seed=0)
    rng = np.random.default_rng(0)
    out = np.zeros((batch, OBS_DIM), dtype=np.float32)
    next_game = batch
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(10):
            actions = sample_legal(state.legal, rng)
            step_inplace(state, actions)
            if with_obs:
                observe(state, out=out)
            decisions += batch
            next_game = reset_finished(state, next_game)
        if time.perf_counter() > deadline:
            break
    return decisions / (time.perf_counter() - start)


def reset_finished(state: State, next_game: int) -> int:
    """Start new games (keys `next_game`, ...) in the finished games; the next key."""
    done = state.terminated | state.truncated
    if done.any():
        idx = np.flatnonzero(done)
        reset_games(state, idx, game_keys(0, np.arange(next_game, next_game + len(idx))))
        next_game += len(idx)
    return next_game


BREAKDOWN_PARTS = ("random choice", "step with its mask", "observe", "resets")


def breakdown(batch: int, seconds: float) -> tuple[float, ...]:
    """`bench_kahuna`'s loop with observations and a timer around each part:
    (decisions/s, then ms per decision of the batch for each of `BREAKDOWN_PARTS`)."""
    state = init(Config(), batch, seed=0)
    rng = np.random.default_rng(0)
    out = np.zeros((batch, OBS_DIM), dtype=np.float32)
    spent = [0.0] * len(BREAKDOWN_PARTS)
    next_game, steps = batch, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        actions = sample_legal(state.legal, rng)
        t1 = time.perf_counter()
        step_inplace(state, actions)
        t2 = time.perf_counter()
        observe(state, out=out)
        t3 = time.perf_counter()
        next_game = reset_finished(state, next_game)
        t4 = time.perf_counter()
        for i, dt in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            spent[i] += dt
        steps += 1
    return (steps * batch / sum(spent), *(1e3 * t / steps for t in spent))


def bench_dots_and_boxes(seconds: float) -> tuple[float] | None:
    """OpenSpiel dots_and_boxes 3x3 with its observation tensor read each decision:
    (decisions per second,), or None when OpenSpiel is not installed."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("dots_and_boxes(num_rows=3,num_cols=3)")
    observation = make_observation(game)
    rng = random.Random(0)
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            observation.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return (decisions / (time.perf_counter() - start),)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_turn_options(parser, "measurement")
    parser.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        default=[1, 64, 1024, 8192],
        help="batch sizes to measure",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="then time each part of the loop with observations at the largest batch size",
    )
    args = parser.parse_args()

    keys = [(batch, with_obs) for batch in args.batch_sizes for with_obs in (False, True)]

    def kahuna(key: tuple[int, bool]) -> Callable[[float], tuple[float, ...]]:
        batch, with_obs = key
        return lambda s: (bench_kahuna(batch, s, with_obs),)

    results = best_in_turns(
        [lambda s: bench_dots_and_boxes(s) or (), *(kahuna(k) for k in keys)],
        args.seconds,
        args.rounds,
    )
    ref_rates, best = results[0], {k: r[0] for k, r in zip(keys, results[1:], strict=True)}
    ref = ref_rates[0] if ref_rates else None
    print(
        "OpenSpiel dots_and_boxes 3x3 (C++, observation tensor each decision): "
        + (f"{ref:,.0f} decisions/s" if ref else "not installed (pip install open_spiel)")
    )
    state = init(Config(), 8192, seed=0)
    print(f"state bytes per game: {state.nbytes_per_game()}; observation floats: {OBS_DIM}")
    print()
    print(f"{'batch':>6} {'no obs /s':>14} {'with obs /s':>14} {'x d&b':>8}")
    for batch in args.batch_sizes:
        plain, obs = best[(batch, False)], best[(batch, True)]
        ratio = f"{obs / ref:7.2f}x" if ref else f"{'-':>8}"
        print(f"{batch:>6} {plain:>14,.0f} {obs:>14,.0f} {ratio}")
    print(f"\ntarget at batch 8192 with observations: >= {TARGET_RATIO:.0f}x dots_and_boxes")
    if args.breakdown:
        batch = max(args.batch_sizes)
        rate, *times = best_in_turns([lambda s: breakdown(batch, s)], args.seconds, args.rounds)[0]
        parts = "; ".join(f"{p} {x:.2f}" for p, x in zip(BREAKDOWN_PARTS, times, strict=True))
        print(
            f"\nms per decision at batch {batch} with observations: {parts} ({rate:,.0f} decisions/s)"
        )


if __name__ == "__main__":
    main()
