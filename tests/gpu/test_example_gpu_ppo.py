"""examples/train_gpu_ppo.py: it refuses to start without a GPU, saying why; under
numba-cuda's simulator (torch on the CPU) a tiny run trains, evaluates, checkpoints,
resumes, stops cleanly on Ctrl-C and writes a policy file that plays; its advantages
match a reference."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba_cuda", reason="the GPU example needs numba-cuda (the gpu extra)")

from interrupt_kit import interrupt_when  # noqa: E402
from sim_kit import ROOT, simulator_env  # noqa: E402

from kanaloa_env.training.gpu_ppo import gae  # noqa: E402

SCRIPT = str(ROOT / "examples" / "train_gpu_ppo.py")
TINY = (
    *("--game", "kahuna", "--num-envs", "3", "--rollout-steps", "6", "--minibatch", "9"),
    *("--hidden", "8", "--eval-every", "18", "--eval-games", "2", "--seed", "5"),
)


def _run(*args: str, simulated: bool = True) -> subprocess.CompletedProcess:
    env = simulator_env()
    if not simulated:
        del env["NUMBA_ENABLE_CUDASIM"], env["NUMBA_DISABLE_JIT"]
    return subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=ROOT,
    )


def test_it_refuses_to_start_without_a_gpu(tmp_path: Path) -> None:
    from numba import cuda

    if cuda.is_available():
        pytest.skip("this machine has a GPU")
    done = _run(*TINY, "--output-dir", str(tmp_path), simulated=False)
    assert done.returncode == 2, done.stderr
    assert "train_gpu_ppo.py needs a CUDA GPU" in done.stderr
    assert "no CUDA GPU found" in done.stderr
    assert not (tmp_path / "log.txt").exists()


def test_bad_options_are_named() -> None:
    done = _run("--num-envs", "0")
    assert done.returncode == 2 and "--num-envs must be at least 1" in done.stderr
    done = _run("--game", "no_such_game")
    assert done.returncode == 2 and "--game" in done.stderr


def test_a_tiny_run_trains_resumes_and_writes_a_policy_that_plays(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = _run(*TINY, "--timesteps", "36", "--output-dir", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "log.txt").read_text()
    assert "learner decisions/s" in log and "evaluation at 18 decisions" in log
    for name in ("checkpoint.pt", "best.pt", "policy.npz"):
        assert (out / name).exists(), name
    saved = torch.load(out / "checkpoint.pt", weights_only=True)
    assert saved["steps"] == 36 and saved["updates"] == 2
    again = _run(*TINY, "--timesteps", "54", "--output-dir", str(out))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "resumed from" in (out / "log.txt").read_text()
    assert torch.load(out / "checkpoint.pt", weights_only=True)["steps"] == 54

    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot

    bot = PolicyBot.load(str(out / "policy.npz"))
    result = run_tournament([bot, "random"], game="kahuna", num_games=2, seed=0)
    assert len(result.winner) == 2


def test_a_warm_start_imitates_the_gpu_heuristic_then_the_critic_warms_up(tmp_path: Path) -> None:
    argv = (*TINY, "--opponents", "heuristic", "--clone-decisions", "60", "--clone-epochs", "2")
    done = _run(*argv, "--critic-warmup", "36", "--timesteps", "36", "--output-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    log = (tmp_path / "log.txt").read_text()
    assert "warm start: 60 heuristic decisions played" in log
    assert "warm start epoch 2: held-out agreement" in log
    # Both updates trained the critic alone: the actor of the first evaluation (best.pt)
    # is the actor at the end.
    first = torch.load(tmp_path / "best.pt", weights_only=True)["actor"]
    last = torch.load(tmp_path / "checkpoint.pt", weights_only=True)["actor"]
    assert all(torch.equal(first[k], last[k]) for k in first)
    from kanaloa_env.bots.policy_file import load_policy

    method = load_policy(str(tmp_path / "policy.npz")).metadata["training"]["method"]
    assert (
        method
        == "a warm start imitating the heuristic, then PPO on the GPU against heuristic opponents"
    )


def test_kanaloa_against_its_heuristic_on_the_device(tmp_path: Path) -> None:
    argv = ["--game", "kanaloa", "--num-players", "3", "--opponents", "heuristic"]
    argv += ["--num-envs", "3", "--rollout-steps", "6", "--minibatch", "9", "--hidden", "8"]
    argv += ["--eval-every", "18", "--eval-games", "3", "--clone-decisions", "18"]
    done = _run(*argv, "--timesteps", "18", "--output-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    log = (tmp_path / "log.txt").read_text()
    assert "warm start: 18 heuristic decisions played" in log
    assert "evaluation at 18 decisions: greedy won" in log
    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot

    bot = PolicyBot.load(str(tmp_path / "policy.npz"))
    result = run_tournament([bot, "heuristic", "heuristic"], num_players=3, num_games=3, seed=0)
    assert len(result.winner) == 3


def test_ctrl_c_saves_a_checkpoint_and_exits_130(tmp_path: Path) -> None:
    argv = ["env", "NUMBA_ENABLE_CUDASIM=1", "NUMBA_DISABLE_JIT=1", sys.executable, SCRIPT]
    argv += [*TINY, "--timesteps", "100000", "--output-dir", str(tmp_path)]
    code, out, err = interrupt_when(argv, "learner decisions/s", tmp_path, timeout=300)
    assert code == 130, err[-3000:]
    assert "checkpoint (the same command resumes)" in err
    assert (tmp_path / "checkpoint.pt").exists()


def test_gae_follows_each_games_chain_and_cuts_it_at_an_end() -> None:
    rng = np.random.default_rng(0)
    T, N, gamma, lam = 7, 3, 0.9, 0.8
    rew, val = rng.normal(size=(T, N)), rng.normal(size=(T, N))
    done = rng.random((T, N)) < 0.3
    last = rng.normal(size=N)
    want = np.zeros((T, N))
    for i in range(N):
        nxt_adv, nxt_val = 0.0, last[i]
        for t in range(T - 1, -1, -1):
            keep = 0.0 if done[t, i] else 1.0
            delta = rew[t, i] + gamma * nxt_val * keep - val[t, i]
            nxt_adv = delta + gamma * lam * keep * nxt_adv
            want[t, i] = nxt_adv
            nxt_val = val[t, i]
    got = gae(*(torch.from_numpy(x) for x in (rew, val, done, last)), gamma, lam)
    np.testing.assert_allclose(got.numpy(), want)
