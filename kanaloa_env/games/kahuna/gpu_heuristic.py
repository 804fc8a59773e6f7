"""The Kahuna heuristic on a GPU: `HeuristicBot`'s compiled decision (`_decide`, the
CPU bot's own `@njit` function, which numba-cuda compiles as a device function) run
by a CUDA kernel, one thread a game, on the device state itself.

The decision reads only what the player to act may know, from the full state as from
its public view (K6.7, K12: the opponent's hand through `known` and its size; tested
on the CPU in tests/kahuna/test_kahuna_heuristic.py), so no view is built on the
device. Its work arrays are the thread's local memory where the CPU bot allocates
them once per batch. Imported on first use (`GpuHeuristic`), never by `import
kanaloa_env`: it imports numba.cuda.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import cuda

from ...core.gpu import DeviceState, launch
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
        actions[g] = _decide(c, s, g, seat, s.legal[g], (params, race, danger, powers), work)


class GpuHeuristic:
    """A `HeuristicBot` deciding on the device, for the games of a Kahuna `DeviceState`.

    Args:
        bot: the bot whose parameters it plays (default: `HeuristicBot()`).
    """

    name = "heuristic"

    def __init__(self, bot: HeuristicBot | None = None) -> None:
        bot = HeuristicBot() if bot is None else bot
        if not isinstance(bot, HeuristicBot):
            raise TypeError(f"bot must be a Kahuna HeuristicBot, got {type(bot).__name__}")
        self.bot = bot
        self.name = bot.name
        params, race, danger = bot.parameter_arrays()
        self._arrays = tuple(cuda.to_device(a) for a in (params, race, danger, _POWERS))

    def actions(self, state: DeviceState, where: Any, out: Any) -> Any:
        """Write into `out` ((B,) int64 device array) the heuristic's action in every
        game `g` with `where[g]` ((B,) bool device array); other entries are left as
        they were. Every such game needs a player to act (not over)."""
        if state.engine.name != "kahuna":
            raise ValueError(f"GpuHeuristic plays Kahuna, got a {state.engine.name} state")
        launch(
            _decide_where, state.batch_size, state.rules, state.arrays, where, *self._arrays, out
        )
        return out
