"""Bots that decide on the GPU: a game's compiled decision run by a CUDA kernel, one
thread a game, on the device state itself (`Game.gpu_bot`; `GpuVectorEnv` plays them
as opponents without copying the batch to the host). Imported on first use, never by
`import kanaloa_env`: it imports numba.cuda through the kernels it is given."""

from __future__ import annotations

from typing import Any

from .gpu import DeviceState, launch


class GpuBot:
    """`bot` deciding on the GPU through `kernel`.

    Args:
        bot: the CPU bot whose decisions the kernel makes (its parameters are in
            `arrays`); kept as `bot`.
        game: the name of the game whose states it reads.
        kernel: a CUDA kernel `kernel(c, s, where, *arrays, out, n)` that writes the
            bot's action for game g's player to act into `out[g]` where `where[g]`.
        arrays: the kernel's further arguments, device arrays (the parameters).
    """

    def __init__(self, bot: Any, game: str, kernel: Any, arrays: tuple[Any, ...]) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", type(bot).__name__)
        self.game = game
        self._kernel = kernel
        self._arrays = arrays

    def actions(self, state: DeviceState, where: Any, out: Any) -> Any:
        """Write into `out` ((B,) int64 device array) the bot's action in every game `g`
        with `where[g]` ((B,) bool device array); other entries are left as they were.
        Every such game needs a player to act (not over). Returns `out`.

        Raises:
            ValueError: `state` is another game's.
        """
        if state.engine.name != self.game:
            raise ValueError(f"this GPU bot plays {self.game}, got a {state.engine.name} state")
        launch(self._kernel, state.batch_size, state.rules, state.arrays, where, *self._arrays, out)
        return out

    def __repr__(self) -> str:
        return f"GpuBot({self.name!r}, {self.game})"
