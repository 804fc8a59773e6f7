"""The web page as a first-time player meets it, in a real browser (Debian's chromium,
Playwright): keyboard play end to end, layouts that fit a phone and a small window, key
presses that are never lost while watching, the result readable, no console error, the
rules explained in the page, the record list's count of files it leaves out, the tab's
id on every request, and no serious accessibility violation (axe-core).

Like tests/web/test_web_browser.py these skip where chromium or Playwright is missing,
except under CI (`CI=true`), where that is a failure.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from web_kit import missing  # noqa: E402

from kanaloa_env.games import get_game  # noqa: E402
from kanaloa_env.records import load_records, replay  # noqa: E402


class Page:
    """A fresh browser context on the page at one window size; every console error and
    script error it shows is kept (`problems`)."""

    def __init__(self, browser: Any, site: str, width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.pg = self.context.new_page()
        self.problems: list[str] = []
        self.pg.on("pageerror", lambda e: self.problems.append(f"script: {e}"))
        self.pg.on(
            "console",
            lambda m: self.problems.append(f"console: {m.text}") if m.type == "error" else None,
        )
        self.pg.goto(site + "/")
        idle(self.pg)


@pytest.fixture
def open_page(browser: Any, site: str) -> Iterator[Any]:
    """open_page(width, height): the page in a new context; at the end, no page of the
    test showed a console or script error."""
    pages: list[Page] = []

    def make(width: int = 1400, height: int = 1000) -> Any:
        pages.append(Page(browser, site, width, height))
        return pages[-1].pg

    yield make
    problems = [p for page in pages for p in page.problems]
    for page in pages:
        page.context.close()
    assert problems == [], problems


def idle(pg: Any) -> None:
    """Wait until the page has no request, picture or key press pending."""
    pg.wait_for_selector("body[data-busy='0']", state="attached", timeout=60_000)


def start(pg: Any, game: str, players: int, seed: int = 11, seat: int = 0) -> None:
    pg.select_option("#game", game)
    pg.select_option("#num-players", str(players))
    pg.select_option("#seat", str(seat))
    pg.select_option("#speed", "0")
    pg.fill("#seed", str(seed))
    pg.click("#start")
    idle(pg)


def open_record(pg: Any) -> None:
    pg.click("nav button[data-tab='replay']")
    pg.select_option("#record-file", "0")
    pg.click("#open-file")
    idle(pg)


def focused(pg: Any) -> dict[str, Any]:
    """What has the keyboard focus: its tag, id, move, role and label, and whether it is
    the first move button."""
    return pg.evaluate(
        """() => { const a = document.activeElement;
        return { tag: a.tagName.toLowerCase(), id: a.id, action: a.dataset ? a.dataset.action : null,
          actions: a.getAttribute('data-actions'), role: a.getAttribute('role'),
          label: a.getAttribute('aria-label'), inMoves: !!a.closest('#moves'),
          first: a === document.querySelector('#moves button') }; }"""
    )


def log_length(pg: Any) -> int:
    return int(pg.eval_on_selector_all("#log li", "ls => ls.length"))


def move_labels(pg: Any) -> dict[int, str]:
    return {
        int(a): label
        for a, label in pg.eval_on_selector_all(
            "#moves button", "bs => bs.map(b => [b.dataset.action, b.textContent])"
        )
    }


def announced(pg: Any) -> str:
    pg.wait_for_timeout(80)  # the live region is filled just after it is cleared
    return str(pg.text_content("#announce"))


# ---- keyboard play ---------------------------------------------------------------------


def test_enter_on_a_move_keeps_the_keyboard_on_the_next_decision(open_page: Any) -> None:
    pg = open_page()
    start(pg, "kanaloa", 3)
    assert focused(pg)["first"], focused(pg)  # the game opens on its first move
    words = announced(pg)
    assert "you play" in words and "Your move: you play a card" in words, words
    for _ in range(12):
        if pg.is_visible("#result"):
            break
        n = log_length(pg)
        action = int(focused(pg)["action"])
        pg.keyboard.press("Enter")
        idle(pg)
        assert log_length(pg) > n  # the move was played, the bots answered
        mine = pg.eval_on_selector_all(
            f"#log li:nth-child({n + 1}) .line",
            "ds => [ds[0].parentNode.dataset.action, ds[0].textContent]",
        )
        assert int(mine[0]) == action
        now = focused(pg)
        assert now["first"] or (pg.is_visible("#result") and now["id"] == "result"), now
        # The live region tells what happened (the human's move first) and whose turn it is.
        words = announced(pg)
        assert words.startswith(mine[1]), (mine, words)
        assert "Your move:" in words or "wins" in words, words
    # Tab goes on to the other moves, not round the page.
    if len(move_labels(pg)) > 1:
        pg.keyboard.press("Tab")
        assert focused(pg)["inMoves"] and not focused(pg)["first"]


def test_the_moves_on_the_picture_are_buttons_for_the_keyboard(open_page: Any) -> None:
    pg = open_page()
    start(pg, "kahuna", 2, seed=4)
    played_on_picture = 0
    for _ in range(6):
        labels = move_labels(pg)
        regions = pg.eval_on_selector_all(
            "#pictures svg .hit",
            "ns => ns.map(n => [n.getAttribute('tabindex'), n.getAttribute('role'), "
            "n.getAttribute('aria-label'), n.dataset.actions])",
        )
        assert regions, "no move on the picture"
        for tabindex, role, label, actions in regions:
            acts = [int(a) for a in actions.split()]
            assert tabindex == "0" and role == "button", (tabindex, role)
            # The label names the move(s) as the buttons do.
            assert all(labels[a] in label for a in acts), (label, acts)
        # From the first move button, Shift+Tab reaches the picture's moves.
        assert focused(pg)["first"]
        pg.keyboard.press("Shift+Tab")
        region = focused(pg)
        assert region["role"] == "button" and region["actions"], region
        n = log_length(pg)
        pg.keyboard.press("Enter")
        acts = [int(a) for a in region["actions"].split()]
        if len(acts) > 1:  # a bridge paid one way or another: which?
            assert pg.is_visible("#choice")
            choice = focused(pg)
            assert choice["action"] is not None and int(choice["action"]) in acts, choice
            pg.keyboard.press("Escape")  # cancel gives the region the focus back
            assert not pg.is_visible("#choice") and focused(pg)["actions"] == region["actions"]
            pg.keyboard.press("Enter")
            pg.keyboard.press("Enter")
        idle(pg)
        assert log_length(pg) > n
        mine = pg.eval_on_selector(f"#log li:nth-child({n + 1})", "li => li.dataset.action")
        assert int(mine) in acts
        played_on_picture += 1
        if pg.is_visible("#result"):
            break
    assert played_on_picture >= 3


# ---- layouts ------------------------------------------------------------------------------

_BOX = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"""


def boxes(pg: Any, selector: str) -> list[list[float]]:
    return [list(b) for b in pg.evaluate(_BOX, selector)]


def no_sideways_scroll(pg: Any) -> None:
    width = pg.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


def inside(box: list[float], width: int, height: int | None = None) -> bool:
    x0, y0, x1, y1 = box
    ok = x0 >= -0.5 and x1 <= width + 0.5
    return ok and (height is None or (y0 >= -0.5 and y1 <= height + 0.5))


@pytest.mark.parametrize(("game", "players"), [("kanaloa", 4), ("kahuna", 2)])
def test_a_phone_shows_the_game_without_sideways_scrolling(
    open_page: Any, game: str, players: int
) -> None:
    pg = open_page(390, 844)
    no_sideways_scroll(pg)
    start(pg, game, players)
    no_sideways_scroll(pg)
    for sel in ["#pictures img", "#moves button", "#status", "#prompt", "#side"]:
        for box in boxes(pg, sel):
            assert inside(box, 390), (sel, box)
    (img,) = boxes(pg, "#pictures img")
    assert img[2] - img[0] >= 370  # the whole width of the phone
    # Zoomed, the picture is at its own size (its print legible), scrolled inside its frame.
    pg.click("#zoom")
    natural, shown = pg.eval_on_selector(
        "#pictures img", "i => [i.naturalWidth, i.getBoundingClientRect().width]"
    )
    assert shown == pytest.approx(natural, abs=1) and natural >= 1000
    no_sideways_scroll(pg)
    pg.click("#moves button")  # a move with the picture zoomed: the regions follow it
    idle(pg)
    svg_w = pg.eval_on_selector("#pictures svg", "s => s.getBoundingClientRect().width")
    assert svg_w == pytest.approx(natural, abs=1)


def test_a_phone_shows_the_record_and_its_controls(open_page: Any) -> None:
    pg = open_page(390, 844)
    pg.click("nav button[data-tab='replay']")
    no_sideways_scroll(pg)
    for sel in ["#record-form label", "#record-form button", "#file-index"]:
        for box in boxes(pg, sel):
            assert inside(box, 390), (sel, box)
    pg.click("#open-file")
    idle(pg)
    pg.keyboard.press("ArrowRight")
    idle(pg)
    no_sideways_scroll(pg)
    for sel in ["#controls button", "#slider", "#view-seat", "#pictures img"]:
        assert boxes(pg, sel), sel
        for box in boxes(pg, sel):
            assert inside(box, 390), (sel, box)
    pg.click("nav button[data-tab='live']")
    pg.select_option("#speed", "1200")
    pg.click("#start")
    idle(pg)
    pg.click("#playpause")
    no_sideways_scroll(pg)
    for box in boxes(pg, "#controls button, #view-seat"):
        assert inside(box, 390), box


@pytest.mark.parametrize(("game", "players"), [("kanaloa", 4), ("kahuna", 2)])
def test_at_800_by_600_the_board_and_the_moves_show_together(
    open_page: Any, game: str, players: int
) -> None:
    pg = open_page(800, 600)
    start(pg, game, players)
    for k in range(4):
        if pg.is_visible("#result"):
            break
        no_sideways_scroll(pg)
        (img,) = boxes(pg, "#pictures img")
        first = boxes(pg, "#moves button")[0]
        assert inside(img, 800, 600), (k, img)
        assert inside(first, 800, 600), (k, first)
        assert img[3] - img[1] >= 330, img  # not shrunk to a stamp
        pg.keyboard.press("Enter")
        idle(pg)


# ---- watching ---------------------------------------------------------------------------


def test_quick_key_presses_while_watching_are_all_taken(open_page: Any, record_dir: Path) -> None:
    (rec,) = load_records(record_dir / "kahuna.jsonl")
    states = [rec.start_state()] + [s.after for s in replay(rec)]
    g = get_game("kahuna")
    last = len(states) - 1
    pg = open_page()
    open_record(pg)
    for _ in range(25):
        pg.keyboard.press("ArrowRight")
    idle(pg)
    assert pg.inner_text("#where") == f"Step 25 of {last}."
    assert pg.text_content("#text") == g.render_text(states[25], 0, color=False, legal=False)
    for _ in range(10):
        pg.keyboard.press("ArrowLeft")
    for _ in range(3):
        pg.click("#next")
    idle(pg)
    assert pg.inner_text("#where") == f"Step 18 of {last}."
    assert pg.text_content("#text") == g.render_text(states[18], 0, color=False, legal=False)
    assert "Step 18 of" in announced(pg)
    for _ in range(last + 20):  # past the end: the end
        pg.keyboard.press("ArrowRight")
    idle(pg)
    assert pg.inner_text("#where") == f"Step {last} of {last}, game over."


def test_the_result_is_readable_at_1280(open_page: Any) -> None:
    pg = open_page(1280, 800)
    open_record(pg)
    pg.keyboard.press("End")
    idle(pg)
    assert pg.is_visible("#result")
    clipped = pg.eval_on_selector_all(
        "#final-lines, #final-lines div, #result",
        "es => es.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.outerHTML.slice(0, 80))",
    )
    assert clipped == []
    for box in boxes(pg, "#final-lines div, #ranking"):
        assert inside(box, 1280), box


def test_enter_in_the_game_index_opens_the_game_without_a_console_error(
    open_page: Any,
) -> None:
    pg = open_page()
    pg.click("nav button[data-tab='replay']")
    pg.fill("#file-index", "0")
    pg.press("#file-index", "Enter")
    idle(pg)
    assert pg.is_visible("#table") and pg.inner_text("#where").startswith("Step 0 of ")
    # open_page checks at the end that no console error (a form the CSP blocks) was shown.


# ---- what the page explains ---------------------------------------------------------------


def test_the_page_explains_each_game_and_its_moves(open_page: Any) -> None:
    pg = open_page()
    pg.select_option("#game", "kanaloa")
    pg.click("#howto summary")
    text = pg.inner_text("#howto")
    assert "How to play Kanaloa" in text
    for words in ["trick", "ocean", "dolphin move", "R4", "R5", "R6.3", "R9.2"]:
        assert words in text, words
    assert "Kahuna" not in text.replace("How to play Kanaloa", "")
    pg.select_option("#game", "kahuna")
    text = pg.inner_text("#howto")
    assert "How to play Kahuna" in text
    for words in ["maj", "pay DUDA", "K4.1", "K4.2", "K5", "K7", "K8.2"]:
        assert words in text, words
    start(pg, "kahuna", 2, seed=4)
    labels = list(move_labels(pg).values())
    places = [lb for lb in labels if lb.startswith("place bridge ")]
    assert places and all(", pay " in lb for lb in places), labels
    assert any(lb.startswith(("take ", "draw from the pile")) for lb in labels), labels


def _games_answer_with(pg: Any, site: str, extra: Any) -> None:
    """Answer the page's GET /api/games with the server's answer plus `extra`."""

    def handle(route: Any) -> None:
        resp = route.fetch()
        body = resp.json()
        body.update(extra(body) if callable(extra) else extra)
        route.fulfill(response=resp, body=json.dumps(body))

    pg.route(site + "/api/games", handle)
    pg.reload()
    idle(pg)
    pg.click("nav button[data-tab='replay']")


def test_the_record_list_says_how_many_files_it_leaves_out(open_page: Any, site: str) -> None:
    pg = open_page()
    pg.click("nav button[data-tab='replay']")
    assert not pg.is_visible("#not-listed")  # the server's answer without the count
    _games_answer_with(pg, site, {"not_listed": 7})
    assert pg.inner_text("#not-listed").startswith("7 more record files not listed")
    _games_answer_with(
        pg, site, lambda b: {"record_folders": [{"path": "a", "not_listed": 1}, {"not_listed": 2}]}
    )
    assert pg.inner_text("#not-listed").startswith("3 more record files not listed")
    _games_answer_with(pg, site, {"not_listed": [0, 1]})
    assert pg.inner_text("#not-listed").startswith("1 more record file not listed")
    _games_answer_with(pg, site, {"not_listed": 0})
    assert not pg.is_visible("#not-listed")


def test_every_request_names_the_tab(open_page: Any) -> None:
    seen: list[tuple[str, str | None]] = []

    def watch(pg: Any) -> None:
        pg.on(
            "request",
            lambda r: (
                seen.append((r.url, r.headers.get("x-kanaloa-tab")))
                if "/api/" in r.url and r.resource_type == "fetch"
                else None
            ),
        )

    pg = open_page()
    watch(pg)
    pg.reload()
    idle(pg)
    start(pg, "kanaloa", 3)
    pg.keyboard.press("Enter")
    idle(pg)
    other = open_page()
    watch(other)
    other.reload()
    idle(other)
    ids = [tab for _, tab in seen]
    assert len(seen) >= 4 and all(ids), seen
    first, second = ids[0], ids[-1]
    assert first != second and len(set(ids)) == 2  # one id per page load
    assert len(first) >= 32


# ---- accessibility ------------------------------------------------------------------------


def _serious(pg: Any) -> list[str]:
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        missing("axe-playwright-python is not installed (pip install -e '.[dev]')")
    results = Axe().run(pg)
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(str(n["target"]) for n in v["nodes"][:4])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_no_serious_accessibility_violation_in_the_main_states(open_page: Any) -> None:
    pg = open_page()
    found = {"start": _serious(pg)}
    pg.click("#howto summary")
    found["how to play"] = _serious(pg)
    start(pg, "kanaloa", 4)
    found["a Kanaloa game"] = _serious(pg)
    pg = open_page()
    start(pg, "kahuna", 2)
    found["a Kahuna game"] = _serious(pg)
    pg = open_page()
    open_record(pg)
    for _ in range(5):
        pg.keyboard.press("ArrowRight")
    idle(pg)
    found["watching a record"] = _serious(pg)
    pg.keyboard.press("End")
    idle(pg)
    found["a record's result"] = _serious(pg)
    phone = open_page(390, 844)
    start(phone, "kanaloa", 3)
    found["a phone"] = _serious(phone)
    assert {k: v for k, v in found.items() if v} == {}
