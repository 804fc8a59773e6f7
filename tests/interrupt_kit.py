"""Run an example script (`run_example`), or a command and press Ctrl-C (SIGINT) once its
output shows that it got going (`interrupt_when`)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run_example(script: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run `examples/<script>` with `args` in the repository root; its completed process
    (stdout and stderr as text), whatever its exit status."""
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(),
        cwd=ROOT,
    )


def interrupt_when(
    argv: list[str], ready: str, tmp_path: Path, timeout: float = 180
) -> tuple[int, str, str]:
    """Run `argv` in the repository root; once its stdout shows `ready`, send it SIGINT.

    Returns its exit status, stdout and stderr. `timeout` (seconds, for the wait and
    again for the end) only guards against a hung run: no sleeps, nothing timed.
    """
    env = _env()
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT)
        try:
            assert proc.stdout is not None
            out = b""
            deadline = time.monotonic() + timeout
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stdout, selectors.EVENT_READ)
                while ready.encode() not in out:
                    left = deadline - time.monotonic()
                    assert left > 0, f"{argv[1]} never printed {ready!r}:\n{out.decode()}"
                    if sel.select(timeout=left):
                        chunk = os.read(proc.stdout.fileno(), 65536)
                        assert chunk, f"{argv[1]} ended before {ready!r}:\n{out.decode()}"
                        out += chunk
            proc.send_signal(signal.SIGINT)
            rest, _ = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return proc.returncode, (out + rest).decode(), err_path.read_text()
