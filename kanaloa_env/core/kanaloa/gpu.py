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
from .step import step_game


@kernel
def _step_game(c, s, g, a, words, order, listed):  # type: ignore[no-untyped-def]
    """`step.step_game` in the form the GPU kernels call (Kanaloa needs no third work array)."""
    step_game(c, s, g, a, words, order)


ENGINE = DeviceEngine.of(_cpu, step_game=_step_game)
__getattr__ = ENGINE.module_attribute  # init, step, observe, ...: DeviceEngine.API

__all__ = ["ENGINE", "DeviceState", "as_torch", "from_torch", *DeviceEngine.API]
