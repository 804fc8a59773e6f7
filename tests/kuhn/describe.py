"""Kuhn poker decisions in words (`Game.describe_action`, `Game.describe_step`): for
terminal play and replays."""

from __future__ import annotations

from collections.abc import Sequence

from .engine import BET, CALL, CARD_NAMES, CHECK, FOLD, State, outcome

__all__ = ["describe_action", "describe_step"]

_VERBS = {CHECK: "checks", BET: "bets", CALL: "calls", FOLD: "folds"}


def describe_action(state: State, action: int, i: int = 0) -> str:
    """What `action` does for the player to act in game `i` ("bet 1 chip")."""
    cfg = state.config
    if action == BET:
        return f"bet {cfg.bet} chip{'s' if cfg.bet != 1 else ''}"
    if action == CALL:
        return f"call the bet of {cfg.bet}"
    if action == FOLD:
        return "fold: give up the pot"
    if action == CHECK:
        return "check"
    raise ValueError(f"action {action} is out of range 0..3")


def describe_step(
    before: State, action: int, after: State, i: int = 0, names: Sequence[str] | None = None
) -> list[str]:
    """Sentences telling what one decision in game `i` did, and the end if it ended there."""
    names = list(names) if names is not None else ["player_0", "player_1"]
    p = int(before.current_player[i])
    out = [f"{names[p]} {_VERBS[int(action)]}."]
    if after.done[i] and not before.done[i]:
        w = int(after.winner[i])
        won = int(outcome(after).stakes[i, 1 - w])
        if outcome(after).showdown[i]:
            cw, cl = CARD_NAMES[after.cards[i, w]], CARD_NAMES[after.cards[i, 1 - w]]
            out.append(f"Showdown: {names[w]}'s {cw} beats {cl}; {names[w]} wins {won}.")
        else:
            out.append(f"{names[w]} wins {won} without a showdown.")
    return out
