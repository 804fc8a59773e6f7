"""Throughput of the GPU engines against the CPU engines on every core and against pgx,
and of the GPU PPO against the CPU batched PPO, in one run on one machine.

    python benchmarks/bench_gpu.py --out results/      # everything, about 8 minutes
    python benchmarks/bench_gpu.py --parts engines --batch-sizes 65536 --seconds 2

Parts (`--parts`, default all):

- `start`: the first use of the GPU engines in a fresh process (init, step and
  observe of both games at batch 1,024, `--start-batch`: compiling every kernel), twice: the first
  run compiles, the second finds numba-cuda's on-disk cache (issue target: the first
  within 60 s, cached afterwards).
- `engines`: random legal self-play on the GPU (the same rule functions as the CPU
  engines, one thread a game: `kanaloa_env.core.gpu`), decisions a second with and
  without the observation of the player to act encoded after every decision, at
  batch sizes 8,192, 65,536 and 1,048,576 (`--batch-sizes`), for Kanaloa (4 players)
  and Kahuna. One kernel launch plays `--steps-per-launch` decisions of every game
  (1: one launch a decision, what an RL loop does; more: the engine alone, without
  the Python launch cost): a random legal action from a hash of the game's key, the
  step, the restart of a finished game, and the observation when asked. A GPU's
  first launch compiles the kernels (reported as `cold_start_s`) and is not timed.
- `cpu`: the CPU engines on `--cpu-threads` threads (default: every core), the loops
  of bench_core.py and bench_kahuna.py, at the same batch sizes up to 65,536.
- `pgx`: pgx's `leduc_holdem` and `backgammon` when jax and pgx import, random legal
  play under `jax.jit(jax.vmap(...))` with pgx's auto-reset at the same batch sizes;
  pgx computes the observation in every step, so its figure compares with ours with
  observations.
- `ppo`: learner decisions a second (rollout and update) of examples/train_gpu_ppo.py
  against examples/train_batched_ppo.py (PPO on the CPU engine), both on Kahuna
  against the heuristic (on the GPU, `Game.gpu_bot`, for the first), no warm start,
  with the scripts' default sizes, the median of `--ppo-updates` updates after the
  first.
- `recipe` (not in the default parts: minutes of training): the Kahuna recipe of the
  shipped file on the GPU (`--recipe-args`, default a warm start of 2M decisions
  imitating the heuristic, 1M of critic warm-up, 20M of PPO against the heuristic),
  its wall time, then the exported network against the heuristic in the arena
  (`--recipe-games` games, seed 1, on the CPU). Issue target: >= 60% in <= 3 minutes.

Writes `bench_gpu.json` (every figure, the device and versions) and `bench_gpu.md`
(tables) into `--out`. Without a GPU it says so and exits 2; under numba-cuda's
simulator (NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1) it runs tiny sizes for the
tests, whose figures mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PARTS = ("start", "engines", "cpu", "pgx", "ppo", "recipe")
DEFAULT_PARTS = PARTS[:-1]
RECIPE = (
    "--game kahuna --opponents heuristic --clone-decisions 2000000 --critic-warmup 1000000 "
    "--timesteps 20000000 --eval-every 5000000"
)
GAMES = {"kanaloa": {"num_players": 4}, "kahuna": {}}
PGX_GAMES = ("leduc_holdem", "backgammon")
NO_GPU_EXIT = 2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=Path("."), help="folder for the result files")
    p.add_argument(
        "--parts", nargs="+", choices=PARTS, default=list(DEFAULT_PARTS), help="what to run"
    )
    p.add_argument(
        "--batch-sizes", type=int, nargs="+", default=[8192, 65536, 1 << 20], help="batch sizes"
    )
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    p.add_argument(
        "--steps-per-launch", type=int, nargs="+", default=[1, 16], help="decisions a launch"
    )
    p.add_argument("--start-batch", type=int, default=1024, help="games of the start part")
    p.add_argument("--cpu-threads", type=int, default=os.cpu_count() or 1, help="CPU threads")
    p.add_argument("--cpu-max-batch", type=int, default=65536, help="largest CPU batch")
    p.add_argument("--ppo-updates", type=int, default=4, help="PPO updates timed per learner")
    p.add_argument("--gpu-ppo-args", default="", help="extra options of train_gpu_ppo.py")
    p.add_argument("--cpu-ppo-args", default="", help="extra options of train_batched_ppo.py")
    p.add_argument("--recipe-args", default=RECIPE, help="train_gpu_ppo.py options of `recipe`")
    p.add_argument("--recipe-games", type=int, default=2000, help="arena games of `recipe`")
    args = p.parse_args(argv)
    if min(args.batch_sizes) < 1 or min(args.steps_per_launch) < 1 or args.seconds <= 0:
        p.error("--batch-sizes and --steps-per-launch must be >= 1 and --seconds above 0")
    return args


def device_name() -> str:
    """The GPU's name (or the simulator's)."""
    from kanaloa_env.core import gpu

    cuda = gpu.cuda_module()
    if gpu.simulator():
        return "numba-cuda simulator (no GPU)"
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def bench_gpu_engine(
    game_name: str, batch: int, seconds: float, with_obs: bool, steps: int
) -> dict[str, float]:
    """Decisions a second of random legal self-play on the GPU (see the module); the
    first launch (compiling the kernels when they are not cached) timed apart."""
    from kanaloa_env.core import gpu
    from kanaloa_env.core.rng import seed_base
    from kanaloa_env.games import get_game

    cuda = gpu.cuda_module()
    game = get_game(game_name)
    engine = game.gpu_engine()
    cfg = game.make_config(None, GAMES[game_name].get("num_players"))
    state = engine.init(cfg, batch, seed=0)
    kern = engine.kernels()
    draws = cuda.to_device(np.zeros(batch, np.int64))
    next_id = cuda.to_device(np.arange(batch, dtype=np.int64) + batch)
    out = cuda.device_array((batch, engine.obs_dim), np.float32)
    args = (state.rules, state.arrays, draws, next_id, np.uint64(seed_base(0)), np.int64(batch))

    def launch() -> None:
        gpu.launch(kern.random_play, batch, *args, out, with_obs, np.int64(steps))

    t = time.perf_counter()
    launch()
    cuda.synchronize()
    cold = time.perf_counter() - t
    decisions = 0
    start = time.perf_counter()
    while True:
        for _ in range(10):
            launch()
            decisions += batch * steps
        cuda.synchronize()
        if time.perf_counter() - start > seconds:
            break
    return {"decisions_per_s": decisions / (time.perf_counter() - start), "cold_start_s": cold}


def bench_cpu_engine(
    game_name: str, batch: int, seconds: float, with_obs: bool, threads: int
) -> float:
    """The CPU engine's decisions a second, bench_core.py's or bench_kahuna.py's loop."""
    if game_name == "kanaloa":
        from bench_core import bench_kanaloa

        return bench_kanaloa(batch, seconds, with_obs, GAMES["kanaloa"]["num_players"], threads)
    from bench_kahuna import bench_kahuna

    return bench_kahuna(batch, seconds, with_obs, threads)


def bench_pgx(env_id: str, batch: int, seconds: float) -> float | None:
    """Decisions a second of pgx's `env_id` in random legal play with auto-reset, or None
    when jax or pgx does not import."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make(env_id)
    init = jax.jit(jax.vmap(env.init))
    step_fn = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def play(state: Any, key: Any) -> tuple[Any, Any]:
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1)
        state = step_fn(state, action, jax.random.split(k_step, batch))
        return state, key

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, batch))
    state, key = play(state, key)  # compiles
    jax.block_until_ready(state)
    decisions = 0
    start = time.perf_counter()
    while True:
        for _ in range(10):
            state, key = play(state, key)
            decisions += batch
        jax.block_until_ready(state)
        if time.perf_counter() - start > seconds:
            break
    return decisions / (time.perf_counter() - start)


_START = """
import time
t = time.perf_counter()
import numpy as np
from numba import cuda
from kanaloa_env.games import get_game
for name in ("kanaloa", "kahuna"):
    game = get_game(name)
    engine = game.gpu_engine()
    state = engine.init(game.make_config(None, None), BATCH, seed=0)
    engine.step_inplace(state, state.legal.copy_to_host().argmax(axis=1))
    engine.observe(state)
cuda.synchronize()
print(time.perf_counter() - t)
"""


def bench_start(batch: int) -> dict[str, float]:
    """Seconds to the first step and observation of both games (`batch` games each) in a
    fresh process, the first time (compiling) and the second (numba-cuda's cache)."""
    import subprocess

    out = {}
    code = f"BATCH = {int(batch)}\n{_START}"
    for label in ("first_process_s", "second_process_s"):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=True
        )
        out[label] = float(done.stdout.strip().splitlines()[-1])
    return out


def example(name: str) -> Any:
    """The example script `examples/{name}.py` as a module, to run its `main` here (the
    benchmark times the script itself)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, HERE.parent / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GPU_RATE = re.compile(r"([\d,]+) learner decisions/s")
_CPU_RATE = re.compile(r"collect ([\d.]+)s, update ([\d.]+)s")


def bench_ppo(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Learner decisions a second of both PPO scripts on Kahuna (see the module)."""
    train_batched_ppo = example("train_batched_ppo")
    train_gpu_ppo = example("train_gpu_ppo")
    extra = args.gpu_ppo_args.split()
    gpu_dir, cpu_dir = folder / "gpu_ppo", folder / "cpu_ppo"
    n = args.ppo_updates + 1
    gpu_args = train_gpu_ppo.parse_args(extra)
    per_update = gpu_args.num_envs * gpu_args.rollout_steps
    train_gpu_ppo.main(
        [
            "--opponents",
            "heuristic",
            *extra,
            "--game",
            "kahuna",
            "--output-dir",
            str(gpu_dir),
            "--timesteps",
            str(n * per_update),
        ]
        + ["--eval-every", str(10 * n * per_update), "--eval-games", "16"]
    )
    gpu_rates = [
        float(m.group(1).replace(",", ""))
        for m in _GPU_RATE.finditer((gpu_dir / "log.txt").read_text())
    ][1:]
    extra = args.cpu_ppo_args.split()
    cpu_args = train_batched_ppo.parse_args(extra)
    rollout = cpu_args.rollout
    threads = str(min(args.cpu_threads, 16))
    try:
        train_batched_ppo.main(
            [*extra, "--game", "kahuna", "--output-dir", str(cpu_dir), "--bc-games", "0"]
            + ["--timesteps", str(n * rollout), "--eval-every", str(10 * n * rollout)]
            + ["--eval-games", "1", "--final-games", "0", "--torch-threads", threads]
        )
    except SystemExit as exc:  # (a run that ends normally returns)
        raise RuntimeError(f"train_batched_ppo.py exited with {exc.code}") from None
    cpu_rates = [
        rollout / (float(m.group(1)) + float(m.group(2)))
        for m in _CPU_RATE.finditer((cpu_dir / "log.txt").read_text())
    ][1:]
    gpu_rate = statistics.median(gpu_rates) if gpu_rates else float("nan")
    cpu_rate = statistics.median(cpu_rates) if cpu_rates else float("nan")
    return {
        "gpu_learner_decisions_per_s": gpu_rate,
        "cpu_learner_decisions_per_s": cpu_rate,
        "ratio": gpu_rate / cpu_rate if cpu_rate else float("nan"),
        "gpu_updates": gpu_rates,
        "cpu_updates": cpu_rates,
        "gpu_decisions_per_update": per_update,
        "cpu_decisions_per_update": rollout,
    }


def bench_recipe(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The Kahuna recipe on the GPU, timed, and its network in the arena (see the module)."""
    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot

    train_gpu_ppo = example("train_gpu_ppo")
    t0 = time.perf_counter()
    got = train_gpu_ppo.main([*args.recipe_args.split(), "--output-dir", str(folder)])
    wall = time.perf_counter() - t0
    net = PolicyBot.load(got["policy"])
    result = run_tournament([net, "heuristic"], game="kahuna", num_games=args.recipe_games, seed=1)
    row = next(s for s in result.stats if s.name == net.name)
    return {
        "command": "python examples/train_gpu_ppo.py " + args.recipe_args,
        "wall_s": round(wall, 1),
        "timesteps": got["timesteps"],
        "best_eval": got["best_eval"],
        "arena_games": row.games,
        "win_rate_vs_heuristic": row.win_rate,
        "interval_95": [row.ci_low, row.ci_high],
    }


def markdown(report: dict[str, Any]) -> str:
    """The report's tables."""
    lines = [f"# bench_gpu on {report['device']}", "", f"command: `{report['command']}`", ""]
    if report.get("start"):
        st = report["start"]
        lines += [
            f"first use of both GPU engines in a fresh process: {st['first_process_s']:.1f} s "
            f"(compiling), then {st['second_process_s']:.1f} s (cached)",
            "",
        ]
    if report.get("engines"):
        lines += [
            "| game | batch | decisions a launch | observations | decisions/s | cold start s |",
            "|---|---|---|---|---|---|",
        ]
        for r in report["engines"]:
            lines.append(
                f"| {r['game']} | {r['batch']:,} | {r['steps']} | {'yes' if r['obs'] else 'no'} "
                f"| {r['decisions_per_s']:,.0f} | {r['cold_start_s']:.1f} |"
            )
        lines.append("")
    if report.get("cpu"):
        lines += [
            "| CPU engine | batch | threads | observations | decisions/s |",
            "|---|---|---|---|---|",
        ]
        for r in report["cpu"]:
            lines.append(
                f"| {r['game']} | {r['batch']:,} | {r['threads']} | {'yes' if r['obs'] else 'no'} "
                f"| {r['decisions_per_s']:,.0f} |"
            )
        lines.append("")
    if report.get("pgx"):
        lines += ["| pgx game | batch | decisions/s |", "|---|---|---|"]
        for r in report["pgx"]:
            lines.append(f"| {r['game']} | {r['batch']:,} | {r['decisions_per_s']:,.0f} |")
        lines.append("")
    if report.get("ppo"):
        p = report["ppo"]
        lines += [
            "| learner | learner decisions/s |",
            "|---|---|",
            f"| GPU PPO (train_gpu_ppo.py) | {p['gpu_learner_decisions_per_s']:,.0f} |",
            f"| CPU batched PPO (train_batched_ppo.py) | {p['cpu_learner_decisions_per_s']:,.0f} |",
            f"| ratio | {p['ratio']:.1f}x |",
            "",
        ]
    if report.get("recipe"):
        r = report["recipe"]
        low, high = r["interval_95"]
        lines += [
            f"Kahuna recipe on the GPU (`{r['command']}`): {r['timesteps']:,} learner decisions "
            f"in {r['wall_s']:.0f} s wall; the network won {r['win_rate_vs_heuristic']:.1%} "
            f"({low:.1%}-{high:.1%}) of {r['arena_games']:,} arena games against the heuristic.",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from kanaloa_env.core import gpu

    try:
        device = device_name()
    except (ModuleNotFoundError, RuntimeError) as exc:
        print(f"bench_gpu.py: no GPU to measure: {exc}", file=sys.stderr)
        return NO_GPU_EXIT
    import numba

    report: dict[str, Any] = {
        "device": device,
        "simulator": gpu.simulator(),
        "command": "python benchmarks/bench_gpu.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "cpu_count": os.cpu_count(),
        "time": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    args.out.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        from kanaloa_env.core.files import atomic_write_path

        for name, text in (
            ("bench_gpu.json", json.dumps(report, indent=2) + "\n"),
            ("bench_gpu.md", markdown(report) + "\n"),
        ):
            with atomic_write_path(str(args.out / name)) as tmp, open(tmp, "w") as f:
                f.write(text)

    if "start" in args.parts:
        report["start"] = bench_start(args.start_batch)
        print(json.dumps(report["start"]), flush=True)
        save()
    if "engines" in args.parts:
        report["engines"] = []
        for name in GAMES:
            for batch in args.batch_sizes:
                for steps in args.steps_per_launch:
                    for obs in (False, True):
                        got = bench_gpu_engine(name, batch, args.seconds, obs, steps)
                        row = {"game": name, "batch": batch, "steps": steps, "obs": obs, **got}
                        report["engines"].append(row)
                        print(json.dumps(row), flush=True)
                        save()
    if "cpu" in args.parts:
        report["cpu"] = []
        for name in GAMES:
            # Compile the CPU kernels before timing (a cold numba compile took most of the
            # first timed second: 7,189 decisions/s at batch 8,192 against 6.1M at 65,536).
            for obs in (False, True):
                bench_cpu_engine(name, 64, 0.0, obs, args.cpu_threads)
            for batch in (b for b in args.batch_sizes if b <= args.cpu_max_batch):
                for obs in (False, True):
                    rate = bench_cpu_engine(name, batch, args.seconds, obs, args.cpu_threads)
                    row = {
                        "game": name,
                        "batch": batch,
                        "threads": args.cpu_threads,
                        "obs": obs,
                        "decisions_per_s": rate,
                    }
                    report["cpu"].append(row)
                    print(json.dumps(row), flush=True)
                    save()
    if "pgx" in args.parts:
        report["pgx"] = []
        for env_id in PGX_GAMES:
            for batch in args.batch_sizes:
                rate = bench_pgx(env_id, batch, args.seconds)
                if rate is None:
                    report["pgx_missing"] = "jax or pgx does not import"
                    break
                row = {"game": env_id, "batch": batch, "decisions_per_s": rate}
                report["pgx"].append(row)
                print(json.dumps(row), flush=True)
                save()
    if "ppo" in args.parts:
        with tempfile.TemporaryDirectory() as folder:
            report["ppo"] = bench_ppo(args, Path(folder))
        print(json.dumps(report["ppo"]), flush=True)
    if "recipe" in args.parts:
        with tempfile.TemporaryDirectory() as folder:
            report["recipe"] = bench_recipe(args, Path(folder))
        print(json.dumps(report["recipe"]), flush=True)
    save()
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
