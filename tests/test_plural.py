"""Counted nouns in what users read: "1 game", "2 games", never "1 games"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kanaloa_env.bots import RandomBot
from kanaloa_env.drawing.terminal import plural
from kanaloa_env.evaluation.evaluate import EvalResult
from kanaloa_env.games import get_game
from kanaloa_env.play import play_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("count", "word", "many", "text"),
    [
        (0, "game", None, "0 games"),
        (1, "game", None, "1 game"),
        (2, "game", None, "2 games"),
        (1, "game index", "game indices", "1 game index"),
        (3, "game index", "game indices", "3 game indices"),
        (-1, "step", None, "-1 steps"),
    ],
)
def test_plural(count: int, word: str, many: str | None, text: str) -> None:
    assert plural(count, word, many) == text


def _result(games: int) -> EvalResult:
    return EvalResult(games, 1, 0, 1 / games, 0.2, 1.0, 0.5, 30.0, 0.5)


def test_an_evaluation_of_one_game_says_game() -> None:
    assert "over 1 game; chance 50%" in str(_result(1))
    assert "over 2 games; chance 50%" in str(_result(2))


def test_terminal_play_asks_for_one_bot_at_a_two_player_table() -> None:
    config = get_game("kahuna").make_config()
    with pytest.raises(ValueError, match=r"need one bot per other seat \(1 bot\), got 2"):
        play_game(config, 0, [RandomBot(), RandomBot()], seed=0)


def test_a_training_run_of_one_game_side_by_side_says_game(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_maskable_ppo.py")]
        + ["--total-timesteps", "10", "--num-envs", "1", "--n-steps", "64", "--batch-size", "64"]
        + ["--eval-freq", "64", "--eval-games", "1", "--eval-heuristic-games", "0"]
        + ["--no-progress-bar", "--output-dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "64 steps: 10 rounded up to whole rollouts of 64 (64 steps x 1 game)" in proc.stdout
    assert "over 1 game; chance 25%" in proc.stdout
