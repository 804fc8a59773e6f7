"""benchmarks/bench_gpu.py and benchmarks/gpu_session.sh, the scripts a session with a
GPU runs: without a GPU the benchmark says so; under numba-cuda's simulator, on tiny
sizes, both run through and write their result files (figures that mean nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda", reason="the GPU scripts need numba-cuda (the gpu extra)")
pytest.importorskip("torch")

from sim_kit import ROOT, simulator_env  # noqa: E402

BENCH = str(ROOT / "benchmarks" / "bench_gpu.py")


def test_bench_gpu_without_a_gpu_says_so(tmp_path: Path) -> None:
    from numba import cuda

    if cuda.is_available():
        pytest.skip("this machine has a GPU")
    env = simulator_env()
    del env["NUMBA_ENABLE_CUDASIM"], env["NUMBA_DISABLE_JIT"]
    done = subprocess.run(
        [sys.executable, BENCH, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert "bench_gpu.py: no GPU to measure: no CUDA GPU found" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_bench_gpu_runs_through_in_the_simulator(tmp_path: Path) -> None:
    argv = [sys.executable, BENCH, "--out", str(tmp_path), "--batch-sizes", "3"]
    argv += ["--seconds", "0.01", "--steps-per-launch", "1", "2", "--cpu-threads", "1"]
    argv += [
        "--ppo-updates",
        "1",
        "--start-batch",
        "2",
        "--parts",
        "start",
        "engines",
        "cpu",
        "pgx",
        "ppo",
        "recipe",
    ]
    argv += ["--gpu-ppo-args", "--num-envs 2 --rollout-steps 3 --minibatch 6 --hidden 8"]
    argv += ["--recipe-games", "4", "--recipe-args"]
    argv += [
        "--game kahuna --opponents heuristic --clone-decisions 12 --critic-warmup 6 "
        "--timesteps 12 --eval-every 6 --eval-games 2 --num-envs 2 --rollout-steps 3 "
        "--minibatch 6 --hidden 8"
    ]
    argv += ["--cpu-ppo-args", "--num-games 4 --rollout 96 --minibatch 48 --hidden 8"]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=600, env=simulator_env(), cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "bench_gpu.json").read_text())
    assert report["simulator"] and report["device"].startswith("numba-cuda simulator")
    assert set(report["start"]) == {"first_process_s", "second_process_s"}
    assert len(report["engines"]) == 2 * 2 * 2  # games x steps a launch x observations
    assert all(r["decisions_per_s"] > 0 for r in report["engines"] + report["cpu"])
    assert len(report["cpu"]) == 2 * 2
    if "pgx_missing" not in report:
        assert len(report["pgx"]) == 2
    ppo = report["ppo"]
    assert ppo["gpu_learner_decisions_per_s"] > 0 and ppo["cpu_learner_decisions_per_s"] > 0
    recipe = report["recipe"]
    assert recipe["timesteps"] == 12 and recipe["arena_games"] == 4
    assert 0 <= recipe["interval_95"][0] <= recipe["win_rate_vs_heuristic"] <= 1
    table = (tmp_path / "bench_gpu.md").read_text()
    assert "learner decisions/s" in table and "| kahuna | 3 |" in table
    assert "Kahuna recipe on the GPU" in table


def test_the_session_script_runs_its_checks_in_the_simulator(tmp_path: Path) -> None:
    env = dict(
        simulator_env(),
        OUT=str(tmp_path),
        GOLDEN_GAMES="1",
        DECISIONS="30",
        DIFF_BATCH="3",
        HEURISTIC_DECISIONS="9",
        DEVICE_TESTS="0",
        START_BATCH="2",
        GOLDEN_CASES="kanaloa_p3 kahuna_short",
    )
    done = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "gpu_session.sh"), "checks"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    status = (tmp_path / "status.txt").read_text().split("\n")
    assert [line.split()[:2] for line in status if line] == [["start", "0"], ["checks", "0"]]
    checks = json.loads((tmp_path / "checks.json").read_text())
    assert checks["ok"] and checks["simulator"]
    assert [g["case"] for g in checks["golden"]] == ["kanaloa_p3", "kahuna_short"]
    assert all(g["match"] for g in checks["golden"])
    assert checks["differential_decisions"]["kanaloa"] >= 30
    assert [h["game"] for h in checks["heuristic"]] == ["kahuna", "kanaloa", "kanaloa", "kanaloa"]
    assert all(h["positions"] >= 3 and h["agreement"] == 1.0 for h in checks["heuristic"])
    assert (tmp_path / "machine.txt").exists()
