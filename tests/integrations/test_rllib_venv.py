"""The RLlib tests, run in an environment of their own.

`ray[rllib]` pins gymnasium exactly (Ray 2.60: `gymnasium==1.2.2`), older than the one the
main test environment gets, so the `rllib` extra is not part of `dev`. Instead this test
installs it the way a user would, into `.venv-rllib/` at the repository root: first torch
at the version of the current environment (so a CPU build stays a CPU build; the README
installs `torch==2.13.0` first for the same reason), then `pip install -e ".[rllib]"
pytest hypothesis`. It then runs the RLlib test modules there (the env's tests and the
training example's tiny run). tests/conftest.py leaves those modules out of runs whose
environment has no ray, so they are never skipped: they run here.

The environment is kept and reused while pyproject.toml and the Python and torch versions
stay the same (a stamp file records them); delete `.venv-rllib/` to rebuild it.
Measured on the project's 2-core machine under a load average of 10 to 12 from other jobs
(`python -m pytest tests/integrations/test_rllib_venv.py -s` prints both times): building
it took 310 s and the RLlib tests in it 144 s (pip's cache warm; torch, ray[rllib] and the
package took 73 s in all when installed by hand at a load average below 1).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-rllib"
RLLIB_TESTS = [
    "tests/integrations/test_rllib_doc.py",
    "tests/integrations/test_rllib_env.py",
    "tests/integrations/test_train_rllib.py",
]
_BIN = "Scripts" if os.name == "nt" else "bin"


def _torch_requirement() -> str | None:
    """`torch==<version>` of this environment, or None when it has no torch."""
    try:
        return f"torch=={metadata.version('torch')}"
    except metadata.PackageNotFoundError:
        return None


def _stamp() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(f"{sys.version}\n{_torch_requirement()}".encode())
    return digest.hexdigest()


def _run(cmd: list[str], timeout: int) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    )


def ensure_venv() -> Path:
    """The python of `.venv-rllib/`, built (or rebuilt) when its stamp is not current."""
    python = VENV / _BIN / ("python.exe" if os.name == "nt" else "python")
    stamp_file = VENV / "kanaloa-stamp"
    lock_path = ROOT / ".venv-rllib.lock"
    with open(lock_path, "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs at once build it once
        except ImportError:  # not on POSIX: no lock
            pass
        stamp = _stamp()
        if python.exists() and stamp_file.is_file() and stamp_file.read_text() == stamp:
            return python
        shutil.rmtree(VENV, ignore_errors=True)
        start = time.time()
        _run([sys.executable, "-m", "venv", str(VENV)], 300)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        torch = _torch_requirement()
        if torch is not None:
            _run([*pip, torch], 1200)
        _run([*pip, "-e", ".[rllib]", "pytest", "hypothesis"], 1800)
        stamp_file.write_text(stamp)
        print(f"built {VENV} in {time.time() - start:.0f} s")
    return python


def test_rllib_tests_pass_in_their_own_environment() -> None:
    python = ensure_venv()
    # Its gymnasium is RLlib's pin, whatever this environment has.
    probe = subprocess.run(
        [str(python), "-c", "import gymnasium, ray; print(gymnasium.__version__, ray.__version__)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr
    start = time.time()
    proc = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", "-rs"]
        + RLLIB_TESTS,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        # Ray's worker processes import kanaloa_env from this checkout too.
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    print(f"gymnasium, ray: {probe.stdout.strip()}; RLlib tests took {time.time() - start:.0f} s")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-12000:]
    summary = out.strip().splitlines()[-1]
    assert "passed" in summary and "skipped" not in summary, summary
