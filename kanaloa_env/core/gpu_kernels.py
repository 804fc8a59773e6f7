"""The CUDA kernels of the engines: one GPU thread a game, each calling the game's rule
functions (the CPU engine's `@njit` functions, which numba-cuda compiles as device
functions). Imported by `gpu.kernels()` once CUDA is usable; see `gpu.py`.

Each kernel takes the item count `n` last (`gpu.launch`) and leaves threads past it
idle. The work arrays of a deal or a reshuffle are the thread's local memory
(`cuda.local.array`), where the CPU's batch loops allocate them once per range.
"""

from __future__ import annotations

import os
from typing import Any

import numba
import numpy as np
from numba import cuda

from .gpu import launch, simulator
from .rng import game_key_one, mix64_one

CACHE = os.environ.get("KANALOA_GPU_CACHE", "1") != "0"
"""Whether the compiled kernels are cached on disk (numba-cuda's `cache=True`): set
KANALOA_GPU_CACHE=0 to compile them afresh in every process."""
WORK = 64
"""Entries of each work array of a rule function (Kanaloa deals 53 cards, Kahuna 21)."""
DRAW_SALT = np.uint64(0x632BE59BD9B4E019)
"""The salt of `random_draw`'s stream, apart from the game's own random draws."""


class GameKernels:
    """The CUDA kernels of one game, built from the rule functions of `engine` (a
    `gpu.DeviceEngine`), compiled on first launch."""

    def __init__(self, engine: Any) -> None:
        step_game, reset_game, encode_game = (
            quiet(f) for f in (engine.step_game, engine.reset_game, engine.encode_game)
        )
        self.engine = engine

        @cuda.jit(cache=CACHE)
        def step(c, s, actions, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                listed = cuda.local.array(WORK, numba.int64)
                step_game(c, s, g, actions[g], words, order, listed)

        @cuda.jit(cache=CACHE)
        def reset(c, s, idx, keys, n):  # type: ignore[no-untyped-def]
            i = cuda.grid(1)
            if i < n:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                reset_game(c, s, idx[i], keys[i], words, order)

        @cuda.jit(cache=CACHE)
        def observe(c, s, seats, to_act, out, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n:
                # `to_act`: each game's player to act, seat 0 once the game is over.
                me = max(np.int64(s.current_player[g]), 0) if to_act else np.int64(seats[g])
                encode_game(c, s, g, me, out[g])

        self.step, self.reset, self.observe = step, reset, observe
        key_of, draw = quiet(game_key_one), quiet(random_draw)
        over = np.int8(engine.game_over)

        @cuda.jit(cache=CACHE)
        def random_play(c, s, draws, next_id, base, stride, out, with_obs, steps, n):  # type: ignore[no-untyped-def]
            """`steps` decisions of random legal self-play in game g (`random_draw`), a
            finished game restarted first as the slot's next game; with `with_obs`,
            the observation of the player to act written to `out[g]` after each (the
            loop the GPU benchmark times, bench_gpu.py)."""
            g = cuda.grid(1)
            if g >= n:
                return
            words = cuda.local.array(WORK, numba.uint64)
            order = cuda.local.array(WORK, numba.int64)
            listed = cuda.local.array(WORK, numba.int64)
            for _ in range(steps):
                if s.phase[g] == over:
                    game = next_id[g]
                    next_id[g] = game + stride
                    draws[g] = 0
                    reset_game(c, s, g, key_of(base, np.uint64(game)), words, order)
                a = draw(s.legal[g], s.key[g], draws[g])
                draws[g] += 1
                step_game(c, s, g, a, words, order, listed)
                if with_obs:
                    encode_game(c, s, g, max(np.int64(s.current_player[g]), 0), out[g])

        self.random_play = random_play

    def count_illegal(self, state: Any, actions: Any) -> int:
        """How many games of `state` not over have their entry of `actions` out of range or
        not legal."""
        count = cuda.to_device(np.zeros(1, dtype=np.int64))
        s = state.arrays
        launch(_illegal, state.batch_size, actions, s.legal, s.phase, self.engine.game_over, count)
        return int(count.copy_to_host()[0])


@numba.njit(cache=True, nogil=True, error_model="numpy")
def random_legal(legal, word):  # type: ignore[no-untyped-def]
    """The legal action of mask row `legal` that the random word `word` (uint64) picks,
    uniformly (its top 31 bits modulo the count; 0 for a row without one)."""
    total = 0
    for a in range(legal.shape[0]):
        total += legal[a]
    k = np.int64(word >> np.uint64(33)) % max(total, 1)
    for a in range(legal.shape[0]):
        if legal[a]:
            if k == 0:
                return a
            k -= 1
    return 0


@numba.njit(cache=True, nogil=True, error_model="numpy")
def random_draw(legal, key, draws):  # type: ignore[no-untyped-def]
    """The `draws`-th random legal action (`random_legal`) of a game with key `key`
    (uint64) and mask row `legal`, the same on any device and batch size: the random
    opponents of the learner env (`kanaloa_env.wrappers.gpu_learner`) and `random_play`."""
    return random_legal(legal, mix64_one(key ^ mix64_one(np.uint64(draws) ^ DRAW_SALT)))


def quiet(fn: Any) -> Any:
    """`fn`, or in the simulator `fn` silencing numpy's overflow warnings: there the rule
    functions run as Python (NUMBA_DISABLE_JIT) on numpy scalars, whose integer
    arithmetic wraps on purpose in the random hashes, in threads of their own (numpy's
    error state is per thread: `kernels.run_batch`'s does not reach them)."""
    if not simulator():
        return fn

    def silenced(*args: Any) -> Any:
        with np.errstate(over="ignore"):
            return fn(*args)

    return silenced


@cuda.jit(cache=CACHE)
def fill(flat, value, n):  # type: ignore[no-untyped-def]
    """The first `n` entries of the 1-D device array `flat` set to `value`
    (`gpu.device_full`)."""
    i = cuda.grid(1)
    if i < n:
        flat[i] = value


@cuda.jit(cache=CACHE)
def _illegal(actions, legal, phase, over, count, n):  # type: ignore[no-untyped-def]
    g = cuda.grid(1)
    if g < n and phase[g] != over:
        a = actions[g]
        if a < 0 or a >= legal.shape[1] or not legal[g, a]:
            cuda.atomic.add(count, 0, 1)
