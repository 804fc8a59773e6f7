"""The Kanaloa rules engine (RULES.md): batched state (numpy arrays) and compiled per-game kernels: step, masks, observations, scenarios.

```python
from kanaloa_env.core.kanaloa import Config, init, step, legal_action_mask, observe

cfg = Config(num_players=4)
state = init(cfg, batch_size=8192, seed=0)
mask = legal_action_mask(state)   # (B, 66) bool
state = step(state, actions)      # actions: (B,) ints
obs = observe(state)              # (B, OBS_DIM) float32
samples = determinize(state, seats, n, rng)  # b * n states consistent with one seat's view
```
"""

from .belief import count_deals, determinize, determinize_from_keys
from .config import Config
from .constants import NUM_ACTIONS, Phase, Suit, action_name
from .invariants import InvariantError, check_invariants, check_loaded, random_playthrough
from .masks import legal_action_mask
from .observation import OBS_DIM, decode, observe
from .ocean import DEFAULT_OCEAN_DECK
from .scenario import from_scenario, to_scenario
from .setup import init, init_from_keys, reset_games
from .state import State
from .step import step, step_inplace, validate_actions
from .view import public_view

State.load_check = check_loaded

__all__ = [
    "Config",
    "DEFAULT_OCEAN_DECK",
    "InvariantError",
    "NUM_ACTIONS",
    "OBS_DIM",
    "Phase",
    "State",
    "Suit",
    "action_name",
    "check_invariants",
    "count_deals",
    "decode",
    "determinize",
    "determinize_from_keys",
    "from_scenario",
    "init",
    "init_from_keys",
    "legal_action_mask",
    "observe",
    "public_view",
    "random_playthrough",
    "reset_games",
    "step",
    "step_inplace",
    "to_scenario",
    "validate_actions",
]
