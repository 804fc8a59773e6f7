"""The Kanaloa heuristic on a GPU: `HeuristicBot`'s compiled decision (`_decide_range`,
the CPU bot's own `@njit` function, which numba-cuda compiles as a device function)
run by a CUDA kernel, one thread a game, on the device state itself.

The decision reads the player's own hand and public facts only, so the full state and
its public view give the same actions (tested on the CPU in
tests/bots/test_bots.py), and no view is built on the device. Its work arrays are
the thread's local memory (the per-player ones sized for 5 players and cut to the
table's) where the CPU bot allocates them once per batch. Imported on first use
(`Game.gpu_bot`), never by `import kanaloa_env`: it imports numba.cuda.
"""

from __future__ import annotations

import numba
from numba import cuda

from ...core.gpu_bot import GpuBot
from ...core.gpu_kernels import CACHE
from ...core.kanaloa.constants import MAX_PLAYERS, NUM_CARD_TYPES, NUM_SUITS, NUM_TIKI
from .heuristic import HeuristicBot, _decide_range


@cuda.jit(cache=CACHE)
def _decide_where(c, s, where, params, actions, n):  # type: ignore[no-untyped-def]
    """actions[g] = the heuristic's action for game g's player to act, where `where[g]`."""
    g = cuda.grid(1)
    if g < n and where[g]:
        P = c.num_players
        work = (
            cuda.local.array(NUM_CARD_TYPES, numba.int64),  # mine
            cuda.local.array(NUM_CARD_TYPES, numba.int64),  # unseen
            cuda.local.array(NUM_TIKI, numba.int64),  # above
            cuda.local.array(NUM_SUITS, numba.int64),  # suit_unseen
            cuda.local.array(MAX_PLAYERS, numba.int64)[:P],  # trick
            cuda.local.array(MAX_PLAYERS, numba.int64)[:P],  # cards
            cuda.local.array(NUM_CARD_TYPES, numba.float64),  # keep
            cuda.local.array(NUM_CARD_TYPES, numba.float64),  # pw
            cuda.local.array(NUM_CARD_TYPES, numba.boolean),  # win
            cuda.local.array(MAX_PLAYERS, numba.int64)[:P],  # dist
            cuda.local.array(MAX_PLAYERS, numba.int32)[:P],  # progress
        )
        _decide_range(c, s, s.current_player, s.legal, params, actions, g, g + 1, work)


def gpu_heuristic(bot: HeuristicBot | None = None) -> GpuBot:
    """`bot` (default `HeuristicBot()`) deciding on the GPU for Kanaloa device states.

    Raises:
        TypeError: `bot` is not a Kanaloa `HeuristicBot`.
    """
    bot = HeuristicBot() if bot is None else bot
    if not isinstance(bot, HeuristicBot):
        raise TypeError(f"bot must be a Kanaloa HeuristicBot, got {type(bot).__name__}")
    return GpuBot(bot, "kanaloa", _decide_where, (cuda.to_device(bot.parameter_array()),))
