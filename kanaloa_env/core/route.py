"""R6-R9 on the route: free fields, boat moves, the dolphin, card removal, lapping, trump.

Every function works on the games `idx` (int array) of a batch at once; `seat` is
one seat per game in `idx`. Fields are in slot coordinates (see `state.py`).
"""

from __future__ import annotations

import numpy as np

from .constants import MIN_ROUTE_CARDS
from .state import State


def field_present(state: State, idx: np.ndarray) -> np.ndarray:
    """(b, F) bool: the field's ocean card is still in the route."""
    return np.repeat(state.present[idx], 2, axis=1)


def present_bits(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int64 bit set of the fields whose ocean card is still in the route."""
    return state.present[idx] @ _slot_field_bits(state.config.route_cards)


def _slot_field_bits(n: int) -> np.ndarray:
    return np.array([3 << (2 * k) for k in range(n)], dtype=np.int64)


def boat_bits(fields: np.ndarray) -> np.ndarray:
    """(b, P) field indices -> (b, P) int64 one-bit sets."""
    return np.left_shift(np.int64(1), fields.astype(np.int64))


def occupied_bits(state: State, idx: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """(b,) int64 bit set of fields some boat stands on (R6.1), not counting seat `exclude`."""
    bits = boat_bits(state.boat_field[idx])
    if exclude is not None:
        bits[np.arange(len(idx)), exclude] = 0
    return np.bitwise_or.reduce(bits, axis=1)


def _rotate(x: np.ndarray, shift: np.ndarray, n: int) -> np.ndarray:
    """Rotate n-bit sets right by `shift` (0..n): bit j of the result is bit (j + shift) % n."""
    return ((x >> shift) | (x << (n - shift))) & ((1 << n) - 1)


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each positive int64 (< 2**53)."""
    return np.frexp((x & -x).astype(np.float64))[1] - 1


def _highest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each positive int64 (< 2**53)."""
    return np.frexp(x.astype(np.float64))[1] - 1


def occupied_slots(state: State, idx: np.ndarray) -> np.ndarray:
    """(b, N) bool: a boat stands on one of the ocean card's fields (so it is not free, R6.1)."""
    occ = np.zeros((len(idx), state.config.route_cards), dtype=bool)
    rows = np.arange(len(idx))[:, None]
    occ[rows, state.boat_field[idx] // 2] = True
    return occ


def lap_length(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int: fields in one lap of the current route (R9.1)."""
    return 2 * state.present[idx].sum(axis=1)


def move_forward(state: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """Move boat `seat` to the next free field, skipping occupied ones (R6.2), in place.

    Progress grows by the fields sailed: every present field passed, plus the one
    landed on. The boat's own field counts as free, so on a route with no other free
    field it sails a whole lap (which then laps the last boat).
    """
    F = state.config.route_fields
    pos = state.boat_field[idx, seat].astype(np.int64)
    pres = present_bits(state, idx)
    free = pres & ~occupied_bits(state, idx, exclude=seat)
    # Bit j of the rotated sets stands for the field j + 1 ahead of the boat.
    j = _lowest_bit(_rotate(free, pos + 1, F))
    sailed = _rotate(pres, pos + 1, F) & ((np.int64(2) << j) - 1)
    state.boat_field[idx, seat] = (pos + 1 + j) % F
    state.progress[idx, seat] += np.bitwise_count(sailed)


def has_lapped(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: boat `seat` is more than one lap ahead of the last other boat (R9.2)."""
    prog = state.progress[idx]
    rows = np.arange(len(idx))
    own = prog[rows, seat]
    prog[rows, seat] = np.iinfo(prog.dtype).max
    return own - prog.min(axis=1) > lap_length(state, idx)


def dolphin_eligible(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: boat `seat` stands on a dolphin with the fields behind and ahead free (R6.3).

    "Behind" and "ahead" are the nearest fields still in the route.
    """
    F = state.config.route_fields
    pos = state.boat_field[idx, seat].astype(np.int64)
    on_dolphin = state.config.deck.dolphin[state.route[idx, pos]]
    if not on_dolphin.any():
        return on_dolphin
    pres = present_bits(state, idx)
    occ = occupied_bits(state, idx, exclude=seat)
    nxt = (pos + 1 + _lowest_bit(_rotate(pres, pos + 1, F))) % F
    prv = (pos + _highest_bit(_rotate(pres, pos, F))) % F
    return on_dolphin & (((occ >> nxt) & 1) == 0) & (((occ >> prv) & 1) == 0)


def removable_ahead(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b, 12) bool: whether the ocean card `k` places ahead of `seat`'s boat may be removed.

    `k = 0` is the first card in the route fully ahead of the card the boat stands
    on (DESIGN.md actions 50..61). A card may go when it is free (R6.1) and more
    than three cards remain (R7.2).
    """
    N = state.config.route_cards
    b = len(idx)
    rows = np.arange(b)[:, None]
    own = state.boat_field[idx, seat] // 2
    slots = (own[:, None] + np.arange(1, N)) % N
    pres = state.present[idx[:, None], slots]
    ok = pres & ~occupied_slots(state, idx)[rows, slots]
    ok &= (state.present[idx].sum(axis=1) > MIN_ROUTE_CARDS)[:, None]
    out = np.zeros((b, 13), dtype=bool)
    col = np.where(pres, np.cumsum(pres, axis=1) - 1, 12)
    out[rows, col] = ok
    return out[:, :12]


def can_remove(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) bool: some ocean card is free and more than three remain (R4.4, R7.2)."""
    pres = state.present[idx]
    free = pres & ~occupied_slots(state, idx)
    return free.any(axis=1) & (pres.sum(axis=1) > MIN_ROUTE_CARDS)


def slot_ahead(state: State, idx: np.ndarray, seat: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(b,) int: slot of the present ocean card `k` places ahead of `seat`'s boat."""
    N = state.config.route_cards
    own = state.boat_field[idx, seat] // 2
    slots = (own[:, None] + np.arange(1, N)) % N
    pres = state.present[idx[:, None], slots]
    rank = np.where(pres, np.cumsum(pres, axis=1) - 1, -1)
    return slots[np.arange(len(idx)), np.argmax(rank == k[:, None], axis=1)]


def remove_slot(state: State, idx: np.ndarray, slot: np.ndarray) -> None:
    """Remove the (free) ocean card in `slot` from the route, in place (R9.1).

    Progress is measured from the last boat: every boat beyond the removed card
    (between the last boat and itself) loses the card's two fields, so each gap
    shrinks by two exactly when the card lay on it and progress differences stay
    the forward distances along the new route.
    """
    F = state.config.route_fields
    b = len(idx)
    rows = np.arange(b)
    prog = state.progress[idx]
    last = np.argmin(prog, axis=1)
    last_field = state.boat_field[idx, last].astype(np.intp)
    offs = (last_field[:, None] + np.arange(1, F + 1)) % F
    pres = field_present(state, idx)[rows[:, None], offs]
    cum = np.cumsum(pres, axis=1)
    first_field = 2 * slot.astype(np.intp)
    card_dist = cum[rows, (first_field - last_field - 1) % F]
    beyond = (prog - prog[rows, last][:, None]) > card_dist[:, None]
    state.progress[idx] = prog - 2 * beyond
    state.present[idx, slot] = False


def leading_seat(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int: the boat furthest ahead (R8.1); ties only occur on the start field."""
    return np.argmax(state.progress[idx], axis=1)


def trump_of(state: State, idx: np.ndarray) -> np.ndarray:
    """(b,) int8: colour of the field under the leading boat (R8.2)."""
    lead = leading_seat(state, idx)
    field = state.boat_field[idx, lead]
    return state.config.deck.color[state.route[idx, field]]
