"""Pictures of a Kahuna game: `render_rgb(state, i=0, seat=None) -> (H, W, 3) uint8`.

The board fills the left: the twelve islands at their places on the printed board
(KAHUNA-RULES.md K11), each with its name and majority threshold ("maj 3"), the 27
lines as straight dotted lines, the bridges as thick lines in the player colours,
an island's rim in its holder's colour, and the stones as discs in the player
colours on the islands they mark. Below the board: the face-up row, the pile (a
card back with its size) and the hand of `seat` or of the player to act (none once
the game is over), the cards the opponent knows tagged "seen". On the right: round,
turn, phase and who is to act, the points of each scoring, bridges and stones on
the board and in supply, the discards, the other player's hand as its known cards
and backs (K6.7), and the result once the game is over.

Only what the shown player may see is drawn (K12): never the other hand beyond
`known`, the pile's cards or the other player's face-down discards. Player 0 is red,
player 1 yellow, as in the text view. Drawn with Pillow's built-in font through
`kanaloa_env.drawing.canvas`; the state is not modified.

Speed: about as fast as Kanaloa's picture (measured in benchmarks/HISTORY.md).

```python
from kanaloa_env.core.kahuna import Config, init
from kanaloa_env.games.kahuna.image import render_rgb, render_image
img = render_rgb(init(Config(), 1, seed=0))      # (840, 1200, 3) uint8
render_image(state, seat=1).save("board.png")    # the same as a PIL image
```
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from PIL import Image

from ...core.kahuna import cards
from ...core.kahuna.constants import (
    ACTION_CARD,
    ACTION_KIND,
    ACTION_LINE,
    ACTION_SLOT,
    BRIDGES_PER_PLAYER,
    ISLAND_NAMES,
    LINES,
    MAJORITY,
    NUM_ISLANDS,
    NUM_SCORINGS,
    Kind,
    Phase,
)
from ...core.kahuna.state import State
from ...drawing.canvas import Canvas
from ..protocol import Region
from .describe import down_count, game_and_seat, hand_size, holders, lines_in, result_sentence

__all__ = [
    "HEIGHT",
    "ISLAND_XY",
    "PLAYER_COLORS",
    "STONE_OFFSET",
    "WIDTH",
    "action_regions",
    "island_center",
    "line_path",
    "render_image",
    "render_rgb",
]

WIDTH, HEIGHT = 1200, 840

# K11: island centres on the printed board, x to the right and y down, both 0..1.
ISLAND_XY: tuple[tuple[float, float], ...] = (
    (0.19, 0.34),  # ALOA
    (0.49, 0.31),  # BARI
    (0.84, 0.34),  # COCO
    (0.29, 0.45),  # DUDA
    (0.48, 0.51),  # ELAI
    (0.70, 0.47),  # FAAA
    (0.79, 0.53),  # GOLA
    (0.26, 0.66),  # HUNA
    (0.47, 0.70),  # IFFI
    (0.66, 0.62),  # JOJO
    (0.78, 0.70),  # KAHU
    (0.46, 0.85),  # LALE
)
# Player colours, matching the text view's ANSI colours: red and yellow (both stand out
# on the sea and the islands).
PLAYER_COLORS: tuple[tuple[int, int, int], ...] = ((222, 56, 44), (252, 208, 36))
_SEA = (22, 86, 128)
_DEEP = (12, 44, 70)
_PANEL = (14, 38, 58)
_TEXT = (236, 240, 244)
_DIM_TEXT = (150, 172, 190)
_ISLAND = (86, 150, 78)
_SAND = (226, 206, 150)
_DOTS = (176, 214, 232)
_CARD = (240, 230, 204)
_CARD_BACK = (40, 110, 104)
_INK = (30, 30, 30)
_GOLD = (255, 204, 64)

# Board geometry, in output pixels: K11's unit square scaled by _SCALE about the board's
# centre, so the islands fill the board panel.
_BOARD = (10, 10, 810, 624)  # x0, y0, x1, y1
_CARDS_PANEL = (10, 634, 810, HEIGHT - 10)  # the row, the pile and the hand
_SIDE_PANEL = (822, 10, WIDTH - 10, HEIGHT - 10)  # points, supplies, the other hand
_SCALE = 960
_MID = (0.515, 0.58)  # the middle of the islands' K11 extent
_R = 38  # island radius
_CLEAR = _R + 18  # how far a line passing an island keeps from its centre
STONE_OFFSET = (27.0, -27.0)  # a stone's centre from its island's centre
_STONE_R = 12
_CARD_W, _CARD_H = 62, 86


def island_center(x: int) -> tuple[float, float]:
    """Pixel centre of island `x` on the picture (K11 positions)."""
    u, v = ISLAND_XY[x]
    cx = (_BOARD[0] + _BOARD[2]) / 2 + (u - _MID[0]) * _SCALE
    cy = (_BOARD[1] + _BOARD[3]) / 2 + (v - _MID[1]) * _SCALE
    return cx, cy


@cache
def line_path(n: int) -> tuple[tuple[float, float], ...]:
    """Pixel points of line `n` from the centre of its first island to its second's.

    Straight (two points) as K11 says, except where the straight line would pass
    under a third island's disc and look like two lines through it: then it bows
    around that island as a quadratic curve (only COCO-KAHU, which passes 17 px
    from GOLA's centre; every other line clears all islands by 70 px or more).
    """
    a, b = LINES[n]
    (xa, ya), (xb, yb) = island_center(a), island_center(b)
    length = math.hypot(xb - xa, yb - ya)
    nx, ny = -(yb - ya) / length, (xb - xa) / length  # unit normal
    for z in range(NUM_ISLANDS):
        if z in (a, b):
            continue
        xz, yz = island_center(z)
        t = ((xz - xa) * (xb - xa) + (yz - ya) * (yb - ya)) / length**2
        side = (xz - xa) * nx + (yz - ya) * ny  # signed distance from the straight line
        if not 0 < t < 1 or abs(side) >= _CLEAR:
            continue
        away = -1.0 if side > 0 else 1.0
        mx, my = (xa + xb) / 2, (ya + yb) / 2
        bow = 0.0
        while True:  # push the control point out until the curve clears the island
            bow += 4.0
            cx, cy = mx + away * bow * nx, my + away * bow * ny
            ts = np.linspace(0.0, 1.0, 25)
            px = (1 - ts) ** 2 * xa + 2 * (1 - ts) * ts * cx + ts**2 * xb
            py = (1 - ts) ** 2 * ya + 2 * (1 - ts) * ts * cy + ts**2 * yb
            if np.hypot(px - xz, py - yz).min() >= _CLEAR:
                return tuple(zip(px.tolist(), py.tolist(), strict=True))
    return ((xa, ya), (xb, yb))


@cache
def _dots() -> tuple[tuple[float, float], ...]:
    """Centres of the dots of all 27 dotted lines, between the island rims, about 11 px
    apart along each line."""
    out: list[tuple[float, float]] = []
    for n in range(len(LINES)):
        pts = np.array(line_path(n))
        seg = np.hypot(*np.diff(pts, axis=0).T)
        arc = np.concatenate([[0.0], np.cumsum(seg)])
        inner = arc[-1] - 2 * _R
        k = max(2, int(inner // 11))
        at = _R + inner * np.arange(k + 1) / k
        xs, ys = np.interp(at, arc, pts[:, 0]), np.interp(at, arc, pts[:, 1])
        out += zip(xs.tolist(), ys.tolist(), strict=True)
    return tuple(out)


def _draw_background(c: Canvas) -> None:
    """The panels, the sea and the dotted lines."""
    x0, y0, x1, y1 = _BOARD
    c.rect(x0, y0, x1, y1, fill=_SEA, radius=14)
    for x, y in _dots():
        c.ellipse(x - 2, y - 2, x + 2, y + 2, fill=_DOTS)
    c.rect(*_CARDS_PANEL, fill=_PANEL, radius=12)
    c.rect(*_SIDE_PANEL, fill=_PANEL, radius=12)


def _draw_board(c: Canvas, state: State, g: int) -> None:
    x0, y0, x1, y1 = _BOARD
    for p in (0, 1):
        for n in lines_in(int(state.bridges[g, p])):
            path = list(line_path(n))
            c.line(path, fill=_INK, width=13)
            c.line(path, fill=PLAYER_COLORS[p], width=9)
    hold = holders(state, g)
    stones = [int(state.stones[g, p]) for p in (0, 1)]
    for x in range(NUM_ISLANDS):
        cx, cy = island_center(x)
        rim = PLAYER_COLORS[hold[x]] if hold[x] >= 0 else _SAND
        c.ellipse(cx - _R, cy - _R, cx + _R, cy + _R, fill=_ISLAND, outline=rim, width=4)
        c.text((cx, cy - 7), ISLAND_NAMES[x], 16, fill=_TEXT, anchor="mm")
        c.text((cx, cy + 13), f"maj {MAJORITY[x]}", 12, fill=_SAND, anchor="mm")
        for p in (0, 1):
            if stones[p] >> x & 1:
                sx, sy = cx + STONE_OFFSET[0], cy + STONE_OFFSET[1]
                c.ellipse(
                    sx - _STONE_R - 2, sy - _STONE_R - 2, sx + _STONE_R + 2, sy + _STONE_R + 2,
                    fill=_INK,
                )  # fmt: skip
                c.ellipse(
                    sx - _STONE_R, sy - _STONE_R, sx + _STONE_R, sy + _STONE_R,
                    fill=PLAYER_COLORS[p],
                )  # fmt: skip
    # The printed board's corners: turtles at the top, fish at the bottom (K11).
    c.text((x0 + 16, y0 + 12), "turtles", 12, fill=_DIM_TEXT)
    c.text((x0 + 16, y1 - 24), "fish", 12, fill=_DIM_TEXT)


def _island_card(c: Canvas, x: float, y: float, island: int, w: float, h: float) -> None:
    """An island card with its top-left corner at (x, y)."""
    c.rect(x + 3, y + 4, x + w + 3, y + h + 4, fill=(5, 18, 30), radius=7)  # shadow
    c.rect(x, y, x + w, y + h, fill=_CARD, outline=_INK, width=1, radius=7)
    c.ellipse(x + w / 2 - 14, y + h / 2 - 20, x + w / 2 + 14, y + h / 2 + 8, fill=_ISLAND)
    c.text((x + w / 2, y + h - 14), ISLAND_NAMES[island], 13 if w >= 50 else 10,
           fill=_INK, anchor="mm")  # fmt: skip


def _card_back(c: Canvas, x: float, y: float, w: float, h: float, label: str = "") -> None:
    c.rect(x + 3, y + 4, x + w + 3, y + h + 4, fill=(5, 18, 30), radius=7)
    c.rect(x, y, x + w, y + h, fill=_CARD_BACK, outline=_SAND, width=2, radius=7)
    c.rect(x + 6, y + 6, x + w - 6, y + h - 6, outline=(90, 160, 150), width=1, radius=5)
    if label:
        c.text((x + w / 2, y + h / 2), label, 20 if w >= 50 else 12, fill=_TEXT, anchor="mm")


def _slot_xy(s: int) -> tuple[float, float]:
    """Top-left corner of face-up slot `s`."""
    x0, y0 = _CARDS_PANEL[:2]
    return x0 + 16 + s * (_CARD_W + 10), y0 + 36


def _pile_x() -> float:
    return _slot_xy(3)[0] + 14


def _hand_xy(j: int) -> tuple[float, float]:
    """Top-left corner of the shown hand's `j`-th card."""
    return _pile_x() + _CARD_W + 40 + j * (_CARD_W + 10), _CARDS_PANEL[1] + 36


def _draw_cards(c: Canvas, state: State, g: int, shown: int | None) -> None:
    """The face-up row, the pile and the shown hand, below the board."""
    x0, y0 = _CARDS_PANEL[:2]
    c.text((x0 + 16, y0 + 10), "Face-up row", 15)
    for s in range(3):
        x, y = _slot_xy(s)
        c.text((x + _CARD_W / 2, y + _CARD_H + 12), f"slot {s}", 12, fill=_DIM_TEXT, anchor="mm")
        card = int(state.face_up[g, s])
        if card >= 0:
            _island_card(c, x, y, card, _CARD_W, _CARD_H)
        else:
            c.rect(x, y, x + _CARD_W, y + _CARD_H, outline=(60, 100, 130), width=2, radius=7)
    px = _pile_x()
    c.text((px, y0 + 10), "Pile", 15)
    n = int(state.pile_size[g])
    if n:
        _card_back(c, px, y0 + 36, _CARD_W, _CARD_H, str(n))
    else:
        c.rect(px, y0 + 36, px + _CARD_W, y0 + 36 + _CARD_H, outline=(60, 100, 130), width=2,
               radius=7)  # fmt: skip
    c.text((px + _CARD_W / 2, y0 + 36 + _CARD_H + 12), f"{n} cards", 12, fill=_DIM_TEXT,
           anchor="mm")  # fmt: skip
    hx = px + _CARD_W + 40
    if shown is None:
        c.text((hx, y0 + 10), "Game over", 15, fill=_DIM_TEXT)
        return
    to_act = int(state.current_player[g])
    title = f"Hand of player {shown}" + ("  (to act)" if shown == to_act else "")
    c.text((hx, y0 + 10), title, 15, fill=PLAYER_COLORS[shown])
    hand = cards.islands_of(int(state.hands[g, shown]))
    known = cards.counts(state.known[g, shown]).tolist()
    if not hand:
        c.text((hx, y0 + 60), "no cards", 14, fill=_DIM_TEXT)
    for j, card in enumerate(hand):
        x = _hand_xy(j)[0]
        _island_card(c, x, y0 + 36, card, _CARD_W, _CARD_H)
        if known[card] > 0:  # the opponent saw this card taken (K6.7)
            known[card] -= 1
            c.text((x + _CARD_W / 2, y0 + 36 + _CARD_H + 12), "seen", 12, fill=_GOLD,
                   anchor="mm")  # fmt: skip
    down = int(state.discard_down[g, shown])
    if down:
        names = " ".join(cards.names_of(down))
        c.text((hx, HEIGHT - 30), f"own face-down discards: {names}", 12, fill=_DIM_TEXT)


def _draw_panel(c: Canvas, state: State, g: int, shown: int | None) -> None:
    """Round, turn, phase, points, supplies, discards, the other hand, the result."""
    x0, y0, x1 = _SIDE_PANEL[:3]
    x = x0 + 16
    to_act = int(state.current_player[g])
    c.text((x, y0 + 12), "Kahuna", 26)
    turn = int(state.turn[g])
    final = int(state.final_turns_left[g])
    if to_act >= 0:
        c.text((x, y0 + 48), f"Round {int(state.round[g])} of {NUM_SCORINGS}, turn {turn + 1}", 16)
        phase = (
            f"final turn {3 - final} of 2"
            if final
            else f"{Phase(int(state.phase[g])).name.lower()} phase"
        )
        c.text((x, y0 + 72), f"Player {to_act} to act: {phase}", 16, fill=PLAYER_COLORS[to_act])
        notes = []
        if state.last_turn_skipped[g] and not final:
            notes.append(f"player {1 - to_act} skipped: no skip now")
        if state.handed_back[g]:
            notes.append("handed back: take or draw")
        for k, note in enumerate(notes):
            c.text((x, y0 + 96 + 18 * k), note, 13, fill=_DIM_TEXT)
    else:
        c.text((x, y0 + 48), f"Round {int(state.round[g])} of {NUM_SCORINGS}, {turn} turns", 16)
        c.text((x, y0 + 72), "Game over", 16, fill=_GOLD)

    # Points of each scoring.
    y = y0 + 140
    c.text((x, y), "Points", 16)
    cols = (x + 92, x + 146, x + 200, x + 262)
    for cx, head in zip(cols, ("1st", "2nd", "3rd", "total"), strict=True):
        c.text((cx, y + 26), head, 13, fill=_DIM_TEXT, anchor="ma")
    n = int(state.num_scorings[g])
    for p in (0, 1):
        yy = y + 48 + 26 * p
        _chip(c, x, yy, p)
        c.text((x + 22, yy + 7), f"player {p}", 14, anchor="lm")
        for k in range(NUM_SCORINGS):
            text = str(int(state.scorings[g, k, p])) if k < n else "-"
            c.text((cols[k], yy + 7), text, 14, anchor="mm")
        c.text((cols[3], yy + 7), str(int(state.scorings[g, :, p].sum())), 15, anchor="mm")

    # Bridges and stones: on the board / in supply.
    y = y0 + 256
    c.text((x, y), "On the board / in supply", 16)
    for cx, head in zip((x + 150, x + 250), ("bridges", "stones"), strict=True):
        c.text((cx, y + 26), head, 13, fill=_DIM_TEXT, anchor="ma")
    per = state.config.stones_per_player
    for p in (0, 1):
        yy = y + 48 + 26 * p
        b = int(state.bridges[g, p]).bit_count()
        s = int(state.stones[g, p]).bit_count()
        _chip(c, x, yy, p)
        c.text((x + 22, yy + 7), f"player {p}", 14, anchor="lm")
        c.text((x + 150, yy + 7), f"{b} / {BRIDGES_PER_PLAYER - b}", 14, anchor="mm")
        c.text((x + 250, yy + 7), f"{s} / {per - s}", 14, anchor="mm")

    # Cards: the pile and the discards.
    y = y0 + 372
    up = int(cards.size(state.discard_up[g]))
    c.text((x, y), "Cards", 16)
    c.text((x, y + 26), f"pile {int(state.pile_size[g])}, discarded face up {up}", 14)
    downs = ", ".join(f"player {p} {down_count(state, g, p)}" for p in (0, 1))
    c.text((x, y + 48), f"face down: {downs}", 14)

    # The other hand: known cards face up, the rest as backs.
    y = y0 + 450
    if shown is not None:
        other = 1 - shown
        size = hand_size(state, g, other)
        c.text((x, y), f"Hand of player {other}: {size} cards", 16, fill=PLAYER_COLORS[other])
        known = cards.islands_of(int(state.known[g, other]))
        for j in range(size):
            cx = x + j * 46
            if j < len(known):
                _island_card(c, cx, y + 28, known[j], 38, 54)
            else:
                _card_back(c, cx, y + 28, 38, 54, "?")
        c.text((x, y + 96), f"face up: the cards player {shown} saw them take", 12, fill=_DIM_TEXT)
    if to_act < 0:
        _draw_result(c, state, g, x, y0 + 600, x1 - 16)


def _chip(c: Canvas, x: float, y: float, p: int) -> None:
    c.rect(x, y, x + 14, y + 14, fill=PLAYER_COLORS[p], outline=_INK, width=1, radius=3)


def _draw_result(c: Canvas, state: State, g: int, x0: float, y0: float, x1: float) -> None:
    """The result box: the result sentence, wrapped to the box, under the panel's text."""
    text = result_sentence(state, g, lambda p: f"player {p}")
    text = text[0].upper() + text[1:] + "."
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if c.text_width(trial, 16) > x1 - x0 - 24 and line:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    w = int(state.winner[g])
    c.rect(x0, y0, x1, y0 + 20 + 22 * len(lines), fill=_GOLD if w < 0 else PLAYER_COLORS[w],
           outline=_INK, width=2, radius=12)  # fmt: skip
    for k, ln in enumerate(lines):
        c.text((x0 + 12, y0 + 12 + 22 * k), ln, 16, fill=_INK)


@cache
def _between_rims(n: int) -> tuple[tuple[float, float], ...]:
    """Line `n`'s path without its ends under the two islands' discs (where a click
    should not pick a bridge)."""
    pts = np.array(line_path(n))
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    at = np.concatenate([[_R], arc[(arc > _R) & (arc < arc[-1] - _R)], [arc[-1] - _R]])
    xs, ys = np.interp(at, arc, pts[:, 0]), np.interp(at, arc, pts[:, 1])
    return tuple(zip(xs.tolist(), ys.tolist(), strict=True))


def action_regions(state: State, i: int = 0, seat: int | None = None) -> list[Region]:
    """The parts of `render_rgb(state, i, seat)` that play a legal action of the player
    to act (`kanaloa_env.games.protocol.Region`): a line for each bridge that may be
    placed or removed (one region per action: the cards paid differ), the hand's cards
    that may be discarded, the face-up cards that may be taken and the pile to draw
    from. None when the shown hand is not the player to act's; ending the play and
    skipping have no place on the picture."""
    g, shown = game_and_seat(state, i, seat)
    if shown is None or shown != int(state.current_player[g]):
        return []
    regions = []
    hand = cards.islands_of(int(state.hands[g, shown]))
    for a in map(int, np.flatnonzero(state.legal[g])):
        kind = int(ACTION_KIND[a])
        if kind in (Kind.PLACE, Kind.REMOVE):
            regions.append(Region(a, "line", _between_rims(int(ACTION_LINE[a])), 16.0))
        elif kind == Kind.DISCARD:
            for j, card in enumerate(hand):
                if card == ACTION_CARD[a]:
                    x, y = _hand_xy(j)
                    regions.append(Region(a, "rect", ((x, y), (x + _CARD_W, y + _CARD_H))))
        elif kind == Kind.TAKE:
            x, y = _slot_xy(int(ACTION_SLOT[a]))
            regions.append(Region(a, "rect", ((x, y), (x + _CARD_W, y + _CARD_H))))
        elif kind == Kind.DRAW:
            x, y = _pile_x(), _slot_xy(0)[1]
            regions.append(Region(a, "rect", ((x, y), (x + _CARD_W, y + _CARD_H))))
    return regions


def render_image(
    state: State, i: int = 0, seat: int | None = None, supersample: int = 2
) -> Image.Image:
    """The board of game `i` as a PIL RGB image of `WIDTH` x `HEIGHT` pixels.

    Args:
        state: a batch of Kahuna games (or a `public_view`); not modified.
        i: which game of the batch.
        seat: whose hand to show, 0 or 1; default the player to act (none once the
            game is over).
        supersample: draw this many times larger and shrink (1 = faster, jagged edges).

    Raises:
        TypeError: `state` not a Kahuna `State`, `i` or `seat` not an int.
        ValueError: `i`, `seat` or `supersample` out of range.
    """
    if supersample not in (1, 2, 3, 4):
        raise ValueError(f"supersample must be 1..4, got {supersample!r}")
    g, shown = game_and_seat(state, i, seat)
    c = Canvas(WIDTH, HEIGHT, _DEEP, supersample, _TEXT)
    _draw_background(c)
    _draw_board(c, state, g)
    _draw_cards(c, state, g, shown)
    _draw_panel(c, state, g, shown)
    return c.result()


def render_rgb(state: State, i: int = 0, seat: int | None = None) -> np.ndarray:
    """The board of game `i` as an (H, W, 3) uint8 array (`HEIGHT` x `WIDTH`).

    What `render_mode="rgb_array"` returns. `state` is the batch, `seat` the player whose
    hand is shown (see `render_image`).
    """
    return np.asarray(render_image(state, i, seat), dtype=np.uint8)
