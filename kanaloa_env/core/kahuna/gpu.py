"""The Kahuna engine on a GPU: the rule functions of `step.py`, `setup.py` and
`observation.py` run by the CUDA kernels of `kanaloa_env.core.gpu` (see there).

```python
from kanaloa_env.core.kahuna import Config, gpu

state = gpu.init(Config(), batch_size=65536, seed=0)   # game i = the CPU's game i
gpu.step_inplace(state, actions)      # (B,) ints: a device array, a CUDA tensor or numpy
obs = gpu.observe(state)              # (B, OBS_DIM) float32 on the device
host = state.to_host()                # a kanaloa_env.core.kahuna.State
```
"""

from __future__ import annotations

from .. import kahuna as _cpu
from ..gpu import DeviceEngine, DeviceState, as_torch, from_torch

ENGINE = DeviceEngine.of(_cpu)
__getattr__ = ENGINE.module_attribute  # init, step, observe, ...: DeviceEngine.API

__all__ = ["ENGINE", "DeviceState", "as_torch", "from_torch", *DeviceEngine.API]
