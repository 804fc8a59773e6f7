"""PPO on the GPU vector env: the rollout kept in device tensors, its advantages, and the
greedy evaluation, shared by examples/train_gpu_ppo.py and the training campaigns
(`kanaloa_env.training.campaign`).

```python
env = GpuVectorEnv(8192, game="kanaloa", num_players=4, opponents="heuristic", seed=s)
roll = Rollout(env, steps=16, device=device)
obs = env.reset()
obs = roll.collect(actor, critic, obs, gen)                # 16 steps of every game
batch = roll.batch(critic, obs, gamma=0.995, lam=0.95)      # flat, for ppo.ppo_update
rate = greedy_win_rate(actor, GpuVectorEnv(4096, ..., seed=eval_seed))
```

torch is imported on first use, not with this module.
"""

from __future__ import annotations

import sys
from typing import Any

from kanaloa_env.training import ppo

__all__ = ["NO_GPU_EXIT", "Rollout", "gae", "greedy_win_rate", "torch_device"]

NO_GPU_EXIT = 2
"""The exit status of a GPU script started without a usable GPU."""


def torch_device(who: str) -> Any:
    """The torch device of a GPU run: CUDA, or the CPU under numba-cuda's simulator.

    Raises:
        SystemExit: with status `NO_GPU_EXIT` and what is missing, printed as "`who`
            needs a CUDA GPU: ...", without a usable GPU (no numba-cuda, no device, or a
            PyTorch build without CUDA).
    """
    import torch

    from kanaloa_env.core import gpu

    try:
        gpu.cuda_module()
    except (ModuleNotFoundError, RuntimeError) as exc:
        print(f"{who} needs a CUDA GPU: {exc}", file=sys.stderr)
        raise SystemExit(NO_GPU_EXIT) from None
    if gpu.simulator():
        return torch.device("cpu")
    if not torch.cuda.is_available():
        print(
            f"{who} needs a CUDA GPU: this PyTorch build has no CUDA "
            f"(torch {torch.__version__}); install a CUDA build of PyTorch",
            file=sys.stderr,
        )
        raise SystemExit(NO_GPU_EXIT)
    return torch.device("cuda")


def gae(rew: Any, val: Any, done: Any, last_val: Any, gamma: float, lam: float) -> Any:
    """(T, N) GAE advantages of T steps of N games.

    Args:
        rew: (T, N) rewards of each step.
        val: (T, N) the critic's values of each step's observation.
        done: (T, N) bool, the game ended in that step (its chain ends there).
        last_val: (N,) the value of the observation after the last step.
        gamma: the discount per learner decision.
        lam: GAE's lambda.
    """
    import torch

    adv = torch.zeros_like(rew)
    nxt_adv = torch.zeros_like(last_val)
    nxt_val = last_val
    for t in range(rew.shape[0] - 1, -1, -1):
        keep = (~done[t]).to(rew.dtype)
        delta = rew[t] + gamma * nxt_val * keep - val[t]
        nxt_adv = delta + gamma * lam * keep * nxt_adv
        adv[t] = nxt_adv
        nxt_val = val[t]
    return adv


class Rollout:
    """T steps of the N games of a `GpuVectorEnv` in device tensors (the buffers are
    reused every rollout).

    Args:
        env: the `GpuVectorEnv` the rollouts play.
        steps: T, the steps of every game in one rollout.
        device: the torch device of the env's tensors.
    """

    def __init__(self, env: Any, steps: int, device: Any) -> None:
        import torch

        N, T = env.num_envs, steps
        self.env, self.steps = env, steps
        self.obs = torch.zeros((T, N, env.engine.obs_dim), dtype=torch.float32, device=device)
        self.mask = torch.zeros((T, N, env.engine.num_actions), dtype=torch.bool, device=device)
        z = {"device": device}
        self.act = torch.zeros((T, N), dtype=torch.int64, **z)
        self.logp, self.val, self.rew = (torch.zeros((T, N), **z) for _ in range(3))
        self.done = torch.zeros((T, N), dtype=torch.bool, **z)
        self.won: list[float] = []
        # Wall seconds of the rollouts so far in the networks (sampling, values) and in the
        # env's steps (learner actions, opponents, restarts): the device is synchronised
        # between the two, so a CUDA run's profile is not hidden in the next sync.
        self.seconds = {"policy": 0.0, "env": 0.0}

    def collect(self, actor: Any, critic: Any, obs: Any, gen: Any) -> Any:
        """Play T steps from the current (N, obs_dim) observations `obs`, the actions
        sampled from `actor` with the torch generator `gen`, valued by `critic`; the
        observations after. The wins of the games that ended are appended to `won`."""
        import time

        import torch

        sync = torch.cuda.synchronize if obs.is_cuda else (lambda: None)
        for t in range(self.steps):
            t0 = time.perf_counter()
            mask = self.env.action_masks()
            a, logp = ppo.sample_actions(actor, obs, mask, gen)
            with torch.no_grad():
                v = critic(obs)[:, 0]
            self.obs[t].copy_(obs)
            self.mask[t].copy_(mask)
            self.act[t], self.logp[t], self.val[t] = a, logp, v
            sync()
            t1 = time.perf_counter()
            obs, reward, done, info = self.env.step(a)
            sync()
            self.seconds["policy"] += t1 - t0
            self.seconds["env"] += time.perf_counter() - t1
            self.rew[t].copy_(reward)
            self.done[t].copy_(done)
            if bool(done.any()):
                self.won.extend(info["won"][done].float().tolist())
        return obs

    def batch(self, critic: Any, obs: Any, gamma: float, lam: float) -> dict[str, Any]:
        """The rollout's T * N transitions, flat, with advantages and returns (the `data`
        of `ppo.ppo_update`); `obs` the observations after the last step, valued by
        `critic`, `gamma` and `lam` GAE's."""
        import torch

        with torch.no_grad():
            last = critic(obs)[:, 0]
        adv = gae(self.rew, self.val, self.done, last, gamma, lam)
        flat = {
            "obs": self.obs.flatten(0, 1),
            "mask": self.mask.flatten(0, 1),
            "act": self.act.flatten(),
            "logp": self.logp.flatten(),
            "adv": adv.flatten(),
        }
        flat["ret"] = flat["adv"] + self.val.flatten()
        return flat


def greedy_win_rate(actor: Any, env: Any) -> float:
    """Win rate of `actor` playing greedily (its most likely legal action) in the first game
    of each of the N slots of `env`, a `GpuVectorEnv` not yet reset (reset here)."""
    import torch

    obs = env.reset()
    won = torch.zeros(env.num_envs, dtype=torch.bool, device=obs.device)
    finished = torch.zeros_like(won)
    while not bool(finished.all()):
        with torch.no_grad():
            a = actor(obs).masked_fill(~env.action_masks(), -torch.inf).argmax(1)
        obs, _, done, info = env.step(a)
        first = done & ~finished
        won |= first & info["won"]
        finished |= done
    return float(won.float().mean())
