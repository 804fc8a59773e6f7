"""Tests of the GPU engines that need a device: run by `tests/gpu/test_gpu_simulator.py`
in a pytest process of their own under numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1
and NUMBA_DISABLE_JIT=1, which must be set before numba is imported), or on a real
GPU with KANALOA_GPU_TESTS=device (`benchmarks/gpu_session.sh`). Elsewhere they are
not collected."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numba

_ON = os.environ.get("KANALOA_GPU_TESTS") == "device" or (
    bool(numba.config.ENABLE_CUDASIM) and bool(numba.config.DISABLE_JIT)
)
collect_ignore_glob = [] if _ON else ["test_*.py"]

_HERE = Path(__file__).resolve().parent
for _path in (_HERE.parent, _HERE.parents[1] / "golden"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
