"""The GPU engines without a GPU.

- Under numba-cuda's simulator (`NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1`, in a
  pytest process of their own: `sim_kit.run_simulated`) the CUDA kernels replay the
  golden trajectories and play random games identical to the CPU engine's, the
  device API behaves, and `GpuVectorEnv` plays what a reference on the CPU engine
  plays (`simulated/`).
- The kernels compile to PTX for an H100 (compute capability 9.0) and ptxas
  assembles that PTX, where the CUDA toolkit's NVVM and ptxas are installed
  (`ptx_kit`): what the simulator, running them as Python, cannot show (an
  allocation or an exception in a rule function fails here, and so does a kernel
  over the GPU's 64 KB of constant memory, as Kahuna's observe kernel once was).
- Importing the GPU modules imports no CUDA, and asking for a GPU where there is none
  raises an error that says what to do.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sim_kit import ROOT, run_simulated, simulator_env

pytest.importorskip("numba_cuda", reason="the GPU tests need numba-cuda (the gpu extra)")


def _passed(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


def test_the_golden_trajectories_replay_in_the_simulator() -> None:
    _passed(run_simulated("test_sim_golden.py"))


def test_the_differential_and_the_device_api_in_the_simulator() -> None:
    _passed(run_simulated("test_sim_differential.py", "test_sim_api.py"))


def test_the_gpu_vector_env_in_the_simulator() -> None:
    _passed(run_simulated("test_sim_env.py"))


def test_training_campaigns_in_the_simulator() -> None:
    _passed(run_simulated("test_sim_campaign.py"))


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT
    )


def test_importing_the_gpu_modules_imports_no_cuda() -> None:
    done = _python(
        "import json, sys\n"
        "import kanaloa_env.core.kanaloa.gpu, kanaloa_env.core.kahuna.gpu, kanaloa_env.core.gpu\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('numba.cuda', 'numba_cuda')))))\n"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_asking_for_a_gpu_without_one_says_what_is_missing() -> None:
    code = (
        "from numba import cuda\n"
        "from kanaloa_env.core.kanaloa import Config, gpu\n"
        "if cuda.is_available():\n"
        "    print('has a GPU')\n"
        "else:\n"
        "    try:\n"
        "        gpu.init(Config(), 2)\n"
        "    except RuntimeError as exc:\n"
        "        print(exc)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    if done.stdout.strip() == "has a GPU":
        pytest.skip("this machine has a GPU")
    assert "no CUDA GPU found" in done.stdout and "NUMBA_ENABLE_CUDASIM=1" in done.stdout


def test_the_simulator_without_disable_jit_is_refused_by_name() -> None:
    env = simulator_env()
    del env["NUMBA_DISABLE_JIT"]
    code = (
        "from kanaloa_env.core.kahuna import Config, gpu\n"
        "try:\n"
        "    gpu.init(Config(), 2)\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    done = _python(code, env)
    assert done.returncode == 0, done.stderr
    assert "needs NUMBA_DISABLE_JIT=1" in done.stdout


_PTX = """
import json, sys
import ptx_kit
root = ptx_kit.find_toolkit()
ptx_kit.patch_for_no_device(root)
out = {}
for name, (kernel, sig) in ptx_kit.kernels_to_compile(env=sys.argv[1] == "env").items():
    ptx = ptx_kit.compile_ptx(kernel, sig)
    if ".target sm_90" not in ptx or ".entry" not in ptx:
        out[name] = "no sm_90 entry in the PTX"
    else:
        out[name] = ptx_kit.assemble(root, ptx) or "ok"
print(json.dumps(out))
"""


def _compile_ptx(which: str) -> dict[str, str]:
    import ptx_kit

    root = ptx_kit.find_toolkit()
    if root is None or not (root / "bin" / "ptxas").exists():
        pytest.skip("no CUDA toolkit with NVVM, libdevice and ptxas (CUDA_HOME, /usr/local/cuda)")
    env = dict(simulator_env(), PYTHONPATH=f"{ROOT}:{ROOT / 'tests' / 'gpu'}")
    del env["NUMBA_ENABLE_CUDASIM"], env["NUMBA_DISABLE_JIT"]
    done = subprocess.run(
        [sys.executable, "-c", _PTX, which],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_kernels_compile_to_ptx_for_an_h100() -> None:
    got = _compile_ptx("engines")
    failed = {name: why for name, why in got.items() if why != "ok"}
    assert len(got) == 13 and not failed, failed


@pytest.mark.slow
def test_the_env_and_benchmark_kernels_compile_to_ptx_for_an_h100() -> None:
    got = _compile_ptx("env")
    failed = {name: why for name, why in got.items() if why != "ok"}
    assert len(got) == 21 and not failed, failed
