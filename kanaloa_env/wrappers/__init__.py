"""Learning environments over the engines: one learner seat, opponents played by bots, any game.

- `VectorDriver` (vector.py): N games, batched opponents, auto-reset; the only
  code that steps opponents.
- `KanaloaSB3VecEnv` (sb3.py): the driver as a stable-baselines3 `VecEnv`
  (imported on first use: needs the `train` extra).
- `KanaloaGymVectorEnv` (gym_vector.py): the driver as a Gymnasium vector env,
  `gymnasium.make_vec("kanaloa_env/Kanaloa-v0", num_envs=N, vectorization_mode="vector_entry_point")`.
- `KanaloaEnv` (single.py): the driver at N = 1 as a Gymnasium env,
  `gymnasium.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random")`.

Each takes `game="kanaloa"` (default) or `"kahuna"` (the ids `kanaloa_env/Kahuna-v0`
set it). Win rates of a trained policy: `kanaloa_env.evaluation.evaluate` (also
importable from here, as `kanaloa_env.wrappers.evaluate`, where it lived before).
"""

from typing import Any

from .gym_vector import KanaloaGymVectorEnv
from .single import KanaloaEnv
from .vector import StepResult, VectorDriver, action_space, observation_space

__all__ = [
    "EvalResult",
    "KanaloaEnv",
    "KanaloaGymVectorEnv",
    "KanaloaSB3VecEnv",
    "StepResult",
    "VectorDriver",
    "action_space",
    "evaluate",
    "observation_space",
]


def __getattr__(name: str) -> Any:
    # stable-baselines3 is an optional dependency (the `train` extra): import on use.
    if name == "KanaloaSB3VecEnv":
        from .sb3 import KanaloaSB3VecEnv

        return KanaloaSB3VecEnv
    # evaluation imports this package: imported on use, not at import time.
    if name in ("evaluate", "EvalResult"):
        from ..evaluation import EvalResult, evaluate

        return {"evaluate": evaluate, "EvalResult": EvalResult}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
