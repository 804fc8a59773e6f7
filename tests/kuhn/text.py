"""Kuhn poker as a text table (`Game.render_text`): the stakes, each player's card as
`seat` may see it, the betting so far and the legal moves."""

from __future__ import annotations

import numpy as np

from kanaloa_env.drawing.terminal import BOLD, paint

from .engine import ACTION_NAMES, CARD_NAMES, NO_ACTION, State, outcome, public_view

__all__ = ["render_text"]


def render_text(
    state: State, i: int = 0, color: bool = True, seat: int | None = None, legal: bool = True
) -> str:
    """Game `i` of `state`: `seat`'s card shown (default the player to act, player 0
    once the game is over), the other card only once a showdown shows it; the legal
    moves listed when `legal` and `seat` is the player to act."""
    to_act = int(state.current_player[i])
    me = (max(to_act, 0) if seat is None else int(seat)) % 2
    view = public_view(state.take([i]), np.array([me]))
    stakes = outcome(state).stakes[i]
    cfg = state.config
    status = f"player_{to_act} to act" if to_act >= 0 else "game over"
    lines = [f"Kuhn poker | ante {cfg.ante}, bet {cfg.bet} | pot {int(stakes.sum())} | {status}"]
    for p in range(2):
        c = int(view.cards[0, p])
        card = CARD_NAMES[c] if c >= 0 else "?"
        mark = " (you)" if p == me else ""
        lines.append(f"player_{p}{mark}: {paint(card, BOLD, color)}  stake {int(stakes[p])}")
    moves = [ACTION_NAMES[a] for a in state.history[i] if a != NO_ACTION]
    lines.append("Betting: " + (", ".join(moves) if moves else "-"))
    if state.done[i]:
        w = int(state.winner[i])
        won = int(stakes[1 - w])
        lines.append(f"player_{w} wins {won} chip{'s' if won != 1 else ''}")
    elif legal and to_act == me:
        allowed = [ACTION_NAMES[a] for a in np.flatnonzero(state.legal[i])]
        lines.append("Legal: " + ", ".join(allowed))
    return "\n".join(lines)
