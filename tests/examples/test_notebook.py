"""The quickstart notebook and its script twin: in sync, committed with the outputs of a
run, and both run top to bottom."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROOT = EXAMPLES.parent


def _sync_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_notebook", EXAMPLES / "sync_notebook.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _committed() -> nbformat.NotebookNode:
    return nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)


def _printed(nb: nbformat.NotebookNode) -> str:
    return "".join(
        o.text for c in nb.cells if c.cell_type == "code" for o in c.outputs if "text" in o
    )


def _pictures(nb: nbformat.NotebookNode) -> int:
    return sum(
        "image/png" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )


def _check_printout(out: str) -> None:
    """What a run of the quickstart prints, section by section."""
    assert "legal moves: ['play " in out
    assert "(840, 1200, 3) uint8" in out
    assert "winner: player_" in out
    assert "wins the trick" in out
    assert "rewards: [" in out and "0.3333333" not in out  # rewards rounded, no float32 noise
    assert "masks: (256, 66) bool" in out and "games finished" in out
    assert "after 4096 steps: win rate" in out
    assert "net" in out and "heuristic" in out and "win rate" in out
    assert "Kahuna: 400 games, 2 players" in out


def test_notebook_matches_the_script() -> None:
    sync = _sync_module()
    script = sync.cells_from_script((EXAMPLES / "quickstart.py").read_text(encoding="utf-8"))
    nb = _committed()
    assert sync.cells_from_notebook(nb) == script, "run: python examples/sync_notebook.py --execute"
    kinds = [k for k, _ in script]
    assert kinds.count("code") >= 10 and kinds.count("markdown") >= 10
    # Regenerating an unchanged script gives the same notebook, outputs aside.
    assert sync.strip_outputs(nb) == sync.build_notebook(script)


def test_committed_notebook_holds_the_outputs_of_one_run() -> None:
    """Pictures render on a repository page: every code cell ran once, in order, without
    an error, and the outputs are those of the current sources."""
    sync = _sync_module()
    nb = _committed()
    assert sync.run_problems(nb) == [], "run: python examples/sync_notebook.py --execute"
    assert _pictures(nb) == 3
    _check_printout(_printed(nb))


def test_script_cells_split_code_and_markdown() -> None:
    sync = _sync_module()
    text = '"""doc"""\n\n# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n\n# %%\nprint(x)\n'
    assert sync.cells_from_script(text) == [
        ("markdown", "# Title\n\ntext"),
        ("code", "x = 1"),
        ("code", "print(x)"),
    ]


def test_regenerating_keeps_outputs_of_unchanged_cells_only() -> None:
    sync = _sync_module()
    old = sync.build_notebook([("markdown", "# T"), ("code", "x = 1"), ("code", "print(x)")])
    for n, cell in enumerate(old.cells[1:], start=1):
        cell.execution_count = n
    old.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    assert sync.run_problems(old) == []

    # The first code cell changed: the second keeps its output, which is now stale.
    new = sync.build_notebook([("markdown", "# T"), ("code", "x = 2"), ("code", "print(x)")], old)
    assert new.cells[1].outputs == [] and new.cells[1].execution_count is None
    assert new.cells[2].outputs[0].text == "1\n" and new.cells[2].execution_count == 2
    assert sync.run_problems(new) == [
        "cell-01: execution count None, expected 1 (changed or not run)"
    ]
    # A cell moved in front of another is out of order.
    moved = sync.build_notebook([("code", "print(x)"), ("code", "x = 1")], old)
    assert len(sync.run_problems(moved)) == 2
    # An error output is a problem too.
    old.cells[2].outputs = [
        nbformat.v4.new_output("error", ename="NameError", evalue="x", traceback=[])
    ]
    assert sync.run_problems(old) == ["cell-02: NameError: x"]


def test_execute_stores_outputs_without_timestamps(tmp_path: Path) -> None:
    """The same path the notebook takes, on a two-cell notebook (fast)."""
    pytest.importorskip("nbclient")
    sync = _sync_module()
    nb = sync.build_notebook(
        [
            ("code", "import kanaloa_env\nprint(kanaloa_env.__file__)"),
            ("code", "print(1)\nprint(2)"),
        ]
    )
    sync.execute_notebook(nb, cwd=tmp_path, timeout=120)
    assert sync.run_problems(nb) == []
    # The kernel imported this checkout, not an installed copy.
    assert nb.cells[0].outputs[0].text.strip() == str(ROOT / "kanaloa_env" / "__init__.py")
    assert nb.cells[1].outputs == [nbformat.v4.new_output("stream", name="stdout", text="1\n2\n")]
    assert nb.metadata == sync.METADATA and all(c.metadata == {} for c in nb.cells)


def test_notebook_executes_with_nbclient(tmp_path: Path) -> None:
    pytest.importorskip("nbclient")
    sync = _sync_module()
    nb = sync.execute_notebook(_committed(), cwd=tmp_path)  # raises naming a failing cell
    assert sync.run_problems(nb) == []
    assert _pictures(nb) == 3  # two Kanaloa tables and a Kahuna board
    _check_printout(_printed(nb))
    assert list(tmp_path.iterdir()) == []  # it writes nothing where it runs


@pytest.mark.slow  # the same cells as the notebook test above
def test_quickstart_script_runs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    _check_printout(proc.stdout)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_notebook_runs_with_nbconvert(tmp_path: Path) -> None:
    """The usual way: `jupyter nbconvert --to notebook --execute` (the dev extra)."""
    pytest.importorskip("nbconvert")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            str(EXAMPLES / "quickstart.ipynb"),
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    nb = nbformat.read(tmp_path / "quickstart.ipynb", as_version=4)
    _check_printout(_printed(nb))
