"""Ctrl-C in a training script: the run stops cleanly and keeps what it trained.

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
from collections.abc import Callable, Mapping
from types import FrameType, TracebackType
from typing import Any, NoReturn

__all__ = ["INTERRUPTED_EXIT", "GracefulStop", "run_script"]

INTERRUPTED_EXIT = 128 + signal.SIGINT  # 130


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class GracefulStop:
    """Ctrl-C as a request to stop a training loop at its next safe point (see the module);
    `what` names what stops in the messages ("stopping the training at the next safe
    point").

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
