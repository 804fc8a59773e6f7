"""What a training run leaves to read: its log, its table of evaluations and the plot
of its learning curve.

```python
log = file_log("runs/x/log.txt")              # prints "12:00:00 message" and appends it
log("evaluation at 1,000 steps: ...")
row = {"timesteps": 1000, **win_rate_columns("random", result)}
write_csv("runs/x/eval.csv", [row])           # whole or not at all
plot_win_rates([row], 4, "runs/x/learning_curve.png", title="MaskablePPO")
```
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "file_log",
    "run_log",
    "start_run",
    "plot_win_rates",
    "save_figure",
    "win_rate_columns",
    "write_csv",
]


def file_log(path: str) -> Callable[[str], None]:
    """A `log(message)` that prints each message with the time and appends it to `path`."""

    def log(message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {message}"
        print(line, flush=True)
        with open(path, "a") as f:
            f.write(line + "\n")

    return log


def start_run(output_dir: str, torch_threads: int | None = None) -> None:
    """Make the run's folder `output_dir` (and its parents) and, given `torch_threads`,
    run torch's CPU kernels on that many threads (torch is imported then)."""
    if torch_threads is not None:
        import torch

        torch.set_num_threads(torch_threads)
    os.makedirs(output_dir, exist_ok=True)


def run_log(output_dir: str, name: str, settings: Mapping[str, Any]) -> Callable[[str], None]:
    """Make the run's folder `output_dir` (and its parents), start its log `name` there
    (`file_log`) with a line "args: {settings as JSON}", and return the log."""
    os.makedirs(output_dir, exist_ok=True)
    log = file_log(os.path.join(output_dir, name))
    log(f"args: {json.dumps(dict(settings))}")
    return log


def write_csv(
    path: str, rows: Sequence[Mapping[str, Any]], fields: Sequence[str] | None = None
) -> None:
    """Write `rows` as a CSV table with a header, whole or not at all.

    Args:
        path: the file (replaced).
        rows: one mapping a row; a key not in `fields` is an error (`ValueError`), a
            field a row lacks is left empty.
        fields: the columns in order; None: every key of the rows, sorted, with
            `timesteps` first.
    """
    from kanaloa_env.core.files import atomic_write_path

    if fields is None:
        fields = sorted({k for r in rows for k in r}, key=lambda k: (k != "timesteps", k))
    with atomic_write_path(path) as tmp, open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields))
        w.writeheader()
        w.writerows(rows)


def win_rate_columns(label: str, result: Any) -> dict[str, Any]:
    """An evaluation's figures as the columns of an evaluation table:
    `{label}_win_rate`, `{label}_ci_low` and `{label}_ci_high` (rounded to 4 places) and
    `{label}_games`. `result` is anything with `win_rate`, `ci_low`, `ci_high` and
    `games` (`kanaloa_env.evaluation.EvalResult`)."""
    return {
        f"{label}_win_rate": round(result.win_rate, 4),
        f"{label}_ci_low": round(result.ci_low, 4),
        f"{label}_ci_high": round(result.ci_high, 4),
        f"{label}_games": result.games,
    }


def save_figure(fig: Any, ax: Any, path: str) -> None:
    """Finish the matplotlib figure `fig` of learning curves drawn on its axes `ax`
    (legend at the upper left, a light grid, tight layout) and save it as a PNG at 110
    dpi at `path`, whole or not at all; closes it."""
    import matplotlib.pyplot as plt

    from kanaloa_env.core.files import atomic_write_path

    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_write_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def plot_win_rates(
    rows: Sequence[Mapping[str, Any]], num_players: int, path: str, title: str | None = None
) -> None:
    """Plot the win rates of an evaluation table over training, with their Wilson 95%
    bands, into the PNG file `path`.

    Args:
        rows: the evaluations in order, each with `timesteps` and, for each opponent
            kind shown ("random", "heuristic"), the `win_rate_columns` of that kind (a
            kind is drawn only when every row has it).
        num_players: the table size, for the legend and the chance line (1 / P).
        path: the PNG file (replaced).
        title: the plot's title, followed by the table size.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = np.array([r["timesteps"] for r in rows], dtype=float)
    for label, colour in (("random", "tab:blue"), ("heuristic", "tab:orange")):
        key = f"{label}_win_rate"
        if not all(key in r for r in rows):
            continue
        y = np.array([r[key] for r in rows], dtype=float)
        lo = np.array([r[f"{label}_ci_low"] for r in rows], dtype=float)
        hi = np.array([r[f"{label}_ci_high"] for r in rows], dtype=float)
        others = f"{num_players - 1} {label} bots" if num_players > 2 else f"a {label} bot"
        ax.plot(x, y, marker="o", color=colour, label=f"vs {others}")
        ax.fill_between(x, lo, hi, color=colour, alpha=0.2)
    ax.axhline(1.0 / num_players, color="grey", linestyle="--", label=f"chance (1/{num_players})")
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{title or 'MaskablePPO'}, {num_players} players")
    save_figure(fig, ax, path)
