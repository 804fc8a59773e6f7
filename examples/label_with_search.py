"""Label heuristic self-play with the search bot's choices: data for search distillation.

    python examples/label_with_search.py --game kanaloa --num-players 4 --rollouts 128 \
        --workers 2 --seconds 3600 --output-dir runs/labels/kanaloa_4p

Heuristic bots play whole games against each other (a batch of `--games-per-chunk`
games per chunk, the game's own deal stream `--seed`, games `chunk * games_per_chunk
..`); at every decision the search bot (`make_bot("search", game=...)` with
`--rollouts` rollouts) says what it would play in the seat to act. The heuristic's
move is the one played, so the positions are those of heuristic games, and a chunk is
fully described by its deal seed, its games and the heuristic's moves: each chunk
file `chunk_NNNNN.npz` holds only

- `heuristic`: (D,) int16, the moves played, decision by decision (rows of the
  batch in order, finished games dropped, as `examples/distil_search.py` replays them),
- `search`: (D,) int16, the search bot's choice at the same decisions,
- `meta`: JSON (game, num_players, seed, first_game, num_games, rollouts, CPU seconds;
  for a guided search also `guide`, the policy files' names, and `guide_top`),

and the observations, masks and returns are recomputed by replaying it
(`kanaloa_env.training.labels.replay_chunk`), which also checks that every stored move is the heuristic's.

With `--guide FILE ...` the labels come from the search guided by those policy files
(`SearchBot(guide=...)`, `make_bot("guided")` with other networks): the search spends
its rollouts on the network's `--guide-top` most likely actions. Labelling with the
guided search of generation n and distilling the labels into generation n + 1 is one
step of expert iteration (docs/models.md).

Chunks run in `--workers` processes; each is written whole (atomically) when done,
so a stopped run loses at most the chunks under way, and a rerun skips the chunks
already on disk. `--seconds` stops starting new chunks after that many seconds
(chunks under way finish); `--chunks` caps the number. A chunk's labels depend only
on its arguments (the search draws from a generator seeded by `--seed` and the
chunk), not on the worker or the order.

CPU cost here (a 2-core machine, one worker per core): about 2.5 ms of CPU time a
decision at 4 players with 128 rollouts; a 4-player game has about 128 decisions.
"""

from __future__ import annotations

import argparse
from typing import Any

from kanaloa_env.training import run_script
from kanaloa_env.training.cli import require, script_parser
from kanaloa_env.training.labels import LabelJob, add_label_options, label_chunks


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument("--game", default="kanaloa", help="a registered game with a search bot")
    p.add_argument(
        "--num-players",
        type=int,
        default=argparse.SUPPRESS,
        help="table size (default: the game's default)",
    )
    p.add_argument(
        "--guide",
        nargs="+",
        default=None,
        help="policy files (.npz) that guide the search (default: the plain search)",
    )
    add_label_options(p, chunks=100_000, chunks_help="at most this many chunks", workers=1)
    p.add_argument("--seed", type=int, default=0, help="deal stream of the games")
    p.add_argument(
        "--seconds",
        type=float,
        default=argparse.SUPPRESS,
        help="start no chunk after this many seconds (default: no limit)",
    )
    p.add_argument(
        "--output-dir", required=True, default=argparse.SUPPRESS, help="folder of the chunk files"
    )
    args = p.parse_args(argv)
    args.num_players = getattr(args, "num_players", None)
    args.seconds = getattr(args, "seconds", None)
    names = ("rollouts", "games_per_chunk", "chunks", "workers", "guide_top")
    require(p, args, names, lambda v: v >= 1, "must be >= 1")
    if args.seconds is not None and not args.seconds > 0:
        p.error("--seconds must be > 0")
    from kanaloa_env.games import get_game

    try:
        game = get_game(args.game)
        args.num_players = game.num_players_of(game.make_config(None, args.num_players))
    except (TypeError, ValueError) as exc:
        p.error(str(exc))
    if not game.provides("search_pieces"):
        p.error(f"{game.name} has no search bot")
    if args.guide:  # checked with numpy only: the workers load the network
        from kanaloa_env.bots.policy_file import load_policy

        try:
            games = {load_policy(path).metadata["game"] for path in args.guide}
        except ValueError as exc:
            p.error(f"--guide: {exc}")
        if games != {game.name}:
            p.error(f"--guide: policy files of {game.title} are needed, got {sorted(games)}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    job = LabelJob.from_args(args)
    return label_chunks(job, args.output_dir, args.chunks, args.workers, args.seconds)


if __name__ == "__main__":
    run_script(main)
