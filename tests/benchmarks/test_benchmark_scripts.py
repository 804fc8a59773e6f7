"""Benchmark scripts without a test of their own run end to end at tiny sizes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_bench_arena_prints_a_line_per_lineup() -> None:
    out = _run("benchmarks/bench_arena.py", "--games", "64", "--batch-size", "32")
    rows = [ln.split() for ln in out.splitlines() if ln.strip().startswith("4 ")]
    assert [r[1] for r in rows] == ["random", "heuristic"]
    for r in rows:
        decisions, rounds = float(r[-2]), float(r[-1])
        assert decisions > 10 and 1 <= rounds <= decisions


def test_bench_aec_ab_compares_two_checkouts() -> None:
    out = _run(
        "benchmarks/bench_aec_ab.py", "--other", str(ROOT), "--rounds", "1", "--seconds", "0.3"
    )
    assert out.count("decisions/s") == 2 and "this/other = " in out
    proc = subprocess.run(
        [sys.executable, "benchmarks/bench_aec_ab.py", "--other", str(ROOT / "docs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "holds no kanaloa_env package" in proc.stderr


def test_bench_policy_times_every_shipped_policy() -> None:
    from kanaloa_env.bots.policy_bot import shipped_paths
    from kanaloa_env.games import GAMES

    out = _run("benchmarks/bench_policy.py", "--decisions", "50")
    rows = [ln.split() for ln in out.splitlines() if ln.split()[0].endswith(".npz")]
    shipped = [Path(p).name for g in GAMES for p in shipped_paths(g).values()]
    assert sorted(r[0] for r in rows) == sorted(shipped)
    for r in rows:
        cpu_ms, wall_ms = float(r[-2]), float(r[-1])
        assert cpu_ms > 0 and wall_ms > 0


def test_bench_guided_reports_the_guided_share_and_both_costs() -> None:
    import json

    for game, games in (("kanaloa", 4), ("kahuna", 2)):
        out = _run(
            "benchmarks/bench_guided.py",
            *("--game", game, "--rollouts", "8", "--plain-rollouts", "4", "--games", str(games)),
        )
        res = json.loads(out.strip().splitlines()[-1])
        assert res["game"] == game and res["games"] == games
        assert res["players"] == (4 if game == "kanaloa" else 2)
        assert 0.0 <= res["ci"][0] <= res["guided_share"] <= res["ci"][1] <= 1.0
        assert res["cpu_ms_guided"] > 0 and res["cpu_ms_plain"] > 0
