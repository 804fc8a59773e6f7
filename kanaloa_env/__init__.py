"""kanaloa_env: reinforcement-learning environments for Kanaloa and Kahuna.

The rules of each game live in one batched numpy engine (`kanaloa_env.core`);
every interface is a thin view over it, written once for all games through the
game protocol (`kanaloa_env.games`).

- `kanaloa_env.env(game="kanaloa"|"kahuna", ...)` / `raw_env(...)`: PettingZoo AEC
  envs, also `pettingzoo.make("aec", "kanaloa_env/kanaloa-v0")` and
  `"kanaloa_env/kahuna-v0"`.
- `gymnasium.make("kanaloa_env/Kanaloa-v0", opponents="random")` and
  `"kanaloa_env/Kahuna-v0"` (with `gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")`): one learner against bots
  (`kanaloa_env.wrappers`).
"""

__version__ = "0.2.0"

# Imported eagerly: importing the submodule `aec` binds nothing named `env`, and the
# functions below are the package's public AEC entry points.
import gymnasium as _gymnasium  # noqa: E402
import pettingzoo as _pettingzoo  # noqa: E402

from .aec import env as env  # noqa: E402
from .aec import raw_env as raw_env  # noqa: E402
from .aec import registry_id as _registry_id  # noqa: E402
from .games import GAMES as _GAMES  # noqa: E402

# PettingZoo's registry exists from PettingZoo 1.27 on; older versions have none
# (`pettingzoo.make` then does not exist either), and the env works without it.
_aec_registry = getattr(_pettingzoo, "aec_registry", None)
if _aec_registry is not None:
    for _name in _GAMES:
        if _registry_id(_name) not in _aec_registry:
            _pettingzoo.register(
                "aec",
                _registry_id(_name),
                entry_point="kanaloa_env.aec:env",
                kwargs={"game": _name},
            )

# Gymnasium: gymnasium.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random") and
# gymnasium.make_vec(..., num_envs=N, vectorization_mode="vector_entry_point") (kanaloa_env/wrappers/).
GYM_ENV_ID = "kanaloa_env/Kanaloa-v0"
GYM_ENV_IDS = {name: f"kanaloa_env/{name.capitalize()}-{e.version}" for name, e in _GAMES.items()}
for _name, _id in GYM_ENV_IDS.items():
    if _id not in _gymnasium.registry:
        _gymnasium.register(
            id=_id,
            entry_point="kanaloa_env.wrappers.single:KanaloaEnv",
            vector_entry_point="kanaloa_env.wrappers.gym_vector:KanaloaGymVectorEnv",
            kwargs={"game": _name},
        )
