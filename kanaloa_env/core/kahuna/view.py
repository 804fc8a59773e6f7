"""What one player may know of a position (K12), as a state for state-reading bots."""

from __future__ import annotations

import numpy as np

from ..batch import check_seats
from . import cards
from .constants import NO_CARD, NUM_PLAYERS
from .state import State


def public_view(state: State, seats: np.ndarray | int) -> State:
    """A copy of `state` holding only what `seats[i]` may know in game i (K12).

    The opponent's hand is reduced to its `known` part (K6.7), the number of its
    other cards kept in `hidden_hand`; the opponent's face-down discards are
    removed, their number kept in `hidden_down`; every pile entry is -1 (unknown),
    `pile_size` kept; the key is 0 (it fixes the future reshuffles); where the
    opponent is to act, its mask row is all False (it would show its cards).
    `observe(public_view(state, seats), seat=seats)` equals `observe(state,
    seat=seats)`. The result is for reading only: it does not pass
    `check_invariants` and must not be stepped.

    Args:
        state: a batch of `B` games; not modified.
        seats: one int 0/1 for every game, or (B,) ints.

    Raises:
        TypeError / ValueError: `seats` is not 0/1 ints of the right shape.
    """
    B = state.batch_size
    me = check_seats(seats, B, NUM_PLAYERS)
    view = state.copy()
    fo = 2 * np.arange(B) + (1 - me)
    hands, known, down = (x.reshape(-1) for x in (view.hands, view.known, view.discard_down))
    view.hidden_hand.reshape(-1)[fo] += (cards.size(hands[fo]) - cards.size(known[fo])).astype(
        np.int8
    )
    hands[fo] = known[fo]
    view.hidden_down.reshape(-1)[fo] += cards.size(down[fo]).astype(np.int8)
    down[fo] = 0
    view.pile[...] = NO_CARD
    view.key[...] = 0
    view.legal[view.current_player != me] = False
    return view
