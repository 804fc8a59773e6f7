"""What the training scripts share: Ctrl-C stops a run cleanly and keeps what it trained
(below); `layer_sizes` reads their hidden-size option, `file_log` writes their log and
`ObservationStore` keeps millions of observations in a quarter of the memory.

```python
from kanaloa_env.training import GracefulStop, run_script

def main():
    with GracefulStop() as stop:         # Ctrl-C now asks the loop to stop
        for update in range(updates):
            if stop.requested:           # a safe point: between two updates
                break
            ...
    model.save(path)                     # what was trained so far
    stop.exit_if_requested({"model": path})   # interrupted: says where, exits 130

if __name__ == "__main__":
    run_script(main)                     # a Ctrl-C anywhere else: one line, exit 130
```

Inside the `with` block the first Ctrl-C (SIGINT) only sets `stop.requested` and says
on stderr that the run stops at its next safe point; the loop checks the flag there
(for stable-baselines3, a callback's `_on_step` returns `not stop.requested`). A
second Ctrl-C stops at once: it raises `KeyboardInterrupt` where the run is, and
the `with` block ends there with `requested` set, the exception swallowed, so the
code after the block saves what the run holds either way. After the block, Ctrl-C
raises `KeyboardInterrupt` as usual. Exit status 130 is 128 + SIGINT, what a shell
reports for a command stopped by Ctrl-C.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import FrameType, TracebackType
from typing import Any, NoReturn

import numpy as np

__all__ = [
    "INTERRUPTED_EXIT",
    "GracefulStop",
    "ObservationStore",
    "file_log",
    "layer_sizes",
    "run_script",
]

INTERRUPTED_EXIT = 128 + signal.SIGINT  # 130


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class GracefulStop:
    """Ctrl-C as a request to stop a training loop at its next safe point (see the module);
    `what` names the loop in the messages ("training").

    Attributes:
        requested: True once Ctrl-C was pressed inside the `with` block.
        forced: True when a second Ctrl-C (or a `KeyboardInterrupt` from elsewhere)
            ended the block early.
    """

    def __init__(self, what: str = "training") -> None:
        self.what = what
        self.requested = False
        self.forced = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> GracefulStop:
        # Signal handlers can only be set from the main thread; elsewhere (a training run
        # started from a worker thread) Ctrl-C keeps its usual meaning.
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
        return self

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        _say(
            f"\nCtrl-C: stopping the {self.what} at the next safe point; "
            "press Ctrl-C again to stop at once"
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self.requested = self.forced = True
            return True  # the caller saves what it has after the block
        return False

    def exit_if_requested(
        self, saved: Mapping[str, str | None], progress: str | None = None
    ) -> None:
        """If Ctrl-C stopped the run: say what was saved where and exit 130.

        Args:
            saved: what was written, by what it is ("model", "evaluations", ...): its
                path, or None for something not written (listed as not saved).
            progress: how far the run got (e.g. "after 2,048 of 10,000 steps").

        Raises:
            SystemExit: with status 130, when the run was interrupted; else returns.
        """
        if not self.requested:
            return
        how = "stopped at once" if self.forced else "stopped"
        _say(f"interrupted: {self.what} {how}" + (f" {progress}" if progress else ""))
        for label, path in saved.items():
            _say(f"  {label}: {path}" if path else f"  {label}: not saved (none yet)")
        raise SystemExit(INTERRUPTED_EXIT)


def run_script(main: Callable[[], Any]) -> NoReturn:
    """Run a script's `main()` and exit: 0 when it returns, its own status when it exits,
    130 without a traceback when a Ctrl-C outside a `GracefulStop` block stops it."""
    try:
        main()
    except KeyboardInterrupt:
        _say("\ninterrupted (Ctrl-C) outside training: nothing more was saved")
        sys.exit(INTERRUPTED_EXIT)
    sys.exit(0)


def layer_sizes(text: str, flag: str) -> list[int]:
    """Hidden layer sizes from `text`, a command line's "256,256"; `flag` names the option
    in the `ValueError` for anything else."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{flag} must be comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"{flag} needs at least one layer size >= 1, got {text!r}")
    return sizes


def file_log(path: str) -> Callable[[str], None]:
    """A `log(message)` that prints each message with the time and appends it to `path`."""

    def log(message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {message}"
        print(line, flush=True)
        with open(path, "a") as f:
            f.write(line + "\n")

    return log


class ObservationStore:
    """Rows of float32 observations kept as one-byte codes into a table of the distinct
    values they hold: exact (a row reads back bit for bit), a quarter of float32's memory.

    The games' observations take few distinct values (Kanaloa's 2.3M label decisions: 65
    over all 416 features), so a code of one byte a feature holds them; past 256 distinct
    values the codes widen to two bytes (uint16, 65,536 values), and past that `append`
    raises a `ValueError`. Distinct means distinct bit patterns (0.0 and -0.0 are kept
    apart), so a decoded row equals the appended one exactly, and training on decoded
    rows gives the same weights as training on the float32 array.

    ```python
    store = ObservationStore(num_rows, obs_dim)    # the rows are filled in order
    store.append(obs_chunk)                        # (n, obs_dim) float32, repeatedly
    batch = store.rows(idx)                        # (len(idx), obs_dim) float32
    ```
    `rows_torch(idx)` decodes into a torch tensor (idx a numpy or torch integer array).
    """

    def __init__(self, num_rows: int, obs_dim: int) -> None:
        if num_rows < 0 or obs_dim < 1:
            raise ValueError(f"need num_rows >= 0 and obs_dim >= 1, got {num_rows}, {obs_dim}")
        self.codes = np.zeros((num_rows, obs_dim), np.uint8)
        self._bits = np.zeros(0, np.uint32)  # the table's values as bit patterns, in order seen
        self.size = 0  # rows appended so far
        self._table: Any = None  # the float32 table as a torch tensor, made on first use

    @property
    def values(self) -> np.ndarray:
        """(V,) float32: the distinct values, a code's value is `values[code]`."""
        return self._bits.view(np.float32)

    @property
    def nbytes(self) -> int:
        """The memory the codes and the table take, in bytes."""
        return self.codes.nbytes + self._bits.nbytes

    def append(self, obs: np.ndarray) -> None:
        """Store `obs` ((n, obs_dim) float32) as the next n rows."""
        if not isinstance(obs, np.ndarray) or obs.dtype != np.float32 or obs.ndim != 2:
            raise TypeError("obs must be a 2-d float32 numpy array")
        n, dim = obs.shape
        if dim != self.codes.shape[1] or self.size + n > len(self.codes):
            raise ValueError(
                f"obs of shape {obs.shape} does not fit: {len(self.codes) - self.size} rows "
                f"of {self.codes.shape[1]} features are left"
            )
        bits = np.ascontiguousarray(obs).view(np.uint32)
        new = np.setdiff1d(np.unique(bits), self._bits, assume_unique=True)
        if len(new):
            table = np.concatenate([self._bits, new])  # old codes keep their meaning
            if len(table) > 1 << 16:
                raise ValueError(
                    f"the observations hold {len(table)} distinct values, more than the "
                    "65,536 this store codes"
                )
            if len(table) > np.iinfo(self.codes.dtype).max + 1:
                self.codes = self.codes.astype(np.uint16)
            self._bits, self._table = table, None
        order = np.argsort(self._bits)
        codes = order[np.searchsorted(self._bits[order], bits)]
        self.codes[self.size : self.size + n] = codes
        self.size += n

    def rows(self, idx: np.ndarray | slice) -> np.ndarray:
        """The float32 observations of rows `idx`: (len(idx), obs_dim)."""
        return self.values[self.codes[idx]]

    def rows_torch(self, idx: Any) -> Any:
        """`rows(idx)` as a float32 torch tensor (decoded by torch, in its threads)."""
        import torch

        if self._table is None:
            self._table = torch.from_numpy(self.values.copy())
        codes = torch.from_numpy(self.codes[np.asarray(idx)])
        return self._table[codes.long()]
