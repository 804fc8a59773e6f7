"""Kanaloa at the terminal: the numbered legal moves, what a typed move names, the result.

Used through the game protocol by `python -m kanaloa_env.play`. A human types a move
number, a card name (`red-11`, `kanaloa`), `take`/`decline` for a dolphin move,
`yes`/`no` to announce, or `#5` to remove ocean card 5.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.kanaloa.constants import (
    ANNOUNCE,
    CARD_NAMES,
    CARD_SUIT,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    KANALOA,
    NO_ANNOUNCE,
    NUM_TIKI,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    Phase,
    card_from_name,
)
from ...core.kanaloa.state import State
from ...drawing.terminal import BOLD, paint
from ..moves import NUMBER, move_number
from ..protocol import Move
from .describe import ocean_card_ahead

__all__ = ["HELP_TEXT", "final_lines", "legal_moves", "parse_move", "turn_prompt"]

_SUIT_FG = ("\x1b[94m", "\x1b[91m", "\x1b[92m", "\x1b[96m")  # blue, red, green, turquoise
_SPECIAL_FG = "\x1b[95m"

_WHAT = {
    Phase.ANNOUNCE: "you decide whether to announce no tricks: yes or no",
    Phase.PLAY: "you play a card",
    Phase.REMOVE_OCTOPUS: "you remove an ocean card after your octopus",
    Phase.REMOVE_ROUND_END: "you remove an ocean card at the end of the round",
    Phase.DOLPHIN: "you take or decline the dolphin move",
}

HELP_TEXT = """\
How to answer: a move number from the list; or a card name (red-11, blue-3, kanaloa,
octopus); yes/no to announce no tricks; take/decline for a dolphin move; #k to remove
ocean card k. q quits. Rules in short: follow the suit of the first Tiki card if you
can (kanaloa and octopus may always be played); the last kanaloa wins a trick, else the
highest trump, else the highest card of that suit. The winner's boat sails to the next
free field; trump is the colour under the leading boat; lap the last boat to win."""


def _card(card: int, color: bool) -> str:
    code = _SUIT_FG[int(CARD_SUIT[card])] if card < NUM_TIKI else _SPECIAL_FG
    return paint(CARD_NAMES[card], code, color)


def _field_numbers(state: State, slot: int) -> tuple[int, int]:
    """The text table's numbers of a slot's two fields (present fields counted in order)."""
    k = int(state.present[0, :slot].sum())
    return 2 * k, 2 * k + 1


def turn_prompt(state: State) -> str:
    """What the player to act in game 0 decides now, addressed to them.
    `state` is the batch of games."""
    return _WHAT[Phase(int(state.phase[0]))]


def legal_moves(state: State, color: bool = False) -> list[Move]:
    """The legal actions of the player to act in game 0 of `state` (in ANSI colours if
    `color`), numbered from 1, with readable labels."""
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
            label = "announce no tricks (yes): win no trick this round to move 3 times"
        elif a == NO_ANNOUNCE:
            label = "do not announce (no)"
        elif a == DOLPHIN_TAKE:
            label = "take the dolphin move (take): sail one field further"
        elif a == DOLPHIN_DECLINE:
            label = "decline the dolphin move (decline): stay on the dolphin"
        else:  # every action id is covered above; a new one must get a label
            raise ValueError(f"no label for action {a}")
        moves.append(Move(n, a, label))
    return moves


def parse_move(text: str, state: State) -> int:
    """The action that `text`, a typed line, names for the player to act in game 0 of
    `state`.

    Accepts a move number from `legal_moves`, a card name, `yes`/`no` (announce),
    `take`/`decline` (dolphin) or `#k` (ocean card id k).

    Raises:
        ValueError: with the reason the input is not a legal move.
    """
    moves = legal_moves(state)
    n = len(moves)
    word = text.strip().lower()
    phase = Phase(int(state.phase[0]))
    choose = f"type a move number 1..{n}"
    k = move_number(word, n, "a card name")
    if k is not None:
        return moves[k].action
    legal = state.legal[0]
    if phase == Phase.ANNOUNCE and word in ("y", "yes", "announce"):
        return ANNOUNCE
    if phase == Phase.ANNOUNCE and word in ("n", "no", "pass"):
        return NO_ANNOUNCE
    if phase == Phase.DOLPHIN and word in ("y", "yes", "take"):
        return DOLPHIN_TAKE
    if phase == Phase.DOLPHIN and word in ("n", "no", "decline"):
        return DOLPHIN_DECLINE
    if word.startswith("#") and NUMBER.fullmatch(word[1:]):
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


def final_lines(state: State, names: Sequence[str], color: bool) -> list[str]:
    """The end of game 0 of `state` for the terminal: the winner and the final boat
    positions, the players called by `names`, in ANSI colours if `color`."""
    P = state.num_players
    prog = state.progress[0].astype(np.int64)
    out = []
    if state.terminated[0]:
        w = int(state.winner[0])
        out.append(paint(f"{names[w]} wins the game!", BOLD, color))
    else:
        out.append(f"The game stopped after {int(state.round[0])} rounds without a winner.")
    out.append("Final positions (fields ahead of the last boat):")
    for r, p in enumerate(np.argsort(-prog, kind="stable")[:P], start=1):
        out.append(f"  {r}. {names[int(p)]:<16} {int(prog[p] - prog.min()):>3d}")
    return out
