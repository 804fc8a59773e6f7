"""The ocean deck: the default cards as data, parsing and validation (R1.3, OCEAN-DECK).

A deck is a tuple of cards; a card is a pair of field strings in printed order. A
field string is a suit name, followed by `*` when the field carries a dolphin and by
`(start)` when it is the start field: `"red"`, `"blue*"`, `"blue(start)"`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .constants import MAX_OCEAN_CARDS, SUIT_NAMES, Suit

OceanDeck = tuple[tuple[str, str], ...]

# RULES.md OCEAN-DECK: each unordered pair of colours on exactly two cards, six
# dolphins (one per colour pair), the start field blue on card 0.
DEFAULT_OCEAN_DECK: OceanDeck = (
    ("blue(start)", "red"),
    ("red", "blue*"),
    ("blue", "green"),
    ("green*", "blue"),
    ("blue", "turquoise"),
    ("turquoise*", "blue"),
    ("red", "green"),
    ("green", "red*"),
    ("red", "turquoise"),
    ("turquoise", "red*"),
    ("green", "turquoise"),
    ("turquoise*", "green"),
)


@dataclass(frozen=True)
class DeckArrays:
    """A parsed deck: arrays indexed by deck field code `2 * card + side`.

    Attributes:
        color: (2K,) int8 suit of each field.
        dolphin: (2K,) bool, field carries a dolphin.
        start: (2K,) bool, field is the start field.
        start_card: index of the card holding the start field.
    """

    color: np.ndarray
    dolphin: np.ndarray
    start: np.ndarray
    start_card: int

    @property
    def num_cards(self) -> int:
        """The number of ocean cards in the deck."""
        return len(self.color) // 2


def parse_field(text: str) -> tuple[int, bool, bool]:
    """Parse `text`, a field string, into (suit, dolphin, start); `ValueError` if
    malformed."""
    if not isinstance(text, str):
        raise TypeError(f"ocean_deck field must be a str like 'red*', got {type(text).__name__}")
    rest = text.strip().lower()
    start = rest.endswith("(start)")
    if start:
        rest = rest[: -len("(start)")]
    dolphin = rest.endswith("*")
    if dolphin:
        rest = rest[:-1]
    if rest not in SUIT_NAMES:
        raise ValueError(
            f"ocean_deck field {text!r}: colour must be one of {SUIT_NAMES}, optionally "
            "followed by '*' (dolphin) and '(start)'"
        )
    return SUIT_NAMES.index(rest), dolphin, start


@lru_cache(maxsize=64)
def deck_arrays(deck: OceanDeck) -> DeckArrays:
    """Validate a deck (R1.3) and return its field arrays.

    Raises:
        ValueError: naming `ocean_deck` and what is wrong: not 1..12 cards, a card
            without exactly two fields, two fields of one colour, not exactly one
            start field, a start field that is not blue.
    """
    if not isinstance(deck, tuple) or not 1 <= len(deck) <= MAX_OCEAN_CARDS:
        raise ValueError(f"ocean_deck must be a tuple of 1..{MAX_OCEAN_CARDS} cards")
    color, dolphin, start = [], [], []
    for k, card in enumerate(deck):
        if not isinstance(card, tuple) or len(card) != 2:
            raise ValueError(f"ocean_deck card {k} must be a pair of field strings, got {card!r}")
        parsed = [parse_field(f) for f in card]
        if parsed[0][0] == parsed[1][0]:
            raise ValueError(f"ocean_deck card {k} {card!r}: its two fields must differ in colour")
        for c, d, s in parsed:
            color.append(c)
            dolphin.append(d)
            start.append(s)
    starts = [i for i, s in enumerate(start) if s]
    if len(starts) != 1:
        raise ValueError(f"ocean_deck must have exactly one start field, found {len(starts)}")
    if color[starts[0]] != Suit.BLUE:
        raise ValueError("ocean_deck: the start field must be blue (R1.3)")
    return DeckArrays(
        color=np.array(color, dtype=np.int8),
        dolphin=np.array(dolphin, dtype=bool),
        start=np.array(start, dtype=bool),
        start_card=starts[0] // 2,
    )


def field_rows(deck: DeckArrays) -> np.ndarray:
    """(2K, 8) float32: each deck field code's features as the observation shows a route
    field (`observation.FIELD_FEATURES`: present, the four colours one-hot, dolphin,
    start; `occupied`, the last, 0 here)."""
    n = len(deck.color)
    rows = np.zeros((n, 8), dtype=np.float32)
    rows[:, 0] = 1.0
    rows[np.arange(n), 1 + deck.color] = 1.0
    rows[:, 5] = deck.dolphin
    rows[:, 6] = deck.start
    return rows


def normalize_deck(deck: object) -> OceanDeck:
    """Turn a list-of-lists deck (as read from JSON) into the hashable tuple form."""
    if isinstance(deck, str) or not hasattr(deck, "__iter__"):
        raise TypeError("ocean_deck must be a sequence of [field, field] pairs")
    return tuple(tuple(card) if not isinstance(card, str) else (card,) for card in deck)  # type: ignore[union-attr]


def format_deck(deck: OceanDeck) -> str:
    """A readable table of a deck, one card a line (for `--print-deck` style output)."""
    lines = [f"{k:>2}: {a:<16} {b}" for k, (a, b) in enumerate(deck)]
    return "\n".join(lines)
