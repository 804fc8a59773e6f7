"""The package ships its type hints (PEP 561), so they must hold: mypy checks them."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_is_marked_typed() -> None:
    assert resources.files("kanaloa_env").joinpath("py.typed").is_file()


def test_mypy_finds_no_errors(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    # The settings are pyproject.toml's [tool.mypy]; a fresh cache, as on a clean machine.
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_the_package_version_is_the_distribution_version() -> None:
    import re
    from pathlib import Path

    import kanaloa_env

    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version = "([^"]+)"$', text, flags=re.M)
    assert match is not None and match.group(1) == kanaloa_env.__version__
