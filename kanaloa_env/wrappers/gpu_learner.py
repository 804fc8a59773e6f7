"""The device half of `GpuVectorEnv` (`gpu_vector`): the CUDA kernels of one env step, one
GPU thread a game, and the columns of the report they write.

Per game the env keeps on the device: `learner` its learner's seat, `acc` the
learner's reward since its last decision, `ret` and `length` the episode's return and
learner decisions, `draws` the random opponents' draws in this game, `next_id` the
stream index of the slot's next game, and `out`, the (N, len(COLUMNS)) float32 report
of one env step (`read_report`). A step is `learner_step` (the learner actions),
`advance` and `opponents_step` in rounds (the opponents, up to each learner's next
decision; a game that ends is reported and restarted), then `collect`.

Imported by `gpu_vector` once CUDA is usable (`core.gpu.cuda_module`), as `core.gpu`
imports the engines' kernels (`core.gpu_kernels`, whose rule-function form and random
draws these kernels share).
"""

from __future__ import annotations

import functools
from typing import Any

import numba
import numpy as np
from numba import cuda

from ..core.gpu import launch
from ..core.gpu_kernels import CACHE, WORK, quiet, random_draw
from ..core.rng import game_key_one

COLUMNS = ("reward", "terminated", "truncated", "won", "episode_return", "episode_length", "ended")
"""The columns of the report of one env step, in order: the learner's reward, how the
game ended, whether the learner won, the episode's return and learner decisions, and
whether the game ended in this step (its slot then holds the next game)."""
REWARD, TERMINATED, TRUNCATED, WON, RETURN, LENGTH, ENDED = range(len(COLUMNS))
MAX_AUTOMATIC = 1 << 16
"""Decisions `advance` plays in one game in one call at most (a guard: a game that
never came back to its learner would otherwise hold its thread forever)."""


class LearnerKernels:
    """The env-step kernels of one game (a `core.gpu.DeviceEngine`), compiled on first
    launch; `learner_kernels(engine)` builds them once per engine."""

    def __init__(self, engine: Any) -> None:
        step_game, reset_game = quiet(engine.step_game), quiet(engine.reset_game)
        key_of, draw = quiet(game_key_one), quiet(random_draw)
        over = np.int8(engine.game_over)

        @cuda.jit(cache=CACHE)
        def learner_step(c, s, actions, learner, acc, length, out, n):  # type: ignore[no-untyped-def]
            """The learner actions applied in the games not over; the report cleared."""
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
            game id mod P when `seat` < 0. A game stuck (ending twice in one step, or
            past `MAX_AUTOMATIC` decisions) is counted in `count[1]`."""
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
                    if out[g, ENDED] != 0:
                        cuda.atomic.add(count, 1, 1)
                        return
                    me = learner[g]
                    reward = acc[g]
                    out[g, REWARD] = reward
                    out[g, TERMINATED] = s.terminated[g]
                    out[g, TRUNCATED] = s.truncated[g]
                    out[g, WON] = s.winner[g] == me
                    out[g, RETURN] = ret[g] + reward
                    out[g, LENGTH] = length[g]
                    out[g, ENDED] = 1
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
                a = draw(s.legal[g], s.key[g], draws[g])
                draws[g] += 1
                step_game(c, s, g, a, words, order, listed)
                acc[g] += s.rewards[g, learner[g]]
            cuda.atomic.add(count, 1, 1)

        @cuda.jit(cache=CACHE)
        def opponents_step(c, s, actions, pending, learner, acc, n):  # type: ignore[no-untyped-def]
            """The opponents' `actions` applied in the games flagged `pending`."""
            g = cuda.grid(1)
            if g < n and pending[g]:
                words = cuda.local.array(WORK, numba.uint64)
                order = cuda.local.array(WORK, numba.int64)
                listed = cuda.local.array(WORK, numba.int64)
                step_game(c, s, g, actions[g], words, order, listed)
                acc[g] += s.rewards[g, learner[g]]

        self.learner_step, self.advance, self.opponents_step = (
            learner_step,
            advance,
            opponents_step,
        )


@functools.cache
def learner_kernels(engine: Any) -> LearnerKernels:
    """The env-step kernels of `engine` (a `core.gpu.DeviceEngine`), built once."""
    return LearnerKernels(engine)


@cuda.jit(cache=CACHE)
def collect(acc, ret, out, n):  # type: ignore[no-untyped-def]
    """The end of an env step: a game that did not end reports the learner's reward
    since its last decision (a game that ended reported its final one; what its new
    game brought before the learner's first decision stays for the next step).

    Device arrays over the `n` games: `acc` (n,) float32 the learner's reward since its
    last decision (copied into the report, then zeroed), `ret` (n,) float32 the episode's
    return (adds it), `out` the (n, len(COLUMNS)) float32 report of the step.
    """
    g = cuda.grid(1)
    if g < n and out[g, ENDED] == 0:
        out[g, REWARD] = acc[g]
        ret[g] += acc[g]
        acc[g] = 0


def read_report(out: Any) -> tuple[Any, Any, dict[str, Any]]:
    """`(reward, done, info)` of one env step from its report `out`, an (N, len(COLUMNS))
    float32 torch tensor over the device buffer: (N,) views of its columns (no copy),
    `done` and the flags of `info` as bool tensors."""
    info = {
        "terminated": out[:, TERMINATED] > 0,
        "truncated": out[:, TRUNCATED] > 0,
        "won": out[:, WON] > 0,
        "episode_return": out[:, RETURN],
        "episode_length": out[:, LENGTH],
    }
    return out[:, REWARD], out[:, ENDED] > 0, info


def count_illegal_where(actions: Any, legal: Any, where: Any) -> int:
    """How many games flagged in (B,) bool `where` have an action out of range or illegal:
    `actions` (B,) integers and `legal` the (B, A) bool masks, device arrays."""
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
