"""The Kanaloa engine on a GPU: the rule functions of `step.py`, `setup.py` and
`observation.py` run by the CUDA kernels of `kanaloa_env.core.gpu` (see there).

```python
from kanaloa_env.core.kanaloa import Config, gpu

state = gpu.init(Config(num_players=4), batch_size=65536, seed=0)  # game i = the CPU's game i
gpu.step_inplace(state, actions)      # (B,) ints: a device array, a CUDA tensor or numpy
obs = gpu.observe(state)              # (B, OBS_DIM) float32 on the device
host = state.to_host()                # a kanaloa_env.core.kanaloa.State
```
"""

from __future__ import annotations

from .. import kanaloa as _cpu
from ..gpu import DeviceEngine, DeviceState, as_torch, from_torch
from ..kernels import kernel
from .config import Config
from .constants import NUM_ACTIONS, Phase
from .observation import OBS_DIM, encode_game
from .setup import reset_game
from .state import State
from .step import step_game


@kernel
def _step_game(c, s, g, a, words, order, listed):  # type: ignore[no-untyped-def]
    """`step.step_game` in the form the GPU kernels call (Kanaloa needs no third work array)."""
    step_game(c, s, g, a, words, order)


ENGINE = DeviceEngine(
    name="kanaloa",
    cpu=_cpu,
    state_class=State,
    config_class=Config,
    num_actions=NUM_ACTIONS,
    obs_dim=OBS_DIM,
    game_over=int(Phase.GAME_OVER),
    step_game=_step_game,
    reset_game=reset_game,
    encode_game=encode_game,
)

init = ENGINE.init
init_from_keys = ENGINE.init_from_keys
reset_games = ENGINE.reset_games
step = ENGINE.step
step_inplace = ENGINE.step_inplace
validate_actions = ENGINE.validate_actions
observe = ENGINE.observe
legal_action_mask = ENGINE.legal_action_mask
to_device = ENGINE.to_device
to_host = ENGINE.to_host

__all__ = [
    "ENGINE",
    "DeviceState",
    "as_torch",
    "from_torch",
    "init",
    "init_from_keys",
    "legal_action_mask",
    "observe",
    "reset_games",
    "step",
    "step_inplace",
    "to_device",
    "to_host",
    "validate_actions",
]
