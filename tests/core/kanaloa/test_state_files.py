"""`State.load` on edited, foreign and broken files (issue 19.6): a ValueError naming
what is wrong, never a crash inside numpy or the checker, and never a state that
`step` would run on though the rules cannot reach it.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.core.kanaloa import Config, State, init, step
from kanaloa_env.core.kanaloa.constants import MAX_PROGRESS
from kanaloa_env.core.kanaloa.masks import compute_mask
from kanaloa_env.testing import check_invariants


def played(cfg: Config, games: int, steps: int, seed: int = 0) -> State:
    rng = np.random.default_rng(seed)
    state = init(cfg, games, seed=seed)
    for _ in range(steps):
        state = step(state, np.argmax(rng.random(state.legal.shape) * state.legal, axis=1))
    return state


@pytest.fixture(scope="module")
def state() -> State:
    return played(Config(num_players=4, nil_announcement=True), 6, 25)


def saved(tmp_path: Path, state: State, name: str = "s.npz") -> Path:
    path = tmp_path / name
    state.save(path)
    return path


def edit(tmp_path: Path, state: State, fn: Callable[[dict[str, np.ndarray]], None]) -> Path:
    """A saved `state` with its arrays changed by `fn`, written as numpy would."""
    with np.load(saved(tmp_path, state)) as data:
        arrays = {k: data[k] for k in data.files}
    fn(arrays)
    path = tmp_path / "edited.npz"
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path


def _set(name: str, index: tuple[int, ...], value: int) -> Callable[[dict[str, np.ndarray]], None]:
    def fn(arrays: dict[str, np.ndarray]) -> None:
        arrays[name][index] = value

    return fn


def _with_fresh_mask(arrays: dict[str, np.ndarray], **changes: np.ndarray) -> None:
    """Apply `changes` and rewrite the cached mask to agree, as a careful editor would."""
    arrays.update(changes)
    meta = json.loads(str(arrays["__config__"]))
    cfg = Config.from_dict(meta["num_players"], meta.get("config"))
    s = State(cfg, **{k: v for k, v in arrays.items() if k != "__config__"})
    arrays["legal"] = compute_mask(s)


EDITS = {
    # The audit's edits: a phase that does not exist, a boat far off the route.
    "phase 99": (_set("phase", (1,), 99), r"phase outside 0\.\.5: games \[1\]"),
    "boat on field 120": (_set("boat_field", (2, 0), 120), r"boat_field outside 0\.\.21"),
    # A hand bit past the 53 cards once crashed the checker with an IndexError.
    "a hand bit that is no card": (
        lambda a: a["hands"].__setitem__((0, 1), a["hands"][0, 1] | np.uint64(1 << 60)),
        r"holds a bit that is no card",
    ),
    "progress near 2**31": (
        lambda a: a["progress"].__setitem__(3, a["progress"][3] + (2**31 - 1000)),
        r"progress outside",
    ),
    "progress past MAX_PROGRESS": (
        lambda a: a["progress"].__setitem__(3, a["progress"][3] + MAX_PROGRESS),
        r"progress beyond",
    ),
    "a suit to follow not the trick's": (
        lambda a: _with_fresh_mask(a, lead_suit=(a["lead_suit"] + 2) % 4),
        r"suit to follow",
    ),
    "an announcement without the variant": (
        lambda a: _with_fresh_mask(
            a, __config__=np.array('{"num_players": 4, "config": {}}'), announced=a["announced"]
        ),
        r"announcements without the variant",
    ),
    "rewards while playing": (
        lambda a: a["rewards"].__setitem__((0, 0), 0.5),
        r"rewards in a game that is not over",
    ),
    "not a number as reward": (
        lambda a: a["rewards"].__setitem__((0, 0), np.nan),
        r"rewards outside -1\.\.1",
    ),
    "a wrong dtype": (
        lambda a: a.__setitem__("phase", a["phase"].astype(np.int64)),
        r"array 'phase' must be int8",
    ),
    "a missing array": (lambda a: a.pop("hands"), r"missing arrays \['hands'\]"),
    "batch sizes differ": (
        lambda a: a.__setitem__("round", a["round"][:2]),
        r"array 'round' has 2 games, others 6",
    ),
    "a config nested 100,000 deep": (
        lambda a: a.__setitem__("__config__", np.array("[" * 100_000 + "]" * 100_000)),
        r"bad config in a saved state: nested too deep",
    ),
    "an unknown config key": (
        lambda a: a.__setitem__("__config__", np.array('{"num_players": 4, "config": {"x": 1}}')),
        r"bad config.*unknown config keys",
    ),
    "a bool as num_players": (
        lambda a: a.__setitem__("__config__", np.array('{"num_players": true}')),
        r"bad config.*num_players must be an int",
    ),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_an_edited_file_is_refused(tmp_path: Path, state: State, case: str) -> None:
    fn, match = EDITS[case]
    with pytest.raises(ValueError, match=match):
        State.load(edit(tmp_path, state, fn))


def test_fortran_order_arrays_load_as_c_order_and_play(tmp_path: Path, state: State) -> None:
    # The engine writes through flat views of its arrays; numpy keeps a file's order.
    path = edit(
        tmp_path,
        state,
        lambda a: a.update({k: np.asfortranarray(v) for k, v in a.items() if v.ndim > 1}),
    )
    loaded = State.load(path)
    assert loaded == state
    assert all(v.flags.c_contiguous for v in loaded.arrays().values())
    actions = np.array([np.flatnonzero(row)[0] if row.any() else 0 for row in loaded.legal])
    assert step(loaded, actions) == step(state, actions)


FOREIGN: dict[str, Callable[[Path, bytes], None]] = {
    "truncated": lambda p, good: p.write_bytes(good[: len(good) // 2]),
    "a member cut short": lambda p, good: p.write_bytes(good[:-200]),
    "corrupt bytes": lambda p, good: p.write_bytes(
        good[:100] + bytes(b ^ 0x55 for b in good[100:400]) + good[400:]
    ),
    "empty": lambda p, good: p.write_bytes(b""),
    "text": lambda p, good: p.write_text("phase,99\n"),
    "a pickle": lambda p, good: p.write_bytes(pickle.dumps({"phase": 99})),
    "a single array": lambda p, good: np.save(p.with_suffix(".npy"), np.zeros(3)),
    "other arrays": lambda p, good: np.savez(p, a=np.zeros(3)),
    "a pickled array": lambda p, good: np.savez(
        p, __config__=np.array([{"num_players": 4}], dtype=object)
    ),
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_file_that_is_no_saved_state_is_refused(tmp_path: Path, state: State, case: str) -> None:
    good = saved(tmp_path, state).read_bytes()
    path = tmp_path / "foreign.npz"
    FOREIGN[case](path, good)
    if not path.exists():
        path = path.with_suffix(".npy")
    with pytest.raises(ValueError, match=r"foreign\.np[yz]: (not a saved state|bad config)"):
        State.load(path)


def test_a_missing_file_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a saved state"):
        State.load(tmp_path / "none.npz")


# ---- random edits: refused, or a state that plays on validly ----------------------


def _edit_at_random(state: State, rng: np.random.Generator) -> str:
    """Change one entry of one array of `state` in place: a random value of its
    dtype, a nearby value or one bit flipped; return what changed."""
    name = str(rng.choice(state.array_names()))
    flat = getattr(state, name).reshape(-1)
    k = int(rng.integers(flat.size))
    if flat.dtype == bool:
        flat[k] = ~flat[k]
    elif flat.dtype.kind == "f":
        flat[k] = rng.choice([np.nan, np.inf, 2.0, -0.5, 0.5, 1.0])
    else:
        info = np.iinfo(flat.dtype)
        how = int(rng.integers(4))
        old = int(flat[k])
        if how == 0:
            new = int.from_bytes(rng.bytes(info.bits // 8), "little")  # any bit pattern
        elif how == 1:
            new = old + int(rng.choice([-2, -1, 1, 2]))
        elif how == 2:
            new = old ^ (1 << int(rng.integers(info.bits)))
        else:
            new = int(rng.integers(-1, 60))
        span = 1 << info.bits
        flat[k] = (new - info.min) % span + info.min  # wrapped into the dtype
    return f"{name}[{k}]"


def run_edits(edits: int, seed: int, tmp_path: Path | None = None) -> tuple[int, int]:
    """Random single edits of states from random games (3, 4, 5 players) through
    `_check_loaded` (every 20th through a real file): each is refused with a
    ValueError, or the state plays on for a few steps with every state valid."""
    bases = [
        played(cfg, 8, steps, seed=steps)
        for cfg in (
            Config(num_players=3),
            Config(num_players=4, nil_announcement=True),
            Config(num_players=5, nil_announcement=True, dolphin_chain=True),
        )
        for steps in (0, 9, 40, 90)
    ]
    rng = np.random.default_rng(seed)
    refused = 0
    for n in range(edits):
        s = bases[int(rng.integers(len(bases)))].copy()
        what = _edit_at_random(s, rng)
        try:
            if tmp_path is not None and n % 20 == 0:
                s.save(tmp_path / "fuzz.npz")
                s = State.load(tmp_path / "fuzz.npz")
            else:
                s._check_loaded()
        except ValueError:
            refused += 1
            continue
        for _ in range(4):
            s = step(s, np.argmax(rng.random(s.legal.shape) * s.legal, axis=1))
            check_invariants(s)
        assert s.legal.any(axis=1).all() or s.done.any(), what
    return edits - refused, refused


def test_random_edits_are_refused_or_play_on_validly(tmp_path: Path) -> None:
    kept, refused = run_edits(600, seed=0, tmp_path=tmp_path)
    assert refused > 400 and kept > 20  # (most edits break something; some are harmless)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 6))
def test_random_edits_soak(tmp_path: Path, seed: int) -> None:
    run_edits(6000, seed=seed, tmp_path=tmp_path)
