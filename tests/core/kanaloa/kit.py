"""Builders for hand-made positions: scenario dicts (our FEN) and small step helpers.

Tests describe a position with `make()`, load it with `load()` and drive it with
`act()` (card names or action ids) and `win_trick()`. Everything goes through the public scenario format
(SCENARIO.md), so a test never depends on what a seed happens to deal.

Route cards are written as the ids of the default ocean deck (RULES.md OCEAN-DECK),
in printed orientation, or with a trailing `r` for the reversed orientation:

| id | fields | id | fields | id | fields |
|---|---|---|---|---|---|
| 0 | blue (start) · red | 4 | blue · turquoise | 8 | red · turquoise |
| 1 | red · blue* | 5 | turquoise* · blue | 9 | turquoise · red* |
| 2 | blue · green | 6 | red · green | 10 | green · turquoise |
| 3 | green* · blue | 7 | green · red* | 11 | turquoise* · green |

Card `i` of the route holds fields `2i, 2i+1` (scenario field indices).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kanaloa_env.core.kanaloa import DEFAULT_OCEAN_DECK, State, from_scenario, step, to_scenario
from kanaloa_env.core.kanaloa.constants import (
    CARD_NAMES,
    NUM_TIKI,
    SUIT_NAMES,
    card_from_name,
)
from kanaloa_env.core.kanaloa.ocean import parse_field


def card_spec(spec: int | str) -> tuple[int, bool]:
    """Parse a route card spec (`4`, `"4"`, `"4r"`) into (id, reversed)."""
    text = str(spec)
    rev = text.endswith("r")
    return int(text[:-1] if rev else text), rev


def route_cards(specs: list[int | str], deck: tuple = DEFAULT_OCEAN_DECK) -> list[dict[str, Any]]:
    """Scenario `route` entries for card specs (see the module docstring)."""
    out = []
    for spec in specs:
        cid, rev = card_spec(spec)
        fields = []
        for text in deck[cid]:
            color, dolphin, start = parse_field(text)
            fields.append({"color": SUIT_NAMES[color], "dolphin": dolphin, "start": start})
        out.append({"id": cid, "fields": fields[::-1] if rev else fields})
    return out


def make(
    *,
    route: list[int | str],
    boats: list[int],
    hands: list[list[str]],
    num_players: int | None = None,
    progress: list[int] | None = None,
    trick: list[str] | None = None,
    leader: int = 0,
    trick_number: int = 0,
    starting_player: int | None = None,
    phase: str = "play",
    to_act: int | None = None,
    tricks_won: list[int] | None = None,
    announced: list[bool | None] | None = None,
    config: dict[str, Any] | None = None,
    round: int = 1,
    pending: str | None = None,
    voids: list[list[str]] | None = None,
    deck: tuple = DEFAULT_OCEAN_DECK,
) -> dict[str, Any]:
    """A complete scenario dict from the few things a test cares about.

    Args:
        route: card specs in sailing order; every other deck card is `removed`.
        boats: per player, the scenario field index (card `i` holds `2i, 2i+1`).
        hands: per player, card names; sizes must fit `trick_number` and `trick`.
        progress: per player; default: fields from the start field to the boat
            (or from field 0 when the start card is not in the route), so a boat
            further along the list is further ahead.
        trick: card names of the current trick in play order from `leader`.
        trick_number: tricks completed this round; their cards are filled into
            `played_this_round` with Tiki cards that no hand and no trick holds.
        starting_player: default `leader`.
        to_act: default derived from the phase (next in the trick; the octopus
            player in `remove_octopus`; the leader in `remove_round_end`).
        tricks_won: default all completed tricks to `leader`.
        announced: default all null, or all false when the variant is on.
    """
    P = num_players if num_players is not None else len(boats)
    trick = list(trick or [])
    config = dict(config or {})
    cards = route_cards(route, deck)
    F = 2 * len(cards)
    if progress is None:
        starts = [
            2 * k + j for k, c in enumerate(cards) for j, f in enumerate(c["fields"]) if f["start"]
        ]
        origin = starts[0] if starts else 0
        progress = [(f - origin) % F for f in boats]
    used = {c for h in hands for c in h} | set(trick)
    filler = [CARD_NAMES[c] for c in range(NUM_TIKI) if CARD_NAMES[c] not in used]
    n_fill = trick_number * P
    if n_fill > len(filler):
        raise ValueError("not enough free Tiki cards to fill the earlier tricks")
    played = filler[:n_fill] + trick
    if to_act is None:
        if phase == "play":
            to_act = (leader + len(trick)) % P
        elif phase == "remove_octopus":
            to_act = (leader + len(trick) - 1) % P
        elif phase == "remove_round_end":
            to_act = leader
        elif phase == "announce":
            to_act = starting_player if starting_player is not None else leader
        elif phase != "game_over":
            raise ValueError(f"give to_act for phase {phase}")
    if tricks_won is None:
        tricks_won = [trick_number if p == leader else 0 for p in range(P)]
    if announced is None:
        variant = config.get("nil_announcement", False)
        announced = [False if variant and phase != "announce" else None for _ in range(P)]
    sc: dict[str, Any] = {
        "num_players": P,
        "config": config,
        "route": cards,
        "boats": [{"field": f, "progress": g} for f, g in zip(boats, progress, strict=True)],
        "removed": sorted(set(range(len(deck))) - {c["id"] for c in cards}),
        "round": round,
        "starting_player": leader if starting_player is None else starting_player,
        "trick_number": trick_number,
        "leader": leader,
        "to_act": to_act,
        "phase": phase,
        "trick": [{"player": (leader + j) % P, "card": c} for j, c in enumerate(trick)],
        "hands": [sorted(h, key=card_from_name) for h in hands],  # canonical order
        "tricks_won": tricks_won,
        "announced": announced,
        "played_this_round": played,
        "winner": None,
    }
    if pending is not None:
        sc["pending"] = pending
    if voids is not None:
        sc["voids"] = voids
    return sc


def load(sc: dict[str, Any], seed: int = 0) -> State:
    """A batch-1 state from a scenario."""
    return from_scenario(sc, seed=seed)


def action(name: str | int) -> int:
    """The action id of a card name (`"red-7"`, `"kanaloa"`) or a plain action id."""
    return name if isinstance(name, int) else card_from_name(name)


def act(state: State, *actions: str | int) -> State:
    """Step a batch-1 state through actions (card names or ids); returns the new state."""
    for a in actions:
        state = step(state, np.array([action(a)]))
    return state


def sc(state: State) -> dict[str, Any]:
    """Game 0 as a scenario."""
    return to_scenario(state, 0)


def where(state: State, player: int) -> tuple[int, int]:
    """(ocean card id, side 0/1 in sailing order) of a player's boat."""
    s = to_scenario(state, 0)
    f = s["boats"][player]["field"]
    return s["route"][f // 2]["id"], f % 2


def hand(state: State, player: int) -> list[str]:
    """Card names in a player's hand (canonical order)."""
    return to_scenario(state, 0)["hands"][player]


def field(state: State, player: int) -> int:
    """Scenario field index (in the current, compacted route) of a player's boat."""
    return to_scenario(state, 0)["boats"][player]["field"]


def progress(state: State) -> list[int]:
    """Progress of every boat of game 0."""
    return [int(x) for x in state.progress[0]]


def route_ids(state: State) -> list[int]:
    """Ocean card ids of the current route in sailing order."""
    return [c["id"] for c in to_scenario(state, 0)["route"]]


def trump(state: State) -> str:
    """Name of the trump suit of the current trick of game 0."""
    return SUIT_NAMES[int(state.trump[0])]


def phase(state: State) -> str:
    """Phase name of game 0."""
    return to_scenario(state, 0)["phase"]


def legal(state: State) -> set[int]:
    """Legal action ids of game 0."""
    return set(np.flatnonzero(state.legal[0]).tolist())


def legal_cards(state: State) -> set[str]:
    """Names of the cards game 0's player to act may play."""
    return {CARD_NAMES[a] for a in legal(state) if a < len(CARD_NAMES)}


# A 4-player route (11 cards, card 11 left out) beginning with the start card, so
# the start field is field 0 and progress equals the field index on the first lap.
# Fields: 0 blue(start) 1 red | 2 blue 3 green | 4 blue 5 turquoise | 6 red 7 green |
# 8 red 9 turquoise | 10 green 11 turquoise | 12 red 13 blue* | 14 green* 15 blue |
# 16 turquoise* 17 blue | 18 green 19 red* | 20 turquoise 21 red*
ROUTE_4 = [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9]


def at_start(num_players: int = 4) -> list[int]:
    """Every boat on the start field of `ROUTE_4`."""
    return [0] * num_players


def win_trick(state: State, winner: int) -> State:
    """Play one whole trick of game 0 that `winner` takes with a Kanaloa card (R5.1).

    Every other player plays their lowest legal action (a Tiki card where they
    hold one), so hands must give the winner the only Kanaloa played.
    """
    P = state.num_players
    for _ in range(P):
        p = int(state.current_player[0])
        state = act(state, "kanaloa" if p == winner else int(np.flatnonzero(state.legal[0])[0]))
    return state


def hands_for(winner: int, num_players: int = 4, cards: int = 2) -> list[list[str]]:
    """Hands of `cards` cards each for `win_trick`: the winner's start with Kanaloa cards.

    The winner holds up to three Kanaloa cards (then turquoise cards); the others
    hold red, then green, Tiki cards, so nobody else can take a trick the winner
    takes with a Kanaloa.
    """
    pool = iter([f"red-{v}" for v in range(1, 13)] + [f"green-{v}" for v in range(1, 13)])
    out = []
    for p in range(num_players):
        if p == winner:
            k = min(cards, 3)
            out.append(["kanaloa"] * k + [f"turquoise-{v}" for v in range(1, cards - k + 1)])
        else:
            out.append([next(pool) for _ in range(cards)])
    return out


def first_legal(state: State) -> int:
    """The lowest legal action of game 0 (a deterministic 'any legal choice')."""
    return int(np.flatnonzero(state.legal[0])[0])
