"""The checks of scenario JSON that every engine's `from_scenario` shares.

A scenario is untrusted input (SCENARIO.md): types are strict (an int is an int, not a
bool, a float or a string; a list is a list; true/false a bool), and every error is a
ValueError naming the key at fault, `scenario key 'boats[1].field' must be an int in
0..19, got 20`. The engines' own checks (card names, the rules' consistency) build
their messages with `bad` too, so that all of them read alike.
"""

from __future__ import annotations

import reprlib
from typing import Any, TypeGuard

import numpy as np

from .rng import game_keys

__all__ = [
    "MAX_NESTING",
    "MAX_VALUES",
    "bad",
    "bool_at",
    "check_nesting",
    "dict_at",
    "int_at",
    "is_int",
    "list_at",
    "need",
    "scenario_key",
    "show",
]

MAX_NESTING = 8
"""Deepest nesting of lists and dicts a scenario may hold (a valid Kanaloa one needs 4:
`route[k].fields[j]`); checked without recursion before anything recursive (a
comparison, a repr) touches the input."""
MAX_VALUES = 10_000
"""Most list entries and dict values a scenario may hold in all (a valid one holds
well under 1,000, a Kanaloa ocean-deck override included)."""

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict = 2, 8, 4
_REPR.maxstring = _REPR.maxother = 40

# First words that read as a sentence after the key (`scenario key 'x' must ...`); any
# other message follows a colon (`scenario key 'boats': players 0 and 1 ...`).
_PREDICATES = {"must", "is", "has", "holds", "lists", "nests", "makes", "says"}


def show(value: object) -> str:
    """A short repr of `value` for an error message, safe on huge and deeply nested values."""
    if is_int(value) and abs(int(value)) > 10**18:  # (ints past 4300 digits refuse repr)
        return f"an int of {int(value).bit_length()} bits"
    try:
        return _REPR.repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__}"


def bad(path: str, what: str) -> ValueError:
    """The error naming the key at `path` and saying `what` is wrong with it: `scenario
    key 'boats[1].field' must be ...`, or with a colon before a statement (`scenario key
    'boats': players 0 and 1 ...`)."""
    sep = " " if what.split(" ", 1)[0] in _PREDICATES else ": "
    return ValueError(f"scenario key '{path}'{sep}{what}")


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """Whether `value` is a Python or numpy integer, not a bool (JSON's true is no number
    of players)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def need(sc: dict[str, Any], key: str) -> Any:
    """`sc[key]`, or the error saying the key is missing."""
    if key not in sc:
        raise bad(key, "is missing")
    return sc[key]


def int_at(value: object, path: str, lo: int, hi: int) -> int:
    """`value` as an int in lo..hi, or the error naming `path`."""
    if not is_int(value) or not lo <= value <= hi:
        raise bad(path, f"must be an int in {lo}..{hi}, got {show(value)}")
    return int(value)


def bool_at(value: object, path: str) -> bool:
    """`value` as a bool (JSON's true or false, not 0 or 1), or the error naming `path`."""
    if not isinstance(value, (bool, np.bool_)):
        raise bad(path, f"must be true or false, got {show(value)}")
    return bool(value)


def list_at(value: object, path: str, length: int | None = None) -> list[Any]:
    """`value` as a list (of `length` entries when given), or the error naming `path`."""
    if not isinstance(value, list):
        raise bad(path, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise bad(path, f"must have {length} entries, got {len(value)}")
    return value


def dict_at(value: object, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """`value` as a dict with exactly `keys`, or the error naming `path` and the keys."""
    if not isinstance(value, dict):
        raise bad(path, f"must be a dict with keys {list(keys)}, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise bad(path, f"must be a dict with keys {list(keys)}; missing {missing}")
    extra = [k for k in value if k not in keys]
    if extra:
        raise bad(path, f"has unknown keys {show(extra)}; allowed: {list(keys)}")
    return value


def check_nesting(sc: dict[str, Any]) -> None:
    """Bound the nesting depth (`MAX_NESTING`) and the size (`MAX_VALUES`) of the
    scenario `sc`, without recursion; the error names the top-level key at fault."""
    stack: list[tuple[str, object, int]] = [(k, v, 1) for k, v in sc.items()]
    seen = 0
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, dict):
            items: Any = value.values()
        elif isinstance(value, (list, tuple)):
            items = value
        else:
            continue
        if depth > MAX_NESTING:
            raise bad(key, f"nests lists or dicts more than {MAX_NESTING} deep")
        seen += len(items)
        if seen > MAX_VALUES:
            raise bad(key, f"makes the scenario hold more than {MAX_VALUES} values")
        stack.extend((key, item, depth + 1) for item in items)


def scenario_key(key: object, seed: int | None) -> np.uint64:
    """A scenario's game key: `key` (an int in 0..2**64-1, or the error naming the
    scenario key 'key'), else game 0 of the stream `seed` (0 when None)."""
    if key is None:
        return game_keys(0 if seed is None else seed, np.zeros(1, np.uint64))[0]  # type: ignore[no-any-return]
    if not is_int(key) or not 0 <= key <= 2**64 - 1:
        raise bad("key", f"must be an int in 0..2**64-1, got {show(key)}")
    return np.uint64(key)
