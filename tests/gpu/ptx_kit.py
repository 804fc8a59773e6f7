"""Compiling the GPU kernels to PTX on a machine without a GPU: what a real device
would compile, short of loading it, so that a rule function that does not compile for
CUDA (an allocation, an exception, a Python object) fails here and not on the device.

numba-cuda asks the driver for the device's compute capability when it compiles a
device function and asks NVRTC for the architectures it supports; neither exists
without a GPU and the CUDA runtime, so both answers are given here (compute
capability 9.0, an H100) and NVVM and libdevice are taken from the CUDA toolkit
(`CUDA_HOME`, default /usr/local/cuda). `find_toolkit` says whether they are there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

CC = (9, 0)


def find_toolkit() -> Path | None:
    """The CUDA toolkit folder holding libNVVM and libdevice, or None."""
    root = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    nvvm = list(root.glob("nvvm/lib64/libnvvm.so*")) + list(root.glob("lib*/libnvvm.so*"))
    libdevice = list(root.glob("nvvm/libdevice/libdevice*.bc"))
    return root if nvvm and libdevice else None


def patch_for_no_device(root: Path) -> None:
    """Let numba-cuda compile device code with no GPU, driver nor NVRTC (see above)."""
    import numba.cuda.cudadrv.libs as libs
    import numba.cuda.cudadrv.nvrtc as nvrtc
    import numba.cuda.cudadrv.nvvm as nvvm
    import numba.cuda.dispatcher as dispatcher

    class _Device:
        compute_capability = CC

    libdevice = str(next(root.glob("nvvm/libdevice/libdevice*.bc")))
    dispatcher.get_current_device = lambda: _Device()  # type: ignore[attr-defined]
    nvrtc.get_supported_ccs = lambda: (CC,)
    libs.get_libdevice = lambda: libdevice
    nvvm.get_libdevice = libs.get_libdevice


def compile_ptx(kernel: Any, argtypes: tuple[Any, ...]) -> str:
    """The PTX of CUDA kernel `kernel` (a `cuda.jit` dispatcher) for `argtypes`."""
    from numba import cuda

    ptx, _ = cuda.compile_ptx(kernel.py_func, argtypes, cc=CC)
    return ptx  # type: ignore[no-any-return]
