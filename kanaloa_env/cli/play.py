"""Play in the terminal against bots: `python -m kanaloa_env.play`, any game of the package.

```
python -m kanaloa_env.play                               # Kanaloa, 4 players, you are player_0
python -m kanaloa_env.play --players 3 --seat 1 --bots heuristic random --seed 7
python -m kanaloa_env.play --announce --record runs/game.jsonl   # the variant; save the game
python -m kanaloa_env.play --bots runs/maskable_ppo/model.zip   # a trained model (trusted files only)
python -m kanaloa_env.play --game kahuna                 # Kahuna against the heuristic
```

Before each of your decisions the table is shown (the game's text view: for
Kanaloa the route, boats, trump, trick and your hand; for Kahuna the board, the
face-up row and your hand), then what happened since your last decision, then your
legal moves, numbered. Type a number, or the game's own notation (Kanaloa: a card
name like `red-11`, `take`/`decline`, `yes`/`no`, `#5` for ocean card 5; Kahuna:
see `h`), `h` for help or `q` to quit. Colours are used only when the output is a
terminal (`--color` overrides; `NO_COLOR` is honoured).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from ..core.batch import GameState
from ..drawing.terminal import add_color_option, color_from_option, plural
from ..games import game_of_config
from ..games.protocol import Game
from ..records import Recorder, bot_action, describe_step
from .options import (
    add_config_options,
    add_game_option,
    config_overrides,
    game_from_argv,
    own_bots_text,
)

__all__ = ["HumanQuit", "main", "play_game"]

_QUIT = ("q", "quit", "exit")
_HELP = ("h", "help", "?")


class HumanQuit(Exception):
    """The human typed `q` (or the input ended)."""


def _table(game: Game[Any, Any], state: GameState, seat: int, color: bool) -> str:
    """The game's text table for `seat`, without its list of raw action ids (the moves
    are numbered below it)."""
    return game.render_text(state, 0, color=color, seat=seat, legal=False)


def _names(num_players: int, human: int | None) -> list[str]:
    return [f"player_{p}" + (" (you)" if p == human else "") for p in range(num_players)]


def play_game(
    config: Any,
    human: int,
    bots: Sequence[Any],
    seed: int,
    *,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    color: bool = False,
    record_path: str | None = None,
    bot_seed: int | None = None,
) -> GameState:
    """Play one game with a human at seat `human` and `bots` at the other seats.

    Args:
        config: the rules (a `Config` of the game to play).
        human: the human's seat, 0..P-1.
        bots: one bot per seat other than the human's, in seat order.
        seed: the deal stream (game 0 of `init(config, 1, seed)`).
        input_fn: reads one line for a prompt (`input`; tests pass their own).
        out: where to print (default stdout).
        color: ANSI colours.
        record_path: save the game record (JSON lines) there, also after `q` and Ctrl-C.
        bot_seed: seed of the bots' random generator (default `seed`).

    Returns:
        The final state.

    Raises:
        HumanQuit: the human quit (the record, if asked for, is saved first).
        KeyboardInterrupt: Ctrl-C (the record, if asked for, is saved first).
    """
    out = out or sys.stdout
    game = game_of_config(config)
    P = game.num_players_of(config)
    if not 0 <= human < P:
        raise ValueError(f"the human's seat must be in 0..{P - 1}, got {human}")
    if len(bots) != P - 1:
        raise ValueError(f"need one bot per other seat ({plural(P - 1, 'bot')}), got {len(bots)}")
    seat_bots: dict[int, Any] = dict(zip([p for p in range(P) if p != human], bots, strict=True))
    names = _names(P, human)
    labels = {p: getattr(b, "name", type(b).__name__) for p, b in seat_bots.items()}
    meta = {"players": [("human" if p == human else labels[p]) for p in range(P)]}
    rec = Recorder(config, seed, meta=meta)
    rng = np.random.default_rng(seed if bot_seed is None else bot_seed)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(
        f"{game.title}: {P} players, seed {seed}; you are {names[human].split()[0]}; "
        + ", ".join(f"player_{p}: {labels[p]}" for p in sorted(seat_bots))
    )
    events: list[str] = []
    moved = False  # whether the human has decided yet (for the heading of the events)
    try:
        while not rec.done:
            state = rec.state
            p = int(state.current_player[0])
            if p != human:
                action = bot_action(seat_bots[p], state, rng)
            else:
                say()
                say(_table(game, state, human, color))
                if events:
                    say("Since your last move:" if moved else "So far:")
                    for e in events:
                        say(f"  - {e}")
                    events = []
                moved = True
                moves = game.legal_moves(state, color)
                say(f"Your move ({game.turn_prompt(state)}):")
                for m in moves:
                    say(f"  {m.number:>2}) {m.label}")
                action = _ask(game, state, input_fn, say)
            before = state
            after = rec.step(action)
            events += describe_step(before, action, after, names=names)
    except (HumanQuit, KeyboardInterrupt):  # the game so far is kept either way
        if record_path:
            _save(rec, record_path, say)
        raise
    say()
    say(_table(game, rec.state, human, color))
    if events:
        say("Since your last move:")
        for e in events:
            say(f"  - {e}")
    for line in game.final_lines(rec.state, names, color):
        say(line)
    if record_path and _save(rec, record_path, say):
        say(f"(replay: python -m kanaloa_env.replay {record_path})")
    return rec.state


def _save(rec: Recorder, path: str, say: Callable[[str], None]) -> bool:
    """Save the record; on failure say why in one line (the game is not lost to a
    traceback, and nothing half written is left: the file is replaced whole)."""
    try:
        rec.record.save(path)
    except OSError as exc:
        say(f"could not save the game record to {path}: {exc.strerror or exc}")
        return False
    say(f"Game record saved to {path}")
    return True


def _ask(
    game: Game[Any, Any],
    state: GameState,
    input_fn: Callable[[str], str],
    say: Callable[[str], None],
) -> int:
    """Prompt until the human names a legal move; re-prompt with the reason otherwise."""
    while True:
        try:
            line = input_fn("> ")
        except EOFError:
            raise HumanQuit from None
        word = line.strip().lower()
        if word in _QUIT:
            raise HumanQuit
        if word in _HELP:
            say(game.move_help())
            continue
        try:
            return game.parse_move(line, state)
        except ValueError as e:
            say(f"  {e}")


def _build_parser(game: Game[Any, Any]) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m kanaloa_env.play",
        description="Play in the terminal: you take one seat, bots the others.",
        epilog="A model file (.zip) is unpickled when loaded, which runs code stored in "
        "it: pass only model files you trust.",
    )
    add_game_option(ap)
    ap.add_argument(
        "--players",
        type=int,
        default=game.default_num_players,
        help=f"players at the table, {game.player_counts_text()} "
        f"(default {game.default_num_players})",
    )
    ap.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    ap.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        metavar="BOT",
        help="the other seats' bots in seat order: 'random', the game's own bots "
        f"({own_bots_text()}), a policy file .npz or a model .zip (loading it can run code: "
        "trusted files only); one name fills every seat (default: heuristic)",
    )
    ap.add_argument("--seed", type=int, default=None, help="deal seed (default: a random one)")
    add_config_options(ap, game)
    add_color_option(ap)
    ap.add_argument("--record", metavar="FILE", help="save the game record (JSON lines) here")
    return ap


def _unwritable(path: str) -> str | None:
    """Why a record cannot be saved at `path`, or None if it looks writable.

    Checked before the game starts: the record is written only at its end (or on
    `q`), and a game lost to a typo in the path is worse than an early error.
    """
    if os.path.isdir(path):
        return "is a directory; name a file"
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        return f"directory {folder!r} does not exist"
    # The record is written beside the file and renamed over it: the folder must be writable.
    if not os.access(folder, os.W_OK):
        return "is not in a writable directory"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, with `argv` as its arguments (default: `sys.argv[1:]`); returns the
    exit status (0 also when the human quits).

    Bad options, `--record` in a missing directory included, exit 2 before the game.
    """
    game = game_from_argv(argv)
    ap = _build_parser(game)
    args = ap.parse_args(argv)
    if args.players not in game.player_counts:
        ap.error(
            f"--players must be in {game.player_counts_text()} for {game.title}, got {args.players}"
        )
    if not 0 <= args.seat < args.players:
        ap.error(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    if len(args.bots) not in (1, args.players - 1):
        ap.error(
            f"--bots takes one bot for every seat or {plural(args.players - 1, 'bot')} (one per "
            f"other seat), got {len(args.bots)}"
        )
    if args.seed is not None and not 0 <= args.seed < 2**64:
        ap.error("--seed must be in 0..2**64-1")
    if args.record:
        problem = _unwritable(args.record)
        if problem:
            ap.error(f"--record {args.record}: {problem}")
    from ..bots import make_bot

    specs = args.bots * (args.players - 1) if len(args.bots) == 1 else args.bots
    try:
        bots = [make_bot(s, game) for s in specs]
        config = game.make_config(config_overrides(args, game), num_players=args.players)
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    color = color_from_option(args.color)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        play_game(config, args.seat, bots, seed, color=color, record_path=args.record)
    except HumanQuit:
        print("\nYou quit the game.")
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
