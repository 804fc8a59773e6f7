"""Running the tests of `tests/gpu/simulated` in a pytest process under numba-cuda's
simulator (the flags must be set before numba is imported, so not in this process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIMULATED = Path(__file__).resolve().parent / "simulated"


TINY_CAMPAIGN = {
    "game": "kahuna",
    "num_players": 2,
    "hidden": [8],
    "num_envs": 3,
    "rollout_steps": 4,
    "chunk_updates": 2,
    "minibatch": 6,
    "epochs": 2,
    "eval_games": 2,
    "seed": 3,
}
"""A campaign recipe the simulator trains in seconds (`campaign_file.Recipe` fields): a
chunk is 2 updates of 3 Kahuna games x 4 steps, 24 learner decisions."""


def simulator_env() -> dict[str, str]:
    """This environment with the simulator's two flags and the repository on the path."""
    return dict(
        os.environ,
        NUMBA_ENABLE_CUDASIM="1",
        NUMBA_DISABLE_JIT="1",
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )


def run_simulated(*targets: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`pytest` on `targets` (paths relative to tests/gpu/simulated) in the simulator."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist"]
    argv += ["-W", "error::RuntimeWarning", *(str(SIMULATED / t) for t in targets)]
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=simulator_env(), cwd=ROOT
    )
