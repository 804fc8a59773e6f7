"""Random mutations of scenario dicts, for the fuzz tests of `from_scenario`.

`mutate(sc, rng)` returns a changed deep copy and a description of what changed:
numbers changed (nearby, huge, negative), types changed, keys deleted and added,
cards swapped between hands, boats moved, lists nested deep, strings replaced by
other valid or invalid names, list entries dropped or repeated. `valid_pool`
builds the scenarios to mutate: the stored examples and dumps of random games at
several table sizes and phases.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kanaloa_env.core.kanaloa import Config, Phase, init, step, to_scenario
from kanaloa_env.core.kanaloa.constants import CARD_NAMES, PHASE_NAMES, SUIT_NAMES

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"

# Keys a rejection may name: SCENARIO.md's, the two optional ones of docs/scenario.md,
# and the combined 'hands/played_this_round' of the copies check.
KNOWN_KEYS = {
    "num_players",
    "config",
    "route",
    "boats",
    "removed",
    "round",
    "starting_player",
    "trick_number",
    "leader",
    "to_act",
    "phase",
    "trick",
    "hands",
    "tricks_won",
    "announced",
    "pending",
    "played_this_round",
    "winner",
    "voids",
    "key",
    "hands/played_this_round",
}

Path_ = list[Any]  # keys and indices from the scenario's root


def valid_pool(games: int = 3, every: int = 9, seed: int = 0) -> list[dict[str, Any]]:
    """The stored example scenarios and dumps of random games (3, 4, 5 players, with
    and without the announce variant) every `every` decisions to their ends, and
    half the positions that are not a card to play."""
    pool = [json.loads(p.read_text()) for p in sorted(SCENARIOS.glob("*.json"))]
    configs = [
        Config(num_players=3),
        Config(num_players=4, nil_announcement=True),
        Config(num_players=5, nil_announcement=True, dolphin_chain=True),
        Config(num_players=4, nil_announcement=True, max_rounds=1),
    ]
    rng = np.random.default_rng(seed)
    for cfg in configs:
        s = init(cfg, games, seed=seed + cfg.num_players)
        t = 0
        while True:
            # Every `every`-th position, and half the rarer ones (not playing a card).
            rare = (s.phase != Phase.PLAY) & (rng.random(games) < 0.5)
            for i in range(games):
                if t % every == 0 or rare[i]:
                    pool.append(to_scenario(s, i, include_key=bool(i % 2)))
            if s.done.all():
                break
            s = step(s, np.argmax(rng.random(s.legal.shape) * s.legal, axis=1))
            t += 1
    return pool


def _paths(sc: Any) -> list[Path_]:
    """Every path into `sc` (dict keys and list indices), the root's [] first; a
    container met again (a self-referential list) and nesting past 12 are not entered."""
    out: list[Path_] = []
    stack: list[tuple[Path_, Any]] = [([], sc)]
    seen: set[int] = set()
    while stack:
        path, value = stack.pop()
        out.append(path)
        if id(value) in seen or len(path) > 12:
            continue
        if isinstance(value, (dict, list)):
            seen.add(id(value))
        if isinstance(value, dict):
            stack += [([*path, k], v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [([*path, i], v) for i, v in enumerate(value)]
    return out


def _get(sc: Any, path: Path_) -> Any:
    for k in path:
        sc = sc[k]
    return sc


def _deep(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


def _other_value(rng: np.random.Generator, old: Any) -> Any:
    """A replacement for `old`: a nearby, huge or negative number, another type, or
    another valid or invalid name."""
    choices: list[Callable[[], Any]] = [
        lambda: int(rng.integers(-3, 30)),
        lambda: 2**31,
        lambda: -(2**31) - 1,
        lambda: 2**63 + 5,
        lambda: 10**5000,
        lambda: -int(rng.integers(1, 1000)),
        lambda: float(rng.integers(0, 5)),
        lambda: float("nan"),
        lambda: True,
        lambda: False,
        lambda: None,
        lambda: "2",
        lambda: [],
        lambda: {},
        lambda: [old],
        lambda: {"x": old},
        lambda: str(rng.choice(CARD_NAMES)),
        lambda: str(rng.choice(PHASE_NAMES)),
        lambda: str(rng.choice(SUIT_NAMES)),
        lambda: "Blue-3",
        lambda: "x" * int(rng.integers(0, 3000)),
        lambda: _deep(old, int(rng.choice([3, 9, 100_000]))),
        lambda: np.int64(rng.integers(0, 5)),
        lambda: np.float32(1.5),
        lambda: (1, 2),
        lambda: {1, 2},
    ]
    if isinstance(old, bool):
        choices.append(lambda: not old)
    elif isinstance(old, int):
        near = [lambda: old + int(rng.choice([-2, -1, 1, 2]))]
        if abs(old) < 2**53:
            near.append(lambda: float(old))
        choices += near * 3
    elif isinstance(old, str):
        choices += [lambda: old.upper(), lambda: old + " ", lambda: old[:-1]]
    return choices[int(rng.integers(len(choices)))]()


def _mutate_once(sc: dict[str, Any], rng: np.random.Generator) -> str:
    """Apply one random mutation to `sc` in place; return what it did."""
    kind = int(rng.integers(9))
    paths = _paths(sc)
    if kind == 0:  # swap cards between two hands
        P = len(sc.get("hands", []) if isinstance(sc.get("hands"), list) else [])
        if P >= 2:
            p, q = (int(x) for x in rng.choice(P, 2, replace=False))
            hp, hq = sc["hands"][p], sc["hands"][q]
            if isinstance(hp, list) and isinstance(hq, list) and hp and hq:
                i, j = int(rng.integers(len(hp))), int(rng.integers(len(hq)))
                hp[i], hq[j] = hq[j], hp[i]
                return f"swap hands[{p}][{i}] <-> hands[{q}][{j}]"
    if kind == 1:  # move a boat, its progress along (or not)
        boats = sc.get("boats")
        if isinstance(boats, list) and boats and isinstance(boats[0], dict):
            p = int(rng.integers(len(boats)))
            d = int(rng.choice([-2, -1, 1, 2, 3, 22, 24, 40]))
            b = boats[p]
            if isinstance(b, dict) and isinstance(b.get("field"), int):
                F = 2 * len(sc["route"]) if isinstance(sc.get("route"), list) else 20
                b["field"] = (b["field"] + d) % max(F, 1)
                if rng.random() < 0.7 and isinstance(b.get("progress"), int):
                    b["progress"] += d
                return f"move boats[{p}] by {d}"
    if kind == 2:  # another phase, player to act, winner or trick number
        key = str(rng.choice(["phase", "to_act", "winner", "trick_number", "leader", "pending"]))
        value: Any = {
            "phase": str(rng.choice(PHASE_NAMES)),
            "pending": str(rng.choice(["trick", "payout"])),
        }.get(key, int(rng.integers(0, 5)))
        sc[key] = value
        return f"set {key} = {value!r}"
    path = paths[int(rng.integers(len(paths)))]
    if not path:
        path = [str(rng.choice(list(sc)))]
    parent, last = _get(sc, path[:-1]), path[-1]
    if kind == 3 and isinstance(parent, dict):  # delete a key
        del parent[last]
        return f"delete {path}"
    if kind == 4:  # add a key
        target = _get(sc, path)
        if isinstance(target, dict):
            name = str(rng.choice(["extra", "void", "Phase", "id", "progress", "key", "1"]))
            target[name] = _other_value(rng, 0)
            return f"add key {name!r} under {path}"
    if kind == 5 and isinstance(parent, list):  # drop or repeat a list entry
        if rng.random() < 0.5:
            del parent[last]
            return f"drop {path}"
        parent.insert(last, copy.deepcopy(parent[last]))
        return f"repeat {path}"
    if kind == 6:  # a self-referential list
        parent[last] = [1]
        parent[last].append(parent[last])
        return f"self-referential list at {path}"
    new = _other_value(rng, parent[last])
    parent[last] = new
    return f"set {path} = {type(new).__name__}"


def mutate(sc: dict[str, Any], rng: np.random.Generator) -> tuple[dict[str, Any], str]:
    """A deep copy of `sc` with one to three random mutations, and what they were."""
    out = copy.deepcopy(sc)
    done = [_mutate_once(out, rng) for _ in range(int(rng.choice([1, 1, 1, 2, 3])))]
    return out, "; ".join(done)
