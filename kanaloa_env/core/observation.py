"""The observation: one fixed-length float32 vector per (game, player).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation.md`. Seats are relative to the observer (0 = self,
1 = next in turn order, ...), padded to 5 so 3, 4 and 5 players share a length.
The route is read from the observer's boat forward. Only what the observer may
know is encoded: own hand and public information, never another hand or a
future deal.
"""

from __future__ import annotations

import sys

import numpy as np

from .constants import (
    HAND_SIZE,
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
# Per route field: present, 4 colours, dolphin, start, then which relative seats stand there.
FIELD_FEATURES = ("present", "blue", "red", "green", "turquoise", "dolphin", "start") + tuple(
    f"boat_rel{r}" for r in range(MAX_PLAYERS)
)
ROUND_SCALE = 20  # rounds past this read as 1.0

# (name, size, meaning). Order is the vector's order.
OBS_LAYOUT: tuple[tuple[str, int, str], ...] = (
    (
        "hand",
        NUM_CARD_TYPES,
        "own hand by card type (DESIGN.md action order); Tiki 0/1, Kanaloa count/3, octopus count/2",
    ),
    (
        "trick_cards",
        MAX_PLAYERS * NUM_CARD_TYPES,
        "current trick: for relative seat r, a one-hot card type at [50r, 50r+50)",
    ),
    ("trick_leader", MAX_PLAYERS, "relative seat that led (or leads) the current trick, one-hot"),
    ("lead_suit", NUM_SUITS, "suit to follow, one-hot (all 0 before a Tiki card is played)"),
    ("trump", NUM_SUITS, "trump suit of the current trick, one-hot"),
    (
        "route",
        MAX_FIELDS * len(FIELD_FEATURES),
        "route fields from the own boat's field (k=0) forward, 12 features each: "
        + ", ".join(FIELD_FEATURES)
        + "; fields past one lap are 0",
    ),
    ("progress", MAX_PLAYERS, "progress of each relative seat minus own progress, / 24"),
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

_LITTLE = sys.byteorder == "little"
_CARD_SCALE = np.ones(NUM_CARD_TYPES, dtype=np.float32)
_CARD_SCALE[NUM_TIKI] = 1.0 / NUM_KANALOA
_CARD_SCALE[NUM_TIKI + 1] = 1.0 / NUM_OCTOPUS


def _card_counts(words: np.ndarray) -> np.ndarray:
    """(b,) uint64 hand bit sets -> (b, 50) float32 card-type values (see `hand`)."""
    w = words if _LITTLE else words.byteswap()
    bits = np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    out = np.empty((len(words), NUM_CARD_TYPES), dtype=np.float32)
    out[:, :NUM_TIKI] = bits[:, :NUM_TIKI]
    out[:, NUM_TIKI] = bits[:, 48:51].sum(axis=1)
    out[:, NUM_TIKI + 1] = bits[:, 51:53].sum(axis=1)
    return out * _CARD_SCALE


def observe(
    state: State, seat: np.ndarray | int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Encode each game from one player's point of view.

    Args:
        state: a batch of `B` games.
        seat: (B,) ints or one int: whose view; default each game's player to act
            (seat 0 for games that are over).
        out: optional (B, OBS_DIM) float32 array to write into.

    Returns:
        (B, OBS_DIM) float32 observations (layout: `OBS_LAYOUT`, docs/observation.md).
    """
    B, P = state.batch_size, state.num_players
    F = state.config.route_fields
    if seat is None:
        me = np.maximum(state.current_player, 0).astype(np.intp)
    else:
        me = np.broadcast_to(np.asarray(seat, dtype=np.intp), (B,))
        if ((me < 0) | (me >= P)).any():
            raise ValueError(f"seat must be in 0..{P - 1}")
    if out is None:
        out = np.zeros((B, OBS_DIM), dtype=np.float32)
    else:
        if out.shape != (B, OBS_DIM) or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape ({B}, {OBS_DIM})")
        out[...] = 0
    rows = np.arange(B)
    seats = np.arange(P)
    rel_of = (seats[None, :] - me[:, None]) % P  # (B, P) relative seat of each absolute seat
    abs_of = (me[:, None] + seats[None, :]) % P  # (B, P) absolute seat of each relative seat

    def sl(name: str) -> np.ndarray:
        a, b = OFFSETS[name]
        return out[:, a:b]

    sl("hand")[:] = _card_counts(state.hands[rows, me])

    trick = sl("trick_cards")
    n_in_trick = state.num_played.astype(np.intp) - state.trick_number.astype(np.intp) * P
    base = state.trick_number.astype(np.intp) * P
    for j in range(P):
        has = np.flatnonzero(n_in_trick > j)
        if has.size:
            card = state.history[has, base[has] + j]
            rel = rel_of[has, (state.leader[has] + j) % P]
            trick[has, rel * NUM_CARD_TYPES + card] = 1.0
    sl("trick_leader")[rows, rel_of[rows, state.leader]] = 1.0
    led = np.flatnonzero(state.lead_suit >= 0)
    sl("lead_suit")[led, state.lead_suit[led]] = 1.0
    sl("trump")[rows, state.trump] = 1.0

    # Route from the own boat's field forward, present fields only.
    offs = (state.boat_field[rows, me].astype(np.intp)[:, None] + np.arange(F)) % F
    pres = np.repeat(state.present, 2, axis=1)[rows[:, None], offs]
    order = np.argsort(~pres, axis=1, kind="stable")
    fld = offs[rows[:, None], order]  # (B, F): present fields first, in sailing order
    valid = np.take_along_axis(pres, order, axis=1)
    code = state.route[rows[:, None], fld]
    deck = state.config.deck
    occ = np.zeros((B, F), dtype=np.uint8)
    for p in range(P):
        occ[rows, state.boat_field[:, p]] |= np.left_shift(1, rel_of[:, p]).astype(np.uint8)
    feats = np.zeros((B, MAX_FIELDS, len(FIELD_FEATURES)), dtype=np.float32)
    f = feats[:, :F]
    f[..., 0] = valid
    color = deck.color[code]
    for c in range(NUM_SUITS):
        f[..., 1 + c] = (color == c) & valid
    f[..., 5] = deck.dolphin[code] & valid
    f[..., 6] = deck.start[code] & valid
    occ_f = occ[rows[:, None], fld]
    for r in range(P):
        f[..., 7 + r] = ((occ_f >> r) & 1) & valid
    sl("route")[:] = feats.reshape(B, -1)

    prog = state.progress.astype(np.float32)
    own = prog[rows, me]
    sl("progress")[:, :P] = (prog[rows[:, None], abs_of] - own[:, None]) / MAX_FIELDS
    lap = 2.0 * state.present.sum(axis=1)
    others = prog.copy()
    others[rows, me] = np.inf
    last = others.min(axis=1)
    others[rows, me] = -np.inf
    lead = others.max(axis=1)
    lapping = sl("lapping")
    lapping[:, 0] = lap / MAX_FIELDS
    lapping[:, 1] = (lap + 1 - (own - last)) / MAX_FIELDS
    lapping[:, 2] = (lap + 1 - (lead - own)) / MAX_FIELDS
    sl("tricks_won")[:, :P] = state.tricks_won[rows[:, None], abs_of] / TRICKS_PER_ROUND
    hist = state.history.astype(np.intp)
    flat = (rows[:, None] * NUM_CARD_TYPES + hist)[hist >= 0]
    counts = np.bincount(flat, minlength=B * NUM_CARD_TYPES).reshape(B, NUM_CARD_TYPES)
    sl("played")[:] = counts * _CARD_SCALE
    voids = state.voids[rows[:, None], abs_of]
    v = sl("voids").reshape(B, MAX_PLAYERS, NUM_SUITS)
    for s_ in range(NUM_SUITS):
        v[:, :P, s_] = (voids >> s_) & 1
    ann = sl("announced").reshape(B, MAX_PLAYERS, 3)
    a_rel = state.announced[rows[:, None], abs_of].astype(np.intp) + 1
    ann[rows[:, None], seats[None, :], a_rel] = 1.0
    sl("phase")[rows, state.phase] = 1.0
    sl("pending")[rows, state.pending] = 1.0
    sl("round")[:, 0] = np.minimum((state.round - 1) / ROUND_SCALE, 1.0)
    sl("trick_number")[:, 0] = state.trick_number / TRICKS_PER_ROUND
    sl("ocean_cards")[:, 0] = state.present.sum(axis=1) / MAX_OCEAN_CARDS
    sl("seats")[:, :P] = 1.0
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

    trick = part["trick_cards"].reshape(MAX_PLAYERS, NUM_CARD_TYPES)
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
                "boats_rel": [r for r in range(MAX_PLAYERS) if row[7 + r] > 0.5],
            }
        )

    def onehot(name: str, names: tuple[str, ...]) -> str | None:
        x = part[name]
        return names[int(np.argmax(x))] if x.max() > 0.5 else None

    seats = int(part["seats"].sum())
    return {
        "hand": cards(hand),
        "trick": {
            r: CARD_NAMES[int(np.argmax(trick[r]))] for r in range(seats) if trick[r].max() > 0.5
        },
        "trick_leader_rel": int(np.argmax(part["trick_leader"])),
        "lead_suit": onehot("lead_suit", SUIT_NAMES),
        "trump": onehot("trump", SUIT_NAMES),
        "route": route,
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
        "hand_size_max": HAND_SIZE,
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
