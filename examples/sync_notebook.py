"""Build `examples/quickstart.ipynb` from `examples/quickstart.py` (the source of truth).

```
python examples/sync_notebook.py           # regenerate the notebook
python examples/sync_notebook.py --check   # exit 1 when the notebook is out of date
```

The script's cells start with `# %%` (code) or `# %% [markdown]` (markdown, every
line prefixed `# `); the module docstring before the first cell is not part of the
notebook. The notebook is written without outputs and with fixed cell ids, so
regenerating an unchanged script gives the same file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "quickstart.py"
NOTEBOOK = HERE / "quickstart.ipynb"


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


def build_notebook(cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for k, (kind, source) in enumerate(cells):
        make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        cell = make(source)
        cell.id = f"cell-{k:02d}"  # fixed ids: regenerating gives the same file
        nb.cells.append(cell)
    return nb


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only check; exit 1 if out of date")
    args = ap.parse_args(argv)
    cells = cells_from_script(SCRIPT.read_text(encoding="utf-8"))
    if args.check:
        current = nbformat.read(NOTEBOOK, as_version=4) if NOTEBOOK.exists() else None
        if current is None or cells_from_notebook(current) != cells:
            print(f"{NOTEBOOK.name} is out of date: run python examples/sync_notebook.py")
            return 1
        print(f"{NOTEBOOK.name} matches {SCRIPT.name}")
        return 0
    nbformat.write(build_notebook(cells), NOTEBOOK)
    print(f"wrote {NOTEBOOK} ({len(cells)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
