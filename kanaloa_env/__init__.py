"""kanaloa_env: reinforcement-learning environments for Kanaloa and Kahuna.

The rules of each game live in one batched engine (`kanaloa_env.core.<game>`: numpy arrays,
per-game kernels compiled with numba);
every interface is a thin view over it, written once for all games through the
game protocol (`kanaloa_env.games`).

- `kanaloa_env.env(game="kanaloa"|"kahuna", ...)` / `raw_env(...)`: PettingZoo AEC
  envs, also `pettingzoo.make("aec", "kanaloa_env/kanaloa-v0")` and
  `"kanaloa_env/kahuna-v0"`.
- `gymnasium.make("kanaloa_env/Kanaloa-v0", opponents="random")` and
  `"kanaloa_env/Kahuna-v0"` (with `gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")`): one learner against bots
  (`kanaloa_env.wrappers`).
- A game from elsewhere plugs in with `kanaloa_env.games.register_game(name, game)`
  and gets both ids (docs/adding-a-game.md).
"""

__version__ = "1.0.0"

# Nothing heavy is imported here: `import kanaloa_env.core.kanaloa` runs this file first, and an
# engine must not pull in the RL frameworks. The names below are loaded on first use
# (PEP 562); the env ids reach Gymnasium's and PettingZoo's registries when those are
# imported, before or after this package (`_env_ids`).
from typing import TYPE_CHECKING, Any

from . import _env_ids

if TYPE_CHECKING:
    from .aec import env as env
    from .aec import raw_env as raw_env

__all__ = ["GYM_ENV_ID", "GYM_ENV_IDS", "__version__", "env", "raw_env"]

# Gymnasium: gymnasium.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random") and
# gymnasium.make_vec(..., num_envs=N, vectorization_mode="vector_entry_point")
# (kanaloa_env/wrappers/). PettingZoo: pettingzoo.make("aec", "kanaloa_env/kanaloa-v0").
# `GYM_ENV_IDS` maps each game to its Gymnasium id, a game registered later
# (`kanaloa_env.games.register_game`) included.
GYM_ENV_ID = "kanaloa_env/Kanaloa-v0"

_LAZY = {"env": "aec", "raw_env": "aec"}
_SUBPACKAGES = frozenset(
    {
        "aec",
        "arena",
        "bots",
        "cli",
        "core",
        "drawing",
        "evaluation",
        "games",
        "play",
        "records",
        "render",
        "replay",
        "testing",
        "training",
        "wrappers",
    }
)

_env_ids.install()


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name == "GYM_ENV_IDS":
        _env_ids.watch_games()
        return _env_ids.GYM_ENV_IDS
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "GYM_ENV_IDS", *_SUBPACKAGES})
