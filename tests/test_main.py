"""`python -m kanaloa_env`: the list of the package's commands, quick and complete."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kanaloa_env"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kanaloa_env", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def _runs_as_main(path: Path) -> bool:
    """Whether the module has a top-level `if __name__ == "__main__":` (code, not a
    docstring's example)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "__name__ == '__main__'",
            '__name__ == "__main__"',
        ):
            return True
    return False


def _entry_points() -> set[str]:
    """The package's top-level modules and sub-packages that run as
    `python -m kanaloa_env.<name>`."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__main__" and _runs_as_main(p)}
    return modules | {p.parent.name for p in PACKAGE.glob("*/__main__.py") if _runs_as_main(p)}


@pytest.mark.parametrize("args", [[], ["--help"], ["-h"]], ids=["bare", "--help", "-h"])
def test_it_lists_every_command_and_exits_0(args: list[str]) -> None:
    from kanaloa_env.__main__ import COMMANDS

    proc = _run(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert set(COMMANDS) == _entry_points() == {"arena", "play", "replay", "web"}
    listed = [ln.split()[2] for ln in proc.stdout.splitlines() if ln.startswith("  python -m ")]
    assert listed == [f"kanaloa_env.{name}" for name in COMMANDS]  # one line each
    assert "train_maskable_ppo" not in " ".join(listed)  # examples are not package commands


@pytest.mark.parametrize("name", ["arena", "play", "replay", "web"])
def test_each_listed_command_runs(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", f"kanaloa_env.{name}", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0 and f"python -m kanaloa_env.{name}" in proc.stdout


@pytest.mark.parametrize(
    ("arg", "hint"),
    [
        ("arena", "run it as python -m kanaloa_env.arena"),
        ("--version", "one of: arena, play, replay, web"),
    ],
)
def test_another_argument_is_an_error_that_names_the_commands(arg: str, hint: str) -> None:
    proc = _run(arg)
    assert proc.returncode == 2 and proc.stdout == ""
    last = proc.stderr.splitlines()[-1]
    assert last.startswith(f"python -m kanaloa_env: error: unknown argument {arg!r}; ")
    assert last.endswith(hint)


def test_the_list_imports_no_training_or_plotting_library() -> None:
    code = (
        "import runpy, sys\n"
        "try:\n"
        "    runpy.run_module('kanaloa_env', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "heavy = ('torch', 'matplotlib', 'stable_baselines3', 'sb3_contrib', 'ray', 'PIL',\n"
        "         'kanaloa_env.wrappers', 'kanaloa_env.bots', 'kanaloa_env.evaluation')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "LOADED []"
