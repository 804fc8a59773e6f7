"""Kanaloa's decisions in words: what an action means and what a step did.

Used through the game protocol by records, replay, terminal play and the pictures
(which gold-mark the ocean cards a removal may take).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.kanaloa.constants import (
    ANNOUNCE,
    CARD_NAMES,
    DOLPHIN_TAKE,
    NUM_ACTIONS,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    Phase,
    action_name,
)
from ...core.kanaloa.route import slot_ahead_at
from ...core.kanaloa.state import State

__all__ = ["describe_action", "describe_step", "ocean_card_ahead"]


def ocean_card_ahead(state: State, action: int, i: int = 0) -> tuple[int, int]:
    """(slot, deck card id) of the ocean card a removal `action` (50..61) names in game `i`.
    `state` is the batch of games."""
    k = int(action) - REMOVE_BASE
    if not 0 <= k < NUM_ACTIONS - REMOVE_BASE:
        raise ValueError(f"a removal action is in {REMOVE_BASE}..{ANNOUNCE - 1}, got {action}")
    idx = np.array([i])
    seat = state.current_player[idx].astype(np.intp)
    slot = int(slot_ahead_at(state, idx, seat, np.array([k]))[0])
    return slot, int(state.route[i, 2 * slot]) // 2


def _card_colors(state: State, slot: int, i: int) -> str:
    codes = state.route[i, 2 * slot : 2 * slot + 2]
    deck = state.config.deck
    return "/".join(SUIT_NAMES[deck.color[c]] + ("*" if deck.dolphin[c] else "") for c in codes)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe_action(state: State, action: int, i: int = 0) -> str:
    """What `action` means for the player to act in game `i`, in words.

    Removal actions name the ocean card (its id and field colours, `*` = dolphin).
    `state` is the batch of games.
    """
    a = int(action)
    if REMOVE_BASE <= a < ANNOUNCE:
        slot, cid = ocean_card_ahead(state, a, i)
        k = a - REMOVE_BASE
        where = "the next card ahead" if k == 0 else f"the {_ordinal(k + 1)} card ahead"
        return f"remove ocean card {cid} ({_card_colors(state, slot, i)}), {where}"
    return action_name(a)


def _who(p: int, names: Sequence[str] | None) -> str:
    return names[p] if names is not None else f"player {p}"


def describe_step(
    before: State,
    action: int,
    after: State,
    i: int = 0,
    names: Sequence[str] | None = None,
) -> list[str]:
    """Sentences telling what one decision in game `i` did.

    The decision itself, a finished trick and its winner, every boat move (with the
    fields sailed and where it ends), removed ocean cards, a dolphin decision that
    is now due, a new round and its trump, and the end of the game.

    Args:
        before, after: the states around the decision (`after = step(before, ...)`).
        action: the action taken by `before.current_player[i]`.
        names: optional display names per seat (default `"player p"`).
    """
    P = before.num_players
    a = int(action)
    p = int(before.current_player[i])
    phase = int(before.phase[i])
    out: list[str] = []
    if phase == Phase.PLAY:
        out.append(f"{_who(p, names)} plays {CARD_NAMES[a]}")
    elif phase in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END):
        what = describe_action(before, a, i).replace("remove", "removes", 1)
        left = int(after.present[i].sum())
        out.append(f"{_who(p, names)} {what}; {left} ocean cards remain")
    elif phase == Phase.ANNOUNCE:
        out.append(
            f"{_who(p, names)} " + ("announces no tricks" if a == ANNOUNCE else "does not announce")
        )
    elif phase == Phase.DOLPHIN:
        out.append(
            f"{_who(p, names)} "
            + ("takes the dolphin move" if a == DOLPHIN_TAKE else "declines the dolphin move")
        )

    # A trick is complete once every player has played to it; an octopus played
    # last keeps it open until its removal (R4.4).
    tn = int(before.trick_number[i])
    cards = [int(c) for c in before.history[i, tn * P : int(before.num_played[i])]]
    if phase == Phase.PLAY:
        cards.append(a)
    waits = phase == Phase.PLAY and after.phase[i] == Phase.REMOVE_OCTOPUS
    if phase in (Phase.PLAY, Phase.REMOVE_OCTOPUS) and len(cards) == P and not waits:
        w = int(after.leader[i])  # the engine makes the trick's winner the next leader (R3.3)
        out.append(
            f"{_who(w, names)} wins the trick ({', '.join(CARD_NAMES[c] for c in cards)}; "
            f"trump {SUIT_NAMES[int(before.trump[i])]})"
        )
        if before.announced[i, w] == 1 and not before.config.announced_boat_moves:
            out.append(f"{_who(w, names)} announced no tricks: the boat stays (R7.4)")

    pres = np.repeat(after.present[i], 2)
    F = len(pres)
    deck = before.config.deck
    for q in range(P):
        f0, f1 = int(before.boat_field[i, q]), int(after.boat_field[i, q])
        if f0 == f1 and after.progress[i, q] <= before.progress[i, q]:
            continue
        # Fields sailed on the route after the step (a removal in the same step
        # happens before any move; R9.1).
        dist = (f1 - f0) % F or F
        sailed = int(pres[(f0 + 1 + np.arange(dist)) % F].sum())
        code = after.route[i, f1]
        where = SUIT_NAMES[deck.color[code]] + (" dolphin" if deck.dolphin[code] else "")
        out.append(
            f"{_who(q, names)} sails {sailed} field{'s' if sailed != 1 else ''} to a {where} field"
        )

    if after.terminated[i] and not before.terminated[i]:
        out.append(f"{_who(int(after.winner[i]), names)} laps the last boat and wins the game!")
    elif after.truncated[i] and not before.truncated[i]:
        out.append(f"the game stops after {int(after.round[i])} rounds (max_rounds, R9.4)")
    elif after.round[i] != before.round[i]:
        out.append(
            f"round {int(after.round[i])} starts: {_who(int(after.starting_player[i]), names)} "
            f"leads, trump is {SUIT_NAMES[int(after.trump[i])]}"
        )
    elif after.trump[i] != before.trump[i]:
        out.append(f"trump is now {SUIT_NAMES[int(after.trump[i])]}")
    if after.phase[i] == Phase.DOLPHIN:
        out.append(f"{_who(int(after.current_player[i]), names)} may take a dolphin move")
    if after.phase[i] == Phase.REMOVE_ROUND_END and before.phase[i] != Phase.REMOVE_ROUND_END:
        out.append(
            f"round {int(after.round[i])} is over: {_who(int(after.current_player[i]), names)} "
            "removes an ocean card (R7.1)"
        )
    if phase == Phase.PLAY and a == OCTOPUS and after.phase[i] == Phase.REMOVE_OCTOPUS:
        out.append(f"{_who(p, names)} must remove an ocean card (R4.4)")
    return out
