"""What one player may know of a position, as a state for state-reading bots."""

from __future__ import annotations

import numpy as np

from .state import State


def public_view(state: State, seats: np.ndarray) -> State:
    """A copy of `state` holding only what player `seats[i]` may know in game `i`.

    The other players' hands are zeroed, the key is 0 (it fixes the future deals),
    and where another player is to act the mask row is all False (its legal plays
    would show its cards). The result is for reading only: it must not be stepped.

    Args:
        state: a batch of `B` games; not modified.
        seats: (B,) ints, the seat whose knowledge each game keeps.
    """
    view = state.copy()
    seats = np.asarray(seats)
    keep = np.arange(state.num_players)[None, :] == seats[:, None]
    view.hands[~keep] = 0
    view.key[...] = 0
    view.legal[view.current_player != seats] = False
    return view
