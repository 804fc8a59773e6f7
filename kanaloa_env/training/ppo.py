"""PPO written on torch directly, shared by the batched-engine and the GPU training
scripts: the options, the networks, the masked sampling, the update, checkpoints and
the exported policy file.

```python
actor, critic = make_nets(game.obs_dim, game.num_actions, [512, 256])
opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-4, eps=1e-5)
a, logp = sample_actions(actor, obs, mask, gen)        # (N,) int64, (N,) float32
stats = ppo_update(actor, critic, opt, batch, args, gen)
```

torch is imported on first use, not with this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "add_ppo_options",
    "add_run_options",
    "command_line",
    "load_checkpoint",
    "make_nets",
    "ppo_update",
    "sample_actions",
    "save_actor_policy",
    "save_checkpoint",
    "save_training",
    "stream_seed",
]


def add_run_options(
    p: argparse.ArgumentParser, *, game_help: str, output_dir: str, seed_help: str
) -> None:
    """Add to the parser `p` what a run plays and where it writes: `--game` ("kahuna",
    help `game_help`), `--num-players` (None: the game's default), `--output-dir`
    (default `output_dir`), `--seed` (0, help `seed_help`) and `--hidden` (the
    networks' hidden layer sizes as text, "512,256")."""
    p.add_argument("--game", default="kahuna", help=game_help)
    p.add_argument(
        "--num-players", type=int, default=None, help="table size (None: the game's default)"
    )
    p.add_argument("--output-dir", default=output_dir, help="where everything is written")
    p.add_argument("--seed", type=int, default=0, help=seed_help)
    p.add_argument("--hidden", default="512,256", help="hidden layer sizes")


def add_ppo_options(p: argparse.ArgumentParser, *, minibatch: int) -> None:
    """Add to the parser `p` the options of `ppo_update` and of the advantages:
    `--minibatch` (default
    `minibatch`), `--critic-warmup`, `--epochs`, `--lr`, `--clip`, `--ent-coef`,
    `--vf-coef`, `--target-kl`, `--gamma`, `--gae-lambda`."""
    p.add_argument("--minibatch", type=int, default=minibatch, help="PPO minibatch")
    p.add_argument(
        "--critic-warmup",
        type=int,
        default=0,
        help="learner decisions at the start of PPO that train only the critic",
    )
    p.add_argument("--epochs", type=int, default=4, help="passes over each rollout")
    p.add_argument("--lr", type=float, default=3e-4, help="PPO learning rate at the start")
    p.add_argument("--clip", type=float, default=0.2, help="PPO ratio clip")
    p.add_argument("--ent-coef", type=float, default=0.003, help="entropy bonus weight")
    p.add_argument("--vf-coef", type=float, default=0.5, help="critic loss weight")
    p.add_argument("--target-kl", type=float, default=0.03, help="KL that ends an update")
    p.add_argument("--gamma", type=float, default=0.995, help="discount per learner decision")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")


def stream_seed(seed: int, stream: int, bits: int = 32) -> int:
    """A seed of its own for each stage of a run: stream `stream` of run `seed`, mixed by
    numpy's `SeedSequence` into a `bits`-bit integer (32 or 64)."""
    if bits not in (32, 64):
        raise ValueError(f"bits must be 32 or 64, got {bits}")
    dtype = np.uint32 if bits == 32 else np.uint64
    return int(np.random.SeedSequence([seed, stream]).generate_state(1, dtype)[0])


def make_nets(obs_dim: int, num_actions: int, hidden: list[int]) -> tuple[Any, Any]:
    """Actor ((b, `obs_dim`) observations -> (b, `num_actions`) action logits) and critic
    (observations -> (b, 1) values): separate MLPs with ReLU between `hidden` layers,
    torch's default initialisation."""
    import torch

    def mlp(out: int) -> Any:
        layers: list[Any] = []
        width = obs_dim
        for h in hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, out))
        return torch.nn.Sequential(*layers)

    return mlp(num_actions), mlp(1)


def sample_actions(actor: Any, obs: Any, mask: Any, gen: Any) -> tuple[Any, Any]:
    """Actions sampled from the actor's masked softmax (Gumbel-max, uniforms from the
    torch generator `gen`) and their log-probabilities.

    Args:
        actor: obs -> logits.
        obs: (N, obs_dim) float32 tensor.
        mask: (N, A) bool tensor of legal actions, at least one a row.
        gen: a torch.Generator on `obs`'s device.

    Returns:
        (N,) int64 actions and (N,) float32 log-probabilities, no gradient kept.
    """
    import torch

    with torch.no_grad():
        logp_all = torch.log_softmax(actor(obs).masked_fill(~mask, -1e9), 1)
        u = torch.rand(logp_all.shape, generator=gen, device=obs.device).clamp_(1e-12, 1.0)
        a = (logp_all - torch.log(-torch.log(u))).argmax(1)
        return a, logp_all.gather(1, a[:, None])[:, 0]


def ppo_update(
    actor: Any,
    critic: Any,
    opt: Any,
    data: Mapping[str, Any],
    args: Any,
    gen: Any,
    critic_only: bool = False,
) -> dict[str, float]:
    """One PPO update on a rollout's transitions; the mean statistics of its minibatches.

    Args:
        actor, critic: the networks (`make_nets`).
        opt: the optimiser of both.
        data: the transitions, numpy arrays or tensors on the networks' device: `obs`
            (N, obs_dim), `mask` (N, A) bool, `act` (N,) int64, `logp` (N,) the
            sampling log-probabilities, `adv` (N,) advantages, `ret` (N,) value targets.
        args: the `add_ppo_options` values (`epochs`, `clip`, `ent_coef`, `vf_coef`,
            `target_kl`) and `minibatch`.
        gen: the CPU torch.Generator that shuffles the minibatches.
        critic_only: leave out the policy loss and the entropy bonus (the actor stays).

    Returns:
        pg, vf, ent, kl, clipfrac: the policy loss, critic loss, entropy, approximate KL
        and clipped share, averaged over the minibatches. The remaining passes are
        skipped once a pass's mean KL exceeds `args.target_kl`; gradients are clipped
        to norm 1.
    """
    import torch

    t = {k: torch.as_tensor(v) for k, v in data.items()}
    adv = (t["adv"] - t["adv"].mean()) / (t["adv"].std() + 1e-8)
    n = len(adv)
    sums = {"pg": 0.0, "vf": 0.0, "ent": 0.0, "kl": 0.0, "clipfrac": 0.0}
    batches = 0
    params = [*actor.parameters(), *critic.parameters()]
    for _ in range(args.epochs):
        order = torch.randperm(n, generator=gen).to(adv.device)
        kls = []
        for lo in range(0, n, args.minibatch):
            i = order[lo : lo + args.minibatch]
            logp_all = torch.log_softmax(actor(t["obs"][i]).masked_fill(~t["mask"][i], -1e9), 1)
            log_ratio = logp_all.gather(1, t["act"][i][:, None])[:, 0] - t["logp"][i]
            ratio = log_ratio.exp()
            a = adv[i]
            pg = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
            ent = -(logp_all.exp() * logp_all).sum(1).mean()
            vf = ((critic(t["obs"][i])[:, 0] - t["ret"][i]) ** 2).mean()
            loss = (
                args.vf_coef * vf if critic_only else pg - args.ent_coef * ent + args.vf_coef * vf
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            with torch.no_grad():
                kl = ((ratio - 1) - log_ratio).mean().item()
                clipped = ((ratio - 1).abs() > args.clip).float().mean().item()
            kls.append(kl)
            for k, v in (("pg", pg.item()), ("vf", vf.item()), ("ent", ent.item())):
                sums[k] += v
            sums["kl"] += kl
            sums["clipfrac"] += clipped
            batches += 1
        if np.mean(kls) > args.target_kl:
            break
    return {k: v / max(1, batches) for k, v in sums.items()}


def save_checkpoint(path: str, **parts: Any) -> None:
    """`torch.save` of `parts` (state dicts, counters, lists) to `path`, whole or not at all."""
    import torch

    from kanaloa_env.core.files import atomic_write_path

    with atomic_write_path(path) as tmp:
        torch.save(parts, tmp)


def save_training(path: str, actor: Any, critic: Any, opt: Any, **more: Any) -> None:
    """`save_checkpoint` to `path` of the networks' and the optimiser's state dicts (as
    `actor`, `critic` and `opt`, what `load_checkpoint` reads) and of `more` (counters,
    lists)."""
    state = {"actor": actor.state_dict(), "critic": critic.state_dict(), "opt": opt.state_dict()}
    save_checkpoint(path, **state, **more)


def load_checkpoint(
    path: str, actor: Any, critic: Any, opt: Any, device: Any = None
) -> dict[str, Any]:
    """Resume from a checkpoint of `save_checkpoint(path, actor=..., critic=..., opt=...,
    ...)`: load the three state dicts into `actor`, `critic` and `opt` and return
    everything saved. Only the run's own checkpoints: read with `weights_only=True`,
    tensors mapped to `device` (None: where they were saved)."""
    import torch

    saved: dict[str, Any] = torch.load(path, weights_only=True, map_location=device)
    actor.load_state_dict(saved["actor"])
    critic.load_state_dict(saved["critic"])
    opt.load_state_dict(saved["opt"])
    return saved


def command_line(script: str) -> str:
    """The command that ran this process as `script` ("examples/x.py"), for the
    metadata of what it makes: "python examples/x.py --seed 0 ..."."""
    return f"python {script} " + " ".join(sys.argv[1:])


def save_actor_policy(
    path: str,
    actor: Any,
    num_players: int,
    hidden: list[int],
    training: dict[str, Any],
    game: Any,
) -> str:
    """Save a ReLU `actor` (a torch Sequential of Linear and ReLU layers, on the CPU) as
    a weights-only policy file at `path` for `game` at `num_players` players, with its
    `hidden` layer sizes and `training` (what made it) in its metadata; returns `path`."""
    from kanaloa_env.bots.policy_bot import sequential_layers
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata, save_policy

    meta = make_metadata(num_players, hidden, "relu", training, game=game)
    save_policy(path, PolicyWeights(meta, sequential_layers(actor)))
    return path
