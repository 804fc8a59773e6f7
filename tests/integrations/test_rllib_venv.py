"""The RLlib tests, run in an environment of their own.

`ray[rllib]` pins gymnasium exactly (Ray 2.60: `gymnasium==1.2.2`), older than the one the
main test environment gets, so the `rllib` extra is not part of `dev`. Instead this test
installs it the way a user would, into a virtual environment of its own kept outside the
clone (`integrations_snippets.cached_venv`: `$KANALOA_VENV_CACHE`, by default
`~/.cache/kanaloa_env/venvs/rllib-<hash>`): first torch at the version of the current
environment (so a CPU build stays a CPU build; the README installs `torch==2.13.0` first
for the same reason), then the `rllib` extra and the package's dependencies with pytest,
then this checkout (editable, without dependencies). It then runs the RLlib test modules
there (the env's tests and the training example's tiny run). tests/conftest.py leaves those
modules out of runs whose environment has no ray, so they are never skipped: they run here.

The environment is built once and reused while the requirements (pyproject.toml's), the
checkout's path and the Python version stay the same (they name it); a change builds a new
one. Its size and build time: see docs/testing.md.
"""

from __future__ import annotations

import os
import subprocess
import time
from importlib import metadata
from pathlib import Path

from integrations_snippets import cached_venv, project_dependencies

ROOT = Path(__file__).resolve().parents[2]
RLLIB_TESTS = [
    "tests/integrations/test_rllib_doc.py",
    "tests/integrations/test_rllib_env.py",
    "tests/integrations/test_train_rllib.py",
]


def _rllib_extra() -> list[str]:
    """`[project.optional-dependencies] rllib` of pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["optional-dependencies"]["rllib"])


def ensure_venv() -> Path:
    """The python of the RLlib environment, built on first use (see the module docstring)."""
    try:
        torch = [f"torch=={metadata.version('torch')}"]
    except metadata.PackageNotFoundError:
        torch = []
    installs = [
        torch,
        [*_rllib_extra(), *project_dependencies(), "pytest", "hypothesis"],
        ["--no-deps", "-e", str(ROOT)],
    ]
    start = time.time()
    python = cached_venv("rllib", [i for i in installs if i])
    print(f"RLlib environment {python.parent.parent} ready in {time.time() - start:.0f} s")
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
