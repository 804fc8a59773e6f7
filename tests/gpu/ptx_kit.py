"""Compiling the GPU kernels to PTX on a machine without a GPU: what a real device
would compile, short of loading it, so that a rule function that does not compile for
CUDA (an allocation, an exception, a Python object) fails here and not on the device.

numba-cuda asks the driver for the device's compute capability when it compiles a
device function and asks NVRTC for the architectures it supports; neither exists
without a GPU and the CUDA runtime, so both answers are given here (compute
capability 9.0, an H100) and NVVM and libdevice are taken from the CUDA toolkit
(`CUDA_HOME`, default /usr/local/cuda). `find_toolkit` says whether they are there; `assemble` runs the toolkit's ptxas on
the PTX, which catches what only loading it would (constant memory over 64 KB).
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


def assemble(root: Path, ptx: str) -> str | None:
    """Assemble `ptx` for the device with the toolkit's `ptxas`, as the driver does when
    it loads a kernel: None if it assembles, else ptxas's message (e.g. a kernel over
    the 64 KB of constant memory a GPU gives it, which PTX alone does not show).
    Raises FileNotFoundError without ptxas."""
    import subprocess
    import tempfile

    ptxas = root / "bin" / "ptxas"
    if not ptxas.exists():
        raise FileNotFoundError(f"no ptxas in {root / 'bin'}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx)
        done = subprocess.run(
            [str(ptxas), f"-arch=sm_{CC[0]}{CC[1]}", str(src), "-o", str(Path(tmp) / "k.cubin")],
            capture_output=True,
            text=True,
        )
    return None if done.returncode == 0 else (done.stderr or done.stdout).strip()


def kernels_to_compile(env: bool) -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """The GPU kernels by name, each with the argument types a launch gives it: the
    engines' (step, reset, observe, both games), the heuristics' and the shared
    small ones; with `env`
    also the vector env's and the benchmark's (another minute or more of compiling)."""
    import numba
    from numba import types

    from kanaloa_env.core import gpu_kernels
    from kanaloa_env.core.kahuna import Config as KahunaConfig
    from kanaloa_env.core.kahuna import gpu as kahuna_gpu
    from kanaloa_env.core.kahuna import init as kahuna_init
    from kanaloa_env.core.kanaloa import Config, init
    from kanaloa_env.core.kanaloa import gpu as kanaloa_gpu
    from kanaloa_env.wrappers import gpu_learner

    i64, f32, b1, u64, i8, i32 = (
        types.int64,
        types.float32,
        types.boolean,
        types.uint64,
        types.int8,
        types.int32,
    )
    out: dict[str, tuple[Any, tuple[Any, ...]]] = {}
    engines = (
        (kanaloa_gpu.ENGINE, Config(num_players=5, nil_announcement=True), init),
        (kahuna_gpu.ENGINE, KahunaConfig(), kahuna_init),
    )
    for engine, cfg, make in engines:
        state = make(cfg, 2)
        c = numba.typeof(cfg._rules)
        s = numba.typeof(state.kernel_type(**state.arrays()))
        k = gpu_kernels.GameKernels(engine)
        sigs: dict[str, tuple[Any, tuple[Any, ...]]] = {
            "step": (k, (c, s, i64[::1], i64)),
            "reset": (k, (c, s, i64[::1], u64[::1], i64)),
            "observe": (k, (c, s, i64[::1], b1, f32[:, ::1], i64)),
        }
        if env:
            learner = gpu_learner.LearnerKernels(engine)
            sigs["learner_step"] = (
                learner,
                (c, s, i64[::1], i8[::1], f32[::1], i32[::1], f32[:, ::1], i64),
            )
            sigs["advance"] = (
                learner,
                (
                    *(c, s, i8[::1], f32[::1], f32[::1], i32[::1], i64[::1], i64[::1]),
                    *(f32[:, ::1], b1[::1], i64[::1], u64, i64, i64, b1, i64),
                ),
            )
            sigs["opponents_step"] = (learner, (c, s, i64[::1], b1[::1], i8[::1], f32[::1], i64))
            sigs["random_play"] = (
                k,
                (c, s, i64[::1], i64[::1], u64, i64, f32[:, ::1], b1, i64, i64),
            )
        for name, (owner, sig) in sigs.items():
            out[f"{engine.name}.{name}"] = (getattr(owner, name), sig)
    from kanaloa_env.games.kahuna import gpu_heuristic as kahuna_heuristic
    from kanaloa_env.games.kanaloa import gpu_heuristic as kanaloa_heuristic

    f64_1 = types.float64[::1]
    for name, (kernel, arrays), (_, cfg, make) in zip(
        ("kanaloa.heuristic", "kahuna.heuristic"),
        (
            (kanaloa_heuristic._decide_where, (f64_1,)),
            (kahuna_heuristic._decide_where, (f64_1, f64_1, f64_1, types.float32[:, :, ::1])),
        ),
        engines,
        strict=True,
    ):
        state = make(cfg, 2)
        c = numba.typeof(cfg._rules)
        s = numba.typeof(state.kernel_type(**state.arrays()))
        out[name] = (kernel, (c, s, b1[::1], *arrays, i64[::1], i64))
    out["fill.bool"] = (gpu_kernels.fill, (b1[::1], b1, i64))
    out["fill.uint64"] = (gpu_kernels.fill, (u64[::1], u64, i64))
    out["collect"] = (gpu_learner.collect, (f32[::1], f32[::1], f32[:, ::1], i64))
    out["illegal"] = (gpu_kernels._illegal, (i64[::1], b1[:, ::1], i8[::1], i8, i64[::1], i64))
    out["illegal_where"] = (
        gpu_learner._illegal_where,
        (i64[::1], b1[:, ::1], b1[::1], i64[::1], i64),
    )
    return out
