"""Build `examples/quickstart.ipynb` from `examples/quickstart.py` (the source of truth).

```
python examples/sync_notebook.py --execute   # regenerate the notebook, run it, store the outputs
python examples/sync_notebook.py             # regenerate; keep the outputs of unchanged cells
python examples/sync_notebook.py --check     # exit 1 unless the notebook matches and holds a run
```

The script's cells start with `# %%` (code) or `# %% [markdown]` (markdown, every
line prefixed `# `); the module docstring before the first cell is not part of the
notebook. The notebook is committed with its outputs, so that its pictures and
printouts show on a repository page. `--execute` runs it with nbclient in a temporary
folder, importing the `kanaloa_env` of this checkout, the way
`jupyter nbconvert --to notebook --execute examples/quickstart.ipynb` runs it.

Without `--execute`, a code cell whose source did not change keeps the outputs it has
in the current notebook (matched by source, in order) and any other code cell has
none; outputs of a kept cell can then be stale if an earlier cell changed, which the
check catches: it asks that every code cell was executed once, in order
(execution counts 1, 2, 3, ...), with no error output. Cell ids and metadata are
fixed, so regenerating an unchanged script gives the same file.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "quickstart.py"
NOTEBOOK = HERE / "quickstart.ipynb"
METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def cells_from_script(text: str) -> list[tuple[str, str]]:
    """(cell_type, source) pairs of a percent-format script."""
    cells: list[tuple[str, str]] = []
    kind: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if kind is None:
            return  # the docstring before the first cell
        body = "\n".join(lines).strip("\n")
        if kind == "markdown":
            body = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.split("\n")
            )
        cells.append((kind, body))

    for line in text.split("\n"):
        if line.startswith("# %%"):
            flush()
            kind = "markdown" if "[markdown]" in line else "code"
            lines = []
        else:
            lines.append(line)
    flush()
    return cells


def cells_from_notebook(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(cell_type, source) pairs of a notebook."""
    return [(c.cell_type, c.source) for c in nb.cells]


def build_notebook(
    cells: list[tuple[str, str]], previous: nbformat.NotebookNode | None = None
) -> nbformat.NotebookNode:
    """A notebook of `cells`; a code cell whose source is that of a code cell of
    `previous` (the first not yet used, in order) takes that cell's outputs and
    execution count, any other code cell has none."""
    kept: dict[str, list[nbformat.NotebookNode]] = {}
    for old in previous.cells if previous is not None else []:
        if old.cell_type == "code":
            kept.setdefault(old.source, []).append(old)
    nb = nbformat.v4.new_notebook()
    nb.metadata = copy.deepcopy(METADATA)
    for k, (kind, source) in enumerate(cells):
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_code_cell(source)
            if kept.get(source):
                old = kept[source].pop(0)
                cell.outputs = copy.deepcopy(old.outputs)
                cell.execution_count = old.execution_count
        cell.id = f"cell-{k:02d}"  # fixed ids: regenerating gives the same file
        nb.cells.append(cell)
    return nb


def strip_outputs(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` without outputs and execution counts."""
    bare = copy.deepcopy(nb)
    for cell in bare.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return bare


def run_problems(nb: nbformat.NotebookNode) -> list[str]:
    """Why the outputs of `nb` are not those of one run of all its code cells in order
    (empty when they are): a cell not executed or out of order, or an error output."""
    problems = []
    code = [c for c in nb.cells if c.cell_type == "code"]
    for n, cell in enumerate(code, start=1):
        if cell.execution_count != n:
            problems.append(
                f"{cell.id}: execution count {cell.execution_count}, expected {n} "
                "(changed or not run)"
            )
        for out in cell.outputs:
            if out.output_type == "error":
                problems.append(f"{cell.id}: {out.ename}: {out.evalue}")
    return problems


@contextmanager
def _this_checkout_first() -> Iterator[None]:
    """Make a kernel started inside import this checkout's `kanaloa_env` (the kernel runs
    in another folder, where an installed copy would come first)."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), old) if p)
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def execute_notebook(
    nb: nbformat.NotebookNode, cwd: str | Path | None = None, timeout: int = 600
) -> nbformat.NotebookNode:
    """Run every cell of `nb` in place with nbclient (kernel `python3`) and return it.

    Args:
        nb: the notebook; its outputs and execution counts are replaced.
        cwd: the kernel's working folder (default: a new temporary folder).
        timeout: seconds allowed per cell.

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised (names the cell).
    """
    import nbclient  # the dev extra; only needed to execute

    with tempfile.TemporaryDirectory() as tmp, _this_checkout_first():
        client = nbclient.NotebookClient(
            nb,
            kernel_name="python3",
            timeout=timeout,
            record_timing=False,  # no timestamps in the file: a rerun changes only outputs
            resources={"metadata": {"path": str(cwd or tmp)}},
        )
        client.execute()
    nb.metadata = copy.deepcopy(METADATA)
    _tidy_outputs(nb)
    return nb


def _tidy_outputs(nb: nbformat.NotebookNode) -> None:
    """Merge consecutive prints to the same stream into one output, and keep only the PNG
    of a picture shown also as JPEG (PIL images offer both: the JPEG would add half
    again to the file)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs: list[nbformat.NotebookNode] = []
        for out in cell.outputs:
            if (
                out.output_type == "stream"
                and outputs
                and outputs[-1].output_type == "stream"
                and outputs[-1].name == out.name
            ):
                outputs[-1].text += out.text
                continue
            data = out.get("data", {})
            if "image/png" in data:
                data.pop("image/jpeg", None)
            outputs.append(out)
        cell.outputs = outputs


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="only check; exit 1 if the sources differ or the outputs are not one whole run",
    )
    mode.add_argument(
        "--execute", action="store_true", help="run the notebook and store its outputs"
    )
    args = ap.parse_args(argv)
    cells = cells_from_script(SCRIPT.read_text(encoding="utf-8"))
    current = nbformat.read(NOTEBOOK, as_version=4) if NOTEBOOK.exists() else None
    if args.check:
        if current is None or cells_from_notebook(current) != cells:
            print(f"{NOTEBOOK.name} is out of date: run python examples/sync_notebook.py --execute")
            return 1
        problems = run_problems(current)
        if problems:
            print(f"{NOTEBOOK.name} does not hold one whole run: run with --execute")
            for p in problems:
                print(f"  {p}")
            return 1
        print(f"{NOTEBOOK.name} matches {SCRIPT.name} and holds a run of it")
        return 0
    nb = build_notebook(cells, None if args.execute else current)
    if args.execute:
        execute_notebook(nb)
    nbformat.write(nb, NOTEBOOK)
    stale = run_problems(nb)
    print(f"wrote {NOTEBOOK} ({len(cells)} cells)")
    if stale:
        print("  outputs missing or stale: run with --execute before committing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
