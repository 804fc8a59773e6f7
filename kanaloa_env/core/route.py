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


def occupied_fields(state: State, idx: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """(b, F) bool: some boat stands on the field (R6.1), not counting seat `exclude`."""
    b = len(idx)
    occ = np.zeros((b, state.config.route_fields), dtype=bool)
    rows = np.arange(b)
    fields = state.boat_field[idx]
    for p in range(state.num_players):
        if exclude is None:
            occ[rows, fields[:, p]] = True
        else:
            keep = exclude != p
            occ[rows[keep], fields[keep, p]] = True
    return occ


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
    b = len(idx)
    rows = np.arange(b)
    pos = state.boat_field[idx, seat].astype(np.intp)
    offs = (pos[:, None] + np.arange(1, F + 1)) % F
    pres = field_present(state, idx)[rows[:, None], offs]
    occ = occupied_fields(state, idx, exclude=seat)[rows[:, None], offs]
    k = np.argmax(pres & ~occ, axis=1)
    state.boat_field[idx, seat] = offs[rows, k]
    state.progress[idx, seat] += np.cumsum(pres, axis=1)[rows, k]


def has_lapped(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: boat `seat` is more than one lap ahead of the last other boat (R9.2)."""
    prog = state.progress[idx]
    others = prog.copy()
    others[np.arange(len(idx)), seat] = np.iinfo(prog.dtype).max
    last = others.min(axis=1)
    return prog[np.arange(len(idx)), seat] - last > lap_length(state, idx)


def dolphin_eligible(state: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(b,) bool: boat `seat` stands on a dolphin with the fields behind and ahead free (R6.3)."""
    F = state.config.route_fields
    rows = np.arange(len(idx))
    pos = state.boat_field[idx, seat].astype(np.intp)
    on_dolphin = state.config.deck.dolphin[state.route[idx, pos]]
    out = np.zeros(len(idx), dtype=bool)
    if not on_dolphin.any():
        return out
    sub = np.flatnonzero(on_dolphin)
    g, s, p, r = idx[sub], seat[sub], pos[sub], rows[: len(sub)]
    pres = field_present(state, g)
    occ = occupied_fields(state, g, exclude=s)
    steps = np.arange(1, F)
    ahead = (p[:, None] + steps) % F
    behind = (p[:, None] - steps) % F
    nxt = ahead[r, np.argmax(pres[r[:, None], ahead], axis=1)]
    prv = behind[r, np.argmax(pres[r[:, None], behind], axis=1)]
    out[sub] = ~occ[r, nxt] & ~occ[r, prv]
    return out


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
