"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks)."""

from __future__ import annotations

import sys

import numpy as np

from .constants import (
    ANNOUNCE,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    KANALOA,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    OCTOPUS,
    REMOVE_BASE,
    SPECIAL_BITS,
    SUIT_BITS,
    TIKI_BITS,
    Phase,
)
from .route import const, flat_index, removable_bits
from .state import State

_LITTLE = sys.byteorder == "little"


def _unpack_bits(words: np.ndarray) -> np.ndarray:
    """(b,) uint64 -> (b, 64) bool, bit i of each word in column i."""
    w = words if _LITTLE else words.byteswap()
    # One flat unpack: unpacking row by row (axis=1) is several times slower.
    return np.unpackbits(w.view(np.uint8), bitorder="little").view(bool).reshape(len(w), 64)


def playable_cards(hand: np.ndarray, lead_suit: np.ndarray) -> np.ndarray:
    """(b,) uint64: the bits of `hand` that may be played to a trick (R4.1-R4.3).

    A player holding the suit to follow must play it or a special card; otherwise,
    or before a Tiki card leads, any card may be played.
    """
    return playable_tiki(hand, lead_suit) | (hand & SPECIAL_BITS)


def playable_tiki(hand: np.ndarray, lead_suit: np.ndarray) -> np.ndarray:
    """(b,) uint64: the Tiki cards of `hand` that may be played; see `playable_cards`
    (the special cards may always be played)."""
    # No suit (-1) takes SUIT_BITS's last entry, 0: nothing to follow.
    follow = hand & SUIT_BITS.take(lead_suit)
    # Holding the suit to follow: only it (R4.3).
    return np.where(follow != _ZERO, follow, hand & _TIKI)


# (Constant operands as `const` arrays: a scalar operand is converted on every call.)
_ZERO = const(0, np.uint64)
_TIKI = const(int(TIKI_BITS), np.uint64)
_ANNOUNCE_ACTIONS = (np.uint64(1) << np.uint64(ANNOUNCE)) | (np.uint64(1) << np.uint64(NO_ANNOUNCE))
_REMOVE_SHIFT = np.uint64(REMOVE_BASE)
_SPECIAL_SHIFT = const(KANALOA, np.uint64)
# Action bits 48/49 for the five special-card hand bits (3 Kanaloa, 2 octopus) shifted down.
_SPECIAL_ACTIONS = np.array(
    [(int(k & 7 != 0) << KANALOA) | (int(k >> 3 != 0) << OCTOPUS) for k in range(32)],
    dtype=np.uint64,
)
# Per phase: fixed action bits (the announce pair, R3.2).
_PHASE_ACTIONS = np.array(
    [int(_ANNOUNCE_ACTIONS) if p == Phase.ANNOUNCE else 0 for p in Phase], dtype=np.uint64
)
_REMOVE_OCTOPUS, _REMOVE_ROUND_END = int(Phase.REMOVE_OCTOPUS), int(Phase.REMOVE_ROUND_END)
_DOLPHIN = int(Phase.DOLPHIN)
_PLAY = const(int(Phase.PLAY), np.int8)


def compute_mask(
    state: State, idx: np.ndarray | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """(B, 66) bool legal actions of each game's player to act; all False when over.

    With `idx`, only the rows of those games, (len(idx), 66). With `out`, the mask
    is written there (and returned).

    Actions 0..63 are built as one 64-bit word per game (Tiki cards keep their hand
    bits, R4.1-R4.3), then unpacked; the dolphin pair (64, 65) is set directly.
    """
    P = state.num_players
    if idx is None:
        B = state.batch_size
        phase, cur, lead = state.phase, state.current_player, state.lead_suit
        seat_index = flat_index(B, P, cur)
    else:
        B = len(idx)
        phase, cur = state.phase.take(idx), state.current_player.take(idx)
        lead = state.lead_suit.take(idx)
        seat_index = idx * P + cur
    # A finished game's current_player is -1, which names the previous game's last
    # seat (or wraps around); its word is cleared by the phase below.
    hand = state.hands.take(seat_index)
    # The playable Tiki cards keep their bits; the specials, always playable, become
    # actions 48/49 (int64 indices: numpy converts uint64 ones at some cost).
    word = playable_tiki(hand, lead) | _SPECIAL_ACTIONS.take(
        (hand >> _SPECIAL_SHIFT).view(np.int64)
    )
    playing = phase == _PLAY
    dolphin = None  # no game in phase dolphin
    if np.count_nonzero(playing) < B:  # (the common case, all playing, skips this)
        word *= playing  # cards only in phase play
        if state.config.nil_announcement:
            word |= _PHASE_ACTIONS.take(phase)
        rem = ((phase | 1) == _REMOVE_ROUND_END).nonzero()[0]  # phases 2 and 3: a removal
        if rem.size:
            games = rem if idx is None else idx[rem]
            word[rem] = removable_bits(state, games, cur.take(rem)).view(np.uint64) << _REMOVE_SHIFT
        dolphin = phase == _DOLPHIN
    legal = np.empty((B, NUM_ACTIONS), dtype=bool) if out is None else out
    legal[:, :64] = _unpack_bits(word)
    if legal.flags.c_contiguous and B > 1:
        # Both dolphin columns (64, 65) of every row as one strided uint16 write.
        both = np.ndarray((B,), np.uint16, legal, DOLPHIN_TAKE, (NUM_ACTIONS,))
        if dolphin is None:
            both.fill(0)
        else:
            np.multiply(dolphin, np.uint16(0x0101), out=both)
    elif dolphin is None:
        legal[:, DOLPHIN_TAKE:] = False
    else:
        legal[:, DOLPHIN_TAKE] = legal[:, DOLPHIN_DECLINE] = dolphin
    return legal


def refresh(state: State, idx: np.ndarray | None = None) -> None:
    """Recompute the cached mask `state.legal` in place (its only writer), optionally
    only for the games `idx`."""
    if idx is None:
        compute_mask(state, out=state.legal)
    else:
        state.legal[idx] = compute_mask(state, idx)


def legal_action_mask(state: State) -> np.ndarray:
    """(B, 66) bool legal-action mask for `state.current_player` of every game.

    Finished games have an all-False row (unlike pgx's all-True). Returns a copy.
    """
    return state.legal.copy()
