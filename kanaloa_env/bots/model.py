"""Bots from learned policies and plain functions.

```python
from kanaloa_env.bots.model import CallableBot, MaskablePPOBot

bot = MaskablePPOBot.load("runs/ppo/model.zip")     # a saved sb3-contrib MaskablePPO model
actions = bot.act(observations, masks, rng)   # (b, obs_dim), (b, A) -> (b,) legal actions
frozen = MaskablePPOBot.frozen_copy(model)          # a snapshot of a training model, for self-play
bot = CallableBot(lambda obs, masks, rng: masks.argmax(axis=1), name="first-legal")
```

`MaskablePPOBot` never lets its policy pick an illegal action: it masks the policy's
logits with the legal-action mask, then takes the arg-max (`deterministic=True`)
or samples with the `rng` it is given (Gumbel-max), so a seeded caller gets
reproducible play. `choose_actions` is that step for every bot playing a network
(`PolicyBot`, `RLlibModuleBot` too). torch and stable-baselines3 are imported only
when a model is used (the `train` extra).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ..games import get_game
from ..games.protocol import Game


def check_batch(
    observations: np.ndarray, masks: np.ndarray, obs_dim: int, num_actions: int
) -> tuple[np.ndarray, np.ndarray]:
    """(b, obs_dim) float32 observations and (b, num_actions) bool masks from a bot's
    arguments; a ValueError for other shapes or a mask row without a legal action."""
    obs = np.asarray(observations, dtype=np.float32)
    m = np.asarray(masks, dtype=bool)
    if m.ndim != 2 or m.shape[1] != num_actions:
        raise ValueError(f"masks must have shape (b, {num_actions}), got {m.shape}")
    if obs.shape != (len(m), obs_dim):
        raise ValueError(f"observations must have shape ({len(m)}, {obs_dim}), got {obs.shape}")
    if len(m) and not m.any(axis=1).all():
        raise ValueError("every mask row needs at least one legal action")
    return obs, m


NOISES = ("uniform", "gumbel")
"""How `choose_actions` draws its Gumbel noise (see there)."""


def choose_actions(
    logits: np.ndarray,
    masks: np.ndarray,
    rng: np.random.Generator | None = None,
    noise: str = "uniform",
) -> np.ndarray:
    """(b,) int64 actions from (b, A) action logits restricted to the legal actions of
    (b, A) bool `masks` (every row with one): the most likely legal action when `rng`
    is None, else a sample of the masked softmax drawn with `rng` (Gumbel-max: the
    arg-max of the logits plus one Gumbel draw per entry).

    `noise` is how the draws are made, each bot keeping its own seeded play: "uniform"
    (float32 uniforms u, the noise -log(-log(u)); the policy bots) or "gumbel"
    (`rng.gumbel`, float64 cast to float32; `RLlibModuleBot`). Both sample the same
    distribution from different random streams.
    """
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    m = np.asarray(masks, dtype=bool)
    scores = np.asarray(logits, dtype=np.float32)
    if scores.shape != m.shape or m.ndim != 2:
        raise ValueError(
            f"logits and masks must both have shape (b, A), got {scores.shape} and {m.shape}"
        )
    scores = np.where(m, scores, np.float32(-np.inf))
    if rng is not None:
        if noise == "uniform":
            u = rng.random(scores.shape, dtype=np.float32)
            scores -= np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
        else:
            scores += rng.gumbel(size=scores.shape).astype(np.float32)
    return np.argmax(scores, axis=1).astype(np.int64)


def check_policy_spaces(policy: Any, game: Game[Any, Any]) -> None:
    """A ValueError unless the stable-baselines3 `policy` takes `game`'s (obs_dim,)
    observations and its num_actions actions."""
    obs_shape = tuple(getattr(policy.observation_space, "shape", ()) or ())
    n = getattr(policy.action_space, "n", None)
    if obs_shape != (game.obs_dim,) or n != game.num_actions:
        raise ValueError(
            f"a {game.title} policy must take ({game.obs_dim},) observations and "
            f"{game.num_actions} actions; this one has observation shape {obs_shape} and "
            f"{n} actions"
        )


class NetworkBot:
    """The `act` of a bot playing a network's action logits (`choose_actions`): the
    arg-max of the legal actions, or with `deterministic` False a sample of their
    softmax drawn with the caller's `rng`. A subclass sets `obs_dim`, `num_actions`
    and `deterministic` and gives `logits(observations)`, (b, A) float32 logits."""

    uses_state = False
    obs_dim: int
    num_actions: int
    deterministic: bool

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(b, num_actions) float32 unmasked logits of (b, obs_dim) observations."""
        raise NotImplementedError

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for (b, obs_dim) `observations` and (b, A) bool
        `masks`; `rng` draws the samples when `deterministic` is False, and `kwargs`
        (other callers' keywords) are not read.

        Raises:
            ValueError: wrong shapes or a mask row without a legal action (and what
                `logits` raises).
        """
        obs, m = check_batch(observations, masks, self.obs_dim, self.num_actions)
        if len(m) == 0:
            return np.zeros(0, dtype=np.int64)
        return choose_actions(self.logits(obs), m, None if self.deterministic else rng)


class CallableBot:
    """A bot from any function `fn(observations, masks, rng) -> actions`.

    Args:
        fn: called with (b, obs_dim) float32 observations, (b, A) bool masks and a
            `numpy.random.Generator`; returns b integer actions.
        name: the bot's name (default: the function's name).

    The result is returned as a (b,) int64 array; a wrong shape or a non-integer
    result raises ValueError naming the bot (legality is checked by the caller,
    e.g. the vector driver, against the same masks).
    """

    uses_state = False

    def __init__(self, fn: Callable[..., Any], name: str | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"CallableBot needs a callable, got {type(fn).__name__}")
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__name__", type(fn).__name__))

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 actions: `fn(observations, masks, rng)` checked for its shape and
        dtype; `kwargs` are not passed on."""
        out = np.asarray(self.fn(observations, masks, rng))
        b = len(masks)
        if out.shape != (b,) or not np.issubdtype(out.dtype, np.integer) or out.dtype == bool:
            raise ValueError(
                f"bot {self.name!r} returned {out.dtype} of shape {out.shape}; "
                f"expected ({b},) integers"
            )
        return out.astype(np.int64)

    def __repr__(self) -> str:
        return f"CallableBot({self.name!r})"


class MaskablePPOBot(NetworkBot):
    """A bot that plays a trained stable-baselines3 policy on batches.

    Args:
        model: a path to a saved model (`.zip`, loaded with sb3-contrib's
            `MaskablePPO.load`, or stable-baselines3's `PPO.load` with
            `algo="ppo"`), a model object (anything with `.policy`), or an
            `ActorCriticPolicy` itself.
        deterministic: play the most likely legal action (default) instead of
            sampling from the masked policy.
        device: torch device for a model loaded from a path.
        name: the bot's name (default: the file name, or `model`).
        algo: `"maskable_ppo"` (default) or `"ppo"`, the class used to load a path.
        game: the game the policy plays (a name or `Game`; default Kanaloa).

    Loading a saved `.zip` unpickles parts of it, which runs code stored in the file:
    load only models you trust.

    Raises:
        ValueError: the policy's spaces are not the game's observations and actions.
    """

    def __init__(
        self,
        model: Any,
        deterministic: bool = True,
        device: str = "cpu",
        name: str | None = None,
        algo: str = "maskable_ppo",
        game: str | Game | None = None,
    ) -> None:
        g = get_game(game)
        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            model = _load(path, device, algo)
            name = name or os.path.basename(path)
        policy = getattr(model, "policy", model)
        if not hasattr(policy, "get_distribution"):
            raise TypeError(
                "MaskablePPOBot needs a path, a stable-baselines3 model or an ActorCriticPolicy, "
                f"got {type(model).__name__}"
            )
        check_policy_spaces(policy, g)
        self.game = g.name
        self.obs_dim, self.num_actions = g.obs_dim, g.num_actions
        self.policy = policy
        self.deterministic = bool(deterministic)
        self.name = name or "model"

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        deterministic: bool = True,
        device: str = "cpu",
        algo: str = "maskable_ppo",
        game: str | Game | None = None,
    ) -> MaskablePPOBot:
        """A bot playing the model saved at `path`; `deterministic`, `device`, `algo` and
        `game` as for the class (trusted files only: loading runs code stored in the
        file)."""
        return cls(path, deterministic=deterministic, device=device, algo=algo, game=game)

    @classmethod
    def frozen_copy(
        cls,
        model: Any,
        deterministic: bool = False,
        name: str | None = None,
        game: str | Game | None = None,
    ) -> MaskablePPOBot:
        """A bot playing a snapshot of `model`'s current policy (unaffected by later
        training); `deterministic`, `name` and `game` as for the class.

        The snapshot is a new policy of the same class and constructor arguments
        with a copy of the weights (`copy.deepcopy` of a policy that has just
        trained fails on the autograd tensors it still holds).
        """
        src = getattr(model, "policy", model)
        if not hasattr(src, "_get_constructor_parameters"):
            raise TypeError(
                f"frozen_copy needs a stable-baselines3 model or policy, got {type(model).__name__}"
            )
        policy = type(src)(**src._get_constructor_parameters())
        policy.load_state_dict(copy.deepcopy(src.state_dict()))
        policy.to(src.device)
        policy.set_training_mode(False)
        return cls(policy, deterministic=deterministic, name=name or "frozen", game=game)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(b, A) float32 unmasked log-probabilities of the policy for (b, obs_dim)
        `observations`."""
        import torch

        obs = np.asarray(observations, dtype=np.float32)
        self.policy.set_training_mode(False)
        with torch.no_grad():
            t = torch.as_tensor(obs, device=self.policy.device)
            dist = self.policy.get_distribution(t)
            logits = dist.distribution.logits
        return logits.cpu().numpy().astype(np.float32, copy=False)

    def __repr__(self) -> str:
        return f"MaskablePPOBot({self.name!r}, deterministic={self.deterministic})"


def _load(path: str, device: str, algo: str) -> Any:
    if algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, device=device)
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO.load(path, device=device)
    raise ValueError(f"algo must be 'maskable_ppo' or 'ppo', got {algo!r}")
