"""The quickstart notebook and its script twin: in sync, and both run top to bottom."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _sync_module():
    spec = importlib.util.spec_from_file_location("sync_notebook", EXAMPLES / "sync_notebook.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_notebook_matches_the_script() -> None:
    sync = _sync_module()
    script = sync.cells_from_script((EXAMPLES / "quickstart.py").read_text(encoding="utf-8"))
    notebook = sync.cells_from_notebook(nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4))
    assert notebook == script, "run: python examples/sync_notebook.py"
    kinds = [k for k, _ in script]
    assert kinds.count("code") >= 6 and kinds.count("markdown") >= 6
    # Regenerating an unchanged script gives the same notebook, outputs stripped.
    nb = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    assert nb == sync.build_notebook(script)


def test_script_cells_split_code_and_markdown() -> None:
    sync = _sync_module()
    text = '"""doc"""\n\n# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n\n# %%\nprint(x)\n'
    assert sync.cells_from_script(text) == [
        ("markdown", "# Title\n\ntext"),
        ("code", "x = 1"),
        ("code", "print(x)"),
    ]


def test_quickstart_script_runs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # the script writes nothing into the repository
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "legal moves: ['play " in out
    assert "(840, 1200, 3) uint8" in out
    assert "winner: player_" in out
    assert "wins the trick" in out
    assert "heuristic" in out and "win rate" in out


def test_notebook_executes_with_nbclient(tmp_path: Path) -> None:
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # The two pictures are shown as images.
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2
