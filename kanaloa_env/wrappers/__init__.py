"""Learning environments over the engines: one learner seat, opponents played by bots, any game.

- `VectorDriver` (vector.py): N games, batched opponents, auto-reset; the only
  code that steps opponents.
- `SB3VecEnv` (sb3.py): the driver as a stable-baselines3 `VecEnv`
  (imported on first use: needs the `train` extra).
- `GymVectorEnv` (gym_vector.py): the driver as a Gymnasium vector env,
  `gymnasium.make_vec("kanaloa_env/Kanaloa-v0", num_envs=N, vectorization_mode="vector_entry_point")`.
- `SingleAgentEnv` (single.py): the driver at N = 1 as a Gymnasium env,
  `gymnasium.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random")`.

Each takes `game="kanaloa"` (default) or another game's name (the ids
`kanaloa_env/Kahuna-v0` set it). Win rates of a trained policy:
`kanaloa_env.evaluation.evaluate`.
"""

from typing import Any

from .gym_vector import GymVectorEnv
from .single import SingleAgentEnv
from .vector import StepResult, VectorDriver, action_space, observation_space

__all__ = [
    "GymVectorEnv",
    "SB3VecEnv",
    "SingleAgentEnv",
    "StepResult",
    "VectorDriver",
    "action_space",
    "observation_space",
]


def __getattr__(name: str) -> Any:
    if name != "SB3VecEnv":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # stable-baselines3 is an optional dependency (the `train` extra): imported on use.
    from .sb3 import SB3VecEnv

    return SB3VecEnv
