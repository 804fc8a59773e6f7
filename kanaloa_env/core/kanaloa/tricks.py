"""R4-R5: playing a card to a trick and the winner of a trick."""

from __future__ import annotations

import numpy as np

from ..kernels import kernel, small_kernel
from .constants import CARD_RANK, CARD_SUIT, CARD_TYPE_BITS, KANALOA, NUM_VALUES

# int64 copies of the card tables for the kernels (hands and `played` are uint64 bit
# sets of the 53 physical cards, whose bits all lie below 2**53).
_TYPE_BITS = CARD_TYPE_BITS.astype(np.int64)


@small_kernel
def card_score(card, position, trump, lead_suit):  # type: ignore[no-untyped-def]
    """How strongly `card`, played at `position` (0 = the leader) of a trick, bids to win
    it, under the suit `trump` and the suit to follow `lead_suit`; the highest score wins,
    the first among equals.

    A Kanaloa card beats everything, the last one played the others (R5.1); then
    trumps (R5.2); then the suit to follow (R5.3). An octopus (R5.4) or a card of
    another suit never wins: -1.
    """
    if card == KANALOA:
        return 2 * NUM_VALUES + position
    suit = CARD_SUIT[card]
    if suit < 0:
        return -1
    if suit == trump:
        return NUM_VALUES + CARD_RANK[card]
    if suit == lead_suit:
        return CARD_RANK[card]
    return -1


@kernel
def winning_position(cards, trump, lead_suit):  # type: ignore[no-untyped-def]
    """The index in play order of the card that wins the trick `cards` (R5), under the suit
    `trump` and the suit to follow `lead_suit`."""
    best, who = -2, 0
    for p in range(len(cards)):
        score = card_score(cards[p], p, trump, lead_suit)
        if score > best:
            best, who = score, p
    return who


@small_kernel
def lowest_bit(x):  # type: ignore[no-untyped-def]
    """The lowest set bit of `x` (0 when none)."""
    return x & -x


@small_kernel
def add_played(played, card):  # type: ignore[no-untyped-def]
    """The round's played cards (`State.played`, an int) with one card of type `card`
    added: a Tiki card sets its own bit; a Kanaloa or octopus card the lowest copy
    bit not yet set, so the set depends only on which card types were played."""
    return played | lowest_bit(_TYPE_BITS[card] & ~played)


@kernel
def _winners(cards, trump, lead_suit, out):  # type: ignore[no-untyped-def]
    for i in range(len(out)):
        out[i] = winning_position(cards[i], trump[i], lead_suit[i])


def trick_winner(cards: np.ndarray, trump: np.ndarray, lead_suit: np.ndarray) -> np.ndarray:
    """Index in play order of the card that wins each trick.

    Args:
        cards: (b, P) int card types in play order (the leader's card first).
        trump: (b,) trump suit of the trick (R5.5).
        lead_suit: (b,) suit of the first Tiki card (R4.2).

    Returns:
        (b,) int64: the last Kanaloa (R5.1), else the highest trump (R5.2), else the
        highest card of the suit to follow (R5.3). An octopus or an off-suit card
        never wins (R5.3, R5.4).
    """
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    out = np.zeros(len(cards), dtype=np.int64)
    _winners(
        cards,
        np.asarray(trump, dtype=np.int64).reshape(-1),
        np.asarray(lead_suit, dtype=np.int64).reshape(-1),
        out,
    )
    return out


@kernel
def _played_sets(history, num_played, out):  # type: ignore[no-untyped-def]
    for g in range(len(out)):
        played = 0
        for j in range(num_played[g]):
            played = add_played(played, history[g, j])
        out[g] = played


def played_from_history(history: np.ndarray, num_played: np.ndarray) -> np.ndarray:
    """(B,) uint64 `State.played` rebuilt from (B, H) `history` and (B,) `num_played`
    (the card types of the round's plays in order)."""
    out = np.zeros(len(history), dtype=np.int64)
    _played_sets(np.ascontiguousarray(history), np.asarray(num_played), out)
    return out.astype(np.uint64)
