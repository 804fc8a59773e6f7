"""The observation: one fixed-length float32 vector per (game, player).

`OBS_LAYOUT` is the single table that drives the encoder, `decode()` and the
generated `docs/observation.md`. Seats are relative to the observer (0 = self,
1 = next in turn order, ...), padded to 5 so 3, 4 and 5 players share a length.
The route is read from the observer's boat forward. Only what the observer may
know is encoded: own hand and public information, never another hand or a
future deal.

How it is fast: the vector is 52 blocks of 8 floats. Each of the first 50 blocks
is a function of one small integer per game (a byte of a card bit set, a card
type, a route field's deck code and whether a boat stands on it, a seat's
voids/announcement/tricks, ...), so the encoder computes a (B, 52) array of row
numbers into one precomputed float table and writes the whole observation with a
single `np.take`. The last two blocks (distances along the route) are computed as
numbers and appended to that table as two rows per game. The route is read in
sailing order through a table of field orders per set of remaining ocean cards.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..batch import check_positive_int
from .config import Config
from .constants import (
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
from .route import LAP_FIELDS, local_index, max_seats, min_seats
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

# ---- the block table -------------------------------------------------------------
# Block k covers floats [8k, 8k + 8). The encoder below writes the blocks in this
# order; the checks pin the layout it relies on.
_HAND, _PLAYED, _SPECIALS, _TRUMP, _DECISION, _LEADER = 0, 6, 12, 13, 14, 15
_TRICK, _SEATS, _ROUTE, _TAIL, _NUM_BLOCKS = 16, 21, 26, 50, 52
assert OBS_DIM == _NUM_BLOCKS * BLOCK
assert OFFSETS["specials"][0] == _SPECIALS * BLOCK and OFFSETS["lead_suit"][1] == _TRUMP * BLOCK
assert OFFSETS["trump"][0] == _TRUMP * BLOCK and OFFSETS["rules"][1] == _DECISION * BLOCK
assert OFFSETS["decision"][0] == _DECISION * BLOCK and OFFSETS["to_act"][1] == _LEADER * BLOCK
assert OFFSETS["trick_leader"][0] == _LEADER * BLOCK and OFFSETS["table_size"][1] == _TRICK * BLOCK
assert OFFSETS["seats"][0] == _SEATS * BLOCK and OFFSETS["route"][0] == _ROUTE * BLOCK
assert OFFSETS["boats"][0] == _TAIL * BLOCK


def _bits_rows() -> np.ndarray:
    """Row v: the 8 bits of byte v, lowest first (hand/played bytes, route fields)."""
    return ((np.arange(256)[:, None] >> np.arange(BLOCK)) & 1).astype(np.float32)


def _card_rows() -> np.ndarray:
    """Row 0: no card; row c + 1: TRICK_FEATURES of card type c."""
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
    """Row voids + 16 * (announced + 1) + 48 * tricks_won; the last row (432) is a
    seat past the table size."""
    rows = np.zeros((16 * 3 * (TRICKS_PER_ROUND + 1) + 1, BLOCK), dtype=np.float32)
    for v in range(16):
        for a in range(3):
            for t in range(TRICKS_PER_ROUND + 1):
                row = rows[v + 16 * a + 48 * t]
                row[:4] = (v >> np.arange(4)) & 1
                row[4 + a] = 1.0
                row[7] = t / TRICKS_PER_ROUND
    return rows


def _specials_rows() -> np.ndarray:
    """Row h + 32 * p + 1024 * (lead_suit + 1): h and p are the special-card bits
    (3 Kanaloa, then 2 octopus copies) of the own hand and of the played set."""
    rows = np.zeros((32 * 32 * (NUM_SUITS + 1), BLOCK), dtype=np.float32)
    for h in range(32):
        for p in range(32):
            for lead in range(NUM_SUITS + 1):
                row = rows[h + 32 * p + 1024 * lead]
                row[0] = bin(h & 7).count("1") / NUM_KANALOA
                row[1] = bin(h >> 3).count("1") / NUM_OCTOPUS
                row[2] = bin(p & 7).count("1") / NUM_KANALOA
                row[3] = bin(p >> 3).count("1") / NUM_OCTOPUS
                if lead:
                    row[4 + lead - 1] = 1.0
    return rows


def _trump_rows() -> np.ndarray:
    """Row trump + 4 * flags: flags bit j is RULE_FLAGS[j]."""
    rows = np.zeros((NUM_SUITS * 16, BLOCK), dtype=np.float32)
    for trump in range(NUM_SUITS):
        for flags in range(16):
            row = rows[trump + NUM_SUITS * flags]
            row[trump] = 1.0
            row[4:] = (flags >> np.arange(4)) & 1
    return rows


def _decision_rows() -> np.ndarray:
    """Row decision + 7 * to_act."""
    rows = np.zeros((2 * len(DECISIONS), BLOCK), dtype=np.float32)
    for d in range(len(DECISIONS)):
        for to_act in (0, 1):
            rows[d + len(DECISIONS) * to_act, d] = 1.0
            rows[d + len(DECISIONS) * to_act, 7] = to_act
    return rows


def _leader_rows() -> np.ndarray:
    """Row leader + 5 * (num_players - 3)."""
    rows = np.zeros((MAX_PLAYERS * 3, BLOCK), dtype=np.float32)
    for size in range(3):
        for leader in range(MAX_PLAYERS):
            rows[leader + MAX_PLAYERS * size, leader] = 1.0
            rows[leader + MAX_PLAYERS * size, MAX_PLAYERS + size] = 1.0
    return rows


def _stack(parts: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, int]]:
    """One table of all parts and each part's first row."""
    bases, at = {}, 0
    for name, rows in parts.items():
        bases[name] = at
        at += len(rows)
    return np.concatenate(list(parts.values())), bases


# The first rows belong to the route fields, keyed 2 * deck field code + occupied, and
# depend on the ocean deck: `_tables_of` fills them in per deck (all zero here; the
# last, `_NO_FIELD`, stays zero: a place past one lap).
_NO_FIELD = 4 * MAX_OCEAN_CARDS
# The bit rows start at row 256, so that a byte's row is 256 + byte: the encoder
# copies each byte into the low byte of its int16 code, whose high byte (1) the
# workspace sets once.
_TABLE, _BASE = _stack(
    {
        "route": np.zeros((256, BLOCK), dtype=np.float32),
        "bits": _bits_rows(),
        "card": _card_rows(),
        "seat": _seat_rows(),
        "specials": _specials_rows(),
        "trump": _trump_rows(),
        "decision": _decision_rows(),
        "leader": _leader_rows(),
    }
)
_TABLE.flags.writeable = False
_CARD_BASE = _BASE["card"]
_SEAT_BASE = _BASE["seat"]
_SEAT_PAD = _BASE["seat"] + 16 * 3 * (TRICKS_PER_ROUND + 1)
_SPECIALS_BASE = _BASE["specials"]
# The special-card bits (48..52) of the own hand and of the played set are the low
# bits of 16-bit words 3 and 7 of the two words; row h + 32 * p + 1024 * (lead + 1).
_SPECIAL_WEIGHTS = np.array([1, 32], dtype=np.uint16)
# Per suit to follow (index -1, no suit, is the last entry): the specials row base.
_LEAD_BASE = _SPECIALS_BASE + 1024 * np.array([1, 2, 3, 4, 0])
_BITS_BASE = _BASE["bits"]
assert _BITS_BASE == 256 > _NO_FIELD
# DECISIONS index + base per (phase, pending).
_DECISION_OF = np.zeros(len(Phase) * len(Pending), dtype=np.intp)
for _ph in Phase:
    for _pe in Pending:
        _d = {Phase.DOLPHIN: 4 + (_pe == Pending.PAYOUT), Phase.GAME_OVER: 6}.get(_ph, int(_ph))
        _DECISION_OF[int(_ph) * len(Pending) + int(_pe)] = _BASE["decision"] + _d
# The bytes of the own hand and played words (columns of a (B, 16) byte view) that hold
# Tiki cards, and the 16-bit words that hold the special copies (bits 48..52).
_LITTLE = sys.byteorder == "little"
_U16LE = np.dtype("<u2")  # (after the byte swap on big-endian machines)
_ROTATIONS = {p: (np.arange(p)[:, None] + np.arange(p)) % p for p in range(3, MAX_PLAYERS + 1)}
# Per table size, entry seat * 5 + me: `seat` relative to `me`, (seat - me) mod P.
_REL_SEAT = {
    p: np.array([(s - m) % p for s in range(MAX_PLAYERS) for m in range(MAX_PLAYERS)])
    for p in range(3, MAX_PLAYERS + 1)
}
# Per table size, row trick_number * 5 + leader_rel: the history slot (within the
# game's row) of each relative seat's card in that trick, clamped to the row.
_TRICK_SLOTS = {
    p: np.array(
        [
            [min(tn * p + (r - lead) % p, TRICKS_PER_ROUND * p - 1) for r in range(p)]
            for tn in range(TRICKS_PER_ROUND + 1)
            for lead in range(MAX_PLAYERS)
        ],
        dtype=np.intp,
    )
    for p in range(3, MAX_PLAYERS + 1)
}


def _field_bytes(deck_color: np.ndarray, dolphin: np.ndarray, start: np.ndarray) -> np.ndarray:
    """FIELD_FEATURES but `occupied` as the bits of one byte, per deck field code."""
    n = len(deck_color)
    table = np.zeros(n, dtype=np.uint8)
    for code in range(n):
        bits = 1 | 1 << (1 + int(deck_color[code]))
        table[code] = bits | int(dolphin[code]) << 5 | int(start[code]) << 6
    return table


_OCCUPIED = np.uint8(1 << 7)


def _route_order(cards: int) -> np.ndarray:
    """The route's fields in sailing order from a boat, for every route state.

    Row `present * F + field` (F = 2 * cards fields; bit n of `present` set when the
    card of slot n, fields 2n and 2n+1, is still in the route) lists, for k = 0..23,
    the field k places ahead of `field` counting only present fields. Past one lap,
    and in rows whose `field` is not present (no boat stands there), the entry is F,
    a spare column the encoder keeps at `_NO_FIELD`. int8, (2**cards * F, 24): 2.4
    MiB for 12 cards, built on first use.
    """
    table = _ORDERS.get(cards)
    if table is not None:
        return table
    F = 2 * cards
    sets = np.arange(1 << cards)
    present = ((sets[:, None] >> np.arange(cards)) & 1).repeat(2, axis=1).astype(bool)  # (S, F)
    lap = present.sum(axis=1)  # (S,)
    place = present.cumsum(axis=1) - 1  # a present field's index in the lap
    in_order = np.full((len(sets), F), F, dtype=np.int64)  # lap order -> field
    s, f = present.nonzero()
    in_order[s, place[s, f]] = f
    ahead = place[:, :, None] + np.arange(MAX_FIELDS)  # (S, F, 24) lap index k ahead
    ahead %= np.maximum(lap, 1)[:, None, None]
    table = np.take_along_axis(in_order[:, None, :], ahead, axis=2)
    past = np.arange(MAX_FIELDS) >= lap[:, None, None]
    table[past | ~present[:, :, None]] = F
    table = table.astype(np.int8).reshape(len(sets) * F, MAX_FIELDS)
    table.flags.writeable = False
    _ORDERS[cards] = table
    return table


_ORDERS: dict[int, np.ndarray] = {}


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
        threads: encode the batch in up to this many parts at once, on this thread
            and a shared pool. numpy releases the GIL inside its array loops, so with
            idle cores a large batch can be encoded faster, but the threads also
            contend for the GIL and for memory: on this project's 2-core VM, `python
            benchmarks/bench_core.py --batch-sizes 8192` went from about 0.85M to
            1.1M decisions/s with observations on 2 threads in a fast phase, while in
            a slower one 2 threads gave 0.40M-0.85M against 0.67M-0.73M on one.
            Measure on your machine. Batches under 2048 games per thread are not
            split. The result does not depend on it.

    Returns:
        (B, OBS_DIM) float32 observations (layout: `OBS_LAYOUT`, docs/observation.md).

    Raises:
        TypeError: `seat` is not an integer or an integer array.
        ValueError: `seat` of the wrong shape or out of 0..P-1, a bad `out`.
    """
    B, P = state.batch_size, state.num_players
    if threads != 1 or type(threads) is not int:
        threads = check_positive_int(threads, "threads")
    if seat is None:
        me = np.maximum(state.current_player, 0).astype(np.intp)
    else:
        me = np.asarray(seat)
        if me.dtype.kind not in "iu":  # (a float or a bool seat was once cast silently)
            raise TypeError(
                f"seat must be an int or a ({B},) integer array, got {seat!r:.60}"
                if me.ndim == 0
                else f"seat must be an int or a ({B},) integer array, got dtype {me.dtype}"
            )
        me = me.astype(np.intp)
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
    elif not out.flags.c_contiguous:  # the encoder writes whole rows as one block array
        out[...] = observe(state, me, threads=threads)
        return out
    parts = min(threads, B // _MIN_PER_THREAD)
    if parts <= 1 and B <= _CHUNK:
        _encode(state, me, out)
        return out
    # Chunks keep the temporaries in cache; with threads, each of `parts` groups of
    # chunks runs on its own thread (this one and the pool's).
    parts = max(parts, 1)
    chunks = -(-B // _CHUNK)
    n = parts * -(-chunks // parts)
    bounds = [B * i // n for i in range(n + 1)]
    arrays = state.arrays()
    jobs = [
        (State(state.config, **{k: v[lo:hi] for k, v in arrays.items()}), me[lo:hi], out[lo:hi])
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    groups = [jobs[i::parts] for i in range(parts)]
    pending = [_pool(parts - 1).submit(_encode_all, g) for g in groups[1:]]
    _encode_all(groups[0])
    for future in pending:
        future.result()
    return out


def _encode_all(jobs: list[tuple[State, np.ndarray, np.ndarray]]) -> None:
    for job in jobs:
        _encode(*job)


_CHUNK = 8192
_MIN_PER_THREAD = 2048
_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """The shared encoder pool, grown to at least `workers` threads."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or _POOL_SIZE < workers:
            old = _POOL
            _POOL = ThreadPoolExecutor(workers, thread_name_prefix="kanaloa-observe")
            _POOL_SIZE = workers
            if old is not None:
                old.shutdown(wait=False)  # its queued jobs still run
        return _POOL


def _forget_pool() -> None:
    # A forked child has none of the parent's threads: start a fresh pool there.
    global _POOL, _POOL_SIZE, _POOL_LOCK
    _POOL, _POOL_SIZE, _POOL_LOCK = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _encode(state: State, me: np.ndarray, out: np.ndarray) -> None:
    """Write the observations of seats `me` (B,) into the C-contiguous `out` (B, OBS_DIM)."""
    B, P = state.batch_size, state.num_players
    F = state.config.route_fields
    w = _workspace(state.config, B)
    codes = w.codes
    # Gathers go through .take on flat indices: much faster than 2-d fancy indexing.
    per_game = local_index(B, P)
    # Integer % is slow in numpy; seat rotations come from small tables instead.
    abs_of = _ROTATIONS[P].take(me, axis=0)  # (B, P) absolute seat of each relative seat
    by_rel = abs_of + per_game[:, None]  # flat index of (game, absolute seat) per relative seat
    own = per_game + me
    leader_rel = _REL_SEAT[P].take(me + state.leader * MAX_PLAYERS)

    # Own hand and the cards played this round: the Tiki bytes (bits 0..47 in bytes
    # 0-5 and 8-13 of the two words) index the bit rows; the special copies (bits
    # 48..52, the low bits of 16-bit words 3 and 7) go to the specials block with the
    # suit to follow.
    words = w.words
    state.hands.take(own, out=words[:, 0], mode="clip")
    words[:, 1] = state.played
    if not _LITTLE:
        words = words.byteswap()
    w8 = words.view(np.uint8).reshape(B, 2, 8)
    w.byte_codes[...] = w8[:, :, :6]  # rows 256 + byte (see _BITS_BASE)
    special = words.view(_U16LE)[:, 3::4] @ _SPECIAL_WEIGHTS  # own + 32 * played
    np.add(special, _LEAD_BASE.take(state.lead_suit), out=codes[:, _SPECIALS], casting="unsafe")
    np.add(state.trump, w.trump_base, out=codes[:, _TRUMP], dtype=np.int16)
    to_act = state.current_player == me  # (current_player is -1 once the game is over)
    decision = _DECISION_OF.take(state.phase * len(Pending) + state.pending)
    decision += 7 * to_act
    codes[:, _DECISION] = decision
    np.add(leader_rel, _BASE["leader"] + MAX_PLAYERS * (P - 3), out=codes[:, _LEADER])

    # The card each relative seat played to the current trick: its place in the play
    # order from the leader is (r - leader_rel) mod P. History slots past the cards
    # played hold -1 (no card); after the 8th trick no trick is open. (The columns
    # of seats past the table size are set once, in the workspace.)
    hist = state.history
    H = hist.shape[1]
    tn = state.trick_number.astype(np.intp)
    slot = _TRICK_SLOTS[P].take(tn * MAX_PLAYERS + leader_rel, axis=0)  # (B, P)
    slot += local_index(B, H)[:, None]
    card = hist.take(slot)  # int8 -1..49
    card += 1
    card *= (tn < TRICKS_PER_ROUND)[:, None]
    np.add(card, _CARD_BASE, out=codes[:, _TRICK : _TRICK + P], dtype=np.int16)

    # Per relative seat: voids, announcement, tricks won.
    seat_code = state.tricks_won.take(by_rel).astype(np.int16)
    seat_code *= 3
    seat_code += state.announced.take(by_rel)  # -1..1
    seat_code <<= 4  # 48 * tricks won + 16 * announced
    seat_code += state.voids.take(by_rel)
    np.add(seat_code, _SEAT_BASE + 16, out=codes[:, _SEATS : _SEATS + P])

    # Route from the own boat's field forward, removed cards skipped: each field's
    # key 2 * deck code + occupied (a row of the deck's part of the table), read in
    # the order `_route_order` gives for the game's present cards and own field; its
    # entry F is a spare column holding `_NO_FIELD`.
    keys = w.keys
    np.multiply(state.route, 2, out=keys[:, :F], dtype=np.int16)
    flat_keys = keys.reshape(-1)
    row = local_index(B, F + 1)
    boats = state.boat_field + row[:, None]  # (B, P) flat index of each boat's field
    flat_keys[boats] = flat_keys.take(boats) + 1
    key = state.present_slots.astype(np.intp)
    key *= F
    key += state.boat_field.take(own)
    # (mode="clip" on takes with `out`: the default mode copies `out` first, to keep it
    # on a bad index; these indices are valid by construction.)
    _route_order(F // 2).take(key, axis=0, out=w.order8, mode="clip")
    order = w.order
    np.add(w.order8, row[:, None], out=order)
    flat_keys.take(order, out=codes[:, _ROUTE:_TAIL], mode="clip")

    # The last two blocks, distances along the route, are numbers: integers written
    # into the table's two rows per game (which the last two codes of each game name,
    # so that the one `take` below writes every block of `out` in order) and divided
    # there in float32, which gives the correctly rounded quotient.
    lap = LAP_FIELDS.take(state.present_slots)  # int32, as progress
    prog = state.progress.take(by_rel)  # (B, P) int32 by relative seat
    diff = prog - prog[:, :1]
    ahead = diff + lap[:, None] * (diff < 0)
    # Outside 0..lap-1 only in a finished game, after a boat lapped: while a game goes
    # on, boats share a field only at the start (R2.3, R6.2), so none is a whole lap
    # ahead of another. Those few games take the slow remainder.
    over = (state.phase == _GAME_OVER).nonzero()[0]
    if over.size:
        ahead[over] = diff[over] % lap.take(over)[:, None]
    others = diff[:, 1:]
    lo, hi = min_seats(others), max_seats(others)
    tail = w.tail  # (B, 16) float32 view of those rows; seats past the table size stay 0
    tail[:, :P] = ahead
    tail[:, MAX_PLAYERS : MAX_PLAYERS + P] = diff
    tail[:, 10] = lap
    tail[:, 11] = lap + 1 + lo
    tail[:, 12] = lap + 1 - hi
    tail[:, 13] = state.trick_number
    tail[:, 14] = np.minimum(state.round - 1, ROUND_SCALE)
    tail[:, 15] = lap
    np.divide(tail, _TAIL_DIVISORS, out=tail)  # small integers are exact in float32

    w.table.take(codes, axis=0, out=out.reshape(B, _NUM_BLOCKS, BLOCK), mode="clip")


# Per float of the last two blocks (boats, progress, lapping, trick_number, round,
# ocean_cards): the divisor of its integer.
_TAIL_DIVISORS = np.array(
    [MAX_FIELDS] * 13 + [TRICKS_PER_ROUND, ROUND_SCALE, MAX_FIELDS], dtype=np.float32
)
assert OFFSETS["lapping"][0] == _TAIL * BLOCK + 10 and OFFSETS["round"][0] == _TAIL * BLOCK + 14
assert 2 * MAX_OCEAN_CARDS == MAX_FIELDS  # ocean_cards = lap / 24


def _tables_of(config: Config) -> tuple[np.ndarray, int]:
    """A copy of `_TABLE` with the route rows of the config's ocean deck filled in (row
    `2 * code + occupied` for each deck field code is the bit row of its FIELD_FEATURES
    byte), and the trump block's first row for the config's rule flags. Built once per
    `_Workspace`, which keeps the result."""
    d = config.deck
    fields = _field_bytes(d.color, d.dolphin, d.start)
    table = _TABLE.copy()
    table[0 : 2 * len(fields) : 2] = _TABLE[_BITS_BASE + fields.astype(np.intp)]
    table[1 : 2 * len(fields) : 2] = _TABLE[_BITS_BASE + (fields | _OCCUPIED).astype(np.intp)]
    flags = (
        config.nil_announcement,
        config.announced_boat_moves,
        config.dolphin == "optional",
        config.dolphin_chain,
    )
    trump_base = _BASE["trump"] + NUM_SUITS * sum(int(f) << j for j, f in enumerate(flags))
    return table, trump_base


class _Workspace:
    """The encoder's arrays for B games of one config, reused between calls: fresh
    arrays of this size cost page faults that weigh as much as the encoding. The
    parts that do not depend on the state are written once, here."""

    def __init__(self, config: Config, B: int) -> None:
        static, trump_base = _tables_of(config)
        P, F = config.num_players, config.route_fields
        self.trump_base = trump_base
        # The block table followed by two rows per game for the last two blocks.
        self.table = np.empty((len(static) + 2 * B, BLOCK), dtype=np.float32)
        self.table[: len(static)] = static
        self.codes = np.empty((B, _NUM_BLOCKS), dtype=np.int16)
        self.codes[:, _TRICK + P : _SEATS] = _CARD_BASE  # no card
        self.codes[:, _SEATS + P : _ROUTE] = _SEAT_PAD
        self.codes[:, _TAIL:] = (np.arange(2 * B) + len(static)).reshape(B, 2)
        self.codes[:, _HAND:_SPECIALS] = _BITS_BASE
        # The low bytes of the hand and played codes, as (B, 2, 6): hand, played.
        low = 0 if _LITTLE else 1
        self.byte_codes = self.codes.view(np.uint8)[:, 2 * _HAND + low : 2 * _SPECIALS : 2]
        self.byte_codes = self.byte_codes.reshape(B, 2, 6)
        assert np.shares_memory(self.byte_codes, self.codes)
        self.words = np.empty((B, 2), dtype=np.uint64)
        self.keys = np.empty((B, F + 1), dtype=np.int16)
        self.keys[:, F] = _NO_FIELD
        self.order8 = np.empty((B, MAX_FIELDS), dtype=np.int8)
        self.order = np.empty((B, MAX_FIELDS), dtype=np.intp)
        self.tail = self.table[len(static) :].reshape(B, 2 * BLOCK)
        self.tail[:] = 0


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


_GAME_OVER = int(Phase.GAME_OVER)


def decode(vector: np.ndarray) -> dict[str, object]:
    """Turn one observation vector (OBS_DIM,) into a readable dict for notebooks.

    Cards and suits come back by name, the route as a list of field dicts, seats
    relative to the observer, the rest as numbers.
    """
    from .constants import CARD_NAMES

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
