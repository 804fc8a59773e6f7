"""Single-agent Gymnasium env: one learner seat, the other seats played by bots.

```python
import gymnasium as gym
import kanaloa_env  # registers kanaloa_env/Kanaloa-v0

env = gym.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random")
obs, info = env.reset(seed=0)
mask = env.unwrapped.action_masks()            # or info["action_mask"]
obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
```

It is the vector driver (`VectorDriver`) at N = 1 without auto-reset, not a
second implementation. Observation: `Box(-3, 3, (OBS_DIM,), float32)` (the
learner's view, `kanaloa_env.core.observe`); action: `Discrete(66)` (DESIGN.md
table); `action_masks()` for sb3-contrib's MaskablePPO and `info["action_mask"]`
((66,) bool). Reward: the learner's reward (R10) accumulated since its previous
decision, a Python float; flags are Python bools; every array is new.

Illegal actions. Generic checkers and unmasked agents send illegal actions, so by
default (`illegal_action="lose"`, as PettingZoo's classic envs do) an illegal
or out-of-range action ends the game at once: `terminated=True`, reward
`illegal_reward` (-1), `info["illegal_action"] = True`, the state left as it
was. `"raise"` raises ValueError instead; `"random"` plays a random legal
action in its place (with `info["illegal_action"] = True`).

Seeding: every random choice (deal, learner seat, bots) comes from the seed
given to `reset`; `reset(seed=s)` starts game 0 of the stream `s`, later
`reset()` calls play games 1, 2, ... of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..core import Config
from ..core.kanaloa.state import State
from ..render import RENDER_MODES, render_frame
from .vector import OpponentSpec, VectorDriver, action_space, observation_space

_MAX_SEED = 2**63 - 1


class KanaloaEnv(gym.Env):
    """Kanaloa for one learner against bots (the entry point of `kanaloa_env/Kanaloa-v0`).

    Args:
        num_players: players at the table, 3..5 (R1.4); must agree with `config`.
        opponents: one spec for every other seat or a sequence (see
            `VectorDriver`): a bot object, a callable `act(obs, masks, rng)`, or
            `"random"`/`"heuristic"`.
        config: a `kanaloa_env.core.Config` or a dict of its fields.
        opponent_sampling: `"seat"` or `"random"` (see `VectorDriver`).
        learner_seat: `"rotate"` (default), `"random"` or a fixed seat.
        illegal_action: `"lose"` (default), `"raise"` or `"random"` (module docstring).
        illegal_reward: reward for a game lost by an illegal action.
        progress_shaping: potential-based shaping weight (default 0: rewards are R10);
            see `VectorDriver`.
        render_mode: None, `"human"` (prints the text table at every reset and
            step), `"ansi"` (`render()` returns that table, with ANSI colours) or
            `"rgb_array"` (`render()` returns an (H, W, 3) uint8 picture), as the
            AEC env; each shows the table with the hand of the player to act.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        num_players: int | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        config: Config | Mapping[str, Any] | None = None,
        *,
        opponent_sampling: str = "seat",
        learner_seat: str | int = "rotate",
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        progress_shaping: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.driver = VectorDriver(
            1,
            config,
            num_players=num_players,
            opponents=opponents,
            opponent_sampling=opponent_sampling,
            learner_seat=learner_seat,
            autoreset=False,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            progress_shaping=progress_shaping,
        )
        self.config = self.driver.config
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game.

        Args:
            seed: seeds the game stream (None: the next game of the current
                stream; at the very first reset, a stream drawn by Gymnasium's
                `np_random`, itself random unless seeded).
            options: none are supported; any given are ignored with a warning.

        Returns:
            The (OBS_DIM,) float32 observation and an info dict with
            `action_mask` and `learner_seat`.
        """
        if options:
            warnings.warn(f"kanaloa_env: ignoring reset options {sorted(options)}", stacklevel=2)
        super().reset(seed=seed)
        if seed is None and not self._started:
            seed = int(self.np_random.integers(0, _MAX_SEED))
        obs = self.driver.reset(seed=seed)
        self._started = True
        if self.render_mode == "human":
            self.render()
        return obs[0], self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's `action`, then the bots until the learner's next decision.

        Returns:
            observation (OBS_DIM,) float32, reward (float), terminated (bool),
            truncated (bool), info (`action_mask`, `learner_seat`; at the end also
            `winner`, `is_success`, `illegal_action`).

        Raises:
            RuntimeError: the game is over (call `reset`) or never started.
            TypeError: the action is not an integer.
            ValueError: an illegal action with `illegal_action="raise"`.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.driver.game_over[0]:
            raise RuntimeError("the game is over; call reset() to start a new one")
        a = np.asarray(action)
        if a.size != 1:
            raise ValueError(f"action must be one integer, got shape {a.shape}")
        r = self.driver.step(a.reshape(1))
        info = self._info()
        info["illegal_action"] = bool(r.replaced[0])
        if len(r.ended):
            info.update(
                winner=int(r.winner[0]),
                is_success=bool(r.won[0]),
                illegal_action=bool(r.illegal[0] or r.replaced[0]),
                episode_return=float(r.episode_return[0]),
                episode_length=int(r.episode_length[0]),
            )
            obs = r.final_obs[0]
        else:
            obs = r.obs[0]
        if self.render_mode == "human":
            self.render()
        return obs, float(r.rewards[0]), bool(r.terminated[0]), bool(r.truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """(66,) bool copy: the learner's legal actions (all False once the game is over)."""
        return self.driver.action_masks()[0]

    @property
    def state(self) -> State:
        """A copy of the batch-1 core state (e.g. for `kanaloa_env.core.to_scenario`)."""
        return self.driver.state

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current game."""
        return int(self.driver.learner_seats[0])

    def render(self) -> str | np.ndarray | None:
        """Draw the game per `render_mode` (see the class docstring); None for "human"
        (which has printed it) and for no render mode.

        Raises:
            RuntimeError: before the first `reset()`.
        """
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if not self._started:
            raise RuntimeError("call reset() before render()")
        return render_frame(self.driver.state, 0, self.render_mode)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "learner_seat": self.learner_seat}
