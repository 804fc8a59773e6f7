"""The AEC env's cost per decision in this checkout against another checkout, in one run.

Issue 16 asks that the generic layer (one AEC env for every game, through the game
protocol) cost no more per decision than the Kanaloa-only env it replaced. This
script times the same loop (random legal Kanaloa decisions through
`kanaloa_env.env()`, 4 players, `env.last()` read every decision, a new game on
`reset` when one ends) in two checkouts, alternating between them in fresh
processes so that both see the same machine load, and keeps each side's best
round. Time is this process's CPU time (steadier than wall time on a busy machine).

    git worktree add --detach /tmp/kanaloa_old 2da054b    # the Kanaloa-only env
    python benchmarks/bench_aec_ab.py --other /tmp/kanaloa_old --rounds 5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LOOP = """
import time, numpy as np, kanaloa_env
env = kanaloa_env.env(num_players=4)
env.reset(seed=0)
rng = np.random.default_rng(0)
n = 0
start = time.process_time()
while time.process_time() - start < {seconds}:
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            n += 1
        env.step(action)
        if n % 256 == 0 and time.process_time() - start >= {seconds}:
            break
    else:
        env.reset()
print(n / (time.process_time() - start), kanaloa_env.__file__)
"""


def measure(root: str, seconds: float) -> tuple[float, str]:
    """Decisions per CPU second of `LOOP` run with `root` first on the import path."""
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-c", LOOP.format(seconds=seconds)],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), out[1]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--other", required=True, help="the other checkout's root folder")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    p.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per round and side")
    args = p.parse_args(argv)
    if not os.path.isfile(os.path.join(args.other, "kanaloa_env", "__init__.py")):
        p.error(f"--other {args.other!r} holds no kanaloa_env package")
    best = {"this": 0.0, "other": 0.0}
    for r in range(args.rounds):
        for side, root in (("this", HERE), ("other", args.other)):
            rate, where = measure(root, args.seconds)
            best[side] = max(best[side], rate)
            print(f"round {r + 1} {side:<5} {rate:>9,.0f} decisions/s  ({where})", flush=True)
    ratio = best["this"] / best["other"]
    print(
        f"best: this {best['this']:,.0f}/s ({1e6 / best['this']:.0f} us), other "
        f"{best['other']:,.0f}/s ({1e6 / best['other']:.0f} us); this/other = {ratio:.2f}"
    )


if __name__ == "__main__":
    main()
