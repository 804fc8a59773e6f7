"""The Kahuna heuristic on a GPU: `HeuristicBot`'s compiled decision (`_decide`, the
CPU bot's own `@njit` function, which numba-cuda compiles as a device function) run
by a CUDA kernel, one thread a game, on the device state itself.

The decision reads only what the player to act may know (`public`, K6.7, K12: the
opponent's hand through `known` and its size), from the full state as from its public
view (tested on the CPU in tests/games/kahuna/test_kahuna_heuristic.py), so no view is built
on the device. Its work arrays are the thread's local memory where the CPU bot allocates
them once per batch. Imported on first use (`Game.gpu_bot`), never by `import
kanaloa_env`: it imports numba.cuda.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import cuda

from ...core.gpu_bot import GpuBot
from ...core.gpu_kernels import CACHE
from ...core.kahuna.constants import NUM_ISLANDS
from .heuristic import _POWERS, HeuristicBot, _decide


@cuda.jit(cache=CACHE)
def _decide_where(c, s, where, params, race, danger, powers, actions, n):  # type: ignore[no-untyped-def]
    """actions[g] = the heuristic's action for game g's player to act, where `where[g]`."""
    g = cuda.grid(1)
    if g < n and where[g]:
        work = (
            cuda.local.array((4, NUM_ISLANDS), numba.int64),  # cards
            cuda.local.array(3, numba.int64),  # facts
            cuda.local.array(5, numba.float64),  # moment
            cuda.local.array((3, NUM_ISLANDS), numba.float64),  # terms of island sums
            cuda.local.array(NUM_ISLANDS, numba.float32),  # the same in float32
            cuda.local.array(NUM_ISLANDS, numba.float64),  # worth
        )
        seat = np.int64(s.current_player[g])
        bot = (params, race, danger, powers, True)  # `public`: it reads the full state
        actions[g] = _decide(c, s, g, seat, s.legal[g], bot, work)


def gpu_heuristic(bot: HeuristicBot | None = None) -> GpuBot:
    """`bot` (default `HeuristicBot()`) deciding on the GPU for Kahuna device states.

    Raises:
        TypeError: `bot` is not a Kahuna `HeuristicBot`.
    """
    bot = HeuristicBot() if bot is None else bot
    if not isinstance(bot, HeuristicBot):
        raise TypeError(f"bot must be a Kahuna HeuristicBot, got {type(bot).__name__}")
    arrays = tuple(cuda.to_device(a) for a in (*bot.parameter_arrays(), _POWERS))
    return GpuBot(bot, "kahuna", _decide_where, arrays)
