"""The vector driver as a Gymnasium `VectorEnv` (the `vector_entry_point` of Kanaloa-v0 and
Kahuna-v0).

```python
import gymnasium as gym
import kanaloa_env  # registers kanaloa_env/Kanaloa-v0 and kanaloa_env/Kahuna-v0

envs = gym.make_vec("kanaloa_env/Kanaloa-v0", num_envs=256, vectorization_mode="vector_entry_point",
                    num_players=4, opponents="random")
obs, info = envs.reset(seed=0)
obs, rewards, terminations, truncations, info = envs.step(actions)   # info["action_mask"]: (N, A)
```

Auto-reset is `AutoresetMode.SAME_STEP` (`metadata["autoreset_mode"]`): when a
game ends, the step returns the first observation of its new game, and
`info["final_obs"]` (an object array, `info["_final_obs"]` marks the games)
and `info["final_info"]` (with `winner`, `learner_seat`, `is_success`,
`illegal_action`, `episode_return`, `episode_length`) hold the end of the old
one. `action_masks()` and `info["action_mask"]` give the learner masks; every
step's `info["illegal_action"]` (N,) marks the games whose learner action was
illegal (replaced by a random legal one, or the game lost, per `illegal_action`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .vector import StepResult, VectorDriver, action_space, observation_space

__all__ = ["GymVectorEnv"]


class GymVectorEnv(VectorEnv):
    """N games against opponent bots, any game, as a Gymnasium vector env.

    Args:
        num_envs: number of games `N`.
        seed: the game stream of the first `reset()` without a seed; None (the
            default) draws one from the OS, so unseeded envs play different games,
            as Gymnasium's and SB3's do. Same seed, same games.
        illegal_action: as `VectorDriver`, default "raise".
        render_mode: only None is supported (render single games with the AEC env).
        **options: every other keyword of `kanaloa_env.wrappers.VectorDriver` (`game`,
            `config`, `num_players`, `opponents`, `opponent_sampling`,
            `learner_seat`, `illegal_reward`, `progress_shaping`, `threads`)
            and of the game's `Config`.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 64,
        *,
        seed: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector env, got {render_mode!r}")
        if "autoreset" in options:
            raise TypeError("the Gymnasium vector env always auto-resets: no 'autoreset' option")
        self.driver = VectorDriver(
            num_envs, seed=seed, autoreset=True, illegal_action=illegal_action, **options
        )
        self.num_envs = self.driver.num_envs
        self.render_mode = None
        self.single_observation_space = observation_space(self.driver.game)
        self.single_action_space = action_space(self.driver.game)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._np_random_seed: int | None = None

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start N new games.

        Args:
            seed: an int seeds the whole batch (game `k` is game `k` of that
                stream); a list must hold one int (the first element is used) or
                None entries only.
            options: none are supported (every game restarts); any given are
                ignored with a warning.

        Returns:
            (N, obs_dim) float32 observations and an info dict with `action_mask`
            (N, A) and `learner_seat` (N,).
        """
        if isinstance(seed, (list, tuple)):
            given = [s for s in seed if s is not None]
            seed = given[0] if given else None
        if options:
            warnings.warn(f"kanaloa_env: ignoring reset options {sorted(options)}", stacklevel=2)
        obs = self.driver.reset(seed=seed)  # checks the seed
        super().reset(seed=seed)  # seeds `np_random` (the games have their own streams)
        return obs, self._base_info()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply (N,) learner actions; see the module docstring for auto-reset and infos."""
        r = self.driver.step(np.asarray(actions))
        return (
            r.obs,
            r.rewards.astype(np.float64),
            r.terminated,
            r.truncated,
            self._infos(r),
        )

    def action_masks(self) -> np.ndarray:
        """(N, A) bool copy of the learner masks."""
        return self.driver.action_masks()

    def set_opponents(self, opponents: Any, opponent_sampling: str | None = None) -> None:
        """Replace the opponents with `opponents`, drawn by `opponent_sampling` from a pool
        (see `VectorDriver.set_opponents`)."""
        self.driver.set_opponents(opponents, opponent_sampling)

    def _base_info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)  # Gymnasium's "_key" masks: all games
        return {
            "action_mask": self.driver.action_masks(),
            "_action_mask": every,
            "learner_seat": self.driver.learner_seats,
            "_learner_seat": every.copy(),
        }

    def _infos(self, r: StepResult) -> dict[str, Any]:
        info = self._base_info()
        N = self.num_envs
        e = r.ended
        illegal = r.replaced.copy()  # replaced by a random legal action, or ...
        illegal[e] |= r.illegal  # ... the game was lost for it
        info["illegal_action"] = illegal
        info["_illegal_action"] = np.ones(N, dtype=bool)
        if len(e) == 0:
            return info
        has = np.zeros(N, dtype=bool)
        has[e] = True
        final_obs = np.full(N, None, dtype=object)
        for j, i in enumerate(e.tolist()):
            final_obs[i] = r.final_obs[j]

        def full(values: np.ndarray, dtype: Any) -> np.ndarray:
            out = np.zeros(N, dtype=dtype)
            out[e] = values
            return out

        final_info: dict[str, Any] = {
            "winner": full(r.winner, np.int8),
            "_winner": has.copy(),
            "learner_seat": full(r.learner_seat, np.int8),
            "_learner_seat": has.copy(),
            "is_success": full(r.won, bool),
            "_is_success": has.copy(),
            "illegal_action": full(r.illegal, bool),
            "_illegal_action": has.copy(),
            "episode_return": full(r.episode_return, np.float32),
            "_episode_return": has.copy(),
            "episode_length": full(r.episode_length, np.int64),
            "_episode_length": has.copy(),
        }
        info.update(
            {
                "final_obs": final_obs,
                "_final_obs": has.copy(),
                "final_info": final_info,
                "_final_info": has,
            }
        )
        return info
