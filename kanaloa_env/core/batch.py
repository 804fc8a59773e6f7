"""What every batched engine shares: the state container and the checks of its inputs.

An engine's `State` is a frozen dataclass whose fields are a `config` and numpy
arrays with a leading batch axis `B`, made from the game's field specification
(`GameState`, `fields.Field`); `BatchedState` gives it copying, slicing, comparing,
joining and saving, written once over its fields, so a new entry of the
specification needs no other edits. `check_actions` is the one check of a batch of
actions against legal masks, used by the engines' `step` and by every layer that
takes actions from a caller or a bot. `InvariantError` is what every engine's
invariant checker raises.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import numpy as np

from .fields import Field, Resolved, allocate, markdown, names, resolve
from .kernels import JIT_DISABLED

S = TypeVar("S", bound="BatchedState")
G = TypeVar("G", bound="GameState")

_INT64 = np.dtype(np.int64)


class InvariantError(AssertionError):
    """A state breaks an invariant of its game's rules; the message names the games
    and the rule (raised by every engine's `check_invariants`)."""


def check_positive_int(value: object, name: str) -> int:
    """`value` as an int >= 1 (a Python or numpy integer, not a bool), or a
    TypeError/ValueError naming `name`."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value}")
    return int(value)


def check_int_in(value: object, lo: int, hi: int, name: str) -> int:
    """`value` as an int in lo..hi (a Python or numpy integer, not a bool), or a
    TypeError/ValueError naming `name` and the range (a config field's check)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int in {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in {lo}..{hi}, got {value}")
    return int(value)


def check_config_ints(config: object, bounds: Mapping[str, tuple[int, int]]) -> None:
    """Check each int field `name` of the frozen `config` dataclass to be in
    `bounds[name]` = (lo, hi) (`check_int_in`, named "Config.<name>") and store it
    as a Python int (in `__post_init__`)."""
    for name, (lo, hi) in bounds.items():
        value = check_int_in(getattr(config, name), lo, hi, f"Config.{name}")
        object.__setattr__(config, name, value)


def check_index(value: object, size: int, name: str) -> int:
    """`value` as an int in 0..size-1 (a Python or numpy integer, not a bool or a
    float or a string), or a TypeError/ValueError naming `name`."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int in 0..{size - 1}, got {value!r}")
    if not 0 <= value < size:
        raise ValueError(f"{name} must be in 0..{size - 1}, got {value}")
    return int(value)


def seat_array(value: object, batch_size: int, num_players: int, name: str) -> np.ndarray:
    """(B,) int64 seats from `value`, one int or `batch_size` ints in 0..num_players-1, or
    a TypeError/ValueError naming `name` and saying what is allowed."""
    B, P = batch_size, num_players
    s = np.asarray(value)
    if s.dtype.kind not in "iu":  # (a float or a bool seat is refused, not cast)
        got = f"{value!r:.60}" if s.ndim == 0 else f"dtype {s.dtype}"
        raise TypeError(f"{name} must be an int or a ({B},) integer array, got {got}")
    if s.ndim == 0:
        s = np.full(B, s, dtype=np.int64)
    elif s.shape != (B,):
        raise ValueError(f"{name} must be an int or a ({B},) array, got shape {s.shape}")
    if ((s < 0) | (s >= P)).any():
        allowed = "0 or 1" if P == 2 else f"in 0..{P - 1}"
        raise ValueError(f"{name} must be {allowed}, got {np.asarray(value).tolist()!r:.60}")
    return s.astype(np.int64)


def check_seats(seats: object, batch_size: int, num_players: int) -> np.ndarray:
    """(B,) intp seats from one int or `batch_size` ints in 0..num_players-1, or a
    TypeError/ValueError saying what is allowed (the seat arguments of belief sampling)."""
    return seat_array(seats, batch_size, num_players, "seats").astype(np.intp)


def check_counts(n: object, batch_size: int) -> np.ndarray:
    """(B,) int64 counts per game from one int or `batch_size` ints, each >= 1 (the
    samples per game of belief sampling), or a TypeError/ValueError naming `n`."""
    B = batch_size
    c = np.asarray(n)
    if c.dtype.kind not in "iu" or c.dtype == bool:
        raise TypeError(f"n must be an int >= 1 or ({B},) such ints, got {n!r}")
    if c.ndim == 0:
        c = np.full(B, c, dtype=np.int64)
    elif c.shape != (B,):
        raise ValueError(f"n must be an int or a ({B},) array, got shape {c.shape}")
    if (c < 1).any():
        raise ValueError(f"n must be >= 1, got {np.asarray(n).tolist()}")
    return c.astype(np.int64)


def check_view_call(
    who: str,
    view: object,
    seats: object,
    masks: object,
    state_type: type[S],
    state_name: str,
    num_actions: int,
) -> tuple[S, np.ndarray, np.ndarray]:
    """The arguments of a call of a bot that reads states (`who`, e.g. "HeuristicBot")
    checked against each other: `view` a `state_type` of b games (`state_name` in the
    message), (b,) integer `seats`, (b, `num_actions`) bool `masks`. Returns the view,
    the seats as given (checked integers) and the masks as an array; the caller checks
    what its seats and rows must be. TypeError/ValueError saying what is wrong."""
    if view is None or seats is None:
        raise TypeError(f"{who} needs view=public_view(state, seats) and seats= (uses_state=True)")
    if not isinstance(view, state_type):
        raise TypeError(f"view must be a {state_name}, got {type(view).__name__}")
    masks = np.asarray(masks)
    seats = np.asarray(seats)
    if seats.dtype.kind not in "iu":  # a float seat would be truncated silently
        raise TypeError(f"seats must be integers, got dtype {seats.dtype}")
    b = len(masks) if masks.ndim else -1
    if masks.shape != (b, num_actions) or masks.dtype != bool:
        raise ValueError(
            f"masks must be a (b, {num_actions}) bool array, got {masks.dtype} {masks.shape}"
        )
    if view.batch_size != b or seats.shape != (b,):
        raise ValueError(
            f"view ({view.batch_size} games), seats {seats.shape} and masks ({b} rows) disagree"
        )
    return view, seats, masks


def legal_entries(actions: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """(B,) bool: whether each int64 action of `actions` is in range and legal in its row
    of the (B, A) bool `legal` masks."""
    B, A = legal.shape
    # One unsigned maximum checks both ends of the range (negatives view as huge).
    if B and np.maximum.reduce(actions.view(np.uint64)) < A:
        flat = actions if B == 1 else np.arange(0, B * A, A) + actions
        return legal.reshape(-1).take(flat)  # type: ignore[no-any-return]
    in_range = (actions >= 0) & (actions < A)
    return in_range & legal[np.arange(B), np.where(in_range, actions, 0)]  # type: ignore[no-any-return]


def check_action_form(
    dtype: object, shape: tuple[int, ...], batch_size: int, who: str = ""
) -> None:
    """A TypeError unless `dtype` is an integer dtype (bools are not integers), a
    ValueError unless `shape` is (B,) with B = `batch_size`: the form of a batch of
    actions, for an array on any target. `who` prefixes the message."""
    B = batch_size
    if np.dtype(dtype).kind not in "iu":  # type: ignore[call-overload]
        raise TypeError(
            f"{who}actions must be an integer array of shape ({B},) (integers, not bools or "
            f"floats), got dtype {dtype}"
        )
    if tuple(shape) != (B,):
        raise ValueError(f"{who}actions must have shape ({B},), got {tuple(shape)}")


def as_actions(actions: object, batch_size: int, who: str = "") -> tuple[np.ndarray, np.ndarray]:
    """`actions` as (B,) int64, and as given (for messages: uint64 past 2**63 wraps
    negative in int64, out of range all the same); a TypeError for a non-integer array
    (bools are not integers), a ValueError for a shape other than (`batch_size`,).
    `who` prefixes the message."""
    a = raw = np.asarray(actions)
    check_action_form(a.dtype, a.shape, batch_size, who)
    if a.dtype != _INT64:
        a = a.astype(np.int64)
    return a, raw


def illegal_actions(
    bad: np.ndarray,
    raw: np.ndarray,
    num_actions: int,
    describe: Callable[[int, int], str] | None = None,
    who: str = "",
) -> ValueError:
    """The error for the games `bad` whose actions `raw` (as given) are out of range
    (0..`num_actions`-1) or illegal: it names up to ten games, by `describe(game,
    action)` when given; `who` prefixes the message."""
    parts = []
    for g in bad[:10]:
        act = int(raw[g])
        if describe is not None:
            parts.append(f"game {g}: {describe(int(g), act)}")
        elif 0 <= act < num_actions:
            parts.append(f"game {g}: action {act} is illegal")
        else:
            parts.append(f"game {g}: action {act} is out of range 0..{num_actions - 1}")
    more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
    return ValueError(f"{who}illegal actions: " + "; ".join(parts) + more)


def check_actions(
    actions: object,
    legal: np.ndarray,
    live: np.ndarray | Callable[[], np.ndarray] | None = None,
    describe: Callable[[int, int], str] | None = None,
    who: str = "",
) -> np.ndarray:
    """Check a batch of actions against legal masks; return them as (B,) int64.

    Args:
        actions: (B,) integers, one per game.
        legal: (B, A) bool legal masks.
        live: (B,) bool, the games whose entry counts; the others (finished games)
            may hold anything in range or not. None: every game counts. A callable
            returning the array is called only when some action fails the mask.
        describe: `describe(game, action) -> str` for the error message, e.g.
            "player 2 in phase play cannot take action 7 (blue-8)"; called only for
            the games at fault, with in-range and out-of-range actions alike.
        who: prefixes the message ("opponent 'heuristic' returned ").

    Raises:
        TypeError: `actions` is not an integer array (bools are not integers).
        ValueError: wrong shape, or an action out of range or illegal in a live
            game; the message names up to ten games and their actions as given.
    """
    B, A = legal.shape
    a, raw = as_actions(actions, B, who)
    ok = legal_entries(a, legal)
    if np.count_nonzero(ok) < B:
        if live is not None:
            ok = ok | ~(live() if callable(live) else live)
        if np.count_nonzero(ok) < B:
            raise illegal_actions(np.flatnonzero(~ok), raw, A, describe, who)
    return a


class BatchedState:
    """Base of an engine's batched state (subclasses are frozen dataclasses).

    Every dataclass field but `config` is a numpy array with a leading batch axis.
    `frozen` freezes the attributes, not the array contents: public functions never
    mutate their inputs; an engine's `step_inplace` is the documented exception.
    A subclass provides `terminated` and `truncated` arrays and sets `load_check` to
    validate a state read from a file.
    """

    config: Any
    # The array fields in declaration order, set for each subclass on first use.
    _array_names: ClassVar[tuple[str, ...]] = ()
    # The named tuple of the array fields (its field names are the array names, in
    # order) and the compiled function that turns it into the structure the engine's
    # kernels take (see `kernels.define_struct`); None for a state without kernels.
    kernel_type: ClassVar[type | None] = None
    kernel_struct: ClassVar[Callable[[Any], Any] | None] = None

    @classmethod
    def array_names(cls) -> tuple[str, ...]:
        """The names of the array fields, in declaration order (everything but `config`)."""
        names = cls.__dict__.get("_array_names")
        if not names:
            names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "config")  # type: ignore[arg-type]
            cls._array_names = names
        return names

    @property
    def batch_size(self) -> int:
        """B, the number of games in the batch."""
        return int(getattr(self, self.array_names()[0]).shape[0])

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: terminated or truncated."""
        return self.terminated | self.truncated  # type: ignore[attr-defined,no-any-return]

    def arrays(self) -> dict[str, np.ndarray]:
        """The array fields by name (everything but `config`)."""
        return {name: getattr(self, name) for name in self.array_names()}

    def _new(self: S, arrays: dict[str, np.ndarray]) -> S:
        return cast(Any, type(self))(self.config, **arrays)  # the subclass's dataclass init

    def copy(self: S) -> S:
        """A deep copy (new arrays)."""
        return self._new({k: v.copy() for k, v in self.arrays().items()})

    def take(self: S, idx: np.ndarray | list[int] | slice) -> S:
        """The sub-batch `idx` (integer indices, boolean mask or slice), as new arrays."""
        if isinstance(idx, slice):
            return self._new({k: v[idx].copy() for k, v in self.arrays().items()})
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
        return self._new({k: v.take(idx, axis=0) for k, v in self.arrays().items()})

    def put(self, idx: np.ndarray, other: BatchedState) -> None:
        """Write the games of `other` into positions `idx` of this batch, in place."""
        if type(other) is not type(self) or other.config != self.config:
            raise ValueError("State.put: the two states have different configs or games")
        for k, v in self.arrays().items():
            v[idx] = getattr(other, k)

    def equal(self, other: object) -> bool:
        """Whether `other` is a state of the same game with the same config and identical
        arrays."""
        if type(other) is not type(self) or other.config != self.config:  # type: ignore[attr-defined]
            return False
        return all(np.array_equal(v, getattr(other, k)) for k, v in self.arrays().items())

    def game_equal(self, other: BatchedState) -> np.ndarray:
        """(B,) bool: per game, whether every array row is identical in `other`."""
        out = np.ones(self.batch_size, dtype=bool)
        for k, v in self.arrays().items():
            w = getattr(other, k)
            out &= (v == w).reshape(len(v), -1).all(axis=1)
        return out

    def nbytes_per_game(self) -> int:
        """Bytes of array data per game."""
        return sum(v.nbytes for v in self.arrays().values()) // max(self.batch_size, 1)

    def kernel_arrays(self, part: int = 0) -> Any:
        """The arrays in the form the compiled kernels take: one structure whose fields
        are the arrays (`kernel_struct` of the `kernel_type` named tuple; the named
        tuple itself under `NUMBA_DISABLE_JIT=1`). Built on first use and kept: the
        fields of a (frozen) state are never reassigned, only their contents change.

        `part` k > 0 gives another structure over the same arrays, for the k-th thread
        of a batch (`kernels.run_state`): numba counts references to a structure's
        arrays on every access, and threads sharing one structure fight over those
        counters (two threads ran slower than one).
        """
        parts = self.__dict__.get("_kernel_arrays")
        if parts is None:
            parts = []
            object.__setattr__(self, "_kernel_arrays", parts)
        while len(parts) <= part:
            assert self.kernel_type is not None, f"{type(self).__name__} has no kernels"
            # By name: a `kernel_type` whose fields are not the state's fails here.
            got = self.kernel_type(**{n: getattr(self, n) for n in self.array_names()})
            make = type(self).kernel_struct
            if make is not None and not JIT_DISABLED:
                got = make(got)
            parts.append(got)
        return parts[part]

    def __getstate__(self) -> dict[str, Any]:
        # The kernels' structure is rebuilt on use: it does not pickle.
        return {k: v for k, v in self.__dict__.items() if k != "_kernel_arrays"}

    def replace(self: S, **changes: Any) -> S:
        """A new state sharing all arrays except those given in `changes` (name=array)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def __eq__(self, other: object) -> bool:
        return self.equal(other)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def concatenate(cls: type[S], states: list[S]) -> S:
        """Join `states`, batches that share one config, into one."""
        if not states:
            raise ValueError("State.concatenate needs at least one state")
        cfg = states[0].config
        if any(type(s) is not type(states[0]) or s.config != cfg for s in states):
            raise ValueError("State.concatenate: states have different configs or games")
        names = states[0].array_names()
        return states[0]._new({k: np.concatenate([getattr(s, k) for s in states]) for k in names})

    # ---- files ---------------------------------------------------------------------

    def _config_meta(self) -> dict[str, Any]:
        """The config as JSON-able data (see `_config_from_meta`)."""
        raise NotImplementedError

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Any:
        """Rebuild a config from `_config_meta`'s output; ValueError/TypeError if bad."""
        raise NotImplementedError

    # What a state read from a file must pass: a check raising `InvariantError` (or
    # ValueError) for a position the rules cannot reach, the game's `check_invariants`.
    # Set where the engine's package puts its modules together (`State.load_check =
    # check_invariants` in its `__init__`), so that the state module imports no rules.
    load_check: ClassVar[Callable[[Any], None] | None] = None

    def _check_loaded(self) -> None:
        """Raise ValueError if a state read from a file is not a valid state (`load_check`)."""
        check = type(self).load_check
        if check is None:
            return
        try:
            check(self)
        except InvariantError as exc:
            raise ValueError(str(exc)) from exc

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the batch to an `.npz` file (arrays plus the config as JSON), whole or
        not at all: the file is written beside `path` and renamed over it."""
        from .files import atomic_write_path

        meta = json.dumps(self._config_meta())
        target = os.fspath(path)
        if not target.endswith(".npz"):
            target += ".npz"  # what numpy would name it
        with atomic_write_path(target) as tmp, open(tmp, "wb") as fh:
            np.savez_compressed(fh, __config__=np.array(meta), **self.arrays())  # type: ignore[arg-type]

    @classmethod
    def load(cls: type[S], path: str | os.PathLike[str]) -> S:
        """Read the batch that `save` wrote to `path`, checking that it is a valid state.

        The file is untrusted: no pickles are read, a file that is not an `.npz` of
        this game (another format, truncated, corrupt) is refused, and the state
        must pass the game's `load_check` (its `check_invariants`).

        Raises:
            ValueError: not a saved state of this game, arrays of the wrong dtype or
                shape, or a position the rules cannot reach (naming what is wrong).
        """
        try:
            data = np.load(path, allow_pickle=False)
        except _READ_ERRORS as exc:
            raise ValueError(f"{path}: not a saved state ({exc})") from exc
        if not isinstance(data, np.lib.npyio.NpzFile):  # a bare .npy array
            raise ValueError(f"{path}: not a saved state (a single array, not an .npz file)")
        names = cls.array_names()
        with data:
            try:
                if "__config__" not in data.files:
                    raise ValueError("no __config__ entry")
                meta_text = str(data["__config__"])
                missing = [n for n in names if n not in data.files]
                if missing:
                    raise ValueError(f"missing arrays {missing}")
                # (C order: the engines write through flat views of their arrays.)
                arrays = {n: np.ascontiguousarray(data[n]) for n in names}
            except _READ_ERRORS as exc:
                raise ValueError(f"{path}: not a saved state ({exc})") from exc
        try:
            meta = json.loads(meta_text)
            if not isinstance(meta, dict):
                raise ValueError("the config entry is not a JSON object")
            cfg = cls._config_from_meta(meta)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            what = "nested too deep" if isinstance(exc, RecursionError) else exc
            raise ValueError(f"{path}: bad config in a saved state: {what}") from exc
        template = cls.empty(cfg, 1)  # type: ignore[attr-defined]
        B = None
        for n in names:
            want, got = getattr(template, n), arrays[n]
            if got.dtype != want.dtype or got.shape[1:] != want.shape[1:] or got.ndim < 1:
                raise ValueError(
                    f"{path}: array {n!r} must be {want.dtype} of shape (B, "
                    f"{', '.join(map(str, want.shape[1:]))}), got {got.dtype} {got.shape}"
                )
            if B is None:
                B = got.shape[0]
            elif got.shape[0] != B:
                raise ValueError(f"{path}: array {n!r} has {got.shape[0]} games, others {B}")
        state: S = cast(Any, cls)(cfg, **arrays)
        try:
            state._check_loaded()
        except ValueError as exc:
            raise ValueError(f"{path}: not a valid state: {exc}") from exc
        return state


# What reading a file that is not a whole `.npz` of plain arrays raises: numpy's
# ValueError for pickled data, zipfile's and zlib's errors for a corrupt or truncated
# archive, EOFError for a member cut short.
_READ_ERRORS = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


BASE_FIELDS: tuple[Field, ...] = (
    Field("key", "uint64", (), 0, "the game's random key (its future chance events)"),
    Field("current_player", "int8", (), -1, "seat to act, -1 once the game is over"),
    Field("legal", "bool", ("A",), False, "legal actions of the player to act; none once over"),
    Field("rewards", "float32", ("P",), 0, "rewards of the last step"),
    Field("terminated", "bool", (), False, "the game ended by its rules"),
    Field("truncated", "bool", (), False, "the game was cut short"),
    Field("winner", "int8", (), -1, "the winning seat, -1 for none (draw, cut short, running)"),
)
"""The fields every layer above the engines reads (P players, A actions): each game's
`FIELDS` holds them, with these dtypes and shapes, in the place and words it likes."""


class GameState(BatchedState):
    """A `BatchedState` with the fields every layer above the engines reads (`BASE_FIELDS`);
    each game's `State` subclasses it, naming its field specification:

    ```python
    class State(GameState, fields=FIELDS, sizes=sizes, config=Config):
        pass  # methods of the game's own, if any
    ```

    `FIELDS` is a tuple of `fields.Field` (the base fields among them) and `sizes(config)`
    the values of the symbols their shapes and fills name ("P" and "A" at least). The
    subclass becomes a frozen dataclass `State(config, **arrays)` with a field per
    entry, in order (a field declared in the class body as well is an error), compared
    by `equal`; `State.empty(config, B)` is a blank batch and the class docstring gets
    the fields' table. `config=Config` names the config class (`config_class`): for a
    dataclass of JSON-able fields, `save` and `load` then need nothing more.
    """

    FIELDS: ClassVar[tuple[Field, ...]] = ()
    sizes: ClassVar[Callable[[Any], Mapping[str, int]]]
    config_class: ClassVar[type | None] = None

    key: np.ndarray
    current_player: np.ndarray
    legal: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    winner: np.ndarray

    if TYPE_CHECKING:  # the dataclass's, made by __init_subclass__ from the spec

        def __init__(self, config: Any, **arrays: np.ndarray) -> None: ...

        def __getattr__(self, name: str) -> np.ndarray: ...

    def __init_subclass__(
        cls,
        fields: Sequence[Field] | None = None,
        sizes: Callable[[Any], Mapping[str, int]] | None = None,
        config: type | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if config is not None:
            cls.config_class = config
        if fields is None:
            return
        if sizes is None:
            raise TypeError(f"{cls.__name__}: a state with fields needs sizes=(config -> dict)")
        fields = tuple(fields)
        _check_fields(cls.__name__, fields)
        own = dict(cls.__dict__.get("__annotations__", {}))
        declared = [n for n, t in own.items() if n != "config" and "ClassVar" not in str(t)]
        if declared:
            raise TypeError(
                f"{cls.__name__}: fields {declared} are declared in the class body; "
                "the fields= specification declares every array field"
            )
        annotations = {"config": own.get("config", config.__name__ if config else "Any")}
        annotations.update((f.name, "np.ndarray") for f in fields)
        annotations.update((n, t) for n, t in own.items() if "ClassVar" in str(t))
        cls.__annotations__ = annotations
        cls.FIELDS = fields
        cls.sizes = staticmethod(sizes)  # type: ignore[assignment]
        cls._array_names = names(fields)
        cls.__doc__ = f"{(cls.__doc__ or '').rstrip()}\n\n{markdown(fields)}\n"
        dataclasses.dataclass(frozen=True, eq=False)(cls)

    def _config_meta(self) -> dict[str, Any]:
        """For a dataclass `config=` class: the state's class and the config's fields."""
        return {"state": _qualified(type(self)), "config": dataclasses.asdict(self.config)}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Any:
        if meta.get("state") != _qualified(cls) or cls.config_class is None:
            raise ValueError(f"not a {_qualified(cls)} (state {meta.get('state')!r})")
        return cls.config_class(**meta.get("config", {}))

    @classmethod
    def empty(cls: type[G], config: Any, batch_size: int) -> G:
        """A blank batch of `batch_size` games of `config`: every array at its `FIELDS`
        fill (filled by `init`)."""
        # The fields resolved once per config object (it is frozen; the cache holds it,
        # so its id is not reused while the entry lives).
        hit = _RESOLVED.get((cls, id(config)))
        if hit is None or hit[0] is not config:
            hit = (config, resolve(cls.FIELDS, cls.sizes(config)))
            if len(_RESOLVED) >= 256:
                _RESOLVED.clear()
            _RESOLVED[cls, id(config)] = hit
        return cls(config, **allocate(hit[1], {}, batch_size))

    @property
    def num_players(self) -> int:
        """P, the players at the table."""
        return int(self.rewards.shape[1])


_RESOLVED: dict[tuple[type, int], tuple[Any, tuple[Resolved, ...]]] = {}


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _check_fields(owner: str, fields: tuple[Field, ...]) -> None:
    """TypeError unless `fields` are unique names and hold `BASE_FIELDS` as they are."""
    seen = names(fields)
    if len(set(seen)) != len(seen) or "config" in seen:
        raise TypeError(f"{owner}: field names must be unique and not 'config', got {seen}")
    by_name = {f.name: f for f in fields}
    for base in BASE_FIELDS:
        got = by_name.get(base.name)
        if got is None or np.dtype(got.dtype) != np.dtype(base.dtype) or got.shape != base.shape:
            raise TypeError(
                f"{owner}: field {base.name!r} must be {base.dtype} of shape (B, "
                f"{', '.join(map(str, base.shape))}) ({base.meaning}), got {got}"
            )
