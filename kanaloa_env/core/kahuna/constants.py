"""Islands, lines, thresholds, action ids and phases of Kahuna (KAHUNA-RULES.md).

Everything that names a number of the game lives here once, with its rule id.
Bit sets: a set of lines is a uint32 with bit `l` for line `l` (K1.2); a set of
islands is a uint16 with bit `x` for island `x` (K1.1). Multisets of cards are
"count words" (see `cards.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum

import numpy as np

# K1.1: the twelve islands, in alphabetical (index) order.
ISLAND_NAMES: tuple[str, ...] = (
    "ALOA",
    "BARI",
    "COCO",
    "DUDA",
    "ELAI",
    "FAAA",
    "GOLA",
    "HUNA",
    "IFFI",
    "JOJO",
    "KAHU",
    "LALE",
)
NUM_ISLANDS = len(ISLAND_NAMES)

# K1.2: the 27 lines as (a, b) island pairs, a < b, in index order.
LINES: tuple[tuple[int, int], ...] = (
    (0, 1),  # 0 ALOA-BARI
    (0, 3),  # 1 ALOA-DUDA
    (0, 7),  # 2 ALOA-HUNA
    (1, 2),  # 3 BARI-COCO
    (1, 3),  # 4 BARI-DUDA
    (1, 4),  # 5 BARI-ELAI
    (1, 5),  # 6 BARI-FAAA
    (2, 5),  # 7 COCO-FAAA
    (2, 6),  # 8 COCO-GOLA
    (2, 10),  # 9 COCO-KAHU
    (3, 4),  # 10 DUDA-ELAI
    (3, 7),  # 11 DUDA-HUNA
    (4, 5),  # 12 ELAI-FAAA
    (4, 7),  # 13 ELAI-HUNA
    (4, 8),  # 14 ELAI-IFFI
    (4, 9),  # 15 ELAI-JOJO
    (5, 6),  # 16 FAAA-GOLA
    (5, 9),  # 17 FAAA-JOJO
    (6, 9),  # 18 GOLA-JOJO
    (6, 10),  # 19 GOLA-KAHU
    (7, 8),  # 20 HUNA-IFFI
    (7, 11),  # 21 HUNA-LALE
    (8, 9),  # 22 IFFI-JOJO
    (8, 10),  # 23 IFFI-KAHU
    (8, 11),  # 24 IFFI-LALE
    (9, 10),  # 25 JOJO-KAHU
    (10, 11),  # 26 KAHU-LALE
)
NUM_LINES = len(LINES)
LINE_NAMES: tuple[str, ...] = tuple(f"{ISLAND_NAMES[a]}-{ISLAND_NAMES[b]}" for a, b in LINES)
LINE_A = np.array([a for a, _ in LINES], dtype=np.int8)  # first end of each line
LINE_B = np.array([b for _, b in LINES], dtype=np.int8)  # second end
ALL_LINES = (1 << NUM_LINES) - 1
ALL_ISLANDS = (1 << NUM_ISLANDS) - 1

# K1.3: lines at each island (a line bit set), degree and majority threshold.
LINES_AT = np.array(
    [sum(1 << line for line, ends in enumerate(LINES) if x in ends) for x in range(NUM_ISLANDS)],
    dtype=np.uint32,
)
DEGREE = np.bitwise_count(LINES_AT).astype(np.int8)
MAJORITY = (DEGREE // 2 + 1).astype(np.int8)  # "mehr als die Hälfte der Verbindungslinien"
NEIGHBOURS = np.array(  # island bit set of each island's neighbours
    [sum(1 << (a ^ b ^ x) for a, b in LINES if x in (a, b)) for x in range(NUM_ISLANDS)],
    dtype=np.uint16,
)

CARDS_PER_ISLAND = 2  # K1.4
NUM_CARDS = CARDS_PER_ISLAND * NUM_ISLANDS  # 24 island cards, K1.4
BRIDGES_PER_PLAYER = 25  # K1.5
MIN_STONES, MAX_STONES = 10, 12  # K1.6, A1
START_HAND = 3  # K2.1
ROW_SLOTS = 3  # K2.1: face-up row
HAND_LIMIT = 5  # K2.3
MAX_PILE = NUM_CARDS - ROW_SLOTS  # the longest pile: every card but the row (K2.1, K7.3)
NUM_SCORINGS = 3  # K7.2, K7.5
SCORING_POINTS = (1, 2)  # K7.2: the first and second scoring
FINAL_TURNS = 2  # K7.4
NUM_PLAYERS = 2

NO_CARD = -1  # an empty face-up slot or pile position
NO_PLAYER = -1  # nobody to act (game over), no winner (draw or none)


class Phase(IntEnum):
    """The kind of decision the player to act faces (K3.2)."""

    PLAY = 0
    DRAW = 1
    GAME_OVER = 2


PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)

# Actions (the spec's action table, Discrete(153)).
PLACE_BASE = 0  # 0..53: line i // 2, spending a card of end a (i even) or b (i odd)
REMOVE_BASE = 54  # 54..134: line (i - 54) // 3, pair k = (i - 54) % 3
DISCARD_BASE = 135  # 135..146: island i - 135
END_PLAY = 147
TAKE_BASE = 148  # 148..150: face-up slot i - 148
DRAW = 151
SKIP = 152
NUM_ACTIONS = 153
REMOVE_PAIRS = 3  # k = 0: a + a, 1: b + b, 2: a + b (K4.2)


class Kind(IntEnum):
    """What an action does, by index range of the action table."""

    PLACE = 0
    REMOVE = 1
    DISCARD = 2
    END_PLAY = 3
    TAKE = 4
    DRAW = 5
    SKIP = 6


def _action_tables() -> tuple[np.ndarray, ...]:
    """Per action: kind, line (-1 none), the two islands of the cards it spends or
    takes (-1 none), and the face-up slot (-1 none)."""
    kind = np.zeros(NUM_ACTIONS, dtype=np.int8)
    line = np.full(NUM_ACTIONS, -1, dtype=np.int8)
    first = np.full(NUM_ACTIONS, -1, dtype=np.int8)
    second = np.full(NUM_ACTIONS, -1, dtype=np.int8)
    slot = np.full(NUM_ACTIONS, -1, dtype=np.int8)
    for n, (a, b) in enumerate(LINES):
        for e, x in enumerate((a, b)):
            i = PLACE_BASE + 2 * n + e
            kind[i], line[i], first[i] = Kind.PLACE, n, x
        for k, (x, y) in enumerate(((a, a), (b, b), (a, b))):
            i = REMOVE_BASE + REMOVE_PAIRS * n + k
            kind[i], line[i], first[i], second[i] = Kind.REMOVE, n, x, y
    for x in range(NUM_ISLANDS):
        kind[DISCARD_BASE + x], first[DISCARD_BASE + x] = Kind.DISCARD, x
    kind[END_PLAY] = Kind.END_PLAY
    for s in range(ROW_SLOTS):
        kind[TAKE_BASE + s], slot[TAKE_BASE + s] = Kind.TAKE, s
    kind[DRAW], kind[SKIP] = Kind.DRAW, Kind.SKIP
    for t in (kind, line, first, second, slot):
        t.flags.writeable = False
    return kind, line, first, second, slot


ACTION_KIND, ACTION_LINE, ACTION_CARD, ACTION_CARD2, ACTION_SLOT = _action_tables()


def action_words(action: int, forms: Mapping[Kind, str]) -> str:
    """Action `action` (in range) in the words of `forms`, a `str.format` template per
    kind, with the fields {line} (the line's name), {x} and {y} (the islands of the
    cards spent) and {slot} (the face-up slot); one table of words per use (the
    engine's names, the terminal's notation, the descriptions)."""
    a = int(action)
    return forms[Kind(int(ACTION_KIND[a]))].format(
        line=LINE_NAMES[ACTION_LINE[a]],
        x=ISLAND_NAMES[ACTION_CARD[a]],
        y=ISLAND_NAMES[ACTION_CARD2[a]],
        slot=int(ACTION_SLOT[a]),
    )


_ACTION_NAMES = {
    Kind.PLACE: "place {line} with {x}",
    Kind.REMOVE: "remove {line} with {x}+{y}",
    Kind.DISCARD: "discard {x}",
    Kind.END_PLAY: "end play",
    Kind.TAKE: "take slot {slot}",
    Kind.DRAW: "draw",
    Kind.SKIP: "skip",
}


def action_name(action: int) -> str:
    """A short readable name of an action: "place ALOA-BARI with ALOA",
    "remove ELAI-HUNA with HUNA+HUNA", "discard COCO", "end play", "take slot 0",
    "draw", "skip"."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action}")
    return action_words(a, _ACTION_NAMES)


def island_from_name(name: object) -> int:
    """The index of an island name (K1.1); ValueError naming the allowed names."""
    if isinstance(name, str) and name in ISLAND_NAMES:
        return ISLAND_NAMES.index(name)
    raise ValueError(f"unknown island {name!r}; islands are {', '.join(ISLAND_NAMES)}")


def line_from_name(name: object) -> int:
    """The index of a line name such as "ALOA-BARI" (K1.2); ValueError if unknown."""
    if isinstance(name, str) and name in LINE_NAMES:
        return LINE_NAMES.index(name)
    raise ValueError(f"unknown line {name!r}; lines are named as in K1.2, e.g. 'ALOA-BARI'")
