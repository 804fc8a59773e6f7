"""kanaloa_env: reinforcement-learning environments for the trick-taking game Kanaloa.

The rules live in one batched numpy engine (`kanaloa_env.core`); every interface
is a thin view over it.
"""

__version__ = "0.1.0"

# PettingZoo AEC env (kanaloa_env/env.py), also in PettingZoo's registry:
# pettingzoo.make("aec", "kanaloa_env/kanaloa-v0", num_players=4) after `import kanaloa_env`.
# Imported eagerly: importing the submodule binds `kanaloa_env.env` to the module, and
# the line below rebinds it to the function before anyone can see the module there.
import pettingzoo as _pettingzoo  # noqa: E402

from .env import ENV_ID as _AEC_ENV_ID  # noqa: E402
from .env import env as env  # noqa: E402
from .env import raw_env as raw_env  # noqa: E402

if _AEC_ENV_ID not in _pettingzoo.aec_registry:
    _pettingzoo.register("aec", _AEC_ENV_ID, entry_point="kanaloa_env.env:env")

# Gymnasium: gymnasium.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random") and
# gymnasium.make_vec(..., num_envs=N, vectorization_mode="vector_entry_point") (kanaloa_env/wrappers/).
import gymnasium as _gymnasium  # noqa: E402

GYM_ENV_ID = "kanaloa_env/Kanaloa-v0"
if GYM_ENV_ID not in _gymnasium.registry:
    _gymnasium.register(
        id=GYM_ENV_ID,
        entry_point="kanaloa_env.wrappers.single:KanaloaEnv",
        vector_entry_point="kanaloa_env.wrappers.gym_vector:KanaloaGymVectorEnv",
    )
