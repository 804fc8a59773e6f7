"""The browser tests' shared fixtures (`test_web_browser.py`, `test_web_player.py`):
Debian's Chromium driven by Playwright, and a server over a folder with one Kahuna
record. Module-scoped, so each test module gets its own browser and server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_kit import missing


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from kanaloa_env.web.local import chromium_launch_options, chromium_path

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright is not installed (pip install playwright)")
    if not os.path.exists(chromium_path()):
        missing("Debian's chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as p:
        # Playwright makes a fresh user-data folder for the launch and deletes it after.
        b = p.chromium.launch(**chromium_launch_options())
        yield b
        b.close()


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kanaloa_env.bots import make_bot
    from kanaloa_env.games import get_game
    from kanaloa_env.records import record_bot_game, save_records

    folder = tmp_path_factory.mktemp("records")
    g = get_game("kahuna")
    bots = [make_bot("random", g), make_bot("heuristic", g)]
    save_records(folder / "kahuna.jsonl", [record_bot_game(g.make_config(), bots, seed=8)])
    return folder


@pytest.fixture(scope="module")
def site(record_dir: Path) -> Iterator[str]:
    from web_kit import serve

    from kanaloa_env.web import create_app
    from kanaloa_env.web.session import Catalogue

    app = create_app(Catalogue.from_paths(record_dirs=[str(record_dir)]), ["127.0.0.1"])
    with serve(app) as client:
        yield client.base
