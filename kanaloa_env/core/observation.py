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
    MAX_OCEAN_CARDS,
    MAX_PLAYERS,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
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
# Bits of a byte as 8 floats: the hand's 53 bits unpack with one gather.
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)
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
    """FIELD_FEATURES for key `2 * code + occupied`; the last row (key 2 * 2K) is all 0."""
    n = len(deck_color)
    table = np.zeros((2 * n + 1, len(FIELD_FEATURES)), dtype=np.float32)
    for code in range(n):
        for occ in (0, 1):
            row = table[2 * code + occ]
            row[0] = 1.0
            row[1 + deck_color[code]] = 1.0
            row[5] = dolphin[code]
            row[6] = start[code]
            row[7] = occ
    return table


_FIELD_TABLES: dict[int, np.ndarray] = {}


def _card_counts(words: np.ndarray) -> np.ndarray:
    """(b,) uint64 hand bit sets -> (b, 50) float32 card-type values (see `hand`)."""
    w = words.astype("<u8", copy=False)
    bits = _BYTE_BITS[w.view(np.uint8).reshape(-1, 8)].reshape(-1, 64)
    out = bits[:, :NUM_CARD_TYPES].copy()
    out[:, NUM_TIKI] = bits[:, 48:51].sum(axis=1) / NUM_KANALOA
    out[:, NUM_TIKI + 1] = bits[:, 51:53].sum(axis=1) / NUM_OCTOPUS
    return out


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
    F = state.config.route_fields
    if seat is None:
        me = np.maximum(state.current_player, 0).astype(np.intp)
    else:
        me = np.broadcast_to(np.asarray(seat), (B,)).astype(np.intp)
        if ((me < 0) | (me >= P)).any():
            raise ValueError(f"seat must be in 0..{P - 1}, got {seat!r}")
    if out is None:
        out = np.empty((B, OBS_DIM), dtype=np.float32)
    elif out.shape != (B, OBS_DIM) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({B}, {OBS_DIM})")
    rows = np.arange(B)
    col = rows[:, None]
    abs_of = (me[:, None] + np.arange(P)) % P  # (B, P) absolute seat of each relative seat

    def sl(name: str) -> np.ndarray:
        a, b = OFFSETS[name]
        return out[:, a:b]

    def per_seat(name: str, values: np.ndarray, width: int = 1) -> None:
        """Write (B, P, width) values and zero the padding seats P..4."""
        dst = sl(name).reshape(B, MAX_PLAYERS, width)
        dst[:, :P] = values.reshape(B, P, width)
        dst[:, P:] = 0.0

    sl("hand")[:] = _card_counts(state.hands[rows, me])

    # The card each relative seat played to the current trick (play order j from the leader).
    tn = state.trick_number.astype(np.intp)
    n_in_trick = state.num_played.astype(np.intp) - tn * P
    order = (abs_of - state.leader[:, None]) % P
    slot = np.minimum(tn[:, None] * P + order, state.history.shape[1] - 1)
    cards = np.where(order < n_in_trick[:, None], state.history[col, slot] + 1, 0)
    per_seat("trick", _TRICK_TABLE[cards], len(TRICK_FEATURES))
    leader_rel = (state.leader - me) % P
    onehot = np.eye(MAX_PLAYERS, dtype=np.float32)
    sl("trick_leader")[:] = onehot[leader_rel]
    suits = np.eye(NUM_SUITS + 1, NUM_SUITS, dtype=np.float32)  # row -1 (last) is "none"
    sl("lead_suit")[:] = suits[state.lead_suit]
    sl("trump")[:] = suits[state.trump]

    # Route from the own boat's field forward; removed cards skipped (compacted).
    own_field = state.boat_field[rows, me].astype(np.intp)
    offs = (own_field[:, None] + np.arange(F)) % F
    pres = np.repeat(state.present, 2, axis=1)[col, offs]
    pos = np.where(pres, np.cumsum(pres, axis=1) - 1, F)
    occ = np.zeros((B, F + 1), dtype=bool)
    occ[col, state.boat_field] = True
    deck = state.config.deck
    table = _FIELD_TABLES.get(id(deck))
    if table is None:
        table = _FIELD_TABLES[id(deck)] = _field_table(deck.color, deck.dolphin, deck.start)
    empty = len(table) - 1
    keys = np.full((B, F + 1), empty, dtype=np.intp)
    keys[col, pos] = 2 * state.route[col, offs] + occ[col, offs]
    route = sl("route").reshape(B, MAX_FIELDS, len(FIELD_FEATURES))
    route[:, :F] = table[keys[:, :F]]
    route[:, F:] = 0.0

    prog = state.progress
    own = prog[rows, me]
    lap = 2 * state.present.sum(axis=1)
    diff = prog[col, abs_of] - own[:, None]  # (B, P) by relative seat
    per_seat("boats", (diff % lap[:, None]) / MAX_FIELDS)
    per_seat("progress", diff / MAX_FIELDS)
    rest = diff[:, 1:]
    lapping = sl("lapping")
    lapping[:, 0] = lap / MAX_FIELDS
    lapping[:, 1] = (lap + 1 + rest.min(axis=1)) / MAX_FIELDS
    lapping[:, 2] = (lap + 1 - rest.max(axis=1)) / MAX_FIELDS
    per_seat("tricks_won", state.tricks_won[col, abs_of] / TRICKS_PER_ROUND)

    hist = state.history.astype(np.int64)
    tiki = np.bitwise_or.reduce(
        np.left_shift(1, hist, where=(hist >= 0) & (hist < NUM_TIKI), out=np.zeros_like(hist)),
        axis=1,
    )
    played = _card_counts(tiki.astype(np.uint64))
    played[:, NUM_TIKI] = (hist == NUM_TIKI).sum(axis=1) / NUM_KANALOA
    played[:, NUM_TIKI + 1] = (hist == NUM_TIKI + 1).sum(axis=1) / NUM_OCTOPUS
    sl("played")[:] = played
    per_seat("voids", _VOID_TABLE[state.voids[col, abs_of]], NUM_SUITS)
    per_seat("announced", _ANNOUNCE_TABLE[state.announced[col, abs_of] + 1], 3)
    sl("phase")[:] = np.eye(len(PHASE_NAMES), dtype=np.float32)[state.phase]
    sl("pending")[:] = np.eye(len(PENDING_NAMES), dtype=np.float32)[state.pending]
    sl("round")[:, 0] = np.minimum((state.round - 1) / ROUND_SCALE, 1.0)
    sl("trick_number")[:, 0] = tn / TRICKS_PER_ROUND
    sl("ocean_cards")[:, 0] = lap / (2 * MAX_OCEAN_CARDS)
    sl("seats")[:] = np.arange(MAX_PLAYERS) < P
    sl("to_act")[:, 0] = (state.current_player == me) & (state.phase != Phase.GAME_OVER)
    return out


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
