"""The rules engines: one batched engine per game (numpy state, rules compiled with numba), and what they really share.

- `kanaloa_env.core.kanaloa`: Kanaloa (RULES.md). Its public API (`kanaloa.__all__`;
  its docstring shows it at work) is also this package's, so
  `from kanaloa_env.core import Config, init, step, ...` is Kanaloa's.
- `kanaloa_env.core.kahuna`: Kahuna (KAHUNA-RULES.md).
- `engine` (the plumbing around every engine's rules: entry points and their checks,
  the invariant checkers' helpers), `kernels` (compiling and running the kernels),
  `fields` (a state's arrays, specified once), `rng` (counter-based per-game random
  streams), `batch` (the batched-state base class and the one action check), `files`
  (files written whole or not at all).
"""

from . import kanaloa
from .kanaloa import *  # noqa: F403 (Kanaloa's API, `kanaloa.__all__`, is this package's)

__all__ = list(kanaloa.__all__)
