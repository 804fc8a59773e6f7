"""The web page in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

- a whole game of each package game played by clicking: the moves on the picture
  (cards, bridges, ocean cards, the pile) where they have a place there, else their
  buttons; then the page's move log and ranking against the engine, through the
  record the page downloads;
- a record watched step by step (keys, the slider, all hands open) against the engine;
- a bad record gives a message in the page;
- a live game among bots moves on by itself and pauses.

`.ci/run` installs chromium and Playwright (never `playwright install`, which downloads
a browser). Where either is missing the tests skip, except under CI (`CI=true`), where
that is a failure: CI must run them.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from kanaloa_env.games import get_game  # noqa: E402
from kanaloa_env.records import (  # noqa: E402
    describe_step,
    load_records,
    replay,
)


@pytest.fixture
def page(browser: Any, site: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site + "/")
    _idle(pg)
    yield pg
    context.close()
    assert errors == [], errors  # no script error in the page


def _idle(pg: Any) -> None:
    """Wait until the page has no request or picture pending."""
    # A selector, not wait_for_function: the page's CSP forbids evaluating strings.
    pg.wait_for_selector("body[data-busy='0']", state="attached", timeout=60_000)


# Where to click a region: a rectangle's centre, a polygon's mean corner, half-way along a
# line; in page pixels.
_CLICK_POINT = """(node) => {
  const svg = node.ownerSVGElement, m = node.getScreenCTM();
  let x, y;
  if (node.tagName === "rect") {
    x = node.x.baseVal.value + node.width.baseVal.value / 2;
    y = node.y.baseVal.value + node.height.baseVal.value / 2;
  } else if (node.tagName === "polygon") {
    const pts = [...node.points];
    x = pts.reduce((s, p) => s + p.x, 0) / pts.length;
    y = pts.reduce((s, p) => s + p.y, 0) / pts.length;
  } else {
    const p = node.getPointAtLength(node.getTotalLength() / 2);
    x = p.x; y = p.y;
  }
  const q = svg.createSVGPoint(); q.x = x; q.y = y;
  const r = q.matrixTransform(m);
  return [r.x, r.y];
}"""


def _play_by_clicking(pg: Any, rng: np.random.Generator) -> dict[str, Any]:
    """Click random legal moves until the game is over; what was clicked and how long
    each move took (click to the page idle again, bots' moves and picture included)."""
    on_picture = by_button = 0
    times: list[float] = []
    while not pg.is_visible("#result"):
        moves = [int(a) for a in pg.eval_on_selector_all(
            "#moves button", "bs => bs.map(b => b.dataset.action)")]  # fmt: skip
        assert moves, "no result and no moves"
        regions = pg.eval_on_selector_all(
            "#pictures svg .hit", "ns => ns.map(n => n.dataset.actions)"
        )
        clickable = {int(a) for r in regions for a in r.split()}
        assert clickable <= set(moves), "a region plays a move that is not legal"
        action = int(rng.choice(moves))
        start = time.perf_counter()
        hit = [k for k, r in enumerate(regions) if str(action) in r.split()]
        if hit:
            node = pg.query_selector_all("#pictures svg .hit")[hit[0]]
            x, y = node.evaluate(_CLICK_POINT)
            pg.mouse.click(x, y)
            if pg.is_visible("#choice"):
                pg.click(f"#choice-moves button[data-action='{action}']")
            on_picture += 1
        else:
            pg.click(f"#moves button[data-action='{action}']")
            by_button += 1
        _idle(pg)
        times.append(time.perf_counter() - start)
        assert pg.inner_text("#error") == "" or not pg.is_visible("#error"), pg.inner_text("#error")
    return {"on_picture": on_picture, "by_button": by_button, "times": times}


@pytest.mark.parametrize(("game", "players"), [("kanaloa", 3), ("kahuna", 2)])
def test_a_whole_game_played_by_clicking_agrees_with_the_engine(
    page: Any, game: str, players: int, tmp_path: Path
) -> None:
    pg = page
    pg.select_option("#game", game)
    pg.select_option("#num-players", str(players))
    pg.select_option("#seat", "1")
    pg.select_option("#speed", "0")
    pg.fill("#seed", "11")
    pg.click("#start")
    _idle(pg)
    played = _play_by_clicking(pg, np.random.default_rng(3))
    # Moves on the picture were clicked, and moves without a place there as buttons.
    assert played["on_picture"] > 10, played
    ms = sorted(1000 * t for t in played["times"])
    print(
        f"\n{game}: {len(ms)} moves clicked ({played['on_picture']} on the picture); click "
        f"to page ready, bots' moves included: median {statistics.median(ms):.0f} ms, "
        f"90th percentile {ms[int(0.9 * len(ms))]:.0f} ms"
    )

    with pg.expect_download() as download:
        pg.click("#download")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    (rec,) = load_records(path)
    assert rec.game == game and rec.seed == 11 and rec.num_players == players
    assert rec.meta["players"][1] == "human"
    steps = list(replay(rec))
    g = get_game(game)
    names = [f"player_{p}" + (" (you)" if p == 1 else "") for p in range(players)]
    log = pg.eval_on_selector_all(
        "#log li", "ls => ls.map(l => [Number(l.dataset.player), "
        "[...l.querySelectorAll('.line')].map(d => d.textContent)])"
    )  # fmt: skip
    assert len(log) == len(steps)
    for (player, lines), s in zip(log, steps, strict=True):
        assert player == int(s.before.current_player[0])
        assert lines == describe_step(s.before, s.decision.action, s.after, names=names)
    end = steps[-1].after
    ranking = pg.eval_on_selector_all(
        "#ranking tbody tr", "rs => rs.map(r => [Number(r.dataset.seat), Number(r.dataset.rank)])"
    )
    ranks = g.final_ranks(end)[0]
    assert sorted(ranking) == sorted([p, float(ranks[p])] for p in range(players))
    assert [r for _, r in ranking] == sorted(r for _, r in ranking)  # best first
    assert pg.inner_text("#final-lines").splitlines() == g.final_lines(end, names)
    assert pg.inner_text("#where").endswith("game over.")


def test_a_game_registered_from_outside_plays_with_buttons(page: Any) -> None:
    # Kuhn poker (tests/kuhn/, registered by tests/conftest.py): no clickable regions, the
    # page offers its moves as buttons and plays it to the end all the same.
    pg = page
    assert "kuhn" in pg.eval_on_selector_all("#game option", "os => os.map(o => o.value)")
    pg.select_option("#game", "kuhn")
    pg.select_option("#speed", "0")
    pg.click("#start")
    _idle(pg)
    played = _play_by_clicking(pg, np.random.default_rng(0))
    assert played["on_picture"] == 0 and played["by_button"] >= 1
    assert pg.eval_on_selector_all("#ranking tbody tr", "rs => rs.length") == 2


def test_a_record_is_watched_step_by_step(page: Any, record_dir: Path) -> None:
    pg = page
    (rec,) = load_records(record_dir / "kahuna.jsonl")
    states = [rec.start_state()] + [s.after for s in replay(rec)]
    g = get_game("kahuna")
    last = len(states) - 1
    pg.click("nav button[data-tab='replay']")
    pg.select_option("#record-file", "0")
    pg.click("#open-file")
    _idle(pg)
    assert pg.inner_text("#where") == f"Step 0 of {last}."
    assert pg.eval_on_selector_all("#log li", "ls => ls.length") == last
    for _ in range(3):
        pg.keyboard.press("ArrowRight")
        _idle(pg)
    assert pg.inner_text("#where") == f"Step 3 of {last}."
    assert pg.text_content("#text") == g.render_text(states[3], 0, color=False, legal=False)
    pg.select_option("#view-seat", "1")
    _idle(pg)
    assert pg.text_content("#text") == g.render_text(states[3], 0, color=False, seat=1, legal=False)
    pg.eval_on_selector("#slider", "s => { s.value = '40'; s.dispatchEvent(new Event('input')); }")
    _idle(pg)
    assert pg.inner_text("#where") == f"Step 40 of {last}."
    assert pg.eval_on_selector_all("#log li.future", "ls => ls.length") == last - 40
    pg.select_option("#view-seat", "all")
    _idle(pg)
    assert pg.eval_on_selector_all("#pictures img", "is => is.map(i => i.naturalWidth)") == [
        1200,
        1200,
    ]
    pg.keyboard.press("End")
    _idle(pg)
    assert pg.inner_text("#where") == f"Step {last} of {last}, game over."
    ranking = pg.eval_on_selector_all(
        "#ranking tbody tr", "rs => rs.map(r => [Number(r.dataset.seat), Number(r.dataset.rank)])"
    )
    ranks = g.final_ranks(states[-1])[0]
    assert sorted(ranking) == sorted([p, float(ranks[p])] for p in range(2))
    assert pg.eval_on_selector_all("#moves button", "bs => bs.length") == 0  # nothing to play


def test_a_bad_record_gives_a_message_in_the_page(page: Any, record_dir: Path) -> None:
    pg = page
    lines = (record_dir / "kahuna.jsonl").read_text().splitlines()
    bad = "\n".join([lines[0], '{"step": 0, "player": 0, "action": 999}'])
    pg.click("nav button[data-tab='replay']")
    for text, message in [
        (bad, "action must be in 0..152, got 999"),
        ("<html>not a record</html>", "not valid JSON"),
    ]:
        pg.set_input_files(
            "#upload",
            files=[{"name": "bad.jsonl", "mimeType": "text/plain", "buffer": text.encode()}],
        )
        _idle(pg)
        pg.wait_for_selector("#error", state="visible", timeout=10_000)
        shown = pg.inner_text("#error")
        assert message in shown and "bad.jsonl" in shown and "Traceback" not in shown, shown


def test_a_live_game_among_bots_runs_and_pauses(page: Any) -> None:
    pg = page
    pg.click("nav button[data-tab='live']")
    pg.select_option("#game", "kahuna")
    pg.select_option("#speed", "150")
    pg.click("#start")
    pg.wait_for_selector("#log li:nth-child(4)", state="attached", timeout=60_000)
    pg.click("#playpause")
    _idle(pg)
    n = pg.eval_on_selector_all("#log li", "ls => ls.length")
    pg.wait_for_timeout(600)
    assert pg.eval_on_selector_all("#log li", "ls => ls.length") == n
    assert pg.inner_text("#where") == f"Step {n} of {n}."


def test_the_web_benchmark_runs_at_a_tiny_size(browser: Any) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "benchmarks/bench_web.py", "--games", "kahuna", "--moves", "2"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("  ")]
    assert [r[0] for r in rows] == ["server", "picture", "click"]
    assert all(float(r[r.index("median") + 1]) > 0 for r in rows)
