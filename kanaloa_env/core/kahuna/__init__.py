"""The Kahuna rules engine (KAHUNA-RULES.md): a batched state of numpy arrays, its
rules as compiled per-game kernels (step, masks, observations, set-up, belief
sampling; DESIGN.md "Compiled kernels"), scenarios.

```python
from kanaloa_env.core.kahuna import Config, init, step, legal_action_mask, observe

state = init(Config(), batch_size=8192, seed=0)
mask = legal_action_mask(state)   # (B, 153) bool
state = step(state, actions)      # actions: (B,) ints
obs = observe(state)              # (B, OBS_DIM) float32
```
"""

from .belief import determinize, determinize_from_keys
from .config import Config
from .constants import NUM_ACTIONS, Phase, action_name
from .invariants import InvariantError, check_invariants, random_playthrough
from .masks import legal_action_mask
from .observation import OBS_DIM, decode, observe
from .scenario import from_scenario, to_scenario
from .setup import init, init_from_keys, reset_games
from .state import State
from .step import step, step_inplace, validate_actions
from .view import public_view

State.load_check = check_invariants

__all__ = [
    "Config",
    "InvariantError",
    "NUM_ACTIONS",
    "OBS_DIM",
    "Phase",
    "State",
    "action_name",
    "check_invariants",
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
