"""The observation: one fixed-length float32 vector per (game, player).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation.md`. Seats are relative to the observer (0 = self,
1 = next in turn order, ...), padded to 5 so 3, 4 and 5 players share a length.
The route is read from the observer's boat forward. Only what the observer may
know is encoded: own hand and public information, never another hand or a
future deal. The encoder, `encode_game`, is a compiled kernel (one game at a time;
`observe` runs it over a batch).
"""

from __future__ import annotations

import numpy as np
from numba.core import types

from ..kernels import Entry, check_threads, kernel, popcount, run_state, small_kernel
from .constants import (
    CARD_NAMES,
    MAX_OCEAN_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
    NUM_VALUES,
    SUIT_NAMES,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
)
from .state import State

MAX_FIELDS = 2 * MAX_OCEAN_CARDS
BLOCK = 8  # floats per block
# Per route field: in the route, 4 colours, dolphin, start field, a boat stands there.
FIELD_FEATURES = ("present", "blue", "red", "green", "turquoise", "dolphin", "start", "occupied")
# Per relative seat's card in the current trick.
TRICK_FEATURES = ("played", "blue", "red", "green", "turquoise", "value", "kanaloa", "octopus")
# Per relative seat: suits it showed it lacks, its announcement (R3.2), tricks won / 8.
SEAT_FEATURES = (
    "void_blue",
    "void_red",
    "void_green",
    "void_turquoise",
    "undecided",
    "not_announced",
    "announced_no_tricks",
    "tricks_won",
)
# The decision to take: the phase, with the dolphin split by what follows it.
DECISIONS = (
    "announce",
    "play",
    "remove_octopus",
    "remove_round_end",
    "dolphin_then_trick",
    "dolphin_then_payout",
    "game_over",
)
# Rule options of the table (Config) that change how the game is played.
RULE_FLAGS = ("nil_announcement", "announced_boat_moves", "dolphin_optional", "dolphin_chain")
ROUND_SCALE = 20  # rounds past this read as 1.0

# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_TIKI, "own Tiki cards: 1 per card held, in action order (suit * 12 + value - 1)"),
    ("played", NUM_TIKI, "Tiki cards played this round (public memory), as `hand`"),
    (
        "specials",
        4,
        "own Kanaloa cards / 3, own octopus cards / 2, Kanaloa played this round / 3, "
        "octopus played this round / 2",
    ),
    ("lead_suit", NUM_SUITS, "suit to follow, one-hot (all 0 before a Tiki card is played)"),
    ("trump", NUM_SUITS, "trump suit of the current trick, one-hot"),
    ("rules", len(RULE_FLAGS), "rule options of this table, 1 when on: " + ", ".join(RULE_FLAGS)),
    (
        "decision",
        len(DECISIONS),
        "the decision the player to act faces, one-hot: " + ", ".join(DECISIONS),
    ),
    ("to_act", 1, "1 when the observer is the player to act"),
    ("trick_leader", MAX_PLAYERS, "relative seat that led (or leads) the current trick, one-hot"),
    ("table_size", MAX_PLAYERS - MIN_PLAYERS + 1, "number of players, one-hot: 3, 4, 5"),
    (
        "trick",
        MAX_PLAYERS * len(TRICK_FEATURES),
        "current trick: relative seat r's card at [8r, 8r+8): "
        + ", ".join(TRICK_FEATURES)
        + " (value = (v - 1) / 11)",
    ),
    (
        "seats",
        MAX_PLAYERS * len(SEAT_FEATURES),
        "relative seat r at [8r, 8r+8): "
        + ", ".join(SEAT_FEATURES)
        + " (voids: it did not follow that suit this round; announcement one-hot, R3.2; "
        "tricks won this round / 8); 0 for seats past the table size",
    ),
    (
        "route",
        MAX_FIELDS * len(FIELD_FEATURES),
        "route fields from the own boat's field (k=0) forward, removed cards skipped, 8 features each at [8k, 8k+8): "
        + ", ".join(FIELD_FEATURES)
        + "; fields past one lap are 0",
    ),
    (
        "boats",
        MAX_PLAYERS,
        "where each relative seat's boat stands: fields ahead of the own boat along the route / 24",
    ),
    (
        "progress",
        MAX_PLAYERS,
        "progress of each relative seat minus own progress / 24 (negative: behind)",
    ),
    (
        "lapping",
        3,
        "lap length / 24; fields the own boat still needs to lap the last boat / 24; fields the leading other boat needs to lap the own boat / 24",
    ),
    ("trick_number", 1, "tricks completed this round / 8"),
    ("round", 1, f"(round - 1) / {ROUND_SCALE}, capped at 1"),
    ("ocean_cards", 1, "ocean cards left in the route / 12"),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OFFSETS[_name] = (_o, _o + _size)
    _o += _size
OBS_DIM: int = _o

# Rows of blocks of 8 floats: the encoder writes the vector block by block, and the
# checks pin the layout it relies on.
_PLAYED, _SPECIALS, _TRUMP, _DECISION, _LEADER = 6, 12, 13, 14, 15
_TRICK, _SEATS, _ROUTE, _TAIL, _NUM_BLOCKS = 16, 21, 26, 50, 52
assert OBS_DIM == _NUM_BLOCKS * BLOCK
assert OFFSETS["played"] == (NUM_TIKI, 2 * NUM_TIKI)
assert OFFSETS["specials"][0] == _SPECIALS * BLOCK and OFFSETS["lead_suit"][1] == _TRUMP * BLOCK
assert OFFSETS["trump"][0] == _TRUMP * BLOCK and OFFSETS["rules"][1] == _DECISION * BLOCK
assert OFFSETS["decision"][0] == _DECISION * BLOCK and OFFSETS["to_act"][1] == _LEADER * BLOCK
assert OFFSETS["trick_leader"][0] == _LEADER * BLOCK and OFFSETS["table_size"][1] == _TRICK * BLOCK
assert OFFSETS["seats"][0] == _SEATS * BLOCK and OFFSETS["route"][0] == _ROUTE * BLOCK
assert OFFSETS["boats"][0] == _TAIL * BLOCK and OFFSETS["lapping"][0] == _TAIL * BLOCK + 10
assert OFFSETS["round"][0] == _TAIL * BLOCK + 14
assert 2 * MAX_OCEAN_CARDS == MAX_FIELDS  # ocean_cards = lap / 24

_GAME_OVER, _DOLPHIN = int(Phase.GAME_OVER), int(Phase.DOLPHIN)
_PAYOUT = int(Pending.PAYOUT)
_KANALOA_SHIFT = NUM_TIKI  # the Kanaloa copies are hand bits 48..50, the octopus copies 51..52
_F32 = np.float32


# The blocks that depend on one small integer are rows of these tables, copied whole.
# Row v: the bits of byte v, lowest first (the hand and played blocks).
_BYTE_ROWS = ((np.arange(256)[:, None] >> np.arange(BLOCK)) & 1).astype(np.float32)


def _card_rows() -> np.ndarray:
    """Row c + 1: TRICK_FEATURES of card type c (row 0, no card, stays 0)."""
    rows = np.zeros((NUM_CARD_TYPES + 1, BLOCK), dtype=np.float32)
    for c in range(NUM_CARD_TYPES):
        row = rows[c + 1]
        row[0] = 1.0
        if c < NUM_TIKI:
            row[1 + c // NUM_VALUES] = 1.0
            row[5] = (c % NUM_VALUES) / (NUM_VALUES - 1)
        else:
            row[6 if c == NUM_TIKI else 7] = 1.0
    return rows


def _seat_rows() -> np.ndarray:
    """Row voids + 16 * (announced + 1) + 48 * tricks_won: SEAT_FEATURES."""
    rows = np.zeros((16 * 3 * (TRICKS_PER_ROUND + 1), BLOCK), dtype=np.float32)
    for v in range(16):
        for a in range(3):
            for t in range(TRICKS_PER_ROUND + 1):
                row = rows[v + 16 * a + 48 * t]
                row[:4] = (v >> np.arange(4)) & 1
                row[4 + a] = 1.0
                row[7] = t / TRICKS_PER_ROUND
    return rows


_CARD_ROWS, _SEAT_ROWS = _card_rows(), _seat_rows()
# The route blocks: `Rules.field_rows` (`ocean.field_rows`), with `occupied` set here.
assert FIELD_FEATURES == ("present", *SUIT_NAMES, "dolphin", "start", "occupied")


# Small integers divided in float32 (what the distance blocks hold), looked up: entry
# i + _DIV_OFFSET of each table is np.float32(i) / np.float32(divisor), exactly as
# dividing gives; 16 divisions a game cost about as much as the rest of this block.
_DIV_OFFSET = 4 * MAX_FIELDS
_INTEGERS = np.arange(-_DIV_OFFSET, _DIV_OFFSET + 1).astype(np.float32)
_BY_FIELDS = _INTEGERS / np.float32(MAX_FIELDS)
_BY_TRICKS = _INTEGERS / np.float32(TRICKS_PER_ROUND)
_BY_ROUNDS = _INTEGERS / np.float32(ROUND_SCALE)


@small_kernel
def _quotient(table, i, divisor):  # type: ignore[no-untyped-def]
    """`np.float32(i) / np.float32(divisor)`, looked up in `table` when `i` is in its range."""
    if -_DIV_OFFSET <= i <= _DIV_OFFSET:
        return table[i + _DIV_OFFSET]
    return _F32(i) / _F32(divisor)


@small_kernel
def _put(out, block, table, row):  # type: ignore[no-untyped-def]
    """Copy `table[row]` into block `block` of `out` (8 floats)."""
    for j in range(BLOCK):
        out[block * BLOCK + j] = table[row, j]


@small_kernel
def _zero(out, block):  # type: ignore[no-untyped-def]
    """Clear block `block` of `out` (8 floats)."""
    for j in range(BLOCK):
        out[block * BLOCK + j] = 0


@kernel
def encode_game(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """Write the observation of game g from seat `me`'s point of view into `out`
    (OBS_DIM,) float32 (layout: `OBS_LAYOUT`). Only what `me` may know: its own hand
    and public information."""
    # (Arrays read into locals once: the writes to `out` would otherwise make the
    # compiled code reload them from the state structure after every store.)
    P = c.num_players
    progress, boat_field = s.progress, s.boat_field
    # Every block is written once: a row of a table, a block cleared and set, or zeros.
    hand = np.int64(s.hands[g, me])
    played = np.int64(s.played[g])
    for byte in range(NUM_TIKI // BLOCK):  # hand, played: one float per Tiki card
        _put(out, byte, _BYTE_ROWS, (hand >> (BLOCK * byte)) & 255)
        _put(out, _PLAYED + byte, _BYTE_ROWS, (played >> (BLOCK * byte)) & 255)
    _zero(out, _SPECIALS)
    o = _SPECIALS * BLOCK
    out[o] = popcount((hand >> _KANALOA_SHIFT) & 7) / NUM_KANALOA
    out[o + 1] = popcount(hand >> (_KANALOA_SHIFT + NUM_KANALOA)) / NUM_OCTOPUS
    out[o + 2] = popcount((played >> _KANALOA_SHIFT) & 7) / NUM_KANALOA
    out[o + 3] = popcount(played >> (_KANALOA_SHIFT + NUM_KANALOA)) / NUM_OCTOPUS
    lead = s.lead_suit[g]
    if lead >= 0:
        out[o + 4 + lead] = 1
    _zero(out, _TRUMP)
    o = _TRUMP * BLOCK
    out[o + s.trump[g]] = 1
    out[o + 4] = c.nil_announcement
    out[o + 5] = c.announced_boat_moves
    out[o + 6] = c.dolphin_optional
    out[o + 7] = c.dolphin_chain
    # The decision, with the dolphin split by what follows it (DECISIONS).
    phase = s.phase[g]
    if phase == _GAME_OVER:
        decision = 6
    elif phase == _DOLPHIN:
        decision = 5 if s.pending[g] == _PAYOUT else 4
    else:
        decision = phase
    _zero(out, _DECISION)
    o = _DECISION * BLOCK
    out[o + decision] = 1
    out[o + 7] = s.current_player[g] == me  # (-1 once the game is over)
    leader = s.leader[g] - me  # relative seats: (seat - me) mod P
    if leader < 0:
        leader += P
    _zero(out, _LEADER)
    o = _LEADER * BLOCK
    out[o + leader] = 1
    out[o + MAX_PLAYERS + P - MIN_PLAYERS] = 1
    # The card each relative seat r played to the current trick: its place in the
    # play order from the leader is (r - leader) mod P. After the 8th trick no trick
    # is open; slots past the cards played hold no card (-1).
    tn = s.trick_number[g]
    history = s.history
    for r in range(MAX_PLAYERS):
        if r < P and tn < TRICKS_PER_ROUND:
            place = r - leader if r >= leader else r - leader + P
            _put(out, _TRICK + r, _CARD_ROWS, history[g, tn * P + place] + 1)
        else:
            _zero(out, _TRICK + r)
    # Per relative seat: voids, announcement, tricks won.
    voids, announced, tricks_won = s.voids, s.announced, s.tricks_won
    for r in range(P):
        p = me + r if me + r < P else me + r - P
        row = np.int64(voids[g, p]) + 16 * (announced[g, p] + 1) + 48 * np.int64(tricks_won[g, p])
        _put(out, _SEATS + r, _SEAT_ROWS, row)
    for r in range(P, MAX_PLAYERS):
        _zero(out, _SEATS + r)
    # The route from the own boat's field forward, removed cards skipped, one lap.
    occupied = 0
    for p in range(P):
        occupied |= np.int64(1) << boat_field[g, p]
    present = np.int64(s.present_slots[g])
    lap = 2 * popcount(present)
    F = c.route_fields
    route, rows = s.route, c.field_rows
    f = np.int64(boat_field[g, me])
    for k in range(lap):
        _put(out, _ROUTE + k, rows, route[g, f])
        out[(_ROUTE + k) * BLOCK + 7] = (occupied >> f) & 1
        f += 1
        if f & 1 == 0:  # the next card: skip those removed
            if f == F:
                f = 0
            while not (present >> (f >> 1)) & 1:
                f += 2
                if f == F:
                    f = 0
    for k in range(lap, MAX_FIELDS):
        _zero(out, _ROUTE + k)
    # Distances along the route: integers divided in float32 (`_BY_FIELDS`).
    _zero(out, _TAIL)
    _zero(out, _TAIL + 1)
    o = _TAIL * BLOCK
    own = progress[g, me]
    lo, hi = 2 * MAX_FIELDS, -2 * MAX_FIELDS
    for r in range(P):
        diff = progress[g, me + r if me + r < P else me + r - P] - own
        if r > 0:
            lo, hi = min(lo, diff), max(hi, diff)
        # Fields ahead of the own boat: outside 0..lap-1 only in a finished game, once a
        # boat lapped (while a game goes on no boat is a lap ahead of another).
        ahead = diff % lap if phase == _GAME_OVER else (diff + lap if diff < 0 else diff)
        out[o + r] = _quotient(_BY_FIELDS, ahead, MAX_FIELDS)
        out[o + MAX_PLAYERS + r] = _quotient(_BY_FIELDS, diff, MAX_FIELDS)
    out[o + 10] = _quotient(_BY_FIELDS, lap, MAX_FIELDS)
    out[o + 11] = _quotient(_BY_FIELDS, lap + 1 + lo, MAX_FIELDS)
    out[o + 12] = _quotient(_BY_FIELDS, lap + 1 - hi, MAX_FIELDS)
    out[o + 13] = _quotient(_BY_TRICKS, tn, TRICKS_PER_ROUND)
    out[o + 14] = _quotient(_BY_ROUNDS, min(s.round[g] - 1, ROUND_SCALE), ROUND_SCALE)
    out[o + 15] = _quotient(_BY_FIELDS, lap, MAX_FIELDS)


@kernel
def _encode_range(c, s, seats, to_act, out, lo, hi):  # type: ignore[no-untyped-def]
    for g in range(lo, hi):
        # `to_act`: each game's player to act, seat 0 once the game is over.
        me = max(np.int64(s.current_player[g]), 0) if to_act else seats[g]
        encode_game(c, s, g, me, out[g])


_ENCODE = Entry(_encode_range, types.int64[::1], types.boolean, types.float32[:, ::1])
_NO_SEATS = np.zeros(0, dtype=np.int64)


def observe(
    state: State,
    seat: np.ndarray | int | None = None,
    out: np.ndarray | None = None,
    threads: int = 1,
) -> np.ndarray:
    """Encode each game from one player's point of view.

    Args:
        state: a batch of `B` games.
        seat: (B,) ints or one int (Python or numpy integers; not floats or bools):
            whose view; default each game's player to act (seat 0 for games that are
            over).
        out: optional (B, OBS_DIM) float32 array to write into (every entry is written).
        threads: encode the games on up to this many threads (batches of at least
            2048 games; `kanaloa_env.core.kernels`). The result does not depend on it.

    Returns:
        (B, OBS_DIM) float32 observations (layout: `OBS_LAYOUT`, docs/observation.md).

    Raises:
        TypeError: `seat` is not an integer or an integer array.
        ValueError: `seat` of the wrong shape or out of 0..P-1, a bad `out`.
    """
    B, P = len(state.phase), state.num_players
    if type(threads) is not int or threads != 1:
        threads = check_threads(threads)
    if seat is None:
        seats, to_act = _NO_SEATS, True
    else:
        me = np.asarray(seat)
        if me.dtype.kind not in "iu":  # (a float or a bool seat was once cast silently)
            raise TypeError(
                f"seat must be an int or a ({B},) integer array, got {seat!r:.60}"
                if me.ndim == 0
                else f"seat must be an int or a ({B},) integer array, got dtype {me.dtype}"
            )
        if me.ndim == 0:
            me = np.full(B, me, dtype=np.int64)
        elif me.shape != (B,):
            raise ValueError(f"seat must be an int or a ({B},) array, got shape {me.shape}")
        if ((me < 0) | (me >= P)).any():
            raise ValueError(f"seat must be in 0..{P - 1}, got {seat!r}")
        seats, to_act = me.astype(np.int64), False
    if out is None:
        out = np.empty((B, OBS_DIM), dtype=np.float32)
        fn = _ENCODE(state)
    elif not isinstance(out, np.ndarray) or out.shape != (B, OBS_DIM) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({B}, {OBS_DIM})")
    elif not out.flags.writeable:
        raise ValueError("out must be writeable")
    else:
        fn = _ENCODE(state) if out.flags.c_contiguous and out.flags.aligned else _encode_range
    run_state(fn, B, threads, state, seats, to_act, out)
    return out


def decode(vector: np.ndarray) -> dict[str, object]:
    """Turn one observation vector (OBS_DIM,) into a readable dict for notebooks.

    Cards and suits come back by name, the route as a list of field dicts, seats
    relative to the observer, the rest as numbers.
    """
    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (OBS_DIM,):
        raise ValueError(f"decode expects one vector of shape ({OBS_DIM},), got {v.shape}")
    part = {name: v[a:b] for name, (a, b) in OFFSETS.items()}
    specials = part["specials"]

    def cards(tiki: np.ndarray, kanaloa: float, octopus: float) -> list[str]:
        out = [CARD_NAMES[c] for c in range(NUM_TIKI) if tiki[c] > 0.5]
        out += ["kanaloa"] * int(round(kanaloa * NUM_KANALOA))
        return out + ["octopus"] * int(round(octopus * NUM_OCTOPUS))

    trick = part["trick"].reshape(MAX_PLAYERS, len(TRICK_FEATURES))

    def trick_card(row: np.ndarray) -> str:
        if row[6] > 0.5:
            return "kanaloa"
        if row[7] > 0.5:
            return "octopus"
        suit = SUIT_NAMES[int(np.argmax(row[1:5]))]
        return f"{suit}-{int(round(row[5] * (NUM_VALUES - 1))) + 1}"

    route = []
    for k, row in enumerate(part["route"].reshape(MAX_FIELDS, len(FIELD_FEATURES))):
        if row[0] < 0.5:
            continue
        route.append(
            {
                "ahead": k,
                "color": SUIT_NAMES[int(np.argmax(row[1:5]))],
                "dolphin": bool(row[5]),
                "start": bool(row[6]),
                "occupied": bool(row[7]),
            }
        )

    def onehot(name: str, names: tuple[str, ...]) -> str | None:
        x = part[name]
        return names[int(np.argmax(x))] if x.max() > 0.5 else None

    seats_in = int(np.argmax(part["table_size"])) + MIN_PLAYERS
    per_seat = part["seats"].reshape(MAX_PLAYERS, len(SEAT_FEATURES))[:seats_in]
    decision = onehot("decision", DECISIONS)
    phase, pending = decision, "none"
    if decision is not None and decision.startswith("dolphin_then_"):
        phase, pending = "dolphin", decision[len("dolphin_then_") :]
    scale = float(MAX_FIELDS)
    return {
        "hand": cards(part["hand"], specials[0], specials[1]),
        "trick": {r: trick_card(trick[r]) for r in range(seats_in) if trick[r][0] > 0.5},
        "trick_leader_rel": int(np.argmax(part["trick_leader"])),
        "lead_suit": onehot("lead_suit", SUIT_NAMES),
        "trump": onehot("trump", SUIT_NAMES),
        "rules": {flag: bool(x > 0.5) for flag, x in zip(RULE_FLAGS, part["rules"], strict=True)},
        "route": route,
        "boats_ahead_rel": (part["boats"][:seats_in] * scale).round().astype(int).tolist(),
        "progress_rel": (part["progress"][:seats_in] * scale).round().astype(int).tolist(),
        "lap_length": int(round(part["lapping"][0] * scale)),
        "fields_to_lap_last": int(round(part["lapping"][1] * scale)),
        "fields_until_lapped": int(round(part["lapping"][2] * scale)),
        "tricks_won_rel": (per_seat[:, 7] * TRICKS_PER_ROUND).round().astype(int).tolist(),
        "played_this_round": cards(part["played"], specials[2], specials[3]),
        "voids_rel": {
            r: [SUIT_NAMES[s] for s in range(NUM_SUITS) if per_seat[r, s] > 0.5]
            for r in range(seats_in)
        },
        "announced_rel": [
            (None, False, True)[int(np.argmax(per_seat[r, 4:7]))] for r in range(seats_in)
        ],
        "phase": phase,
        "pending": pending,
        "round_scaled": float(part["round"][0]),
        "trick_number": int(round(part["trick_number"][0] * TRICKS_PER_ROUND)),
        "ocean_cards": int(round(part["ocean_cards"][0] * MAX_OCEAN_CARDS)),
        "num_players": seats_in,
        "to_act": bool(part["to_act"][0] > 0.5),
    }


def layout_markdown() -> str:
    """The text of docs/observation.md, generated from `OBS_LAYOUT`."""
    lines = [
        "# Observation layout",
        "",
        "Generated from `kanaloa_env.core.kanaloa.observation.OBS_LAYOUT` by",
        "`python -m kanaloa_env.core.kanaloa.observation > docs/observation.md`; a test checks it is current.",
        "",
        f"A float32 vector of length **{OBS_DIM}**, the same for 3, 4 and 5 players. Seats are",
        "relative to the observer (0 = self, 1 = next in turn order, ...; seats past the table",
        "size are 0). `kanaloa_env.core.kanaloa.observation.decode(v)` turns a vector into a dict.",
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
