"""The engines on a GPU: the same rule functions, compiled for CUDA by numba-cuda.

DESIGN.md, "One field specification, and a GPU target". A game's rules are its
per-game kernels (`step_game`, `reset_game`, `encode_game`), written once in the
game's engine; numba-cuda compiles a CPU `@njit` function that a CUDA kernel calls
as a device function. What is written for the GPU is only the batch loop (one GPU
thread a game: `gpu_kernels.py`) and how the arrays reach it: a `DeviceState` holds
the arrays of a `State` as device arrays, in the state's own named tuple
(`State.kernel_type`), the form the CPU kernels take under `NUMBA_DISABLE_JIT=1`.

```python
from kanaloa_env.core.kanaloa import gpu            # kanaloa_env.core.kahuna.gpu alike

state = gpu.init(Config(num_players=4), batch_size=65536, seed=0)   # on the device
obs = gpu.observe(state)                  # (B, OBS_DIM) float32 device array
mask = gpu.legal_action_mask(state)       # (B, A) bool device array
gpu.step_inplace(state, actions)          # actions: (B,) ints, on the device or not
host = state.to_host()                    # a CPU State; gpu.to_device(host) goes back
logits_in = gpu.as_torch(obs)             # a torch tensor over the same memory
```

- Importing this module (or a game's `gpu` module) imports no CUDA: `numba.cuda` is
  imported by the first call that needs it (`cuda_module`), which raises a clear
  error without numba-cuda (`pip install -e ".[gpu]"`) or without a GPU.
- Without a GPU the kernels run in numba-cuda's simulator when both
  `NUMBA_ENABLE_CUDASIM=1` and `NUMBA_DISABLE_JIT=1` are set before numba is
  imported (with the simulator alone an `@njit` rule cannot take the simulator's
  arrays); the tests run them so, on small batches.
- Moves between the CPU and the GPU are explicit: `to_device(state)` and
  `DeviceState.to_host()`; nothing else copies a state across.
- Game `i` of seed `s` is the same game on either target: the keys are
  `rng.game_keys`'s and the rule functions the CPU's (the golden trajectories and a
  differential test check it).
- Observations, masks and rewards are device arrays; `as_torch` hands one to
  PyTorch without a copy (`__cuda_array_interface__`), `from_torch` takes a CUDA
  tensor (the learner's actions) the same way.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numba
import numpy as np

from .batch import as_actions, check_action_form, check_positive_int
from .engine import (
    Setup,
    game_indices,
    new_game_keys,
    observer_seats,
    reset_keys,
    stream_keys,
    unchecked_actions,
)
from .fields import allocate
from .kernels import JIT_DISABLED, check_threads
from .rng import seed_base

THREADS_PER_BLOCK = 128
"""Threads of a CUDA block (one game a thread)."""
SIMULATOR_THREADS_PER_BLOCK = 32
"""The same in the simulator, which runs each thread of a block as a Python thread."""


def simulator() -> bool:
    """Whether numba-cuda's simulator stands in for a GPU (`NUMBA_ENABLE_CUDASIM=1`)."""
    return bool(getattr(numba.config, "ENABLE_CUDASIM", 0)) or os.environ.get(
        "NUMBA_ENABLE_CUDASIM", "0"
    ) not in ("", "0")


def cuda_module() -> ModuleType:
    """`numba.cuda`, imported on first use, once a GPU (or the simulator) is usable.

    Raises:
        ModuleNotFoundError: numba-cuda is not installed (the `gpu` extra).
        RuntimeError: no CUDA GPU is found, or the simulator runs without
            `NUMBA_DISABLE_JIT=1`.
    """
    if importlib.util.find_spec("numba_cuda") is None:
        raise ModuleNotFoundError(
            "the GPU target needs numba-cuda: pip install -e '.[gpu]' (or pip install numba-cuda)"
        )
    from numba import cuda

    if simulator():
        if not JIT_DISABLED:
            raise RuntimeError(
                "NUMBA_ENABLE_CUDASIM=1 needs NUMBA_DISABLE_JIT=1 as well (set both before numba "
                "is imported): the simulator cannot pass its arrays to the compiled rule functions"
            )
        return cuda
    if not cuda.is_available():
        raise RuntimeError(
            "no CUDA GPU found (numba.cuda.is_available() is False): the GPU target needs an "
            "NVIDIA GPU and its driver; without one, test with NUMBA_ENABLE_CUDASIM=1 "
            "NUMBA_DISABLE_JIT=1 (numba-cuda's simulator, small batches only)"
        )
    return cuda


def kernels() -> ModuleType:
    """The CUDA kernels (`gpu_kernels`), imported on first use (after `cuda_module`'s checks)."""
    cuda_module()
    return importlib.import_module(f"{__package__}.gpu_kernels")


def is_device_array(value: object) -> bool:
    """Whether `value` is a numba device array (or the simulator's stand-in for one)."""
    return hasattr(type(value), "copy_to_host")


def to_device_array(value: Any) -> Any:
    """A device array of `value`: a numba device array as it is; a CUDA tensor (any
    object with `__cuda_array_interface__`) over the same memory; a torch CPU tensor or
    anything numpy takes, copied to the device."""
    if is_device_array(value):
        return value
    cuda = cuda_module()
    if not simulator() and hasattr(value, "__cuda_array_interface__"):
        return cuda.as_cuda_array(value)
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu().numpy()
    return cuda.to_device(np.ascontiguousarray(value))


def host_array(value: Any) -> np.ndarray:
    """`value` (a device array, a tensor, or an array) as a numpy array on the host."""
    if hasattr(value, "copy_to_host"):
        return value.copy_to_host()  # type: ignore[no-any-return]
    if type(value).__module__.startswith("torch"):
        return value.detach().cpu().numpy()  # type: ignore[no-any-return]
    return np.asarray(value)


def as_torch(array: Any) -> Any:
    """A torch tensor over the memory of device array `array`, no copy: on a GPU through
    `__cuda_array_interface__`; in the simulator a CPU tensor over its host memory."""
    import torch

    if simulator():
        # The simulator's device array keeps its data in a numpy array (`_ary`).
        return torch.from_numpy(getattr(array, "_ary", array))
    return torch.as_tensor(array, device="cuda")


def from_torch(tensor: Any) -> Any:
    """A device array over the memory of a CUDA tensor (no copy); in the simulator, over
    the memory of a CPU tensor."""
    cuda = cuda_module()
    if simulator():
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        return FakeCUDAArray(tensor.detach().numpy())
    return cuda.as_cuda_array(tensor.detach())


def device_full(shape: tuple[int, ...], fill: Any, dtype: Any) -> Any:
    """A device array of `shape` and `dtype` with every entry `fill` (`fields.allocate`'s
    `full` on the GPU: filled by a kernel, nothing copied from the host)."""
    out = cuda_module().device_array(shape, dtype)
    if out.size:
        launch(kernels().fill, out.size, out.reshape(out.size), fill)
    return out


def launch(kernel: Any, n: int, *args: Any) -> None:
    """Run `kernel(*args, n)` on one thread per item 0..n-1 (nothing for n == 0)."""
    if n <= 0:
        return
    per_block = SIMULATOR_THREADS_PER_BLOCK if simulator() else THREADS_PER_BLOCK
    per_block = min(per_block, n)
    kernel[(n + per_block - 1) // per_block, per_block](*args, n)


class DeviceState:
    """A batch of games on the GPU: the arrays of a game's `State` as device arrays.

    The fields are read as attributes (`state.legal`, `state.current_player`: device
    arrays with the CPU state's shapes and dtypes); `arrays` is the state's named tuple
    of them (`State.kernel_type`) and `rules` the config's, with its arrays on the
    device: the two arguments of every rule function; `config` is the games' config.
    Built by a `DeviceEngine`, its `engine` (`init`, `to_device`); `to_host()` gives back
    a CPU `State`.
    """

    def __init__(self, engine: DeviceEngine, config: Any, arrays: Any, rules: Any) -> None:
        self.engine = engine
        self.config = config
        self.arrays = arrays
        self.rules = rules

    def __getattr__(self, name: str) -> Any:
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in type(arrays)._fields:
            return getattr(arrays, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def array_names(self) -> tuple[str, ...]:
        """The state's array fields, in declaration order."""
        return tuple(type(self.arrays)._fields)

    @property
    def batch_size(self) -> int:
        """B, the number of games."""
        return int(self.arrays[0].shape[0])

    @property
    def num_players(self) -> int:
        """P, the players at each table."""
        return int(self.arrays.rewards.shape[1])

    def to_host(self) -> Any:
        """The batch as a CPU `State` (every array copied to the host)."""
        cls = self.engine.state_class
        return cls(self.config, **{n: a.copy_to_host() for n, a in self.arrays._asdict().items()})

    def copy(self) -> DeviceState:
        """A new batch on the device with the same contents (device-to-device copies)."""
        cuda = cuda_module()
        fresh = []
        for a in self.arrays:
            b = cuda.device_array(a.shape, a.dtype)
            b.copy_to_device(a)
            fresh.append(b)
        return DeviceState(self.engine, self.config, type(self.arrays)(*fresh), self.rules)

    def __repr__(self) -> str:
        return f"DeviceState({self.engine.name}, {self.batch_size} games)"


@dataclass(frozen=True, eq=False)
class DeviceEngine:
    """One game's engine on the GPU: its CPU engine's rule functions run by the CUDA
    kernels of `gpu_kernels`. Each game's `gpu` module builds one (`ENGINE`) and exports
    its methods as functions, mirroring the CPU engine's API.

    Every argument is checked by the CPU engine's own checks (`engine.Setup`,
    `engine.game_indices`, `batch.as_actions`, ...): what the CPU engine takes, the
    device engine takes, and what it refuses is refused with the same error. Device
    arrays and CUDA tensors are taken as they are, their dtype and shape checked
    (their contents stay on the device); `threads` is checked as on the CPU and has no
    other effect (one GPU thread a game).

    Attributes:
        name: the game's name.
        cpu: the CPU engine package (`kanaloa_env.core.<game>`): its `validate_actions`
            words the errors of a bad batch of actions.
        setup: the CPU engine's `engine.Setup` (its `init` is that object's method):
            the checks of configs, keys and game indices.
        state_class, config_class: the engine's `State` and `Config`.
        num_actions, obs_dim: A and the observation length.
        game_over: the value of `phase` in a finished game.
        step_game: `step_game(c, s, g, a, words, order, listed)`: the game's rule
            function for one decision (the three uint64/int64/int64 work arrays of
            `gpu_kernels.WORK` entries; a game uses those it needs).
        reset_game: `reset_game(c, s, g, key, words, order)`: set up game g anew.
        encode_game: `encode_game(c, s, g, seat, out)`: one observation.
    """

    name: str
    cpu: ModuleType
    setup: Setup[Any]
    state_class: Any
    config_class: Any
    num_actions: int
    obs_dim: int
    game_over: int
    step_game: Any
    reset_game: Any
    encode_game: Any

    @classmethod
    def of(cls, cpu: ModuleType, step_game: Any = None) -> DeviceEngine:
        """The device engine of the CPU engine package `cpu` (`kanaloa_env.core.<game>`),
        from its conventions: its `State`, `Config`, `NUM_ACTIONS`, `OBS_DIM` and
        `Phase.GAME_OVER`, and the rule functions `step.step_game` (or `step_game`, for a
        game whose own takes other work arrays), `setup.reset_game` and
        `observation.encode_game`."""
        name = cpu.__name__.rsplit(".", 1)[-1]
        setup = getattr(cpu.init, "__self__", None)
        if not isinstance(setup, Setup):
            raise TypeError(f"{cpu.__name__}.init must be an engine.Setup's init")
        part = {
            m: importlib.import_module(f"{cpu.__name__}.{m}")
            for m in ("step", "setup", "observation")
        }
        return cls(
            name=name,
            cpu=cpu,
            setup=setup,
            state_class=cpu.State,
            config_class=cpu.Config,
            num_actions=int(cpu.NUM_ACTIONS),
            obs_dim=int(cpu.OBS_DIM),
            game_over=int(cpu.Phase.GAME_OVER),
            step_game=step_game or part["step"].step_game,
            reset_game=part["setup"].reset_game,
            encode_game=part["observation"].encode_game,
        )

    #: What a game's `gpu` module offers as functions: these methods of its `ENGINE`.
    API = (
        *("init", "init_from_keys", "reset_games", "step", "step_inplace"),
        *("validate_actions", "observe", "legal_action_mask", "to_device", "to_host"),
    )

    def module_attribute(self, name: str) -> Any:
        """A game's `gpu` module's `__getattr__`: `gpu.init` is `ENGINE.init`, and so on
        for every name of `API`, so that the modules do not each list them."""
        if name in self.API:
            return getattr(self, name)
        raise AttributeError(f"module 'kanaloa_env.core.{self.name}.gpu' has no attribute {name!r}")

    def kernels(self) -> Any:
        """This game's compiled CUDA kernels (`gpu_kernels.GameKernels`), built once."""
        got = self.__dict__.get("_kernels")
        if got is None:
            got = kernels().GameKernels(self)
            object.__setattr__(self, "_kernels", got)
        return got

    # ---- moving states -------------------------------------------------------------

    def device_rules(self, config: Any) -> Any:
        """`config`'s rules tuple (the CPU kernels' `Rules`) with its arrays on the device."""
        self.setup.check_config(config)
        cache = self.__dict__.setdefault("_rules", {})
        got = cache.get(config)
        if got is None:
            cuda = cuda_module()
            rules = config._rules  # the named tuple; `config.rules` may be its structure
            got = type(rules)(
                *(cuda.to_device(v) if isinstance(v, np.ndarray) else v for v in rules)
            )
            cache[config] = got
        return got

    def to_device(self, state: Any) -> DeviceState:
        """A copy of the CPU batch `state` on the device."""
        if not isinstance(state, self.state_class):
            raise TypeError(
                f"state must be a {self.state_class.__module__}.State, got {type(state).__name__}"
            )
        cuda = cuda_module()
        kind = self.state_class.kernel_type
        arrays = kind(
            **{n: cuda.to_device(np.ascontiguousarray(v)) for n, v in state.arrays().items()}
        )
        return DeviceState(self, state.config, arrays, self.device_rules(state.config))

    def to_host(self, state: DeviceState) -> Any:
        """`state.to_host()`: the batch as a CPU `State`."""
        return self._check_state(state).to_host()

    def empty(self, config: Any, batch_size: int) -> DeviceState:
        """A batch of `batch_size` blank games of `config` on the device (what `init`
        fills): the
        state's field specification (`State.FIELDS`, `fields.allocate`) with arrays
        allocated and filled on the device. The one place that allocates a device state."""
        self.setup.check_config(config)
        B = check_positive_int(batch_size, "batch_size")
        cls = self.state_class
        arrays = allocate(cls.FIELDS, cls.sizes(config), B, full=device_full)
        return DeviceState(self, config, cls.kernel_type(**arrays), self.device_rules(config))

    # ---- new games -----------------------------------------------------------------

    def init(self, config: Any, batch_size: int, seed: int = 0, first_game: int = 0) -> DeviceState:
        """A batch of `batch_size` new games with the rules `config` on the device: game
        `i` is game `first_game + i` of the stream `seed`, the very game the CPU
        engine's `init` gives (same arguments, same checks)."""
        self.setup.check_config(config)
        return self.init_from_keys(config, stream_keys(batch_size, seed, first_game))

    def init_from_keys(self, config: Any, keys: Any, threads: int = 1) -> DeviceState:
        """A batch of new games with the rules `config` on the device, one per key of
        `keys`, a non-empty (B,) uint64 array (`rng.game_keys`; on the host or the
        device); `threads` is checked and has no other effect (see the class)."""
        self.setup.check_config(config)
        if is_device_array(keys):
            n = _device_keys(keys, nonempty=True)
        else:
            keys = new_game_keys(keys)
            n = len(keys)
        check_threads(threads)
        state = self.empty(config, n)
        self._reset(state, np.arange(n, dtype=np.int64), keys)
        return state

    def reset_games(self, state: DeviceState, idx: Any, keys: Any, threads: int = 1) -> None:
        """Start new games with `keys` (b,) uint64 at positions `idx` (b,) of `state`, in
        place, as the CPU engine's `reset_games` (`idx` integer indices, negative ones
        counting from the end, or a (B,) bool mask). Either may also be a device array:
        (b,) integer indices in 0..B-1 (not checked: their contents stay on the
        device), (b,) uint64 keys. `threads` is checked and has no other effect."""
        self._check_state(state)
        rows = idx if is_device_array(idx) else game_indices(state, idx, "reset_games")
        if is_device_array(keys):
            n = _device_keys(keys, nonempty=False)
            if len(rows) != n:
                raise ValueError(f"reset_games: {len(rows)} games but {n} keys")
        else:
            keys = reset_keys(keys, len(rows))
        check_threads(threads)
        self._reset(state, rows, keys)

    def _reset(self, state: DeviceState, idx: Any, keys: Any) -> None:
        if len(idx) == 0:
            return
        launch(
            self.kernels().reset,
            len(idx),
            state.rules,
            state.arrays,
            to_device_array(idx),
            to_device_array(keys),
        )

    # ---- decisions -----------------------------------------------------------------

    def validate_actions(self, state: DeviceState, actions: Any) -> Any:
        """`actions` as a (B,) integer device array, checked against the legal masks of
        `state`.

        Raises:
            TypeError: not integers.
            ValueError: wrong shape, or an action out of range or illegal in a game that
                is not over: the CPU engine's message (from a host copy of the batch).
        """
        self._check_state(state)
        a = self._actions(state, actions, checked=True)
        if self.kernels().count_illegal(state, a):
            host = state.to_host()
            self.cpu.validate_actions(host, actions if _on_host(actions) else host_array(a))
            raise AssertionError("the GPU found illegal actions the CPU check accepts")
        return a

    def step_inplace(
        self, state: DeviceState, actions: Any, validate: bool = True, threads: int = 1
    ) -> DeviceState:
        """Apply one decision in every game, in place: `actions` (B,) integers (host or
        device), checked as by `validate_actions`; returns `state`.

        `validate=False` skips the check (one copy of a count to the host) for a caller
        whose actions come from the legal masks: an illegal action then corrupts the
        game, as on the CPU. `threads` is checked and has no other effect.
        """
        self._check_state(state)
        a = (
            self.validate_actions(state, actions)
            if validate
            else self.unchecked_actions(state, actions)
        )
        check_threads(threads)
        launch(self.kernels().step, state.batch_size, state.rules, state.arrays, a)
        return state

    def step(self, state: DeviceState, actions: Any, threads: int = 1) -> DeviceState:
        """Like `step_inplace` with the (B,) `actions` (always checked) and `threads`, on
        a copy: `state` is not modified."""
        a = self.validate_actions(state, actions)
        return self.step_inplace(state.copy(), a, validate=False, threads=threads)

    def unchecked_actions(self, state: DeviceState, actions: Any) -> Any:
        """`actions` as a (B,) integer device array for the games of `state`, not checked
        against the masks (`step_inplace(..., validate=False)`; host actions converted as
        the CPU engine converts them)."""
        return self._actions(self._check_state(state), actions, checked=False)

    def legal_action_mask(self, state: DeviceState) -> Any:
        """(B, A) bool device array: a copy of the legal-action masks of `state` (all False
        once over)."""
        legal = self._check_state(state).legal
        out = cuda_module().device_array(legal.shape, legal.dtype)
        out.copy_to_device(legal)
        return out

    def observe(
        self, state: DeviceState, seat: Any = None, out: Any = None, threads: int = 1
    ) -> Any:
        """(B, OBS_DIM) float32 device array: each game of `state` from `seat`'s point of
        view (an int, (B,) ints on the host, or (B,) integers on the device, not
        checked), by default its player to act (seat 0 once over), as the CPU engine's
        `observe`; into `out` (a device array) when given. `threads` is checked and has
        no other effect."""
        self._check_state(state)
        B, P = state.batch_size, state.num_players
        cuda = cuda_module()
        check_threads(threads)
        if seat is None:
            seats, to_act = cuda.to_device(np.zeros(1, dtype=np.int64)), True
        elif is_device_array(seat):
            if seat.shape != (B,) or np.dtype(seat.dtype).kind not in "iu":
                raise ValueError(f"seat must be ({B},) integers, got {seat.dtype} {seat.shape}")
            seats, to_act = seat, False
        else:
            seats, to_act = cuda.to_device(observer_seats(seat, B, P)), False
        if out is None:
            out = cuda.device_array((B, self.obs_dim), np.float32)
        elif (
            not is_device_array(out)
            or tuple(out.shape) != (B, self.obs_dim)
            or np.dtype(out.dtype) != np.float32
        ):
            raise ValueError(f"out must be a float32 device array of shape ({B}, {self.obs_dim})")
        launch(self.kernels().observe, B, state.rules, state.arrays, seats, to_act, out)
        return out

    # ---- checks --------------------------------------------------------------------

    def _check_state(self, state: Any) -> DeviceState:
        if not isinstance(state, DeviceState) or state.engine is not self:
            raise TypeError(f"state must be a {self.name} DeviceState, got {type(state).__name__}")
        return state

    def _actions(self, state: DeviceState, actions: Any, checked: bool) -> Any:
        """(B,) integer actions on the device: host actions through the CPU engine's
        conversion (`as_actions`, or `unchecked_actions` when not `checked`), a device
        array or a tensor as it is, its dtype and shape checked alike."""
        B = state.batch_size
        if _on_host(actions):
            a = as_actions(actions, B)[0] if checked else unchecked_actions(actions, B)
            return to_device_array(a)
        a = to_device_array(actions)
        check_action_form(a.dtype, tuple(a.shape), B)
        return a


def _on_host(value: object) -> bool:
    """Whether `value` is host data (numpy, lists, ...), not a device array or a tensor."""
    return not (
        is_device_array(value)
        or hasattr(value, "__cuda_array_interface__")
        or type(value).__module__.startswith("torch")
    )


def _device_keys(keys: Any, nonempty: bool) -> int:
    """The number of keys of a (b,) uint64 device array (`nonempty`: b >= 1), or a
    ValueError worded as `engine.new_game_keys`'s."""
    dtype, shape = np.dtype(keys.dtype), tuple(keys.shape)
    if dtype != np.uint64 or len(shape) != 1 or (nonempty and shape[0] == 0):
        what = "non-empty (B,)" if nonempty else "(b,)"
        raise ValueError(f"keys must be a {what} uint64 array, got {dtype} {shape}")
    return int(shape[0])


__all__ = [
    "DeviceEngine",
    "DeviceState",
    "as_torch",
    "cuda_module",
    "from_torch",
    "host_array",
    "launch",
    "seed_base",
    "simulator",
    "stream_keys",
]
