"""Helpers for the integrations tests: the snippets of docs/integrations.md, a cached virtual
environment for a library whose pins conflict with the test environment's, and a runner.

A snippet is a fenced ```python block of the page whose first line is `# test: NAME`.
`run_snippet` runs one as a script in a subprocess, from a scratch folder, with the
checkout first on `sys.path`, so it imports this checkout's `kanaloa_env` whichever
interpreter runs it.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "integrations.md"

_FENCE = re.compile(r"^```python\n(# test: (?P<name>[\w-]+)\n.*?)^```$", re.MULTILINE | re.DOTALL)


def snippets(doc: Path = DOC) -> dict[str, str]:
    """The marked code blocks of `doc`, by the name after `# test:`, in page order.

    Raises:
        ValueError: two blocks carry the same name.
    """
    found: dict[str, str] = {}
    for m in _FENCE.finditer(doc.read_text(encoding="utf-8")):
        name = m.group("name")
        if name in found:
            raise ValueError(f"{doc.name}: two snippets are marked '# test: {name}'")
        found[name] = m.group(1)
    return found


def run_snippet(
    code: str,
    name: str,
    workdir: Path,
    python: str | Path = sys.executable,
    extra_env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run `code` as `workdir/snippet_NAME.py` with `python`, `extra_env` added to the
    environment; fail the test with the script's output if it exits non-zero."""
    script = workdir / f"snippet_{name}.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # One torch/OpenMP thread: on the 2-core CI machine, with pytest-xdist's two workers, the
    # CleanRL snippet took 24-31 s of CPU with torch's default 2 threads and 6 s with one
    # (4 runs each, this project's shared 2-core machine at load 12-16).
    env["OMP_NUM_THREADS"] = "1"
    env["MPLBACKEND"] = "Agg"
    env.update(extra_env or {})
    proc = subprocess.run(
        [str(python), str(script)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"snippet '{name}' failed (exit {proc.returncode}):\n"
            f"--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
        )
    return proc


def project_dependencies() -> list[str]:
    """`[project] dependencies` of pyproject.toml: what `pip install kanaloa_env` resolves."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def venv_cache() -> Path:
    """Where the cached environments live: $KANALOA_VENV_CACHE or ~/.cache/kanaloa_env/venvs."""
    default = Path.home() / ".cache" / "kanaloa_env" / "venvs"
    return Path(os.environ.get("KANALOA_VENV_CACHE", default))


def cached_venv(name: str, installs: Sequence[Sequence[str]]) -> Path:
    """The Python of a virtual environment holding `installs`, built on first use and reused.

    Each entry of `installs` is one `pip install` command's arguments, run in order (torch
    first, as the README says). The environment is keyed by a hash of the installs and of this
    interpreter's version, so changing a pin builds a new one; it is built in a scratch folder
    and renamed into place, so an interrupted build leaves nothing half made behind.

    Raises:
        AssertionError: a pip command failed (its output is in the message).
    """
    key = hashlib.sha256(
        repr((sys.version_info[:3], platform.machine(), [list(i) for i in installs])).encode()
    ).hexdigest()[:16]
    home = venv_cache()
    target = home / f"{name}-{key}"
    python = target / "bin" / "python"
    if python.exists():
        return python
    home.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=home))
    try:
        subprocess.run([sys.executable, "-m", "venv", str(build)], check=True)
        for args in installs:
            proc = subprocess.run(
                [str(build / "bin" / "python"), "-m", "pip", "install", "--quiet", *args],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                raise AssertionError(
                    f"pip install {' '.join(args)} failed in the {name} environment:\n"
                    f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
                )
        # The scripts in bin/ keep the scratch folder in their #! lines; only bin/python is
        # used, and it finds its environment from the pyvenv.cfg beside it, wherever it lies.
        try:
            build.rename(target)
        except OSError:  # another run finished the same environment first
            if not python.exists():
                raise
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)
    return python
