"""Throughput of the batched core against OpenSpiel's C++ `hearts`, in one run.

Random legal self-play: every decision reads the mask, picks a uniformly random
legal action and steps the whole batch; finished games are reset in place (as the
vector env does). Measured once without and once with the observation encoded
every decision, at batch sizes 1, 64, 1024 and 8192, plus the state's bytes per
game. The reference is OpenSpiel `hearts` driven from Python with its information
state read every decision through OpenSpiel's numpy observer
(`make_observation(...).set_from`), driven the cheapest way: a uniform pick among
the legal actions at every node, its deal's 53 chance nodes included (see
`bench_hearts`).

    python benchmarks/bench_core.py               # all batch sizes, 3 s each in 3 turns
    python benchmarks/bench_core.py --seconds 1 --batch-sizes 8192 --threads 1
    python benchmarks/bench_core.py --batch-sizes 8192 --breakdown   # where a decision's time goes
    python benchmarks/bench_core.py --batch-sizes 8192 --threads 1 4 8 16   # thread scaling

Each `--threads` count above 1 adds a pair of columns: the run with observations
where the step, the observation and the resets run on that many threads
(`step_inplace(..., threads=N)`, `observe(..., threads=N)`, `reset_games(...,
threads=N)`; the random choice stays on one); the ratio is to one thread in the
same run. Batches under 2048 games are not split (`kernels.MIN_GAMES_PER_THREAD`).

Targets (issue 23; batch 8192, one process): with observations on one thread >= 8x
hearts, without them >= 15x hearts; with observations on 2 threads >= 1.6x one
thread on a 2-core machine; <= 512 bytes of state per game.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.kanaloa import Config, init, observe, step_inplace
from kanaloa_env.core.kanaloa.observation import OBS_DIM
from kanaloa_env.core.kanaloa.setup import reset_games
from kanaloa_env.core.kanaloa.state import State
from kanaloa_env.core.rng import game_keys


def bench_kanaloa(
    batch: int, seconds: float, with_obs: bool, num_players: int, threads: int = 1
) -> float:
    """Decisions per second of random legal self-play at batch size `batch`, the step,
    the observation and the resets on `threads` threads."""
    state = init(Config(num_players=num_players), batch, seed=0)
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
    """Deal new games (keys `next_game`, ...) into the finished games; the next key."""
    done = state.terminated | state.truncated
    if done.any():
        idx = np.flatnonzero(done)
        keys = game_keys(0, np.arange(next_game, next_game + len(idx)))
        reset_games(state, idx, keys, threads=threads)
        next_game += len(idx)
    return next_game


def breakdown(batch: int, seconds: float, num_players: int, threads: int = 1) -> tuple[float, ...]:
    """`bench_kanaloa`'s loop with observations and a timer around each part:
    (decisions/s, then ms per decision of the batch for each of `BREAKDOWN_PARTS`)."""
    state = init(Config(num_players=num_players), batch, seed=0)
    rng = np.random.default_rng(0)
    out = np.zeros((batch, OBS_DIM), dtype=np.float32)
    spent = [0.0] * len(BREAKDOWN_PARTS)
    next_game, steps = batch, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        actions = sample_legal(state.legal, rng)
        t1 = time.perf_counter()
        step_inplace(state, actions, threads=threads)
        t2 = time.perf_counter()
        observe(state, out=out, threads=threads)
        t3 = time.perf_counter()
        next_game = reset_finished(state, next_game, threads)
        t4 = time.perf_counter()
        for i, dt in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            spent[i] += dt
        steps += 1
    return (steps * batch / sum(spent), *(1e3 * t / steps for t in spent))


BREAKDOWN_PARTS = ("random choice", "step with its mask", "observe", "resets")


def bench_hearts(seconds: float) -> tuple[float, float] | None:
    """OpenSpiel hearts with the information state read each decision.

    Returns (decisions per second, decisions per second of play alone), or None when
    OpenSpiel is not installed. Hearts deals through 53 chance nodes per game (pass
    direction, 52 cards), a Python call each, about a quarter of its time here. The
    first figure counts them, as ours count our deals (resets), and is the one
    compared against; the second leaves them out.
    """
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    obs_type = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    observation = make_observation(game, obs_type)
    # Python's own generator and a uniform pick among the legal actions: the cheapest
    # way to drive the reference, so the comparison is against OpenSpiel's speed, not
    # against our sampling. Hearts' chance outcomes are uniform; checked here once.
    state = game.new_initial_state()
    while state.is_chance_node():
        if len({p for _, p in state.chance_outcomes()}) != 1:
            raise RuntimeError("hearts has a non-uniform chance node; sample it by weight")
        state.apply_action(state.legal_actions()[0])
    rng = random.Random(0)
    decisions = 0
    dealing = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                t = time.perf_counter()
                while state.is_chance_node():
                    outcomes = state.legal_actions()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))])
                dealing += time.perf_counter() - t
                continue
            observation.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, decisions / (elapsed - dealing)


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
    parser.add_argument("--players", type=int, default=4, help="table size 3..5 (default 4)")
    parser.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=[2],
        help="also measure with observations on each of these thread counts (step, "
        "observe and resets on N threads); 1 alone skips those columns (default 2)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="then time each part of the loop with observations at the largest batch "
        "size, on 1 and on --threads threads",
    )
    args = parser.parse_args()

    counts = sorted({t for t in args.threads if t > 1})
    modes = [(False, 1), (True, 1)] + [(True, t) for t in counts]
    keys = [(batch, with_obs, threads) for batch in args.batch_sizes for with_obs, threads in modes]

    def kanaloa(key: tuple[int, bool, int]) -> Callable[[float], tuple[float, ...]]:
        batch, with_obs, threads = key
        return lambda s: (bench_kanaloa(batch, s, with_obs, args.players, threads=threads),)

    results = best_in_turns(
        [lambda s: bench_hearts(s) or (), *(kanaloa(k) for k in keys)], args.seconds, args.rounds
    )
    hearts_rates, best = results[0], {k: r[0] for k, r in zip(keys, results[1:], strict=True)}
    hearts = hearts_rates[0] if hearts_rates else None
    ref = (
        f"{hearts_rates[0]:,.0f} decisions/s ({hearts_rates[1]:,.0f}/s leaving out its deal)"
        if hearts_rates
        else "not installed (pip install open_spiel)"
    )
    print(f"OpenSpiel hearts (C++, info state each decision): {ref}")
    state = init(Config(num_players=args.players), 8192, seed=0)
    print(
        f"state bytes per game ({args.players} players): {state.nbytes_per_game()} (target <= 512)"
    )
    print()
    header = f"{'batch':>6} {'no obs /s':>14} {'x hearts':>9} {'with obs /s':>14} {'x hearts':>9}"
    for t in counts:
        header += f" {f'obs, {t} thr /s':>16} {'x 1 thr':>8}"
    print(header)

    def ratio(rate: float) -> str:
        return f"{rate / hearts:8.2f}x" if hearts else f"{'-':>9}"

    for batch in args.batch_sizes:
        plain, obs = best[(batch, False, 1)], best[(batch, True, 1)]
        row = f"{batch:>6} {plain:>14,.0f} {ratio(plain)} {obs:>14,.0f} {ratio(obs)}"
        for t in counts:
            obs_t = best[(batch, True, t)]
            row += f" {obs_t:>16,.0f} {obs_t / obs:>7.2f}x"
        print(row)
    print(
        "\ntargets at batch 8192: >= 15x hearts without obs, >= 8x with obs on one thread, "
        "2 threads >= 1.6x one (on 2 cores)"
    )
    if args.breakdown:
        batch = max(args.batch_sizes)
        threads = sorted({1, *counts})
        got = best_in_turns(
            [lambda s, t=t: breakdown(batch, s, args.players, t) for t in threads],
            args.seconds,
            args.rounds,
        )
        print(
            f"\nms per decision at batch {batch} with observations (best of {args.rounds} turns):"
        )
        for t, (rate, *times) in zip(threads, got, strict=True):
            parts = "; ".join(f"{p} {x:.2f}" for p, x in zip(BREAKDOWN_PARTS, times, strict=True))
            print(f"  observe on {t} thread(s): {parts} ({rate:,.0f} decisions/s)")


if __name__ == "__main__":
    main()
