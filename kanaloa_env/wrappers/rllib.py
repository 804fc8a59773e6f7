"""Ray RLlib: a multi-agent env (new API stack) for self-play, and a trained module as a bot.

```python
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from kanaloa_env.wrappers.rllib import SHARED_MODULE, RLlibEnv

config = (
    PPOConfig()
    .environment(RLlibEnv, env_config={"num_players": 4})       # options of kanaloa_env.raw_env
    .multi_agent(policies={SHARED_MODULE}, policy_mapping_fn=lambda agent, episode, **kw: SHARED_MODULE)
    .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
        SHARED_MODULE: RLModuleSpec(module_class=ActionMaskingTorchRLModule)}))
)
```

`RLlibEnv` is RLlib's `MultiAgentEnv` over the package's PettingZoo AEC env
(`kanaloa_env.raw_env`), written against the AEC API only (`possible_agents`, the
spaces, `reset`, `observe`, `step`, `agent_selection`, `rewards`, `terminations`,
`truncations`), so every game of the package works through it: the keys of RLlib's
`env_config` other than this wrapper's own (`illegal_action`, `illegal_reward`) go to
`raw_env` unchanged (`num_players`, `reward`, `max_rounds`, ..., and `game` once
`raw_env` takes it).

**Observations.** `{"observations": Box (obs_dim,) float32, "action_mask":
Box(0, 1, (num_actions,), float32)}`, the keys and dtypes RLlib's
`ActionMaskingTorchRLModule` reads (it feeds `"observations"` to its networks and adds
`log(action_mask)`, clamped, to the logits). The game is turn-based: `reset` and every
`step` return an observation for the agent to act only; the same agent may act
twice in a row (Kanaloa: after an octopus, or a trick winner deciding on the
dolphin and then leading). When the game ends, every agent gets its final
observation (RLlib needs one for each agent's value bootstrap on truncation); no one
acts on it, so its mask is all ones (DESIGN.md: a policy is never handed an all-zero
mask row, which would make masked logits all minus infinity).

**Rewards.** Every step pays the agent that acted (RLlib rejects a step in which an
agent acted and got its next observation without a reward), plus any other agent
whose reward is nonzero; the step that ends the game pays every agent its final
reward (Kanaloa's R10 `win_loss`: +1 to the winner, -1/(P-1) to each other player).
RLlib adds the rewards an agent gets while it waits to its previous action.

**Episode end.** A won game sets `terminateds["__all__"]`; a game stopped by
`max_rounds` sets `truncateds["__all__"]`. The env then needs `reset()`.

**Illegal actions** (`illegal_action`, as in the package's Gymnasium envs). RLlib's
environment pre-check steps the env once with an action sampled from the unmasked
action space, and unmasked policies send illegal actions too, so the default is
`"lose"` (as PettingZoo's classic envs and the single-agent env): the game ends at
once (terminated) with `illegal_reward` (-1) for the mover and 0 for everyone else,
the game itself left as it was, and the mover's info `{"illegal_action": True}`.
`"random"` plays a uniformly random legal action instead (drawn from the env's
`np_random`, seeded by `reset(seed=...)`) with the same info entry; `"raise"`
raises `ValueError` and changes nothing. An integer outside the action space counts
as illegal; a non-integer action is a `TypeError` in every mode.

**Seeding.** `reset(seed=s)` starts game 0 of the stream `s` (as the AEC env) and
reseeds `np_random`; later `reset()` calls continue both streams, so an RLlib run
with `.debugging(seed=...)` plays the same games.

`RLlibModuleBot` wraps a trained RLlib module (or a checkpoint of one) as a bot of
the package (`act(observations, masks, rng) -> actions`) for the arena and
`kanaloa_env.evaluation.evaluate`: greedy masked arg-max, or masked sampling.

Needs `ray[rllib]` and torch: `pip install -e ".[rllib]"` (docs/integrations-rllib.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .. import raw_env
from ..bots.model import choose_actions

__all__ = ["ILLEGAL_ACTION_MODES", "SHARED_MODULE", "RLlibEnv", "RLlibModuleBot"]

#: What an illegal action does (module docstring); the first is the default.
ILLEGAL_ACTION_MODES = ("lose", "random", "raise")
#: The module id under which the example trains one policy shared by every seat.
SHARED_MODULE = "shared"
# What `step` returns: observations, rewards, terminateds, truncateds, infos by agent id.
StepReturn = tuple[
    dict[str, dict[str, np.ndarray]],
    dict[str, float],
    dict[str, bool],
    dict[str, bool],
    dict[str, dict[str, Any]],
]


def _as_action(agent: str, action: object) -> int:
    """The action as a Python int, or a TypeError naming the agent and what it sent."""
    if isinstance(action, (bool, np.bool_)):
        a: Any = None
    elif isinstance(action, (int, np.integer)):
        a = int(action)
    elif (
        isinstance(action, np.ndarray)
        and action.size == 1
        and np.issubdtype(action.dtype, np.integer)
    ):
        a = int(action.reshape(()))
    else:
        a = None
    if a is None:
        raise TypeError(f"{agent}'s action must be an integer, got {action!r}")
    return a


class RLlibEnv(MultiAgentEnv):
    """An AEC game of the package as an RLlib `MultiAgentEnv` (see the module docstring).

    Args:
        config: RLlib's `env_config` (a dict, or RLlib's `EnvContext`): the
            wrapper's own keys `illegal_action` (`"lose"`, `"random"` or `"raise"`)
            and `illegal_reward` (float, the mover's reward under `"lose"`); every
            other key is a keyword argument of `kanaloa_env.raw_env`.

    Raises:
        TypeError: `config` is not a mapping, or `raw_env` rejects a key.
        ValueError: a bad `illegal_action` or `illegal_reward`, or a bad option
            value (`raw_env`'s message).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is None:
            config = {}
        if not isinstance(config, Mapping):
            raise TypeError(f"env_config must be a dict (or None), got {type(config).__name__}")
        options = dict(config)
        mode = options.pop("illegal_action", ILLEGAL_ACTION_MODES[0])
        if mode not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {mode!r}")
        penalty = options.pop("illegal_reward", -1.0)
        if isinstance(penalty, bool) or not isinstance(
            penalty, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"illegal_reward must be a number, got {penalty!r}")
        if not np.isfinite(penalty):
            raise ValueError(f"illegal_reward must be finite, got {penalty!r}")
        self.illegal_action: str = mode
        self.illegal_reward = float(penalty)

        self.aec = raw_env(**options)
        self.render_mode = getattr(self.aec, "render_mode", None)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {}
        self.action_spaces = {}
        for agent in self.possible_agents:
            inner = self.aec.observation_space(agent)["observation"]
            space = self.aec.action_space(agent)
            if not isinstance(space, gym.spaces.Discrete):
                raise TypeError(f"{agent}'s action space must be Discrete, got {space}")
            self.observation_spaces[agent] = gym.spaces.Dict(
                {
                    "observations": inner,
                    "action_mask": gym.spaces.Box(0.0, 1.0, (int(space.n),), np.float32),
                }
            )
            self.action_spaces[agent] = space
        self._over = True  # no game until the first reset
        self._mover_mask: np.ndarray | None = None  # (num_actions,) float32

    # ---- reset, step ----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Start a new game; the observation of the agent to act.

        Args:
            seed: 0..2**64-1 starts game 0 of that stream and reseeds `np_random`;
                None continues both streams.
            options: passed to the AEC env's `reset` (`{"scenario": sc}` starts
                from a position).

        Returns:
            ({agent: observation}, {agent: {}}) for the one agent to act.
        """
        self.aec.reset(seed=seed, options=options)  # checks the seed, names what is wrong
        super().reset(seed=seed)  # gymnasium: reseeds np_random when a seed is given
        self.agents = list(self.possible_agents)
        if self._game_over():  # a scenario may start from a finished game
            raise ValueError("reset options: the scenario's game is already over")
        self._over = False
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: Mapping[str, Any]) -> StepReturn:
        """Apply the action of the agent to act.

        Args:
            action_dict: `{agent: action}` with exactly the agent whose observation
                the previous `reset`/`step` returned.

        Returns:
            observations, rewards, terminateds, truncateds, infos: RLlib's
            multi-agent dicts (module docstring); the flags carry `"__all__"`.

        Raises:
            RuntimeError: no game is running (before `reset`, or after the end).
            TypeError: the action is not an integer.
            ValueError: the dict names another agent or misses the agent to act;
                an illegal action with `illegal_action="raise"`.
        """
        if self._over:
            raise RuntimeError("RLlibEnv: the game is over (or not started); call reset()")
        agent = self.aec.agent_selection
        if not isinstance(action_dict, Mapping) or set(action_dict) != {agent}:
            got = list(action_dict) if isinstance(action_dict, Mapping) else action_dict
            raise ValueError(f"step expects an action for {agent!r} (to act now) only, got {got!r}")
        action = _as_action(agent, action_dict[agent])
        mask = self._mover_mask
        assert mask is not None  # set by the observation that asked for this action
        info: dict[str, Any] = {}
        if not (0 <= action < len(mask) and mask[action]):
            if self.illegal_action == "raise":
                raise ValueError(
                    f"{agent} cannot take action {action} now; legal: "
                    f"{np.flatnonzero(mask).tolist()} "
                    "(or create the env with illegal_action='lose'|'random')"
                )
            info["illegal_action"] = True
            if self.illegal_action == "lose":
                return self._forfeit(agent, info)
            legal = np.flatnonzero(mask)
            action = int(legal[self.np_random.integers(len(legal))])
        self.aec.step(action)
        rewards = {a: float(r) for a, r in self.aec.rewards.items() if r != 0.0}
        rewards.setdefault(agent, 0.0)
        if self._game_over():
            return self._finish(rewards, {agent: info})
        nxt = self.aec.agent_selection
        infos: dict[str, dict[str, Any]] = {nxt: {}}
        if info:
            infos[agent] = info
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, infos

    # ---- internals --------------------------------------------------------------------

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent-to-act's observation in RLlib's masking layout; remembers its mask."""
        view = self.aec.observe(agent)
        mask = np.asarray(view["action_mask"], dtype=np.float32)
        self._mover_mask = mask
        return {"observations": view["observation"], "action_mask": mask.copy()}

    def _game_over(self) -> bool:
        t, u = self.aec.terminations, self.aec.truncations
        return all(t[a] or u[a] for a in self.possible_agents)

    def _final_observations(self) -> dict[str, dict[str, np.ndarray]]:
        out = {}
        for agent in self.possible_agents:
            view = self.aec.observe(agent)
            out[agent] = {
                "observations": view["observation"],
                "action_mask": np.ones(int(self.action_spaces[agent].n), dtype=np.float32),
            }
        return out

    def _finish(
        self,
        rewards: dict[str, float],
        infos: dict[str, dict[str, Any]],
        terminated: bool | None = None,
    ) -> StepReturn:
        """The returns of the step that ends the game: every agent observes and is paid."""
        self._over = True
        if terminated is None:
            terminated = any(self.aec.terminations[a] for a in self.possible_agents)
        for a in self.possible_agents:
            rewards.setdefault(a, 0.0)
            infos.setdefault(a, {})
        return (
            self._final_observations(),
            rewards,
            {"__all__": terminated},
            {"__all__": not terminated},
            infos,
        )

    def _forfeit(self, agent: str, info: dict[str, Any]) -> StepReturn:
        """`illegal_action="lose"`: the game ends here, the AEC game left as it was."""
        return self._finish({agent: self.illegal_reward}, {agent: info}, terminated=True)

    def render(self) -> Any:
        """The AEC env's `render()` (per the `render_mode` given in `env_config`)."""
        return self.aec.render()

    def close(self) -> None:
        """Close the AEC env."""
        self.aec.close()


class RLlibModuleBot:
    """A trained RLlib module as a bot of the package (arena, `evaluate`, opponents).

    `act(observations, masks, rng)` takes (b, obs_dim) float32 observations and (b,
    num_actions) bool masks and returns (b,) int64 actions: the arg-max of the
    module's masked action logits (`deterministic=True`), or a sample from them
    (Gumbel-max with the given `rng`, so a seeded caller gets reproducible play).
    The module gets the batch in `RLlibEnv`'s layout (`{"observations": (b, obs_dim),
    "action_mask": (b, num_actions) float32}`), as RLlib's `ActionMaskingTorchRLModule`
    reads it; the bot masks the logits again itself, so a module that ignores the
    mask still plays only legal actions.

    Args:
        module: an RLlib `RLModule` whose `forward_inference` returns
            `action_dist_inputs` (logits) of shape (b, num_actions).
        deterministic: greedy (True) or sampled play.
        name: the bot's name in tables.
    """

    uses_state = False

    def __init__(
        self,
        module: Any,
        deterministic: bool = True,
        name: str = "rllib",
    ) -> None:
        if not callable(getattr(module, "forward_inference", None)):
            raise TypeError(
                f"module must be an RLlib RLModule (with forward_inference), got {type(module)}"
            )
        self.module = module
        self.deterministic = bool(deterministic)
        self.name = name

    @classmethod
    def from_checkpoint(
        cls,
        path: str | os.PathLike[str],
        module_id: str = SHARED_MODULE,
        deterministic: bool = True,
        name: str | None = None,
    ) -> RLlibModuleBot:
        """Load a bot from a checkpoint (no Ray cluster needed).

        Args:
            path: an algorithm checkpoint (`Algorithm.save_to_path`; the module is
                read from `learner_group/learner/rl_module/<module_id>`) or the
                directory of one module's checkpoint.
            module_id: the module to load from an algorithm checkpoint.
            deterministic: greedy (True) or sampled play.
            name: the bot's name (default: `rllib:<module_id>`).

        Raises:
            ValueError: the path does not exist or holds no such module.
        """
        from ray.rllib.core.rl_module.rl_module import RLModule

        root = Path(os.fspath(path)).expanduser().resolve()
        if not root.is_dir():
            raise ValueError(f"RLlib checkpoint {str(root)!r} does not exist (or is not a folder)")
        candidates = [root / "learner_group" / "learner" / "rl_module" / module_id, root]
        for cand in candidates:
            if (cand / "class_and_ctor_args.pkl").is_file() and any(cand.glob("module_state*")):
                module = RLModule.from_checkpoint(str(cand))
                return cls(module, deterministic=deterministic, name=name or f"rllib:{module_id}")
        raise ValueError(
            f"no RLlib module {module_id!r} under {str(root)!r}: expected an algorithm "
            f"checkpoint (learner_group/learner/rl_module/{module_id}) or a module checkpoint"
        )

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(b, num_actions) float32 logits of the module for (b, obs_dim) `observations`,
        masked by (b, num_actions) bool `masks`: illegal actions at minus infinity.

        Raises:
            ValueError: shapes that disagree, or a mask row with no legal action.
        """
        import torch
        from ray.rllib.core.columns import Columns

        obs = np.asarray(observations, dtype=np.float32)
        m = np.asarray(masks, dtype=bool)
        if m.ndim != 2 or obs.ndim != 2 or len(obs) != len(m):
            raise ValueError(
                f"observations (b, obs_dim) and masks (b, num_actions) must be 2-D with the same "
                f"b, got {obs.shape} and {m.shape}"
            )
        if len(m) and not m.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        batch_obs = {
            "observations": torch.from_numpy(np.ascontiguousarray(obs)),
            "action_mask": torch.from_numpy(m.astype(np.float32)),
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: batch_obs})
        logits = out[Columns.ACTION_DIST_INPUTS].detach().cpu().numpy().astype(np.float32)
        if logits.shape != m.shape:
            raise ValueError(
                f"the module returned logits of shape {logits.shape}, expected {m.shape}"
            )
        return np.where(m, logits, -np.inf).astype(np.float32)

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for (b, obs_dim) `observations` and (b, A) bool `masks`:
        the module's greedy arg-max (`rng` and `kwargs` are not read)."""
        logits = self.logits(observations, masks)
        draw = None if self.deterministic else rng
        return choose_actions(logits, np.asarray(masks, dtype=bool), draw, noise="gumbel")

    def __repr__(self) -> str:
        mode = "greedy" if self.deterministic else "sampled"
        return f"RLlibModuleBot({self.name!r}, {mode})"
