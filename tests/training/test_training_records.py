"""kanaloa_env.training.records and .sb3: a run's log, evaluation table, learning curve,
periodic callback and saved files."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from kanaloa_env.training import GracefulStop
from kanaloa_env.training.records import (
    file_log,
    plot_win_rates,
    run_log,
    start_run,
    win_rate_columns,
    write_csv,
)
from kanaloa_env.training.sb3 import Every, evaluation_row, ppo_settings, save_run

RESULT = SimpleNamespace(win_rate=0.123456, ci_low=0.1, ci_high=0.15, games=40)


def test_the_log_prints_and_appends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = file_log(str(tmp_path / "log.txt"))
    log("one")
    log("two")
    lines = (tmp_path / "log.txt").read_text().splitlines()
    assert [line[9:] for line in lines] == ["one", "two"]
    assert capsys.readouterr().out.splitlines() == lines
    run = run_log(str(tmp_path / "a" / "b"), "train.log", {"seed": 3, "hidden": [8]})
    run("go")
    text = (tmp_path / "a" / "b" / "train.log").read_text()
    assert 'args: {"seed": 3, "hidden": [8]}' in text and text.endswith("go\n")
    start_run(str(tmp_path / "c"))
    assert (tmp_path / "c").is_dir()


def test_the_table_is_written_whole_with_timesteps_first(tmp_path: Path) -> None:
    path = str(tmp_path / "eval.csv")
    rows = [{"wall_s": 1.0, "timesteps": 0, **win_rate_columns("random", RESULT)}]
    write_csv(path, rows)
    with open(path, newline="") as f:
        read = list(csv.DictReader(f))
    assert list(read[0]) == [
        "timesteps",
        "random_ci_high",
        "random_ci_low",
        "random_games",
        "random_win_rate",
        "wall_s",
    ]
    assert read[0]["random_win_rate"] == "0.1235" and read[0]["random_games"] == "40"
    before = Path(path).read_bytes()
    with pytest.raises(ValueError):  # a column not in the fields: nothing is replaced
        write_csv(path, [{"timesteps": 1, "other": 2}], ["timesteps"])
    assert Path(path).read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["eval.csv"]  # no temporary file left


def test_the_learning_curve_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rows = [
        {
            "timesteps": t,
            **win_rate_columns("random", RESULT),
            **win_rate_columns("heuristic", RESULT),
        }
        for t in (0, 100)
    ]
    path = tmp_path / "curve.png"
    plot_win_rates(rows, 4, str(path), title="test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_is_due_after_the_start() -> None:
    assert Every(100, print).next == 100
    assert Every(100, print, start=250).next == 300
    with pytest.raises(ValueError, match="freq must be >= 1"):
        Every(0, print)


def test_the_callback_runs_due_tasks_in_order_until_ctrl_c() -> None:
    pytest.importorskip("stable_baselines3")
    from kanaloa_env.training.sb3 import periodic_callback

    seen: list[tuple[str, int]] = []
    ends: list[int] = []
    tasks = [
        Every(100, lambda t: seen.append(("snapshot", t))),
        Every(50, lambda t: seen.append(("eval", t))),
    ]
    stop = GracefulStop()
    cb = periodic_callback(stop, tasks, on_rollout_end=ends.append)
    for steps in (64, 128, 192):
        cb.num_timesteps = steps
        cb._on_rollout_start()
        cb._on_rollout_end()
    assert seen == [("eval", 64), ("snapshot", 128), ("eval", 128), ("eval", 192)]
    assert ends == [64, 128, 192] and cb._on_step() is True
    stop.requested = True
    cb.num_timesteps = 1000
    cb._on_rollout_start()
    assert len(seen) == 4 and cb._on_step() is False


def test_ppo_settings_take_the_scripts_options() -> None:
    args = SimpleNamespace(
        n_steps=64, num_envs=4, batch_size=4096, n_epochs=2, learning_rate=1e-3, gamma=0.9
    )
    args.ent_coef = 0.01
    got = ppo_settings(args, seed=5)
    assert got["batch_size"] == 256 and "gae_lambda" not in got  # at most one rollout
    assert (got["device"], got["verbose"], got["seed"]) == ("cpu", 0, 5)
    args.gae_lambda, args.clip_range = 0.8, 0.1
    assert ppo_settings(args, n_epochs=9)["gae_lambda"] == 0.8
    assert ppo_settings(args, n_epochs=9)["n_epochs"] == 9


def test_an_evaluation_row_and_the_saved_run(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    said: list[str] = []
    started = time.time(), time.process_time()
    games = {"random": 6, "heuristic": 0}
    row = evaluation_row(
        "random", 7, games, num_players=3, seed=1, started=started, say=said.append
    )
    assert row["timesteps"] == 7 and row["random_games"] == 6 and "heuristic_games" not in row
    assert len(said) == 1 and "vs random" in said[0]

    class Model:
        def save(self, path: str) -> None:
            Path(path).write_bytes(b"model")

    stop = GracefulStop()
    paths = save_run(Model(), [row], str(tmp_path), 3, "random", stop, progress="done")
    assert all(Path(p).exists() for p in paths)
    stop.requested = True
    with pytest.raises(SystemExit) as info:
        save_run(Model(), [], str(tmp_path), 3, "t", stop, progress="after 0 steps")
    assert info.value.code == 130
