"""The CUDA kernels of the engines: one GPU thread a game, each calling the game's rule
functions (the CPU engine's `@njit` functions, which numba-cuda compiles as device
functions). Imported by `gpu.kernels()` once CUDA is usable; see `gpu.py`.

Each kernel takes the item count `n` last (`gpu.launch`) and leaves threads past it
idle. The work arrays of a deal or a reshuffle are the thread's local memory
(`cuda.local.array`), where the CPU's batch loops allocate them once per range.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import cuda

from .gpu import launch, simulator

WORK = 64
"""Entries of each work array of a rule function (Kanaloa deals 53 cards, Kahuna 21)."""


class GameKernels:
    """The CUDA kernels of one game (a `gpu.DeviceEngine`), compiled on first launch."""

    def __init__(self, engine: Any) -> None:
        step_game, reset_game, encode_game = (
            _quiet(f) for f in (engine.step_game, engine.reset_game, engine.encode_game)
        )
        self.engine = engine

        @cuda.jit
        def step(c, s, actions, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                listed = cuda.local.array(WORK, numba.int64)
                step_game(c, s, g, actions[g], words, order, listed)

        @cuda.jit
        def reset(c, s, idx, keys, n):  # type: ignore[no-untyped-def]
            i = cuda.grid(1)
            if i < n:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                reset_game(c, s, idx[i], keys[i], words, order)

        @cuda.jit
        def observe(c, s, seats, to_act, out, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n:
                # `to_act`: each game's player to act, seat 0 once the game is over.
                me = max(np.int64(s.current_player[g]), 0) if to_act else np.int64(seats[g])
                encode_game(c, s, g, me, out[g])

        self.step, self.reset, self.observe = step, reset, observe

    def count_illegal(self, state: Any, actions: Any) -> int:
        """How many games not over have an action out of range or not legal."""
        count = cuda.to_device(np.zeros(1, dtype=np.int64))
        s = state.arrays
        launch(_illegal, state.batch_size, actions, s.legal, s.phase, self.engine.game_over, count)
        return int(count.copy_to_host()[0])


def _quiet(fn: Any) -> Any:
    """`fn`, or in the simulator `fn` silencing numpy's overflow warnings: there the rule
    functions run as Python (NUMBA_DISABLE_JIT) on numpy scalars, whose integer
    arithmetic wraps on purpose in the random hashes, in threads of their own (numpy's
    error state is per thread: `kernels.run_batch`'s does not reach them)."""
    if not simulator():
        return fn

    def quiet(*args: Any) -> Any:
        with np.errstate(over="ignore"):
            return fn(*args)

    return quiet


@cuda.jit
def _illegal(actions, legal, phase, over, count, n):  # type: ignore[no-untyped-def]
    g = cuda.grid(1)
    if g < n and phase[g] != over:
        a = actions[g]
        if a < 0 or a >= legal.shape[1] or not legal[g, a]:
            cuda.atomic.add(count, 0, 1)
