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

from ..engine import Observer
from ..kernels import kernel, popcount, small_kernel
from ..layout import layout_document, offsets
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
BLOCK = 8  # floats a table row of the encoder holds (a byte of cards, a card, a seat, a field)
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

OFFSETS, OBS_DIM = offsets(OBS_LAYOUT)


def _start(name: str) -> int:
    """Where entry `name` of `OBS_LAYOUT` starts in the vector."""
    return OFFSETS[name][0]


# Where the encoder writes, all read from the layout table.
_HAND, _PLAYED, _SPECIALS, _LEAD_SUIT = (
    _start(n) for n in ("hand", "played", "specials", "lead_suit")
)
_TRUMP, _RULES, _DECISION, _TO_ACT = (_start(n) for n in ("trump", "rules", "decision", "to_act"))
_LEADER, _TABLE_SIZE, _TRICK, _SEATS = (
    _start(n) for n in ("trick_leader", "table_size", "trick", "seats")
)
_ROUTE, _BOATS, _PROGRESS, _LAPPING = (_start(n) for n in ("route", "boats", "progress", "lapping"))
_TRICK_NUMBER, _ROUND, _OCEAN_CARDS = (_start(n) for n in ("trick_number", "round", "ocean_cards"))
_NIL, _BOAT_MOVES, _OPTIONAL, _CHAIN = (
    _RULES + RULE_FLAGS.index(n)
    for n in ("nil_announcement", "announced_boat_moves", "dolphin_optional", "dolphin_chain")
)
_DOLPHIN_TRICK, _DOLPHIN_PAYOUT, _OVER = (
    DECISIONS.index(n) for n in ("dolphin_then_trick", "dolphin_then_payout", "game_over")
)
# The encoder writes the entries in this order, clearing spans from one start to a
# later one: a layout in another order needs its writes reordered.
assert tuple(name for name, _, _ in OBS_LAYOUT) == (
    *("hand", "played", "specials", "lead_suit", "trump", "rules", "decision", "to_act"),
    *("trick_leader", "table_size", "trick", "seats", "route", "boats", "progress"),
    *("lapping", "trick_number", "round", "ocean_cards"),
)
# The encoder copies whole rows of BLOCK floats (bytes of the hand, a card of the trick,
# a seat, a route field); the other entries it clears and sets in spans between starts.
assert BLOCK == len(TRICK_FEATURES) == len(SEAT_FEATURES) == len(FIELD_FEATURES)
assert NUM_TIKI % BLOCK == 0 and OBS_DIM % BLOCK == 0
# The decisions before the dolphin are the phases of those names, in order.
assert DECISIONS[: Phase.DOLPHIN] == tuple(p.name.lower() for p in Phase)[: Phase.DOLPHIN]
assert 2 * MAX_OCEAN_CARDS == MAX_FIELDS  # ocean_cards = lap / 24

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
def _put(out, at, table, row):  # type: ignore[no-untyped-def]
    """Copy `table[row]` (BLOCK floats) into `out[at:at + BLOCK]`."""
    for j in range(BLOCK):
        out[at + j] = table[row, j]


@small_kernel
def _zero(out, lo, hi):  # type: ignore[no-untyped-def]
    """Clear `out[lo:hi]`."""
    for j in range(lo, hi):
        out[j] = 0


@kernel
def encode_game(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """Write the observation of game g from seat `me`'s point of view into `out`
    (OBS_DIM,) float32 (layout: `OBS_LAYOUT`). Only what `me` may know: its own hand
    and public information. Every entry is written once: a row of a table, a span
    cleared and set, or zeros.
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`)."""
    _encode_cards(s, g, me, out)
    _encode_table(c, s, g, out)
    leader = _encode_decision(c, s, g, me, out)
    _encode_trick(c, s, g, leader, out)
    _encode_seats(c, s, g, me, out)
    lap = _encode_route(c, s, g, me, out)
    _encode_distances(c, s, g, me, lap, out)


@small_kernel
def _encode_cards(s, g, me, out):  # type: ignore[no-untyped-def]
    """hand, played, specials, lead_suit."""
    hand = np.int64(s.hands[g, me])
    played = np.int64(s.played[g])
    for byte in range(NUM_TIKI // BLOCK):  # hand, played: one float per Tiki card
        _put(out, _HAND + BLOCK * byte, _BYTE_ROWS, (hand >> (BLOCK * byte)) & 255)
        _put(out, _PLAYED + BLOCK * byte, _BYTE_ROWS, (played >> (BLOCK * byte)) & 255)
    _zero(out, _SPECIALS, _TRUMP)  # specials, lead_suit
    out[_SPECIALS] = popcount((hand >> _KANALOA_SHIFT) & 7) / NUM_KANALOA
    out[_SPECIALS + 1] = popcount(hand >> (_KANALOA_SHIFT + NUM_KANALOA)) / NUM_OCTOPUS
    out[_SPECIALS + 2] = popcount((played >> _KANALOA_SHIFT) & 7) / NUM_KANALOA
    out[_SPECIALS + 3] = popcount(played >> (_KANALOA_SHIFT + NUM_KANALOA)) / NUM_OCTOPUS
    lead = s.lead_suit[g]
    if lead >= 0:
        out[_LEAD_SUIT + lead] = 1


@small_kernel
def _encode_table(c, s, g, out):  # type: ignore[no-untyped-def]
    """trump, rules."""
    _zero(out, _TRUMP, _DECISION)
    out[_TRUMP + s.trump[g]] = 1
    out[_NIL] = c.nil_announcement
    out[_BOAT_MOVES] = c.announced_boat_moves
    out[_OPTIONAL] = c.dolphin_optional
    out[_CHAIN] = c.dolphin_chain


@small_kernel
def _encode_decision(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """decision (the phase, with the dolphin split by what follows it), to_act,
    trick_leader, table_size; returns the leader's relative seat."""
    phase = s.phase[g]
    if phase == Phase.GAME_OVER:
        decision = _OVER
    elif phase == Phase.DOLPHIN:
        decision = _DOLPHIN_PAYOUT if s.pending[g] == Pending.PAYOUT else _DOLPHIN_TRICK
    else:
        decision = phase
    _zero(out, _DECISION, _LEADER)  # decision, to_act
    out[_DECISION + decision] = 1
    out[_TO_ACT] = s.current_player[g] == me  # (-1 once the game is over)
    P = c.num_players
    leader = s.leader[g] - me  # relative seats: (seat - me) mod P
    if leader < 0:
        leader += P
    _zero(out, _LEADER, _TRICK)  # trick_leader, table_size
    out[_LEADER + leader] = 1
    out[_TABLE_SIZE + P - MIN_PLAYERS] = 1
    return leader


@small_kernel
def _encode_trick(c, s, g, leader, out):  # type: ignore[no-untyped-def]
    """trick: the card each relative seat r played to the current trick, its place in
    the play order from the leader being (r - leader) mod P. After the 8th trick no
    trick is open; slots past the cards played hold no card (-1)."""
    P = c.num_players
    tn = s.trick_number[g]
    history = s.history
    for r in range(MAX_PLAYERS):
        if r < P and tn < TRICKS_PER_ROUND:
            place = r - leader if r >= leader else r - leader + P
            _put(out, _TRICK + BLOCK * r, _CARD_ROWS, history[g, tn * P + place] + 1)
        else:
            _zero(out, _TRICK + BLOCK * r, _TRICK + BLOCK * (r + 1))


@small_kernel
def _encode_seats(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """seats: per relative seat, voids, announcement, tricks won."""
    P = c.num_players
    voids, announced, tricks_won = s.voids, s.announced, s.tricks_won
    for r in range(P):
        p = me + r if me + r < P else me + r - P
        row = np.int64(voids[g, p]) + 16 * (announced[g, p] + 1) + 48 * np.int64(tricks_won[g, p])
        _put(out, _SEATS + BLOCK * r, _SEAT_ROWS, row)
    _zero(out, _SEATS + BLOCK * P, _ROUTE)


@small_kernel
def _encode_route(c, s, g, me, out):  # type: ignore[no-untyped-def]
    """route: from the own boat's field forward, removed cards skipped, one lap;
    returns the lap's length in fields."""
    boat_field = s.boat_field
    occupied = 0
    for p in range(c.num_players):
        occupied |= np.int64(1) << boat_field[g, p]
    present = np.int64(s.present_slots[g])
    lap = 2 * popcount(present)
    F = c.route_fields
    route, rows = s.route, c.field_rows
    f = np.int64(boat_field[g, me])
    for k in range(lap):
        at = _ROUTE + BLOCK * k
        _put(out, at, rows, route[g, f])
        out[at + BLOCK - 1] = (occupied >> f) & 1  # the last field feature
        f += 1
        if f & 1 == 0:  # the next card: skip those removed
            if f == F:
                f = 0
            while not (present >> (f >> 1)) & 1:
                f += 2
                if f == F:
                    f = 0
    _zero(out, _ROUTE + BLOCK * lap, _BOATS)
    return lap


@small_kernel
def _encode_distances(c, s, g, me, lap, out):  # type: ignore[no-untyped-def]
    """boats, progress, lapping, trick_number, round, ocean_cards: integers divided in
    float32 (`_BY_FIELDS`)."""
    # (The array read into a local once: the writes to `out` would otherwise make the
    # compiled code reload it from the state structure after every store.)
    progress = s.progress
    P = c.num_players
    _zero(out, _BOATS, OBS_DIM)
    own = progress[g, me]
    over = s.phase[g] == Phase.GAME_OVER
    lo, hi = 2 * MAX_FIELDS, -2 * MAX_FIELDS
    for r in range(P):
        diff = progress[g, me + r if me + r < P else me + r - P] - own
        if r > 0:
            lo, hi = min(lo, diff), max(hi, diff)
        # Fields ahead of the own boat: outside 0..lap-1 only in a finished game, once a
        # boat lapped (while a game goes on no boat is a lap ahead of another).
        ahead = diff % lap if over else (diff + lap if diff < 0 else diff)
        out[_BOATS + r] = _quotient(_BY_FIELDS, ahead, MAX_FIELDS)
        out[_PROGRESS + r] = _quotient(_BY_FIELDS, diff, MAX_FIELDS)
    out[_LAPPING] = _quotient(_BY_FIELDS, lap, MAX_FIELDS)
    out[_LAPPING + 1] = _quotient(_BY_FIELDS, lap + 1 + lo, MAX_FIELDS)
    out[_LAPPING + 2] = _quotient(_BY_FIELDS, lap + 1 - hi, MAX_FIELDS)
    out[_TRICK_NUMBER] = _quotient(_BY_TRICKS, s.trick_number[g], TRICKS_PER_ROUND)
    out[_ROUND] = _quotient(_BY_ROUNDS, min(s.round[g] - 1, ROUND_SCALE), ROUND_SCALE)
    out[_OCEAN_CARDS] = _quotient(_BY_FIELDS, lap, MAX_FIELDS)


_OBSERVER: Observer[State] = Observer(encode_game, OBS_DIM)
observe = _OBSERVER.observe


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
    intro = [
        f"A float32 vector of length **{OBS_DIM}**, the same for 3, 4 and 5 players. Seats are",
        "relative to the observer (0 = self, 1 = next in turn order, ...; seats past the table",
        "size are 0). `kanaloa_env.core.kanaloa.observation.decode(v)` turns a vector into a dict.",
    ]
    return layout_document(
        "Observation layout",
        "kanaloa_env.core.kanaloa.observation",
        "docs/observation.md",
        intro,
        OBS_LAYOUT,
    )


if __name__ == "__main__":
    print(layout_markdown(), end="")
