"""Play Kanaloa in the terminal against bots: `python -m kanaloa_env.play`.

```
python -m kanaloa_env.play                               # 4 players, you are player_0
python -m kanaloa_env.play --players 3 --seat 1 --bots heuristic random --seed 7
python -m kanaloa_env.play --announce --record game.jsonl   # the variant; save the game
python -m kanaloa_env.play --bots runs/maskable_ppo/model.zip   # a trained model plays the others
```

Before each of your decisions the table is shown (the route with coloured fields,
dolphins `~`, the start `*` and the boats; every player's progress; trump; the
current trick; your hand sorted by suit), then what happened since your last
decision (cards the bots played, trick winners, boat moves, removed ocean cards),
then your legal moves, numbered. Type a number, a card name (`red-11`,
`kanaloa`), `take`/`decline` for a dolphin move, `yes`/`no` to announce, `#5` to
remove ocean card 5, `h` for help or `q` to quit. Colours are used only when the
output is a terminal (`--color` overrides; `NO_COLOR` is honoured).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from .core import Config
from .core.kanaloa.constants import (
    ANNOUNCE,
    CARD_NAMES,
    CARD_SUIT,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    KANALOA,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_ANNOUNCE,
    NUM_TIKI,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    Phase,
    card_from_name,
)
from .core.kanaloa.state import State
from .records import Recorder, bot_action, describe_step, ocean_card_ahead
from .render.text import add_color_option, color_from_option, render_text

__all__ = ["HumanQuit", "Move", "main", "parse_move", "play_game"]

_RESET = "\x1b[0m"
_SUIT_FG = ("\x1b[94m", "\x1b[91m", "\x1b[92m", "\x1b[96m")  # blue, red, green, turquoise
_SPECIAL_FG = "\x1b[95m"
_BOLD = "\x1b[1m"
_QUIT = ("q", "quit", "exit")
_HELP = ("h", "help", "?")
# ASCII digits only: str.isdigit() also takes "²" (which int() refuses) and "１" or "٣"
# (which int() reads as 1 and 3), none of which a move number should be.
_NUMBER = re.compile(r"[0-9]+")


class HumanQuit(Exception):
    """The human typed `q` (or the input ended)."""


class Move:
    """One legal move offered to the human: its number in the list, action and label."""

    def __init__(self, number: int, action: int, label: str) -> None:
        self.number, self.action, self.label = number, action, label


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def _card(card: int, color: bool) -> str:
    code = _SUIT_FG[int(CARD_SUIT[card])] if card < NUM_TIKI else _SPECIAL_FG
    return _paint(CARD_NAMES[card], code, color)


def _field_numbers(state: State, slot: int) -> tuple[int, int]:
    """The text table's numbers of a slot's two fields (present fields counted in order)."""
    k = int(state.present[0, :slot].sum())
    return 2 * k, 2 * k + 1


def legal_moves(state: State, color: bool = False) -> list[Move]:
    """The legal actions of the player to act in game 0, numbered from 1, with readable labels."""
    moves = []
    deck = state.config.deck
    for n, a in enumerate(np.flatnonzero(state.legal[0]).tolist(), start=1):
        if a <= OCTOPUS:
            label = f"play {_card(a, color)}"
        elif REMOVE_BASE <= a < ANNOUNCE:
            slot, cid = ocean_card_ahead(state, a)
            codes = state.route[0, 2 * slot : 2 * slot + 2]
            colours = "/".join(
                SUIT_NAMES[deck.color[c]] + (" dolphin" if deck.dolphin[c] else "") for c in codes
            )
            f0, f1 = _field_numbers(state, slot)
            label = f"remove ocean card #{cid}: fields {f0}-{f1} ({colours})"
        elif a == ANNOUNCE:
            label = "announce no tricks (yes)"
        elif a == NO_ANNOUNCE:
            label = "do not announce (no)"
        elif a == DOLPHIN_TAKE:
            label = "take the dolphin move (take)"
        elif a == DOLPHIN_DECLINE:
            label = "decline the dolphin move (decline)"
        else:  # every action id is covered above; a new one must get a label
            raise ValueError(f"no label for action {a}")
        moves.append(Move(n, a, label))
    return moves


def parse_move(text: str, state: State) -> int:
    """The action a typed line names for the player to act in game 0.

    Accepts a move number from `legal_moves`, a card name, `yes`/`no` (announce),
    `take`/`decline` (dolphin) or `#k` (ocean card id k).

    Raises:
        HumanQuit: on `q`, `quit` or `exit`.
        ValueError: with the reason the input is not a legal move.
    """
    moves = legal_moves(state)
    n = len(moves)
    word = text.strip().lower()
    phase = Phase(int(state.phase[0]))
    choose = f"type a move number 1..{n}"
    if word in _QUIT:
        raise HumanQuit
    if not word:
        raise ValueError(f"nothing typed: {choose}, a card name, h for help or q to quit")
    if _NUMBER.fullmatch(word):
        k = int(word)
        if not 1 <= k <= n:
            raise ValueError(f"there is no move {k}: {choose}")
        return moves[k - 1].action
    legal = state.legal[0]
    if phase == Phase.ANNOUNCE and word in ("y", "yes", "announce"):
        return ANNOUNCE
    if phase == Phase.ANNOUNCE and word in ("n", "no", "pass"):
        return NO_ANNOUNCE
    if phase == Phase.DOLPHIN and word in ("y", "yes", "take"):
        return DOLPHIN_TAKE
    if phase == Phase.DOLPHIN and word in ("n", "no", "decline"):
        return DOLPHIN_DECLINE
    if word.startswith("#") and _NUMBER.fullmatch(word[1:]):
        if phase not in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END):
            raise ValueError(f"no ocean card is to be removed now: {choose}")
        cid = int(word[1:])
        for m in moves:
            if ocean_card_ahead(state, m.action)[1] == cid:
                return m.action
        ids = sorted(ocean_card_ahead(state, m.action)[1] for m in moves)
        raise ValueError(
            f"ocean card #{cid} cannot be removed now; free cards: {', '.join(f'#{i}' for i in ids)}"
        )
    try:
        card = card_from_name(word)
    except ValueError as e:
        if "-" in word:  # meant as a card: say what a card name looks like
            raise ValueError(str(e)) from None
        raise ValueError(
            f"not understood: {text.strip()!r}; {choose}, a card name like red-11 or kanaloa, "
            "h for help or q to quit"
        ) from None
    if phase != Phase.PLAY:
        raise ValueError(f"you are not playing a card now ({_WHAT[phase]}): {choose}")
    p = int(state.current_player[0])
    if not _holds(state, p, card):
        raise ValueError(f"{CARD_NAMES[card]} is not in your hand")
    if not legal[card]:
        lead = int(state.lead_suit[0])
        raise ValueError(
            f"{CARD_NAMES[card]} may not be played: you hold {SUIT_NAMES[lead]}, the suit to "
            "follow, so play it or a kanaloa/octopus (R4.3)"
        )
    return card


def _holds(state: State, p: int, card: int) -> bool:
    word = int(state.hands[0, p])
    if card < NUM_TIKI:
        return bool(word >> card & 1)
    shift, width = (NUM_TIKI, 3) if card == KANALOA else (NUM_TIKI + 3, 2)
    return bool(word >> shift & ((1 << width) - 1))


_WHAT = {
    Phase.ANNOUNCE: "you decide whether to announce no tricks: yes or no",
    Phase.PLAY: "you play a card",
    Phase.REMOVE_OCTOPUS: "you remove an ocean card after your octopus",
    Phase.REMOVE_ROUND_END: "you remove an ocean card at the end of the round",
    Phase.DOLPHIN: "you take or decline the dolphin move",
}

_HELP_TEXT = """\
How to answer: a move number from the list; or a card name (red-11, blue-3, kanaloa,
octopus); yes/no to announce no tricks; take/decline for a dolphin move; #k to remove
ocean card k. q quits. Rules in short: follow the suit of the first Tiki card if you
can (kanaloa and octopus may always be played); the last kanaloa wins a trick, else the
highest trump, else the highest card of that suit. The winner's boat sails to the next
free field; trump is the colour under the leading boat; lap the last boat to win."""


def _table(state: State, seat: int, color: bool) -> str:
    """The text renderer's table, less its list of raw action ids (the moves are numbered below)."""
    lines = render_text(state, 0, color=color, seat=seat).split("\n")
    return "\n".join(line for line in lines if not line.startswith("Legal: "))


def _names(num_players: int, human: int | None) -> list[str]:
    return [f"player_{p}" + (" (you)" if p == human else "") for p in range(num_players)]


def _final(state: State, names: Sequence[str], color: bool) -> list[str]:
    P = state.num_players
    prog = state.progress[0].astype(np.int64)
    out = []
    if state.terminated[0]:
        w = int(state.winner[0])
        out.append(_paint(f"{names[w]} wins the game!", _BOLD, color))
    else:
        out.append(f"The game stopped after {int(state.round[0])} rounds without a winner.")
    out.append("Final positions (fields ahead of the last boat):")
    for r, p in enumerate(np.argsort(-prog, kind="stable")[:P], start=1):
        out.append(f"  {r}. {names[int(p)]:<16} {int(prog[p] - prog.min()):>3d}")
    return out


def play_game(
    config: Config,
    human: int,
    bots: Sequence[Any],
    seed: int,
    *,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    color: bool = False,
    record_path: str | None = None,
    bot_seed: int | None = None,
) -> State:
    """Play one game with a human at seat `human` and `bots` at the other seats.

    Args:
        config: the rules.
        human: the human's seat, 0..P-1.
        bots: one bot per seat other than the human's, in seat order.
        seed: the deal stream (game 0 of `init(config, 1, seed)`).
        input_fn: reads one line for a prompt (`input`; tests pass their own).
        out: where to print (default stdout).
        color: ANSI colours.
        record_path: save the game record (JSON lines) there, also after `q`.
        bot_seed: seed of the bots' random generator (default `seed`).

    Returns:
        The final state.

    Raises:
        HumanQuit: the human quit (the record, if asked for, is saved first).
        KeyboardInterrupt: Ctrl-C (the record, if asked for, is saved first).
    """
    out = out or sys.stdout
    P = config.num_players
    if not 0 <= human < P:
        raise ValueError(f"the human's seat must be in 0..{P - 1}, got {human}")
    if len(bots) != P - 1:
        raise ValueError(f"need {P - 1} bots for the other seats, got {len(bots)}")
    seat_bots: dict[int, Any] = dict(zip([p for p in range(P) if p != human], bots, strict=True))
    names = _names(P, human)
    labels = {p: getattr(b, "name", type(b).__name__) for p, b in seat_bots.items()}
    meta = {"players": [("human" if p == human else labels[p]) for p in range(P)]}
    rec = Recorder(config, seed, meta=meta)
    rng = np.random.default_rng(seed if bot_seed is None else bot_seed)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(
        f"Kanaloa: {P} players, seed {seed}; you are {names[human].split()[0]}; "
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
                say(_table(state, human, color))
                if events:
                    say("Since your last move:" if moved else "So far:")
                    for e in events:
                        say(f"  - {e}")
                    events = []
                moved = True
                moves = legal_moves(state, color)
                say(f"Your move ({_WHAT[Phase(int(state.phase[0]))]}):")
                for m in moves:
                    say(f"  {m.number:>2}) {m.label}")
                action = _ask(state, input_fn, say)
            before = state
            after = rec.step(action)
            events += describe_step(before, action, after, names=names)
    except (HumanQuit, KeyboardInterrupt):  # the game so far is kept either way
        if record_path:
            rec.record.save(record_path)
        raise
    say()
    say(_table(rec.state, human, color))
    if events:
        say("Since your last move:")
        for e in events:
            say(f"  - {e}")
    for line in _final(rec.state, names, color):
        say(line)
    if record_path:
        rec.record.save(record_path)
        say(
            f"Game record saved to {record_path} (replay: python -m kanaloa_env.replay {record_path})"
        )
    return rec.state


def _ask(state: State, input_fn: Callable[[str], str], say: Callable[[str], None]) -> int:
    """Prompt until the human names a legal move; re-prompt with the reason otherwise."""
    while True:
        try:
            line = input_fn("> ")
        except EOFError:
            raise HumanQuit from None
        if line.strip().lower() in _HELP:
            say(_HELP_TEXT)
            continue
        try:
            return parse_move(line, state)
        except ValueError as e:
            say(f"  {e}")


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m kanaloa_env.play",
        description="Play Kanaloa in the terminal: you take one seat, bots the others.",
    )
    ap.add_argument(
        "--players", type=int, default=4, help=f"players at the table, {MIN_PLAYERS}..{MAX_PLAYERS}"
    )
    ap.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    ap.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        metavar="BOT",
        help="the other seats' bots in seat order: 'random', 'heuristic', 'ppo', a policy "
        ".npz or a model .zip; "
        "one name fills every seat (default: heuristic)",
    )
    ap.add_argument("--seed", type=int, default=None, help="deal seed (default: a random one)")
    ap.add_argument(
        "--announce", action="store_true", help="play the 'announce no tricks' variant (R3.2)"
    )
    ap.add_argument(
        "--dolphin",
        choices=("optional", "automatic"),
        default="optional",
        help="dolphin moves: you decide (optional) or always taken (R6.3)",
    )
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
    # An existing file is overwritten in place; a new one needs a writable directory.
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        return "is not writable"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 also when the human quits).

    Bad options, `--record` in a missing directory included, exit 2 before the game.
    """
    ap = _build_parser()
    args = ap.parse_args(argv)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        ap.error(f"--players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {args.players}")
    if not 0 <= args.seat < args.players:
        ap.error(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    if len(args.bots) not in (1, args.players - 1):
        ap.error(
            f"--bots takes one bot for every seat or {args.players - 1} bots (one per other "
            f"seat), got {len(args.bots)}"
        )
    if args.seed is not None and not 0 <= args.seed < 2**64:
        ap.error("--seed must be in 0..2**64-1")
    if args.record:
        problem = _unwritable(args.record)
        if problem:
            ap.error(f"--record {args.record}: {problem}")
    from .bots import make_bot

    specs = args.bots * (args.players - 1) if len(args.bots) == 1 else args.bots
    try:
        bots = [make_bot(s) for s in specs]
        config = Config(
            num_players=args.players, nil_announcement=args.announce, dolphin=args.dolphin
        )
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    color = color_from_option(args.color)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        play_game(config, args.seat, bots, seed, color=color, record_path=args.record)
    except HumanQuit:
        print("\nYou quit the game." + (f" Record saved to {args.record}." if args.record else ""))
    except KeyboardInterrupt:
        print("\nInterrupted." + (f" Record saved to {args.record}." if args.record else ""))
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
