"""R6-R9 on the route: free fields, boat moves, the dolphin, card removal, lapping, trump.

Every function works on the games `idx` (int array) of a batch at once; `seat` is
one seat per game in `idx`. Fields are in slot coordinates (see `state.py`).

How it is fast (the step calls these on thousands of games every decision):

- A game's route is a bit set in one int64: bit `n` of a *slot set* for slot `n`,
  bits `f` of a *field set* for field `f` (`F = 2N <= 24`); the state keeps the
  present slots as one (`State.present_slots`). A move, the dolphin
  test or a removal is then a dozen whole-batch integer operations. Sets are often
  *doubled* (`x | x << F`: bits `f` and `f + F` both stand for field `f`), so "the
  first field after `pos`" is a lowest set bit at or above `pos + 1`, with no
  wrap-around.
- Per-game values are gathered with `take` (which flattens the array) and written
  through `flat` on flat indices (`idx * P + seat`); two-dimensional fancy
  indexing costs several times more.
- numpy reduces a short axis (`x.min(axis=1)` on (b, P)) at ~40 ns a row, ten
  times a whole-column operation, so above `_SMALL` games the seat-axis
  reductions loop over the P columns; below it one call is cheaper.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .constants import MAX_OCEAN_CARDS, MIN_ROUTE_CARDS
from .state import State

_SMALL = 32  # games up to which one numpy reduction call beats a loop over the seats


@cache
def const(value: int, dtype: type = np.int64) -> np.ndarray:
    """`value` as a read-only one-element array of `dtype`, an operand numpy need not
    convert: a Python or numpy scalar operand is converted anew on every call, which
    costs as much as the operation itself on a few games."""
    out: np.ndarray = np.array([value], dtype=dtype)
    out.flags.writeable = False
    return out


_ZERO, _ONE, _TWO = const(0), const(1), const(2)
# By the number of seats P: (P, P) int8, row s 64 in column s, 0 elsewhere.
_EXCLUDED = tuple(np.eye(p, dtype=np.int8) * np.int8(64) for p in range(9))


def flat(x: np.ndarray) -> np.ndarray:
    """A 1-d view of a C-contiguous array, to assign on flat indices (`put` is
    several times slower on large batches; reads need no view: `take` flattens).

    Raises AttributeError instead of silently copying when `x` is not contiguous.
    """
    if not x.flags.c_contiguous:
        raise AttributeError("flat needs a C-contiguous array (it would copy)")
    return x.ravel()  # (a view here; cheaper than setting a view's shape)


# ---- reductions over the seat axis of (b, P) arrays -----------------------------


def _fold_seats(x: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """(b, P) -> (b,) `ufunc` folded over the seats: column by column at large b,
    where numpy's reduction along a short axis is several times slower."""
    if len(x) <= _SMALL:
        return ufunc.reduce(x, axis=1)
    out = ufunc(x[:, 0], x[:, 1])
    for p in range(2, x.shape[1]):
        ufunc(out, x[:, p], out=out)
    return out


def or_seats(x: np.ndarray) -> np.ndarray:
    """(b, P) -> (b,) bitwise or over the seats."""
    return _fold_seats(x, np.bitwise_or)


def min_seats(x: np.ndarray) -> np.ndarray:
    """(b, P) -> (b,) minimum over the seats."""
    return _fold_seats(x, np.minimum)


def max_seats(x: np.ndarray) -> np.ndarray:
    """(b, P) -> (b,) maximum over the seats."""
    return _fold_seats(x, np.maximum)


# ---- bit sets of the route -------------------------------------------------------


@cache
def _spread_table(n: int) -> np.ndarray:
    """(2**n,) int64: slot set -> field set (slot k -> fields 2k, 2k+1)."""
    sets = np.arange(2**n, dtype=np.int64)
    out = np.zeros(2**n, dtype=np.int64)
    for k in range(n):
        out |= ((sets >> k) & 1) * (3 << (2 * k))
    return out


def _rank_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables over 6-bit and 12-bit sets for `_compress` and `_select`.

    `pext6[m * 64 + x]`: the bits of `x` at the set positions of `m`, packed down;
    `pop6[m]`: bits set in `m`; `select12[m * 12 + k]`: position of the k-th set bit
    of `m` (0 when there is none).
    """
    m = np.arange(64)
    x = np.arange(64)
    pext6 = np.zeros((64, 64), dtype=np.int64)
    rank = np.zeros(64, dtype=np.int64)
    for i in range(6):
        on = (m >> i) & 1
        pext6 |= (on[:, None] * ((x[None, :] >> i) & 1)) << rank[:, None]
        rank += on
    sets = np.arange(4096)
    select12 = np.zeros((4096, 12), dtype=np.int8)
    seen = np.zeros(4096, dtype=np.int64)
    for i in range(12):
        on = ((sets >> i) & 1).astype(bool)
        select12[sets[on], seen[on]] = i
        seen += on
    return pext6.ravel(), rank, select12.ravel()


_PEXT6, _POP6, _SELECT12 = _rank_tables()


def _compress(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(b,) int64: the bits of 12-bit sets `x` at the set positions of `m`, packed down."""
    lo = (m & 63) << 6
    hi = (m >> 6) << 6
    return _PEXT6.take(lo | (x & 63)) | (_PEXT6.take(hi | (x >> 6)) << _POP6.take(m & 63))


def _select(m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(b,) int8: position of the k-th set bit (k from 0) of 12-bit sets `m`."""
    return _SELECT12.take(m * 12 + k)


def slot_bits(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int64 slot set of the ocean cards still in the route (`State.present_slots`)."""
    return state.present_slots.take(idx).astype(np.int64)


def present_bits(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int64 field set of the fields whose ocean card is still in the route."""
    return _spread_table(state.config.route_cards).take(state.present_slots.take(idx))


def occupied_bits(state: State, idx: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """(b,) int64 field set of fields some boat stands on (R6.1), not counting seat `exclude`."""
    fields = state.boat_field.take(idx, axis=0)
    if exclude is not None:
        # Seat `exclude`'s field moved out of range: numpy shifts it out to 0.
        fields = fields + _EXCLUDED[state.num_players].take(exclude, axis=0)
    return or_seats(_ONE << fields)


def _occupied_slots(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int64 slot set of the ocean cards a boat stands on (not free, R6.1)."""
    return or_seats(_ONE << (state.boat_field.take(idx, axis=0) >> const(1, np.int8)))


_LOCAL_INDEX: dict[tuple[int, int], np.ndarray] = {}


def local_index(b: int, n: int) -> np.ndarray:
    """A cached read-only `np.arange(b) * n`: flat index of row i's first entry in a (b, n) array."""
    out = _LOCAL_INDEX.get((b, n))
    if out is None:
        if len(_LOCAL_INDEX) > 256:
            _LOCAL_INDEX.clear()
        out = _LOCAL_INDEX[(b, n)] = np.arange(b, dtype=np.intp) * n
        out.flags.writeable = False
    return out


def flat_index(b: int, n: int, col: np.ndarray) -> np.ndarray:
    """(b,) flat indices `i * n + col[i]`: one entry per row of a (b, n) array.

    At b == 1 that is `col` itself (returned, not copied: do not write to it), one
    numpy call fewer where each call is the whole cost.
    """
    return col if b == 1 else local_index(b, n) + col


def seat_index(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) flat indices of (game, seat) in the (B, P) arrays.

    In a batch of one game `idx` can only be [0]: then `seat` itself (returned, not
    copied), one numpy call fewer where each call is the whole cost.
    """
    return seat if len(state.phase) == 1 else idx * const(state.num_players) + seat


def _highest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each positive int64 (< 2**53)."""
    return np.frexp(x.astype(np.float64))[1] - const(1, np.int32)


# ---- moves, lapping, the dolphin ---------------------------------------------------


# Fields in one lap (R9.1) per slot set of present ocean cards (`State.present_slots`).
# int32, the dtype of `State.progress` that it is compared with.
LAP_FIELDS = (2 * np.bitwise_count(np.arange(1 << MAX_OCEAN_CARDS))).astype(np.int32)
LAP_FIELDS.flags.writeable = False


def lap_length(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int32: fields in one lap of the current route (R9.1)."""
    return LAP_FIELDS.take(state.present_slots.take(idx))


def move_forward(
    state: State, idx: np.ndarray, seat: np.ndarray, pres: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Move boat `seat` to the next free field, skipping occupied ones (R6.2), in place.

    Progress grows by the fields sailed: every present field passed, plus the one
    landed on. The boat's own field counts as free, so on a route with no other free
    field it sails a whole lap (which then laps the last boat). `pres` is the games'
    `present_bits` when the caller has them.

    Returns (fields, others): the (b,) fields the boats landed on and the (b,) field
    sets the other boats occupy, for a following `dolphin_eligible`.
    """
    F = const(state.config.route_fields)
    fi = seat_index(state, idx, seat)
    pos = state.boat_field.take(fi)
    if pres is None:
        pres = present_bits(state, idx)
    others = occupied_bits(state, idx, exclude=seat)
    free = pres & ~others
    start = _TWO << pos  # the field after the boat's, as a one-bit set
    ahead = (free | free << F) & -start  # doubled: free fields from pos + 1 on
    land = ahead & -ahead  # its lowest bit: where the boat lands
    sailed = np.bitwise_count((pres | pres << F) & (land + land - start))
    # (a remainder, not a masked in-place update: those are slow)
    to = np.bitwise_count(land - _ONE) % const(state.config.route_fields, np.uint8)
    flat(state.boat_field)[fi] = to
    flat(state.progress)[fi] += sailed
    return to, others


def has_lapped(
    state: State, idx: np.ndarray, seat: np.ndarray, pres: np.ndarray | None = None
) -> np.ndarray:
    """(b,) bool: boat `seat` is more than one lap ahead of the last other boat (R9.2)."""
    # The last *other* boat can be replaced by the last boat: they differ only when
    # `seat` alone is last, and then neither difference exceeds a lap.
    own = state.progress.take(seat_index(state, idx, seat))
    lap = lap_length(state, idx) if pres is None else np.bitwise_count(pres)
    return own - min_seats(state.progress.take(idx, axis=0)) > lap


def dolphin_eligible(
    state: State,
    idx: np.ndarray,
    seat: np.ndarray,
    pres: np.ndarray | None = None,
    moved: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """(b,) bool: boat `seat` stands on a dolphin with the fields behind and ahead free (R6.3).

    "Behind" and "ahead" are the nearest fields still in the route. `pres` and
    `moved` (what `move_forward` returned) are for callers that have them.
    """
    F = const(state.config.route_fields)
    if moved is None:
        pos = state.boat_field.take(seat_index(state, idx, seat))
        occ = None
    else:
        pos, occ = moved
    on = state.config.deck.dolphin.take(state.route.take(idx * F + pos))
    d = on.nonzero()[0]
    if d.size == 0:
        return on
    if d.size < len(idx):  # test only the boats on a dolphin
        pos = pos.take(d)
        if pres is None or occ is None:
            idx, seat = idx.take(d), seat.take(d)
        pres = None if pres is None else pres.take(d)
        occ = None if occ is None else occ.take(d)
    if pres is None:
        pres = present_bits(state, idx)
    pres2 = pres | pres << F
    if occ is None:
        occ = occupied_bits(state, idx, exclude=seat)
    at = _ONE << pos  # the boat's field, as a one-bit set
    ahead = pres2 & -(at + at)
    nxt = ahead & -ahead  # the next present field, doubled coordinates
    prv = _highest_bit(pres2 & ((at << F) - _ONE))  # the previous one
    # Both free: neither is a field of another boat (doubled: F apart, same field).
    ok = ((occ | occ << F) & (nxt | _ONE << prv)) == _ZERO
    if len(d) == len(on):
        return ok
    on[d] = ok
    return on


# ---- removal -----------------------------------------------------------------------


def _ahead_sets(
    state: State, idx: np.ndarray, seat: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slot sets rotated so bit j is the slot j + 1 places after `seat`'s own card.

    Returns (ahead, shift, present): the (b,) rotated present set (bits 0..N-2,
    the own card dropped), the (b,) rotation `own + 1` that maps slot sets to it,
    and the (b,) unrotated slot set.
    """
    N = state.config.route_cards
    own = state.boat_field.take(seat_index(state, idx, seat)) >> 1
    shift = own.astype(np.int64) + 1
    pres = slot_bits(state, idx)
    return ((pres | pres << N) >> shift) & ((1 << (N - 1)) - 1), shift, pres


def removable_bits(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) int64: bit k set when the ocean card `k` places ahead of `seat`'s boat may go.

    `k = 0` is the first card in the route fully ahead of the card the boat stands
    on (DESIGN.md actions 50..61). A card may go when it is free (R6.1) and more
    than three cards remain (R7.2).
    """
    N = state.config.route_cards
    ahead, shift, pres = _ahead_sets(state, idx, seat)
    free = pres & ~_occupied_slots(state, idx)
    free = ((free | free << N) >> shift) & ahead
    free *= np.bitwise_count(pres) > MIN_ROUTE_CARDS
    return _compress(free, ahead)


def removable_ahead(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b, 12) bool: whether the ocean card `k` places ahead of `seat`'s boat may be removed.

    See `removable_bits`.
    """
    bits = removable_bits(state, idx, seat)
    return ((bits[:, None] >> np.arange(12)) & 1).astype(bool)


def can_remove(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) bool: some ocean card is free and more than three remain (R4.4, R7.2)."""
    pres = slot_bits(state, idx)
    free = pres & ~_occupied_slots(state, idx)
    return (free != 0) & (np.bitwise_count(pres) > MIN_ROUTE_CARDS)


def slot_ahead(state: State, idx: np.ndarray, seat: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(b,) int: slot of the present ocean card `k` places ahead of `seat`'s boat."""
    N = state.config.route_cards
    ahead, shift, _ = _ahead_sets(state, idx, seat)
    slot = _select(ahead, k) + shift
    slot -= (slot >= N) * N
    return slot


def remove_slot(state: State, idx: np.ndarray, slot: np.ndarray) -> None:
    """Remove the (free) ocean card in `slot` from the route, in place (R9.1).

    Progress is measured from the last boat: every boat beyond the removed card
    (between the last boat and itself) loses the card's two fields, so each gap
    shrinks by two exactly when the card lay on it and progress differences stay
    the forward distances along the new route.
    """
    F, P, N = state.config.route_fields, state.num_players, state.config.route_cards
    prog = state.progress.take(idx, axis=0)
    # The last boat: the lowest progress, the lowest seat among equals (as argmin);
    # progress stays far below 2**28, so 8 * progress fits the int32.
    key = min_seats(prog * 8 + _SEATS[:P])
    after = state.boat_field.take(idx * P + (key & 7)) + 1  # field after it
    pres = present_bits(state, idx)
    # Present fields from just after the last boat up to the card's first field.
    d = 2 * slot - after
    d += (d < 0) * F
    card_dist = np.bitwise_count(((pres | pres << F) >> after) & ((2 << d) - 1))
    # Boats beyond the card (from the last boat) lose its two fields.
    prog -= 2 * ((prog - (key >> 3)[:, None]) > card_dist[:, None])
    flat(state.progress)[(idx * P)[:, None] + _SEATS[:P]] = prog
    flat(state.present)[idx * N + slot] = False
    state.present_slots[idx] &= ~np.left_shift(np.uint16(1), slot.astype(np.uint16))


_SEATS = np.arange(8, dtype=np.int32)


def leading_seat(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int: the boat furthest ahead (R8.1); ties only occur on the start field."""
    prog = state.progress.take(idx, axis=0)
    if len(idx) <= _SMALL:
        return prog.argmax(axis=1)  # (np.argmax adds a Python wrapper)
    # The highest progress, the lowest seat among equals (as argmax). Progress stays
    # far below 2**28 (a lap is at most 24 fields a trick), so 8 * progress fits.
    prog *= 8
    prog += _SEAT_KEYS[: prog.shape[1]]
    return 7 - (max_seats(prog) & 7)


_SEAT_KEYS = (7 - np.arange(8)).astype(np.int32)


def trump_of(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int8: colour of the field under the leading boat (R8.2)."""
    F = const(state.config.route_fields)
    field = state.boat_field.take(seat_index(state, idx, leading_seat(state, idx)))
    return state.config.deck.color.take(state.route.take(idx * F + field))
