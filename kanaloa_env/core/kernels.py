"""What the compiled engines share: the kernel decorator and running a batch on threads.

The rules of each game are plain per-game functions compiled with numba
(`@kernel`); a batch function loops over its games inside compiled code, given a
range `lo..hi` of the batch, and `run_batch` splits a batch into ranges for
several threads (DESIGN.md, "Compiled kernels"). Games are independent, so a
result never depends on the thread count.

- Compiled code is cached on disk (numba's `cache=True`: next to the sources, or
  in the user's cache folder when the package folder is read-only), so only the
  first run on a machine compiles.
- `NUMBA_DISABLE_JIT=1` runs the very same functions as Python, for a debugger
  or coverage; integer arithmetic that wraps on purpose (the random hashes) then
  runs on numpy scalars, whose overflow warnings `run_batch` silences.
- Kernels release the GIL (`nogil`), allocate nothing per game and raise nothing:
  the Python wrappers check their inputs before a kernel runs.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import FunctionType
from typing import Any, TypeVar

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref

F = TypeVar("F", bound=Callable[..., Any])

JIT_DISABLED: bool = bool(getattr(numba.config, "DISABLE_JIT", False))
"""True under `NUMBA_DISABLE_JIT=1`: the kernels run as Python."""


# error_model="numpy": division by zero gives inf/nan instead of raising (the kernels
# never divide by zero; the check would cost a branch per division).
def kernel(fn: F) -> F:
    """Compile `fn` with the engines' options (cached, GIL released, no exceptions)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)  # type: ignore[return-value]


def small_kernel(fn: F) -> F:
    """`kernel` for `fn`, a small function that compiled callers take in whole (numba's
    `inline="always"`): it is not compiled on its own for them, which shortens the
    first compilation (each compiled function costs a fraction of a second more)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")(fn)  # type: ignore[return-value]


def module_kernel(template: Callable[..., Any], module: str, **names: Any) -> Any:
    """`kernel(template)` compiled as a function of the module named `module`, whose
    global `names` it calls (each game's `encode_game`, say): a batch loop written once
    in the shared core and compiled per game (`engine.Observer`).

    numba's disk cache keys a compiled function on the file that defines it and throws
    it away when that file changes; a loop compiled as the shared module's function
    would take in a game's kernels but be kept with the shared file. As a function of
    the game's module its compiled code is cached next to the game's sources and
    compiled again when they change (or when the template's bytecode does: numba's
    index holds its hash). Under `NUMBA_DISABLE_JIT=1` it keeps the template's file,
    for tracebacks.
    """
    code = template.__code__
    if not JIT_DISABLED:
        code = code.replace(co_filename=inspect.getfile(sys.modules[module]))
    fn = FunctionType(code, {**template.__globals__, **names}, template.__name__)
    fn.__module__, fn.__qualname__, fn.__doc__ = module, template.__qualname__, template.__doc__
    return kernel(fn)


class StructType(types.StructRef):
    """Base of the numba types of the engines' state structures (`State.kernel_arrays`):
    a structure of arrays passed to a kernel as one reference. Against a named tuple
    of the same arrays it compiles several times faster (numba handles a large tuple
    argument in every function it reaches) and calls faster (one argument to unbox)."""

    def preprocess_fields(self, fields: Any) -> Any:
        """The `fields` (name, numba type) with literal types widened, so that one
        compiled function serves every value."""
        return tuple((name, types.unliteral(t)) for name, t in fields)


def define_struct(type_class: type, proxy_class: type, fields: tuple[str, ...]) -> None:
    """Register `type_class` (a `StructType` subclass defined at a module's top level, so
    that cached code can name it) and `proxy_class`, its Python proxy, with the names of
    `fields`."""
    structref.register(type_class)
    structref.define_proxy(proxy_class, type_class, list(fields))


StructProxy = structref.StructRefProxy


def struct_types(module: str, name: str, fields: tuple[str, ...]) -> tuple[type, type]:
    """The numba type `{name}Type` and its Python proxy `{name}Ref` of a structure with
    these fields, registered (`define_struct`). The module `module` (its `__name__`)
    must bind both under these names at its top level: numba's disk cache finds the
    types again by module and name."""
    type_class = type(f"{name}Type", (StructType,), {"__module__": module})
    proxy = type(f"{name}Ref", (StructProxy,), {"__module__": module})
    type_class.__doc__ = f"The numba type of `{name}Ref`."
    proxy.__doc__ = f"`{name}` as one structure, the form the compiled kernels take."
    define_struct(type_class, proxy, fields)
    return type_class, proxy


# Below this many games per thread a batch is not split: handing a range to a pool
# thread costs tens of microseconds, more than a few hundred games' step saves.
MIN_GAMES_PER_THREAD = 1024

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """The shared pool, grown to at least `workers` threads."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or _POOL_SIZE < workers:
            old = _POOL
            _POOL = ThreadPoolExecutor(workers, thread_name_prefix="kanaloa-kernel")
            _POOL_SIZE = workers
            if old is not None:
                old.shutdown(wait=False)  # its queued ranges still run
        return _POOL


def _forget_pool() -> None:
    # A forked child has none of the parent's threads: it starts a pool of its own.
    global _POOL, _POOL_SIZE, _POOL_LOCK
    _POOL, _POOL_SIZE, _POOL_LOCK = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def check_threads(threads: object) -> int:
    """`threads` as an int >= 1, or a TypeError/ValueError naming it."""
    if type(threads) is int and threads >= 1:
        return threads
    if not isinstance(threads, (int, np.integer)) or isinstance(threads, (bool, np.bool_)):
        raise TypeError(f"threads must be an int >= 1, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be an int >= 1, got {threads}")
    return int(threads)


def ranges(size: int, threads: int) -> list[tuple[int, int]]:
    """`0..size` cut into at most `threads` contiguous ranges of at least
    `MIN_GAMES_PER_THREAD` games each (one range when it is small)."""
    parts = max(1, min(threads, size // MIN_GAMES_PER_THREAD))
    bounds = [size * i // parts for i in range(parts + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` for a kernel called from Python outside `run_batch` (the same, but
    silencing numpy's overflow warnings of wrapping hashes under `NUMBA_DISABLE_JIT=1`)."""
    if JIT_DISABLED:
        with np.errstate(over="ignore"):
            return fn(*args)
    return fn(*args)


def run_batch(fn: Callable[..., Any], size: int, threads: int, *args: Any) -> None:
    """Run the batch kernel `fn(*args, lo, hi)` over games `0..size`, on up to `threads`
    threads (this one and the shared pool's), each with a contiguous range."""
    if JIT_DISABLED:
        with np.errstate(over="ignore"):
            for lo, hi in ranges(size, threads):
                fn(*args, lo, hi)
        return
    if threads == 1 or size < 2 * MIN_GAMES_PER_THREAD:
        fn(*args, 0, size)
        return
    parts = ranges(size, threads)
    futures = [_pool(len(parts) - 1).submit(fn, *args, lo, hi) for lo, hi in parts[1:]]
    lo, hi = parts[0]
    fn(*args, lo, hi)
    for future in futures:
        future.result()


def run_state(fn: Callable[..., Any], size: int, threads: int, state: Any, *rest: Any) -> None:
    """`run_batch` for a state's kernel `fn(rules, arrays, *rest, lo, hi)` over `size`
    games of `state` on up to `threads` threads, `rest` passed on: each thread
    gets its own structures of the config's rules and the state's arrays
    (`kernel_rules(k)`, `kernel_arrays(k)`: the same arrays), so that the threads do
    not share the reference counters numba updates on every access to them."""
    config = state.config
    if JIT_DISABLED or threads == 1 or size < 2 * MIN_GAMES_PER_THREAD:
        run_batch(fn, size, 1, config.kernel_rules(0), state.kernel_arrays(0), *rest)
        return
    parts = ranges(size, threads)
    pool = _pool(len(parts) - 1)
    futures = [
        pool.submit(fn, config.kernel_rules(k), state.kernel_arrays(k), *rest, lo, hi)
        for k, (lo, hi) in enumerate(parts)
        if k > 0
    ]
    lo, hi = parts[0]
    fn(config.kernel_rules(0), state.kernel_arrays(0), *rest, lo, hi)
    for future in futures:
        future.result()


@small_kernel
def popcount(value: int) -> int:
    """The number of set bits of `value`, a non-negative integer below 2**63 (branch-free: a
    loop over the set bits cost more in the engines' hot paths)."""
    x = np.int64(value)
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return int(x & 0x7F)


@kernel
def argsort_small(words: np.ndarray, n: int, order: np.ndarray) -> None:
    """Write into `order[:n]` the indices 0..n-1 sorted by `words[:n]` (equal words keep
    their index order, as a stable sort). Insertion sort: the kernels sort a few dozen
    words at a time, in work arrays they are given."""
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        j = i
        k = order[i]
        w = words[k]
        while j > 0 and words[order[j - 1]] > w:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k


@kernel
def count_illegal(actions: np.ndarray, legal: np.ndarray, current_player: np.ndarray) -> int:
    """How many games with a player to act (`current_player >= 0`: not over) have their
    entry of `actions` outside 0..A-1 or not set in their row of the (B, A) `legal` mask: the check
    of every engine's `step` (the caller builds the error message when it is not 0)."""
    A = legal.shape[1]
    bad = 0
    for g in range(len(actions)):
        if current_player[g] < 0:
            continue
        a = actions[g]
        if a < 0 or a >= A or not legal[g, a]:
            bad += 1
    return bad


# ---- calling a state's kernels without numba's typing of every call ---------------


def _type_key(value: Any) -> Any:
    """What decides numba's type of `value`, or None where that is not known here: an
    array's dtype, dimensions, layout, writeability and alignment; a tuple's class and
    items; a structure's own type; a Python scalar's class (and, for an int, whether
    it fits int64)."""
    t = type(value)
    if isinstance(value, StructProxy):
        return value._numba_type_
    if t is np.ndarray:
        f = value.flags
        return (value.dtype, value.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned)
    if isinstance(value, tuple):
        keys = tuple(_type_key(v) for v in value)
        return None if any(k is None for k in keys) else (t, keys)
    if t is bool or t is float:
        return t
    if t is int:
        return (t, -(2**63) <= value < 2**63)
    return None


_STATE_TYPES: dict[Any, tuple[Any, Any]] = {}  # interned: `Entry` keys on their ids
_INTERNED: dict[int, tuple[Any, Any]] = {}  # the same by id (they are never freed)


def state_types(state: Any) -> tuple[Any, Any] | None:
    """numba's types of `state.config.rules` and `state.kernel_arrays()`, found once per
    state object (from a key of their dtypes and flags: `numba.typeof` of ~30 arrays
    takes ~0.2 ms); None where a value's type is not known here."""
    got = state.__dict__.get("_kernel_types", False)
    if got is not None and _INTERNED.get(id(got)) is not got:  # (not yet, or unpickled)
        rules, arrays = state.config.rules, state.kernel_arrays()
        key = (_type_key(rules), _type_key(arrays))
        if key[0] is None or key[1] is None:
            got = None
        else:
            got = _STATE_TYPES.get(key)
            if got is None:
                got = _STATE_TYPES[key] = (numba.typeof(rules), numba.typeof(arrays))
                _INTERNED[id(got)] = got
        object.__setattr__(state, "_kernel_types", got)
    return got


class Entry:
    """Calls of a batch kernel `fn(rules, arrays, *rest, lo, hi)` on a state, whose other
    arguments have the numba types `rest`: `Entry(fn, *rest)(state)` is the kernel's
    compiled code for the state's types, to hand to `run_batch` instead of `fn`.

    numba's dispatcher types every argument of every call: 5-8 us for a state's named
    tuple of ~30 arrays, more than a game's step at batch size 1. Compiled code found
    once per state object (`state_types`) is called at once (~1 us), so the caller
    must pass exactly the `rest` types (C-contiguous, aligned arrays of those dtypes);
    where it cannot, it calls `fn`. Under NUMBA_DISABLE_JIT, and for a state whose
    types are not known here, the entry is `fn` itself.
    """

    def __init__(self, fn: Callable[..., Any], *rest: Any) -> None:
        self.fn = fn
        self.rest = rest
        self._compiled: dict[int, Callable[..., Any]] = {}

    def __call__(self, state: Any) -> Callable[..., Any]:
        """The kernel's compiled code for the types of `state` (see the class)."""
        if JIT_DISABLED:
            return self.fn
        types = state_types(state)
        if types is None:
            return self.fn
        got = self._compiled.get(id(types))
        if got is None:
            sig = (*types, *self.rest, numba.types.int64, numba.types.int64)
            got = self._compiled[id(types)] = self.fn.compile(sig)  # type: ignore[attr-defined]
        return got
