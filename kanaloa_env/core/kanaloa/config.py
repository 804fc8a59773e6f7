"""The engine configuration: every `[config: ...]` item of RULES.md, validated."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..batch import check_config_ints
from ..kernels import JIT_DISABLED, kernel, struct_types
from .constants import MAX_PLAYERS, MIN_PLAYERS, ROUTE_CARDS
from .ocean import (
    DEFAULT_OCEAN_DECK,
    DeckArrays,
    OceanDeck,
    deck_arrays,
    field_rows,
    normalize_deck,
)

DOLPHIN_MODES = ("optional", "automatic")
REWARD_SCHEMES = ("win_loss", "rank")
MAX_MAX_ROUNDS = 10_000


class Rules(NamedTuple):
    """A `Config` as the compiled kernels take it (`Config.rules`): plain numbers,
    flags and the ocean deck's field arrays (indexed by deck field code)."""

    num_players: int
    route_cards: int
    route_fields: int
    nil_announcement: bool
    announced_boat_moves: bool
    dolphin_optional: bool
    dolphin_chain: bool
    max_rounds: int
    rank_reward: bool
    deck_cards: int
    start_card: int
    color: np.ndarray  # (2K,) int8
    dolphin: np.ndarray  # (2K,) bool
    start: np.ndarray  # (2K,) bool
    field_rows: np.ndarray  # (2K, 8) float32, the observation's field features


RulesType, RulesRef = struct_types(__name__, "Rules", Rules._fields)


@kernel
def _rules_ref(rules):  # type: ignore[no-untyped-def]
    return RulesRef(*rules)


@dataclass(frozen=True)
class Config:
    """Everything that varies between games of one batch.

    Attributes:
        num_players: players at the table, 3..5 (R1.4).
        ocean_deck: the ocean cards (R1.3); see `kanaloa_env.core.ocean`.
        nil_announcement: the "announce no tricks" variant (R3.2, R7.3).
        announced_boat_moves: whether a player who announced still moves for
            tricks won (R7.4). No edition says it does not; the books imply it (an
            announced boat is tilted; the Polish edition takes it off the route).
        dolphin: `"optional"` (the player decides, R6.3) or `"automatic"`.
        dolphin_chain: whether a dolphin bonus move may trigger another (R6.3).
        max_rounds: rounds after which an unfinished game is truncated (R9.4).
        reward: `"win_loss"` (R10.1: +1 winner, -1/(P-1) others at the end) or
            `"rank"` (at the end, also on truncation, rewards spread linearly from
            +1 for the furthest boat to -1 for the last, ties share; sums to 0).

    Raises:
        ValueError: naming the field and the allowed values when a value is bad.
        TypeError: when a value has the wrong type.
    """

    num_players: int = 4
    ocean_deck: OceanDeck = DEFAULT_OCEAN_DECK
    nil_announcement: bool = False
    announced_boat_moves: bool = False
    dolphin: str = "optional"
    dolphin_chain: bool = False
    max_rounds: int = 100
    reward: str = "win_loss"
    _deck: DeckArrays = field(init=False, repr=False, compare=False)
    _rules: Rules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_config_ints(
            self, {"num_players": (MIN_PLAYERS, MAX_PLAYERS), "max_rounds": (1, MAX_MAX_ROUNDS)}
        )
        for name in ("nil_announcement", "announced_boat_moves", "dolphin_chain"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"Config.{name} must be a bool, got {getattr(self, name)!r}")
        if self.dolphin not in DOLPHIN_MODES:
            raise ValueError(f"Config.dolphin must be one of {DOLPHIN_MODES}, got {self.dolphin!r}")
        if self.reward not in REWARD_SCHEMES:
            raise ValueError(f"Config.reward must be one of {REWARD_SCHEMES}, got {self.reward!r}")
        deck = normalize_deck(self.ocean_deck)
        object.__setattr__(self, "ocean_deck", deck)
        arrays = deck_arrays(deck)
        need = ROUTE_CARDS[self.num_players]
        if arrays.num_cards < need:
            raise ValueError(
                f"Config.ocean_deck has {arrays.num_cards} cards; {self.num_players} players "
                f"need at least {need} (R2.1)"
            )
        object.__setattr__(self, "_deck", arrays)
        rules = Rules(
            num_players=self.num_players,
            route_cards=need,
            route_fields=2 * need,
            nil_announcement=self.nil_announcement,
            announced_boat_moves=self.announced_boat_moves,
            dolphin_optional=self.dolphin == "optional",
            dolphin_chain=self.dolphin_chain,
            max_rounds=self.max_rounds,
            rank_reward=self.reward == "rank",
            deck_cards=arrays.num_cards,
            start_card=arrays.start_card,
            color=arrays.color,
            dolphin=arrays.dolphin,
            start=arrays.start,
            field_rows=field_rows(arrays),
        )
        object.__setattr__(self, "_rules", rules)

    @property
    def deck(self) -> DeckArrays:
        """The parsed ocean deck."""
        return self._deck

    @property
    def rules(self) -> Any:
        """The config as the compiled kernels take it: `Rules` as one structure (the
        named tuple itself under `NUMBA_DISABLE_JIT=1`), built on first use."""
        return self.kernel_rules(0)

    def kernel_rules(self, part: int = 0) -> Any:
        """`rules`; `part` k > 0 another structure of the same, for the k-th thread of a
        batch (see `State.kernel_arrays`)."""
        parts = self.__dict__.get("_rules_ref")
        if parts is None:
            parts = []
            object.__setattr__(self, "_rules_ref", parts)
        while len(parts) <= part:
            parts.append(self._rules if JIT_DISABLED else _rules_ref(self._rules))
        return parts[part]

    def __getstate__(self) -> dict[str, Any]:
        # The kernels' structure is rebuilt on use: it does not pickle.
        return {k: v for k, v in self.__dict__.items() if k != "_rules_ref"}

    @property
    def route_cards(self) -> int:
        """Ocean cards in the route at the start of a game (R2.1)."""
        return ROUTE_CARDS[self.num_players]

    @property
    def route_fields(self) -> int:
        """Fields in the route at the start of a game."""
        return 2 * self.route_cards

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the defaults, JSON-compatible (for scenarios)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init or f.name == "num_players":
                continue
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = [list(c) for c in value] if f.name == "ocean_deck" else value
        return out

    def replace(self, **changes: Any) -> Config:
        """A copy with the fields of `changes` (name=value) changed, validated again."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_dict(cls, num_players: int, overrides: dict[str, Any] | None = None) -> Config:
        """Build a config from `num_players` and a dict of overrides (scenario `config`)."""
        overrides = dict(overrides or {})
        allowed = {f.name for f in dataclasses.fields(cls) if f.init} - {"num_players"}
        unknown = set(overrides) - allowed
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(allowed)}")
        return cls(num_players=num_players, **overrides)
