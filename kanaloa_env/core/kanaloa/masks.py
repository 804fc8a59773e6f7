"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks).

`refresh_game` writes one game's row of the cached mask `State.legal`; `step` calls
it after every decision, so `legal_action_mask` only copies the cache.
"""

from __future__ import annotations

import numpy as np

from ..kernels import kernel, small_kernel
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
    SUIT_BITS,
    TIKI_BITS,
    Phase,
)
from .route import removable
from .state import State

# int64 copies of the hand bit tables for the kernels.
_SUIT_BITS = SUIT_BITS.astype(np.int64)  # index -1 (no suit to follow) gives 0
_TIKI_BITS = int(TIKI_BITS)
_KANALOA_BITS = int(KANALOA_BITS)
_OCTOPUS_BITS = int(OCTOPUS_BITS)


@small_kernel
def playable_tiki(hand, lead_suit):  # type: ignore[no-untyped-def]
    """The Tiki cards of `hand` (an int bit set) that may be played to the trick
    (R4.2, R4.3): holding `lead_suit`, the suit to follow (-1: none yet), only it; else
    any. Kanaloa and octopus
    cards may always be played (R4.1)."""
    follow = hand & _SUIT_BITS[lead_suit]
    return follow if follow != 0 else hand & _TIKI_BITS


# Row v: the bits of byte v as 8 bools, lowest first (the Tiki cards of a hand, 8 at a time).
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.bool_)


@kernel
def refresh_game(c, s, g):  # type: ignore[no-untyped-def]
    """Write game g's row of `s.legal`: the legal actions of its player to act (all
    False once the game is over).
    `c` is the config's kernel rules (`Rules`)."""
    row = s.legal[g]
    phase = s.phase[g]
    if phase == Phase.PLAY:
        hand = np.int64(s.hands[g, s.current_player[g]])
        tiki = playable_tiki(hand, s.lead_suit[g])
        for byte in range(NUM_TIKI // 8):
            bits = (tiki >> (8 * byte)) & 255
            for j in range(8):
                row[8 * byte + j] = _BYTE_BITS[bits, j]
        row[KANALOA] = hand & _KANALOA_BITS != 0
        row[OCTOPUS] = hand & _OCTOPUS_BITS != 0
        row[OCTOPUS + 1 :] = False
        return
    row[:] = False
    if phase == Phase.ANNOUNCE:
        if c.nil_announcement:  # R3.2
            row[ANNOUNCE] = True
            row[NO_ANNOUNCE] = True
    elif phase == Phase.REMOVE_OCTOPUS or phase == Phase.REMOVE_ROUND_END:  # R4.4, R7.1
        bits = removable(c, s, g, np.int64(s.current_player[g]))
        k = 0
        while bits:
            if bits & 1:
                row[REMOVE_BASE + k] = True
            bits >>= 1
            k += 1
    elif phase == Phase.DOLPHIN:  # R6.3
        row[DOLPHIN_TAKE] = True
        row[DOLPHIN_DECLINE] = True


@kernel
def _refresh_games(c, s, idx):  # type: ignore[no-untyped-def]
    for g in idx:
        refresh_game(c, s, g)


def refresh(state: State, idx: np.ndarray | None = None) -> None:
    """Recompute the cached mask `state.legal` in place (its only writer), optionally
    only for the games `idx`."""
    games = np.arange(state.batch_size) if idx is None else np.asarray(idx, dtype=np.int64)
    _refresh_games(state.config.rules, state.kernel_arrays(), games.reshape(-1))


def compute_mask(state: State) -> np.ndarray:
    """(B, 66) bool legal actions of each game's player to act, computed afresh (the
    invariant checker compares it with the cache).
    `state` is the batch of games."""
    fresh = state.copy()
    refresh(fresh)
    return fresh.legal


def legal_action_mask(state: State) -> np.ndarray:
    """(B, 66) bool legal-action mask for `state.current_player` of every game.

    Finished games have an all-False row (unlike pgx's all-True). Returns a copy.
    """
    return state.legal.copy()


assert NUM_ACTIONS == DOLPHIN_DECLINE + 1
