"""Kuhn poker at the terminal: the numbered legal moves, what a typed move names, the
result; a typed move is its number or its name (`kanaloa_env.cli.play`: `play_game`, or `main(["--game", "kuhn"])` in a process
that registered the game; `python -m kanaloa_env.play` starts a process that has not)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kanaloa_env.games.protocol import Move

from .engine import ACTION_NAMES, CARD_NAMES, State, outcome

__all__ = ["HELP_TEXT", "final_lines", "legal_moves", "turn_prompt"]

HELP_TEXT = (
    "Type a move number or its name: check, bet (with no bet to answer), call, fold "
    "(facing a bet). q quits."
)


def legal_moves(state: State, color: bool = False) -> list[Move]:
    """Game 0's legal moves, numbered from 1."""
    return [
        Move(n, int(a), ACTION_NAMES[a])
        for n, a in enumerate(np.flatnonzero(state.legal[0]), start=1)
    ]


def turn_prompt(state: State) -> str:
    """What the player to act decides, addressed to them."""
    card = CARD_NAMES[state.cards[0, int(state.current_player[0])]]
    facing = bool(state.legal[0, 2])
    return f"you hold {card}; " + ("call or fold" if facing else "check or bet")


def final_lines(state: State, names: Sequence[str], color: bool = False) -> list[str]:
    """Who won how many chips, and the cards if they were shown."""
    w = int(state.winner[0])
    won = int(outcome(state).stakes[0, 1 - w])
    lines = [f"{names[w]} wins {won} chip{'s' if won != 1 else ''}."]
    if outcome(state).showdown[0]:
        shown = ", ".join(f"{names[p]} {CARD_NAMES[state.cards[0, p]]}" for p in range(2))
        lines.append(f"Cards: {shown}.")
    return lines
