"""The package's env ids in Gymnasium's and PettingZoo's registries, without importing either.

`import kanaloa_env` must stay cheap (no RL framework, no engine), yet
`gymnasium.make("kanaloa_env/Kanaloa-v0")` and `pettingzoo.make("aec",
"kanaloa_env/kanaloa-v0")` must find the envs after it, in whatever order the
modules are imported. So `install()` (run by `kanaloa_env/__init__.py`) registers the
ids at once into a framework already imported, and otherwise right after the
framework's own import (a finder on `sys.meta_path` that waits for that one module
name, then leaves). Every game gets both ids: those of `kanaloa_env.games.GAMES`
when a framework loads, a game registered later (`register_game`) when it is
registered. Only the strings of the entry points are registered: the envs' modules
are imported when an env is made.
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["FRAMEWORKS", "GYM_ENV_IDS", "aec_env_id", "gym_env_id", "install", "watch_games"]

FRAMEWORKS = ("gymnasium", "pettingzoo")
# Each game's Gymnasium id, e.g. {"kanaloa": "kanaloa_env/Kanaloa-v0"} (`kanaloa_env.GYM_ENV_IDS`).
GYM_ENV_IDS: dict[str, str] = {}
_ready: set[str] = set()  # the frameworks whose registries hold our ids
_watching = False  # whether `_add_game` follows `kanaloa_env.games.register_game`


def gym_env_id(name: str, version: str) -> str:
    """A game's id in Gymnasium's registry, e.g. "kanaloa_env/Kahuna-v0"."""
    return f"kanaloa_env/{name.capitalize()}-{version}"


def aec_env_id(name: str, version: str) -> str:
    """A game's id in PettingZoo's registry, e.g. "kanaloa_env/kahuna-v0"."""
    return f"kanaloa_env/{name}-{version}"


def _add_game(name: str) -> None:
    """Record a game's ids and register them with every framework loaded."""
    from .games import GAMES

    version = GAMES[name].version
    gym_id = gym_env_id(name, version)
    GYM_ENV_IDS[name] = gym_id
    if "gymnasium" in _ready:
        gymnasium = sys.modules["gymnasium"]
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="kanaloa_env.wrappers.single:SingleAgentEnv",
                vector_entry_point="kanaloa_env.wrappers.gym_vector:GymVectorEnv",
                kwargs={"game": name},
            )
    if "pettingzoo" in _ready:
        pettingzoo = sys.modules["pettingzoo"]
        # PettingZoo's registry exists from PettingZoo 1.27 on; older versions have none
        # (`pettingzoo.make` then does not exist either), and the env works without it.
        registry = getattr(pettingzoo, "aec_registry", None)
        aec_id = aec_env_id(name, version)
        if registry is not None and aec_id not in registry:
            pettingzoo.register(
                "aec", aec_id, entry_point="kanaloa_env.aec:env", kwargs={"game": name}
            )


def watch_games() -> None:
    """Give every game of `GAMES` its ids, now and as games are registered (imports
    `kanaloa_env.games`, hence the engines' shared code: called on first need)."""
    global _watching
    if _watching:
        return
    _watching = True
    from .games import on_register

    on_register(_add_game)


def _framework_loaded(framework: str) -> None:
    _ready.add(framework)
    if _watching:
        from .games import GAMES

        for name in list(GAMES):
            _add_game(name)
    else:
        watch_games()


def install() -> None:
    """Register the ids with each framework now if it is imported, else once it is."""
    waiting = []
    for framework in FRAMEWORKS:
        if framework in _ready:
            continue
        module = sys.modules.get(framework)
        if module is not None and not getattr(module.__spec__, "_initializing", False):
            _framework_loaded(framework)
        else:
            waiting.append(framework)
    if waiting:
        _AfterImport.watch(waiting, _framework_loaded)


class _AfterImport(importlib.abc.MetaPathFinder):
    """A finder that lets other finders find the watched top-level modules and calls
    `callback(name)` once such a module has run; it leaves `sys.meta_path` when every
    watched module has been imported. A failing callback is a warning, never a failed
    import."""

    def __init__(self, names: Sequence[str], callback: Callable[[str], None]) -> None:
        self.names = set(names)
        self.callback = callback

    @classmethod
    def watch(cls, names: Sequence[str], callback: Callable[[str], None]) -> None:
        for finder in sys.meta_path:
            if isinstance(finder, cls):
                finder.names.update(names)
                return
        sys.meta_path.insert(0, cls(names, callback))

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        # Only a spec that is executed counts (`importlib.util.find_spec` finds one too).
        spec.loader = _ThenCall(spec.loader, fullname, self._loaded)
        return spec

    def _loaded(self, name: str) -> None:
        self.names.discard(name)
        if not self.names and self in sys.meta_path:
            sys.meta_path.remove(self)
        self.callback(name)


class _ThenCall(importlib.abc.Loader):
    """The module's own loader, then `callback(name)`; the module keeps its own loader."""

    def __init__(self, loader: Any, name: str, callback: Callable[[str], None]) -> None:
        self._loader = loader
        self._name = name
        self._callback = callback

    def __getattr__(self, attr: str) -> Any:  # get_data, get_resource_reader, ...
        return getattr(self._loader, attr)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        try:
            self._callback(self._name)
        except Exception as exc:  # never break the user's import over our ids
            warnings.warn(
                f"kanaloa_env could not register its envs with {self._name}: "
                f"{type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
