"""The batched game state: a frozen dataclass of numpy arrays with a leading batch axis.

`B` is the batch size, `P` the number of players, `N` the ocean cards of the
starting route (10/11/12, R2.1) and `F = 2N` its fields. The route keeps its
starting slots for the whole game: slot `n` holds one ocean card and the fields
`2n, 2n+1` in sailing order; a removed card's slot stays, marked not `present`.

| field | shape, dtype | meaning |
|---|---|---|
| key | (B,) uint64 | per-game random key (deals, R3.1) |
| phase | (B,) int8 | `Phase` of the decision to take |
| current_player | (B,) int8 | seat to act, -1 when the game is over |
| round | (B,) int16 | round number from 1 |
| starting_player | (B,) int8 | who started this round (R3.3, R7.3) |
| leader | (B,) int8 | who led the current trick |
| trick_number | (B,) int8 | tricks completed this round, 0..8 |
| num_played | (B,) int8 | cards played this round |
| history | (B, 8P) int8 | card types played this round in order, -1 after |
| played | (B,) uint64 | bit set of the cards played this round (as `hands`; special copies from the lowest bit up, see `tricks.add_played`) |
| lead_suit | (B,) int8 | suit to follow in the current trick (R4.2), -1 none |
| trump | (B,) int8 | trump suit of the current trick (R5.5, R8.2) |
| hands | (B, P) uint64 | bit set of the 53 physical cards each player holds |
| tricks_won | (B, P) int8 | tricks won this round |
| announced | (B, P) int8 | -1 undecided, 0 no, 1 announced no tricks (R3.2) |
| voids | (B, P) uint8 | bit s set: the player showed it lacks suit s this round |
| route | (B, F) int8 | deck field code (2 * card + side) of each route field |
| present | (B, N) bool | the slot's ocean card is still in the route |
| present_slots | (B,) uint16 | `present` as a bit set, bit n for slot n (a cache kept by setup and step) |
| boat_field | (B, P) int8 | field (0..F-1) each boat stands on |
| progress | (B, P) int32 | fields sailed (R9.1); only differences matter |
| pending | (B,) int8 | `Pending` after a dolphin decision |
| winner | (B,) int8 | winning seat once the game is won, else -1 |
| terminated | (B,) bool | game won (R9.2) |
| truncated | (B,) bool | game stopped after `max_rounds` (R9.4) |
| rewards | (B, P) float32 | rewards of the last step (R10) |
| legal | (B, 66) bool | legal-action mask of the player to act (cache, written by `masks.refresh`) |

The generic helpers (copy, take, put, equal, save, load, ...) come from
`kanaloa_env.core.batch.BatchedState`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..batch import GameState
from ..kernels import StructProxy, StructType, define_struct, kernel
from .config import Config


class Arrays(NamedTuple):
    """The arrays of a `State` as the compiled kernels take them (`State.kernel_arrays()`),
    the same names in the same order."""

    key: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    round: np.ndarray
    starting_player: np.ndarray
    leader: np.ndarray
    trick_number: np.ndarray
    num_played: np.ndarray
    history: np.ndarray
    played: np.ndarray
    lead_suit: np.ndarray
    trump: np.ndarray
    hands: np.ndarray
    tricks_won: np.ndarray
    announced: np.ndarray
    voids: np.ndarray
    route: np.ndarray
    present: np.ndarray
    present_slots: np.ndarray
    boat_field: np.ndarray
    progress: np.ndarray
    pending: np.ndarray
    winner: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    rewards: np.ndarray
    legal: np.ndarray


class ArraysType(StructType):
    """The numba type of `ArraysRef`."""


class ArraysRef(StructProxy):  # type: ignore[misc]
    """A `State`'s arrays as one structure, the form the compiled kernels take."""


define_struct(ArraysType, ArraysRef, Arrays._fields)


@kernel
def _arrays_ref(arrays):  # type: ignore[no-untyped-def]
    return ArraysRef(*arrays)


@dataclass(frozen=True, eq=False)
class State(GameState):
    """A batch of Kanaloa games (see the module docstring for the field table)."""

    kernel_type: ClassVar[type] = Arrays
    kernel_struct: ClassVar[Any] = staticmethod(_arrays_ref)

    config: Config
    key: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    round: np.ndarray
    starting_player: np.ndarray
    leader: np.ndarray
    trick_number: np.ndarray
    num_played: np.ndarray
    history: np.ndarray
    played: np.ndarray
    lead_suit: np.ndarray
    trump: np.ndarray
    hands: np.ndarray
    tricks_won: np.ndarray
    announced: np.ndarray
    voids: np.ndarray
    route: np.ndarray
    present: np.ndarray
    present_slots: np.ndarray
    boat_field: np.ndarray
    progress: np.ndarray
    pending: np.ndarray
    winner: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    rewards: np.ndarray
    legal: np.ndarray

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @classmethod
    def empty(cls, config: Config, batch_size: int) -> State:
        """A batch of zeroed arrays with the right shapes and dtypes (filled by `init`)."""
        from .setup import empty_state

        return empty_state(config, batch_size)

    def _config_meta(self) -> dict[str, Any]:
        return {"num_players": self.config.num_players, "config": self.config.overrides()}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Config:
        return Config.from_dict(meta["num_players"], meta.get("config"))

    def _check_loaded(self) -> None:
        """A state read from a file must pass `check_invariants` and hold progress
        within `MAX_PROGRESS`, as a scenario must (`from_scenario`)."""
        from .constants import MAX_PROGRESS
        from .invariants import InvariantError, check_invariants

        try:
            check_invariants(self)
        except InvariantError as exc:
            raise ValueError(str(exc)) from exc
        far = np.flatnonzero((np.abs(self.progress.astype(np.int64)) > MAX_PROGRESS).any(axis=1))
        if far.size:
            raise ValueError(
                f"progress beyond -{MAX_PROGRESS}..{MAX_PROGRESS}: games {far[:10].tolist()}"
            )
