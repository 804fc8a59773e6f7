"""Builders for hand-made Kahuna positions: scenario dicts (our FEN) and step helpers.

Tests describe a position with `make()`, load it with `load()` and drive it with
`act()` (action names as `action_name` writes them, or indices). Everything goes
through the public scenario format (KAHUNA-RULES.md), so a test never depends on
what a seed happens to deal.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from kanaloa_env.core.kahuna import (
    NUM_ACTIONS,
    State,
    action_name,
    from_scenario,
    step,
    to_scenario,
)
from kanaloa_env.core.kahuna.constants import ISLAND_NAMES, LINE_NAMES, LINES, MAJORITY

Scenario = dict[str, Any]
SCENARIOS = Path(__file__).resolve().parent / "core" / "kahuna" / "scenarios"
ACTION = {action_name(a): a for a in range(NUM_ACTIONS)}
END_PLAY, DRAW, SKIP = ACTION["end play"], ACTION["draw"], ACTION["skip"]
TAKE = [ACTION[f"take slot {s}"] for s in range(3)]

# Small holdings (K1.3: ALOA and LALE need 2 of their 3 lines, GOLA and COCO 3 of 4).
HOLD_ALOA = ["ALOA-BARI", "ALOA-DUDA"]
HOLD_LALE = ["HUNA-LALE", "IFFI-LALE"]
HOLD_GOLA = ["COCO-GOLA", "FAAA-GOLA", "GOLA-JOJO"]


def e1() -> Scenario:
    """The spec's worked example E1 (tests/core/kahuna/scenarios/kahuna_e1.json)."""
    return json.loads((SCENARIOS / "kahuna_e1.json").read_text())


def held(bridges: list[str]) -> list[str]:
    """The islands a set of bridges holds (K5.1), in index order."""
    count = Counter(x for name in bridges for x in LINES[LINE_NAMES.index(name)])
    return [ISLAND_NAMES[x] for x in range(12) if count[x] >= MAJORITY[x]]


def make(
    *,
    bridges: tuple[list[str], list[str]] | list[list[str]] = ([], []),
    stones: tuple[list[str], list[str]] | list[list[str]] | None = None,
    hands: tuple[list[str], list[str]] | list[list[str]] = ([], []),
    face_up: list[str | None] | None = None,
    pile: list[str] | None = None,
    discard_down: tuple[list[str], list[str]] | list[list[str]] = ([], []),
    to_act: int | None = 0,
    **fields: Any,
) -> Scenario:
    """A scenario; cards not named go to the row (when `face_up` is None), then to the
    pile (when `pile` is None, in island order), the rest face up in `discard_up`.

    `stones` defaults to a stone on every held island (K5.3); `turn` defaults to 10
    or 11 so that `to_act` follows K3.1 (`to_act` None: 10, for a finished game); any
    other key comes from `fields`.
    """
    used = Counter(hands[0] + hands[1] + discard_down[0] + discard_down[1] + (pile or []))
    used.update(x for x in (face_up or []) if x is not None)
    rest = sorted((Counter({x: 2 for x in ISLAND_NAMES}) - used).elements(), key=ISLAND_NAMES.index)
    if face_up is None:
        face_up, rest = list(rest[:3]), rest[3:]
    if pile is None:
        pile, rest = rest, []
    start = fields.get("starting_player", 0)
    sc: Scenario = {
        "config": {},
        "starting_player": start,
        "bridges": [sorted(b, key=LINE_NAMES.index) for b in bridges],
        "stones": [held(b) for b in bridges] if stones is None else [list(s) for s in stones],
        "hands": [sorted(h, key=ISLAND_NAMES.index) for h in hands],
        "face_up": list(face_up),
        "pile": list(pile),
        "discard_up": rest,
        "discard_down": [sorted(d, key=ISLAND_NAMES.index) for d in discard_down],
        "scorings": [],
        "to_act": to_act,
        "phase": "play",
        "handed_back": False,
        "last_turn_skipped": False,
        "final_turns_left": None,
        "turn": 10 + ((to_act or 0) ^ start),
        "winner": None,
        "end_reason": None,
    }
    sc.update(fields)
    return sc


def load(sc: Scenario, seed: int = 0) -> State:
    """A batch-1 state of the scenario."""
    return from_scenario(sc, seed=seed)


def index(action: int | str) -> int:
    """An action's index from its name (`action_name`) or the index itself."""
    return ACTION[action] if isinstance(action, str) else int(action)


def act(state: State, *actions: int | str) -> State:
    """Step game 0 through `actions` in turn (each must be legal)."""
    for a in actions:
        state = step(state, np.array([index(a)]))
    return state


def legal(state: State, game: int = 0) -> set[str]:
    """The names of the legal actions of game `game`."""
    return {action_name(a) for a in np.flatnonzero(state.legal[game])}


def kinds(state: State, game: int = 0) -> set[str]:
    """The kinds of the legal actions ("place", "remove", "discard", "end", "take", ...)."""
    return {name.split()[0] for name in legal(state, game)}


def sc_of(state: State, game: int = 0) -> Scenario:
    """Game `game` as a scenario."""
    return to_scenario(state, game)
