"""The Kahuna engine configuration: every `[config: ...]` item of KAHUNA-RULES.md, validated."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..batch import check_config_ints
from .constants import MAX_STONES, MIN_STONES

FIRST_PLAYERS: tuple[str | int, ...] = ("random", 0, 1)
DISCARD_RULES = ("any_time", "no_legal_play", "unplayable_cards")
MAX_MAX_TURNS = 10_000  # the turn counter is int16; K7.6 bounds a game at 130 turns


class Rules(NamedTuple):
    """A `Config` as the compiled kernels take it (`Config.rules`): plain ints and flags."""

    stones_per_player: int
    random_first: bool  # K2.2: a coin decides who starts
    first_player: int  # K2.2: the starting player when not random
    discard_rule: int  # K4.4: the index of `discard_rule` in DISCARD_RULES
    early_end: bool  # K8.2
    max_turns: int  # K9.1


@dataclass(frozen=True)
class Config:
    """Everything that varies between games of one batch.

    Attributes:
        stones_per_player: stones each player starts with, 10..12 (K1.6, A1).
        first_player: who takes the first turn: `"random"` (a fair coin from the
            game's own random stream), `0` or `1` (K2.2, A4).
        discard_rule: when a card may be discarded face down in the PLAY phase
            (K4.4, A7): `"any_time"`, `"no_legal_play"` (only while no PLACE or
            REMOVE is legal) or `"unplayable_cards"` (card x only while no legal
            PLACE or REMOVE spends an x card).
        early_end: a player without bridges in round 2 or 3 loses at once (K8.2, A16).
        max_turns: completed turns after which an unfinished game outside its final
            turns is truncated, 1..10000 (K9.1).

    Raises:
        TypeError: a value of the wrong type (naming the field).
        ValueError: a value out of range (naming the field and what is allowed).
    """

    stones_per_player: int = 10
    first_player: str | int = "random"
    discard_rule: str = "any_time"
    early_end: bool = True
    max_turns: int = 200
    _rules: Rules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_config_ints(
            self, {"stones_per_player": (MIN_STONES, MAX_STONES), "max_turns": (1, MAX_MAX_TURNS)}
        )
        fp = self.first_player
        if isinstance(fp, bool) or not isinstance(fp, (str, int)) or fp not in FIRST_PLAYERS:
            raise ValueError(
                f"Config.first_player must be one of 'random', 0, 1, got {self.first_player!r}"
            )
        if self.discard_rule not in DISCARD_RULES:
            raise ValueError(
                f"Config.discard_rule must be one of {DISCARD_RULES}, got {self.discard_rule!r}"
            )
        if not isinstance(self.early_end, bool):
            raise TypeError(f"Config.early_end must be a bool, got {self.early_end!r}")
        rules = Rules(
            stones_per_player=self.stones_per_player,
            random_first=fp == "random",
            first_player=0 if fp == "random" else int(fp),
            discard_rule=DISCARD_RULES.index(self.discard_rule),
            early_end=self.early_end,
            max_turns=self.max_turns,
        )
        object.__setattr__(self, "_rules", rules)

    @property
    def rules(self) -> Rules:
        """The config as the compiled kernels take it."""
        return self._rules

    def kernel_rules(self, part: int = 0) -> Rules:
        """`rules` for thread number `part` of a batch: the same named tuple (it holds no
        arrays, so threads share it without contention)."""
        return self._rules

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the defaults, JSON-compatible (scenario `config`)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.init and getattr(self, f.name) != f.default
        }

    def replace(self, **changes: Any) -> Config:
        """A copy with the fields of `changes` (name=value) changed, validated again."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_dict(cls, overrides: dict[str, Any] | None = None) -> Config:
        """Build a config from a dict of overrides (a scenario's `config`).

        Raises:
            TypeError: `overrides` is not a dict, or a value of the wrong type.
            ValueError: an unknown key (naming the allowed ones) or a bad value.
        """
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, dict):
            raise TypeError(f"config overrides must be a dict, got {type(overrides).__name__}")
        allowed = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = sorted(set(overrides) - set(allowed), key=str)
        if unknown:
            raise ValueError(f"unknown config keys {unknown}; allowed: {allowed}")
        return cls(**overrides)
