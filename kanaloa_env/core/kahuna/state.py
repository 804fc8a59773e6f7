"""The batched Kahuna state: its field specification `FIELDS`, and `State`, the frozen
dataclass of numpy arrays with a leading batch axis made from it.

`B` is the batch size; players are 0 and 1. Line sets are uint32 bit sets (bit l
for line l, K1.2), island sets uint16 bit sets (bit x for island x, K1.1), and
multisets of cards are count words (`cards.py`: two bits per island).

Supplies are derived: bridges `25 - popcount(bridges[p])`, stones
`stones_per_player - popcount(stones[p])`. The generic helpers (copy, take, put,
equal, save, load, ...) come from `kanaloa_env.core.batch.BatchedState` through
`GameState`, the fields every layer above the engines reads.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..batch import GameState
from ..fields import Field, kernel_structure
from ..kernels import kernel
from .config import Config
from .constants import (
    MAX_PILE,
    NO_CARD,
    NO_PLAYER,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_SCORINGS,
    ROW_SLOTS,
)

FIELDS = (
    Field(
        "key",
        "uint64",
        (),
        0,
        "per-game random key (set-up shuffle, first player, reshuffles)",
    ),
    Field("phase", "int8", (), 0, "`Phase`: play, draw or game_over (K3.2)"),
    Field("current_player", "int8", (), 0, "player to act, -1 once the game is over"),
    Field("starting_player", "int8", (), 0, "who took the first turn (K2.2)"),
    Field("turn", "int16", (), 0, "completed turns (K3.1, K7.4, K9.1)"),
    Field(
        "final_turns_left",
        "int8",
        (),
        0,
        "2 during the first final turn, 1 during the second, else 0 (K7.4)",
    ),
    Field("handed_back", "bool", (), False, "a card was handed back in this DRAW phase (K6.4)"),
    Field("last_turn_skipped", "bool", (), False, "the previous turn ended with SKIP (K6.3)"),
    Field("bridges", "uint32", ("P",), 0, "line set of each player's bridges (K1.5)"),
    Field("stones", "uint16", ("P",), 0, "island set of each player's stones (K1.6, K5.3)"),
    Field("hands", "uint32", ("P",), 0, "count word of each hand (K1.4, K2.3)"),
    Field("known", "uint32", ("P",), 0, "count word: cards of p's hand the opponent knows (K6.7)"),
    Field(
        "face_up",
        "int8",
        (ROW_SLOTS,),
        NO_CARD,
        "island in each face-up slot, -1 empty (K2.1, K6.1)",
    ),
    Field(
        "pile",
        "int8",
        (MAX_PILE,),
        NO_CARD,
        "face-down pile, bottom first: the top card is `pile[pile_size - 1]`; -1 past the top",
    ),
    Field("pile_size", "int8", (), 0, "cards in the pile"),
    Field(
        "discard_up",
        "uint32",
        (),
        0,
        "count word: cards spent face up since the last reshuffle (K4.5)",
    ),
    Field(
        "discard_down",
        "uint32",
        ("P",),
        0,
        "count word: cards each player discarded or handed back face down (K4.5)",
    ),
    Field("num_scorings", "int8", (), 0, "scorings done, 0..3; round = 1 + num_scorings (K3.4)"),
    Field(
        "scorings",
        "int8",
        (NUM_SCORINGS, "P"),
        0,
        "points of each scoring done (rows past num_scorings 0) (K7.2, K7.5)",
    ),
    Field(
        "hidden_hand",
        "int8",
        ("P",),
        0,
        "cards of a hand blanked by `public_view`; 0 in a real state",
    ),
    Field(
        "hidden_down",
        "int8",
        ("P",),
        0,
        "face-down discards blanked by `public_view`; 0 in a real state",
    ),
    Field(
        "winner",
        "int8",
        (),
        NO_PLAYER,
        "winner once terminated, -1 for a draw or while running (K8)",
    ),
    Field("terminated", "bool", (), False, "game over by its rules (K7.5, K8.2)"),
    Field("truncated", "bool", (), False, "game stopped after `max_turns` (K9.1)"),
    Field("rewards", "float32", ("P",), 0, "rewards of the last step (K10.1)"),
    Field(
        "legal",
        "bool",
        ("A",),
        False,
        "legal-action mask of the player to act (cache, written only by `masks.refresh_game`)",
    ),
)


def sizes(config: Config) -> dict[str, int]:
    """The values of the symbols `FIELDS` names (the same for every config)."""
    return {"P": NUM_PLAYERS, "A": NUM_ACTIONS}


Arrays, ArraysType, ArraysRef = kernel_structure(__name__, FIELDS)


@kernel
def _arrays_ref(arrays):  # type: ignore[no-untyped-def]
    return ArraysRef(*arrays)


class State(GameState, fields=FIELDS, sizes=sizes):
    """A batch of Kahuna games. A state read from a file must pass `check_invariants`."""

    kernel_type = Arrays
    kernel_struct: ClassVar[Any] = staticmethod(_arrays_ref)
    config: Config

    @property
    def round(self) -> np.ndarray:
        """(B,) int8: the round, 1 + scorings done, at most 3 (K3.4)."""
        return np.minimum(self.num_scorings + 1, 3).astype(np.int8)

    def _config_meta(self) -> dict[str, Any]:
        return {"game": "kahuna", "config": self.config.overrides()}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Config:
        if meta.get("game") != "kahuna":
            raise ValueError(f"not a Kahuna state (game {meta.get('game')!r})")
        return Config.from_dict(meta.get("config"))
