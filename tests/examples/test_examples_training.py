"""Smoke runs of the training examples (CleanRL style, in a subprocess): they run end to
end with tiny budgets and produce a model that loads and plays as a bot."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(script: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.mark.parametrize("script", ["train_maskable_ppo.py", "selfplay.py"])
def test_help_documents_every_argument(script: str) -> None:
    out = run(script, "--help").stdout
    for flag in ("--seed", "--total-timesteps", "--num-envs", "--n-steps", "--output-dir"):
        assert flag in out


def check_outputs(out_dir: Path, min_steps: int, game: str = "kanaloa") -> None:
    from kanaloa_env.bots.model import MaskablePPOBot
    from kanaloa_env.evaluation import evaluate
    from kanaloa_env.wrappers import VectorDriver

    for name in ("model.zip", "eval.csv", "learning_curve.png"):
        assert (out_dir / name).stat().st_size > 0
    assert (out_dir / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out_dir / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert int(rows[0]["timesteps"]) == 0 and int(rows[-1]["timesteps"]) >= min_steps
    assert all(0.0 <= float(r["random_win_rate"]) <= 1.0 for r in rows)
    cpu = [float(r["cpu_s"]) for r in rows]
    assert cpu == sorted(cpu) and cpu[-1] > 0
    bot = MaskablePPOBot.load(out_dir / "model.zip", game=game)
    res = evaluate(bot, "random", num_games=16, seed=0, game=game)  # the evaluated player
    assert res.games == 16
    d = VectorDriver(8, game=game, opponents=bot, seed=0)  # and as an opponent
    d.reset()
    from kanaloa_env.bots import sample_legal

    for _ in range(10):
        d.step(sample_legal(d.action_masks(), np.random.default_rng(0)))


def test_train_maskable_ppo_smoke(tmp_path: Path) -> None:
    out = tmp_path / "ppo"
    proc = run(
        "train_maskable_ppo.py",
        *("--total-timesteps", "2000", "--num-envs", "16", "--n-steps", "64"),
        *("--batch-size", "256", "--eval-freq", "1024", "--eval-games", "40"),
        *("--eval-heuristic-games", "8", "--seed", "3"),
        *("--output-dir", str(out)),
    )
    assert "vs random: win rate" in proc.stdout and "vs heuristic" in proc.stdout
    # Not a terminal: progress as lines, counting to the steps really trained.
    assert "2,000 rounded up to whole rollouts of 1,024" in proc.stdout
    assert "[100.0%] 2,048/2,048 steps" in proc.stderr and "evaluations included" in proc.stderr
    check_outputs(out, 2048)


def test_train_maskable_ppo_kahuna_smoke(tmp_path: Path) -> None:
    out = tmp_path / "ppo_kahuna"
    proc = run(
        "train_maskable_ppo.py",
        *("--game", "kahuna", "--total-timesteps", "1000", "--num-envs", "16"),
        *("--n-steps", "32", "--batch-size", "256", "--eval-freq", "512"),
        *("--eval-games", "20", "--eval-heuristic-games", "4", "--progress-shaping", "1"),
        *("--seed", "1", "--output-dir", str(out)),
    )
    assert "vs random: win rate" in proc.stdout and "vs heuristic" in proc.stdout
    assert "chance 50%" in proc.stdout  # a 2-player table
    assert "[100.0%] 1,024/1,024 steps" in proc.stderr
    with open(out / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [0, 512, 1024]
    assert all(int(r["random_games"]) == 20 and int(r["heuristic_games"]) == 4 for r in rows)
    check_outputs(out, 1024, game="kahuna")


def test_selfplay_smoke(tmp_path: Path) -> None:
    out = tmp_path / "sp"
    proc = run(
        "selfplay.py",
        *("--total-timesteps", "2048", "--num-envs", "16", "--n-steps", "64"),
        *("--batch-size", "256", "--snapshot-freq", "512", "--pool-size", "2"),
        *("--eval-games", "40", "--eval-heuristic-games", "0", "--no-progress-bar"),
        *("--output-dir", str(out)),
    )
    assert "pool of 2" in proc.stdout
    check_outputs(out, 2048)
