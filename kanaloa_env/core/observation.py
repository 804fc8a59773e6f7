"""The observation: one fixed-length float32 vector per (game, player).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation.md`. Seats are relative to the observer (0 = self,
1 = next in turn order, ...), padded to 5 so 3, 4 and 5 players share a length.
The route is read from the observer's boat forward. Only what the observer may
know is encoded: own hand and public information, never another hand or a
future deal.
"""

from __future__ import annotations

import numpy as np

from .constants import (
    KANALOA_BITS,
    MAX_OCEAN_CARDS,
    MAX_PLAYERS,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
    OCTOPUS_BITS,
    PENDING_NAMES,
    PHASE_NAMES,
    TRICKS_PER_ROUND,
    Phase,
)
from .state import State

MAX_FIELDS = 2 * MAX_OCEAN_CARDS
# Per route field: in the route, 4 colours, dolphin, start field, a boat stands there.
FIELD_FEATURES = ("present", "blue", "red", "green", "turquoise", "dolphin", "start", "occupied")
# Per relative seat's card in the current trick.
TRICK_FEATURES = ("played", "blue", "red", "green", "turquoise", "value", "kanaloa", "octopus")
ROUND_SCALE = 20  # rounds past this read as 1.0

# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    (
        "hand",
        NUM_CARD_TYPES,
        "own hand by card type (DESIGN.md action order); Tiki 0/1, Kanaloa count/3, octopus count/2",
    ),
    (
        "trick",
        MAX_PLAYERS * len(TRICK_FEATURES),
        "current trick: relative seat r's card at [8r, 8r+8): "
        + ", ".join(TRICK_FEATURES)
        + " (value = (v - 1) / 11)",
    ),
    ("trick_leader", MAX_PLAYERS, "relative seat that led (or leads) the current trick, one-hot"),
    ("lead_suit", NUM_SUITS, "suit to follow, one-hot (all 0 before a Tiki card is played)"),
    ("trump", NUM_SUITS, "trump suit of the current trick, one-hot"),
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
    ("tricks_won", MAX_PLAYERS, "tricks won this round per relative seat / 8"),
    ("played", NUM_CARD_TYPES, "cards played this round by card type (as `hand`)"),
    (
        "voids",
        MAX_PLAYERS * NUM_SUITS,
        "relative seat r showed it lacks suit s this round: index 4r+s",
    ),
    (
        "announced",
        MAX_PLAYERS * 3,
        "per relative seat one-hot (undecided, did not announce, announced no tricks)",
    ),
    ("phase", len(PHASE_NAMES), "phase one-hot: " + ", ".join(PHASE_NAMES)),
    (
        "pending",
        len(PENDING_NAMES),
        "what follows a dolphin decision, one-hot: " + ", ".join(PENDING_NAMES),
    ),
    ("round", 1, f"(round - 1) / {ROUND_SCALE}, capped at 1"),
    ("trick_number", 1, "tricks completed this round / 8"),
    ("ocean_cards", 1, "ocean cards left in the route / 12"),
    ("seats", MAX_PLAYERS, "relative seat exists at this table (1 for r < P)"),
    ("to_act", 1, "1 when the observer is the player to act"),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OFFSETS[_name] = (_o, _o + _size)
    _o += _size
OBS_DIM: int = _o

_CARD_SCALE = np.ones(NUM_CARD_TYPES, dtype=np.float32)
_CARD_SCALE[NUM_TIKI] = 1.0 / NUM_KANALOA
_CARD_SCALE[NUM_TIKI + 1] = 1.0 / NUM_OCTOPUS
# TRICK_FEATURES of card type c at row c + 1; row 0 is "no card".
_TRICK_TABLE = np.zeros((NUM_CARD_TYPES + 1, len(TRICK_FEATURES)), dtype=np.float32)
for _c in range(NUM_CARD_TYPES):
    _row = _TRICK_TABLE[_c + 1]
    _row[0] = 1.0
    if _c < NUM_TIKI:
        _row[1 + _c // 12] = 1.0
        _row[5] = (_c % 12) / 11.0
    else:
        _row[6 if _c == NUM_TIKI else 7] = 1.0
_ANNOUNCE_TABLE = np.eye(3, dtype=np.float32)  # rows for -1, 0, 1 (shifted by one)
_VOID_TABLE = ((np.arange(16)[:, None] >> np.arange(NUM_SUITS)) & 1).astype(np.float32)


def _field_table(deck_color: np.ndarray, dolphin: np.ndarray, start: np.ndarray) -> np.ndarray:
    """FIELD_FEATURES as the bits of one byte, for key `2 * code + occupied`; the last
    key (2 * 2K) is an empty field (past the lap)."""
    n = len(deck_color)
    table = np.zeros(2 * n + 1, dtype=np.uint8)
    for code in range(n):
        for occ in (0, 1):
            bits = 1 | 1 << (1 + int(deck_color[code]))
            bits |= int(dolphin[code]) << 5 | int(start[code]) << 6 | occ << 7
            table[2 * code + occ] = bits
    return table


_FIELD_TABLES: dict[int, np.ndarray] = {}
_EYE5 = np.eye(MAX_PLAYERS, dtype=np.float32)
_SUIT_ROWS = np.eye(NUM_SUITS + 1, NUM_SUITS, dtype=np.float32)  # row -1 (the last) = no suit
_PHASE_ROWS = np.eye(len(PHASE_NAMES), dtype=np.float32)
_PENDING_ROWS = np.eye(len(PENDING_NAMES), dtype=np.float32)
# Hand-word bits of a played card type (Tiki only; index 0 is "no card").
_PLAYED_WORD = np.array([0] + [1 << c for c in range(NUM_TIKI)] + [0, 0], dtype=np.uint64)
# Words with the first k Kanaloa / octopus bits set: counts go through the same unpacking.
_KANALOA_FILL = np.array([((1 << k) - 1) << NUM_TIKI for k in range(NUM_KANALOA + 1)], np.uint64)
_OCTOPUS_FILL = np.array(
    [((1 << k) - 1) << (NUM_TIKI + NUM_KANALOA) for k in range(NUM_OCTOPUS + 1)], np.uint64
)
# Per-seat slices and their width per seat: seats past the table size are zero.
_PER_SEAT = (
    ("trick", len(TRICK_FEATURES)),
    ("boats", 1),
    ("progress", 1),
    ("tricks_won", 1),
    ("voids", NUM_SUITS),
    ("announced", 3),
)


def _padding_slices(num_players: int) -> list[tuple[int, int]]:
    """Column ranges of the per-seat slices that belong to seats past the table size."""
    if num_players == MAX_PLAYERS:
        return []
    return [
        (OFFSETS[name][0] + num_players * width, OFFSETS[name][0] + MAX_PLAYERS * width)
        for name, width in _PER_SEAT
    ]


_PAD_SLICES = {p: _padding_slices(p) for p in range(3, MAX_PLAYERS + 1)}
_ROTATIONS = {p: (np.arange(p)[:, None] + np.arange(p)) % p for p in range(3, MAX_PLAYERS + 1)}
_SEAT_ROWS = {p: (np.arange(MAX_PLAYERS) < p).astype(np.float32) for p in range(3, MAX_PLAYERS + 1)}


def _write_card_counts(words: np.ndarray, dst: np.ndarray) -> None:
    """(b,) uint64 hand bit sets -> `dst` (b, 50) card-type values (see `hand`)."""
    w = np.ascontiguousarray(words, dtype="<u8")
    bits = np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    dst[:, :NUM_TIKI] = bits[:, :NUM_TIKI]
    dst[:, NUM_TIKI] = np.bitwise_count(w & KANALOA_BITS) * (1.0 / NUM_KANALOA)
    dst[:, NUM_TIKI + 1] = np.bitwise_count(w & OCTOPUS_BITS) * (1.0 / NUM_OCTOPUS)


def _slice(name: str) -> slice:
    a, b = OFFSETS[name]
    return slice(a, b)


_S = {name: _slice(name) for name in OFFSETS}


def observe(
    state: State, seat: np.ndarray | int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Encode each game from one player's point of view.

    Args:
        state: a batch of `B` games.
        seat: (B,) ints or one int: whose view; default each game's player to act
            (seat 0 for games that are over).
        out: optional (B, OBS_DIM) float32 array to write into (every entry is written).

    Returns:
        (B, OBS_DIM) float32 observations (layout: `OBS_LAYOUT`, docs/observation.md).
    """
    B, P = state.batch_size, state.num_players
    if seat is None:
        me = np.maximum(state.current_player, 0).astype(np.intp)
    else:
        me = np.asarray(seat).astype(np.intp)
        if me.ndim == 0:
            me = np.full(B, me, dtype=np.intp)
        elif me.shape != (B,):
            raise ValueError(f"seat must be an int or a ({B},) array, got shape {me.shape}")
        if ((me < 0) | (me >= P)).any():
            raise ValueError(f"seat must be in 0..{P - 1}, got {seat!r}")
    if out is None:
        out = np.empty((B, OBS_DIM), dtype=np.float32)
    elif out.shape != (B, OBS_DIM) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({B}, {OBS_DIM})")
    if B <= _CHUNK:
        _encode(state, me, out)
        return out
    # Chunks keep the output rows in cache while the slices are written.
    arrays = state.arrays()
    for lo in range(0, B, _CHUNK):
        hi = min(lo + _CHUNK, B)
        part = State(state.config, **{k: v[lo:hi] for k, v in arrays.items()})
        _encode(part, me[lo:hi], out[lo:hi])
    return out


_CHUNK = 1024


def _encode(state: State, me: np.ndarray, out: np.ndarray) -> None:
    """Write the observations of seats `me` (B,) into `out` (B, OBS_DIM)."""
    B, P = state.batch_size, state.num_players
    F = state.config.route_fields
    S = _S
    # Gathers go through .take on flat indices: much faster than 2-d fancy indexing.
    rows = np.arange(B)
    col = rows[:, None]
    # Integer % is slow in numpy; seat rotations come from small tables instead.
    rot = _ROTATIONS[P]
    abs_of = rot.take(me, axis=0)  # (B, P) absolute seat of each relative seat
    leader_rel = state.leader - me
    leader_rel += P * (leader_rel < 0)
    by_rel = col * P + abs_of  # flat index of (game, absolute seat) per relative seat
    for a, b in _PAD_SLICES[P]:
        out[:, a:b] = 0.0

    # Own hand and the cards played this round, unpacked together.
    hist = state.history
    H = hist.shape[1]
    words = np.empty((B, 2), dtype=np.uint64)
    words[:, 0] = state.hands.take(rows * P + me)
    played = _PLAYED_WORD.take(hist + 1)
    while played.shape[1] > 1:  # pairwise OR: faster than a reduction along short rows
        half = played.shape[1] // 2
        odd = played[:, 2 * half :]
        played = played[:, :half] | played[:, half : 2 * half]
        if odd.shape[1]:
            played[:, :1] |= odd
    words[:, 1] = played[:, 0]
    words[:, 1] |= _KANALOA_FILL.take((hist == NUM_TIKI).sum(axis=1))
    words[:, 1] |= _OCTOPUS_FILL.take((hist == NUM_TIKI + 1).sum(axis=1))
    _write_card_counts(words[:, 0], out[:, S["hand"]])
    _write_card_counts(words[:, 1], out[:, S["played"]])

    # The card each relative seat played to the current trick (play order j from the leader).
    tn = state.trick_number.astype(np.intp)
    order = rot.take(P - leader_rel - P * (leader_rel == 0), axis=0)  # play order per rel seat
    slot = np.minimum(tn[:, None] * P + order, H - 1)
    in_trick = order < (state.num_played - tn * P)[:, None]
    cards = np.where(in_trick, hist.take(col * H + slot) + 1, 0)
    a = OFFSETS["trick"][0]
    out[:, a : a + P * len(TRICK_FEATURES)] = _TRICK_TABLE.take(cards, axis=0).reshape(B, -1)
    out[:, S["trick_leader"]] = _EYE5.take(leader_rel, axis=0)
    out[:, S["lead_suit"]] = _SUIT_ROWS.take(state.lead_suit, axis=0, mode="wrap")
    out[:, S["trump"]] = _SUIT_ROWS.take(state.trump, axis=0)

    # Route from the own boat's field forward; removed cards skipped (compacted).
    own_field = state.boat_field.take(rows * P + me).astype(np.intp)
    offs = own_field[:, None] + np.arange(F)
    flat = col * F + offs - F * (offs >= F)
    pres = (state.present.repeat(2, axis=1)).take(flat)
    pos = np.where(pres, pres.cumsum(axis=1) - 1, MAX_FIELDS)
    occ = np.zeros((B, F), dtype=np.int8)
    occ.reshape(-1)[(col * F + state.boat_field).reshape(-1)] = 1
    deck = state.config.deck
    table = _FIELD_TABLES.get(id(deck))
    if table is None:
        table = _FIELD_TABLES[id(deck)] = _field_table(deck.color, deck.dolphin, deck.start)
    keys = np.full((B, MAX_FIELDS + 1), len(table) - 1, dtype=np.intp)
    vals = 2 * state.route.take(flat).astype(np.intp) + occ.take(flat)
    keys.reshape(-1)[(col * (MAX_FIELDS + 1) + pos).reshape(-1)] = vals.reshape(-1)
    field_bytes = table.take(keys[:, :MAX_FIELDS])  # (B, 24) uint8: 8 features as bits
    out[:, S["route"]] = np.unpackbits(field_bytes, axis=1, bitorder="little")

    prog = state.progress.take(by_rel)  # (B, P) by relative seat
    diff = prog - prog[:, :1]
    lap = 2 * state.present.sum(axis=1)
    a = OFFSETS["boats"][0]
    ahead = diff + lap[:, None] * (diff < 0)
    wrap = (ahead < 0) | (ahead >= lap[:, None])  # only after a boat lapped (game over)
    if wrap.any():
        ahead[wrap] = (diff % lap[:, None])[wrap]
    out[:, a : a + P] = ahead * (1.0 / MAX_FIELDS)
    a = OFFSETS["progress"][0]
    out[:, a : a + P] = diff * (1.0 / MAX_FIELDS)
    rest = diff[:, 1:]
    a = OFFSETS["lapping"][0]
    out[:, a] = lap * (1.0 / MAX_FIELDS)
    out[:, a + 1] = (lap + 1 + rest.min(axis=1)) * (1.0 / MAX_FIELDS)
    out[:, a + 2] = (lap + 1 - rest.max(axis=1)) * (1.0 / MAX_FIELDS)
    a = OFFSETS["tricks_won"][0]
    out[:, a : a + P] = state.tricks_won.take(by_rel) * (1.0 / TRICKS_PER_ROUND)
    a = OFFSETS["voids"][0]
    voids = _VOID_TABLE.take(state.voids.take(by_rel), axis=0)
    out[:, a : a + P * NUM_SUITS] = voids.reshape(B, -1)
    a = OFFSETS["announced"][0]
    announced = _ANNOUNCE_TABLE.take(state.announced.take(by_rel) + 1, axis=0)
    out[:, a : a + P * 3] = announced.reshape(B, -1)
    out[:, S["phase"]] = _PHASE_ROWS.take(state.phase, axis=0)
    out[:, S["pending"]] = _PENDING_ROWS.take(state.pending, axis=0)
    a = OFFSETS["round"][0]
    out[:, a] = np.minimum((state.round - 1) * (1.0 / ROUND_SCALE), 1.0)
    out[:, a + 1] = tn * (1.0 / TRICKS_PER_ROUND)
    out[:, a + 2] = lap * (1.0 / (2 * MAX_OCEAN_CARDS))
    out[:, S["seats"]] = _SEAT_ROWS[P]
    out[:, OFFSETS["to_act"][0]] = (state.current_player == me) & (state.phase != _GAME_OVER)


_GAME_OVER = int(Phase.GAME_OVER)


def decode(vector: np.ndarray) -> dict[str, object]:
    """Turn one observation vector (OBS_DIM,) into a readable dict for notebooks.

    Cards and suits come back by name, the route as a list of field dicts, the
    rest as arrays sliced per `OBS_LAYOUT`.
    """
    from .constants import CARD_NAMES, SUIT_NAMES

    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (OBS_DIM,):
        raise ValueError(f"decode expects one vector of shape ({OBS_DIM},), got {v.shape}")
    part = {name: v[a:b] for name, (a, b) in OFFSETS.items()}
    hand = part["hand"] * (1.0 / _CARD_SCALE)
    played = part["played"] * (1.0 / _CARD_SCALE)

    def cards(counts: np.ndarray) -> list[str]:
        return [CARD_NAMES[c] for c in range(NUM_CARD_TYPES) for _ in range(int(round(counts[c])))]

    trick = part["trick"].reshape(MAX_PLAYERS, len(TRICK_FEATURES))

    def trick_card(row: np.ndarray) -> str:
        if row[6] > 0.5:
            return "kanaloa"
        if row[7] > 0.5:
            return "octopus"
        return f"{SUIT_NAMES[int(np.argmax(row[1:5]))]}-{int(round(row[5] * 11)) + 1}"

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

    seats = int(part["seats"].sum())
    return {
        "hand": cards(hand),
        "trick": {r: trick_card(trick[r]) for r in range(seats) if trick[r][0] > 0.5},
        "trick_leader_rel": int(np.argmax(part["trick_leader"])),
        "lead_suit": onehot("lead_suit", SUIT_NAMES),
        "trump": onehot("trump", SUIT_NAMES),
        "route": route,
        "boats_ahead_rel": (part["boats"][:seats] * MAX_FIELDS).round().astype(int).tolist(),
        "progress_rel": (part["progress"][:seats] * MAX_FIELDS).round().astype(int).tolist(),
        "lap_length": int(round(part["lapping"][0] * MAX_FIELDS)),
        "fields_to_lap_last": int(round(part["lapping"][1] * MAX_FIELDS)),
        "fields_until_lapped": int(round(part["lapping"][2] * MAX_FIELDS)),
        "tricks_won_rel": (part["tricks_won"][:seats] * TRICKS_PER_ROUND)
        .round()
        .astype(int)
        .tolist(),
        "played_this_round": cards(played),
        "voids_rel": {
            r: [SUIT_NAMES[s] for s in range(NUM_SUITS) if part["voids"][4 * r + s] > 0.5]
            for r in range(seats)
        },
        "announced_rel": [
            (None, False, True)[int(np.argmax(part["announced"][3 * r : 3 * r + 3]))]
            for r in range(seats)
        ],
        "phase": onehot("phase", PHASE_NAMES),
        "pending": onehot("pending", PENDING_NAMES),
        "round_scaled": float(part["round"][0]),
        "trick_number": int(round(part["trick_number"][0] * TRICKS_PER_ROUND)),
        "ocean_cards": int(round(part["ocean_cards"][0] * MAX_OCEAN_CARDS)),
        "num_players": seats,
        "to_act": bool(part["to_act"][0] > 0.5),
    }


def layout_markdown() -> str:
    """The text of docs/observation.md, generated from `OBS_LAYOUT`."""
    lines = [
        "# Observation layout",
        "",
        "Generated from `kanaloa_env.core.observation.OBS_LAYOUT` by",
        "`python -m kanaloa_env.core.observation > docs/observation.md`; a test checks it is current.",
        "",
        f"A float32 vector of length **{OBS_DIM}**, the same for 3, 4 and 5 players. Seats are",
        "relative to the observer (0 = self, 1 = next in turn order, ...; seats past the table",
        "size are 0). `kanaloa_env.core.observation.decode(v)` turns a vector into a dict.",
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
