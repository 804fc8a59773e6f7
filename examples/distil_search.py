"""Distil the search bot into a policy network: supervised learning on search labels.

This is the main job (README): with its defaults it trains, from the label chunks
shipped in `data/labels/` (2,299,186 decisions of 3-, 4- and 5-player heuristic games,
each labelled with the search bot's move), the network that ships as the "net" bot,
and measures it against heuristic and random bots:

    python examples/distil_search.py                       # everything below, defaults
    python examples/distil_search.py --labels runs/labels/kanaloa_4p --num-players 4 \
        --output-dir runs/distil_4p                        # labels of your own

Reads the chunk files of `examples/label_with_search.py` from every `--labels`
folder (any table sizes of one game), replays them to recover each decision's
observation and legal mask, and trains a multilayer perceptron to pick the search
bot's move: masked cross-entropy, AdamW with a cosine schedule, `--epochs` passes.
With `--heuristic-weight w > 0` every decision also teaches the heuristic's move with
weight `w` (the heuristic's moves are free labels: they are the moves played).
A share of the chunks (`--held-out`) is kept aside to report how often the network
agrees with the search there. After every epoch the network plays `--curve-games`
games against heuristic bots at each table size (`kanaloa_env.evaluation.evaluate`),
for `eval.csv` and `learning_curve.png`.

The network is saved as a weights-only policy file (`kanaloa_env.bots.policy_file`,
no pickle), one per `--num-players` (the same weights: the observation says the table
size), and each is measured in the seat-balanced arena against heuristic bots filling
the table (`--eval-games` games, seed `--eval-seed`) and against random bots
(`--random-games`), as

    python -m kanaloa_env.arena --bots runs/distil/kanaloa_4p.npz heuristic heuristic \
        heuristic --players 4 --games 4000 --seed 1

Writes to `--output-dir` (default `runs/distil`): `kanaloa_{P}p.npz`, `eval.csv`,
`learning_curve.png`, `train.log` and the arenas' folders `arena_{P}p_{opponents}/`.
Shipping is a copy into `kanaloa_env/bots/data/` (docs/models.md). Deterministic for
`--seed` and `--torch-threads` (torch's CPU kernels give the same results for the same
thread count): the defaults rebuild the shipped files bit for bit. Ctrl-C stops after
the current minibatch and saves the network so far and the evaluations done.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from kanaloa_env.training import run_script
from kanaloa_env.training.cli import parse_layer_sizes, require, script_parser
from kanaloa_env.training.distil import DistilSettings, add_settings_options, distil
from kanaloa_env.training.labels import chunk_files
from kanaloa_env.training.ppo import command_line
from kanaloa_env.training.records import run_log, start_run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The shipped labels (examples/label_with_search.py, docs/models.md "The recipe").
DEFAULT_LABELS = [os.path.join(ROOT, "data", "labels", f"kanaloa_{p}p") for p in (3, 4, 5)]
#: How the policy files were made, in their metadata.
RECIPE = "examples/label_with_search.py, then examples/distil_search.py"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument(
        "--labels",
        nargs="+",
        default=argparse.SUPPRESS,
        help="folders of label chunk files (default: the shipped data/labels/kanaloa_3p, "
        "kanaloa_4p and kanaloa_5p)",
    )
    p.add_argument("--output-dir", default="runs/distil", help="where the policy files and logs go")
    p.add_argument(
        "--num-players",
        type=int,
        nargs="+",
        default=argparse.SUPPRESS,
        help="table sizes to export and measure (default: those of the labels)",
    )
    add_settings_options(p)
    p.add_argument("--torch-threads", type=int, default=2, help="torch CPU threads")
    p.add_argument(
        "--curve-games",
        type=int,
        default=500,
        help="games against heuristic bots per table size after every epoch (0: none)",
    )
    p.add_argument(
        "--eval-games", type=int, default=4000, help="final arena games against heuristic bots"
    )
    p.add_argument(
        "--random-games", type=int, default=2000, help="final arena games against random bots"
    )
    p.add_argument("--eval-seed", type=int, default=1, help="seed of the arena")
    args = p.parse_args(argv)
    args.labels = getattr(args, "labels", DEFAULT_LABELS)
    args.num_players = getattr(args, "num_players", None)
    args.hidden = parse_layer_sizes(p, args.hidden, "--hidden")
    require(p, args, ("epochs", "batch_size", "torch_threads"), lambda v: v >= 1, "must be >= 1")
    games = ("curve_games", "eval_games", "random_games")
    require(p, args, games, lambda v: v >= 0, "must be >= 0")
    if args.heuristic_weight < 0 or not 0 <= args.held_out < 1:
        p.error("--heuristic-weight must be >= 0 and --held-out in [0, 1)")
    args.files = chunk_files(args.labels)
    if not args.files:
        p.error(f"no chunk_*.npz files in {args.labels}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)

    start_run(args.output_dir, args.torch_threads)
    settings = {k: v for k, v in vars(args).items() if k != "files"}
    log = run_log(args.output_dir, "train.log", settings)
    return distil(
        args.files,
        args.output_dir,
        DistilSettings.from_args(args),
        log=log,
        training={"recipe": RECIPE, "command": command_line("examples/distil_search.py")},
        num_players=args.num_players,
        curve_games=args.curve_games,
        eval_games=args.eval_games,
        random_games=args.random_games,
        eval_seed=args.eval_seed,
    )


if __name__ == "__main__":
    run_script(main)
