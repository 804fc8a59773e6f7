"""Sizes, card and action ids, phases and rule numbers of Kanaloa.

Everything that names a number of the game lives here once; rule numbers carry
their id from RULES.md.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np


class Suit(IntEnum):
    """The four Tiki suits in canonical order (R1.1)."""

    BLUE = 0
    RED = 1
    GREEN = 2
    TURQUOISE = 3


class Phase(IntEnum):
    """The kind of decision the player to act faces (DESIGN.md, Phases)."""

    ANNOUNCE = 0
    PLAY = 1
    REMOVE_OCTOPUS = 2
    REMOVE_ROUND_END = 3
    DOLPHIN = 4
    GAME_OVER = 5


class Pending(IntEnum):
    """What continues after a dolphin decision (SCENARIO.md, `pending`)."""

    NONE = 0
    TRICK = 1
    PAYOUT = 2


SUIT_NAMES: tuple[str, ...] = tuple(s.name.lower() for s in Suit)
PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)
PENDING_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Pending)

NUM_SUITS = 4  # R1.1
NUM_VALUES = 12  # R1.1
NUM_TIKI = NUM_SUITS * NUM_VALUES  # 48 Tiki cards, R1.1
NUM_KANALOA = 3  # R1.2
NUM_OCTOPUS = 2  # R1.2
DECK_SIZE = NUM_TIKI + NUM_KANALOA + NUM_OCTOPUS  # 53 play cards, R1.2
NUM_CARD_TYPES = NUM_TIKI + 2  # card types: 48 Tiki, Kanaloa, octopus
HAND_SIZE = 8  # R3.1
TRICKS_PER_ROUND = 8  # R3.3
MIN_PLAYERS, MAX_PLAYERS = 3, 5  # R1.4
MAX_OCEAN_CARDS = 12  # R1.3
ROUTE_CARDS = {3: 10, 4: 11, 5: 12}  # R2.1
MIN_ROUTE_CARDS = 3  # R7.2: no removal while only 3 ocean cards remain
PAYOUT_STEPS = 3  # R7.3
# The bound on |progress| a position may hold (scenarios, loaded files). Real games
# stay far below it: progress starts at 0 and the least progress never decreases
# (docs/rules.md, R9.1); while the game goes on no boat is more than a lap (<= 24
# fields) ahead of the last, so each turn a boat moves (a trick's winner, with its
# dolphin moves, or one player's payout steps: at most 8 + 5 a round) raises the
# least progress by at most a lap: <= 13 * 24 = 312 a round, under 2**22 over the
# 10,000-round maximum. Above it the engine's int32 arithmetic on `8 * progress`
# (route.py) could overflow.
MAX_PROGRESS = 2**24

# Card types (also the play actions).
KANALOA = 48
OCTOPUS = 49
NO_CARD = -1

# Actions (DESIGN.md, action space).
TIKI_BASE = 0
REMOVE_BASE = 50
ANNOUNCE = 62
NO_ANNOUNCE = 63
DOLPHIN_TAKE = 64
DOLPHIN_DECLINE = 65
NUM_ACTIONS = 66

NO_PLAYER = -1
NO_SUIT = -1

# A hand is a uint64 bit set over the 53 physical cards: bit c for Tiki card c,
# bits 48..50 for the three Kanaloa copies, bits 51..52 for the two octopus copies.
_ONE = np.uint64(1)
TIKI_BITS = np.uint64((1 << NUM_TIKI) - 1)
KANALOA_BITS = np.uint64(((1 << NUM_KANALOA) - 1) << NUM_TIKI)
OCTOPUS_BITS = np.uint64(((1 << NUM_OCTOPUS) - 1) << (NUM_TIKI + NUM_KANALOA))
SPECIAL_BITS = KANALOA_BITS | OCTOPUS_BITS
SUIT_BITS = np.array(
    [((1 << NUM_VALUES) - 1) << (NUM_VALUES * s) for s in range(NUM_SUITS)] + [0],
    dtype=np.uint64,
)  # index NO_SUIT (-1) gives 0: nothing to follow
# Bits a card type may occupy in a hand (one for a Tiki card, the copies of a special).
CARD_TYPE_BITS = np.array(
    [1 << c for c in range(NUM_TIKI)] + [int(KANALOA_BITS), int(OCTOPUS_BITS)], dtype=np.uint64
)
# Suit and value index (0..11) of a card type; specials have suit NO_SUIT.
CARD_SUIT = np.array([c // NUM_VALUES for c in range(NUM_TIKI)] + [NO_SUIT, NO_SUIT], dtype=np.int8)
CARD_RANK = np.array([c % NUM_VALUES for c in range(NUM_TIKI)] + [0, 0], dtype=np.int8)


def card_name(card: int) -> str:
    """The scenario name of a card type: `"red-11"`, `"kanaloa"` or `"octopus"`."""
    card = int(card)
    if card == KANALOA:
        return "kanaloa"
    if card == OCTOPUS:
        return "octopus"
    if 0 <= card < NUM_TIKI:
        return f"{SUIT_NAMES[card // NUM_VALUES]}-{card % NUM_VALUES + 1}"
    raise ValueError(f"card type must be in 0..{NUM_CARD_TYPES - 1}, got {card}")


CARD_NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(NUM_CARD_TYPES))
_CARD_BY_NAME = {name: c for c, name in enumerate(CARD_NAMES)}


def card_from_name(name: str) -> int:
    """The card type of a scenario card name (inverse of `card_name`)."""
    if not isinstance(name, str) or name.lower() not in _CARD_BY_NAME:
        raise ValueError(
            f"unknown card {name!r}: expected '<suit>-<1..12>' with suit in {SUIT_NAMES}, "
            "'kanaloa' or 'octopus'"
        )
    return _CARD_BY_NAME[name.lower()]


def action_name(action: int) -> str:
    """A short readable name for an action id (DESIGN.md action table)."""
    a = int(action)
    if 0 <= a <= OCTOPUS:
        return f"play {CARD_NAMES[a]}"
    if REMOVE_BASE <= a < ANNOUNCE:
        return f"remove ocean card {a - REMOVE_BASE} ahead"
    names = {
        ANNOUNCE: "announce no tricks",
        NO_ANNOUNCE: "do not announce",
        DOLPHIN_TAKE: "take dolphin move",
        DOLPHIN_DECLINE: "decline dolphin move",
    }
    if a in names:
        return names[a]
    raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action}")
