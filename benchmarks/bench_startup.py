"""Start-up time of each game: import, `kanaloa_env.env(game=...).reset()` and the first step,
in a fresh process each, with the compiled kernels cached (warm) or not (cold).

    python benchmarks/bench_startup.py            # warm: the kernels load from numba's cache
    python benchmarks/bench_startup.py --cold     # delete the package's cached kernels first

`--cold` deletes the cache files (`*.nbi`, `*.nbc`) in the package's `__pycache__`
folders before the first game, so the first process compiles every kernel it uses and
later ones find the kernels they share cached (the order is `--games`). Where numba
caches in `~/.cache/numba` instead (a package folder it cannot write), `--cold` cannot
reach those files: clear `NUMBA_CACHE_DIR` or that folder by hand. Targets (issue 23):
cold <= 30 s, warm <= 2 s over the import of the numpy engines (about 0.4 s here).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kanaloa_env"

_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import kanaloa_env
t1 = time.perf_counter()
env = kanaloa_env.env(game=sys.argv[1])
env.reset(seed=0)
t2 = time.perf_counter()
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "reset": t2 - t1, "step": t3 - t2}))
"""


def clear_cache() -> int:
    """Delete the package's cached kernels; the number of files deleted."""
    files = [*PACKAGE.rglob("__pycache__/*.nbi"), *PACKAGE.rglob("__pycache__/*.nbc")]
    for f in files:
        f.unlink()
    return len(files)


def measure(game: str) -> dict[str, float]:
    """Seconds of the import, env().reset() and the first step in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", _SNIPPET, game], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cold", action="store_true", help="delete the cached kernels first")
    p.add_argument("--games", nargs="+", default=["kanaloa", "kahuna"], help="in this order")
    args = p.parse_args()
    if args.cold:
        print(f"deleted {clear_cache()} cached kernel files under {PACKAGE}")
    print(
        f"{'game':<10} {'import s':>9} {'env().reset() s':>16} {'first step s':>13} {'total s':>8}"
    )
    for game in args.games:
        t = measure(game)
        total = sum(t.values())
        print(
            f"{game:<10} {t['import']:>9.2f} {t['reset']:>16.2f} {t['step']:>13.2f} {total:>8.2f}"
        )


if __name__ == "__main__":
    main()
