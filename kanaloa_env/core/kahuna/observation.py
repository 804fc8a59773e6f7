"""The observation: one fixed-length float32 vector per (game, player) (K12).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation-kahuna.md`. Everything is from the observer's point of
view ("mine" / "theirs"), and only what the observer may know is encoded (K12):
the own hand and own face-down discards, the board, the row, the public discards,
the counts of cards in hidden places, both `known` memories (K6.7), scorings,
round, phase and flags. Never the opponent's hand beyond `known`, the islands of
the opponent's face-down discards, or the pile's order or content. The encoder,
`encode_game`, is a compiled kernel (one game at a time; `observe` runs it over a
batch).
"""

from __future__ import annotations

import numpy as np

from ..engine import Observer
from ..kernels import popcount, small_kernel
from ..layout import layout_document, offsets
from .board import COUNT_BITS, bridge_counts
from .cards import num_cards
from .config import DISCARD_RULES
from .constants import (
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    FINAL_TURNS,
    HAND_LIMIT,
    ISLAND_NAMES,
    LINE_NAMES,
    MAJORITY,
    MAX_PILE,
    MAX_STONES,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    NUM_SCORINGS,
    PHASE_NAMES,
    ROW_SLOTS,
    SCORING_POINTS,
    Phase,
)
from .state import State

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

OFFSETS, OBS_DIM = offsets(OBS_LAYOUT)

# ---- the encoder -------------------------------------------------------------------


def _start(name: str) -> int:
    """Where entry `name` of `OBS_LAYOUT` starts in the vector."""
    return OFFSETS[name][0]


def _number(name: str) -> int:
    """The index of `name` in `NUMBERS`."""
    return [n for n, _, _ in NUMBERS].index(name)


# Where the encoder writes, all read from the layout tables.
_HAND, _KNOWN_THEIRS, _KNOWN_MINE = (_start(n) for n in ("hand", "known_theirs", "known_mine"))
_DISCARD_UP, _MY_DOWN, _FACE_UP = (_start(n) for n in ("discard_up", "my_discard_down", "face_up"))
_LINES_MINE, _LINES_THEIRS, _LINES_FREE = (
    _start(n) for n in ("lines_mine", "lines_theirs", "lines_free")
)
_MY_STONES, _THEIR_STONES, _DECISION = (
    _start(n) for n in ("my_stones", "their_stones", "decision")
)
_ROUND, _FLAGS, _RULES, _NUMBERS = (_start(n) for n in ("round", "turn_flags", "rules", "numbers"))
_MY_MAJORITY, _THEIR_MAJORITY = _start("my_majority"), _start("their_majority")
_TO_ACT = _DECISION + len(DECISIONS)  # after the phase one-hot
_EARLY_END = _RULES + len(DISCARD_RULES)  # after the discard rule one-hot
_HANDED_BACK, _FIRST_FINAL, _SECOND_FINAL, _SKIPPED, _NO_SKIP = (
    _FLAGS + TURN_FLAGS.index(n)
    for n in (
        "handed_back",
        "first_final_turn",
        "second_final_turn",
        "last_turn_skipped",
        "may_not_skip",
    )
)
_MY_BRIDGES, _THEIR_BRIDGES, _PILE, _TO_DRAW = (
    _number(n) for n in ("my_bridge_supply", "their_bridge_supply", "pile_size", "cards_to_draw")
)
_MY_HAND, _THEIR_HAND, _MY_DOWN_COUNT, _THEIR_DOWN_COUNT = (
    _number(n) for n in ("my_hand_size", "their_hand_size", "my_down_count", "their_down_count")
)
_MY_STONE_SUPPLY, _THEIR_STONE_SUPPLY, _STONES_PER_PLAYER, _TURN_NUMBER = (
    _number(n) for n in ("my_stone_supply", "their_stone_supply", "stones_per_player", "turn")
)
_MY_SCORING, _THEIR_SCORING = _number("my_scoring_1"), _number("their_scoring_1")
_MY_POINTS, _THEIR_POINTS = _number("my_points"), _number("their_points")
# Scoring k's numbers are 2k entries after the first scoring's; the phases are the
# decisions, in order.
assert all(_number(f"my_scoring_{k + 1}") == _MY_SCORING + 2 * k for k in range(NUM_SCORINGS))
assert all(_number(f"their_scoring_{k + 1}") == _THEIR_SCORING + 2 * k for k in range(NUM_SCORINGS))
assert DECISIONS == PHASE_NAMES
assert _NUMBERS + len(NUMBERS) == OBS_DIM
# The numbers' divisors (`NUMBERS`), as float32; the turn's (config max_turns) is -1 here.
_DIVISORS = np.array([-1 if d is None else d for _, d, _ in NUMBERS], dtype=np.float32)
_F32 = np.float32


def _float_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Entries the encoder copies, float32 (copying 4 floats at once is faster than
    computing them one by one): per nibble v, its bits (bit j at [v, j]); per nibble v
    of a count word, its 2 islands' "at least one" and "two" ([v, 2i], [v, 2i + 1] for
    island i of the nibble); per face-up slot content (island + 1, 0 empty), the island
    one-hot; per island and bridge count there, the count over the majority
    threshold (as the count divided in float64, K1.3).

    The bit tables are per nibble (256 bytes), not per byte (8 KB): a CUDA kernel gets
    its own copy of a table in constant memory at every inlined call site, and ten
    8 KB copies overflow the GPU's 64 KB."""
    v = np.arange(16)[:, None]
    bits = ((v >> np.arange(4)) & 1).astype(np.float32)
    counts = (v >> (2 * (np.arange(4) // 2))) & 3
    two = (counts > np.arange(4) % 2).astype(np.float32)
    one_hot = np.ascontiguousarray(np.eye(NUM_ISLANDS + 1, dtype=np.float32)[:, 1:])
    majority = (np.arange(8)[None, :] / MAJORITY[:, None].astype(np.float64)).astype(np.float32)
    for t in (bits, two, one_hot, majority):
        t.flags.writeable = False
    return bits, two, one_hot, majority


_BIT_FLOATS, _COUNT_FLOATS, _ONE_HOT, _MAJORITY_FLOATS = _float_tables()


@small_kernel
def _write_bits(out, o, bits, n):  # type: ignore[no-untyped-def]
    """Write bits 0..n-1 of `bits` as 0/1 into `out[o:o + n]`."""
    for k in range((n + 3) // 4):
        v = (bits >> (4 * k)) & 15
        for j in range(4):
            if 4 * k + j < n:
                out[o + 4 * k + j] = _BIT_FLOATS[v, j]


@small_kernel
def _write_multiset(out, o, word):  # type: ignore[no-untyped-def]
    """Write the count word `word` into `out[o:o + 24]`: per island x, [o + 2x] 1 if at
    least one card, [o + 2x + 1] 1 if two."""
    for k in range(6):  # 2 islands a nibble
        v = (word >> (4 * k)) & 15
        for j in range(4):
            out[o + 4 * k + j] = _COUNT_FLOATS[v, j]


@small_kernel
def encode_game(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """Write the observation of game g from seat `me`'s point of view into `out`
    (OBS_DIM,) float32 (layout: `OBS_LAYOUT`; every entry once, in order). Only what
    `me` may know (K12).
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`)."""
    q = 1 - me
    # Cards.
    _write_multiset(out, _HAND, np.int64(s.hands[g, me]))
    _write_multiset(out, _KNOWN_THEIRS, np.int64(s.known[g, q]))
    _write_multiset(out, _KNOWN_MINE, np.int64(s.known[g, me]))
    _write_multiset(out, _DISCARD_UP, np.int64(s.discard_up[g]))
    _write_multiset(out, _MY_DOWN, np.int64(s.discard_down[g, me]))
    in_row = 0
    for slot in range(ROW_SLOTS):
        content = np.int64(s.face_up[g, slot]) + 1  # 0: empty
        in_row += content != 0
        for x in range(NUM_ISLANDS):
            out[_FACE_UP + NUM_ISLANDS * slot + x] = _ONE_HOT[content, x]
    # The board.
    mine = np.int64(s.bridges[g, me])
    theirs = np.int64(s.bridges[g, q])
    _write_bits(out, _LINES_MINE, mine, NUM_LINES)
    _write_bits(out, _LINES_THEIRS, theirs, NUM_LINES)
    _write_bits(out, _LINES_FREE, ~(mine | theirs) & ALL_LINES, NUM_LINES)
    stones_mine = np.int64(s.stones[g, me])
    stones_theirs = np.int64(s.stones[g, q])
    _write_bits(out, _MY_STONES, stones_mine, NUM_ISLANDS)
    _write_bits(out, _THEIR_STONES, stones_theirs, NUM_ISLANDS)
    # The decision, the round, the flags, the rules.
    phase = np.int64(s.phase[g])
    for k in range(len(DECISIONS)):
        out[_DECISION + k] = phase == k
    out[_TO_ACT] = s.current_player[g] == me
    round_ = min(np.int64(s.num_scorings[g]), NUM_SCORINGS - 1)  # K3.4: rounds 1..3
    for k in range(NUM_SCORINGS):
        out[_ROUND + k] = round_ == k
    final = s.final_turns_left[g]
    skipped = s.last_turn_skipped[g]
    handed_back = s.handed_back[g]
    out[_HANDED_BACK] = handed_back
    out[_FIRST_FINAL] = final == FINAL_TURNS
    out[_SECOND_FINAL] = final == 1
    out[_SKIPPED] = skipped
    out[_NO_SKIP] = phase != Phase.GAME_OVER and (final > 0 or skipped or handed_back)
    for k in range(len(DISCARD_RULES)):
        out[_RULES + k] = c.discard_rule == k
    out[_EARLY_END] = c.early_end
    # Bridges at each island over its majority threshold.
    at_mine = bridge_counts(mine)
    at_theirs = bridge_counts(theirs)
    for x in range(NUM_ISLANDS):
        shift = COUNT_BITS * x
        out[_MY_MAJORITY + x] = _MAJORITY_FLOATS[x, (at_mine >> shift) & 7]
        out[_THEIR_MAJORITY + x] = _MAJORITY_FLOATS[x, (at_theirs >> shift) & 7]
    # The numbers (`NUMBERS`; + the cards a public view blanked, 0 in a real state),
    # each small integer over its divisor in float32.
    pile = np.int64(s.pile_size[g])
    _write_number(c, out, _MY_BRIDGES, BRIDGES_PER_PLAYER - popcount(mine))
    _write_number(c, out, _THEIR_BRIDGES, BRIDGES_PER_PLAYER - popcount(theirs))
    _write_number(c, out, _PILE, pile)
    _write_number(c, out, _TO_DRAW, pile + in_row)
    _write_number(c, out, _MY_HAND, num_cards(np.int64(s.hands[g, me])) + s.hidden_hand[g, me])
    _write_number(c, out, _THEIR_HAND, num_cards(np.int64(s.hands[g, q])) + s.hidden_hand[g, q])
    down_mine = num_cards(np.int64(s.discard_down[g, me])) + s.hidden_down[g, me]
    _write_number(c, out, _MY_DOWN_COUNT, down_mine)
    down_theirs = num_cards(np.int64(s.discard_down[g, q])) + s.hidden_down[g, q]
    _write_number(c, out, _THEIR_DOWN_COUNT, down_theirs)
    _write_number(c, out, _MY_STONE_SUPPLY, c.stones_per_player - popcount(stones_mine))
    _write_number(c, out, _THEIR_STONE_SUPPLY, c.stones_per_player - popcount(stones_theirs))
    _write_number(c, out, _STONES_PER_PLAYER, c.stones_per_player)
    _write_number(c, out, _TURN_NUMBER, np.int64(s.turn[g]))
    points_mine = 0
    points_theirs = 0
    for k in range(NUM_SCORINGS):
        mine_k = np.int64(s.scorings[g, k, me])
        theirs_k = np.int64(s.scorings[g, k, q])
        _write_number(c, out, _MY_SCORING + 2 * k, mine_k)
        _write_number(c, out, _THEIR_SCORING + 2 * k, theirs_k)
        points_mine += mine_k
        points_theirs += theirs_k
    _write_number(c, out, _MY_POINTS, points_mine)
    _write_number(c, out, _THEIR_POINTS, points_theirs)


@small_kernel
def _write_number(c, out, k, value):  # type: ignore[no-untyped-def]
    """Write entry k of `NUMBERS`: `value` over its divisor, in float32."""
    divisor = _F32(c.max_turns) if k == _TURN_NUMBER else _DIVISORS[k]
    out[_NUMBERS + k] = _F32(value) / divisor


_OBSERVER: Observer[State] = Observer(encode_game, OBS_DIM)
observe = _OBSERVER.observe


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
    decision, rules = part["decision"], part["rules"]
    flag = {name: x > 0.5 for name, x in zip(TURN_FLAGS, part["turn_flags"], strict=True)}
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
            "phase": DECISIONS[int(np.argmax(decision[: len(DECISIONS)]))],
            "to_act": bool(decision[len(DECISIONS)] > 0.5),
            "round": int(np.argmax(part["round"])) + 1,
            "handed_back": bool(flag["handed_back"]),
            "final_turns_left": (
                FINAL_TURNS
                if flag["first_final_turn"]
                else 1
                if flag["second_final_turn"]
                else None
            ),
            "last_turn_skipped": bool(flag["last_turn_skipped"]),
            "may_not_skip": bool(flag["may_not_skip"]),
            "discard_rule": DISCARD_RULES[int(np.argmax(rules[: len(DISCARD_RULES)]))],
            "early_end": bool(rules[len(DISCARD_RULES)] > 0.5),
        }
    )
    for (name, divisor, _), x in zip(NUMBERS, part["numbers"], strict=True):
        out[name] = float(x) if divisor is None else int(round(float(x) * divisor))
    return out


def layout_markdown() -> str:
    """The text of docs/observation-kahuna.md, generated from `OBS_LAYOUT`."""
    intro = [
        f'A float32 vector of length **{OBS_DIM}** from the observer\'s point of view: "my" and',
        '"mine" are the observer\'s, "theirs" the opponent\'s. It holds only what the observer',
        "may know (KAHUNA-RULES.md K12). `kanaloa_env.core.kahuna.decode(v)` turns a vector into",
        "a dict.",
    ]
    return layout_document(
        "Kahuna observation layout",
        "kanaloa_env.core.kahuna.observation",
        "docs/observation-kahuna.md",
        intro,
        OBS_LAYOUT,
    )


if __name__ == "__main__":
    print(layout_markdown(), end="")
