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
    python benchmarks/bench_kahuna.py --batch-sizes 8192 --threads 2 4 8 16   # thread scaling

Each `--threads` count above 1 adds a column: the run with observations where the
step, the observation and the resets run on that many threads (the random choice
stays on one), and its ratio to one thread in the same run.

Target (issues 15, 23): at batch 8192 with observations, on one thread, through the
in-place step the vector env uses, at least 5x dots_and_boxes measured in the same run.
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


def bench_kahuna(batch: int, seconds: float, with_obs: bool, threads: int = 1) -> float:
    """Decisions per second of random legal self-play at batch size `batch`, the step,
    the observation and the resets on `threads` threads."""
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
            step_inplace(state, actions, threads=threads)
            if with_obs:
                observe(state, out=out, threads=threads)
            decisions += batch
            next_game = reset_finished(state, next_game, threads)
        if time.perf_counter() > deadline:
            break
    return decisions / (time.perf_counter() - start)


def reset_finished(state: State, next_game: int, threads: int = 1) -> int:
    """Start new games (keys `next_game`, ...) in the finished games; the next key."""
    done = state.terminated | state.truncated
    if done.any():
        idx = np.flatnonzero(done)
        keys = game_keys(0, np.arange(next_game, next_game + len(idx)))
        reset_games(state, idx, keys, threads=threads)
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
    parser.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=[1],
        help="also measure with observations on each of these thread counts (step, "
        "observe and resets on N threads; default 1: none)",
    )
    args = parser.parse_args()

    counts = sorted({t for t in args.threads if t > 1})
    modes = [(False, 1), (True, 1)] + [(True, t) for t in counts]
    keys = [(batch, *mode) for batch in args.batch_sizes for mode in modes]

    def kahuna(key: tuple[int, bool, int]) -> Callable[[float], tuple[float, ...]]:
        batch, with_obs, threads = key
        return lambda s: (bench_kahuna(batch, s, with_obs, threads),)

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
    header = f"{'batch':>6} {'no obs /s':>14} {'with obs /s':>14} {'x d&b':>8}"
    for t in counts:
        header += f" {f'obs, {t} thr /s':>16} {'x 1 thr':>8}"
    print(header)
    for batch in args.batch_sizes:
        plain, obs = best[(batch, False, 1)], best[(batch, True, 1)]
        ratio = f"{obs / ref:7.2f}x" if ref else f"{'-':>8}"
        row = f"{batch:>6} {plain:>14,.0f} {obs:>14,.0f} {ratio}"
        for t in counts:
            obs_t = best[(batch, True, t)]
            row += f" {obs_t:>16,.0f} {obs_t / obs:>7.2f}x"
        print(row)
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
