"""The batched game state: its field specification `FIELDS`, and `State`, the frozen
dataclass of numpy arrays with a leading batch axis made from it.

`B` is the batch size, `P` the number of players, `N` the ocean cards of the
starting route (10/11/12, R2.1) and `F = 2N` its fields (`sizes`). The route keeps
its starting slots for the whole game: slot `n` holds one ocean card and the fields
`2n, 2n+1` in sailing order; a removed card's slot stays, marked not `present`.

The generic helpers (copy, take, put, equal, save, load, ...) come from
`kanaloa_env.core.batch.BatchedState`; the kernels take the arrays as one structure
(`Arrays`, `ArraysRef`: `State.kernel_arrays()`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..batch import GameState
from ..fields import Field, kernel_structure
from ..kernels import kernel
from .config import Config
from .constants import NO_CARD, NO_PLAYER, NO_SUIT, NUM_ACTIONS, TRICKS_PER_ROUND

FIELDS = (
    Field("key", "uint64", (), 0, "per-game random key (deals, R3.1)"),
    Field("phase", "int8", (), 0, "`Phase` of the decision to take"),
    Field("current_player", "int8", (), 0, "seat to act, -1 when the game is over"),
    Field("round", "int16", (), 0, "round number from 1"),
    Field("starting_player", "int8", (), 0, "who started this round (R3.3, R7.3)"),
    Field("leader", "int8", (), 0, "who led the current trick"),
    Field("trick_number", "int8", (), 0, "tricks completed this round, 0..8"),
    Field("num_played", "int8", (), 0, "cards played this round"),
    Field("history", "int8", ("8P",), NO_CARD, "card types played this round in order, -1 after"),
    Field(
        "played",
        "uint64",
        (),
        0,
        "bit set of the cards played this round (as `hands`; special copies from the "
        "lowest bit up, see `tricks.add_played`)",
    ),
    Field("lead_suit", "int8", (), NO_SUIT, "suit to follow in the current trick (R4.2), -1 none"),
    Field("trump", "int8", (), 0, "trump suit of the current trick (R5.5, R8.2)"),
    Field("hands", "uint64", ("P",), 0, "bit set of the 53 physical cards each player holds"),
    Field("tricks_won", "int8", ("P",), 0, "tricks won this round"),
    Field("announced", "int8", ("P",), -1, "-1 undecided, 0 no, 1 announced no tricks (R3.2)"),
    Field("voids", "uint8", ("P",), 0, "bit s set: the player showed it lacks suit s this round"),
    Field("route", "int8", ("F",), 0, "deck field code (2 * card + side) of each route field"),
    Field("present", "bool", ("N",), True, "the slot's ocean card is still in the route"),
    Field(
        "present_slots",
        "uint16",
        (),
        "2**N-1",
        "`present` as a bit set, bit n for slot n (a cache kept by setup and step)",
    ),
    Field("boat_field", "int8", ("P",), 0, "field (0..F-1) each boat stands on"),
    Field("progress", "int32", ("P",), 0, "fields sailed (R9.1); only differences matter"),
    Field("pending", "int8", (), 0, "`Pending` after a dolphin decision"),
    Field("winner", "int8", (), NO_PLAYER, "winning seat once the game is won, else -1"),
    Field("terminated", "bool", (), False, "game won (R9.2)"),
    Field("truncated", "bool", (), False, "game stopped after `max_rounds` (R9.4)"),
    Field("rewards", "float32", ("P",), 0, "rewards of the last step (R10)"),
    Field(
        "legal",
        "bool",
        ("A",),
        False,
        "legal-action mask of the player to act (cache, written by `masks.refresh`)",
    ),
)


def sizes(config: Config) -> dict[str, int]:
    """The values of the symbols `FIELDS` names, for `config`."""
    P, N = config.num_players, config.route_cards
    return {
        "P": P,
        "8P": TRICKS_PER_ROUND * P,
        "N": N,
        "F": 2 * N,
        "2**N-1": (1 << N) - 1,
        "A": NUM_ACTIONS,
    }


Arrays, ArraysType, ArraysRef = kernel_structure(__name__, FIELDS)


@kernel
def _arrays_ref(arrays):  # type: ignore[no-untyped-def]
    return ArraysRef(*arrays)


class State(GameState, fields=FIELDS, sizes=sizes):
    """A batch of Kanaloa games. A state read from a file must pass `check_invariants`
    and hold progress within `MAX_PROGRESS`, as a scenario must (`from_scenario`)."""

    kernel_type = Arrays
    kernel_struct: ClassVar[Any] = staticmethod(_arrays_ref)
    config: Config

    def _config_meta(self) -> dict[str, Any]:
        return {"num_players": self.config.num_players, "config": self.config.overrides()}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Config:
        return Config.from_dict(meta["num_players"], meta.get("config"))
