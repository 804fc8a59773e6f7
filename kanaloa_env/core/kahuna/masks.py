"""The legal-action mask: the only code that decides what is legal (DESIGN.md, Masks).

How it is computed: the 153 actions are the bits of three 64-bit words per game
(action i is bit i % 64 of word i // 64). PLACE and REMOVE (K4.1, K4.2) need a
line condition (free, or the opponent's) and card conditions; each comes from
tables indexed by the bytes of the bit sets, ORed together and ANDed, then the
phase's other actions are added and the words are unpacked into the bool mask.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

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
_HAND_BYTES = 3  # a count word's 24 bits: 4 islands per byte


def _words(bits: int) -> np.ndarray:
    """(3,) uint64: an action set given as a Python int (bit a for action a)."""
    return np.array([(bits >> (64 * k)) & (2**64 - 1) for k in range(_WORDS)], dtype=np.uint64)


def _word_bits(actions: Iterable[int]) -> np.ndarray:
    """(3,) uint64: the action words with the bits of `actions` set."""
    return _words(sum(1 << a for a in set(actions)))


def _line_rows(actions_of_line: dict[int, list[int]]) -> np.ndarray:
    """(4 * 256, 3) uint64: row 256 j + v holds the bits of the actions of the lines
    set in byte j (value v) of a line set."""
    rows = np.zeros((_LINE_BYTES * 256, _WORDS), dtype=np.uint64)
    for j in range(_LINE_BYTES):
        for v in range(256):
            lines = [8 * j + i for i in range(8) if v >> i & 1 and 8 * j + i < NUM_LINES]
            rows[256 * j + v] = _word_bits(a for n in lines for a in actions_of_line[n])
    return rows


def _conditions(a: int) -> list[tuple[int, int]]:
    """The card conditions of action `a` as (island, cards needed): one card of the
    island for a PLACE (K4.1) or DISCARD, both cards of one end or one of each end
    for a REMOVE (K4.2); none for the other actions."""
    kind, x, y = ACTION_KIND[a], int(ACTION_CARD[a]), int(ACTION_CARD2[a])
    if kind == Kind.REMOVE:
        return [(x, 2)] if x == y else [(x, 1), (y, 1)]
    return [(x, 1)] if kind in (Kind.PLACE, Kind.DISCARD) else []


def _card_rows() -> np.ndarray:
    """(3 * 256, 6) uint64: row 256 j + v holds, when byte j of the hand's count word
    (islands 4j..4j+3) is v, the actions whose first condition holds (words 0-2)
    and those whose second condition holds (words 3-5). An action with fewer
    conditions has the missing ones in every row, so that ORing the rows of the
    three bytes and ANDing both halves gives the actions the hand can pay for."""
    rows = [[0, 0] for _ in range(_HAND_BYTES * 256)]
    for a in range(NUM_ACTIONS):
        conds = _conditions(a)
        for half in range(2):
            if half >= len(conds):
                for row in rows:
                    row[half] |= 1 << a
                continue
            island, need = conds[half]
            j, shift = divmod(island, 4)
            for v in range(256):
                if (v >> (2 * shift)) & 3 >= need:
                    rows[256 * j + v][half] |= 1 << a
    return np.array([np.concatenate([_words(f), _words(g)]) for f, g in rows])


_LINE_TABLE = np.concatenate(
    [
        _line_rows({n: [2 * n, 2 * n + 1] for n in range(NUM_LINES)}),  # free lines: PLACE
        _line_rows({n: [REMOVE_BASE + 3 * n + k for k in range(3)] for n in range(NUM_LINES)}),
    ]
)
_CARD_TABLE = _card_rows()  # (768, 6)
for _t in (_LINE_TABLE, _CARD_TABLE):
    _t.flags.writeable = False
# Row offsets of the bytes: free lines 0..3, opponent's lines 4..7; hand bytes 0..2.
_LINE_OFFSETS = 256 * np.arange(2 * _LINE_BYTES, dtype=np.intp)
_HAND_OFFSETS = 256 * np.arange(_HAND_BYTES, dtype=np.intp)

_DISCARDS = _word_bits(range(DISCARD_BASE, DISCARD_BASE + NUM_ISLANDS))
# Word 2 holds actions 128..152: the discards, END_PLAY, TAKE, DRAW and SKIP.
_W2 = 2 * 64
_END_PLAY_BIT = np.uint64(1 << (END_PLAY - _W2))
_TAKE_SHIFT = np.uint64(TAKE_BASE - _W2)
_DRAW_BIT = np.uint64(1 << (DRAW - _W2))
_SKIP_BIT = np.uint64(1 << (SKIP - _W2))
_PLACE_REMOVE = _word_bits(range(0, DISCARD_BASE))
# (135, 12): 1 where a PLACE or REMOVE action spends a card of the island.
_SPENDS = np.zeros((DISCARD_BASE, NUM_ISLANDS), dtype=np.int16)
for _a in range(DISCARD_BASE):
    _SPENDS[_a, ACTION_CARD[_a]] = 1
    if ACTION_CARD2[_a] >= 0:
        _SPENDS[_a, ACTION_CARD2[_a]] = 1
_PLAY, _DRAW_PHASE = int(Phase.PLAY), int(Phase.DRAW)


def _bytes(words: np.ndarray, n: int) -> np.ndarray:
    """(b,) unsigned words -> (b, n) uint8, least significant byte first."""
    w = words if _LITTLE else words.byteswap()
    return w.view(np.uint8).reshape(len(words), -1)[:, :n]


def compute_mask(state: State, idx: np.ndarray | None = None) -> np.ndarray:
    """(B, 153) bool legal actions of each game's player to act (len(idx) rows with
    `idx`); all False once a game is over (K8.3)."""
    s = state if idx is None else state.take(idx)
    B = s.batch_size
    me = np.maximum(s.current_player, 0).astype(np.intp)  # -1 once over: row cleared below
    flat = 2 * np.arange(B) + me
    hand = s.hands.reshape(-1).take(flat)
    mine = s.bridges.reshape(-1).take(flat)
    theirs = s.bridges.reshape(-1).take(flat ^ 1)
    # K4.1: free lines, none with an empty bridge supply (K1.5).
    free = ~(mine | theirs) & np.uint32(ALL_LINES)
    free *= np.bitwise_count(mine) < BRIDGES_PER_PLAYER
    line_bytes = np.concatenate([_bytes(free, 4), _bytes(theirs, 4)], axis=1) + _LINE_OFFSETS
    t = _LINE_TABLE.take(line_bytes, axis=0)  # (B, 8, 3)
    lines = t[:, 0] | t[:, 1] | t[:, 2] | t[:, 3] | t[:, 4] | t[:, 5] | t[:, 6] | t[:, 7]
    c = _CARD_TABLE.take(_bytes(hand, 3) + _HAND_OFFSETS, axis=0)  # (B, 3, 6)
    c = c[:, 0] | c[:, 1] | c[:, 2]
    first, second = c[:, :_WORDS], c[:, _WORDS:]
    phase = s.phase
    play = phase == _PLAY
    words = lines & first & second
    words *= play[:, None]  # PLACE and REMOVE only in the PLAY phase
    final = s.final_turns_left > 0
    size = cards.size(hand)
    # DISCARD: K4.4 in a non-final PLAY phase; a hand-back in DRAW (K6.4).
    if s.config.discard_rule == "no_legal_play":
        may_discard = ~(words & _PLACE_REMOVE).any(axis=1)
    else:
        may_discard = np.ones(B, dtype=bool)
    may_discard &= play & ~final
    may_discard |= (phase == _DRAW_PHASE) & ((size == HAND_LIMIT) | s.handed_back)
    w2 = words[:, 2]
    w2 |= first[:, 2] & _DISCARDS[2] * may_discard
    # END_PLAY in every PLAY phase (K3.2, K3.3).
    w2 |= _END_PLAY_BIT * play
    # TAKE, DRAW (hand <= 4, K6.4) and SKIP (K6.3, not after a hand-back) end the turn,
    # in PLAY and DRAW outside the final turns.
    draws = (phase != Phase.GAME_OVER) & ~final
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
