"""How much memory the web server takes for many games with network bots.

    python benchmarks/bench_web_memory.py                  # 32 games, 5 x net, to the end
    python benchmarks/bench_web_memory.py --games 8 --moves 50

Starts `python -m kanaloa_env.web` (a process of its own, on a free port), opens
`--games` live Kanaloa games of 5 players with the "net" bot at every seat (the
shipped networks, docs/models.md) through the API, as one page would, then advances
each by `--moves` decisions (default: to its end). Prints the server's resident memory
(VmRSS, /proc) after it starts, after the games are opened and after they are played,
and its peak (VmHWM).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _post(url: str, body: Any) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


def _memory_mb(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(line.split()[1]) / 1024
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=32, help="games to open (default 32)")
    ap.add_argument("--players", type=int, default=5, help="table size (default 5)")
    ap.add_argument("--bot", default="net", help="the bot at every seat (default net)")
    ap.add_argument(
        "--moves", type=int, default=None, help="decisions per game (default: to the end)"
    )
    args = ap.parse_args(argv)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kanaloa_env.web", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().split()[3].rstrip("/")
        with urllib.request.urlopen(base + "/api/games", timeout=300) as resp:
            resp.read()
        print(f"server started:  {_memory_mb(proc.pid)['VmRSS']:7.0f} MB resident")
        table = {
            "game": "kanaloa",
            "num_players": args.players,
            "bots": [args.bot] * args.players,
        }
        sessions = []
        for seed in range(args.games):
            data = _post(base + "/api/live", {**table, "seed": seed})
            sessions.append(data["info"]["session"])
        print(
            f"{args.games} games opened: {_memory_mb(proc.pid)['VmRSS']:7.0f} MB resident "
            f"({args.players} players, {args.players} x {args.bot})"
        )
        start, decisions = time.perf_counter(), 0
        for sid in sessions:
            done, n = False, 0
            while not done and (args.moves is None or n < args.moves):
                done = _post(f"{base}/api/session/{sid}/advance", {})["view"]["done"]
                n += 1
            decisions += n
        mem = _memory_mb(proc.pid)
        print(
            f"{args.games} games played: {mem['VmRSS']:7.0f} MB resident, peak "
            f"{mem['VmHWM']:.0f} MB ({decisions} decisions in "
            f"{time.perf_counter() - start:.0f} s)"
        )
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
