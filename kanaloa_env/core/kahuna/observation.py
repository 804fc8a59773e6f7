"""The observation: one fixed-length float32 vector per (game, player) (K12).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation-kahuna.md`. Everything is from the observer's point of
view ("mine" / "theirs"), and only what the observer may know is encoded (K12):
the own hand and own face-down discards, the board, the row, the public discards,
the counts of cards in hidden places, both `known` memories (K6.7), scorings,
round, phase and flags. Never the opponent's hand beyond `known`, the islands of
the opponent's face-down discards, or the pile's order or content.

How it is fast: the vector is 66 blocks of 4 floats. Each of the first 63 blocks is
a row of its own 256-row table, chosen by one byte per game (a byte of a count
word, a nibble of a line set with a number in its spare bits, an island's two
bridge counts and two stones, a slot's content, a set of flags). The encoder packs
the 63 bytes of every game into eight 64-bit words with whole-batch shifts, adds
each block's table offset to its byte, and writes the whole observation with a
single `np.take`; the last 3 blocks are numbers, written per game into 3 rows of
the table that only that game names. (Column-wise writes into a (B, 66) array, or
writing the parts into slices of the output one after the other, cost several
times more at batch 8192: a strided column of a large batch costs as much as a
contiguous pass.)
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

import numpy as np

from . import cards
from .config import DISCARD_RULES, Config
from .constants import (
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    DEGREE,
    HAND_LIMIT,
    ISLAND_NAMES,
    LINE_NAMES,
    LINES,
    MAJORITY,
    MAX_PILE,
    MAX_STONES,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    ROW_SLOTS,
    Phase,
)
from .state import State

BLOCK = 4  # floats per block
_LITTLE = sys.byteorder == "little"
_MAX_POINTS = 3 + MAX_STONES  # the largest total: 1 + 2 + 12
DECISIONS = ("play", "draw", "game_over")
TURN_FLAGS = ("first_final_turn", "second_final_turn", "last_turn_skipped", "may_not_skip")
ISLAND_FEATURES = ("my_stone", "their_stone", "my_majority", "their_majority")
STONE_FEATURES = (
    "my_stones_on_board",
    "their_stones_on_board",
    "my_stone_supply",
    "their_stone_supply",
)
# (name, divisor, meaning): the numbers at the end of the vector, each over its divisor
# (None: config max_turns).
NUMBERS: tuple[tuple[str, int | None, str], ...] = (
    ("my_hand_size", HAND_LIMIT, "my hand size / 5"),
    ("their_hand_size", HAND_LIMIT, "the opponent's hand size / 5"),
    ("my_down_count", NUM_CARDS, "my face-down discards since the last reshuffle / 24"),
    ("their_down_count", NUM_CARDS, "the opponent's face-down discards / 24"),
    ("turn", None, "completed turns / max_turns"),
    ("stones_per_player", MAX_STONES, "config stones_per_player / 12"),
    ("cards_to_draw", NUM_CARDS, "cards in the pile and the row / 24 (K7.1: 0 exhausts)"),
    ("free_lines", NUM_LINES, "free lines / 27"),
    ("my_scoring_3", MAX_STONES, "my points in scoring 3 / 12"),
    ("their_scoring_3", MAX_STONES, "the opponent's points in scoring 3 / 12"),
    ("my_points", _MAX_POINTS, "my total points / 15"),
    ("their_points", _MAX_POINTS, "the opponent's total points / 15"),
)


def _multiset(what: str) -> str:
    return f"{what}: per island (K1.1 order), the number of cards / 2"


def _lines(whose: str) -> str:
    return f"per line (K1.2 order): 1 if {whose}"


# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_ISLANDS, _multiset("my hand")),
    ("decision", 4, "phase one-hot: " + ", ".join(DECISIONS) + "; then 1 when I am to act"),
    ("known_theirs", NUM_ISLANDS, _multiset("cards I know the opponent holds (K6.7)")),
    ("round", 4, "round 1, 2, 3 one-hot (K3.4); then 1 after a hand-back this DRAW phase (K6.4)"),
    ("known_mine", NUM_ISLANDS, _multiset("cards of my hand the opponent knows I hold (K6.7)")),
    (
        "turn_flags",
        len(TURN_FLAGS),
        "1 in the first final turn, 1 in the second final turn (K7.4), 1 when the previous "
        "turn ended with SKIP (K6.3), 1 when the player to act may not skip now",
    ),
    ("discard_up", NUM_ISLANDS, _multiset("cards spent face up since the last reshuffle (K4.5)")),
    (
        "rules",
        4,
        "rule options, 1 when on: discard_rule " + ", ".join(DISCARD_RULES) + ", early_end",
    ),
    (
        "my_discard_down",
        NUM_ISLANDS,
        _multiset("my face-down discards and hand-backs since the last reshuffle"),
    ),
    (
        "scorings",
        4,
        "my points in scoring 1, the opponent's, my points in scoring 2 / 2, the opponent's "
        "(K7.2; 0 before the scoring)",
    ),
    (
        "face_up",
        ROW_SLOTS * NUM_ISLANDS,
        "face-up row: slot s at [12s, 12s+12), its island one-hot (all 0: empty slot)",
    ),
    ("lines_mine", NUM_LINES, _lines("my bridge is on it")),
    ("my_bridge_supply", 1, "bridges in my supply / 25"),
    ("lines_theirs", NUM_LINES, _lines("the opponent's bridge is on it")),
    ("their_bridge_supply", 1, "bridges in the opponent's supply / 25"),
    ("lines_free", NUM_LINES, _lines("it is free")),
    ("pile_size", 1, f"cards in the face-down pile / {MAX_PILE}"),
    (
        "islands",
        NUM_ISLANDS * len(ISLAND_FEATURES),
        "per island x (K1.1 order) at [4x, 4x+4): my stone, the opponent's stone, my bridges "
        "at x / its majority threshold, the opponent's bridges at x / its majority threshold "
        "(>= 1: the island is held, K5.1)",
    ),
    (
        "stones",
        len(STONE_FEATURES),
        "my stones on the board / 12, the opponent's / 12, stones in my supply / 12, in the "
        "opponent's supply / 12 (K1.6)",
    ),
    ("numbers", len(NUMBERS), "; ".join(f"{name}: {text}" for name, _, text in NUMBERS)),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OFFSETS[_name] = (_o, _o + _size)
    _o += _size
OBS_DIM: int = _o
_NUM_BLOCKS = OBS_DIM // BLOCK
_NUMBER_BLOCKS = len(NUMBERS) // BLOCK
_BYTES = _NUM_BLOCKS - _NUMBER_BLOCKS  # blocks chosen by a byte
assert OBS_DIM == _NUM_BLOCKS * BLOCK and OFFSETS["numbers"][0] == _BYTES * BLOCK


def _block(name: str) -> int:
    """The first block of a layout entry."""
    assert OFFSETS[name][0] % BLOCK == 0
    return OFFSETS[name][0] // BLOCK


# ---- the block tables (256 rows each) ----------------------------------------------


def _counts_table(v: np.ndarray) -> np.ndarray:
    """A byte of a count word: its 4 islands' counts / 2."""
    return ((v[:, None] >> (2 * np.arange(4))) & 3) / 2


def _bits_table(v: np.ndarray) -> np.ndarray:
    """A byte's 4 low bits, lowest first."""
    return (v[:, None] >> np.arange(4)) & 1


def _slot_table(j: int) -> Callable[[np.ndarray], np.ndarray]:
    """A face-up slot's content (island + 1, 0 = empty): islands 4j..4j+3 one-hot."""
    return lambda v: (v[:, None] - 1 == 4 * j + np.arange(4)).astype(float)


def _last_nibble_table(divisor: int) -> Callable[[np.ndarray], np.ndarray]:
    """A line set's last nibble (lines 24-26) in bits 0-2 and a number in bits 3-7."""
    return lambda v: np.column_stack([_bits_table(v)[:, :3], (v >> 3) / divisor])


def _island_table(x: int) -> Callable[[np.ndarray], np.ndarray]:
    """Island x: my count in bits 0-2, the opponent's in 3-5, my stone 6, theirs 7."""
    return lambda v: np.column_stack(
        [(v >> 6) & 1, v >> 7, (v & 7) / MAJORITY[x], ((v >> 3) & 7) / MAJORITY[x]]
    )


def _stones_table(v: np.ndarray, spp: int) -> np.ndarray:
    """My stones on the board in bits 0-3, the opponent's in bits 4-7."""
    mine, theirs = v & 15, v >> 4
    return np.column_stack([mine, theirs, spp - mine, spp - theirs]) / MAX_STONES


def _tables(config: Config) -> np.ndarray:
    """(63 * 256, 4) float32: block k's row for byte v at 256 k + v."""
    v = np.arange(256)
    parts: list[np.ndarray] = []
    for _ in range(5):  # hand, known_theirs, known_mine, discard_up, my_discard_down
        parts += [_counts_table(v)] * 3
        parts.append(_bits_table(v))  # the flags block after it
    parts += [_slot_table(j)(v) for _ in range(ROW_SLOTS) for j in range(3)]
    for divisor in (BRIDGES_PER_PLAYER, BRIDGES_PER_PLAYER, MAX_PILE):
        parts += [_bits_table(v)] * 6 + [_last_nibble_table(divisor)(v)]
    parts += [_island_table(x)(v) for x in range(NUM_ISLANDS)]
    parts.append(_stones_table(v, config.stones_per_player))
    assert len(parts) == _BYTES
    return np.concatenate(parts).astype(np.float32)


# The byte layout: block k's byte is byte k of the game's 8 words (little-endian).
_FLAG_BYTES = {
    name: _block(name) for name in ("decision", "round", "turn_flags", "rules", "scorings")
}
_COUNT_BYTES = [
    _block(n) for n in ("hand", "known_theirs", "known_mine", "discard_up", "my_discard_down")
]
_ROW_BYTE = _block("face_up")
_LINE_BYTES = [_block(n) for n in ("lines_mine", "lines_theirs", "lines_free")]
_ISLAND_BYTE = _block("islands")
_STONE_BYTE = _block("stones")
_WORDS = 8
assert _BYTES <= 8 * _WORDS
_BASES = (256 * np.arange(_BYTES)).astype(np.int32)
_NUMBERS_AT = _BYTES * 256

# Bridge counts per island from the bytes of a line set: 3-bit fields at the low bits
# of byte x (islands 0-7 in the low word, 8-11 in the high one).
_COUNT_LO = np.zeros((4, 256), dtype=np.uint64)
_COUNT_HI = np.zeros((4, 256), dtype=np.uint64)
for _j in range(4):
    for _v in range(256):
        for _i in range(8):
            if _v >> _i & 1 and 8 * _j + _i < NUM_LINES:
                for _x in LINES[8 * _j + _i]:
                    if _x < 8:
                        _COUNT_LO[_j, _v] += np.uint64(1 << (8 * _x))
                    else:
                        _COUNT_HI[_j, _v] += np.uint64(1 << (8 * (_x - 8)))
# An island set's bits spread to bit 0 of the bytes: islands 0-7 (low byte), 8-11.
_SPREAD = np.array(
    [sum(1 << (8 * i) for i in range(8) if v >> i & 1) for v in range(256)], dtype=np.uint64
)
assert DEGREE.max() < 8
_NIBBLES = (
    np.uint64(0x0000FFFF0000FFFF),
    np.uint64(0x00FF00FF00FF00FF),
    np.uint64(0x0F0F0F0F0F0F0F0F),
)
_U = {k: np.uint64(k) for k in (1, 3, 4, 6, 7, 8, 16, 24, 51)}
_PLAY, _DRAW, _GAME_OVER = (int(p) for p in Phase)


def _nibble_bytes(lines: np.ndarray) -> np.ndarray:
    """(b,) uint32 line sets -> uint64 with nibble i (lines 4i..4i+3) in byte i."""
    x = lines.astype(np.uint64)
    for shift, mask in zip((16, 8, 4), _NIBBLES, strict=True):
        x |= x << _U[shift]
        x &= mask
    return x


class _Workspace:
    """The encoder's arrays for B games of one config, reused between calls (fresh
    arrays of this size cost page faults that weigh as much as the encoding)."""

    def __init__(self, config: Config, B: int) -> None:
        static = _tables(config)
        self.table = np.empty((len(static) + _NUMBER_BLOCKS * B, BLOCK), dtype=np.float32)
        self.table[: len(static)] = static
        self.numbers = self.table[len(static) :].reshape(B, len(NUMBERS))
        # (int32, not intp: the add that writes them is the encoder's second largest
        # cost, and a narrower output makes it cheaper)
        self.codes = np.empty((B, _NUM_BLOCKS), dtype=np.int32)
        self.codes[:, _BYTES:] = _NUMBERS_AT + np.arange(_NUMBER_BLOCKS * B).reshape(B, -1)
        self.words = np.zeros((B, _WORDS), dtype=np.uint64)
        self.pairs = 2 * np.arange(B)
        rule = DISCARD_RULES.index(config.discard_rule)
        self.rules = np.uint64((1 << rule) | (config.early_end << 3))
        self.divisors = np.array(
            [config.max_turns if d is None else d for _, d, _ in NUMBERS], dtype=np.float32
        )


class _Workspaces(threading.local):
    def __init__(self) -> None:
        self.by_key: dict[tuple[Config, int], _Workspace] = {}


_WORKSPACES = _Workspaces()  # per thread: concurrent encoders never share arrays


def _workspace(config: Config, B: int) -> _Workspace:
    spaces = _WORKSPACES.by_key
    w = spaces.get((config, B))
    if w is None:
        if len(spaces) >= 8:
            spaces.clear()
        w = spaces[(config, B)] = _Workspace(config, B)
    return w


def observe(
    state: State, seat: np.ndarray | int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Encode each game from one player's point of view (`OBS_LAYOUT`).

    Args:
        state: a batch of `B` games.
        seat: whose view: None for each game's player to act (player 0 once a
            game is over), one int 0/1 for all games, or (B,) ints.
        out: optional C-contiguous (B, OBS_DIM) float32 array to write into (every
            entry is written).

    Returns:
        (B, OBS_DIM) float32 (`out` when given).

    Raises:
        TypeError / ValueError: a bad `seat` or `out`.
    """
    B = state.batch_size
    if seat is None:
        me = np.maximum(state.current_player, 0).astype(np.intp)
    else:
        me = np.asarray(seat)
        if me.dtype.kind not in "iu" or me.ndim > 1:
            raise TypeError(f"seat must be an int or a (B,) int array, got {me.dtype} {me.shape}")
        if me.ndim == 1 and me.shape != (B,):
            raise ValueError(f"seat must have shape ({B},), got {me.shape}")
        if ((me < 0) | (me > 1)).any():
            raise ValueError(f"seats must be 0 or 1, got {np.unique(me).tolist()}")
        me = np.broadcast_to(me.astype(np.intp), (B,))
    if out is None:
        out = np.empty((B, OBS_DIM), dtype=np.float32)
    elif (
        not isinstance(out, np.ndarray)
        or out.dtype != np.float32
        or out.shape != (B, OBS_DIM)
        or not out.flags.c_contiguous
    ):
        raise ValueError(f"out must be a C-contiguous float32 array of shape ({B}, {OBS_DIM})")
    if B:
        _encode(state, me, out)
    return out


def _encode(s: State, me: np.ndarray, out: np.ndarray) -> None:
    """Write the observations of seats `me` (B,) into `out` (B, OBS_DIM)."""
    B = s.batch_size
    w = _workspace(s.config, B)
    fm = w.pairs + me  # flat indices into (B, 2) arrays: mine, theirs
    fo = fm ^ 1
    acc = [np.zeros(B, dtype=np.uint64) for _ in range(_WORDS)]

    def put(value: np.ndarray, byte: int, size: int) -> None:
        """OR `value` (b,) uint64 (its `size` low bytes) in at byte `byte` of the words."""
        k, r = divmod(byte, 8)
        acc[k] |= value << np.uint64(8 * r)
        if r + size > 8:
            acc[k + 1] |= value >> np.uint64(64 - 8 * r)

    # Count words with a flags byte each.
    phase = s.phase.astype(np.uint64)
    to_act = (s.current_player == me).astype(np.uint64)
    decision = (_U[1] << phase) | (to_act << _U[3])
    rnd = _U[1] << np.minimum(s.num_scorings, 2).astype(np.uint64)
    rnd |= s.handed_back.astype(np.uint64) << _U[3]
    final = s.final_turns_left
    no_skip = (s.phase != _GAME_OVER) & ((final > 0) | s.last_turn_skipped | s.handed_back)
    turn_flags = (final == 2) | (final == 1) << 1 | s.last_turn_skipped << 2 | no_skip << 3
    sc = s.scorings.reshape(B, 6)  # scoring k, player p at 2k + p
    flip = me == 1
    mine_sc = [np.where(flip, sc[:, 2 * k + 1], sc[:, 2 * k]) for k in range(3)]
    theirs_sc = [np.where(flip, sc[:, 2 * k], sc[:, 2 * k + 1]) for k in range(3)]
    early = (
        (mine_sc[0] > 0) | (theirs_sc[0] > 0) << 1 | (mine_sc[1] > 0) << 2 | (theirs_sc[1] > 0) << 3
    )
    flags = (decision, rnd, turn_flags.astype(np.uint64), w.rules, early.astype(np.uint64))
    counts = (
        s.hands.take(fm),
        s.known.take(fo),
        s.known.take(fm),
        s.discard_up,
        s.discard_down.take(fm),
    )
    for byte, word, flag in zip(_COUNT_BYTES, counts, flags, strict=True):
        put(word.astype(np.uint64) | (flag << _U[24]), byte, 4)

    # The face-up row: each slot's content (island + 1) in its 3 bytes.
    content = (s.face_up + np.int8(1)).astype(np.uint64)
    for slot in range(ROW_SLOTS):
        put(content[:, slot] * np.uint64(0x010101), _ROW_BYTE + 3 * slot, 3)

    # Line sets: a nibble per byte, a number in the last byte's spare bits.
    mine = s.bridges.take(fm)
    theirs = s.bridges.take(fo)
    free = ~(mine | theirs) & np.uint32(ALL_LINES)
    n_mine, n_theirs = np.bitwise_count(mine), np.bitwise_count(theirs)
    numbers = (BRIDGES_PER_PLAYER - n_mine, BRIDGES_PER_PLAYER - n_theirs, s.pile_size)
    for byte, lines, number in zip(_LINE_BYTES, (mine, theirs, free), numbers, strict=True):
        put(_nibble_bytes(lines) | (number.astype(np.uint64) << _U[51]), byte, 7)

    # Islands: both bridge counts and both stones of island x in byte x.
    st_mine, st_theirs = s.stones.take(fm), s.stones.take(fo)
    for half, table in ((0, _COUNT_LO), (1, _COUNT_HI)):
        word = np.zeros(B, dtype=np.uint64)
        for k, lines in enumerate((mine, theirs)):
            for j in range(4):
                byte = (lines >> np.uint32(8 * j)) & np.uint32(255)
                word += table[j].take(byte) << np.uint64(3 * k)
        for k, stones in enumerate((st_mine, st_theirs)):
            word |= _SPREAD.take((stones >> np.uint16(8 * half)) & np.uint16(255)) << _U[6 + k]
        put(word, _ISLAND_BYTE + 8 * half, 8 - 4 * half)
    on_mine, on_theirs = np.bitwise_count(st_mine), np.bitwise_count(st_theirs)
    put((on_mine | on_theirs << np.uint8(4)).astype(np.uint64), _STONE_BYTE, 1)

    words = w.words
    for k in range(_WORDS):
        words[:, k] = acc[k]
    image = (words if _LITTLE else words.byteswap()).view(np.uint8)
    codes = w.codes
    np.add(image[:, :_BYTES], _BASES, out=codes[:, :_BYTES])

    # The numbers, in per-game rows of the table.
    num = w.numbers
    # (+ the cards a public view blanked: 0 in a real state)
    hand_sizes = cards.size(s.hands) + s.hidden_hand
    down = cards.size(s.discard_down) + s.hidden_down
    num[:, 0] = hand_sizes.take(fm)
    num[:, 1] = hand_sizes.take(fo)
    num[:, 2] = down.take(fm)
    num[:, 3] = down.take(fo)
    num[:, 4] = s.turn
    num[:, 5] = s.config.stones_per_player
    num[:, 6] = s.pile_size
    for slot in range(ROW_SLOTS):
        num[:, 6] += content[:, slot] != 0
    num[:, 7] = np.bitwise_count(free)
    num[:, 8] = mine_sc[2]
    num[:, 9] = theirs_sc[2]
    num[:, 10] = mine_sc[0] + mine_sc[1] + mine_sc[2]
    num[:, 11] = theirs_sc[0] + theirs_sc[1] + theirs_sc[2]
    num /= w.divisors

    w.table.take(codes, axis=0, out=out.reshape(B, _NUM_BLOCKS, BLOCK), mode="clip")


def decode(vector: np.ndarray) -> dict[str, object]:
    """Turn one observation vector (OBS_DIM,) into a readable dict (for notebooks and
    tests): islands and lines by name, counts as integers."""
    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (OBS_DIM,):
        raise ValueError(f"decode expects one vector of shape ({OBS_DIM},), got {v.shape}")
    part = {name: v[a:b] for name, (a, b) in OFFSETS.items()}

    def multiset(x: np.ndarray) -> list[str]:
        return [ISLAND_NAMES[i] for i in range(NUM_ISLANDS) for _ in range(int(round(2 * x[i])))]

    def line_set(x: np.ndarray) -> list[str]:
        return [LINE_NAMES[n] for n in range(NUM_LINES) if x[n] > 0.5]

    row = part["face_up"].reshape(ROW_SLOTS, NUM_ISLANDS)
    isl = part["islands"].reshape(NUM_ISLANDS, len(ISLAND_FEATURES))
    decision, rnd, flags, rules = (part[k] for k in ("decision", "round", "turn_flags", "rules"))
    out: dict[str, object] = {
        name: multiset(part[name])
        for name in ("hand", "known_theirs", "known_mine", "discard_up", "my_discard_down")
    }
    out.update(
        {
            "face_up": [ISLAND_NAMES[int(np.argmax(r))] if r.max() > 0.5 else None for r in row],
            "lines_mine": line_set(part["lines_mine"]),
            "lines_theirs": line_set(part["lines_theirs"]),
            "lines_free": line_set(part["lines_free"]),
            "my_bridge_supply": int(round(part["my_bridge_supply"][0] * BRIDGES_PER_PLAYER)),
            "their_bridge_supply": int(round(part["their_bridge_supply"][0] * BRIDGES_PER_PLAYER)),
            "pile_size": int(round(part["pile_size"][0] * MAX_PILE)),
            "my_stones": [ISLAND_NAMES[x] for x in range(NUM_ISLANDS) if isl[x, 0] > 0.5],
            "their_stones": [ISLAND_NAMES[x] for x in range(NUM_ISLANDS) if isl[x, 1] > 0.5],
            "my_bridges_at": (isl[:, 2] * MAJORITY).round().astype(int).tolist(),
            "their_bridges_at": (isl[:, 3] * MAJORITY).round().astype(int).tolist(),
            "phase": DECISIONS[int(np.argmax(decision[:3]))],
            "to_act": bool(decision[3] > 0.5),
            "round": int(np.argmax(rnd[:3])) + 1,
            "handed_back": bool(rnd[3] > 0.5),
            "final_turns_left": 2 if flags[0] > 0.5 else 1 if flags[1] > 0.5 else None,
            "last_turn_skipped": bool(flags[2] > 0.5),
            "may_not_skip": bool(flags[3] > 0.5),
            "discard_rule": DISCARD_RULES[int(np.argmax(rules[:3]))],
            "early_end": bool(rules[3] > 0.5),
        }
    )
    sc = part["scorings"]
    out.update(
        my_scoring_1=int(round(sc[0])),
        their_scoring_1=int(round(sc[1])),
        my_scoring_2=int(round(2 * sc[2])),
        their_scoring_2=int(round(2 * sc[3])),
    )
    st = (part["stones"] * MAX_STONES).round().astype(int).tolist()
    out.update(dict(zip(STONE_FEATURES, st, strict=True)))
    for (name, divisor, _), x in zip(NUMBERS, part["numbers"], strict=True):
        out[name] = float(x) if divisor is None else int(round(float(x) * divisor))
    return out


def layout_markdown() -> str:
    """The text of docs/observation-kahuna.md, generated from `OBS_LAYOUT`."""
    lines = [
        "# Kahuna observation layout",
        "",
        "Generated from `kanaloa_env.core.kahuna.observation.OBS_LAYOUT` by",
        "`python -m kanaloa_env.core.kahuna.observation > docs/observation-kahuna.md`; a test "
        "checks it is current.",
        "",
        f'A float32 vector of length **{OBS_DIM}** from the observer\'s point of view: "my" and',
        '"mine" are the observer\'s, "theirs" the opponent\'s. It holds only what the observer',
        "may know (KAHUNA-RULES.md K12). `kanaloa_env.core.kahuna.decode(v)` turns a vector into",
        "a dict.",
        "",
        "| slice | offset | length | meaning |",
        "|---|---|---|---|",
    ]
    for name, size, meaning in OBS_LAYOUT:
        a, _ = OFFSETS[name]
        lines.append(f"| `{name}` | {a} | {size} | {meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(layout_markdown(), end="")
