"""A game's compiled step and observation called on one engine state (a batch of one)
without the batch API's Python around them, for the OpenSpiel state.

OpenSpiel drives one game a call at a time from Python: the engine's `step_inplace`
and `observe` check and convert their batch arguments, find the kernels' compiled
code and allocate their outputs at every call, which costs several times the kernels'
own work at batch size one. `OneGame` finds what a state's calls need once per engine
state object (the rules and arrays structures, the compiled code for their types,
the one-entry action and seat arrays) and then calls the compiled code directly: the
same kernels with the same arguments, so the same results.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numba import types

from ..core.engine import Observer
from ..core.kernels import JIT_DISABLED, Entry

__all__ = ["Kernels", "OneGame"]


class OneGame:
    """The compiled calls of one engine state, a batch of one.

    Args:
        state: the engine's state (its arrays have a leading axis of 1).
        step: the compiled step kernel for `state`'s types, called as
            `step(rules, arrays, actions, 0, 1)` with (1,) int64 `actions`.
        observe: the compiled observation loop for `state`'s types, called as
            `observe(rules, arrays, seats, False, out, 0, 1)` with (1,) int64 `seats`
            and a (1, obs_dim) float32 C-contiguous `out`.
    """

    __slots__ = ("_action", "_arrays", "_observe", "_rules", "_seat", "_step")

    def __init__(self, state: Any, step: Any, observe: Any) -> None:
        self._rules = state.config.kernel_rules(0)
        self._arrays = state.kernel_arrays(0)
        self._step = step
        self._observe = observe
        self._action = np.zeros(1, dtype=np.int64)
        self._seat = np.zeros(1, dtype=np.int64)

    def step(self, action: int) -> None:
        """Apply the legal `action` (not checked: the caller has) to the game."""
        self._action[0] = action
        self._step(self._rules, self._arrays, self._action, 0, 1)

    def observe(self, seat: int, out: np.ndarray) -> None:
        """Write the observation from `seat` (0..P-1, not checked) into `out`, a
        (1, obs_dim) float32 C-contiguous writeable array."""
        self._seat[0] = seat
        self._observe(self._rules, self._arrays, self._seat, False, out, 0, 1)


class _PublicCalls:
    """`OneGame`'s calls through the engine's public batch API: for an engine whose
    kernels are not laid out as Kanaloa's and Kahuna's, and under NUMBA_DISABLE_JIT."""

    __slots__ = ("_game", "_state")

    def __init__(self, game: Any, state: Any) -> None:
        self._game = game
        self._state = state

    def step(self, action: int) -> None:
        self._game.step_inplace(self._state, np.array([action], dtype=np.int64), validate=False)

    def observe(self, seat: int, out: np.ndarray) -> None:
        out[0] = self._game.observe(self._state, seat=seat)[0]


class Kernels:
    """Where one game's compiled step and observation are (`bind` makes a state's
    `OneGame`).

    The step kernel is the engine package's `step._step_range(rules, arrays, actions,
    lo, hi)` and the observation loop its `Observer`'s (`engine.observe`), as the
    engines of `kanaloa_env.core` define them; a game without them is called through
    its public `step_inplace` and `observe` (slower, the same results).

    Args:
        game: the engine's `Game` (`kanaloa_env.games.get_game(name)`).
    """

    def __init__(self, game: Any) -> None:
        self._game = game
        self._step: Entry | None = None
        self._observe: Entry | None = None
        if JIT_DISABLED:
            return
        engine = game.engine
        try:
            step_range = importlib.import_module(engine.__name__ + ".step")._step_range
        except (ImportError, AttributeError):
            return
        observer = getattr(getattr(engine, "observe", None), "__self__", None)
        if isinstance(observer, Observer):
            self._step = Entry(step_range, types.int64[::1])
            self._observe = observer._entry

    def bind(self, state: Any) -> OneGame | _PublicCalls:
        """The calls of the engine state `state` (a batch of one)."""
        if self._step is None or self._observe is None:
            return _PublicCalls(self._game, state)
        step, observe = self._step(state), self._observe(state)
        if step is self._step.fn or observe is self._observe.fn:  # types not known
            return _PublicCalls(self._game, state)
        return OneGame(state, step, observe)
