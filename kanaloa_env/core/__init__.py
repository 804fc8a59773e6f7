"""The rules engines: one batched engine per game (numpy state, rules compiled with numba), and what they really share.

- `kanaloa_env.core.kanaloa`: Kanaloa (RULES.md). Its public API is also this
  package's, so `from kanaloa_env.core import Config, init, step, ...` is Kanaloa's.
- `kanaloa_env.core.kahuna`: Kahuna (KAHUNA-RULES.md).
- `rng` (counter-based per-game random streams), `batch` (the batched-state base
  class and the one action check), `files` (files written whole or not at all).

```python
from kanaloa_env.core import Config, init, step, legal_action_mask, observe

cfg = Config(num_players=4)
state = init(cfg, batch_size=8192, seed=0)
mask = legal_action_mask(state)   # (B, 66) bool
state = step(state, actions)      # actions: (B,) ints
obs = observe(state)              # (B, OBS_DIM) float32
```
"""

from .kanaloa import (
    DEFAULT_OCEAN_DECK,
    NUM_ACTIONS,
    OBS_DIM,
    Config,
    Phase,
    State,
    Suit,
    decode,
    from_scenario,
    init,
    init_from_keys,
    legal_action_mask,
    observe,
    reset_games,
    step,
    step_inplace,
    to_scenario,
    validate_actions,
)

__all__ = [
    "Config",
    "DEFAULT_OCEAN_DECK",
    "NUM_ACTIONS",
    "OBS_DIM",
    "Phase",
    "State",
    "Suit",
    "decode",
    "from_scenario",
    "init",
    "init_from_keys",
    "legal_action_mask",
    "observe",
    "reset_games",
    "step",
    "step_inplace",
    "to_scenario",
    "validate_actions",
]
