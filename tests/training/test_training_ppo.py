"""kanaloa_env.training.ppo: the options, networks, masked sampling, update, checkpoints
and exported policy file of the torch PPO scripts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kanaloa_env.training import ppo

torch = pytest.importorskip("torch")


def test_the_options_and_their_defaults() -> None:
    p = argparse.ArgumentParser()
    ppo.add_run_options(p, game_help="g", output_dir="runs/x", seed_help="s")
    ppo.add_ppo_options(p, minibatch=64)
    args = p.parse_args([])
    assert (args.game, args.num_players, args.output_dir, args.seed) == (
        "kahuna",
        None,
        "runs/x",
        0,
    )
    assert args.hidden == "512,256" and args.critic_warmup == 0 and args.epochs == 4
    assert args.minibatch == 64
    assert (args.lr, args.clip, args.ent_coef, args.vf_coef) == (3e-4, 0.2, 0.003, 0.5)
    assert (args.target_kl, args.gamma, args.gae_lambda) == (0.03, 0.995, 0.95)


def test_stream_seeds_are_numpys_seed_sequence() -> None:
    want = np.random.SeedSequence([3, 12]).generate_state(1)[0]
    assert ppo.stream_seed(3, 12) == int(want) < 2**32
    wide = np.random.SeedSequence([3, 12]).generate_state(1, np.uint64)[0]
    assert ppo.stream_seed(3, 12, bits=64) == int(wide)
    assert ppo.stream_seed(3, 13) != ppo.stream_seed(3, 12)
    with pytest.raises(ValueError, match="bits must be 32 or 64"):
        ppo.stream_seed(3, 12, bits=16)


def test_sampling_keeps_to_the_legal_actions() -> None:
    torch.manual_seed(0)
    actor, critic = ppo.make_nets(5, 4, [8])
    assert actor(torch.zeros(2, 5)).shape == (2, 4) and critic(torch.zeros(2, 5)).shape == (2, 1)
    obs = torch.randn(500, 5)
    mask = torch.zeros(500, 4, dtype=torch.bool)
    mask[:, 1] = mask[::2, 3] = True
    gen = torch.Generator().manual_seed(1)
    a, logp = ppo.sample_actions(actor, obs, mask, gen)
    assert mask[torch.arange(500), a].all() and not logp.requires_grad
    want = torch.log_softmax(actor(obs).masked_fill(~mask, -1e9), 1).gather(1, a[:, None])[:, 0]
    torch.testing.assert_close(logp, want.detach())
    assert set(a[1::2].tolist()) == {1} and set(a[::2].tolist()) == {1, 3}
    again, _ = ppo.sample_actions(actor, obs, mask, torch.Generator().manual_seed(1))
    assert torch.equal(a, again)  # the generator alone decides


def _batch(n: int = 64) -> dict[str, object]:
    rng = np.random.default_rng(0)
    mask = np.ones((n, 4), bool)
    mask[:, 0] = False
    act = rng.integers(1, 4, n)
    return {
        "obs": rng.standard_normal((n, 5)).astype(np.float32),
        "mask": mask,
        "act": act,
        "logp": np.full(n, np.log(1 / 3), np.float32),
        "adv": rng.standard_normal(n).astype(np.float32),
        "ret": rng.standard_normal(n).astype(np.float32),
    }


def test_an_update_trains_and_critic_only_leaves_the_actor() -> None:
    torch.manual_seed(0)
    actor, critic = ppo.make_nets(5, 4, [8])
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)
    args = SimpleNamespace(epochs=2, minibatch=16, clip=0.2, ent_coef=0.01, vf_coef=0.5)
    args.target_kl = 10.0
    before = [p.detach().clone() for p in actor.parameters()]
    stats = ppo.ppo_update(actor, critic, opt, _batch(), args, torch.Generator().manual_seed(0))
    assert set(stats) == {"pg", "vf", "ent", "kl", "clipfrac"}
    assert all(np.isfinite(v) for v in stats.values())
    assert any(not torch.equal(a, b) for a, b in zip(before, actor.parameters(), strict=True))
    actor2, critic2 = ppo.make_nets(5, 4, [8])
    opt2 = torch.optim.Adam([*actor2.parameters(), *critic2.parameters()], lr=1e-2)
    frozen = [p.detach().clone() for p in actor2.parameters()]
    gen = torch.Generator().manual_seed(0)
    ppo.ppo_update(actor2, critic2, opt2, _batch(), args, gen, critic_only=True)
    assert all(torch.equal(a, b) for a, b in zip(frozen, actor2.parameters(), strict=True))


def test_checkpoints_round_trip_and_the_policy_file_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kanaloa_env.bots.policy_file import load_policy
    from kanaloa_env.games import get_game

    game = get_game("kahuna")
    torch.manual_seed(0)
    actor, critic = ppo.make_nets(game.obs_dim, game.num_actions, [8])
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()])
    path = str(tmp_path / "checkpoint.pt")
    ppo.save_training(path, actor, critic, opt, steps=7, rows=[{"a": 1}])
    actor2, critic2 = ppo.make_nets(game.obs_dim, game.num_actions, [8])
    opt2 = torch.optim.Adam([*actor2.parameters(), *critic2.parameters()])
    saved = ppo.load_checkpoint(path, actor2, critic2, opt2)
    assert saved["steps"] == 7 and saved["rows"] == [{"a": 1}]
    for a, b in zip(actor.parameters(), actor2.parameters(), strict=True):
        assert torch.equal(a, b)
    monkeypatch.setattr(sys, "argv", ["x.py", "--seed", "3"])
    assert ppo.command_line("examples/x.py") == "python examples/x.py --seed 3"
    training = {"recipe": "test", "command": ppo.command_line("examples/x.py")}
    policy = ppo.save_actor_policy(str(tmp_path / "p.npz"), actor, 2, [8], training, game)
    w = load_policy(policy)
    assert w.num_players == 2 and w.hidden_sizes == [8] and w.activation == "relu"
    assert w.metadata["training"]["command"] == "python examples/x.py --seed 3"
    np.testing.assert_array_equal(w.layers[0][0], actor[0].weight.detach().numpy())
