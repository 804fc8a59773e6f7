"""One GPU window, one command: measure what is still unmeasured on the device, then train the
active campaigns for the rest of the call while the CPU cores play arenas of their
latest checkpoints.

    bash benchmarks/gpu_session.sh window          # (what the device tool runs; OUT=$OUT)
    python benchmarks/gpu_window.py --out gpu_results --seconds 540

1. **Measure.** Every item of `ITEMS` not yet in `benchmarks/gpu_measured.json` runs in
   order, each under its own time limit, while the measuring budget (`--measure-seconds`)
   lasts: the cold and cached start, the short golden replay with a 200,000-decision
   differential of each game and the heuristics' agreement, the engines' figures, and the
   GPU learner against the CPU batched PPO, the Kahuna recipe on the GPU. An item that exits 0 is recorded as
   measured; its output is under OUT/measure/<item>.
2. **Train.** The campaigns of `data/campaigns/plan.json`'s "active" list (or those
   named) train one after the other in equal shares of the time left
   (`python -m kanaloa_env.training.campaign train ... --out OUT/repo/data/campaigns`), saving
   every `--checkpoint-seconds`; the call ends before `--seconds` are spent. A second
   call in the same window resumes from the files the first left on the machine.
3. **The CPU side** (`--cpu-side`): while the GPU trains, `arena` plays each campaign's
   newest best actor against heuristic bots (4,000 seat-balanced games on every core but
   one, `python -m kanaloa_env.training.campaign arena`) each time a new one is saved;
   `labels` labels heuristic self-play with the 512-rollout search for distillation
   (`examples/label_with_search.py`, the format of `data/labels/`) into OUT/labels;
   `none` leaves the cores idle. Its figures go to OUT/cpu_side.json.

Everything the repository keeps is written under OUT/repo/, laid out as in the
repository (`data/campaigns/<name>/campaign.npz`, `arena.json` and `log.txt`, from the
first save on; `benchmarks/gpu_measured.json`): copy it over the checkout, run
`python -m kanaloa_env.training.campaign docs` and commit. Under numba-cuda's simulator
the tests run it with tiny campaigns and sizes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ROOT / "benchmarks" / "gpu_measured.json"
PLAN = ROOT / "data" / "campaigns" / "plan.json"
KEEP = ROOT / ".gpu_window"  # (git-ignored) what a second call in the same window resumes from
PY = sys.executable
STOP_SIDE = ".stop_cpu_side"


def items(a: argparse.Namespace, out: Path) -> list[tuple[str, int, list[str]]]:
    """The measurements in the order they run: (name, time limit in seconds, command), of
    the sizes in the options `a`."""
    m = out / "measure"
    bench = [PY, "benchmarks/bench_gpu.py"]
    return [
        (
            "start",
            a.start_limit,
            [
                *bench,
                "--parts",
                "start",
                "--start-batch",
                str(a.start_batch),
                "--out",
                str(m / "start"),
            ],
        ),
        (
            "checks",
            a.checks_limit,
            [PY, "tests/gpu/device_checks.py", "--games", str(a.golden_games)]
            + ["--decisions", str(a.decisions), "--batch", str(a.diff_batch)]
            + ["--heuristic-decisions", str(a.heuristic_decisions), "--out", str(m / "checks.json")]
            + (["--cases", *a.golden_cases.split()] if a.golden_cases else []),
        ),
        (
            "engines",
            a.engines_limit,
            [
                *bench,
                "--parts",
                "engines",
                *shlex.split(a.engines_args),
                "--out",
                str(m / "engines"),
            ],
        ),
        (
            "learner",
            a.learner_limit,
            [*bench, "--parts", "ppo", *shlex.split(a.learner_args), "--out", str(m / "learner")],
        ),
        (
            "recipe",
            a.recipe_limit,
            [*bench, "--parts", "recipe", *shlex.split(a.recipe_args), "--out", str(m / "recipe")],
        ),
    ]


def read_json(path: Path, default: Any) -> Any:
    """The JSON at `path`, or `default` when there is none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else default


def log(out: Path, text: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {text}"
    print(line, flush=True)
    with open(out / "window.log", "a") as f:
        f.write(line + "\n")


def child_env() -> dict[str, str]:
    """This environment with the repository first on the Python path, for the commands
    the window starts."""
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run(cmd: list[str], limit: float, out_file: Path, interrupt: bool = False) -> int:
    """Run `cmd` from the repository root for at most `limit` seconds, its output to
    `out_file`; Ctrl-C (SIGINT) first when `interrupt`, so it saves before it stops."""
    env = child_env()
    with open(out_file, "w") as f:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, env=env)
        try:
            return proc.wait(timeout=max(limit, 1))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT if interrupt else signal.SIGTERM)
            try:
                return proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                return proc.wait()


def measure(args: argparse.Namespace, out: Path, deadline: float) -> dict[str, Any]:
    """Run the unmeasured items while the measuring budget lasts; the measured record."""
    done = read_json(args.measured, {})
    (out / "measure").mkdir(parents=True, exist_ok=True)
    for name, limit, cmd in items(args, out):
        if name in done:
            continue
        left = deadline - time.monotonic()
        if limit > left:
            log(out, f"measure {name}: skipped ({limit}s limit, {left:.0f}s of the budget left)")
            continue
        if name == "start":  # a cold start: no cached engine or env kernels
            for pattern in ("gpu_kernels*.nb[ic]", "gpu_learner*.nb[ic]"):
                for p in (ROOT / "kanaloa_env").rglob(pattern):
                    if p.parent.name == "__pycache__":
                        p.unlink()
        t0 = time.monotonic()
        rc = run(cmd, limit, out / "measure" / f"{name}.out")
        log(out, f"measure {name}: exit {rc} after {time.monotonic() - t0:.0f}s")
        if rc == 0:
            done[name] = {
                "date": time.strftime("%Y-%m-%d"),
                "seconds": round(time.monotonic() - t0),
            }
    return done


def cpu_side(args: argparse.Namespace, campaigns: list[Path], stop_at: float) -> Any:
    """Start the CPU side of the options `args` (see the module) for `campaigns`, until
    `stop_at` (time.time()) at the latest; the process, or None."""
    kind, out, workers = args.cpu_side, args.out, args.workers
    if kind == "none" or workers < 1:
        return None
    cmd = [PY, __file__, "--cpu-side-loop", kind, "--out", str(out), "--workers", str(workers)]
    cmd += ["--arena-games", str(args.arena_games)]
    cmd += ["--stop-at", str(stop_at), *map(str, campaigns)]
    f = open(out / "cpu_side.out", "w")  # noqa: SIM115 (the child writes it until the end)
    env = child_env()
    # The CPU side needs no CUDA: under the simulator (the tests) it still runs compiled.
    for flag in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT"):
        env.pop(flag, None)
    # A session of its own: stopping it stops its arena's worker processes too.
    return subprocess.Popen(
        cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )


def cpu_side_loop(args: argparse.Namespace) -> int:
    """The CPU side's process: arenas of each new checkpoint, or search labels."""
    out = Path(args.out)
    record: list[dict[str, Any]] = []
    if args.cpu_side_loop == "labels":
        t0 = time.monotonic()
        cmd = [PY, "examples/label_with_search.py", "--game", "kanaloa", "--rollouts", "512"]
        cmd += ["--workers", str(args.workers), "--output-dir", str(out / "labels")]
        cmd += [
            "--seed",
            str(int(time.time()) % 2**31),
            "--seconds",
            str(max(args.stop_at - time.time(), 1)),
        ]
        rc = run(cmd, args.stop_at - time.time() + 120, out / "labels.out")
        chunks = len(list((out / "labels").glob("*.npz"))) if (out / "labels").is_dir() else 0
        record.append(
            {"kind": "labels", "exit": rc, "chunks": chunks, "wall_s": time.monotonic() - t0}
        )
    else:
        from kanaloa_env.training.campaign import arena
        from kanaloa_env.training.campaign_file import load_campaign

        seen: dict[str, int] = {}
        last_pass = False
        while time.time() < args.stop_at and not last_pass:
            # The driver asks for a last pass (over the files training left) when it ends.
            last_pass = (out / STOP_SIDE).exists()
            worked = False
            for folder in map(Path, args.campaigns):
                newest = trained(out) / folder.name / "campaign.npz"
                if not newest.is_file():
                    continue
                try:
                    best = load_campaign(newest).progress["best"]
                except ValueError:  # (being replaced: read it next time)
                    continue
                if best is None or seen.get(folder.name) == best["decisions"]:
                    continue
                seen[folder.name] = best["decisions"]
                t0 = time.monotonic()
                result = arena(
                    folder,
                    args.arena_games,
                    args.workers,
                    out=trained(out) / folder.name,
                    resume_from=[newest],
                )
                record.append(
                    {
                        "kind": "arena",
                        "campaign": folder.name,
                        **result,
                        "wall_s": time.monotonic() - t0,
                    }
                )
                (out / "cpu_side.json").write_text(json.dumps(record, indent=1))
                worked = True
            if not worked and not last_pass:
                time.sleep(2)
    (out / "cpu_side.json").write_text(json.dumps(record, indent=1))
    return 0


def trained(out: Path) -> Path:
    """Where training and the CPU side write each campaign's files, `<name>/`: already
    laid out as the repository keeps them (a call cut short loses only what came after
    its last save)."""
    return out / "repo" / "data" / "campaigns"


def keep(args: argparse.Namespace, campaigns: list[Path], measured: dict[str, Any]) -> None:
    """Write the measured record under OUT/repo, and keep on the machine (`--measured`,
    `--keep`) that record and the campaigns' arena results for a second call (their
    campaign files are kept there by training itself, at every save)."""
    for folder in campaigns:
        src = trained(args.out) / folder.name / "arena.json"
        if src.is_file():
            (args.keep / folder.name).mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, args.keep / folder.name / "arena.json")
    repo = args.out / "repo"
    (repo / "benchmarks").mkdir(parents=True, exist_ok=True)
    (repo / "benchmarks" / "gpu_measured.json").write_text(
        json.dumps(measured, indent=1, sort_keys=True) + "\n"
    )
    # The next call on this machine skips them too.
    args.measured.write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")


def carry_arenas(campaigns: list[Path], out: Path, kept: Path) -> None:
    """Start each campaign's arena history in OUT from the longer of the folder's and the
    one a previous call left on this machine (`--keep`)."""
    for folder in campaigns:
        target = trained(out) / folder.name / "arena.json"
        sources = [
            p for p in (folder / "arena.json", kept / folder.name / "arena.json") if p.is_file()
        ]
        if sources and not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(max(sources, key=lambda p: len(read_json(p, []))), target)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("campaigns", nargs="*", type=Path, help="campaign folders (default: the plan's)")
    p.add_argument("--out", type=Path, default=ROOT / "gpu_results", help="output folder")
    p.add_argument("--seconds", type=float, default=540, help="the whole call's budget")
    p.add_argument("--measure-seconds", type=float, default=300, help="measuring budget at most")
    p.add_argument("--checkpoint-seconds", type=float, default=110, help="seconds between saves")
    p.add_argument("--cpu-side", choices=("arena", "labels", "none"), default="arena")
    p.add_argument("--workers", type=int, default=max((os.cpu_count() or 2) - 1, 1))
    p.add_argument("--arena-games", type=int, default=4000)
    p.add_argument(
        "--last-arena-seconds",
        type=float,
        default=45,
        help="seconds kept at the end for the arena of the last checkpoint",
    )
    p.add_argument("--max-chunks", type=int, default=None, help="chunks per campaign at most")
    p.add_argument("--start-batch", default="1024")
    p.add_argument("--golden-games", default="5")
    p.add_argument("--golden-cases", default="")
    p.add_argument("--decisions", default="200000", help="differential decisions per game")
    p.add_argument("--diff-batch", default="8192")
    p.add_argument("--heuristic-decisions", default="200000")
    p.add_argument("--engines-args", default="--seconds 1", help="bench_gpu.py engines options")
    p.add_argument("--learner-args", default="", help="bench_gpu.py ppo options")
    p.add_argument("--measured", type=Path, default=MEASURED, help="the record of what is measured")
    p.add_argument("--keep", type=Path, default=KEEP, help="campaign files kept on the machine")
    p.add_argument("--recipe-args", default="", help="bench_gpu.py recipe options")
    limits = (("start", 150), ("checks", 150), ("engines", 150), ("learner", 150), ("recipe", 290))
    for item, limit in limits:
        p.add_argument(f"--{item}-limit", type=int, default=limit, help=f"seconds for {item}")
    p.add_argument("--cpu-side-loop", choices=("arena", "labels"), help=argparse.SUPPRESS)
    p.add_argument("--stop-at", type=float, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.cpu_side_loop:
        return cpu_side_loop(args)
    t0 = time.monotonic()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / STOP_SIDE).unlink(missing_ok=True)
    campaigns = args.campaigns or [
        ROOT / "data" / "campaigns" / n for n in read_json(PLAN, {})["active"]
    ]
    if not campaigns:
        raise SystemExit("no campaign to train: name one or list it in data/campaigns/plan.json")
    measure_end = t0 + min(args.measure_seconds, args.seconds)
    measured = measure(args, out, measure_end)
    keep(args, [], measured)
    carry_arenas(campaigns, out, args.keep)
    left = args.seconds - (time.monotonic() - t0)
    train_s = max(left - (args.last_arena_seconds if args.cpu_side == "arena" else 0), 1)
    side = cpu_side(args, campaigns, time.time() + left)
    cmd = [PY, "-m", "kanaloa_env.training.campaign", "train", *map(str, campaigns)]
    cmd += ["--seconds", str(max(train_s - 20, 1)), "--out", str(trained(out))]
    cmd += ["--checkpoint-seconds", str(args.checkpoint_seconds)]
    cmd += ["--also-from", str(args.keep), "--mirror", str(args.keep)]
    if args.max_chunks:
        cmd += ["--max-chunks", str(args.max_chunks)]
    log(out, f"train {[c.name for c in campaigns]} for {train_s:.0f}s")
    rc = run(cmd, train_s, out / "train.out", interrupt=True)
    log(out, f"train: exit {rc} after {time.monotonic() - t0:.0f}s of the call")
    if side is not None:
        (out / STOP_SIDE).touch()
        with contextlib.suppress(subprocess.TimeoutExpired):  # the last pass's arena
            side.wait(timeout=max(args.seconds - (time.monotonic() - t0), 1))
        # Whatever is left of its session (arena workers) stops with it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(side.pid, signal.SIGKILL)
        side.wait()
    keep(args, campaigns, measured)
    log(out, f"done in {time.monotonic() - t0:.0f}s: copy {out / 'repo'} over the checkout")
    return rc


if __name__ == "__main__":
    sys.exit(main())
