"""R4-R5: the suit to follow and the winner of a trick."""

from __future__ import annotations

from functools import cache

import numpy as np

from .constants import (
    CARD_RANK,
    CARD_SUIT,
    CARD_TYPE_BITS,
    KANALOA,
    NUM_CARD_TYPES,
    NUM_SUITS,
    NUM_VALUES,
)
from .route import const, max_seats


def trick_winner(cards: np.ndarray, trump: np.ndarray, lead_suit: np.ndarray) -> np.ndarray:
    """Index in play order of the card that wins each trick.

    Args:
        cards: (b, P) int card types in play order (the leader's card first).
        trump: (b,) trump suit of the trick (R5.5).
        lead_suit: (b,) suit of the first Tiki card (R4.2).

    Returns:
        (b,) int: the last Kanaloa (R5.1), else the highest trump (R5.2), else the
        highest card of the suit to follow (R5.3). An octopus or an off-suit card
        never wins (R5.3, R5.4).
    """
    P = cards.shape[1]
    suit = CARD_SUIT[cards]
    rank = CARD_RANK[cards].astype(np.int16)
    score = np.where((suit == lead_suit[:, None]) & (suit >= 0), rank, -1)
    score = np.where(suit == trump[:, None], NUM_VALUES + rank, score)
    score = np.where(cards == KANALOA, 2 * NUM_VALUES + np.arange(P, dtype=np.int16), score)
    return np.argmax(score, axis=1)


@cache
def _winner_keys(num_players: int) -> np.ndarray:
    """`trick_winner`'s score as one table lookup, with position and seat folded in.

    Entry `(((trump * 5 + lead_suit + 1) * P + leader) * P + p) * NUM_CARD_TYPES +
    card` is `64 * score + 8 * (7 - p) + seat`, with `trick_winner`'s score of the
    card at position p (a Kanaloa there scores `24 + p`) and `seat = (leader + p) %
    P` who played it. The largest key of a trick is its winner, the first position
    among equal scores (as `np.argmax`), and `key % 8` the winner's seat.
    """
    P = num_players
    trump, lead, leader, p, card = np.meshgrid(
        np.arange(NUM_SUITS),
        np.arange(-1, NUM_SUITS),
        np.arange(P),
        np.arange(P),
        np.arange(NUM_CARD_TYPES),
        indexing="ij",
    )
    suit, rank = CARD_SUIT[card], CARD_RANK[card].astype(np.int64)
    score = np.where((suit == lead) & (suit >= 0), rank, -1)
    score = np.where(suit == trump, NUM_VALUES + rank, score)
    score = np.where(card == KANALOA, 2 * NUM_VALUES + p, score)
    # (int64: the winning seat comes out as an index array, no cast needed)
    return (64 * score + 8 * (7 - p) + (leader + p) % P).astype(np.int64).ravel()


def trick_winner_seat(
    cards: np.ndarray, trump: np.ndarray, lead_suit: np.ndarray, leader: np.ndarray
) -> np.ndarray:
    """(b,) seat that wins each complete trick of real cards (R5).

    `cards` (b, P) card types 0..49 in play order from `leader` (b,); `trump`,
    `lead_suit` as for `trick_winner`. One table lookup per card and a maximum
    over the seats instead of three `np.where` passes and an `argmax` (which numpy
    runs slowly over a short axis), and no wrap-around for the seat.
    """
    P = cards.shape[1]
    # The table row of the trick: ((trump * 5 + lead_suit + 1) * P + leader) * P * 50,
    # expanded so that each term is one multiplication by a constant array.
    t, s, r, offsets = _winner_factors(P)
    row = trump * t + lead_suit * s + leader * r
    keys = _winner_keys(P).take(row[:, None] + offsets + cards)
    return max_seats(keys) & _SEAT_BITS


@cache
def _winner_factors(num_players: int) -> tuple[np.ndarray, ...]:
    """`trick_winner_seat`'s index terms: the trump, lead suit and leader factors as
    one-element int64 arrays, and the (P,) offsets of the positions (with the lead
    suit's + 1)."""
    P = num_players
    row = P * NUM_CARD_TYPES
    t, s, r = (const(f) for f in (5 * P * row, P * row, row))
    return t, s, r, P * row + np.arange(P, dtype=np.int64) * NUM_CARD_TYPES


_SEAT_BITS = const(7)


def add_played(played: np.ndarray, kind: np.ndarray) -> None:
    """Add one card to (b,) uint64 `played`, the round's played cards, in place.

    `kind` (b,) holds the card type's copy bits (`CARD_TYPE_BITS`; 0 adds nothing).
    A Tiki card sets its own bit; a Kanaloa or octopus sets the lowest copy bit not
    yet set, so the set depends only on which card types were played (it is the
    same whether built step by step or from a scenario's list).
    """
    free = kind & ~played
    played |= free & -free  # its lowest bit


def played_from_history(history: np.ndarray, num_played: np.ndarray) -> np.ndarray:
    """(B,) uint64 `State.played` rebuilt from (B, H) `history` and (B,) `num_played`."""
    played = np.zeros(len(history), dtype=np.uint64)
    # Only the slots some game has filled: at 4 players, batch 1, 12 cards played,
    # 255 us against 482 us for all 32 slots (timeit, 2-core VM at load ~13).
    for j in range(int(num_played.max(initial=0))):
        on = j < num_played
        add_played(played, np.where(on, CARD_TYPE_BITS.take(np.maximum(history[:, j], 0)), 0))
    return played
