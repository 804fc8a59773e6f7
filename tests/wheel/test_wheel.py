"""The package as users install it: the sdist and the wheel built from a copy of the
sources, the wheel installed (not editable) into a fresh virtual environment whose
package folder is read-only, and the installed package run from there (`smoke.py`).

The environment sees the test environment's site-packages for the dependencies (so no
download happens here) and installs the wheel without resolving them; `smoke.py`
checks that what the wheel declares is what is installed. Numba cannot write its cache
next to a read-only package, so the kernels compile into the user's cache folder the
first time and load from it the second time: both runs are checked with numba's own
cache log (NUMBA_DEBUG_CACHE).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE = Path(__file__).with_name("smoke.py")

# What the wheel must hold (the package's data files) and may not (the repository's).
NEEDED = (
    "kanaloa_env/py.typed",
    "kanaloa_env/web/static/index.html",
    "kanaloa_env/web/static/app.js",
)
NEEDED_GLOBS = ("kanaloa_env/bots/data/", ".npz")


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, cmd))} exited {proc.returncode}\n"
            f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
        )
    return proc


def _read_only(package: Path, cmd: list[str]) -> list[str]:
    """`cmd` run with `package` read-only. Root writes through file modes, so for root the
    folder is bound read-only in a mount namespace of the command's own."""
    if os.geteuid() != 0:
        for path in [package, *package.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return cmd
    if shutil.which("unshare") is None:
        pytest.fail("running as root, the test needs unshare(1) to make the package read-only")
    pkg = shlex.quote(str(package))
    script = f"mount --bind -o ro {pkg} {pkg} && exec {shlex.join(cmd)}"
    return ["unshare", "-m", "sh", "-c", script]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel), built from a copy of the sources (the build writes build/ and
    *.egg-info next to them, and numba's caches must not travel into the wheel)."""
    work = tmp_path_factory.mktemp("build")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "kanaloa_env", src / "kanaloa_env", ignore=shutil.ignore_patterns("__pycache__")
    )
    dist = work / "dist"
    # The sdist first, then the wheel from the unpacked sdist: a file missing from the
    # sdist fails here as it would for a user installing from it.
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)])
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return sdist, wheel


def test_the_wheel_holds_the_package_and_nothing_of_the_repository(
    built: tuple[Path, Path],
) -> None:
    _, wheel = built
    names = zipfile.ZipFile(wheel).namelist()
    for needed in NEEDED:
        assert needed in names, f"{needed} is not in the wheel"
    prefix, suffix = NEEDED_GLOBS
    policies = [n for n in names if n.startswith(prefix) and n.endswith(suffix)]
    assert len(policies) >= 4, f"the shipped policy files are not in the wheel: {policies}"
    for name in names:
        top = name.split("/")[0]
        assert top == "kanaloa_env" or top.endswith(".dist-info"), f"{name} is not the package's"
        assert "__pycache__" not in name and not name.endswith((".nbi", ".nbc", ".pyc")), name


def test_the_wheel_works_installed_and_read_only(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, wheel = built
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)])
    site = _run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    package = Path(site.stdout.strip()) / "kanaloa_env"
    assert (package / "__init__.py").is_file()

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON", "XDG_"))}
    env.update(HOME=str(home), NUMBA_DEBUG_CACHE="1")
    cache = home / ".cache"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # -I: neither the working folder nor PYTHONPATH may put the sources on the path.
        return _run(_read_only(package, [str(python), "-I", *args]), env=env, cwd=tmp_path)

    first = run(str(SMOKE))
    assert "kanaloa_env" in first.stdout and "from " + str(package) in first.stdout, first.stdout
    assert "data saved to" in first.stdout, "the first run compiled nothing into a cache"
    saved = [p for p in cache.rglob("*.nbi")]
    assert saved, f"no numba cache in the user's folder {cache}"
    assert not list(package.rglob("*.nbi")), "numba wrote its cache into the package folder"

    second = run(str(SMOKE))
    assert "data saved to" not in second.stdout, "the second run compiled kernels again"
    assert "data loaded from" in second.stdout

    for command in ("kanaloa_env", "kanaloa_env.web", "kanaloa_env.arena"):
        out = run("-m", command, "--help").stdout
        assert "usage: python -m " + command in out, out
    arena = tmp_path / "arena"
    out = run(
        "-m", "kanaloa_env.arena", "--bots", "random", "heuristic", "net", "--players", "3",
        "--games", "6", "--out", str(arena), "--no-progress",
    ).stdout  # fmt: skip
    assert (arena / "results.json").is_file(), out
