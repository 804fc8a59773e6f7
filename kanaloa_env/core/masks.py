"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks)."""

from __future__ import annotations

import sys

import numpy as np

from .constants import (
    ANNOUNCE,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    KANALOA,
    KANALOA_BITS,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    NUM_TIKI,
    OCTOPUS,
    OCTOPUS_BITS,
    REMOVE_BASE,
    SPECIAL_BITS,
    SUIT_BITS,
    Phase,
)
from .route import removable_ahead
from .state import State

_LITTLE = sys.byteorder == "little"


def _unpack_bits(words: np.ndarray) -> np.ndarray:
    """(b,) uint64 -> (b, 64) bool, bit i of each word in column i."""
    w = words if _LITTLE else words.byteswap()
    return np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little").view(bool)


def playable_cards(hand: np.ndarray, lead_suit: np.ndarray) -> np.ndarray:
    """(b,) uint64: the bits of `hand` that may be played to a trick (R4.1-R4.3).

    A player holding the suit to follow must play it or a special card; otherwise,
    or before a Tiki card leads, any card may be played.
    """
    follow = hand & SUIT_BITS[lead_suit]
    return np.where(follow != 0, follow | (hand & SPECIAL_BITS), hand)


def compute_mask(state: State) -> np.ndarray:
    """(B, 66) bool legal actions of each game's player to act; all False when over."""
    B = state.batch_size
    legal = np.zeros((B, NUM_ACTIONS), dtype=bool)
    phase = state.phase
    play = np.flatnonzero(phase == Phase.PLAY)
    if play.size:
        seat = state.current_player[play]
        allowed = playable_cards(state.hands[play, seat], state.lead_suit[play])
        legal[play, :NUM_TIKI] = _unpack_bits(allowed)[:, :NUM_TIKI]
        legal[play, KANALOA] = (allowed & KANALOA_BITS) != 0
        legal[play, OCTOPUS] = (allowed & OCTOPUS_BITS) != 0
    rem = np.flatnonzero((phase == Phase.REMOVE_OCTOPUS) | (phase == Phase.REMOVE_ROUND_END))
    if rem.size:
        legal[rem, REMOVE_BASE:ANNOUNCE] = removable_ahead(state, rem, state.current_player[rem])
    ann = np.flatnonzero(phase == Phase.ANNOUNCE)
    legal[ann, ANNOUNCE] = True
    legal[ann, NO_ANNOUNCE] = True
    dol = np.flatnonzero(phase == Phase.DOLPHIN)
    legal[dol, DOLPHIN_TAKE] = True
    legal[dol, DOLPHIN_DECLINE] = True
    return legal


def refresh(state: State) -> None:
    """Recompute the cached mask `state.legal` in place (its only writer)."""
    state.legal[...] = compute_mask(state)


def legal_action_mask(state: State) -> np.ndarray:
    """(B, 66) bool legal-action mask for `state.current_player` of every game.

    Finished games have an all-False row (unlike pgx's all-True). Returns a copy.
    """
    return state.legal.copy()
