"""The recipe of the earlier shipped 4-player policy (examples/train_ppo_bot.py): its cloning data, and a
smoke run end to end that is deterministic for a seed and resumes from its checkpoints."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from interrupt_kit import run_example

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SMOKE = (
    *("--bc-chunks", "2", "--bc-games", "24", "--bc-batch-size", "256"),
    *("--ppo-timesteps", "1024", "--num-envs", "16", "--n-steps", "32", "--batch-size", "256"),
    *("--snapshot-freq", "512", "--eval-freq", "512", "--eval-games", "16"),
    *("--final-games", "16", "--net-arch", "32,32", "--seed", "5"),
)


def run(*args: str) -> subprocess.CompletedProcess:
    proc = run_example("train_ppo_bot.py", *args)
    assert proc.returncode == 0, f"train_ppo_bot.py failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_cloning_data_holds_every_decision_with_its_discounted_outcome() -> None:
    sys.path.insert(0, str(EXAMPLES))
    from train_ppo_bot import heuristic_games

    from kanaloa_env.bots import public_view
    from kanaloa_env.core.kanaloa import Config, init, observe, step_inplace
    from kanaloa_env.games.kanaloa.heuristic import HeuristicBot

    gamma, games = 0.9, 6
    data = heuristic_games(4, seed=11, first_game=3, num_games=games, gamma=gamma)
    # The same games one at a time, the slow way.
    bot, rng = HeuristicBot(), np.random.default_rng(0)
    want_obs, want_act, want_ret = [], [], []
    for g in range(games):
        s = init(Config(num_players=4), 1, 11, first_game=3 + g)
        seats, rows = [], []
        total = np.zeros(4)
        while not s.done[0]:
            seat = s.current_player.astype(np.intp)
            a = bot.act(None, s.legal.copy(), rng, view=public_view(s, seat), seats=seat)
            rows.append((observe(s)[0], int(a[0])))
            seats.append(int(seat[0]))
            step_inplace(s, a)
            total += s.rewards[0]
        later = [seats[i + 1 :].count(p) for i, p in enumerate(seats)]
        want_obs += [o for o, _ in rows]
        want_act += [a for _, a in rows]
        want_ret += [total[p] * gamma**k for p, k in zip(seats, later, strict=True)]
    # heuristic_games records step by step across games: compare as sorted multisets.
    assert len(data["actions"]) == len(want_act)
    order = np.lexsort(data["obs"].T)
    want = np.lexsort(np.array(want_obs).T)
    np.testing.assert_array_equal(data["obs"][order], np.array(want_obs)[want])
    np.testing.assert_array_equal(data["actions"][order], np.array(want_act)[want])
    np.testing.assert_allclose(data["returns"][order], np.array(want_ret)[want], rtol=1e-6)
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()
    # Each player's last decision carries its undiscounted outcome: +1 or -1/3 (R10).
    assert (data["returns"] == 1.0).any() and np.isclose(data["returns"], -1 / 3).any()


def test_help_documents_every_argument() -> None:
    out = run("--help").stdout
    for flag in ("--seed", "--bc-chunks", "--ppo-timesteps", "--heuristic-share", "--output-dir"):
        assert flag in out


def test_smoke_run_is_deterministic_resumes_and_exports_a_policy_file(tmp_path: Path) -> None:
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.bots.policy_file import load_policy

    a, b = tmp_path / "a", tmp_path / "b"
    out = run(*SMOKE, "--output-dir", str(a)).stdout
    assert "bc chunk 2/2" in out and "ppo [" in out and "final arena" in out
    for name in ("bc.pt", "ppo_last.zip", "ppo_best.zip", "eval.csv", "policy.npz"):
        assert (a / name).stat().st_size > 0
    assert (a / "arena" / "results.json").exists()
    with open(a / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert float(rows[0]["timesteps"]) == 0 and float(rows[-1]["timesteps"]) >= 1024
    w = load_policy(a / "policy.npz")
    assert w.hidden_sizes == [32, 32] and w.num_players == 4
    assert w.metadata["training"]["seed"] == 5
    assert "--seed 5" in w.metadata["training"]["command"]
    PolicyBot(w)  # plays: the arena above already did

    run(*SMOKE, "--output-dir", str(b))
    wb = load_policy(b / "policy.npz")
    for (w1, b1), (w2, b2) in zip(w.layers, wb.layers, strict=True):
        np.testing.assert_array_equal(w1, w2)  # same seed, same weights
        np.testing.assert_array_equal(b1, b2)

    again = run(*SMOKE, "--output-dir", str(a)).stdout  # both stages done: nothing retrained
    assert "bc: resuming after chunk 2 of 2" in again and "ppo: resuming at" in again
    assert "bc chunk" not in again.replace("bc: resuming after chunk", "")
