"""The bot protocol: policies that act on whole batches of decisions at once."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..core.state import State


@runtime_checkable
class Bot(Protocol):
    """A batched policy.

    `act(observations, masks, rng)` gets (b, OBS_DIM) float32 observations of the
    deciding players (`kanaloa_env.core.observe`), their (b, 66) bool legal masks
    and a `numpy.random.Generator`, and returns (b,) int64 legal actions.

    A bot that wants the structured game state sets `uses_state = True`; callers
    then also pass `view=public_view(state, seats)` (other hands and the deal key
    blanked) and `seats`, the (b,) deciding seats. A bot that reads only the masks
    sets `uses_observations = False` so callers can skip encoding observations.
    """

    name: str

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray: ...


def public_view(state: State, seats: np.ndarray) -> State:
    """A copy of `state` holding only what player `seats[i]` may know in game `i`.

    Other players' hands and the random key (which fixes future deals) are zeroed.
    """
    view = state.copy()
    keep = np.arange(state.num_players)[None, :] == np.asarray(seats)[:, None]
    view.hands[~keep] = 0
    view.key[...] = 0
    return view


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(b,) int64: one uniformly random legal action per row of a (b, 66) bool mask.

    Each legal action draws a random 16-bit score in 1..65535 (illegal ones score
    0) and the best wins; ties (below 1e-3 for a full hand) go to the lower action.
    """
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"masks must be a (b, 66) bool array, got {masks.dtype} {masks.shape}")
    scores = rng.integers(1, 1 << 16, size=masks.shape, dtype=np.uint16)
    scores *= masks
    actions = np.argmax(scores, axis=1)
    if len(masks) and not masks[np.arange(len(masks)), actions].all():
        raise ValueError("every mask row needs at least one legal action")
    return actions.astype(np.int64)


class RandomBot:
    """Plays uniformly at random among the legal actions."""

    name = "random"
    uses_state = False
    uses_observations = False  # reads only the masks: callers may skip encoding

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        return sample_legal(masks, rng)
