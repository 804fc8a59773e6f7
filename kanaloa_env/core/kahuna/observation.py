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
a line set, 12 bits of packed bridge counts, a face-up slot, the phase and
flags), so the encoder computes a (B, 65) array of row numbers into one
precomputed float table and writes the whole observation with a single
`np.take`. The last 4 blocks are numbers, written per game into 4 rows of the
table that only that game's codes name. The row numbers are written one column
(block) at a time: a column is a 1-d strided array that numpy walks quickly,
where a 2-d slice of a few columns runs a slow inner loop per row.
"""

from __future__ import annotations

import sys
import threading

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
    SCORING_POINTS,
    Phase,
)
from .state import State

BLOCK = 4  # floats per block
_LITTLE = sys.byteorder == "little"
_MAX_POINTS = 3 + MAX_STONES  # the largest total: 1 + 2 + 12
DECISIONS = ("play", "draw", "game_over")
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


def _majority(whose: str) -> str:
    return (
        f"per island, {whose} bridges at it / its majority threshold (K1.3; >= 1: the island "
        "is held, K5.1)"
    )


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
    ("my_stones", NUM_ISLANDS, "per island: 1 if my stone is on it"),
    ("their_stones", NUM_ISLANDS, "per island: 1 if the opponent's stone is on it"),
    ("my_majority", NUM_ISLANDS, _majority("my")),
    ("their_majority", NUM_ISLANDS, _majority("the opponent's")),
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
_STONES = _LINES + 3 * 7  # 2 island sets x 3 nibbles
_MAJORITY = _STONES + 2 * 3  # 2 players x 3 groups of 4 islands
_STATUS = _MAJORITY + 2 * 3  # decision, round, turn_flags, rules
_NUMBERS = _STATUS + 4
_NUM_BLOCKS = _NUMBERS + len(NUMBERS) // BLOCK
assert OBS_DIM == _NUM_BLOCKS * BLOCK
assert OFFSETS["face_up"][0] == _ROW * BLOCK and OFFSETS["lines_mine"][0] == _LINES * BLOCK
assert OFFSETS["my_stones"][0] == _STONES * BLOCK
assert OFFSETS["my_majority"][0] == _MAJORITY * BLOCK
assert OFFSETS["decision"][0] == _STATUS * BLOCK and OFFSETS["numbers"][0] == _NUMBERS * BLOCK

_COUNT_BITS = 3  # packed bridge counts: 3 bits per island (degree <= 6)
assert DEGREE.max() < 1 << _COUNT_BITS
_GROUP = BLOCK * _COUNT_BITS  # 12 bits: the packed counts of one block's 4 islands


def _count_rows() -> np.ndarray:
    """Row v: the 4 two-bit counts of byte v of a count word, / 2."""
    v = np.arange(256)[:, None]
    return (((v >> (2 * np.arange(BLOCK))) & 3) / 2).astype(np.float32)


def _onehot_rows() -> np.ndarray:
    """Row i < 4: one-hot at i; row 4: all 0."""
    return np.eye(BLOCK + 1, BLOCK, dtype=np.float32)


def _bit_rows() -> np.ndarray:
    """Row v < 16: the 4 bits of v, lowest first (nibbles of bit sets, status flags)."""
    return ((np.arange(16)[:, None] >> np.arange(BLOCK)) & 1).astype(np.float32)


def _last_nibble_rows(top: int) -> np.ndarray:
    """Row n + 8 v (n < 8, v <= top): the 3 bits of n (lines 24-26), then v / top."""
    rows = np.zeros((8 * (top + 1), BLOCK), dtype=np.float32)
    for v in range(top + 1):
        for n in range(8):
            rows[n + 8 * v, :3] = (n >> np.arange(3)) & 1
            rows[n + 8 * v, 3] = v / top
    return rows


def _majority_rows() -> np.ndarray:
    """Row 4096 g + v: islands 4g..4g+3, their bridge counts (3 bits each in v) over
    their majority thresholds."""
    v = np.arange(1 << _GROUP)[:, None]
    counts = (v >> (_COUNT_BITS * np.arange(BLOCK))) & 7
    maj = MAJORITY.reshape(-1, BLOCK).astype(np.float32)  # (3, 4)
    return (counts[None, :, :] / maj[:, None, :]).reshape(-1, BLOCK).astype(np.float32)


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
        "bits": _bit_rows(),
        "supply": _last_nibble_rows(BRIDGES_PER_PLAYER),
        "pile": _last_nibble_rows(MAX_PILE),
        "majority": _majority_rows(),
    }
)
_TABLE.flags.writeable = False
_COUNTS, _BITS = (
    np.intp(_BASE["counts"]),
    np.intp(_BASE["bits"]),
)  # (numpy scalars: no uint8 overflow)
# Per face-up content (island + 1, 0 = empty) and block j: the block's code.
_SLOT_CODES = np.full((3, NUM_ISLANDS + 1), _BASE["onehot"] + BLOCK, dtype=np.intp)
for _x in range(NUM_ISLANDS):
    _SLOT_CODES[_x // BLOCK, _x + 1] = _BASE["onehot"] + _x % BLOCK
# Per byte j of a line set: the packed counts (3 bits per island) of its lines' ends.
_PACKED_COUNTS = np.zeros((4, 256), dtype=np.uint64)
for _j in range(4):
    for _v in range(256):
        for _i in range(8):
            if _v >> _i & 1 and 8 * _j + _i < NUM_LINES:
                _a, _b = LINES[8 * _j + _i]
                _PACKED_COUNTS[_j, _v] += (1 << (_COUNT_BITS * _a)) + (1 << (_COUNT_BITS * _b))
_GAME_OVER = int(Phase.GAME_OVER)
_U4, _U7, _U15, _U4095 = np.uint8(4), np.uint8(7), np.uint8(15), np.uint64(4095)


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
        self.codes[:, _STATUS + 3] = _BITS + (1 << rule) + 8 * config.early_end
        self.pairs = 2 * np.arange(B)
        self.words = np.empty((B, _MULTISETS), dtype=np.uint32)
        self.lines = np.empty((B, 3), dtype=np.uint32)
        self.packed = np.empty(B, dtype=np.uint64)
        self.scratch = np.empty(B, dtype=np.uint64)
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
    fm = w.pairs + me  # flat indices into (B, 2) arrays: mine, theirs
    fo = fm ^ 1

    # Count words: a block per byte (4 islands).
    words = w.words
    s.hands.take(fm, out=words[:, 0])
    s.known.take(fo, out=words[:, 1])
    s.known.take(fm, out=words[:, 2])
    words[:, 3] = s.discard_up
    s.discard_down.take(fm, out=words[:, 4])
    w8 = (words if _LITTLE else words.byteswap()).view(np.uint8)  # (B, 20)
    for m in range(_MULTISETS):
        for j in range(3):
            np.add(w8[:, 4 * m + j], _COUNTS, out=codes[:, 3 * m + j])

    # The row: per slot, 3 one-hot blocks.
    for slot in range(ROW_SLOTS):
        content = s.face_up[:, slot] + 1
        for j in range(3):
            _SLOT_CODES[j].take(content, out=codes[:, _ROW + 3 * slot + j])

    # Line sets: a block per nibble; the 7th holds lines 24-26 and a number.
    lines = w.lines
    s.bridges.take(fm, out=lines[:, 0])
    s.bridges.take(fo, out=lines[:, 1])
    np.bitwise_or(lines[:, 0], lines[:, 1], out=lines[:, 2])
    np.bitwise_xor(lines[:, 2], np.uint32(ALL_LINES), out=lines[:, 2])
    l8 = (lines if _LITTLE else lines.byteswap()).view(np.uint8)  # (B, 12)
    supplies = BRIDGES_PER_PLAYER - np.bitwise_count(lines[:, :2]).astype(np.intp)
    last = (
        (np.intp(_BASE["supply"]), supplies[:, 0]),
        (np.intp(_BASE["supply"]), supplies[:, 1]),
        (np.intp(_BASE["pile"]), s.pile_size.astype(np.intp)),
    )
    for k, (base, number) in enumerate(last):
        c = _LINES + 7 * k
        for j in range(3):
            byte = l8[:, 4 * k + j]
            np.add(byte & _U15, _BITS, out=codes[:, c + 2 * j])
            np.add(byte >> _U4, _BITS, out=codes[:, c + 2 * j + 1])
        np.add(l8[:, 4 * k + 3] & _U7, base, out=codes[:, c + 6])
        codes[:, c + 6] += 8 * number

    # Stones: a block per nibble of the island sets.
    for k, f in enumerate((fm, fo)):
        stones = s.stones.take(f)
        for j in range(3):
            np.add(
                (stones >> np.uint16(4 * j)) & np.uint16(15),
                _BITS,
                out=codes[:, _STONES + 3 * k + j],
            )

    # Bridge counts per island, 3 bits each, summed from per-byte tables.
    packed, scratch = w.packed, w.scratch
    for k in range(2):
        packed.fill(0)
        for j in range(4):
            np.add(packed, _PACKED_COUNTS[j].take(l8[:, 4 * k + j], out=scratch), out=packed)
        for g in range(3):
            c = codes[:, _MAJORITY + 3 * k + g]
            np.bitwise_and(packed >> np.uint64(_GROUP * g), _U4095, out=c, casting="unsafe")
            c += _BASE["majority"] + (1 << _GROUP) * g

    # Status blocks: flags as the bits of a row.
    phase = s.phase
    np.add(np.left_shift(1, phase, dtype=np.intp), _BITS, out=codes[:, _STATUS])
    codes[:, _STATUS] += 8 * (s.current_player == me)
    rnd = np.minimum(s.num_scorings, 2)
    np.add(np.left_shift(1, rnd, dtype=np.intp), _BITS, out=codes[:, _STATUS + 1])
    codes[:, _STATUS + 1] += 8 * s.handed_back
    final = s.final_turns_left
    no_skip = (phase != _GAME_OVER) & ((final > 0) | s.last_turn_skipped | s.handed_back)
    flags = codes[:, _STATUS + 2]
    np.add(final == 2, _BITS, out=flags)
    flags += 2 * (final == 1)
    flags += 4 * s.last_turn_skipped
    flags += 8 * no_skip

    # Numbers, in per-game rows of the table.
    num = w.numbers
    # (+ the cards a public view blanked: 0 in a real state)
    hand_sizes = cards.size(s.hands) + s.hidden_hand
    down = cards.size(s.discard_down) + s.hidden_down
    stones_on = np.bitwise_count(s.stones)
    spp = s.config.stones_per_player
    num[:, 0] = hand_sizes.take(fo)
    num[:, 1] = down.take(fm)
    num[:, 2] = down.take(fo)
    np.subtract(spp, stones_on.take(fm), out=num[:, 3], dtype=np.float32)
    np.subtract(spp, stones_on.take(fo), out=num[:, 4], dtype=np.float32)
    num[:, 5] = spp
    num[:, 6] = s.turn
    num[:, 7] = hand_sizes.take(fm)
    sc = s.scorings.reshape(B, 6)  # scoring k, player p at 2k + p
    flip = me == 1
    for k in range(3):
        num[:, 8 + 2 * k] = np.where(flip, sc[:, 2 * k + 1], sc[:, 2 * k])
        num[:, 9 + 2 * k] = np.where(flip, sc[:, 2 * k], sc[:, 2 * k + 1])
    np.add(num[:, 8], num[:, 10], out=num[:, 14])
    num[:, 14] += num[:, 12]
    np.add(num[:, 9], num[:, 11], out=num[:, 15])
    num[:, 15] += num[:, 13]
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
        "my_stones": [ISLAND_NAMES[x] for x in range(NUM_ISLANDS) if part["my_stones"][x] > 0.5],
        "their_stones": [
            ISLAND_NAMES[x] for x in range(NUM_ISLANDS) if part["their_stones"][x] > 0.5
        ],
        "my_bridges_at": (part["my_majority"] * MAJORITY).round().astype(int).tolist(),
        "their_bridges_at": (part["their_majority"] * MAJORITY).round().astype(int).tolist(),
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
