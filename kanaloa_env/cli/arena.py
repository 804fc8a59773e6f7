"""`python -m kanaloa_env.arena`: a seat-balanced tournament among bots, with ratings.

```
python -m kanaloa_env.arena --bots heuristic random random random --players 4 --games 2000
python -m kanaloa_env.arena --game kahuna --bots heuristic random --games 2000 --out runs/arena/k
```

Argument parsing and output only; the tournament is `kanaloa_env.evaluation.arena`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..core.files import check_output_dir
from ..drawing.terminal import plural
from ..evaluation.arena import DEFAULT_BATCH_SIZE, run_tournament
from ..games.protocol import Game
from .options import (
    add_config_options,
    add_game_option,
    config_overrides,
    game_from_argv,
    own_bots_text,
    positive_int,
    seed_int,
)

__all__ = ["main"]

DEFAULT_OUT = os.path.join("runs", "arena")


def _parser(game: Game) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kanaloa_env.arena",
        description="Play a seat-balanced tournament among bots and rate them "
        "(win rate with 95% Wilson interval, mean finishing rank, openskill "
        "Plackett-Luce rating). The table is ordered by win rate, best first (ties: by mean "
        "rank, then by rating).",
        epilog="examples: python -m kanaloa_env.arena --bots heuristic random random random "
        "--players 4 --games 2000 --seed 0; python -m kanaloa_env.arena --game kahuna "
        "--bots heuristic random --games 2000. A model file (.zip) is unpickled when "
        "loaded, which runs code stored in it: pass only model files you trust.",
    )
    add_game_option(p)
    p.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help=f"entrants: 'random', the game's own bots ({own_bots_text()}), a policy file "
        "(.npz, weights only) or a saved MaskablePPO model (.zip: loading it can run code, "
        "trusted files only); at least --players of them, repeats allowed (named bot#2, ...)",
    )
    lo, hi = min(game.player_counts), max(game.player_counts)
    p.add_argument(
        "--players",
        type=int,
        default=game.default_num_players,
        choices=range(lo, hi + 1),
        metavar="P",
        help=f"table size {game.player_counts_text()} (default {game.default_num_players})",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        default=1000,
        help="games to play (default 1000); a multiple of --players balances the seats",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="seed of deals, seating and bots")
    p.add_argument(
        "--out",
        default=None,
        help=f"directory for results.json, results.csv, games.csv, ratings.png (default "
        f"{os.path.join(DEFAULT_OUT, '<game>')}); missing parent folders are created; it must "
        "be new or empty unless --overwrite",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the --out directory of an earlier run (as a whole: files of two runs "
        "never mix)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=DEFAULT_BATCH_SIZE,
        help=f"games stepped together (default {DEFAULT_BATCH_SIZE})",
    )
    add_config_options(p, game)
    p.add_argument(
        "--record",
        action="store_true",
        help="also save every game (seed, deal, actions) to OUT/games.jsonl "
        "in the kanaloa_env.records format",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, with `argv` as its arguments (default: `sys.argv[1:]`); returns the
    exit code (2 for bad arguments, with a message)."""
    game = game_from_argv(argv)
    parser = _parser(game)
    args = parser.parse_args(argv)
    if len(args.bots) < args.players:
        parser.error(
            f"--bots needs at least --players={args.players} entries, got {len(args.bots)}"
        )
    out = args.out if args.out is not None else os.path.join(DEFAULT_OUT, game.name)

    def check_out() -> None:
        # After the bots and rules are checked (a typo in a bot name is reported as such)
        # and before playing (a long tournament must not end in a refused folder). Missing
        # parent folders are made when the results are written.
        if os.path.isdir(out) and os.listdir(out) and not args.overwrite:
            raise ValueError(
                f"--out {out!r} already holds files (of an earlier run?); choose another "
                "--out, or pass --overwrite to replace that folder"
            )
        check_output_dir(out, args.overwrite, make_parents=True)

    try:
        result = run_tournament(
            args.bots,
            game=game,
            num_players=args.players,
            num_games=args.games,
            seed=args.seed,
            config=config_overrides(args, game),
            batch_size=args.batch_size,
            record_games=args.record,
            progress=not args.no_progress,
            before_play=check_out,
        )
    except (ValueError, TypeError, OSError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.games % args.players:
        print(
            f"note: {plural(args.games, 'game')} is not a multiple of {args.players}; "
            "seats are balanced only up to the last partial block",
            file=sys.stderr,
        )
    try:
        # Files first: the results are kept even if stdout is closed early (a pipe to head).
        paths = result.write(out, records=args.record, overwrite=args.overwrite, make_parents=True)
    except (OSError, ValueError) as exc:
        print(f"{parser.prog}: error: cannot write results to {out!r}: {exc}", file=sys.stderr)
        return 2
    print(result.table())
    print("wrote " + ", ".join(paths.values()))
    return 0


def run() -> None:
    """`python -m kanaloa_env.arena`: `main()` with a quiet exit when stdout closes early."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); results are already written.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        print("\ninterrupted: nothing written", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    run()
