"""How fast the web page answers a move with bots: server alone, and click to page ready.

    python benchmarks/bench_web.py                      # both games, 40 moves each
    python benchmarks/bench_web.py --games kahuna --moves 10

For each game (Kanaloa at 4 players against three bots, Kahuna against one; `--bots`,
default heuristic) the human's moves are random legal moves:

- `server move`: POST /api/session/{id}/move answered (the move, the bots' moves up to
  the human's next decision, the new position's text, moves and regions), over HTTP on
  the loopback;
- `picture`: GET of the new position's PNG (drawn and encoded);
- `click to ready`: in headless Chromium (Debian's `chromium`, Playwright), from the
  click on a move button to the page showing the next decision (its picture loaded),
  the speed set to "instant".

Prints the median and the 90th percentile of each, in ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from typing import Any

import numpy as np

TABLES = {"kanaloa": 4, "kahuna": 2}


def _post(url: str, body: Any) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=120) as resp:
        return json.load(resp)


def _ms(times: list[float]) -> str:
    ms = sorted(1000 * t for t in times)
    return f"median {np.median(ms):6.0f} ms, 90th percentile {ms[int(0.9 * (len(ms) - 1))]:6.0f} ms"


def _server_moves(base: str, game: str, bots: str, moves: int, rng: Any) -> tuple[list, list]:
    P = TABLES[game]
    move_t: list[float] = []
    picture_t: list[float] = []
    seed = 0
    while len(move_t) < moves:
        data = _post(
            base + "/api/play",
            {"game": game, "num_players": P, "seat": 0, "bots": [bots] * (P - 1), "seed": seed},
        )
        seed += 1
        sid, view = data["info"]["session"], data["view"]
        while not view["done"] and len(move_t) < moves:
            action = int(rng.choice([m["action"] for m in view["moves"]]))
            start = time.perf_counter()
            view = _post(
                f"{base}/api/session/{sid}/move", {"action": action, "step": view["last"]}
            )["view"]
            move_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            with urllib.request.urlopen(
                f"{base}/api/session/{sid}/image.png?step={view['last']}", timeout=120
            ) as resp:
                resp.read()
            picture_t.append(time.perf_counter() - start)
    return move_t, picture_t


def _browser_moves(base: str, game: str, bots: str, moves: int, rng: Any) -> list[float]:
    from playwright.sync_api import sync_playwright

    from kanaloa_env.web.local import chromium_launch_options

    times: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium_launch_options())
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(base + "/")
        page.wait_for_selector("body[data-busy='0']", state="attached")
        page.select_option("#game", game)
        page.select_option("#num-players", str(TABLES[game]))
        for s in page.query_selector_all("#bots select"):
            s.select_option(bots)
        page.select_option("#speed", "0")
        seed = 0
        while len(times) < moves:
            page.fill("#seed", str(seed))
            seed += 1
            page.click("#start")
            page.wait_for_selector("body[data-busy='0']", state="attached")
            while not page.is_visible("#result") and len(times) < moves:
                buttons = page.query_selector_all("#moves button")
                button = buttons[int(rng.integers(len(buttons)))]
                start = time.perf_counter()
                button.click()
                page.wait_for_selector("body[data-busy='0']", state="attached")
                times.append(time.perf_counter() - start)
        browser.close()
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--moves", type=int, default=40, help="human moves per game (default 40)")
    ap.add_argument("--bots", default="heuristic", help="the bots' name (default heuristic)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from kanaloa_env.web import create_app
    from kanaloa_env.web.local import serve_in_thread

    with serve_in_thread(create_app()) as base:
        for game in args.games:
            rng = np.random.default_rng(args.seed)
            # A first game compiles what it needs and fills the caches: not timed.
            _server_moves(base, game, args.bots, 2, rng)
            move_t, picture_t = _server_moves(base, game, args.bots, args.moves, rng)
            click_t = _browser_moves(base, game, args.bots, args.moves, rng)
            who = f"{game} ({TABLES[game]} players, {TABLES[game] - 1} x {args.bots})"
            print(f"{who}, {args.moves} moves:")
            print(f"  server move     {_ms(move_t)}")
            print(f"  picture         {_ms(picture_t)}")
            print(f"  click to ready  {_ms(click_t)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
