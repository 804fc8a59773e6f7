"""Under `NUMBA_DISABLE_JIT=1` the compiled kernels run as plain Python (for a debugger
or coverage) and must play the very same games: the first recorded games of a few
configs, replayed in a process of their own with the JIT off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_SCRIPT = """
import numpy as np
import golden
from kanaloa_env.core.kernels import JIT_DISABLED

assert JIT_DISABLED
n = 3
for name in ("kanaloa_p4_nil", "kanaloa_p5_chain_deck", "kahuna", "kahuna_unplayable_12"):
    case = next(c for c in golden.CASES if c.name == name)
    with np.load(golden.path_of(case)) as data:
        want = {k: data[k] for k in data.files}
    got = golden.trajectories(case, games=n)
    assert np.array_equal(got["steps"], want["steps"][:n]), name
    assert np.array_equal(got["digest"], want["digest"][:n]), name
    assert np.array_equal(golden.bot_decisions(case, "heuristic", games=n), want["heuristic"][:n]), name
    print(name, "ok")
"""


def test_the_kernels_run_as_python_and_play_the_same_games() -> None:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", _SCRIPT],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(" ok") == 4
