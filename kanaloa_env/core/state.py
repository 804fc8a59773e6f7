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
| played | (B,) uint64 | bit set of the cards played this round (as `hands`; special copies from the lowest bit up, see `constants.played_word`) |
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

`frozen` freezes the attributes, not the array contents: public functions never
mutate their inputs; `step_inplace` is the documented exception.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass

import numpy as np

from .config import Config


@dataclass(frozen=True, eq=False)
class State:
    """A batch of Kanaloa games (see the module docstring for the field table)."""

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
    def batch_size(self) -> int:
        return int(self.phase.shape[0])

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: terminated or truncated."""
        return self.terminated | self.truncated

    def arrays(self) -> dict[str, np.ndarray]:
        """The array fields by name (everything but `config`)."""
        return {name: getattr(self, name) for name in _ARRAY_NAMES}

    def copy(self) -> State:
        """A deep copy (new arrays)."""
        return State(self.config, **{k: v.copy() for k, v in self.arrays().items()})

    def take(self, idx: np.ndarray | list[int] | slice) -> State:
        """The sub-batch `idx` (integer indices, boolean mask or slice), as new arrays."""
        if isinstance(idx, slice):
            return State(self.config, **{k: v[idx].copy() for k, v in self.arrays().items()})
        idx = np.asarray(idx)
        if idx.dtype == bool:
            if idx.shape != (self.batch_size,):
                raise IndexError(
                    f"State.take: a boolean mask must have shape ({self.batch_size},), "
                    f"got {idx.shape}"
                )
            idx = idx.nonzero()[0]
        elif idx.dtype.kind not in "iu":
            if idx.size:
                raise TypeError(
                    f"State.take: indices must be integers, a boolean mask or a slice, "
                    f"got dtype {idx.dtype}"
                )
            idx = idx.astype(np.intp)  # [] is a float array
        # ndarray.take is several times faster than fancy indexing for this.
        return State(self.config, **{k: v.take(idx, axis=0) for k, v in self.arrays().items()})

    def put(self, idx: np.ndarray, other: State) -> None:
        """Write the games of `other` into positions `idx` of this batch, in place."""
        if other.config != self.config:
            raise ValueError("State.put: the two states have different configs")
        for k, v in self.arrays().items():
            v[idx] = getattr(other, k)

    def equal(self, other: State) -> bool:
        """Whether both states hold the same config and identical arrays."""
        if not isinstance(other, State) or other.config != self.config:
            return False
        return all(np.array_equal(v, getattr(other, k)) for k, v in self.arrays().items())

    def game_equal(self, other: State) -> np.ndarray:
        """(B,) bool: per game, whether every array row is identical."""
        out = np.ones(self.batch_size, dtype=bool)
        for k, v in self.arrays().items():
            w = getattr(other, k)
            out &= (v == w).reshape(len(v), -1).all(axis=1)
        return out

    def nbytes_per_game(self) -> int:
        """Bytes of array data per game."""
        return sum(v.nbytes for v in self.arrays().values()) // max(self.batch_size, 1)

    def replace(self, **changes: np.ndarray) -> State:
        """A new State sharing all arrays except those given."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.equal(other)

    __hash__ = None  # type: ignore[assignment]

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the batch to an `.npz` file (arrays plus the config as JSON)."""
        meta = json.dumps(
            {"num_players": self.config.num_players, "config": self.config.overrides()}
        )
        np.savez_compressed(path, __config__=np.array(meta), **self.arrays())  # type: ignore[arg-type]

    @staticmethod
    def load(path: str | os.PathLike[str]) -> State:
        """Read a batch written by `save`."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["__config__"]))
            cfg = Config.from_dict(meta["num_players"], meta["config"])
            missing = [n for n in _ARRAY_NAMES if n not in data.files]
            if missing:
                raise ValueError(f"{path}: not a saved State, missing arrays {missing}")
            return State(cfg, **{n: data[n] for n in _ARRAY_NAMES})

    @staticmethod
    def concatenate(states: list[State]) -> State:
        """Join batches that share one config."""
        if not states:
            raise ValueError("State.concatenate needs at least one state")
        cfg = states[0].config
        if any(s.config != cfg for s in states):
            raise ValueError("State.concatenate: states have different configs")
        names = states[0].arrays().keys()
        return State(cfg, **{k: np.concatenate([getattr(s, k) for s in states]) for k in names})


# The array fields in declaration order (everything but `config`).
_ARRAY_NAMES = tuple(f.name for f in dataclasses.fields(State) if f.name != "config")
