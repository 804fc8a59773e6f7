"""What importing the package loads: the engines without any RL framework, the package
itself without anything heavy, the rest on first use; and the env ids still reach
Gymnasium's and PettingZoo's registries in whatever order the modules are imported.

Each check runs in a fresh interpreter (this one has imported everything already).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Never loaded by the engines: the RL frameworks, plotting, torch (nor Pillow).
HEAVY = (
    "gymnasium",
    "pettingzoo",
    "stable_baselines3",
    "sb3_contrib",
    "ray",
    "matplotlib",
    "torch",
    "PIL",
)


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _loaded_after(statement: str) -> list[str]:
    """The top-level modules `statement` loads beyond a bare interpreter's."""
    code = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        f"{statement}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
    )
    return json.loads(_run(code))  # type: ignore[no-any-return]


@pytest.mark.parametrize("engine", ["kanaloa_env.core.kanaloa", "kanaloa_env.core.kahuna"])
def test_an_engine_imports_no_rl_framework(engine: str) -> None:
    loaded = _loaded_after(f"import {engine}")
    assert "numba" in loaded and "numpy" in loaded
    assert [m for m in loaded if m in HEAVY] == []


def test_the_package_imports_nothing_heavy() -> None:
    code = "import json, sys\nimport kanaloa_env\nprint(json.dumps(sorted(sys.modules)))\n"
    loaded = json.loads(_run(code))
    ours = sorted(m for m in loaded if m.startswith("kanaloa_env"))
    assert ours == ["kanaloa_env", "kanaloa_env._env_ids"]
    assert [m for m in loaded if m.split(".")[0] in (*HEAVY, "numpy", "numba")] == []


def test_the_lazy_names_load_on_use() -> None:
    code = (
        "import sys\n"
        "import kanaloa_env\n"
        "from kanaloa_env import GYM_ENV_ID, GYM_ENV_IDS, __version__, env, raw_env\n"
        "assert 'gymnasium' in sys.modules and 'kanaloa_env.aec' in sys.modules\n"
        "assert kanaloa_env.env is env and kanaloa_env.raw_env is raw_env\n"
        "e = kanaloa_env.env(game='kahuna')\n"
        "e.reset(seed=0)\n"
        "r = kanaloa_env.raw_env(num_players=3)\n"
        "r.reset(seed=0)\n"
        "assert GYM_ENV_IDS == {'kanaloa': GYM_ENV_ID, 'kahuna': 'kanaloa_env/Kahuna-v0'}\n"
        "assert kanaloa_env.wrappers.SingleAgentEnv.__name__ == 'SingleAgentEnv'\n"
        "assert {'env', 'raw_env', 'GYM_ENV_IDS', 'wrappers'} <= set(dir(kanaloa_env))\n"
        "try:\n"
        "    kanaloa_env.no_such_name\n"
        "except AttributeError as exc:\n"
        "    assert 'no_such_name' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
        "print(__version__, e.unwrapped.game.name, r.metadata['name'])\n"
    )
    assert _run(code).split() == ["1.0.0", "kahuna", "kanaloa_v0"]


# The registries: ids made after each import order.
_MAKE = (
    "g = gymnasium.make('kanaloa_env/Kanaloa-v0', num_players=3, opponents='random')\n"
    "g.reset(seed=0)\n"
    "v = gymnasium.make_vec('kanaloa_env/Kahuna-v0', num_envs=2, "
    "vectorization_mode='vector_entry_point')\n"
    "v.reset(seed=0)\n"
    "a = pettingzoo.make('aec', 'kanaloa_env/kahuna-v0')\n"
    "a.reset(seed=0)\n"
    "import sys\n"
    "assert not any(type(f).__name__ == '_AfterImport' for f in sys.meta_path)\n"
    "assert type(gymnasium.__loader__).__name__ == 'SourceFileLoader'\n"
    "print(type(g.unwrapped).__name__, type(v).__name__, a.unwrapped.game.name)\n"
)


@pytest.mark.parametrize(
    "imports",
    [
        "import kanaloa_env\nimport gymnasium\nimport pettingzoo\n",
        "import gymnasium\nimport pettingzoo\nimport kanaloa_env\n",
        "import pettingzoo\nimport kanaloa_env.core.kanaloa\nimport gymnasium\n",
        "import kanaloa_env.core.kahuna\nimport pettingzoo\nimport gymnasium\n",
        # Looking a framework up (as code with optional dependencies does) is no import.
        "import importlib.util, kanaloa_env\n"
        "assert importlib.util.find_spec('gymnasium') and importlib.util.find_spec('pettingzoo')\n"
        "import gymnasium, pettingzoo\n",
    ],
    ids=["package-first", "frameworks-first", "between", "engine-first", "found-then-imported"],
)
def test_the_env_ids_are_registered_in_any_import_order(imports: str) -> None:
    assert _run(imports + _MAKE).split() == ["SingleAgentEnv", "GymVectorEnv", "kahuna"]
