"""The observation: one fixed-length float32 vector per (game, player) (K12).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation-kahuna.md`. Everything is from the observer's point of
view ("mine" / "theirs"), and only what the observer may know is encoded (K12):
the own hand and own face-down discards, the board, the row, the public discards,
the counts of cards in hidden places, both `known` memories (K6.7), scorings,
round, phase and flags. Never the opponent's hand beyond `known`, the islands of
the opponent's face-down discards, or the pile's order or content.

How it is fast: the vector is 65 blocks of 4 floats. Each of the first 61 blocks
is a function of one small integer per game (a byte of a count word, a nibble of
a line set, an island's bridge counts and stones, a face-up slot, the phase and
flags), so the encoder computes a (B, 65) array of row numbers into one
precomputed float table and writes the whole observation with a single
`np.take`. The last 4 blocks are numbers, written per game into 4 rows of the
table that only that game's codes name.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from . import cards
from .board import island_counts
from .config import DISCARD_RULES, Config
from .constants import (
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    DEGREE,
    HAND_LIMIT,
    ISLAND_NAMES,
    LINE_NAMES,
    MAJORITY,
    MAX_PILE,
    MAX_STONES,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    ROW_SLOTS,
    SCORING_POINTS,
    Phase,
)
from .state import State

BLOCK = 4  # floats per block
_LITTLE = sys.byteorder == "little"
_MAX_DEGREE = int(DEGREE.max())
_MAX_POINTS = 3 + MAX_STONES  # the largest total: 1 + 2 + 12
ISLAND_FEATURES = ("my_stone", "their_stone", "my_bridges", "their_bridges")
DECISIONS = ("play", "draw", "game_over")
RULE_FLAGS = (*DISCARD_RULES, "early_end")
NUMBERS = (
    ("their_hand_size", HAND_LIMIT, "the opponent's hand size / 5"),
    ("my_down_count", NUM_CARDS, "my face-down discards since the last reshuffle / 24"),
    (
        "their_down_count",
        NUM_CARDS,
        "the opponent's face-down discards since the last reshuffle / 24",
    ),
    ("my_stone_supply", MAX_STONES, "stones in my supply / 12"),
    ("their_stone_supply", MAX_STONES, "stones in the opponent's supply / 12"),
    ("stones_per_player", MAX_STONES, "config stones_per_player / 12"),
    ("turn", None, "completed turns / max_turns"),
    ("my_hand_size", HAND_LIMIT, "my hand size / 5"),
    ("my_scoring_1", SCORING_POINTS[0], "my points in scoring 1 (0 before it)"),
    ("their_scoring_1", SCORING_POINTS[0], "the opponent's points in scoring 1"),
    ("my_scoring_2", SCORING_POINTS[1], "my points in scoring 2 / 2"),
    ("their_scoring_2", SCORING_POINTS[1], "the opponent's points in scoring 2 / 2"),
    ("my_scoring_3", MAX_STONES, "my points in scoring 3 / 12"),
    ("their_scoring_3", MAX_STONES, "the opponent's points in scoring 3 / 12"),
    ("my_points", _MAX_POINTS, "my total points / 15"),
    ("their_points", _MAX_POINTS, "the opponent's total points / 15"),
)


def _multiset(what: str) -> str:
    return f"{what}: per island (K1.1 order), the number of cards / 2"


# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_ISLANDS, _multiset("my hand")),
    ("known_theirs", NUM_ISLANDS, _multiset("cards I know the opponent holds (K6.7)")),
    ("known_mine", NUM_ISLANDS, _multiset("cards of my hand the opponent knows I hold (K6.7)")),
    ("discard_up", NUM_ISLANDS, _multiset("cards spent face up since the last reshuffle (K4.5)")),
    (
        "my_discard_down",
        NUM_ISLANDS,
        _multiset("my face-down discards and hand-backs since the last reshuffle"),
    ),
    (
        "face_up",
        ROW_SLOTS * NUM_ISLANDS,
        "face-up row: slot s at [12s, 12s+12), its island one-hot (all 0: empty slot)",
    ),
    ("lines_mine", NUM_LINES, "per line (K1.2 order): 1 if my bridge is on it"),
    ("my_bridge_supply", 1, "bridges in my supply / 25"),
    ("lines_theirs", NUM_LINES, "per line: 1 if the opponent's bridge is on it"),
    ("their_bridge_supply", 1, "bridges in the opponent's supply / 25"),
    ("lines_free", NUM_LINES, "per line: 1 if it is free"),
    ("pile_size", 1, f"cards in the face-down pile / {MAX_PILE}"),
    (
        "islands",
        NUM_ISLANDS * len(ISLAND_FEATURES),
        "per island x at [4x, 4x+4): my stone, the opponent's stone, my bridges at x / its "
        "majority threshold, the opponent's bridges at x / its majority threshold (>= 1: "
        "the island is held, K5.1)",
    ),
    (
        "decision",
        BLOCK,
        "phase one-hot: " + ", ".join(DECISIONS) + "; then 1 when I am the player to act",
    ),
    ("round", BLOCK, "round 1, 2, 3 one-hot (K3.4); then 1 after a hand-back this DRAW phase"),
    (
        "turn_flags",
        BLOCK,
        "1 in the first final turn, 1 in the second final turn (K7.4), 1 when the previous "
        "turn ended with SKIP (K6.3), 1 when the player to act may not skip now",
    ),
    (
        "rules",
        BLOCK,
        "rule options, 1 when on: discard_rule " + ", ".join(DISCARD_RULES) + ", early_end",
    ),
    ("numbers", len(NUMBERS), "; ".join(f"{name}: {text}" for name, _, text in NUMBERS)),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OFFSETS[_name] = (_o, _o + _size)
    _o += _size
OBS_DIM: int = _o

# ---- the blocks ------------------------------------------------------------------
_MULTISETS = 5  # hand .. my_discard_down, 3 blocks each (one per byte of the count word)
_ROW = 3 * _MULTISETS  # 3 slots x 3 blocks of 4 islands
_LINES = _ROW + ROW_SLOTS * 3  # 3 line sets x 7 nibbles, the last with a number
_ISLANDS = _LINES + 3 * 7
_STATUS = _ISLANDS + NUM_ISLANDS  # decision, round, turn_flags, rules
_NUMBERS = _STATUS + 4
_NUM_BLOCKS = _NUMBERS + len(NUMBERS) // BLOCK
assert OBS_DIM == _NUM_BLOCKS * BLOCK
assert OFFSETS["face_up"][0] == _ROW * BLOCK and OFFSETS["lines_mine"][0] == _LINES * BLOCK
assert OFFSETS["islands"][0] == _ISLANDS * BLOCK and OFFSETS["decision"][0] == _STATUS * BLOCK
assert OFFSETS["numbers"][0] == _NUMBERS * BLOCK


def _count_rows() -> np.ndarray:
    """Row v: the 4 two-bit counts of byte v of a count word, / 2."""
    v = np.arange(256)[:, None]
    return (((v >> (2 * np.arange(BLOCK))) & 3) / 2).astype(np.float32)


def _onehot_rows() -> np.ndarray:
    """Row i < 4: one-hot at i; row 4: all 0."""
    return np.eye(BLOCK + 1, BLOCK, dtype=np.float32)


def _nibble_rows(numbers: int, scale: float) -> np.ndarray:
    """Row n + 16 v: the 4 bits of nibble n, lowest first; the 4th replaced by
    v / scale when `numbers` > 1 (the last nibble of a line set holds 3 lines)."""
    rows = np.zeros((16 * numbers, BLOCK), dtype=np.float32)
    for v in range(numbers):
        for n in range(16):
            rows[n + 16 * v] = (n >> np.arange(BLOCK)) & 1
            if numbers > 1:
                rows[n + 16 * v, 3] = v / scale
    return rows


_COUNTS = _MAX_DEGREE + 1


def _island_rows() -> np.ndarray:
    """Row x * 196 + mine + 7 theirs + 49 my_stone + 98 their_stone: ISLAND_FEATURES."""
    rows = np.zeros((NUM_ISLANDS * _COUNTS * _COUNTS * 4, BLOCK), dtype=np.float32)
    for x in range(NUM_ISLANDS):
        for m in range(_COUNTS):
            for t in range(_COUNTS):
                for stones in range(4):
                    r = rows[((x * 4 + stones) * _COUNTS + t) * _COUNTS + m]
                    r[:] = stones & 1, stones >> 1, m / MAJORITY[x], t / MAJORITY[x]
    return rows


def _flag_rows() -> np.ndarray:
    """Row f: the 4 bits of f, lowest first (the status blocks)."""
    return ((np.arange(16)[:, None] >> np.arange(BLOCK)) & 1).astype(np.float32)


def _stack(parts: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, int]]:
    bases, at = {}, 0
    for name, rows in parts.items():
        bases[name] = at
        at += len(rows)
    return np.concatenate(list(parts.values())), bases


_TABLE, _BASE = _stack(
    {
        "counts": _count_rows(),
        "onehot": _onehot_rows(),
        "nibble": _nibble_rows(1, 1.0),
        "supply": _nibble_rows(BRIDGES_PER_PLAYER + 1, BRIDGES_PER_PLAYER),
        "pile": _nibble_rows(MAX_PILE + 1, MAX_PILE),
        "island": _island_rows(),
        "flags": _flag_rows(),
    }
)
_TABLE.flags.writeable = False
# Per face-up content (island + 1, 0 = empty): the codes of its 3 blocks.
_SLOT_CODES = np.full((NUM_ISLANDS + 1, 3), _BASE["onehot"] + BLOCK, dtype=np.intp)
for _x in range(NUM_ISLANDS):
    _SLOT_CODES[_x + 1, _x // BLOCK] = _BASE["onehot"] + _x % BLOCK
_NIBBLE_SHIFTS = (4 * np.arange(7)).astype(np.uint32)
# Per line set (mine, theirs, free), the codes of its 7 nibbles before the last one's number.
_LINE_BASES = np.array(
    [[_BASE["nibble"]] * 6 + [_BASE["supply"]]] * 2 + [[_BASE["nibble"]] * 6 + [_BASE["pile"]]],
    dtype=np.intp,
)
_ISLAND_BASES = _BASE["island"] + np.arange(NUM_ISLANDS) * 4 * _COUNTS * _COUNTS
_FLAGS = _BASE["flags"]
_GAME_OVER = int(Phase.GAME_OVER)


class _Workspace:
    """The encoder's arrays for B games of one config, reused between calls (fresh
    arrays of this size cost page faults that weigh as much as the encoding)."""

    def __init__(self, config: Config, B: int) -> None:
        static = len(_TABLE)
        self.table = np.empty((static + 4 * B, BLOCK), dtype=np.float32)
        self.table[:static] = _TABLE
        self.numbers = self.table[static:].reshape(B, len(NUMBERS))
        self.codes = np.empty((B, _NUM_BLOCKS), dtype=np.intp)
        self.codes[:, _NUMBERS:] = static + np.arange(4 * B).reshape(B, 4)
        rule = DISCARD_RULES.index(config.discard_rule)
        self.codes[:, _STATUS + 3] = _FLAGS + (1 << rule) + 8 * config.early_end
        self.words = np.empty((B, _MULTISETS), dtype=np.uint32)
        self.lines = np.empty((B, 3), dtype=np.uint32)
        self.divisors = np.array(
            [d if d is not None else config.max_turns for _, d, _ in NUMBERS], dtype=np.float32
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
    codes = w.codes
    fm = 2 * np.arange(B) + me
    fo = fm ^ 1

    # Count words, a block per byte (4 islands).
    words = w.words
    s.hands.take(fm, out=words[:, 0])
    s.known.take(fo, out=words[:, 1])
    s.known.take(fm, out=words[:, 2])
    words[:, 3] = s.discard_up
    s.discard_down.take(fm, out=words[:, 4])
    wb = (words if _LITTLE else words.byteswap()).view(np.uint8).reshape(B, _MULTISETS, 4)
    np.add(wb[:, :, :3], _BASE["counts"], out=codes[:, :_ROW].reshape(B, _MULTISETS, 3))

    codes[:, _ROW:_LINES] = _SLOT_CODES.take(s.face_up.astype(np.intp) + 1, axis=0).reshape(B, -1)

    # Line sets, a block per nibble; the last nibble (lines 24-26) carries a number.
    lines = w.lines
    s.bridges.take(fm, out=lines[:, 0])
    s.bridges.take(fo, out=lines[:, 1])
    np.bitwise_or(lines[:, 0], lines[:, 1], out=lines[:, 2])
    np.bitwise_xor(lines[:, 2], np.uint32(ALL_LINES), out=lines[:, 2])
    nib = ((lines[:, :, None] >> _NIBBLE_SHIFTS) & np.uint32(15)).astype(np.intp)  # (B, 3, 7)
    nib += _LINE_BASES
    n_bridges = np.bitwise_count(lines[:, :2])  # (B, 2)
    nib[:, :2, 6] += 16 * (BRIDGES_PER_PLAYER - n_bridges.astype(np.intp))
    nib[:, 2, 6] += 16 * s.pile_size.astype(np.intp)
    codes[:, _LINES:_ISLANDS] = nib.reshape(B, -1)

    # Islands: bridge counts against the threshold, stones.
    counts = island_counts(lines[:, :2])  # (B, 2, 12)
    st = s.stones.take(np.stack([fm, fo], axis=1))  # (B, 2)
    stone_bits = (st[:, :, None] >> np.arange(NUM_ISLANDS, dtype=np.uint16)) & np.uint16(1)
    isl = stone_bits[:, 1].astype(np.intp)
    isl *= 2
    isl += stone_bits[:, 0]
    isl *= _COUNTS
    isl += counts[:, 1]
    isl *= _COUNTS
    isl += counts[:, 0]
    isl += _ISLAND_BASES
    codes[:, _ISLANDS:_STATUS] = isl

    # Status blocks: flags as the bits of a row of the flags part.
    phase = s.phase.astype(np.intp)
    to_act = s.current_player == me
    codes[:, _STATUS] = _FLAGS + (1 << phase) + 8 * to_act
    rnd = np.minimum(s.num_scorings, 2).astype(np.intp)
    codes[:, _STATUS + 1] = _FLAGS + (1 << rnd) + 8 * s.handed_back
    final = s.final_turns_left.astype(np.intp)
    no_skip = (phase != _GAME_OVER) & ((final > 0) | s.last_turn_skipped | s.handed_back)
    flags = ((final == 2) | 2 * (final == 1)) + 4 * s.last_turn_skipped + 8 * no_skip
    codes[:, _STATUS + 2] = _FLAGS + flags

    # Numbers, in per-game rows of the table.
    num = w.numbers
    hand_sizes = cards.size(s.hands)
    down = cards.size(s.discard_down)
    stones = np.bitwise_count(st)
    num[:, 0] = hand_sizes.take(fo)
    num[:, 1] = down.take(fm)
    num[:, 2] = down.take(fo)
    num[:, 3] = s.config.stones_per_player - stones[:, 0].astype(np.int16)
    num[:, 4] = s.config.stones_per_player - stones[:, 1].astype(np.int16)
    num[:, 5] = s.config.stones_per_player
    num[:, 6] = s.turn
    num[:, 7] = hand_sizes.take(fm)
    flip = (me == 1)[:, None]
    mine = np.where(flip, s.scorings[:, :, 1], s.scorings[:, :, 0])  # (B, 3)
    theirs = np.where(flip, s.scorings[:, :, 0], s.scorings[:, :, 1])
    num[:, 8:14:2] = mine
    num[:, 9:14:2] = theirs
    num[:, 14] = mine.sum(axis=1)
    num[:, 15] = theirs.sum(axis=1)
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
    numbers = {
        name: float(x) * (d if d is not None else 1.0)
        for (name, d, _), x in zip(NUMBERS, part["numbers"], strict=True)
    }
    decision, rnd, turn_flags, rules = (
        part[k] for k in ("decision", "round", "turn_flags", "rules")
    )
    out: dict[str, object] = {
        "hand": multiset(part["hand"]),
        "known_theirs": multiset(part["known_theirs"]),
        "known_mine": multiset(part["known_mine"]),
        "discard_up": multiset(part["discard_up"]),
        "my_discard_down": multiset(part["my_discard_down"]),
        "face_up": [ISLAND_NAMES[int(np.argmax(r))] if r.max() > 0.5 else None for r in row],
        "lines_mine": line_set(part["lines_mine"]),
        "lines_theirs": line_set(part["lines_theirs"]),
        "lines_free": line_set(part["lines_free"]),
        "my_bridge_supply": int(round(part["my_bridge_supply"][0] * BRIDGES_PER_PLAYER)),
        "their_bridge_supply": int(round(part["their_bridge_supply"][0] * BRIDGES_PER_PLAYER)),
        "pile_size": int(round(part["pile_size"][0] * MAX_PILE)),
        "islands": {
            ISLAND_NAMES[x]: {
                "my_stone": bool(isl[x, 0] > 0.5),
                "their_stone": bool(isl[x, 1] > 0.5),
                "my_bridges": int(round(isl[x, 2] * MAJORITY[x])),
                "their_bridges": int(round(isl[x, 3] * MAJORITY[x])),
            }
            for x in range(NUM_ISLANDS)
        },
        "phase": DECISIONS[int(np.argmax(decision[:3]))],
        "to_act": bool(decision[3] > 0.5),
        "round": int(np.argmax(rnd[:3])) + 1,
        "handed_back": bool(rnd[3] > 0.5),
        "final_turns_left": 2 if turn_flags[0] > 0.5 else 1 if turn_flags[1] > 0.5 else None,
        "last_turn_skipped": bool(turn_flags[2] > 0.5),
        "may_not_skip": bool(turn_flags[3] > 0.5),
        "discard_rule": DISCARD_RULES[int(np.argmax(rules[:3]))],
        "early_end": bool(rules[3] > 0.5),
    }
    for name, value in numbers.items():
        out[name] = value if name == "turn" else int(round(value))
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
