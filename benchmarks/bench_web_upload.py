"""What opening one game of a large uploaded record file costs the web server.

    python benchmarks/bench_web_upload.py               # 38,362 short Kahuna games, 27.7 MiB
    python benchmarks/bench_web_upload.py --games 1000

Builds a record file of `--games` Kahuna games (one game among random bots cut to its
first `--decisions` decisions, repeated: the shape of an arena's file of short games),
then times, in CPU seconds of this process:

- `every game built`: `parse_records(text)`, every game of the file checked and built
  (what opening one game of an upload cost before `RecordIndex`);
- `indexed`: `RecordIndex(text)` and its game `--index`, the others counted only;
- `POST /api/replay`: the whole request on the server (in a thread here): the file
  uploaded as is (`application/x-ndjson`), read, the game shown built and replayed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=38_362, help="games in the file")
    ap.add_argument("--decisions", type=int, default=9, help="decisions of each game")
    ap.add_argument("--index", type=int, default=None, help="the game opened (default last)")
    args = ap.parse_args(argv)
    from kanaloa_env.bots import make_bot
    from kanaloa_env.games import get_game
    from kanaloa_env.records import RecordIndex, parse_records, record_bot_game
    from kanaloa_env.web import create_app
    from kanaloa_env.web.local import serve_in_thread

    g = get_game("kahuna")
    rec = record_bot_game(g.make_config(), [make_bot("random", g)] * 2, seed=1)
    one = "\n".join(rec.lines()[: 1 + args.decisions]) + "\n"
    text = one * args.games
    index = args.games - 1 if args.index is None else args.index
    print(f"{args.games} games, {len(text.encode()) / 2**20:.1f} MiB, opening game {index}")

    start = time.process_time()
    every = parse_records(text, "big.jsonl")
    print(f"  every game built   {time.process_time() - start:6.2f} s CPU")
    start = time.process_time()
    shown = RecordIndex(text, "big.jsonl")[index]
    print(f"  indexed            {time.process_time() - start:6.2f} s CPU")
    assert shown == every[index]
    del every

    body = text.encode()
    with serve_in_thread(create_app()) as base:
        req = urllib.request.Request(
            f"{base}/api/replay?name=big.jsonl&index={index}",
            body,
            {"Content-Type": "application/x-ndjson"},
            method="POST",
        )
        start_cpu, start = time.process_time(), time.perf_counter()
        with urllib.request.urlopen(req, timeout=600) as resp:
            data = json.load(resp)
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    assert data["info"]["file_games"] == args.games
    print(f"  POST /api/replay   {cpu:6.2f} s CPU ({wall:.2f} s), client and server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
