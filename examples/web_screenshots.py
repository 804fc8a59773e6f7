"""Screenshots of the web page (`python -m kanaloa_env.web`) for the README, one per game.

Serves the page on a free loopback port, opens it in headless Chromium (Debian's
`chromium`, driven by Playwright: `pip install -e ".[web,dev]"`), starts a game of each
package game with a fixed seed, clicks a few moves and saves the page as a PNG:

    python examples/web_screenshots.py                       # docs/images/web_kanaloa.png, ...
    python examples/web_screenshots.py --out runs/screens    # elsewhere
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Which move to click at each of the human's first decisions: the n-th legal move (mod the count).
GAMES = {"kanaloa": (4, [2, 0, 1]), "kahuna": (2, [0, 3])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/images", help="folder of the PNGs (default docs/images)")
    ap.add_argument("--seed", type=int, default=7, help="the games' seed (default 7)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from kanaloa_env.core.files import atomic_write_path
    from kanaloa_env.web import create_app
    from kanaloa_env.web.local import chromium_launch_options, serve_in_thread

    os.makedirs(args.out, exist_ok=True)
    with serve_in_thread(create_app()) as base, sync_playwright() as p:
        browser = p.chromium.launch(**chromium_launch_options())
        for game, (players, picks) in GAMES.items():
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(base + "/")
            page.wait_for_selector("body[data-busy='0']", state="attached")
            page.select_option("#game", game)
            page.select_option("#num-players", str(players))
            page.select_option("#speed", "0")
            page.fill("#seed", str(args.seed))
            page.click("#start")
            for n in picks:
                page.wait_for_selector("body[data-busy='0']", state="attached")
                buttons = page.query_selector_all("#moves button")
                buttons[n % len(buttons)].click()
            page.wait_for_selector("body[data-busy='0']", state="attached")
            out = Path(args.out) / f"web_{game}.png"
            with atomic_write_path(out) as tmp:
                page.screenshot(path=tmp)
            print(f"wrote {out}")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
