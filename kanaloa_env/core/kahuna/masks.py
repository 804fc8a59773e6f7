"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks).

How it is computed: the 153 actions are the bits of three 64-bit words per game
(action a is bit a % 64 of word a // 64), unpacked into the bool mask at the end.
A PLACE or REMOVE (K4.1, K4.2) needs its line free or the opponent's, and cards to
pay: per word, the line conditions come from tables indexed by the bytes of the
free and the opponent's line sets (ORed), the card conditions from tables indexed
by the two 12-bit halves of the hand's count word (ANDed: each half's table holds
an action when the conditions on the islands of that half hold). Everything is
whole-batch arithmetic on (B,) words, written into reused arrays.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from . import cards
from .constants import (
    ACTION_CARD,
    ACTION_CARD2,
    ACTION_KIND,
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    DISCARD_BASE,
    DRAW,
    END_PLAY,
    HAND_LIMIT,
    NUM_ACTIONS,
    NUM_ISLANDS,
    NUM_LINES,
    REMOVE_BASE,
    REMOVE_PAIRS,
    ROW_SLOTS,
    SKIP,
    TAKE_BASE,
    Kind,
    Phase,
)
from .state import State

_WORDS = 3  # 64-bit words holding the 153 action bits
_LITTLE = sys.byteorder == "little"
_LINE_BYTES = 4  # a line set (uint32) as bytes
_HALF = 6  # islands per half of a count word: 12 bits
_MASK64 = 2**64 - 1


def _word(bits: int, k: int) -> int:
    """Word k (bits 64k..64k+63) of an action set given as a Python int."""
    return (bits >> (64 * k)) & _MASK64


def _line_tables() -> list[tuple[int, int, int, np.ndarray]]:
    """(word, source, byte, table) for every word that a byte of a line set
    reaches: source 0 is the free lines (PLACE, both ends of each line), source
    1 the opponent's lines (REMOVE, its three pairs); table (256,) uint64 holds
    the word's bits of the actions of the lines set in that byte."""
    out = []
    for source, actions in (
        (0, lambda n: [2 * n, 2 * n + 1]),
        (1, lambda n: [REMOVE_BASE + REMOVE_PAIRS * n + k for k in range(REMOVE_PAIRS)]),
    ):
        for j in range(_LINE_BYTES):
            rows = [0] * 256
            for v in range(256):
                for i in range(8):
                    n = 8 * j + i
                    if v >> i & 1 and n < NUM_LINES:
                        rows[v] |= sum(1 << a for a in actions(n))
            for k in range(_WORDS):
                table = np.array([_word(r, k) for r in rows], dtype=np.uint64)
                if table.any():
                    out.append((k, source, j, table))
    return out


def _conditions(a: int) -> list[tuple[int, int]]:
    """The card conditions of action `a` as (island, cards needed): one card of the
    island for a PLACE (K4.1) or DISCARD, both cards of one end or one of each end
    for a REMOVE (K4.2); none for the other actions."""
    kind, x, y = ACTION_KIND[a], int(ACTION_CARD[a]), int(ACTION_CARD2[a])
    if kind == Kind.REMOVE:
        return [(x, 2)] if x == y else [(x, 1), (y, 1)]
    return [(x, 1)] if kind in (Kind.PLACE, Kind.DISCARD) else []


def _card_tables() -> np.ndarray:
    """(2, 3, 4096) uint64: [h, k, v] holds word k's actions whose card conditions on
    the islands of half h (islands 6h..6h+5) hold when that half of the hand's count
    word is v; conditions on the other half's islands count as held."""
    tables = np.zeros((2, _WORDS, 1 << (2 * _HALF)), dtype=np.uint64)
    for h in range(2):
        rows = [0] * (1 << (2 * _HALF))
        for a in range(DISCARD_BASE + NUM_ISLANDS):
            conds = [(x - _HALF * h, need) for x, need in _conditions(a) if x // _HALF == h]
            for v in range(len(rows)):
                if all((v >> (2 * x)) & 3 >= need for x, need in conds):
                    rows[v] |= 1 << a
        for k in range(_WORDS):
            tables[h, k] = [_word(r, k) for r in rows]
    return tables


_LINE_TABLES = _line_tables()
_CARD_TABLES = _card_tables()
_CARD_TABLES.flags.writeable = False
_HALF_MASK = (1 << (2 * _HALF)) - 1
_HALF_SHIFT = 2 * _HALF
# Word 2 holds actions 128..152: REMOVE of lines 24-26, DISCARD, END_PLAY, TAKE, DRAW, SKIP.
_W2 = 2 * 64
_DISCARDS = np.uint64(_word(sum(1 << (DISCARD_BASE + x) for x in range(NUM_ISLANDS)), 2))
_END_PLAY_BIT = np.uint64(1 << (END_PLAY - _W2))
_TAKE_SHIFT = np.uint64(TAKE_BASE - _W2)
_DRAW_BIT = np.uint64(1 << (DRAW - _W2))
_SKIP_BIT = np.uint64(1 << (SKIP - _W2))
# (135, 12): 1 where a PLACE or REMOVE action spends a card of the island.
_SPENDS = np.zeros((DISCARD_BASE, NUM_ISLANDS), dtype=np.int16)
for _a in range(DISCARD_BASE):
    _SPENDS[_a, ACTION_CARD[_a]] = 1
    if ACTION_CARD2[_a] >= 0:
        _SPENDS[_a, ACTION_CARD2[_a]] = 1
_PLAY, _DRAW_PHASE, _GAME_OVER = (int(p) for p in Phase)
assert TAKE_BASE + ROW_SLOTS == DRAW and DRAW + 1 == SKIP == NUM_ACTIONS - 1


class _Workspace(threading.local):
    """Reused arrays per batch size (fresh ones cost page faults at large batches)."""

    def __init__(self) -> None:
        self.by_size: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def get(self, B: int) -> tuple[np.ndarray, np.ndarray]:
        got = self.by_size.get(B)
        if got is None:
            if len(self.by_size) >= 8:
                self.by_size.clear()
            got = self.by_size[B] = (np.empty((B, _WORDS), np.uint64), np.empty(B, np.uint64))
        return got


_WORKSPACE = _Workspace()


def compute_mask(state: State, idx: np.ndarray | None = None) -> np.ndarray:
    """(B, 153) bool legal actions of each game's player to act (len(idx) rows with
    `idx`); all False once a game is over (K8.3)."""
    s = state if idx is None else state.take(idx)
    B = s.batch_size
    words, scratch = _WORKSPACE.get(B)
    me = np.maximum(s.current_player, 0).astype(np.intp)  # -1 once over: cleared below
    flat = 2 * np.arange(B) + me
    hand = s.hands.take(flat)
    mine = s.bridges.take(flat)
    theirs = s.bridges.take(flat ^ 1)
    phase = s.phase
    play = phase == _PLAY
    # K4.1: PLACE on free lines with bridges in the supply (K1.5); K4.2: REMOVE the
    # opponent's; both only in the PLAY phase (K3.2).
    free = (~(mine | theirs) & np.uint32(ALL_LINES)).astype(np.intp)
    free *= play & (np.bitwise_count(mine) < BRIDGES_PER_PLAYER)
    theirs = theirs.astype(np.intp)
    theirs *= play
    words.fill(0)
    for k, source, j, table in _LINE_TABLES:
        byte = (free if source == 0 else theirs) >> (8 * j)
        byte &= 255
        np.bitwise_or(words[:, k], table.take(byte, out=scratch), out=words[:, k])
    # DISCARD (K4.4) and hand-backs (K6.4) need a card of the island: their bits go
    # through the card conditions with the others, and are kept below where allowed.
    w2 = words[:, 2]
    w2 |= _DISCARDS
    # The cards to pay, from both halves of the hand.
    lo = (hand & np.uint32(_HALF_MASK)).astype(np.intp)
    hi = (hand >> np.uint32(_HALF_SHIFT)).astype(np.intp)
    for k in range(_WORDS):
        np.bitwise_and(words[:, k], _CARD_TABLES[0, k].take(lo, out=scratch), out=words[:, k])
        np.bitwise_and(words[:, k], _CARD_TABLES[1, k].take(hi, out=scratch), out=words[:, k])
    # DISCARD in a non-final PLAY phase (K4.4); a hand-back in DRAW with 5 cards or
    # after a first one (K6.4).
    final = s.final_turns_left > 0
    size = cards.size(hand)
    if s.config.discard_rule == "no_legal_play":
        may_discard = ((words[:, 0] | words[:, 1] | (w2 & ~_DISCARDS)) == 0) & play & ~final
    else:
        may_discard = play & ~final
    may_discard |= (phase == _DRAW_PHASE) & ((size == HAND_LIMIT) | s.handed_back)
    w2 &= ~_DISCARDS | _DISCARDS * may_discard
    # END_PLAY in every PLAY phase (K3.2, K3.3); TAKE, DRAW (hand <= 4, K6.4) and
    # SKIP (K6.3, not after a hand-back) in PLAY and DRAW outside the final turns.
    w2 |= _END_PLAY_BIT * play
    draws = (phase != _GAME_OVER) & ~final
    room = draws & (size < HAND_LIMIT)
    filled = np.packbits(s.face_up >= 0, axis=1, bitorder="little")[:, 0].astype(np.uint64)
    w2 |= (filled * room) << _TAKE_SHIFT
    w2 |= _DRAW_BIT * (room & (s.pile_size > 0))
    w2 |= _SKIP_BIT * (draws & ~s.last_turn_skipped & ~s.handed_back)
    legal = _unpack(words)
    if s.config.discard_rule == "unplayable_cards":
        # K4.4: card x only while no legal PLACE or REMOVE spends an x card.
        spent = (legal[:, :DISCARD_BASE].astype(np.int16) @ _SPENDS) > 0
        legal[:, DISCARD_BASE : DISCARD_BASE + NUM_ISLANDS] &= ~(spent & (play & ~final)[:, None])
    return legal


def _unpack(words: np.ndarray) -> np.ndarray:
    """(b, 3) uint64 action words -> (b, 153) bool."""
    w = words if _LITTLE else words.byteswap()
    bits = np.unpackbits(w.view(np.uint8), axis=1, count=NUM_ACTIONS, bitorder="little")
    return bits.view(bool)


def refresh(state: State, idx: np.ndarray | None = None) -> None:
    """Recompute the cached mask `state.legal` in place (its only writer), optionally
    only for the games `idx`."""
    if idx is None:
        state.legal[...] = compute_mask(state)
    else:
        state.legal[idx] = compute_mask(state, idx)


def legal_action_mask(state: State) -> np.ndarray:
    """(B, 153) bool legal-action mask for `state.current_player` of every game.

    A finished game's row is all False (unlike pgx's all-True). Returns a copy.
    """
    return state.legal.copy()


assert ROW_SLOTS == 3 and TAKE_BASE + ROW_SLOTS == DRAW and DRAW + 1 == SKIP == NUM_ACTIONS - 1
