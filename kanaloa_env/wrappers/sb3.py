"""The vector driver as a stable-baselines3 `VecEnv` (no subprocesses, no per-game envs).

```python
from sb3_contrib import MaskablePPO
from kanaloa_env.wrappers.sb3 import SB3VecEnv

env = SB3VecEnv(num_envs=128, num_players=4, opponents="random", seed=0)
model = MaskablePPO("MlpPolicy", env, seed=0).learn(100_000)
```

sb3-contrib's `MaskablePPO`, `get_action_masks`, `MaskableEvalCallback` and
`evaluate_policy` find the masks through `has_attr("action_masks")` and
`env_method("action_masks")`, which return one (A,) bool row per game. A game
that ends is auto-reset in the same step, SB3 style: `done` is True, the
returned observation is the new game's, `info["terminal_observation"]` is the
final one, `info["TimeLimit.truncated"]` says whether it was truncated,
`info["is_success"]` whether the learner won (logged by the eval callbacks) and
`info["episode"]` holds the return `r` and length `l` (as SB3's Monitor writes,
so `env_is_wrapped(Monitor)` is True and no `VecMonitor` is needed: SB3 logs
`ep_rew_mean` and `evaluate_policy` counts episodes from it).
`info["illegal_action"]` is True where the learner's action was illegal (with
`illegal_action="random"` a random legal one was played; with `"lose"` the game
ended). Every returned array is new.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from .vector import StepResult, VectorDriver, action_space, observation_space

__all__ = ["SB3VecEnv"]

_PER_ENV_ATTRS = ("learner_seat",)


def _is_driver_option(driver: VectorDriver, name: str) -> bool:
    """A public attribute of the driver (its game options), not a method."""
    return (
        not name.startswith("_") and hasattr(driver, name) and not callable(getattr(driver, name))
    )


class SB3VecEnv(VecEnv):
    """N games against opponent bots, any game, as an SB3 `VecEnv`.

    Args:
        num_envs: number of games `N`.
        seed: the game stream of the first `reset()` without a seed; None (the
            default) draws one from the OS, so unseeded envs play different games,
            as Gymnasium's and SB3's do. Same seed, same games.
        illegal_action: as `VectorDriver`, here default "raise": with MaskablePPO an
            illegal action is a bug; use "lose" to train an unmasked PPO.
        driver: an existing `VectorDriver` (with autoreset) to wrap instead.
        **options: every other keyword of `kanaloa_env.wrappers.VectorDriver` (`game`,
            `config`, `num_players`, `opponents`, `opponent_sampling`,
            `learner_seat`, `illegal_reward`, `progress_shaping`, `threads`)
            and of the game's `Config`.

    The seed of `reset()` is the one given to `seed(s)` (SB3's `set_random_seed`
    calls it) if any, else the driver's stream continues.
    """

    def __init__(
        self,
        num_envs: int = 64,
        *,
        seed: int | None = None,
        illegal_action: str = "raise",
        driver: VectorDriver | None = None,
        **options: Any,
    ) -> None:
        if driver is None:
            if "autoreset" in options:
                raise TypeError("the SB3 VecEnv always auto-resets: no 'autoreset' option")
            driver = VectorDriver(
                num_envs, seed=seed, autoreset=True, illegal_action=illegal_action, **options
            )
        elif not isinstance(driver, VectorDriver) or not driver.autoreset:
            raise ValueError("driver must be a VectorDriver with autoreset=True")
        elif options:
            raise ValueError(f"with driver=..., pass no driver options (got {sorted(options)})")
        self.driver = driver
        self.render_mode = None
        self._actions: np.ndarray | None = None
        self._t0 = time.time()
        super().__init__(driver.num_envs, observation_space(driver.game), action_space(driver.game))

    # ---- the VecEnv contract --------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start N new games; (N, obs_dim) float32 observations."""
        seed = self._seeds[0]
        obs = self.driver.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        seats = self.driver.learner_seats
        self.reset_infos = [{"learner_seat": int(s)} for s in seats]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep `actions`, (N,) one per game, for `step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game with the actions of `step_async`: (N, obs_dim) observations,
        (N,) rewards, (N,) dones and N infos; finished games restart."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        r = self.driver.step(actions.reshape(-1) if actions.ndim == 2 else actions)
        if len(r.ended):  # auto-reset games: their new game's reset info, as DummyVecEnv
            seats = self.driver.learner_seats
            for i in r.ended.tolist():
                self.reset_infos[i] = {"learner_seat": int(seats[i])}
        return r.obs, r.rewards, r.dones, self._infos(r)

    def _infos(self, r: StepResult) -> list[dict[str, Any]]:
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        elapsed = round(time.time() - self._t0, 6)
        for j, i in enumerate(r.ended.tolist()):
            infos[i] = {
                "terminal_observation": r.final_obs[j],
                "TimeLimit.truncated": bool(r.truncated[i]),
                "is_success": bool(r.winner[j] == r.learner_seat[j]),
                "winner": int(r.winner[j]),
                "learner_seat": int(r.learner_seat[j]),
                "illegal_action": bool(r.illegal[j]),
                "episode": {
                    "r": float(r.episode_return[j]),
                    "l": int(r.episode_length[j]),
                    "t": elapsed,
                },
            }
        for i in r.replaced.nonzero()[0].tolist():  # illegal_action="random" played for it
            infos[i]["illegal_action"] = True
        return infos

    def close(self) -> None:
        """Nothing to release (no subprocesses)."""

    def action_masks(self) -> np.ndarray:
        """(N, A) bool copy of the learner masks (sb3-contrib calls `env_method`)."""
        return self.driver.action_masks()

    def set_opponents(self, opponents: Any, opponent_sampling: str | None = None) -> None:
        """Replace the opponents with `opponents`, e.g. a self-play pool drawn by
        `opponent_sampling` (see `VectorDriver.set_opponents`)."""
        self.driver.set_opponents(opponents, opponent_sampling)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The values of `attr_name` for the games of `indices`: per game for
        `learner_seat`; any other attribute of this object, or else a game option of its
        driver (`illegal_action`, `config`, ...), repeated."""
        idx = list(self._get_indices(indices))
        if attr_name == "learner_seat":
            seats = self.driver.learner_seats
            return [int(seats[i]) for i in idx]
        if hasattr(self, attr_name):
            value = getattr(self, attr_name)
        elif _is_driver_option(self.driver, attr_name):
            value = getattr(self.driver, attr_name)
        else:
            raise AttributeError(f"{type(self).__name__} has no attribute {attr_name!r}")
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the attribute `attr_name` of this object to `value`; all games share it, so
        `indices` must be all."""
        idx = list(self._get_indices(indices))
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError(
                f"{type(self).__name__}.set_attr sets one shared value: indices must cover all games"
            )
        if attr_name in _PER_ENV_ATTRS or attr_name.startswith("_"):
            raise AttributeError(f"{attr_name!r} cannot be set")
        if not hasattr(self, attr_name) and _is_driver_option(self.driver, attr_name):
            # Set here it would shadow the driver's value and change nothing.
            raise AttributeError(
                f"{attr_name!r} is a game option of the driver, fixed when the env is made: "
                "make a new env with the option (opponents: use set_opponents)"
            )
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call `method_name` with `method_args` and `method_kwargs` for the games of
        `indices`: `action_masks` gives one (A,) bool row per game; other names are not
        per-game."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.driver.action_masks()
            return [masks[i] for i in idx]
        raise AttributeError(
            f"{type(self).__name__}.env_method supports 'action_masks' only, got {method_name!r}"
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """For each game of `indices` (default all): True if `wrapper_class` is SB3's
        `Monitor` (or a class it derives from), else False: no
        game is a wrapped gym.Env, but every game writes Monitor's `info["episode"]`
        itself, which is what SB3 asks this for (`evaluate_policy` then reads the
        episodes from it, without a warning)."""
        wrapped = isinstance(wrapper_class, type) and issubclass(Monitor, wrapper_class)
        return [wrapped for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """None for every game: the vector env draws no pictures."""
        return [None for _ in range(self.num_envs)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        out = list(super()._get_indices(indices))
        for i in out:
            if not 0 <= int(i) < self.num_envs:
                raise IndexError(f"env index {i} out of range 0..{self.num_envs - 1}")
        return [int(i) for i in out]
