"""R6-R9 on the route: free fields, boat moves, the dolphin, card removal, lapping, trump.

The rules are per-game kernels (`c` the config's `Rules`, `s` the state's `Arrays`,
`g` the game); the step, the mask and the observation call them inside compiled
code. Fields are in slot coordinates (see `state.py`): slot `n` holds one ocean card
and the fields `2n, 2n+1` in sailing order; a removed card's slot stays, marked
not present. The functions at the end run a kernel on the games `idx` of a batch,
for Python callers (scenarios, the invariant checker, the heuristic bot).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from ..kernels import kernel, popcount, small_kernel
from .constants import MAX_OCEAN_CARDS, MIN_ROUTE_CARDS
from .state import State

# ---- fields and boats ------------------------------------------------------------


@small_kernel
def field_present(s, g, f):  # type: ignore[no-untyped-def]
    """Whether field `f`'s ocean card is still in the route.
    `s` is the state's arrays (`Arrays`) and `g` the game's row."""
    return (s.present_slots[g] >> (f >> 1)) & 1 == 1


@small_kernel
def lap_fields(s, g):  # type: ignore[no-untyped-def]
    """Fields in one lap of the current route (R9.1): two per ocean card left.
    `s` is the state's arrays (`Arrays`) and `g` the game's row."""
    return 2 * popcount(np.int64(s.present_slots[g]))


@small_kernel
def other_boat_on(c, s, g, f, seat):  # type: ignore[no-untyped-def]
    """Whether a boat other than `seat`'s stands on field `f` (R6.1).
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    for p in range(c.num_players):
        if p != seat and s.boat_field[g, p] == f:
            return True
    return False


@small_kernel
def slot_free(c, s, g, slot):  # type: ignore[no-untyped-def]
    """R6.1: no boat stands on either field of the ocean card in `slot`.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    for p in range(c.num_players):
        if s.boat_field[g, p] >> 1 == slot:
            return False
    return True


@small_kernel
def next_present(c, s, g, f):  # type: ignore[no-untyped-def]
    """The first field after `f` in sailing order whose card is in the route.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    F = c.route_fields
    for _ in range(F):
        f = f + 1 if f + 1 < F else 0
        if field_present(s, g, f):
            break
    return f


@small_kernel
def previous_present(c, s, g, f):  # type: ignore[no-untyped-def]
    """The last field before `f` in sailing order whose card is in the route.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    F = c.route_fields
    for _ in range(F):
        f = f - 1 if f > 0 else F - 1
        if field_present(s, g, f):
            break
    return f


# ---- moves, lapping, the dolphin ---------------------------------------------------


@kernel
def move_forward(c, s, g, seat):  # type: ignore[no-untyped-def]
    """R6.2: move boat `seat` to the next free field, skipping occupied ones; return it.

    Progress grows by the fields sailed: every present field passed, plus the one
    landed on. The boat's own field counts as free, so on a route with no other
    free field it sails a whole lap (which then laps the last boat, R9.2).
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row.
    """
    start = s.boat_field[g, seat]
    f = start
    sailed = 0
    for _ in range(c.route_fields):
        f = next_present(c, s, g, f)
        sailed += 1
        if f == start or not other_boat_on(c, s, g, f, seat):
            break
    s.boat_field[g, seat] = f
    s.progress[g, seat] += sailed
    return f


@small_kernel
def has_lapped(c, s, g, seat):  # type: ignore[no-untyped-def]
    """R9.2: boat `seat` is more than one lap of the current route ahead of the last boat.

    (The last *other* boat can be replaced by the last boat: they differ only when
    `seat` alone is last, and then no difference exceeds a lap.)
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row.
    """
    least = s.progress[g, 0]
    for p in range(1, c.num_players):
        least = min(least, s.progress[g, p])
    return s.progress[g, seat] - least > lap_fields(s, g)


@kernel
def dolphin_eligible(c, s, g, seat):  # type: ignore[no-untyped-def]
    """R6.3: boat `seat` stands on a dolphin and the fields directly behind and ahead
    of it (the nearest ones still in the route) are free.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    f = s.boat_field[g, seat]
    if not c.dolphin[s.route[g, f]]:
        return False
    ahead = next_present(c, s, g, f)
    behind = previous_present(c, s, g, f)
    return not other_boat_on(c, s, g, ahead, seat) and not other_boat_on(c, s, g, behind, seat)


# ---- removal -----------------------------------------------------------------------


@kernel
def can_remove(c, s, g):  # type: ignore[no-untyped-def]
    """R4.4, R7.2: some ocean card is free and more than three remain.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    if popcount(np.int64(s.present_slots[g])) <= MIN_ROUTE_CARDS:
        return False
    for slot in range(c.route_cards):
        if (s.present_slots[g] >> slot) & 1 and slot_free(c, s, g, slot):
            return True
    return False


@kernel
def removable(c, s, g, seat):  # type: ignore[no-untyped-def]
    """Bit k set when the ocean card `k` places ahead of `seat`'s boat may be removed
    (actions 50..61): `k = 0` is the first card in the route fully ahead of the card
    the boat stands on. A card may go when it is free (R6.1) and more than three
    cards remain (R7.2).
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    N = c.route_cards
    if popcount(np.int64(s.present_slots[g])) <= MIN_ROUTE_CARDS:
        return 0
    own = s.boat_field[g, seat] >> 1
    bits = 0
    k = 0
    for j in range(1, N):
        slot = (own + j) % N
        if (s.present_slots[g] >> slot) & 1:
            if slot_free(c, s, g, slot):
                bits |= 1 << k
            k += 1
    return bits


@kernel
def slot_ahead(c, s, g, seat, k):  # type: ignore[no-untyped-def]
    """The slot of the present ocean card `k` places ahead of `seat`'s boat.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    N = c.route_cards
    own = s.boat_field[g, seat] >> 1
    for j in range(1, N):
        slot = (own + j) % N
        if (s.present_slots[g] >> slot) & 1:
            if k == 0:
                return slot
            k -= 1
    return -1


@kernel
def remove_slot(c, s, g, slot):  # type: ignore[no-untyped-def]
    """Remove the (free) ocean card in `slot` from the route (R9.1).

    Progress is measured from the last boat: every boat beyond the removed card
    (between the last boat and itself) loses the card's two fields, so each gap
    shrinks by two exactly when the card lay on it and progress differences stay
    the forward distances along the new route.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row.
    """
    F = c.route_fields
    last = 0  # the lowest progress, the lowest seat among equals
    for p in range(1, c.num_players):
        if s.progress[g, p] < s.progress[g, last]:
            last = p
    least = s.progress[g, last]
    # Present fields from just after the last boat up to the card's first field.
    after = s.boat_field[g, last] + 1
    span = (2 * slot - after) % F
    card_dist = 0
    for j in range(span + 1):
        if field_present(s, g, (after + j) % F):
            card_dist += 1
    for p in range(c.num_players):
        if s.progress[g, p] - least > card_dist:
            s.progress[g, p] -= 2
    s.present[g, slot] = False
    s.present_slots[g] = s.present_slots[g] & ~(np.int64(1) << slot)


# ---- the leading boat and trump ----------------------------------------------------


@small_kernel
def leading_seat(c, s, g):  # type: ignore[no-untyped-def]
    """R8.1: the boat furthest ahead (the lowest seat among equals; ties only occur
    on the start field).
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    best = 0
    for p in range(1, c.num_players):
        if s.progress[g, p] > s.progress[g, best]:
            best = p
    return best


@small_kernel
def trump_of(c, s, g):  # type: ignore[no-untyped-def]
    """R8.2: the colour of the field under the leading boat.
    `c` is the config's kernel rules (`Rules`), `s` the state's arrays (`Arrays`) and `g`
    the game's row."""
    return c.color[s.route[g, s.boat_field[g, leading_seat(c, s, g)]]]


# ---- for Python callers: a kernel on the games `idx` of a batch ----------------------


class _Query(IntEnum):
    """What `_at_games` runs in each game: the kernel of the same name."""

    MOVE_FORWARD = 0
    HAS_LAPPED = 1
    DOLPHIN_ELIGIBLE = 2
    CAN_REMOVE = 3
    REMOVABLE = 4
    SLOT_AHEAD = 5
    REMOVE_SLOT = 6
    LEADING_SEAT = 7
    TRUMP_OF = 8
    LAP_FIELDS = 9


@kernel
def _at_games(what, c, s, idx, seat, arg, out):  # type: ignore[no-untyped-def]
    for i in range(len(idx)):
        g = idx[i]
        if what == _Query.MOVE_FORWARD:
            out[i] = move_forward(c, s, g, seat[i])
        elif what == _Query.HAS_LAPPED:
            out[i] = has_lapped(c, s, g, seat[i])
        elif what == _Query.DOLPHIN_ELIGIBLE:
            out[i] = dolphin_eligible(c, s, g, seat[i])
        elif what == _Query.CAN_REMOVE:
            out[i] = can_remove(c, s, g)
        elif what == _Query.REMOVABLE:
            out[i] = removable(c, s, g, seat[i])
        elif what == _Query.SLOT_AHEAD:
            out[i] = slot_ahead(c, s, g, seat[i], arg[i])
        elif what == _Query.REMOVE_SLOT:
            remove_slot(c, s, g, arg[i])
        elif what == _Query.LEADING_SEAT:
            out[i] = leading_seat(c, s, g)
        elif what == _Query.TRUMP_OF:
            out[i] = trump_of(c, s, g)
        elif what == _Query.LAP_FIELDS:
            out[i] = lap_fields(s, g)


def _run(
    what: _Query,
    state: State,
    idx: np.ndarray,
    seat: np.ndarray | None = None,
    arg: np.ndarray | None = None,
) -> np.ndarray:
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    zeros = np.zeros(len(idx), dtype=np.int64)
    seats = zeros if seat is None else np.broadcast_to(np.asarray(seat, dtype=np.int64), idx.shape)
    args = zeros if arg is None else np.broadcast_to(np.asarray(arg, dtype=np.int64), idx.shape)
    out = np.zeros(len(idx), dtype=np.int64)
    _at_games(int(what), state.config.rules, state.kernel_arrays(), idx, seats, args, out)
    return out


def move_forward_at(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """`move_forward` in games `idx` (b,) for seats `seat` (b,), in place; (b,) fields landed on.
    `state` is the batch of games."""
    return _run(_Query.MOVE_FORWARD, state, idx, seat).astype(np.int8)


def has_lapped_at(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: `has_lapped` in games `idx` for seats `seat`.
    `state` is the batch of games."""
    return _run(_Query.HAS_LAPPED, state, idx, seat).astype(bool)


def dolphin_eligible_at(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: `dolphin_eligible` in games `idx` for seats `seat`.
    `state` is the batch of games."""
    return _run(_Query.DOLPHIN_ELIGIBLE, state, idx, seat).astype(bool)


def can_remove_at(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) bool: `can_remove` in games `idx`.
    `state` is the batch of games."""
    return _run(_Query.CAN_REMOVE, state, idx).astype(bool)


def removable_ahead(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b, 12) bool: whether the ocean card `k` places ahead of `seat`'s boat may be
    removed, in games `idx` (`removable`).
    `state` is the batch of games."""
    bits = _run(_Query.REMOVABLE, state, idx, seat)
    return ((bits[:, None] >> np.arange(MAX_OCEAN_CARDS)) & 1).astype(bool)


def slot_ahead_at(state: State, idx: np.ndarray, seat: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(b,) the slot of the present card `k` places ahead of `seat`'s boat in games `idx`.
    `state` is the batch of games."""
    return _run(_Query.SLOT_AHEAD, state, idx, seat, k)


def remove_slot_at(state: State, idx: np.ndarray, slot: np.ndarray) -> None:
    """`remove_slot` in games `idx` (b,) for the (free) slots `slot` (b,), in place.
    `state` is the batch of games."""
    _run(_Query.REMOVE_SLOT, state, idx, None, slot)


def leading_seat_at(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) the leading boat's seat (R8.1) in games `idx`.
    `state` is the batch of games."""
    return _run(_Query.LEADING_SEAT, state, idx)


def trump_at(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int8 trump (R8.2) in games `idx`.
    `state` is the batch of games."""
    return _run(_Query.TRUMP_OF, state, idx).astype(np.int8)


def lap_length(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int32: fields in one lap of the current route (R9.1) in games `idx`.
    `state` is the batch of games."""
    return _run(_Query.LAP_FIELDS, state, idx).astype(np.int32)
