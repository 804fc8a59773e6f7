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
