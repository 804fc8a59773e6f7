"""Pictures of a Kanaloa table: `render_rgb(state, i=0, seat=None) -> (H, W, 3) uint8`.

The picture shows what a player at the table sees: the oval route of ocean cards
sailed clockwise (each card two coloured fields, dolphins drawn on their fields, the
start field with waves; removed cards left as faint outlines), the boats in the
player colours with their numbers, trump and the suit to follow, the current trick,
a scoreboard (fields ahead of the last boat, tricks won this round, announcements)
and one hand: the player to act's, or `seat`'s. Only that one hand is shown.

Drawn with Pillow and its built-in font, so it works on a fresh machine; nothing is
read from disk. The state is not modified.

```python
from kanaloa_env.core.kanaloa import Config, init
from kanaloa_env.games.kanaloa.image import render_rgb, render_image
img = render_rgb(init(Config(), 1, seed=0))      # (840, 1200, 3) uint8
render_image(state).save("table.png")            # the same as a PIL image
```
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image

from ...core.kanaloa.constants import (
    ANNOUNCE,
    CARD_RANK,
    CARD_SUIT,
    KANALOA,
    NUM_TIKI,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    TRICKS_PER_ROUND,
    Phase,
)
from ...core.kanaloa.state import State
from ...drawing.canvas import Canvas
from ..protocol import Region

__all__ = [
    "HEIGHT",
    "action_regions",
    "PLAYER_COLORS",
    "SUIT_COLORS",
    "WIDTH",
    "render_image",
    "render_rgb",
]

WIDTH, HEIGHT = 1200, 840

# Suit colours of the Tiki cards and ocean fields (R1.1): blue, red, green, turquoise.
SUIT_COLORS: tuple[tuple[int, int, int], ...] = (
    (31, 84, 196),
    (206, 45, 45),
    (46, 150, 62),
    (38, 196, 200),
)
# Boat colours, chosen to stand out from every suit colour.
PLAYER_COLORS: tuple[tuple[int, int, int], ...] = (
    (255, 210, 0),
    (245, 245, 245),
    (255, 128, 16),
    (232, 80, 214),
    (40, 40, 40),
)
_SEA = (13, 44, 70)
_LAGOON = (22, 66, 98)
_PANEL = (10, 34, 54)
_TEXT = (236, 240, 244)
_DIM_TEXT = (150, 172, 190)
_GOLD = (255, 204, 64)
_KANALOA = (122, 72, 168)
_OCTOPUS = (60, 60, 72)

# Geometry of the route (in output pixels).
_CX, _CY = 600, 306
_RX, _RY = 520, 244  # the ring's centre line
_RING = 62  # width of the ring
_CARD_GAP = 7  # between ocean cards, along the ring
_CARD_W, _CARD_H = 62, 90
_GLYPH_SHIFT, _BOAT_SHIFT = 20, -16  # px along the ring from a field's centre
_HAND_W, _PANEL_Y = 790, 616  # the hand panel's right edge and the bottom panels' top


def _canvas(scale: int) -> Canvas:
    return Canvas(WIDTH, HEIGHT, _SEA, scale, _TEXT)


# ---- the oval route ---------------------------------------------------------------


@lru_cache(maxsize=8)
def _ring_table(n: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Angles and cumulative arc length (0..1) along the ring's centre ellipse."""
    t = np.linspace(-math.pi / 2, 3 * math.pi / 2, n + 1)
    x, y = _RX * np.cos(t), _RY * np.sin(t)
    seg = np.hypot(np.diff(x), np.diff(y))
    s = np.concatenate([[0.0], np.cumsum(seg)])
    return t, s / s[-1]


@lru_cache(maxsize=4096)
def _angle_at(u: float) -> float:
    """Ellipse angle at arc-length fraction `u` (0 = top centre, growing clockwise)."""
    t, s = _ring_table()
    return float(np.interp(u % 1.0, s, t))


def _ring_point(t: float, off: float = 0.0) -> tuple[float, float]:
    """Point at angle `t` on the centre line, moved `off` px outward along the normal."""
    x, y = _RX * math.cos(t), _RY * math.sin(t)
    nx, ny = _RY * math.cos(t), _RX * math.sin(t)  # outward normal of the ellipse
    n = math.hypot(nx, ny)
    return _CX + x + off * nx / n, _CY + y + off * ny / n


def _tangent(t: float) -> tuple[float, float]:
    dx, dy = -_RX * math.sin(t), _RY * math.cos(t)
    n = math.hypot(dx, dy)
    return dx / n, dy / n


@lru_cache(maxsize=1024)
def _segment(u0: float, u1: float, inner: float, outer: float) -> list[tuple[float, float]]:
    """Polygon of the ring between arc fractions u0..u1 and offsets inner..outer."""
    us = np.linspace(u0, u1, 12)
    ts = [_angle_at(u) for u in us]
    return [_ring_point(t, outer) for t in ts] + [_ring_point(t, inner) for t in reversed(ts)]


def _slot_geometry(num_slots: int) -> list[tuple[float, float, float]]:
    """Per slot: arc fractions where its first field starts, its fields meet, it ends."""
    perim = _perimeter()
    gap = _CARD_GAP / perim / 2
    out = []
    for n in range(num_slots):
        u0, u1 = n / num_slots, (n + 1) / num_slots
        out.append((u0 + gap, (u0 + u1) / 2, u1 - gap))
    return out


@lru_cache(maxsize=1)
def _perimeter() -> float:
    x = _RX * np.cos(np.linspace(0, 2 * math.pi, 4097))
    y = _RY * np.sin(np.linspace(0, 2 * math.pi, 4097))
    return float(np.hypot(np.diff(x), np.diff(y)).sum())


def _dolphin(c: Canvas, x: float, y: float, size: float, fill=(255, 255, 255)) -> None:
    """A leaping dolphin (side view) centred on (x, y), `size` px long."""
    k = size / 2
    body = [
        (-1.0, 0.25), (-0.8, 0.05), (-0.45, -0.22), (-0.05, -0.38), (0.1, -0.72), (0.28, -0.38),
        (0.55, -0.28), (0.8, -0.12), (1.0, -0.1), (0.82, 0.02), (0.55, 0.1), (0.2, 0.16),
        (0.05, 0.42), (-0.1, 0.18), (-0.5, 0.22), (-0.78, 0.35), (-1.0, 0.6), (-0.92, 0.3),
    ]  # fmt: skip
    c.polygon([(x + k * px, y + k * py) for px, py in body], fill=fill, outline=(20, 30, 40))


def _waves(c: Canvas, x: float, y: float, size: float) -> None:
    """Three wave lines: the start field (R1.3, 'waves')."""
    k = size / 2
    for dy in (-0.4, 0.0, 0.4):
        pts = [
            (x + k * (-1 + i / 8), y + k * (dy + 0.13 * math.sin(i / 8 * 2 * math.pi * 1.5)))
            for i in range(17)
        ]
        c.line(pts, fill=(255, 255, 255), width=2)


def _boat(c: Canvas, x: float, y: float, seat: int, size: float = 40, ring=None) -> None:
    """A boat centred on (x, y) in the seat's colour, the seat number on its hull.

    `ring` draws a halo of that colour (the player to act).
    """
    k = size / 2
    color = PLAYER_COLORS[seat]
    dark = (20, 20, 20) if sum(color) > 200 else (220, 220, 220)
    if ring is not None:
        c.ellipse(x - k * 1.3, y - k * 1.3, x + k * 1.3, y + k * 1.3, outline=ring, width=3)
    c.line([(x, y), (x, y - 0.95 * k)], fill=dark, width=max(1.0, size / 25))
    sail = [
        (x + 0.07 * k, y - 0.95 * k),
        (x + 0.07 * k, y - 0.05 * k),
        (x + 0.75 * k, y - 0.05 * k),
    ]
    c.polygon(sail, fill=(250, 250, 250), outline=dark, width=1)
    jib = [(x - 0.07 * k, y - 0.8 * k), (x - 0.07 * k, y - 0.05 * k), (x - 0.6 * k, y - 0.05 * k)]
    c.polygon(jib, fill=(250, 250, 250), outline=dark, width=1)
    hull = [(x - k, y), (x + k, y), (x + 0.7 * k, y + 0.85 * k), (x - 0.7 * k, y + 0.85 * k)]
    c.polygon(hull, fill=color, outline=dark, width=1)
    text_fill = (255, 255, 255) if sum(color) < 300 else dark
    c.text((x, y + 0.45 * k), str(seat), int(size * 0.46), fill=text_fill, anchor="mm")


def _draw_route(c: Canvas, state: State, g: int, removable: set[int]) -> None:
    cfg = state.config
    deck = cfg.deck
    N = cfg.route_cards
    geo = _slot_geometry(N)
    inner, outer = -_RING / 2, _RING / 2
    # Sailing direction: chevrons on the lagoon side of the ring, pointing clockwise.
    for j in range(8):
        t = _angle_at((j + 0.5) / 8)
        px, py = _ring_point(t, inner - 16)
        tx, ty = _tangent(t)
        nx, ny = -ty, tx
        c.polygon(
            [(px + 7 * tx, py + 7 * ty), (px - 5 * tx + 5 * nx, py - 5 * ty + 5 * ny),
             (px - 5 * tx - 5 * nx, py - 5 * ty - 5 * ny)],
            fill=(70, 120, 160),
        )  # fmt: skip
    for n in range(N):
        u0, um, u1 = geo[n]
        if not state.present[g, n]:
            c.polygon(_segment(u0, u1, inner, outer), fill=None, outline=(44, 82, 112), width=1)
            continue
        codes = state.route[g, 2 * n : 2 * n + 2]
        for side, (a, b) in enumerate(((u0, um), (um, u1))):
            code = int(codes[side])
            c.polygon(_segment(a, b, inner, outer), fill=SUIT_COLORS[int(deck.color[code])])
            # Glyphs sit in the front part of a field, a boat in the back: both stay visible.
            gx, gy = _ring_point(_angle_at((a + b) / 2 + _GLYPH_SHIFT / _perimeter()), 4)
            if deck.dolphin[code]:
                _dolphin(c, gx, gy - 1, 30)
            if deck.start[code]:
                _waves(c, gx, gy, 30)
        c.line(
            [_ring_point(_angle_at(um), inner), _ring_point(_angle_at(um), outer)],
            fill=(14, 30, 44),
            width=1.5,
        )
        highlight = n in removable
        c.polygon(
            _segment(u0, u1, inner, outer),
            outline=_GOLD if highlight else (14, 30, 44),
            width=4 if highlight else 2,
        )
        # The card's id outside the ring (ids appear in removal choices of the terminal game).
        lx, ly = _ring_point(_angle_at((u0 + u1) / 2), outer + 14)
        c.text((lx, ly), f"#{int(codes[0]) // 2}", 14 if highlight else 13,
               fill=_GOLD if highlight else _DIM_TEXT, anchor="mm")  # fmt: skip


def _draw_boats(c: Canvas, state: State, g: int) -> None:
    P = state.num_players
    N = state.config.route_cards
    geo = _slot_geometry(N)
    to_act = int(state.current_player[g])
    by_field: dict[int, list[int]] = {}
    for p in range(P):
        by_field.setdefault(int(state.boat_field[g, p]), []).append(p)
    for f, seats in by_field.items():
        u0, um, u1 = geo[f // 2]
        uf = (u0 + um) / 2 if f % 2 == 0 else (um + u1) / 2
        t = _angle_at(uf)
        if len(seats) == 1:
            x, y = _ring_point(_angle_at(uf + _BOAT_SHIFT / _perimeter()), -2)
            _boat(c, x, y + 2, seats[0], 38, ring=_GOLD if seats[0] == to_act else None)
            continue
        # Boats sharing the start field (R2.3) wait in a tidy grid on its lagoon side:
        # wide where the ring runs across the picture, tall where it runs down.
        n = len(seats)
        nx, ny = _tangent(t)[1], -_tangent(t)[0]  # unit normal (sign irrelevant below)
        cols = min(n, 3) if abs(ny) > abs(nx) else min(n, 2)
        rows = -(-n // cols)
        w, h = 34 * cols, 36 * rows
        reach = abs(nx) * w / 2 + abs(ny) * h / 2  # the grid's half-extent along the normal
        gx, gy = _ring_point(t, -_RING / 2 - 6 - reach)
        c.line([_ring_point(t, -_RING / 2 + 4), (gx, gy)], fill=_TEXT, width=2)
        for j, p in enumerate(seats):
            row, col = divmod(j, cols)
            x = gx + (col - (cols - 1) / 2) * 34
            y = gy + (row - (rows - 1) / 2) * 36
            _boat(c, x, y + 3, p, 32, ring=_GOLD if p == to_act else None)


# ---- cards ------------------------------------------------------------------------


def _card(c: Canvas, x: float, y: float, card: int, w: float = _CARD_W, h: float = _CARD_H) -> None:
    """A play card with its top-left corner at (x, y)."""
    if card < NUM_TIKI:
        fill = SUIT_COLORS[int(CARD_SUIT[card])]
    else:
        fill = _KANALOA if card == KANALOA else _OCTOPUS
    r = 8 if w >= 50 else 4
    c.rect(x + 3, y + 4, x + w + 3, y + h + 4, fill=(5, 18, 30), radius=r)  # shadow
    c.rect(
        x, y, x + w, y + h, fill=fill, outline=(255, 255, 255), width=2 if w >= 50 else 1, radius=r
    )
    if w < 50:  # a small card: the value or the special's initial only
        label = str(int(CARD_RANK[card]) + 1) if card < NUM_TIKI else "KO"[card - KANALOA]
        c.text((x + w / 2, y + h / 2 + 1), label, int(h * 0.45), anchor="mm")
    elif card < NUM_TIKI:
        value = str(int(CARD_RANK[card]) + 1)
        c.text((x + w / 2, y + h / 2 + 2), value, int(h * 0.42), anchor="mm")
        c.text((x + 6, y + 4), value, 13)
        c.text((x + w / 2, y + h - 11), SUIT_NAMES[int(CARD_SUIT[card])], 11, anchor="mm")
    elif card == KANALOA:
        c.ellipse(
            x + w / 2 - 17, y + h / 2 - 21, x + w / 2 + 17, y + h / 2 + 13, outline=_GOLD, width=3
        )
        c.text((x + w / 2, y + h / 2 - 4), "K", 24, fill=_GOLD, anchor="mm")
        c.text((x + w / 2, y + h - 11), "kanaloa", 11, anchor="mm")
    else:
        cx, cy = x + w / 2, y + h / 2 - 8
        for j in range(8):  # eight arms
            a = math.pi * (0.15 + 0.7 * j / 7)
            c.line(
                [(cx, cy), (cx + 20 * math.cos(a), cy + 24 * math.sin(a))],
                fill=(190, 120, 220),
                width=3,
            )
        c.ellipse(cx - 13, cy - 15, cx + 13, cy + 9, fill=(190, 120, 220))
        c.text((x + w / 2, y + h - 11), "octopus", 11, anchor="mm")


def _hand_cards(word: int) -> list[int]:
    """Card types of a hand bit set in canonical (suit, value) order, specials last."""
    cards = [k for k in range(NUM_TIKI) if word >> k & 1]
    cards += [KANALOA] * bin(word >> NUM_TIKI & 0b111).count("1")
    cards += [OCTOPUS] * bin(word >> (NUM_TIKI + 3) & 0b11).count("1")
    return cards


# ---- panels -----------------------------------------------------------------------

_PHASE_TEXT = {
    Phase.ANNOUNCE: "announce no tricks?",
    Phase.PLAY: "play a card",
    Phase.REMOVE_OCTOPUS: "remove an ocean card (octopus)",
    Phase.REMOVE_ROUND_END: "remove an ocean card (round end)",
    Phase.DOLPHIN: "take the dolphin move?",
}


def _badge(c: Canvas, x: float, y: float, title: str, suit: int, outline) -> None:
    """A suit badge centred on (x, y): a title over the suit's name, in its colour."""
    c.rect(
        x - 62, y - 22, x + 62, y + 22, fill=SUIT_COLORS[suit], outline=outline, width=3, radius=10
    )
    c.text((x, y - 11), title, 12, anchor="mm")
    c.text((x, y + 8), SUIT_NAMES[suit], 17, anchor="mm")


def _draw_center(c: Canvas, state: State, g: int) -> None:
    P = state.num_players
    phase = Phase(int(state.phase[g]))
    c.ellipse(_CX - 380, _CY - 175, _CX + 380, _CY + 175, fill=_LAGOON)
    trick_no = int(state.trick_number[g])
    # Round and trick in the top-left corner, outside the oval.
    c.text((18, 14), f"Round {int(state.round[g])}", 24)
    c.text(
        (18, 46),
        f"trick {min(trick_no + 1, TRICKS_PER_ROUND)} of {TRICKS_PER_ROUND}",
        16,
        fill=_DIM_TEXT,
    )
    # Trump (R8.2) left of the trick, the suit to follow (R4.2) right of it.
    _badge(c, _CX - 285, _CY - 8, "TRUMP", int(state.trump[g]), _GOLD)
    # Name the boat that sets trump, while it still does: a move (dolphin, removal
    # phases) may come after this trick's trump was fixed (R5.5).
    if phase in (Phase.PLAY, Phase.ANNOUNCE):
        prog = state.progress[g]
        caption = (
            f"field of leading boat {int(np.argmax(prog))}"
            if prog.max() > prog.min()
            else "all boats on the start field"
        )
        c.text((_CX - 285, _CY + 26), caption, 11, fill=_DIM_TEXT, anchor="mm")
    if phase == Phase.GAME_OVER:
        _draw_game_over(c, state, g)
        return
    in_trick = int(state.num_played[g]) - trick_no * state.num_players
    if state.lead_suit[g] >= 0 and in_trick > 0 and trick_no < TRICKS_PER_ROUND:
        _badge(c, _CX + 285, _CY - 8, "FOLLOW", int(state.lead_suit[g]), (255, 255, 255))
    # The current trick, in play order from its leader.
    leader = int(state.leader[g])
    start = trick_no * P
    n = int(state.num_played[g]) - start
    cards = [int(x) for x in state.history[g, start : start + n]] if trick_no < 8 else []
    slot_w = _CARD_W + 16
    x0 = _CX - (P * slot_w - 16) / 2
    y0 = _CY - 48
    for j in range(P):
        p = (leader + j) % P
        x = x0 + j * slot_w
        c.text((x + _CARD_W / 2, y0 - 10), f"P{p}" + (" leads" if j == 0 else ""), 13,
               fill=PLAYER_COLORS[p] if p != 4 else _TEXT, anchor="mm")  # fmt: skip
        if j < len(cards):
            _card(c, x, y0, cards[j])
        else:
            c.rect(x, y0, x + _CARD_W, y0 + _CARD_H, outline=(60, 100, 130), width=2, radius=8)
    # Who acts and what.
    p = int(state.current_player[g])
    c.text((_CX, _CY + 70), f"Player {p} to act: {_PHASE_TEXT[phase]}", 19, anchor="mm",
           fill=PLAYER_COLORS[p] if p != 4 else _TEXT)  # fmt: skip
    won = ", ".join(f"P{q}: {int(state.tricks_won[g, q])}" for q in range(P))
    c.text((_CX, _CY + 98), f"tricks this round   {won}", 14, fill=_DIM_TEXT, anchor="mm")
    if n == 0 and trick_no > 0:
        # The trick just taken, in play order; its winner leads now (R3.3).
        last = [int(x) for x in state.history[g, start - P : start]]
        label = f"last trick, won by P{leader}:"
        lw = c.text_width(label, 13)
        x = _CX - (lw + 8 + P * 34) / 2
        c.text((x, _CY + 136), label, 13, fill=_DIM_TEXT, anchor="lm")
        for j, card in enumerate(last):
            _card(c, x + lw + 8 + j * 34, _CY + 117, card, 30, 40)


def _draw_game_over(c: Canvas, state: State, g: int) -> None:
    if state.terminated[g]:
        w = int(state.winner[g])
        msg = f"Player {w} laps the last boat and wins!"
        _boat(c, _CX, _CY - 10, w, 64)
    else:
        msg = f"Game stopped after {int(state.round[g])} rounds (no winner, R9.4)"
    c.rect(_CX - 270, _CY + 40, _CX + 270, _CY + 90, fill=_GOLD, radius=12)
    c.text((_CX, _CY + 65), msg, 22, fill=(20, 20, 20), anchor="mm")


def _draw_scoreboard(c: Canvas, state: State, g: int, x0: float, y0: float) -> None:
    P = state.num_players
    prog = state.progress[g].astype(np.int64)
    last = int(prog.min())
    lap = 2 * int(state.present[g].sum())
    c.rect(x0, y0, WIDTH - 14, HEIGHT - 14, fill=_PANEL, radius=12)
    c.text((x0 + 16, y0 + 12), f"Boats   (lap = {lap} fields; more than a lap ahead wins)", 14)
    cols = (x0 + 16, x0 + 80, x0 + 190, x0 + 270)
    for x, h in zip(cols[1:], ("ahead of last", "tricks", "announced"), strict=True):
        c.text((x, y0 + 38), h, 13, fill=_DIM_TEXT)
    lead = int(np.argmax(prog))
    for p in range(P):
        y = y0 + 66 + p * 27
        _boat(c, cols[0] + 14, y + 6, p, 26)
        ahead = int(prog[p]) - last
        bar = min(1.0, ahead / max(lap, 1))
        c.rect(cols[1], y, cols[1] + 90, y + 14, outline=(70, 110, 140), width=1, radius=3)
        if bar > 0:
            c.rect(cols[1], y, cols[1] + 90 * bar, y + 14, fill=PLAYER_COLORS[p], radius=3)
        c.text((cols[1] + 96, y + 7), str(ahead), 13, anchor="lm")
        c.text((cols[2] + 20, y + 7), str(int(state.tricks_won[g, p])), 14, anchor="mm")
        ann = int(state.announced[g, p])
        c.text((cols[3] + 30, y + 7), {-1: "-", 0: "no", 1: "YES"}[ann], 13, anchor="mm")
        if p == lead and ahead > 0:
            c.text((cols[3] + 62, y + 7), "lead", 12, fill=_GOLD, anchor="lm")


def _hand_xs(n: int, width: float) -> list[float]:
    """The left edges of `n` hand cards in a panel `width` px wide (overlapping when many)."""
    step = min(_CARD_W + 12, (width - 60 - _CARD_W) / max(n - 1, 1))
    return [30 + j * step for j in range(n)]


def _draw_hand(c: Canvas, state: State, g: int, seat: int | None, y0: float, width: float) -> None:
    c.rect(14, y0, width, HEIGHT - 14, fill=_PANEL, radius=12)
    if seat is None:
        P = state.num_players
        order = np.argsort(-state.progress[g].astype(np.int64), kind="stable")
        c.text((30, y0 + 12), "Final positions (fields ahead of the last boat)", 16)
        last = int(state.progress[g].min())
        for r, p in enumerate(order[:P]):
            y = y0 + 46 + r * 28
            _boat(c, 48, y + 6, int(p), 26)
            c.text(
                (70, y + 7),
                f"{r + 1}.  player {int(p)}   {int(state.progress[g, p]) - last}",
                15,
                anchor="lm",
            )
        return
    to_act = int(state.current_player[g])
    own_turn = seat == to_act
    title = f"Hand of player {seat}" + ("  (to act)" if own_turn else "")
    c.text((30, y0 + 12), title, 16, fill=PLAYER_COLORS[seat] if seat != 4 else _TEXT)
    cards = _hand_cards(int(state.hands[g, seat]))
    if not cards:
        c.text((30, y0 + 60), "no cards left this round", 14, fill=_DIM_TEXT)
    legal = state.legal[g]
    play_phase = own_turn and state.phase[g] == Phase.PLAY
    for card, x in zip(cards, _hand_xs(len(cards), width), strict=True):
        ok = not play_phase or bool(legal[card])
        _card(c, x, y0 + 44 if ok or not play_phase else y0 + 56, card)
        if play_phase and not ok:
            # Cards that may not be played now (R4.3) are greyed out.
            c.rect(
                x,
                y0 + 56,
                x + _CARD_W,
                y0 + 56 + _CARD_H,
                fill=None,
                outline=(0, 0, 0),
                width=1,
                radius=8,
            )
    if play_phase:
        c.text((30, HEIGHT - 30), "raised cards may be played now", 12, fill=_DIM_TEXT)
    elif own_turn and state.phase[g] in (Phase.ANNOUNCE, Phase.DOLPHIN):
        names = (
            ("announce", "do not announce")
            if state.phase[g] == Phase.ANNOUNCE
            else ("take", "decline")
        )
        c.text((30, HEIGHT - 30), f"choices: {names[0]} / {names[1]}", 13, fill=_GOLD)


def _grey_illegal(
    img: Image.Image, state: State, g: int, seat: int, y0: float, width: float
) -> None:
    """Darken the hand's cards that may not be played now (R4.3), after drawing."""
    if seat != int(state.current_player[g]) or state.phase[g] != Phase.PLAY:
        return
    cards = _hand_cards(int(state.hands[g, seat]))
    arr = np.asarray(img).copy()
    for card, hx in zip(cards, _hand_xs(len(cards), width), strict=True):
        if state.legal[g, card]:
            continue
        x = int(hx)
        y = int(y0 + 56)
        region = arr[y : y + _CARD_H + 1, x : x + _CARD_W + 1]
        region[...] = (region * 0.45 + np.array(_PANEL) * 0.55).astype(np.uint8)
    img.paste(Image.fromarray(arr))


def _game_and_seat(state: State, i: int, seat: int | None) -> tuple[int, int | None]:
    """Game `i`'s index and the seat whose hand is shown (default the player to act;
    None once the game is over), checked."""
    if not isinstance(state, State):
        raise TypeError(
            f"state must be a kanaloa_env.core.kanaloa.State, got {type(state).__name__}"
        )
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"game index i must be an int, got {type(i).__name__}")
    if not 0 <= i < state.batch_size:
        raise ValueError(f"game index i must be in 0..{state.batch_size - 1}, got {i}")
    P = state.num_players
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < P
    ):
        raise ValueError(f"seat must be None or an int in 0..{P - 1}, got {seat!r}")
    g = int(i)
    to_act = int(state.current_player[g])
    return g, (int(seat) if seat is not None else (to_act if to_act >= 0 else None))


def _removable(state: State, g: int) -> list[tuple[int, int]]:
    """(route slot, action) of each ocean card the player to act may remove now."""
    if state.phase[g] not in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END):
        return []
    from .describe import ocean_card_ahead  # the same action -> card map as the text views

    out = []
    for a in np.flatnonzero(state.legal[g, REMOVE_BASE:ANNOUNCE]) + REMOVE_BASE:
        slot, _ = ocean_card_ahead(state, int(a), g)
        out.append((slot, int(a)))
    return out


def action_regions(state: State, i: int = 0, seat: int | None = None) -> list[Region]:
    """The parts of `render_rgb(state, i, seat)` that play a legal action of the player
    to act (`kanaloa_env.games.protocol.Region`): the hand's playable cards (the card
    actions 0..49; of overlapping cards the part that shows) and the ocean cards that
    may be removed (50..61). None when the shown hand is not the player to act's; the
    announcement and the dolphin choice have no place on the picture."""
    g, shown = _game_and_seat(state, i, seat)
    if shown is None or shown != int(state.current_player[g]):
        return []
    regions = []
    if state.phase[g] == Phase.PLAY:
        cards = _hand_cards(int(state.hands[g, shown]))
        xs = _hand_xs(len(cards), _HAND_W)
        y = _PANEL_Y + 44
        for j, (card, x) in enumerate(zip(cards, xs, strict=True)):
            if not state.legal[g, card]:
                continue
            right = x + _CARD_W if j == len(cards) - 1 else min(xs[j + 1], x + _CARD_W)
            regions.append(Region(card, "rect", ((x, y), (right, y + _CARD_H))))
    N = state.config.route_cards
    geo = _slot_geometry(N)
    for slot, a in _removable(state, g):
        u0, _, u1 = geo[slot]
        poly = _segment(u0, u1, -_RING / 2, _RING / 2)
        regions.append(Region(a, "polygon", tuple(poly)))
    return regions


def render_image(
    state: State, i: int = 0, seat: int | None = None, supersample: int = 2
) -> Image.Image:
    """The table of game `i` as a PIL RGB image of `WIDTH` x `HEIGHT` pixels.

    Args:
        state: a batch of games; not modified.
        i: which game of the batch.
        seat: whose hand to show; default the player to act (none once the game is
            over: then the final positions are shown).
        supersample: draw this many times larger and shrink (1 = faster, jagged edges).
    """
    if supersample not in (1, 2, 3, 4):
        raise ValueError(f"supersample must be 1..4, got {supersample!r}")
    g, shown = _game_and_seat(state, i, seat)
    removable = {slot for slot, _ in _removable(state, g)}  # drawn gold
    c = _canvas(supersample)
    _draw_center(c, state, g)
    _draw_route(c, state, g, removable)
    _draw_boats(c, state, g)
    hand_w, panel_y = _HAND_W, _PANEL_Y
    _draw_hand(c, state, g, shown, panel_y, hand_w)
    _draw_scoreboard(c, state, g, hand_w + 12, panel_y)
    img = c.result()
    if shown is not None:
        _grey_illegal(img, state, g, shown, panel_y, hand_w)
    return img


def render_rgb(state: State, i: int = 0, seat: int | None = None) -> np.ndarray:
    """The table of game `i` as an (H, W, 3) uint8 array (`HEIGHT` x `WIDTH`).

    What `render_mode="rgb_array"` returns. `state` is the batch, `seat` the player whose
    hand is shown (see `render_image`).
    """
    return np.asarray(render_image(state, i, seat), dtype=np.uint8)
