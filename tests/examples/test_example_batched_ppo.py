"""The recipe of the shipped Kahuna policy (examples/train_batched_ppo.py): its returns, its
advantages and its rollout bookkeeping against slow references, and a smoke run end to
end that repeats for a seed, resumes, and writes a policy file that plays."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))

from interrupt_kit import run_example  # noqa: E402
from train_batched_ppo import Rollouts, gae, self_play, shaped_returns  # noqa: E402

from kanaloa_env.games import get_game  # noqa: E402
from kanaloa_env.training import GracefulStop  # noqa: E402
from kanaloa_env.training.ppo import make_nets  # noqa: E402

SMOKE = (
    *("--bc-games", "16", "--bc-epochs", "1", "--timesteps", "6000", "--rollout", "2048"),
    *("--num-games", "32", "--minibatch", "512", "--eval-every", "4000", "--eval-games", "8"),
    *("--final-games", "6", "--hidden", "16", "--torch-threads", "1", "--seed", "3"),
)


def run(*args: str) -> subprocess.CompletedProcess:
    return run_example("train_batched_ppo.py", *args)


def test_shaped_returns_follow_each_players_own_decisions() -> None:
    key = np.array([0, 1, 0, 0, 1, 2], np.int64)  # three players' chains, interleaved
    phi = np.array([0.1, 0.2, 0.3, -0.2, 0.5, 0.4])
    final = np.array([1.0, -1.0, 0.0])
    gamma, w = 0.9, 2.0
    got = shaped_returns(key, phi, final, gamma, w)
    want = np.zeros(6)
    for k in range(3):
        ds = [d for d in range(6) if key[d] == k]
        g = final[k] - w * phi[ds[-1]]
        want[ds[-1]] = g
        for d, later in zip(ds[-2::-1], ds[:0:-1], strict=True):
            g = w * (gamma * phi[later] - phi[d]) + gamma * g
            want[d] = g
    np.testing.assert_allclose(got, want)
    # Shaping telescopes: a chain's first return is, undiscounted, the outcome less w * phi0.
    flat = shaped_returns(key, phi, final, 1.0, w)
    for k, first in ((0, 0), (1, 1), (2, 5)):
        assert np.isclose(flat[first], final[k] - w * phi[first])


def test_gae_cuts_chains_at_open_transitions_and_at_the_end_of_a_game() -> None:
    # 0 -> 2 -> 4 (game over at 4); 1 -> 3 -> 5 where 5 is still open.
    rew = np.array([0.1, 0.2, 0.3, 0.4, 1.0, 0.0], np.float32)
    val = np.array([0.5, 0.1, 0.2, 0.3, 0.4, 0.6], np.float32)
    nxt = np.array([0.2, 0.3, 0.4, 0.6, 0.0, 0.0], np.float32)
    done = np.array([0, 0, 0, 0, 1, 0], bool)
    succ = np.array([2, 3, 4, 5, -1, -1], np.int64)
    complete = np.array([1, 1, 1, 1, 1, 0], bool)
    g, lam = np.float32(0.9), np.float32(0.8)
    adv = gae(rew, val, nxt, done, succ, complete, g, lam)
    d = rew + np.where(done, 0, g * nxt) - val
    want = np.zeros(6, np.float32)
    want[4] = d[4]
    want[2] = d[2] + g * lam * want[4]
    want[0] = d[0] + g * lam * want[2]
    want[3] = d[3]  # its successor 5 is open: cut
    want[1] = d[1] + g * lam * want[3]
    np.testing.assert_allclose(adv, want, rtol=1e-6)
    assert adv[5] == 0


def test_self_play_records_the_heuristics_games() -> None:
    game = get_game("kahuna")
    args = SimpleNamespace(gamma=0.99, shaping=1.0)
    data = self_play(game, 2, seed=7, num_games=3, args=args)
    n = len(data["actions"])
    assert data["obs"].shape == (n, game.obs_dim) and data["masks"].shape == (n, 153)
    assert data["masks"][np.arange(n), data["actions"]].all()
    # Two players' last decisions per game carry the outcome less the potential there:
    # with every game decided, some returns are near +1 and some near -1.
    assert (data["returns"] > 0.5).any() and (data["returns"] < -0.5).any()


def test_rollout_transitions_chain_each_learners_decisions() -> None:
    game = get_game("kahuna")
    args = SimpleNamespace(num_games=24, rollout=3000, gamma=0.97, gae_lambda=0.9, shaping=1.5)
    torch.manual_seed(0)
    actor, critic = make_nets(game.obs_dim, game.num_actions, [8])
    roll = Rollouts(game, 2, args, seed=5, rng=np.random.default_rng(1))
    gen = torch.Generator().manual_seed(0)
    with GracefulStop() as stop:
        roll.collect(actor, critic, gen, stop)
    b, k = roll.buf, roll.size
    assert k >= 3000
    assert roll.mask[np.arange(k), b["act"][:k]].all()  # every action legal
    done = np.flatnonzero(b["complete"][:k] & b["done"][:k])
    cont = np.flatnonzero(b["complete"][:k] & ~b["done"][:k])
    s = b["succ"][cont]
    assert (s > cont).all()
    np.testing.assert_allclose(
        b["rew"][cont], (1.5 * (np.float32(0.97) * b["phi"][s] - b["phi"][cont])), rtol=1e-5
    )
    np.testing.assert_array_equal(b["next_val"][cont], b["val"][s])
    outcome = b["rew"][done] + 1.5 * b["phi"][done]
    assert np.allclose(np.abs(outcome), 1, atol=1e-5) or np.isclose(outcome, 0).any()
    assert len(done) == len(roll.results) > 0  # one closing transition per finished game
    # Exactly the open transitions are incomplete, one per game, the game's latest.
    open_ = np.flatnonzero(~b["complete"][:k])
    np.testing.assert_array_equal(np.sort(roll.pending[roll.pending >= 0]), open_)
    # Each transition is someone's successor at most once.
    assert len(np.unique(s)) == len(s)
    batch = roll.batch()
    assert len(batch["act"]) == len(cont) + len(done)
    # The next rollout completes the carried transitions first.
    carried = roll.obs[roll.pending[roll.pending >= 0]].copy()  # in game order
    with GracefulStop() as stop:
        roll.collect(actor, critic, gen, stop)
    np.testing.assert_array_equal(roll.obs[: len(open_)], carried)
    assert roll.buf["complete"][: len(open_)].all()


def test_smoke_run_repeats_for_a_seed_resumes_and_exports_a_playing_policy(
    tmp_path: Path,
) -> None:
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.policy_file import load_policy

    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        proc = run(*SMOKE, "--output-dir", str(out))
        assert proc.returncode == 0, proc.stderr
    pa, pb = load_policy(a / "policy.npz"), load_policy(b / "policy.npz")
    for (wa, ba), (wb, bb) in zip(pa.layers, pb.layers, strict=True):
        np.testing.assert_array_equal(wa, wb)
        np.testing.assert_array_equal(ba, bb)
    assert pa.metadata["game"] == "kahuna" and pa.hidden_sizes == [16]
    assert pa.metadata["training"]["recipe"] == "examples/train_batched_ppo.py"
    with open(a / "eval.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) > 0 for r in rows] == [False, True, True]
    assert {"log.txt", "checkpoint.pt", "best.pt", "learning_curve.png", "arena"} <= {
        p.name for p in a.iterdir()
    }
    assert "against the heuristic" in (a / "log.txt").read_text()
    # More timesteps: the same command resumes from the checkpoint.
    proc = run(*SMOKE, "--output-dir", str(a), "--timesteps", "9000")
    assert proc.returncode == 0, proc.stderr
    assert "resumed from" in proc.stdout and "warm start" not in proc.stdout
    with open(a / "eval.csv", newline="") as f:
        later = [int(r["timesteps"]) for r in csv.DictReader(f)][3:]
    assert later and later[-1] >= 9000 and later == sorted(later)
    # The file plays for Kahuna through the protocol's bot maker.
    from kanaloa_env.arena import run_tournament

    bot = make_bot(str(a / "policy.npz"), game="kahuna")
    result = run_tournament([bot, "random"], num_players=2, num_games=4, seed=0, game="kahuna")
    assert sum(s.games for s in result.stats) == 8


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--num-players", "3"), "--num-players: Kahuna is played by"),
        (("--hidden", "a"), "--hidden must be comma-separated integers"),
        (("--game", "chess"), "--game:"),
        (("--rollout", "0"), "--rollout must be at least 1"),
        (("--gamma", "1.5"), "--gamma must be in (0, 1]"),
        (("--init-policy", "/nonexistent/p.npz"), "--init-policy:"),
        (("--critic-warmup", "-1"), "--critic-warmup must be 0 or more"),
    ],
)
def test_bad_arguments_are_named(flags: tuple[str, ...], message: str) -> None:
    proc = run(*flags, "--output-dir", "/nonexistent/never")
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr


def test_other_games_train_too(tmp_path: Path) -> None:
    proc = run(
        *SMOKE, "--game", "kanaloa", "--num-players", "3", "--output-dir", str(tmp_path / "k")
    )
    assert proc.returncode == 0, proc.stderr
    from kanaloa_env.bots.policy_file import load_policy

    meta = load_policy(tmp_path / "k" / "policy.npz").metadata
    assert meta["game"] == "kanaloa" and meta["num_players"] == 3


def _random_policy(path: Path, game: str, players: int, hidden: list[int], act: str) -> None:
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata, save_policy

    g = get_game(game)
    rng = np.random.default_rng(0)
    sizes = [g.obs_dim, *hidden, g.num_actions]
    layers = tuple(
        (
            rng.normal(0, 0.1, (o, i)).astype(np.float32),
            rng.normal(0, 0.1, o).astype(np.float32),
        )
        for i, o in zip(sizes[:-1], sizes[1:], strict=True)
    )
    meta = make_metadata(players, hidden, act, {"recipe": "test"}, game=g)
    save_policy(path, PolicyWeights(meta, layers))


def test_init_policy_starts_the_actor_and_critic_warmup_keeps_it(tmp_path: Path) -> None:
    from kanaloa_env.bots.policy_file import load_policy

    init = tmp_path / "init.npz"
    _random_policy(init, "kahuna", 2, [24], "relu")
    out = tmp_path / "run"
    # The whole run trains the critic only: the exported actor is the file's, exactly.
    proc = run(
        *SMOKE, "--init-policy", str(init), "--critic-warmup", "100000", "--output-dir", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert "warm start" not in proc.stdout
    got, want = load_policy(out / "policy.npz"), load_policy(init)
    assert got.hidden_sizes == [24]  # the file's sizes, not --hidden 16
    for (wa, ba), (wb, bb) in zip(got.layers, want.layers, strict=True):
        np.testing.assert_array_equal(wa, wb)
        np.testing.assert_array_equal(ba, bb)
    assert (
        got.metadata["training"]["method"]
        == "PPO against heuristic bots from the actor of init.npz"
    )
    # Without the warm-up the actor moves.
    proc = run(*SMOKE, "--init-policy", str(init), "--output-dir", str(tmp_path / "moved"))
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "moved" / "eval.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 3
    moved = torch.load(tmp_path / "moved" / "checkpoint.pt", weights_only=True)["actor"]
    assert not np.array_equal(moved["0.weight"].numpy(), want.layers[0][0])


def test_init_policy_must_be_a_relu_file_of_the_game(tmp_path: Path) -> None:
    other = tmp_path / "kanaloa.npz"
    _random_policy(other, "kanaloa", 4, [8], "relu")
    proc = run("--init-policy", str(other), "--output-dir", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert "a ReLU policy file of Kahuna is needed" in proc.stderr
    tanh = tmp_path / "tanh.npz"
    _random_policy(tanh, "kahuna", 2, [8], "tanh")
    proc = run("--init-policy", str(tanh), "--output-dir", str(tmp_path / "x"))
    assert proc.returncode == 2 and "is a tanh file of kahuna" in proc.stderr


def test_no_warm_start_is_said_in_the_policy_file(tmp_path: Path) -> None:
    from kanaloa_env.bots.policy_file import load_policy

    proc = run(*SMOKE, "--bc-games", "0", "--output-dir", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    assert "warm start" not in proc.stdout
    method = load_policy(tmp_path / "s" / "policy.npz").metadata["training"]["method"]
    assert method == "PPO against heuristic bots from random weights (no imitation)"
