"""The baselines' learning curves: win rate against heuristic bots over CPU-hours, one line
per method, a panel per game and table size (docs/baselines.md).

    python examples/plot_baselines.py                         # docs/images/baselines.png

Reads the evaluation files of the runs in `docs/data/baselines/` (each an `eval.csv` as
the recipe wrote it, copied there with the run it came from named in docs/baselines.md)
and the table `CURVES` below: which file is which method, and the CPU time the method
had spent before the run began (the labels a distillation learns from, the run a
fine-tuning starts from), so that every line starts where its method's cost starts.
"""

from __future__ import annotations

import argparse
import csv
import os
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "docs", "data", "baselines")


@dataclass(frozen=True)
class Curve:
    """One method's evaluations: `file` in DATA, its panel and label, the CPU seconds spent
    before its run (`offset_s`), and for distillation files the rows to keep."""

    panel: str
    label: str
    file: str
    offset_s: float = 0.0
    players: int | None = None  # distil_search.py rows: this table size against heuristic bots


# What a method spent before its run began (docs/models.md): the search labels the
# distillation learns from, the main job's distillation (its eval.csv's last cpu_s), the
# first Kahuna run that the continued one starts from.
LABELS_S = 2.46 * 3600
DISTIL_S = 567.0
KAHUNA_FIRST_RUN_S = 5636.0

CURVES = [
    Curve(
        "Kanaloa, 4 players",
        "MaskablePPO (SB3), from scratch vs random bots",
        "kanaloa_4p_maskable_ppo.csv",
    ),
    Curve(
        "Kanaloa, 4 players",
        "batched PPO from scratch vs heuristic bots",
        "kanaloa_4p_batched_ppo_scratch.csv",
    ),
    Curve(
        "Kanaloa, 4 players",
        "search distilled (labels 2.46 CPU-h)",
        "kanaloa_distil.csv",
        offset_s=LABELS_S,
        players=4,
    ),
    Curve(
        "Kanaloa, 4 players",
        "batched PPO from the distilled network",
        "kanaloa_4p_batched_ppo_finetune.csv",
        offset_s=LABELS_S + DISTIL_S,
    ),
    Curve(
        "Kahuna",
        "batched PPO, continued from the first run (94 min CPU)",
        "kahuna_batched_ppo_continued.csv",
        offset_s=KAHUNA_FIRST_RUN_S,
    ),
]


def read_points(
    curve: Curve, data: str = DATA
) -> tuple[list[float], list[float], list[float], list[float]]:
    """(CPU hours, win rate, interval low, interval high) of a curve's evaluations.

    Raises:
        FileNotFoundError: the curve's file is not in `data` (every curve is drawn).
    """
    with open(os.path.join(data, curve.file), newline="") as f:
        rows = list(csv.DictReader(f))
    x, y, lo, hi = [], [], [], []
    for r in rows:
        if curve.players is not None:  # distil_search.py: one row per size and opponent
            if r["opponents"] != "heuristic" or r["epoch"] == "final":
                continue
            if int(r["players"]) != curve.players:
                continue
            rate, low, high = r["win_rate"], r["ci_low"], r["ci_high"]
        else:
            rate, low, high = r["heuristic_win_rate"], r["heuristic_ci_low"], r["heuristic_ci_high"]
        x.append((float(r["cpu_s"]) + curve.offset_s) / 3600)
        y.append(float(rate))
        lo.append(float(low))
        hi.append(float(high))
    return x, y, lo, hi


def plot(path: str, data: str = DATA) -> None:
    """Draw every curve of `CURVES` from the files in `data` into the PNG `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kanaloa_env.core.files import atomic_write_path

    panels = list(dict.fromkeys(c.panel for c in CURVES))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.4), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        for k, curve in enumerate(c for c in CURVES if c.panel == panel):
            x, y, lo, hi = read_points(curve, data)
            ax.plot(x, y, marker="o", markersize=3, color=f"C{k}", label=curve.label)
            ax.fill_between(x, lo, hi, color=f"C{k}", alpha=0.15)
        chance = 0.25 if "4 players" in panel else 0.5
        ax.axhline(chance, color="grey", linestyle="--", linewidth=0.8, label="chance")
        if any(c.offset_s == 0 for c in CURVES if c.panel == panel):
            # Runs from nothing and runs after hours of labels share the panel: linear up
            # to 0.1 CPU-hours, logarithmic above.
            ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xlim(left=0)
        ax.set_xlabel("CPU hours spent by the method (2-core machine)")
        ax.set_ylabel("win rate against heuristic bots (95% CI)")
        ax.set_title(panel)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    with atomic_write_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--out", default=os.path.join(ROOT, "docs", "images", "baselines.png"), help="the picture"
    )
    p.add_argument("--data", default=DATA, help="the folder of the evaluation files")
    args = p.parse_args(argv)
    plot(args.out, args.data)
    print(args.out)


if __name__ == "__main__":
    main()
