"""The rules engines: one batched engine per game (numpy state, rules compiled with numba), and what they really share.

- `kanaloa_env.core.kanaloa`: Kanaloa (RULES.md).
- `kanaloa_env.core.kahuna`: Kahuna (KAHUNA-RULES.md).

Each engine's public API is its package's `__all__`, addressed alike:
`from kanaloa_env.core.kanaloa import Config, init, step` and
`from kanaloa_env.core.kahuna import Config, init, step`.

- `engine` (the plumbing around every engine's rules: entry points and their checks,
  the invariant checkers' helpers), `kernels` (compiling and running the kernels),
  `fields` (a state's arrays, specified once), `rng` (counter-based per-game random
  streams), `batch` (the batched-state base class and the one action check),
  `scenario_checks` (the checks of untrusted scenario JSON), `files` (files written
  whole or not at all).
"""
