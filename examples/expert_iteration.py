"""Expert iteration: the search guided by generation n labels positions, generation n + 1
is distilled from those labels, and each generation meets the one before at the table.

    python examples/expert_iteration.py --generations 2 --output-dir runs/exit

Generation 0 is given (`--start`, default the game's shipped network files, one per
table size). Generation g >= 1:

1. **Labels** (`examples/label_with_search.py --guide <generation g-1 files>`): heuristic
   self-play of `--chunks` chunks of `--games-per-chunk` games per table size, from a deal
   stream of its own (`--seed` + g), each decision labelled by the search guided by
   generation g - 1 (`--rollouts`, `--guide-top`).
2. **Distillation** (`examples/distil_search.py`): one network trained anew on the labels
   of every generation so far plus the `--base-labels` folders (default: the shipped
   plain-search labels, `data/labels/`), `--epochs` epochs.
3. **Arena**: generation g against generation g - 1 at one table, the two alternating
   seats (at 4 players two seats each; at 3 and 5 players generation g holds the odd
   seats, so its share of the seats, `seat_share`, is the win share that means "as
   strong"), `--arena-games` seat-balanced games per table size, and generation g
   against heuristic bots filling the table, both on an arena seed no labelled game
   uses. `win_rate` is the share of games won by generation g's seats together. The
   figures go into each policy file's metadata (`training.generation`,
   `training.arena`) and into `generations.csv`.

Every step is skipped when its output exists, so the same command resumes a stopped run:
Ctrl-C stops the step under way at its safe point (the labelling after the chunks under
way, whose files are kept; the distillation after the current minibatch, redone on the
next run) and exits 130.

Cost: labelling is nearly all of it, about 2.5 ms of CPU a decision at 128 rollouts
(about 128 decisions a 4-player game), so a generation of 64 chunks of 64 games per
table size is about 0.4 CPU hours at 4 players.

A smoke run (a minute): `python examples/expert_iteration.py --generations 1 --num-players 3
--chunks 1 --games-per-chunk 2 --rollouts 8 --base-labels --epochs 1 --arena-games 6
--output-dir /tmp/exit_smoke`.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import time
from typing import Any

from kanaloa_env.training import run_script
from kanaloa_env.training.cli import parse_game, require, script_parser
from kanaloa_env.training.distil import DistilSettings
from kanaloa_env.training.distil import distil as run_distillation
from kanaloa_env.training.labels import LabelJob, add_label_options, chunk_files, label_chunks
from kanaloa_env.training.ppo import command_line
from kanaloa_env.training.records import run_log, start_run, write_csv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARENA_SEED = 1_000_003  # no labelled game's deal stream (those are --seed + g)
FIELDS = [
    *("generation", "players", "opponent", "games", "seat_share"),
    *("win_rate", "ci_low", "ci_high", "cpu_s"),
]
DISTILLED = "distilled.json"  # written once a generation's distillation has finished
RECIPE = "examples/expert_iteration.py (label_with_search.py, distil_search.py)"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument(
        "--game", default="kanaloa", help="a game with a search bot and shipped networks"
    )
    p.add_argument(
        "--num-players",
        type=int,
        nargs="+",
        default=None,
        help="table sizes (default: all of the start's)",
    )
    p.add_argument(
        "--start",
        nargs="+",
        default=None,
        help="generation 0's policy files (default: the shipped ones)",
    )
    p.add_argument("--generations", type=int, default=1, help="generations to make")
    chunks_help = "label chunks per table size and generation"
    add_label_options(
        p, chunks=64, chunks_help=chunks_help, workers=2, workers_help="labelling processes"
    )
    p.add_argument(
        "--base-labels",
        nargs="*",
        default=None,
        help="label folders every generation also trains on (default: the shipped ones; "
        "none: give the flag alone)",
    )
    p.add_argument("--epochs", type=int, default=8, help="distillation epochs")
    p.add_argument("--torch-threads", type=int, default=2, help="torch threads")
    p.add_argument(
        "--arena-games", type=int, default=2000, help="arena games per table size and opponent"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=100,
        help="deal stream of generation 1's labels (g: seed + g - 1)",
    )
    p.add_argument("--output-dir", default="runs/exit", help="where the generations go")
    args = p.parse_args(argv)
    counts = ("generations", "chunks", "games_per_chunk", "rollouts", "guide_top", "workers")
    require(p, args, (*counts, "epochs", "torch_threads"), lambda v: v >= 1, "must be >= 1")
    if args.arena_games < 0:
        p.error("--arena-games must be >= 0")
    from kanaloa_env.bots.policy_bot import shipped_paths
    from kanaloa_env.bots.policy_file import load_policy

    game = parse_game(p, args.game)
    if not game.provides("search_pieces"):
        p.error(f"--game: {game.title} has no search bot")
    if args.start is None:
        args.start = list(shipped_paths(game).values())
        if not args.start:
            p.error(f"--start: {game.title} ships no networks; give generation 0's files")
    try:
        start = {load_policy(f).num_players: os.path.abspath(f) for f in args.start}
    except ValueError as exc:
        p.error(f"--start: {exc}")
    for f in args.start:
        if load_policy(f).metadata["game"] != game.name:
            p.error(f"--start: {f} is not a policy of {game.title}")
    if args.num_players is None:
        args.num_players = sorted(start)
    missing = [n for n in args.num_players if n not in start]
    if missing:
        p.error(f"--num-players: the start has no network for {missing} players")
    args.start = {n: start[n] for n in args.num_players}
    if args.base_labels is None:  # the shipped labels (Kanaloa's) of the chosen table sizes
        shipped = (3, 4, 5) if args.game == "kanaloa" else ()
        args.base_labels = [
            os.path.join(ROOT, "data", "labels", f"kanaloa_{n}p")
            for n in shipped
            if n in args.num_players
        ]
    return args


def generation_dir(args: argparse.Namespace, g: int) -> str:
    return os.path.join(args.output_dir, f"gen{g}")


def policy_files(args: argparse.Namespace, g: int) -> dict[int, str]:
    """Generation g's policy file per table size."""
    if g == 0:
        return dict(args.start)
    return {
        n: os.path.join(generation_dir(args, g), f"{args.game}_{n}p.npz") for n in args.num_players
    }


def label(args: argparse.Namespace, g: int, log: Any) -> list[str]:
    """Step 1: generation g's label folders (one per table size), made or completed."""
    folders = []
    guides = policy_files(args, g - 1)
    for n in args.num_players:
        out = os.path.join(generation_dir(args, g), "labels", f"{args.game}_{n}p")
        job = LabelJob(
            game=args.game,
            num_players=n,
            rollouts=args.rollouts,
            seed=args.seed + g - 1,
            games_per_chunk=args.games_per_chunk,
            guide=[guides[n]],
            guide_top=args.guide_top,
        )
        log(f"generation {g}: labelling {n} players -> {out}")
        summary = label_chunks(job, out, args.chunks, args.workers)
        log(f"generation {g}: {json.dumps(summary)}")
        folders.append(out)
    return folders


def distil(args: argparse.Namespace, g: int, log: Any) -> None:
    """Step 2: generation g's network from every generation's labels so far (an
    interrupted distillation exits 130 before the marker file is written)."""
    from kanaloa_env.core.files import atomic_write_path

    labels = list(args.base_labels)
    for k in range(1, g + 1):
        labels += [
            os.path.join(generation_dir(args, k), "labels", f"{args.game}_{n}p")
            for n in args.num_players
        ]
    log(f"generation {g}: distilling {len(labels)} label folders")
    files = chunk_files(labels)
    if not files:
        raise SystemExit(f"no chunk_*.npz files in {labels}")
    out = generation_dir(args, g)
    settings = DistilSettings(epochs=args.epochs)
    start_run(out, args.torch_threads)
    # The log opens with the settings, as a run of examples/distil_search.py's does.
    record = {"output_dir": out, **dataclasses.asdict(settings)}
    record |= {"torch_threads": args.torch_threads, "curve_games": 0, "eval_games": 0}
    record |= {"random_games": 0, "eval_seed": 1, "labels": labels, "num_players": args.num_players}
    distil_log = run_log(out, "train.log", record)
    summary = run_distillation(
        files,
        out,
        settings,
        log=distil_log,
        training={"recipe": RECIPE, "command": command_line("examples/expert_iteration.py")},
        num_players=args.num_players,
    )
    with atomic_write_path(os.path.join(out, DISTILLED)) as tmp:
        with open(tmp, "w") as f:
            json.dump({"labels": labels, **summary}, f)


def head_to_head(new: Any, old: Any, players: int) -> list[Any]:
    """The bots of a table where `new` and `old` alternate seats."""
    return [new if s % 2 == 0 else old for s in range(players)]


def arena(args: argparse.Namespace, g: int, log: Any, cpu0: float) -> list[dict[str, Any]]:
    """Step 3: generation g against g - 1 and against heuristic bots; the rows."""
    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.evaluation.stats import wilson_interval

    rows = []
    new_files, old_files = policy_files(args, g), policy_files(args, g - 1)
    for n in args.num_players:
        new = PolicyBot.load(new_files[n], name=f"gen{g}")
        old = PolicyBot.load(old_files[n], name=f"gen{g - 1}")
        for opponent, bots in (
            (f"gen{g - 1}", head_to_head(new, old, n)),
            ("heuristic", [new] + ["heuristic"] * (n - 1)),
        ):
            if not args.arena_games:
                continue
            res = run_tournament(
                bots, num_players=n, num_games=args.arena_games, seed=ARENA_SEED, game=args.game
            )
            folder = os.path.join(generation_dir(args, g), f"arena_{n}p_{opponent}")
            res.write(folder, overwrite=True)
            # The new generation's seats together (its entrants are "gen{g}", "gen{g}#2").
            mine = [s for s in res.stats if s.name.split("#")[0] == f"gen{g}"]
            wins = sum(s.win_rate * s.games for s in mine)
            games = args.arena_games
            lo, hi = wilson_interval(int(round(wins)), games)
            row = {
                "generation": g,
                "players": n,
                "opponent": opponent,
                "games": games,
                "seat_share": round(len(mine) / n, 4),
                "win_rate": round(wins / games, 4),
                "ci_low": round(lo, 4),
                "ci_high": round(hi, 4),
                "cpu_s": round(time.process_time() - cpu0, 1),
            }
            rows.append(row)
            log(f"generation {g}, {n} players, against {opponent}: {json.dumps(row)}")
    return rows


def record(args: argparse.Namespace, g: int, rows: list[dict[str, Any]]) -> None:
    """The arena figures into generation g's policy files' metadata (rewritten whole)."""
    from kanaloa_env.bots.policy_file import PolicyWeights, load_policy, save_policy

    for n, path in policy_files(args, g).items():
        w = load_policy(path)
        meta = dict(w.metadata)
        training = dict(meta["training"])
        training["recipe"] = RECIPE
        training["command"] = command_line("examples/expert_iteration.py")
        training["generation"] = g
        training["guide"] = os.path.basename(policy_files(args, g - 1)[n])
        training["arena"] = [
            {k: r[k] for k in ("opponent", "games", "seat_share", "win_rate", "ci_low", "ci_high")}
            for r in rows
            if r["players"] == n
        ]
        training["arena_seed"] = ARENA_SEED
        meta["training"] = training
        save_policy(path, PolicyWeights(meta, w.layers))


def read_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    path = os.path.join(args.output_dir, "generations.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [
            {k: (int(v) if k in ("generation", "players", "games") else v) for k, v in r.items()}
            for r in csv.DictReader(f)
        ]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    log = run_log(args.output_dir, "log.txt", vars(args))
    cpu0 = time.process_time()
    rows = read_rows(args)
    summary: dict[str, Any] = {}
    # Ctrl-C: the labelling and the distillation stop at their own safe points and exit
    # 130 (their GracefulStop); elsewhere run_script exits 130. Outputs on disk resume.
    for g in range(1, args.generations + 1):
        done = {(int(r["generation"]), int(r["players"])) for r in rows}
        if all((g, n) in done for n in args.num_players):
            log(f"generation {g}: done before, skipped")
            continue
        label(args, g, log)  # finished chunks on disk are skipped
        if not os.path.exists(os.path.join(generation_dir(args, g), DISTILLED)):
            distil(args, g, log)
        new_rows = arena(args, g, log, cpu0)
        record(args, g, new_rows)
        rows = [r for r in rows if int(r["generation"]) != g] + new_rows
        write_csv(os.path.join(args.output_dir, "generations.csv"), rows, FIELDS)
        summary[f"gen{g}"] = new_rows
    log(
        f"done in {time.process_time() - cpu0:.0f} s of CPU (this process; labelling workers not counted)"
    )
    return summary


if __name__ == "__main__":
    run_script(main)
