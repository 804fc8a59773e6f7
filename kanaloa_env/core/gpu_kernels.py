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
MAX_AUTOMATIC = 1 << 16
"""Decisions `advance` plays in one game in one call at most (a guard: a game that
never came back to its learner would otherwise hold its thread forever)."""
_DRAW_SALT = np.uint64(0x632BE59BD9B4E019)  # the opponents' random draws' own stream


class GameKernels:
    """The CUDA kernels of one game, built from the rule functions of `engine` (a
    `gpu.DeviceEngine`), compiled on first launch."""

    def __init__(self, engine: Any) -> None:
        step_game, reset_game, encode_game = (
            _quiet(f) for f in (engine.step_game, engine.reset_game, engine.encode_game)
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
        key_of, mix, pick = _quiet(game_key_one), _quiet(mix64_one), _quiet(random_legal)
        over = np.int8(engine.game_over)

        # ---- the learner env (`kanaloa_env.wrappers.gpu_vector`) ----------------------
        # Per game: `learner` its learner's seat, `acc` the learner's reward since its
        # last decision, `ret` and `length` the episode's return and learner decisions,
        # `draws` the random opponents' draws in this game, `next_id` the stream index
        # of the slot's next game. `out` (reward, terminated, truncated, won, episode
        # return, episode length, ended) is what one env step reports.

        @cuda.jit(cache=CACHE)
        def learner_step(c, s, actions, learner, acc, length, out, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n:
                for k in range(out.shape[1]):
                    out[g, k] = 0
                if s.phase[g] != over:
                    words = cuda.local.array(WORK, numba.uint64)
                    order = cuda.local.array(WORK, numba.int64)
                    listed = cuda.local.array(WORK, numba.int64)
                    step_game(c, s, g, actions[g], words, order, listed)
                    acc[g] += s.rewards[g, learner[g]]
                    length[g] += 1

        @cuda.jit(cache=CACHE)
        def advance(
            c,
            s,
            learner,
            acc,
            ret,
            length,
            draws,
            next_id,
            out,
            pending,
            count,
            base,
            stride,
            seat,
            random,
            n,
        ):  # type: ignore[no-untyped-def]
            """Play the opponents of game g up to its learner's next decision: in the
            kernel when `random` (uniform legal actions), else mark the game `pending`
            (counted in `count[0]`) for the caller's policy. A game that ends is
            reported in `out` and restarted as the slot's next game of the stream
            (`next_id`, then `stride` on); its learner sits in seat `seat`, or
            game id mod P when `seat` < 0."""
            g = cuda.grid(1)
            if g >= n:
                return
            words = cuda.local.array(WORK, numba.uint64)
            order = cuda.local.array(WORK, numba.int64)
            listed = cuda.local.array(WORK, numba.int64)
            pending[g] = False
            P = s.rewards.shape[1]
            for _ in range(MAX_AUTOMATIC):
                if s.phase[g] == over:
                    if out[g, 6] != 0:  # ended twice in one step: reported as stuck
                        cuda.atomic.add(count, 1, 1)
                        return
                    me = learner[g]
                    reward = acc[g]
                    out[g, 0] = reward
                    out[g, 1] = s.terminated[g]
                    out[g, 2] = s.truncated[g]
                    out[g, 3] = s.winner[g] == me
                    out[g, 4] = ret[g] + reward
                    out[g, 5] = length[g]
                    out[g, 6] = 1
                    acc[g] = 0
                    ret[g] = 0
                    length[g] = 0
                    draws[g] = 0
                    game = next_id[g]
                    next_id[g] = game + stride
                    reset_game(c, s, g, key_of(base, np.uint64(game)), words, order)
                    learner[g] = game % P if seat < 0 else seat
                    continue
                if s.current_player[g] == learner[g]:
                    return
                if not random:
                    pending[g] = True
                    cuda.atomic.add(count, 0, 1)
                    return
                a = pick(s.legal[g], mix(s.key[g] ^ mix(np.uint64(draws[g]) ^ _DRAW_SALT)))
                draws[g] += 1
                step_game(c, s, g, a, words, order, listed)
                acc[g] += s.rewards[g, learner[g]]
            cuda.atomic.add(count, 1, 1)

        @cuda.jit(cache=CACHE)
        def opponents_step(c, s, actions, pending, learner, acc, n):  # type: ignore[no-untyped-def]
            g = cuda.grid(1)
            if g < n and pending[g]:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                listed = cuda.local.array(WORK, numba.int64)
                step_game(c, s, g, actions[g], words, order, listed)
                acc[g] += s.rewards[g, learner[g]]

        @cuda.jit(cache=CACHE)
        def random_play(c, s, draws, next_id, base, stride, out, with_obs, steps, n):  # type: ignore[no-untyped-def]
            """`steps` decisions of random legal self-play in game g (`advance`'s draws),
            a finished game restarted first as the slot's next game; with `with_obs`,
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
                a = pick(s.legal[g], mix(s.key[g] ^ mix(np.uint64(draws[g]) ^ _DRAW_SALT)))
                draws[g] += 1
                step_game(c, s, g, a, words, order, listed)
                if with_obs:
                    encode_game(c, s, g, max(np.int64(s.current_player[g]), 0), out[g])

        self.random_play = random_play
        self.learner_step, self.advance, self.opponents_step = (
            learner_step,
            advance,
            opponents_step,
        )

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


@cuda.jit(cache=CACHE)
def fill(flat, value, n):  # type: ignore[no-untyped-def]
    """The first `n` entries of the 1-D device array `flat` set to `value`
    (`gpu.device_full`)."""
    i = cuda.grid(1)
    if i < n:
        flat[i] = value


@cuda.jit(cache=CACHE)
def collect(acc, ret, out, n):  # type: ignore[no-untyped-def]
    """The end of an env step over `n` games: a game that did not end (column 6 of its row
    of `out` is 0) reports in column 0 the learner's reward since its last decision,
    `acc`, which is added to its return `ret` and cleared (a game that ended reported its
    final one; what its new game brought before the learner's first decision stays for
    the next step)."""
    g = cuda.grid(1)
    if g < n and out[g, 6] == 0:
        out[g, 0] = acc[g]
        ret[g] += acc[g]
        acc[g] = 0


def count_illegal_where(actions: Any, legal: Any, where: Any) -> int:
    """How many games flagged in (B,) bool `where` have their entry of `actions` out of
    range or not set in their row of `legal`."""
    count = cuda.to_device(np.zeros(1, dtype=np.int64))
    launch(_illegal_where, len(where), actions, legal, where, count)
    return int(count.copy_to_host()[0])


@cuda.jit(cache=CACHE)
def _illegal_where(actions, legal, where, count, n):  # type: ignore[no-untyped-def]
    g = cuda.grid(1)
    if g < n and where[g]:
        a = actions[g]
        if a < 0 or a >= legal.shape[1] or not legal[g, a]:
            cuda.atomic.add(count, 0, 1)


@cuda.jit(cache=CACHE)
def _illegal(actions, legal, phase, over, count, n):  # type: ignore[no-untyped-def]
    g = cuda.grid(1)
    if g < n and phase[g] != over:
        a = actions[g]
        if a < 0 or a >= legal.shape[1] or not legal[g, a]:
            cuda.atomic.add(count, 0, 1)
