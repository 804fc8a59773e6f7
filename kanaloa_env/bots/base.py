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


_POPCOUNT8 = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)
# _SELECT8[v * 8 + j]: position of the j-th set bit of byte v.
_SELECT8 = np.zeros(256 * 8, dtype=np.int64)
for _v in range(256):
    for _j, _bit in enumerate(b for b in range(8) if _v >> b & 1):
        _SELECT8[_v * 8 + _j] = _bit


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(b,) int64: one uniformly random legal action per row of a (b, n) bool mask.

    One uniform draw per row picks the k-th legal action (k < the row's count); the
    rows are packed to bytes so the search runs over 9 bytes, not 66 columns.
    """
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"masks must be a (b, n) bool array, got {masks.dtype} {masks.shape}")
    b = len(masks)
    packed = np.packbits(masks, axis=1, bitorder="little")  # (b, ceil(n / 8))
    per_byte = _POPCOUNT8.take(packed)
    ranks = per_byte.cumsum(axis=1, dtype=np.int64)  # legal actions up to each byte
    counts = ranks[:, -1]
    if b and not counts.all():
        raise ValueError("every mask row needs at least one legal action")
    k = (rng.random(b) * counts).astype(np.int64)
    byte = np.argmax(ranks > k[:, None], axis=1)
    flat = np.arange(b) * packed.shape[1] + byte
    j = k - (ranks.take(flat) - per_byte.take(flat))  # rank of the action inside its byte
    return byte * 8 + _SELECT8.take(packed.take(flat).astype(np.int64) * 8 + j)


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
