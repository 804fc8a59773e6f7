"""examples/train_rllib.py end to end (CleanRL style, in a subprocess): one tiny PPO
iteration on a local Ray, a checkpoint, the module read back as a bot, the arena evaluation.

Needs ray[rllib]: tests/integrations/test_rllib_venv.py runs this module in an environment
of its own (tests/conftest.py leaves it out where ray is not installed).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "train_rllib.py"


def run(*args: str, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, f"train_rllib.py failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_help_documents_every_flag() -> None:
    out = run("--help").stdout
    for flag in (
        "--seed",
        "--address",
        "--num-env-runners",
        "--num-envs-per-env-runner",
        "--total-timesteps",
        "--train-batch-size",
        "--output-dir",
        "--tiny",
        "--final-heuristic-games",
        "--game",
    ):
        assert flag in out, flag


def test_bad_flags_are_rejected_by_name() -> None:
    for args, message in [
        (["--num-players", "7"], "--num-players must be in 3..5 for Kanaloa, got 7"),
        (["--game", "kahuna", "--num-players", "4"], "--num-players must be in 2 for Kahuna"),
        (["--game", "chess"], "invalid choice: 'chess'"),
    ]:
        proc = subprocess.run(
            [sys.executable, str(SCRIPT), *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_the_config_keeps_rllibs_env_check_and_masking_module() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_rllib_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from kanaloa_env.wrappers.rllib import SHARED_MODULE

    config = example.build_config(example.parse_args(["--tiny"]))
    assert config.disable_env_checking is False  # RLlib's pre-check runs on every env
    specs = config.rl_module_spec.rl_module_specs
    assert list(specs) == [SHARED_MODULE]
    assert specs[SHARED_MODULE].module_class is ActionMaskingTorchRLModule  # RLlib's own
    assert {config.policy_mapping_fn(f"player_{i}", None) for i in range(4)} == {SHARED_MODULE}


def test_tiny_run_trains_checkpoints_and_evaluates_in_the_arena(tmp_path: Path) -> None:
    out = tmp_path / "rllib"
    proc = run("--tiny", "--seed", "3", "--output-dir", str(out))
    assert "iter 1:" in proc.stdout
    assert "vs 3 heuristic bots: win rate" in proc.stdout
    assert "vs 3 random bots: win rate" in proc.stdout

    results = json.loads((out / "results.json").read_text())
    assert results["env_steps"] >= 256 and results["iterations"] == 1
    for key in ("vs_heuristic", "vs_random"):
        r = results[key]
        assert r["games"] == 8 and 0 <= r["wins"] <= 8 and r["chance"] == 0.25
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]
    with open(out / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["env_steps"]) > 0 for r in rows] == [False, True]  # before and after
    assert all(0.0 <= float(r["random_win_rate"]) <= 1.0 for r in rows)

    # The checkpoint is the algorithm's; its shared module plays as a bot anywhere.
    from kanaloa_env.arena import run_tournament
    from kanaloa_env.core.kanaloa import Config, init, observe
    from kanaloa_env.evaluation import evaluate
    from kanaloa_env.wrappers.rllib import RLlibModuleBot

    ckpt = out / "checkpoint"
    assert (ckpt / "rllib_checkpoint.json").is_file()
    bot = RLlibModuleBot.from_checkpoint(ckpt)
    state = init(Config(num_players=4), 16, seed=0)
    actions = bot.act(observe(state), state.legal, np.random.default_rng(0))
    assert state.legal[np.arange(16), actions].all()
    result = run_tournament([bot, "heuristic", "random", "random"], 4, 8, seed=1)
    assert result.num_games == 8
    assert evaluate(bot, "random", num_games=8, seed=0).games == 8


def test_tiny_run_on_kahuna_trains_and_evaluates_against_kahunas_bots(tmp_path: Path) -> None:
    out = tmp_path / "rllib_kahuna"
    proc = run("--game", "kahuna", "--tiny", "--seed", "1", "--output-dir", str(out))
    assert "PPO self-play on Kahuna: 2 seats" in proc.stdout
    assert "vs 1 heuristic bot: win rate" in proc.stdout
    results = json.loads((out / "results.json").read_text())
    assert results["settings"]["game"] == "kahuna" and results["settings"]["num_players"] == 2
    assert results["vs_heuristic"]["chance"] == 0.5 and results["vs_random"]["games"] == 8

    from kanaloa_env.core.kahuna import Config, init, observe
    from kanaloa_env.wrappers.rllib import RLlibModuleBot

    bot = RLlibModuleBot.from_checkpoint(out / "checkpoint")
    state = init(Config(), 16, seed=0)
    actions = bot.act(observe(state), state.legal, np.random.default_rng(0))
    assert state.legal[np.arange(16), actions].all()


def test_ctrl_c_stops_after_the_iteration_saves_the_checkpoint_and_exits_130(
    tmp_path: Path,
) -> None:
    """Ctrl-C once training runs: the loop ends after the iteration under way, the
    checkpoint and the evaluations so far are kept, and the final arena is skipped."""
    from interrupt_kit import interrupt_when

    out = tmp_path / "rllib"
    small = (
        *("--total-timesteps", "100000000", "--train-batch-size", "256"),
        *("--minibatch-size", "128", "--num-epochs", "1", "--num-envs-per-env-runner", "4"),
        *("--hidden", "32,32", "--eval-every", "1", "--eval-games", "8"),
        *("--checkpoint-every", "1000", "--seed", "3", "--output-dir", str(out)),
    )
    code, stdout, stderr = interrupt_when(
        [sys.executable, str(SCRIPT), *small], "iter 2:", tmp_path, timeout=600
    )
    assert code == 130, stdout + stderr
    assert "Traceback" not in stderr
    assert "interrupted: training stopped after " in stderr
    assert f"  checkpoint: {out / 'checkpoint'}\n" in stderr
    assert f"  evaluations: {out / 'eval.csv'}\n" in stderr
    assert "vs 3 heuristic bots" not in stdout and not (out / "results.json").exists()
    assert (out / "checkpoint" / "rllib_checkpoint.json").is_file()
    with open(out / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    # Printed before "iter 2:": the evaluations before training and after iteration 1.
    assert int(rows[0]["env_steps"]) == 0 and int(rows[1]["env_steps"]) > 0

    from kanaloa_env.wrappers.rllib import RLlibModuleBot

    RLlibModuleBot.from_checkpoint(out / "checkpoint")  # the checkpoint loads as a bot
