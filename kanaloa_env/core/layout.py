"""An observation layout: a table of (name, size, ...) rows in the vector's order, from
which the offsets of the entries and the docs' table are derived (each game's
`observation.OBS_LAYOUT`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def offsets(layout: Sequence[Sequence[Any]]) -> tuple[dict[str, tuple[int, int]], int]:
    """`{name: (start, end)}` of every row of `layout` (its first two items are a name
    and a size), and the length of the whole vector."""
    out: dict[str, tuple[int, int]] = {}
    at = 0
    for name, size, *_ in layout:
        out[name] = (at, at + size)
        at += size
    return out, at


def markdown_rows(layout: Sequence[tuple[str, int, str]]) -> list[str]:
    """The layout as the rows of a Markdown table: slice, offset, length, meaning."""
    rows = ["| slice | offset | length | meaning |", "|---|---|---|---|"]
    at = 0
    for name, size, meaning in layout:
        rows.append(f"| `{name}` | {at} | {size} | {meaning} |")
        at += size
    return rows


def layout_document(
    title: str, module: str, path: str, intro: Sequence[str], layout: Sequence[tuple[str, int, str]]
) -> str:
    """The text of a game's observation doc page `path` (a Markdown file): the `title`,
    how `python -m module` generates it from `module`'s `OBS_LAYOUT`, the `intro`
    lines and the layout's table (`markdown_rows`)."""
    lines = [
        f"# {title}",
        "",
        f"Generated from `{module}.OBS_LAYOUT` by",
        f"`python -m {module} > {path}`; a test checks it is current.",
        "",
        *intro,
        "",
        *markdown_rows(layout),
    ]
    return "\n".join(lines) + "\n"


Bound = float | np.ndarray


def bounds(
    offsets: dict[str, tuple[int, int]], size: int, ranges: dict[str, tuple[Bound, Bound]]
) -> tuple[np.ndarray, np.ndarray]:
    """(size,) float32 low and high of an observation whose entries lie in [0, 1] except
    the rows named in `ranges`, each with its (low, high): numbers, or arrays of the
    row's length; `offsets` maps a row's name to its (start, end) in the vector.
    Read-only arrays."""
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    for name, (lo, hi) in ranges.items():
        a, b = offsets[name]
        low[a:b], high[a:b] = lo, hi
    low.flags.writeable = high.flags.writeable = False
    return low, high
