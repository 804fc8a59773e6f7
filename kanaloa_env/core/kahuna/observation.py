"""The observation: one fixed-length float32 vector per (game, player) (K12).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation-kahuna.md`. Everything is from the observer's point of
view ("mine" / "theirs"), and only what the observer may know is encoded (K12):
the own hand and own face-down discards, the board, the row, the public discards,
the counts of cards in hidden places, both `known` memories (K6.7), scorings,
round, phase and flags. Never the opponent's hand beyond `known`, the islands of
the opponent's face-down discards, or the pile's order or content.

How it is fast: the first 277 entries are 0/1 (cards as "at least one" / "two" per
island, lines, stones, the row one-hot, flags), the bits of five 64-bit words per
game, packed with whole-batch shifts and unpacked at once; the other 44 are six
rows of a table of bridge counts over thresholds (one per 12 bits of counts packed
3 bits per island) and five rows of numbers that only that game's codes name, all
written by one `np.take`. Two writes into the output in all: at batch 8192 each
pass over the output costs about as much as all the arithmetic before it, and a
strided column of a large batch as much as a contiguous pass
(`benchmarks/bench_kahuna.py --breakdown` times the encoder as a whole).
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

_LITTLE = sys.byteorder == "little"
_MAX_POINTS = 3 + MAX_STONES  # the largest total: 1 + 2 + 12
_MULTISETS = ("hand", "known_theirs", "known_mine", "discard_up", "my_discard_down")
DECISIONS = ("play", "draw", "game_over")
TURN_FLAGS = (
    "handed_back",
    "first_final_turn",
    "second_final_turn",
    "last_turn_skipped",
    "may_not_skip",
)
# (name, divisor, meaning): the numbers at the end of the vector, each over its divisor
# (None: config max_turns).
NUMBERS: tuple[tuple[str, int | None, str], ...] = (
    ("my_bridge_supply", BRIDGES_PER_PLAYER, "bridges in my supply / 25"),
    ("their_bridge_supply", BRIDGES_PER_PLAYER, "bridges in the opponent's supply / 25"),
    ("pile_size", MAX_PILE, f"cards in the face-down pile / {MAX_PILE}"),
    ("cards_to_draw", NUM_CARDS, "cards in the pile and the row / 24 (K7.1: 0 exhausts them)"),
    ("my_hand_size", HAND_LIMIT, "my hand size / 5"),
    ("their_hand_size", HAND_LIMIT, "the opponent's hand size / 5"),
    ("my_down_count", NUM_CARDS, "my face-down discards since the last reshuffle / 24"),
    ("their_down_count", NUM_CARDS, "the opponent's face-down discards / 24"),
    ("my_stone_supply", MAX_STONES, "stones in my supply / 12"),
    ("their_stone_supply", MAX_STONES, "stones in the opponent's supply / 12"),
    ("stones_per_player", MAX_STONES, "config stones_per_player / 12"),
    ("turn", None, "completed turns / max_turns"),
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
    return f"{what}: per island x (K1.1 order) at [2x, 2x+2): 1 if at least one card, 1 if two"


def _lines(whose: str) -> str:
    return f"per line (K1.2 order): 1 if {whose}"


def _majority(whose: str) -> str:
    return (
        f"per island, {whose} bridges at it / its majority threshold (K1.3; >= 1: the island "
        "is held, K5.1)"
    )


# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", 2 * NUM_ISLANDS, _multiset("my hand")),
    ("known_theirs", 2 * NUM_ISLANDS, _multiset("cards I know the opponent holds (K6.7)")),
    ("known_mine", 2 * NUM_ISLANDS, _multiset("cards of my hand the opponent knows (K6.7)")),
    ("discard_up", 2 * NUM_ISLANDS, _multiset("cards spent face up since the last reshuffle")),
    (
        "my_discard_down",
        2 * NUM_ISLANDS,
        _multiset("my face-down discards and hand-backs since the last reshuffle"),
    ),
    (
        "face_up",
        ROW_SLOTS * NUM_ISLANDS,
        "face-up row: slot s at [12s, 12s+12), its island one-hot (all 0: empty slot)",
    ),
    ("lines_mine", NUM_LINES, _lines("my bridge is on it")),
    ("lines_theirs", NUM_LINES, _lines("the opponent's bridge is on it")),
    ("lines_free", NUM_LINES, _lines("it is free")),
    ("my_stones", NUM_ISLANDS, "per island: 1 if my stone is on it"),
    ("their_stones", NUM_ISLANDS, "per island: 1 if the opponent's stone is on it"),
    ("decision", 4, "phase one-hot: " + ", ".join(DECISIONS) + "; then 1 when I am to act"),
    ("round", 3, "round 1, 2, 3 one-hot (K3.4)"),
    (
        "turn_flags",
        len(TURN_FLAGS),
        "1 when: a card was handed back this DRAW phase (K6.4); in the first final turn; in "
        "the second final turn (K7.4); the previous turn ended with SKIP (K6.3); the player to "
        "act may not skip now",
    ),
    (
        "rules",
        4,
        "rule options, 1 when on: discard_rule " + ", ".join(DISCARD_RULES) + ", early_end",
    ),
    ("my_majority", NUM_ISLANDS, _majority("my")),
    ("their_majority", NUM_ISLANDS, _majority("the opponent's")),
    ("numbers", len(NUMBERS), "; ".join(f"{name}: {text}" for name, _, text in NUMBERS)),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OFFSETS[_name] = (_o, _o + _size)
    _o += _size
OBS_DIM: int = _o

# ---- the parts -------------------------------------------------------------------
# The 0/1 entries: bit i of a game's five words is entry i (words little-endian).
_NBITS = OFFSETS["rules"][1]
_WORDS = (_NBITS + 63) // 64
assert OFFSETS["my_majority"][0] == _NBITS and OFFSETS["their_majority"][1] == OFFSETS["numbers"][0]

_COUNT_BITS = 3  # packed bridge counts: 3 bits per island (degree <= 6)
assert DEGREE.max() < 1 << _COUNT_BITS
_GROUP = 4 * _COUNT_BITS  # 12 bits: the packed counts of 4 islands


def _majority_rows() -> np.ndarray:
    """(3 * 4096, 4) float32: row 4096 g + v, islands 4g..4g+3, their bridge counts (3
    bits each in v) over their majority thresholds."""
    v = np.arange(1 << _GROUP)[:, None]
    counts = (v >> (_COUNT_BITS * np.arange(4))) & 7
    maj = MAJORITY.reshape(-1, 4).astype(np.float32)  # (3, 4)
    return (counts[None, :, :] / maj[:, None, :]).reshape(-1, 4).astype(np.float32)


_MAJORITY_ROWS = _majority_rows()
_NUMBER_ROWS = len(NUMBERS) // 4
assert len(NUMBERS) == 4 * _NUMBER_ROWS
_MAJORITY_ROWS.flags.writeable = False
_GROUP_MASK = np.uint64((1 << _GROUP) - 1)
_GROUP_BASES = (1 << _GROUP) * np.arange(3)
# Per byte j of a line set: the packed counts (3 bits per island) of its lines' ends.
_PACKED_COUNTS = np.zeros((4, 256), dtype=np.uint64)
for _j in range(4):
    for _v in range(256):
        for _i in range(8):
            if _v >> _i & 1 and 8 * _j + _i < NUM_LINES:
                _a, _b = LINES[8 * _j + _i]
                _PACKED_COUNTS[_j, _v] += (1 << (_COUNT_BITS * _a)) + (1 << (_COUNT_BITS * _b))
# A face-up slot's content (island + 1, 0 = empty) as a one-hot island set.
_ONE_HOT = np.array([0] + [1 << x for x in range(NUM_ISLANDS)], dtype=np.uint64)
_LOW = np.uint64(int(cards.LOW))
_U = {k: np.uint64(k) for k in (1, 3)}
_PLAY, _DRAW, _GAME_OVER = (int(p) for p in Phase)


class _Workspace:
    """The encoder's arrays for B games of one config, reused between calls (fresh
    arrays of this size cost page faults that weigh as much as the encoding)."""

    def __init__(self, config: Config, B: int) -> None:
        self.pairs = 2 * np.arange(B)
        self.words = np.empty((B, _WORDS), dtype=np.uint64)
        # The float part: the majority table, then 5 rows of numbers per game.
        static = len(_MAJORITY_ROWS)
        self.table = np.empty((static + _NUMBER_ROWS * B, 4), dtype=np.float32)
        self.table[:static] = _MAJORITY_ROWS
        self.numbers = self.table[static:].reshape(B, len(NUMBERS))
        self.codes = np.empty((B, 6 + _NUMBER_ROWS), dtype=np.intp)
        self.codes[:, 6:] = static + np.arange(_NUMBER_ROWS * B).reshape(B, -1)
        self.floats = np.empty((B, 6 + _NUMBER_ROWS, 4), dtype=np.float32)
        self.packed = np.empty(B, dtype=np.uint64)
        self.scratch = np.empty(B, dtype=np.uint64)
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
        out: optional (B, OBS_DIM) float32 array to write into (every entry is
            written).

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
    elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (B, OBS_DIM):
        raise ValueError(f"out must be a float32 array of shape ({B}, {OBS_DIM})")
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

    def put(name: str, value: np.ndarray) -> None:
        """OR the bits of `value` (b,) uint64 into the words at entry `name`."""
        start, stop = OFFSETS[name]
        k, r = divmod(start, 64)
        acc[k] |= value << np.uint64(r)
        if r + stop - start > 64:
            acc[k + 1] |= value >> np.uint64(64 - r)

    # Cards: per island, bit 2x "at least one", bit 2x+1 "two" (a count word has
    # binary counts 0, 1, 2 there).
    counts = (s.hands.take(fm), s.known.take(fo), s.known.take(fm), s.discard_up)
    for name, word in zip(_MULTISETS, (*counts, s.discard_down.take(fm)), strict=True):
        c = word.astype(np.uint64)
        two = (c >> _U[1]) & _LOW
        put(name, ((c & _LOW) | two) | (two << _U[1]))
    content = s.face_up.astype(np.intp) + 1
    row = _ONE_HOT.take(content[:, 0])
    row |= _ONE_HOT.take(content[:, 1]) << np.uint64(NUM_ISLANDS)
    row |= _ONE_HOT.take(content[:, 2]) << np.uint64(2 * NUM_ISLANDS)
    put("face_up", row)
    mine = s.bridges.take(fm)
    theirs = s.bridges.take(fo)
    free = ~(mine | theirs) & np.uint32(ALL_LINES)
    for name, lines in (("lines_mine", mine), ("lines_theirs", theirs), ("lines_free", free)):
        put(name, lines.astype(np.uint64))
    st_mine, st_theirs = s.stones.take(fm), s.stones.take(fo)
    put("my_stones", st_mine.astype(np.uint64))
    put("their_stones", st_theirs.astype(np.uint64))
    phase = s.phase
    put(
        "decision",
        (_U[1] << phase.astype(np.uint64)) | ((s.current_player == me).astype(np.uint64) << _U[3]),
    )
    put("round", _U[1] << np.minimum(s.num_scorings, 2).astype(np.uint64))
    final = s.final_turns_left
    no_skip = (phase != _GAME_OVER) & ((final > 0) | s.last_turn_skipped | s.handed_back)
    flags = s.handed_back | (final == 2) << 1 | (final == 1) << 2
    flags |= s.last_turn_skipped << 3 | no_skip << 4
    put("turn_flags", flags.astype(np.uint64))
    put("rules", np.full(B, w.rules, dtype=np.uint64))
    words = w.words
    for k in range(_WORDS):
        words[:, k] = acc[k]
    image = (words if _LITTLE else words.byteswap()).view(np.uint8)
    out[:, :_NBITS] = np.unpackbits(image, axis=1, count=_NBITS, bitorder="little")

    # Bridge counts over thresholds: 3-bit counts packed from per-byte tables, then a
    # table row per 4 islands.
    packed, scratch = w.packed, w.scratch
    for k, lines in enumerate((mine, theirs)):
        line_bytes = (lines if _LITTLE else lines.byteswap()).view(np.uint8).reshape(B, 4)
        packed.fill(0)
        for j in range(4):
            np.add(packed, _PACKED_COUNTS[j].take(line_bytes[:, j], out=scratch), out=packed)
        for g in range(3):
            code = w.codes[:, 3 * k + g]
            np.bitwise_and(packed >> np.uint64(_GROUP * g), _GROUP_MASK, out=code, casting="unsafe")
            code += _GROUP_BASES[g]

    # The numbers, in per-game rows of the table.
    num = w.numbers
    num[:, 0] = BRIDGES_PER_PLAYER - np.bitwise_count(mine).astype(np.int16)
    num[:, 1] = BRIDGES_PER_PLAYER - np.bitwise_count(theirs).astype(np.int16)
    num[:, 2] = s.pile_size
    num[:, 3] = s.pile_size
    for slot in range(ROW_SLOTS):
        num[:, 3] += content[:, slot] != 0
    # (+ the cards a public view blanked: 0 in a real state)
    hand_sizes = cards.size(s.hands) + s.hidden_hand
    down = cards.size(s.discard_down) + s.hidden_down
    num[:, 4] = hand_sizes.take(fm)
    num[:, 5] = hand_sizes.take(fo)
    num[:, 6] = down.take(fm)
    num[:, 7] = down.take(fo)
    spp = s.config.stones_per_player
    num[:, 8] = spp - np.bitwise_count(st_mine).astype(np.int16)
    num[:, 9] = spp - np.bitwise_count(st_theirs).astype(np.int16)
    num[:, 10] = spp
    num[:, 11] = s.turn
    sc = s.scorings.reshape(B, 6)  # scoring k, player p at 2k + p
    flip = me == 1
    for k in range(3):
        num[:, 12 + 2 * k] = np.where(flip, sc[:, 2 * k + 1], sc[:, 2 * k])
        num[:, 13 + 2 * k] = np.where(flip, sc[:, 2 * k], sc[:, 2 * k + 1])
    np.add(num[:, 12], num[:, 14], out=num[:, 18])
    num[:, 18] += num[:, 16]
    np.add(num[:, 13], num[:, 15], out=num[:, 19])
    num[:, 19] += num[:, 17]
    num /= w.divisors
    w.table.take(w.codes, axis=0, out=w.floats, mode="clip")
    out[:, _NBITS:] = w.floats.reshape(B, -1)


def decode(vector: np.ndarray) -> dict[str, object]:
    """Turn one observation vector (OBS_DIM,) into a readable dict (for notebooks and
    tests): islands and lines by name, counts as integers."""
    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (OBS_DIM,):
        raise ValueError(f"decode expects one vector of shape ({OBS_DIM},), got {v.shape}")
    part = {name: v[a:b] for name, (a, b) in OFFSETS.items()}

    def multiset(x: np.ndarray) -> list[str]:
        pairs = x.reshape(NUM_ISLANDS, 2) > 0.5
        return [ISLAND_NAMES[i] for i in range(NUM_ISLANDS) for _ in range(int(pairs[i].sum()))]

    def line_set(x: np.ndarray) -> list[str]:
        return [LINE_NAMES[n] for n in range(NUM_LINES) if x[n] > 0.5]

    def islands(x: np.ndarray) -> list[str]:
        return [ISLAND_NAMES[i] for i in range(NUM_ISLANDS) if x[i] > 0.5]

    row = part["face_up"].reshape(ROW_SLOTS, NUM_ISLANDS)
    decision, flags, rules = part["decision"], part["turn_flags"], part["rules"]
    out: dict[str, object] = {name: multiset(part[name]) for name in _MULTISETS}
    out.update(
        {
            "face_up": [ISLAND_NAMES[int(np.argmax(r))] if r.max() > 0.5 else None for r in row],
            "lines_mine": line_set(part["lines_mine"]),
            "lines_theirs": line_set(part["lines_theirs"]),
            "lines_free": line_set(part["lines_free"]),
            "my_stones": islands(part["my_stones"]),
            "their_stones": islands(part["their_stones"]),
            "my_bridges_at": (part["my_majority"] * MAJORITY).round().astype(int).tolist(),
            "their_bridges_at": (part["their_majority"] * MAJORITY).round().astype(int).tolist(),
            "phase": DECISIONS[int(np.argmax(decision[:3]))],
            "to_act": bool(decision[3] > 0.5),
            "round": int(np.argmax(part["round"])) + 1,
            "handed_back": bool(flags[0] > 0.5),
            "final_turns_left": 2 if flags[1] > 0.5 else 1 if flags[2] > 0.5 else None,
            "last_turn_skipped": bool(flags[3] > 0.5),
            "may_not_skip": bool(flags[4] > 0.5),
            "discard_rule": DISCARD_RULES[int(np.argmax(rules[:3]))],
            "early_end": bool(rules[3] > 0.5),
        }
    )
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
