"""The batched Kahuna state: a frozen dataclass of numpy arrays with a leading batch axis.

`B` is the batch size; players are 0 and 1. Line sets are uint32 bit sets (bit l
for line l, K1.2), island sets uint16 bit sets (bit x for island x, K1.1), and
multisets of cards are count words (`cards.py`: two bits per island).

| field | shape, dtype | meaning |
|---|---|---|
| key | (B,) uint64 | per-game random key (set-up shuffle, first player, reshuffles) |
| phase | (B,) int8 | `Phase`: play, draw or game_over (K3.2) |
| current_player | (B,) int8 | player to act, -1 once the game is over |
| starting_player | (B,) int8 | who took the first turn (K2.2) |
| turn | (B,) int16 | completed turns (K3.1, K7.4, K9.1) |
| final_turns_left | (B,) int8 | 2 during the first final turn, 1 during the second, else 0 (K7.4) |
| handed_back | (B,) bool | a card was handed back in this DRAW phase (K6.4) |
| last_turn_skipped | (B,) bool | the previous turn ended with SKIP (K6.3) |
| bridges | (B, 2) uint32 | line set of each player's bridges (K1.5) |
| stones | (B, 2) uint16 | island set of each player's stones (K1.6, K5.3) |
| hands | (B, 2) uint32 | count word of each hand (K1.4, K2.3) |
| known | (B, 2) uint32 | count word: cards of p's hand the opponent knows (K6.7) |
| face_up | (B, 3) int8 | island in each face-up slot, -1 empty (K2.1, K6.1) |
| pile | (B, 21) int8 | face-down pile, bottom first: the top card is `pile[pile_size - 1]`; -1 past the top |
| pile_size | (B,) int8 | cards in the pile |
| discard_up | (B,) uint32 | count word: cards spent face up since the last reshuffle (K4.5) |
| discard_down | (B, 2) uint32 | count word: cards each player discarded or handed back face down (K4.5) |
| num_scorings | (B,) int8 | scorings done, 0..3; round = 1 + num_scorings (K3.4) |
| scorings | (B, 3, 2) int8 | points of each scoring done (rows past num_scorings 0) (K7.2, K7.5) |
| hidden_hand | (B, 2) int8 | cards of a hand blanked by `public_view`; 0 in a real state |
| hidden_down | (B, 2) int8 | face-down discards blanked by `public_view`; 0 in a real state |
| winner | (B,) int8 | winner once terminated, -1 for a draw or while running (K8) |
| terminated | (B,) bool | game over by its rules (K7.5, K8.2) |
| truncated | (B,) bool | game stopped after `max_turns` (K9.1) |
| rewards | (B, 2) float32 | rewards of the last step (K10.1) |
| legal | (B, 153) bool | legal-action mask of the player to act (cache, written only by `masks.refresh_game`) |

Supplies are derived: bridges `25 - popcount(bridges[p])`, stones
`stones_per_player - popcount(stones[p])`. The generic helpers (copy, take, put,
equal, save, load, ...) come from `kanaloa_env.core.batch.BatchedState` through
`GameState`, the fields every layer above the engines reads.
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
    starting_player: np.ndarray
    turn: np.ndarray
    final_turns_left: np.ndarray
    handed_back: np.ndarray
    last_turn_skipped: np.ndarray
    bridges: np.ndarray
    stones: np.ndarray
    hands: np.ndarray
    known: np.ndarray
    face_up: np.ndarray
    pile: np.ndarray
    pile_size: np.ndarray
    discard_up: np.ndarray
    discard_down: np.ndarray
    num_scorings: np.ndarray
    scorings: np.ndarray
    hidden_hand: np.ndarray
    hidden_down: np.ndarray
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
    """A batch of Kahuna games (see the module docstring for the field table)."""

    kernel_type: ClassVar[type] = Arrays
    kernel_struct: ClassVar[Any] = staticmethod(_arrays_ref)

    config: Config
    key: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    starting_player: np.ndarray
    turn: np.ndarray
    final_turns_left: np.ndarray
    handed_back: np.ndarray
    last_turn_skipped: np.ndarray
    bridges: np.ndarray
    stones: np.ndarray
    hands: np.ndarray
    known: np.ndarray
    face_up: np.ndarray
    pile: np.ndarray
    pile_size: np.ndarray
    discard_up: np.ndarray
    discard_down: np.ndarray
    num_scorings: np.ndarray
    scorings: np.ndarray
    hidden_hand: np.ndarray
    hidden_down: np.ndarray
    winner: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    rewards: np.ndarray
    legal: np.ndarray

    @property
    def round(self) -> np.ndarray:
        """(B,) int8: the round, 1 + scorings done, at most 3 (K3.4)."""
        return np.minimum(self.num_scorings + 1, 3).astype(np.int8)

    @classmethod
    def empty(cls, config: Config, batch_size: int) -> State:
        """A batch of zeroed arrays with the right shapes and dtypes (filled by `init`)."""
        from .setup import empty_state

        return empty_state(config, batch_size)

    def _config_meta(self) -> dict[str, Any]:
        return {"game": "kahuna", "config": self.config.overrides()}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Config:
        if meta.get("game") != "kahuna":
            raise ValueError(f"not a Kahuna state (game {meta.get('game')!r})")
        return Config.from_dict(meta.get("config"))

    def _check_loaded(self) -> None:
        from .invariants import InvariantError, check_invariants

        try:
            check_invariants(self)
        except InvariantError as exc:
            raise ValueError(str(exc)) from exc


def game_indices(state: State, idx: object, who: str) -> np.ndarray:
    """(b,) int64 indices of games of `state` from integer indices (negative ones count
    from the end, as in numpy) or a (B,) bool mask; an IndexError naming `who` for an
    index out of range (the kernels do not check bounds)."""
    B = len(state.phase)
    g = np.asarray(idx)
    if g.dtype == bool:
        g = np.flatnonzero(g)
    elif g.size and g.dtype.kind not in "iu":
        raise TypeError(f"{who}: game indices must be integers or a bool mask, got {g.dtype}")
    g = g.astype(np.int64).reshape(-1)
    if g.size and (g.min() < -B or g.max() >= B):
        raise IndexError(f"{who}: game indices must be in -{B}..{B - 1}, got {g.tolist()[:10]}")
    return g % B if B else g  # type: ignore[no-any-return]
