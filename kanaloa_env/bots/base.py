"""The bot protocol: policies that act on whole batches of decisions at once."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core.kernels import kernel


@runtime_checkable
class Bot(Protocol):
    """A batched policy.

    `act(observations, masks, rng)` gets (b, obs_dim) float32 observations of the
    deciding players (the game's `observe`), their (b, A) bool legal masks and a
    `numpy.random.Generator`, and returns (b,) int64 legal actions.

    A bot that wants the structured game state sets `uses_state = True`; callers
    then also pass `view=public_view(state, seats)` (what the deciding players may
    know: other hands and the random key blanked) and `seats`, the (b,) deciding
    seats. A bot that reads only the masks sets `uses_observations = False` so
    callers can skip encoding observations. A bot written for one game only sets
    `game` to its name (e.g. "kanaloa"); callers reject it at another game's table.
    """

    name: str

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for a batch of b decisions.

        Args:
            observations: (b, obs_dim) float32, each deciding player's observation.
            masks: (b, A) bool legal actions; every row has one.
            rng: the caller's generator, the bot's only source of randomness.
            kwargs: `view` and `seats` for a bot with `uses_state` (see the class).
        """
        ...


def public_view(state: Any, seats: np.ndarray) -> Any:
    """A copy of `state` (any game's) holding only what player `seats[i]` may know in game
    `i`: the game's `public_view` (Kanaloa: other hands, the deal key and another
    player's mask row zeroed)."""
    from ..games import game_of_state

    return game_of_state(state).public_view(state, seats)


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(b,) int64: one uniformly random legal action per row of `masks`, (b, n) bool.

    One uniform draw per row (`rng.random(b)`) picks the k-th legal action, k =
    floor(u * the row's count), in a compiled loop over the rows.
    """
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"masks must be a (b, n) bool array, got {masks.dtype} {masks.shape}")
    b = len(masks)
    out = np.empty(b, dtype=np.int64)
    if b and _kth_legal(masks, rng.random(b), out) < b:
        raise ValueError("every mask row needs at least one legal action")
    return out


@kernel
def _kth_legal(masks, u, out):  # type: ignore[no-untyped-def]
    """Write into `out[r]` the k-th legal action of row r, k = floor(u[r] * count);
    returns the rows done (it stops at the first row without a legal action)."""
    n = masks.shape[1]
    for r in range(len(out)):
        count = 0
        for a in range(n):
            count += masks[r, a]
        if count == 0:
            return r
        k = np.int64(u[r] * count)
        for a in range(n):
            if masks[r, a]:
                if k == 0:
                    out[r] = a
                    break
                k -= 1
    return len(out)


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
        """(b,) uniformly random legal actions of the (b, A) `masks`, drawn from `rng`;
        `observations` and `kwargs` are not read."""
        return sample_legal(masks, rng)
