"""Replay a recorded game of any game: `python -m kanaloa_env.replay FILE`.

```
python -m kanaloa_env.replay runs/game.jsonl             # step by step: what happened + the table
python -m kanaloa_env.replay runs/game.jsonl --brief     # what happened, no tables
python -m kanaloa_env.replay runs/arena/kanaloa/games.jsonl --index 3 --gif runs/game3.gif
python -m kanaloa_env.replay runs/kahuna.jsonl --game kahuna   # stop unless it is a Kahuna record
python -m kanaloa_env.replay runs/game.jsonl --png-dir runs/frames/   # one PNG per position
```

`--index` (`-i`) picks a game of a file that holds several (an arena's `games.jsonl`),
counting from 0. `--game` names a game, as in every command of the package; replay
needs none (the record names its game), and with one it checks that the record is
of that game.

On a terminal the replay waits for Enter after each step (`c` runs to the end, `q`
stops); piped or with `--no-pause` it prints every step at once. The record names
its game (Kanaloa or Kahuna); the format is described in `kanaloa_env.records`,
and every field replay can recompute is checked. Exit status: 0 when the record
replays; 1 when it does not (an illegal action, another player to act than
recorded, a result or name that disagrees: the error names the step); 2 for a bad
command line or an unreadable or malformed file, checked before anything is
replayed (the output options too: the `--gif` file's directory must exist); 3 when
a picture cannot be written all the same (e.g. the disk is full). Errors go to
stderr, never as a traceback. Names from the record are printed with control
characters escaped.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..drawing.terminal import add_color_option, color_from_option, plural
from ..games import GAMES
from ..records import ReplayError, describe_step, load_records, replay
from ..render import SCALE_RANGE, render_text
from .options import bounded_int, positive_int

__all__ = ["main", "printable"]

_MIN_SCALE, _MAX_SCALE = SCALE_RANGE  # as `render.gif.save_gif`; PNGs get the same


def printable(text: str) -> str:
    """`text` with control characters (ANSI escapes, newlines, ...) shown as escapes, so a
    string from a file cannot move the cursor, recolour or fake lines on a terminal."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def _scale(text: str) -> float:
    """--scale: a number in 0.1..2.0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not _MIN_SCALE <= value <= _MAX_SCALE:  # also rejects nan
        raise argparse.ArgumentTypeError(f"must be in {_MIN_SCALE}..{_MAX_SCALE}, got {text}")
    return value


def _index(text: str) -> int:
    """--index: an int >= 0 (its upper bound is the file's number of games, checked later)."""
    return bounded_int(text, 0, None, "an int >= 0")


def _game_name(text: str) -> str:
    """--game: a game name; a number gets a pointer to --index, which picks a game of
    the file."""
    if text.strip().lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError(
            f"takes a game name ({', '.join(sorted(GAMES))}), got {text!r}; "
            f"to pick game {text.strip()} of a file, use --index {text.strip()}"
        )
    return text.lower()


def _gif_path(text: str) -> str:
    """--gif: a .gif file in an existing directory (checked now, not after the replay)."""
    if not text.lower().endswith(".gif"):
        raise argparse.ArgumentTypeError(f"the file name must end in .gif, got {text!r}")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; name a .gif file")
    folder = os.path.dirname(text) or "."
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"directory {folder!r} does not exist")
    return text


def _png_dir(text: str) -> str:
    """--png-dir: a directory, or a path where one can be made (not under a file)."""
    # The nearest existing path up the tree must be a directory for makedirs to work.
    path = os.path.abspath(text)
    while not os.path.exists(path):
        path = os.path.dirname(path)
    if not os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{path!r} exists and is not a directory")
    return text


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m kanaloa_env.replay",
        description="Replay a recorded game (Kanaloa or Kahuna) step by step, checking it, "
        "or render it to pictures.",
    )
    ap.add_argument("file", help="a game record (JSON lines, see kanaloa_env.records)")
    ap.add_argument(
        "-i",
        "--index",
        type=_index,
        default=0,
        help="which game of the file, counting from 0 (default 0, the first); an arena's "
        "games.jsonl holds every game of the tournament",
    )
    ap.add_argument(
        "--game",
        type=_game_name,
        choices=sorted(GAMES),
        default=None,
        help="the game the record must be of (default: any; the record names its game)",
    )
    ap.add_argument(
        "--seat",
        type=int,
        default=None,
        help="always show this player's hand (default: the player to act)",
    )
    ap.add_argument("--brief", action="store_true", help="print what happened, without the tables")
    ap.add_argument(
        "--no-pause",
        action="store_true",
        help="print every step at once (the default when the output is not a terminal)",
    )
    add_color_option(ap)
    ap.add_argument(
        "--gif", metavar="OUT", type=_gif_path, help="write an animated GIF of the game here"
    )
    ap.add_argument(
        "--png-dir", metavar="DIR", type=_png_dir, help="write one PNG per position into DIR"
    )
    ap.add_argument(
        "--frame-ms",
        type=positive_int,
        default=700,
        help="GIF: milliseconds per frame, >= 1 (default 700)",
    )
    ap.add_argument(
        "--scale",
        type=_scale,
        default=1.0,
        help=f"GIF/PNG: size factor, {_MIN_SCALE}..{_MAX_SCALE} (default 1)",
    )
    ap.add_argument(
        "--every",
        type=positive_int,
        default=1,
        help="GIF/PNG: every N-th position (the last always)",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, with `argv` as its arguments (default: `sys.argv[1:]`); returns the
    exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:  # `... | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    ap = _build_parser()
    args = ap.parse_args(argv)
    try:
        records = load_records(args.file)
    except (OSError, ValueError) as e:
        print(f"cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    if args.index >= len(records):
        ap.error(
            f"--index must be in 0..{len(records) - 1} "
            f"({printable(args.file)} holds {plural(len(records), 'game')})"
        )
    rec = records[args.index]
    if args.game is not None and rec.game != args.game:
        ap.error(
            f"--game {args.game}: game {args.index} of {printable(args.file)} is a "
            f"{rec.rules.title} record; pass --game {rec.game} or leave --game out"
        )
    P = rec.num_players
    if args.seat is not None and not 0 <= args.seat < P:
        ap.error(f"--seat must be in 0..{P - 1}")
    color = color_from_option(args.color)
    render = bool(args.gif or args.png_dir)
    names = [f"player_{p}" for p in range(P)]
    players = rec.meta.get("players") if isinstance(rec.meta, dict) else None
    if isinstance(players, list) and len(players) == P:
        names = [f"player_{p} ({printable(str(players[p]))})" for p in range(P)]
    try:
        start = rec.start_state()
    except (TypeError, ValueError) as e:  # `load_records` checks starts; a GameRecord may not
        print(
            f"cannot read {args.file}: game {args.index}: cannot build the start position: {e}",
            file=sys.stderr,
        )
        return 2
    states = [start]
    quiet = render  # rendering only: no step-by-step text
    pause = not (quiet or args.no_pause) and sys.stdin.isatty() and sys.stdout.isatty()
    start_desc = f"seed {rec.seed}, deal {rec.deal}" if rec.seed is not None else "a scenario"
    if not quiet:
        print(
            f"Game {args.index} of {printable(args.file)}: {rec.rules.title}, {P} players, "
            f"from {start_desc}"
        )
        if not args.brief:
            print(render_text(start, 0, color=color, seat=args.seat))
    try:
        for r in replay(rec):
            states.append(r.after)
            if quiet:
                continue
            if pause:
                pause = _wait()
            d = r.decision
            print(f"\nStep {d.step}:")
            for line in describe_step(r.before, d.action, r.after, names=names):
                print(f"  - {line}")
            if not args.brief:
                print(render_text(r.after, 0, color=color, seat=args.seat))
    except ReplayError as e:
        print(f"\n{e}", file=sys.stderr)
        return 1
    except _Stop:
        return 0
    last = states[-1]
    if not quiet and not last.done[0]:
        steps = plural(len(rec.decisions), "step")
        print(f"\nThe record ends after {steps}; the game is not over.")
    if render:
        try:
            _write_pictures(args, states)
        except OSError as e:  # the options were checked up front: a full disk, a race
            print(f"cannot write the pictures: {e}", file=sys.stderr)
            return 3
    return 0


class _Stop(Exception):
    """The reader typed q at a pause."""


def _wait() -> bool:
    """Wait for Enter between steps; False once the reader asks to run to the end."""
    try:
        answer = input("-- Enter: next step, c: to the end, q: quit -- ").strip().lower()
    except EOFError:
        return False
    if answer in ("q", "quit"):
        raise _Stop
    return answer not in ("c", "continue")


def _write_pictures(args: argparse.Namespace, states: list[Any]) -> None:
    """Write the --png-dir frames and the --gif animation (each file whole or not at all).

    Raises:
        OSError: a file or the directory cannot be written.
    """
    from PIL import Image

    from ..core.files import atomic_write_path
    from ..render import render_rgb
    from ..render.gif import save_gif

    keep = list(range(0, len(states), args.every))
    if keep[-1] != len(states) - 1:
        keep.append(len(states) - 1)

    if args.png_dir:
        os.makedirs(args.png_dir, exist_ok=True)
        for k in keep:
            img = Image.fromarray(render_rgb(states[k], 0, args.seat))
            if args.scale != 1.0:
                img = img.resize((round(img.width * args.scale), round(img.height * args.scale)))
            with atomic_write_path(os.path.join(args.png_dir, f"step_{k:04d}.png")) as tmp:
                img.save(tmp, format="PNG")
        print(f"wrote {plural(len(keep), 'PNG')} to {args.png_dir}")
    if args.gif:
        frames = [states[k] for k in keep]
        n = save_gif(frames, args.gif, 0, args.seat, frame_ms=args.frame_ms, scale=args.scale)
        print(f"wrote {args.gif} ({plural(n, 'frame')})")


if __name__ == "__main__":
    sys.exit(main())
