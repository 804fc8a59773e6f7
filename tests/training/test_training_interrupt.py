"""Ctrl-C in a training run (`kanaloa_env.training`): the run stops at a safe point, keeps
the model and the evaluations done, says where, and exits 130 without a traceback.

The helper is tested in this process with real SIGINTs; the examples end to end in a
subprocess that gets SIGINT once its output shows that training has started.
"""

from __future__ import annotations

import csv
import signal
import sys
import threading
from pathlib import Path

import pytest
from interrupt_kit import interrupt_when

from kanaloa_env.training import INTERRUPTED_EXIT, GracefulStop, run_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def main_thread() -> None:
    """Signal handlers exist only in the main thread (where pytest runs tests)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("needs the main thread to set a SIGINT handler")


# ---- the helper, in this process ------------------------------------------------------


def test_the_first_ctrl_c_asks_the_loop_to_stop(
    main_thread: None, capsys: pytest.CaptureFixture[str]
) -> None:
    before = signal.getsignal(signal.SIGINT)
    steps = 0
    with GracefulStop() as stop:
        assert signal.getsignal(signal.SIGINT) == stop._on_sigint  # ours, so the signal is safe
        while not stop.requested:
            steps += 1
            if steps == 3:
                signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: only the flag
        assert steps == 3 and not stop.forced
    assert signal.getsignal(signal.SIGINT) == before  # restored after the block
    err = capsys.readouterr().err
    assert "Ctrl-C: stopping the training at the next safe point" in err
    assert "press Ctrl-C again to stop at once" in err


def test_a_second_ctrl_c_stops_at_once_and_the_block_ends_there(main_thread: None) -> None:
    reached = []
    with GracefulStop() as stop:
        signal.raise_signal(signal.SIGINT)
        reached.append("after the first")
        signal.raise_signal(signal.SIGINT)  # raises KeyboardInterrupt here
        reached.append("after the second")
    assert reached == ["after the first"]
    assert stop.requested and stop.forced  # the code after the block saves what it has


def test_other_errors_pass_through() -> None:
    with pytest.raises(ValueError, match="boom"), GracefulStop():
        raise ValueError("boom")


def test_exit_if_requested_lists_what_was_saved_and_exits_130(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stop = GracefulStop()
    stop.exit_if_requested({"model": "m.zip"})  # not interrupted: nothing happens
    assert capsys.readouterr().err == ""
    stop.requested = True
    with pytest.raises(SystemExit) as exit_info:
        stop.exit_if_requested(
            {"model": "runs/x/model.zip", "evaluations": None}, progress="after 5 of 9 steps"
        )
    assert exit_info.value.code == INTERRUPTED_EXIT == 130
    assert capsys.readouterr().err.splitlines() == [
        "interrupted: training stopped after 5 of 9 steps",
        "  model: runs/x/model.zip",
        "  evaluations: not saved (none yet)",
    ]


def test_run_script_exits_130_on_a_ctrl_c_outside_training(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as exit_info:
        run_script(interrupted)
    assert exit_info.value.code == 130
    assert "interrupted (Ctrl-C) outside training" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        run_script(lambda: {"done": True})
    assert exit_info.value.code == 0

    def fails() -> None:
        raise SystemExit(2)

    with pytest.raises(SystemExit) as exit_info:
        run_script(fails)
    assert exit_info.value.code == 2


# ---- the examples, end to end -----------------------------------------------------------


def _interrupt_when(
    script: str, args: list[str], ready: str, tmp_path: Path
) -> tuple[int, str, str]:
    """Run an example; SIGINT once its stdout shows `ready`; its status, stdout, stderr."""
    return interrupt_when([sys.executable, str(EXAMPLES / script), *args], ready, tmp_path)


def _eval_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_ctrl_c_in_train_maskable_ppo_saves_the_model_and_the_evaluations(
    tmp_path: Path,
) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kanaloa_env.bots.model import MaskablePPOBot

    out = tmp_path / "run"
    code, stdout, stderr = _interrupt_when(
        "train_maskable_ppo.py",
        [
            *("--total-timesteps", "10000000", "--num-envs", "16", "--n-steps", "64"),
            *("--batch-size", "256", "--eval-freq", "1024", "--eval-games", "16"),
            *("--eval-heuristic-games", "0", "--seed", "3", "--output-dir", str(out)),
        ],
        ready="[     1024 steps",  # the evaluation after the first update: training runs
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr and "done:" not in stdout
    assert "interrupted: training stopped after " in stderr
    for label, name in (("model", "model.zip"), ("evaluations", "eval.csv")):
        assert f"  {label}: {out / name}\n" in stderr
    model = MaskablePPO.load(out / "model.zip", device="cpu")  # our own file
    assert model.num_timesteps > 1024  # the model as trained when stopped, not the start
    MaskablePPOBot.load(out / "model.zip")  # and it plays as a bot
    rows = _eval_rows(out / "eval.csv")
    assert [int(r["timesteps"]) for r in rows][:2] == [0, 1024]
    assert (out / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_ctrl_c_in_selfplay_saves_the_model_and_the_evaluations(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    out = tmp_path / "sp"
    code, stdout, stderr = _interrupt_when(
        "selfplay.py",
        [
            *("--total-timesteps", "10000000", "--num-envs", "16", "--n-steps", "64"),
            *("--batch-size", "256", "--snapshot-freq", "1024", "--pool-size", "2"),
            *("--eval-freq", "1024", "--eval-games", "16", "--eval-heuristic-games", "0"),
            *("--no-progress-bar", "--output-dir", str(out)),
        ],
        ready="[     1024 steps",
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr and "done:" not in stdout
    assert f"  model: {out / 'model.zip'}\n" in stderr
    assert MaskablePPO.load(out / "model.zip", device="cpu").num_timesteps > 1024
    assert [int(r["timesteps"]) for r in _eval_rows(out / "eval.csv")][:2] == [0, 1024]


def test_ctrl_c_in_train_ppo_bot_keeps_a_checkpoint_to_resume_from(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    out = tmp_path / "bot"
    code, stdout, stderr = _interrupt_when(
        "train_ppo_bot.py",
        [
            *("--bc-chunks", "1", "--bc-games", "16", "--bc-batch-size", "256"),
            *("--ppo-timesteps", "10000000", "--num-envs", "16", "--n-steps", "32"),
            *("--batch-size", "256", "--snapshot-freq", "512", "--eval-freq", "512"),
            *("--eval-games", "8", "--final-games", "8", "--net-arch", "32,32"),
            *("--seed", "5", "--output-dir", str(out)),
        ],
        ready="ppo [      512 steps",  # stage 2 has trained and evaluated once
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted: training stopped in PPO (stage 2); the same command resumes" in stderr
    assert f"  PPO checkpoint: {out / 'ppo_last.zip'}\n" in stderr
    assert f"  evaluations: {out / 'eval.csv'}\n" in stderr
    assert MaskablePPO.load(out / "ppo_last.zip", device="cpu").num_timesteps > 512
    rows = _eval_rows(out / "eval.csv")
    assert [int(float(r["timesteps"])) for r in rows][:2] == [0, 512]
    assert not (out / "policy.npz").exists()  # the final export waits for a whole stage 2
    assert "ppo: stopped at " in (out / "train.log").read_text()


def test_ctrl_c_in_distil_search_saves_the_network_and_the_evaluations(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from kanaloa_env.bots.policy_file import load_policy

    out = tmp_path / "distil"
    code, stdout, stderr = _interrupt_when(
        "distil_search.py",
        [
            *("--labels", str(ROOT / "data" / "labels" / "kanaloa_5p"), "--epochs", "1000"),
            *("--hidden", "16", "--curve-games", "4", "--torch-threads", "1"),
            *("--output-dir", str(out)),
        ],
        ready="epoch 1, 5 players, against heuristic bots",
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr and "done in" not in stdout
    assert "interrupted: training stopped during training" in stderr
    assert f"  policy files: {out / 'kanaloa_5p.npz'}\n" in stderr
    assert load_policy(out / "kanaloa_5p.npz").hidden_sizes == [16]
    assert [r["epoch"] for r in _eval_rows(out / "eval.csv")][:1] == ["1"]


def test_ctrl_c_in_label_with_search_keeps_the_chunks_written(tmp_path: Path) -> None:
    out = tmp_path / "labels"
    code, stdout, stderr = _interrupt_when(
        "label_with_search.py",
        [
            *("--num-players", "3", "--rollouts", "4", "--games-per-chunk", "2"),
            *("--chunks", "100000", "--output-dir", str(out)),
        ],
        ready="chunk 0:",
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert f"  label chunks: {out}\n" in stderr
    assert (out / "chunk_00000.npz").exists()
    assert not list(out.glob(".tmp-*"))  # no half-written chunk


def test_ctrl_c_in_train_batched_ppo_keeps_a_checkpoint_and_the_best_policy(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    from kanaloa_env.bots.policy_file import load_policy

    out = tmp_path / "ppo"
    code, stdout, stderr = _interrupt_when(
        "train_batched_ppo.py",
        [
            *("--bc-games", "8", "--bc-epochs", "1", "--timesteps", "100000000"),
            *("--rollout", "1024", "--num-games", "16", "--eval-every", "1000"),
            *("--eval-games", "4", "--hidden", "8", "--torch-threads", "1"),
            *("--output-dir", str(out)),
        ],
        ready="evaluation at 1,",  # the evaluation after the first update (1,0xx steps)
        tmp_path=tmp_path,
    )
    assert code == 130, stderr
    assert "Traceback" not in stderr and "done in" not in stdout
    assert "interrupted: training stopped after " in stderr
    assert f"  checkpoint (the same command resumes): {out / 'checkpoint.pt'}\n" in stderr
    assert f"  policy file: {out / 'policy.npz'}\n" in stderr
    assert load_policy(out / "policy.npz").hidden_sizes == [8]
    rows = _eval_rows(out / "eval.csv")
    assert [int(r["timesteps"]) for r in rows][0] == 0 and len(rows) >= 2
    assert not (out / "arena").exists()  # the final arena waits for a whole run


def test_layer_sizes_and_file_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kanaloa_env.training import file_log, layer_sizes

    assert layer_sizes("512, 256,", "--hidden") == [512, 256]
    with pytest.raises(ValueError, match="--net-arch must be comma-separated integers, got 'a,1'"):
        layer_sizes("a,1", "--net-arch")
    with pytest.raises(ValueError, match="--hidden needs at least one layer size >= 1"):
        layer_sizes("64,0", "--hidden")
    log = file_log(str(tmp_path / "train.log"))
    log("one")
    log("two")
    lines = (tmp_path / "train.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["one", "two"]
    assert capsys.readouterr().out.splitlines() == lines
