"""Kuhn poker as a small picture (`Game.render_rgb`): two cards on a green table, the pot
and the betting so far. Pillow is imported here, on first use."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from kanaloa_env.drawing.canvas import font

from . import betting, seen_by
from .engine import CARD_NAMES, State, outcome

__all__ = ["SIZE", "render_rgb"]

SIZE = (240, 320)  # (H, W)
_TABLE = (22, 102, 52)
_CARD = (250, 248, 240)
_BACK = (150, 40, 40)
_INK = (20, 20, 20)
_LIGHT = (235, 235, 225)


def render_rgb(state: State, i: int = 0, seat: int | None = None) -> np.ndarray:
    """Game `i` as an (240, 320, 3) uint8 picture from `seat`'s side (default the
    player to act): a hidden card shows its back."""
    to_act, me, view = seen_by(state, i, seat)
    stakes = outcome(view).stakes[0]
    H, W = SIZE
    img = Image.new("RGB", (W, H), _TABLE)
    draw = ImageDraw.Draw(img)
    for p in range(2):
        x0, y0 = 40 + p * 150, 60
        c = int(view.cards[0, p])
        outline = (240, 200, 40) if p == to_act else _INK
        draw.rounded_rectangle(
            (x0, y0, x0 + 90, y0 + 120), 8, _CARD if c >= 0 else _BACK, outline, 3
        )
        if c >= 0:
            draw.text((x0 + 45, y0 + 60), CARD_NAMES[c], _INK, font(48), anchor="mm")
        label = f"player_{p}" + (" (you)" if p == me else "")
        draw.text((x0 + 45, y0 - 20), label, _LIGHT, font(14), anchor="mm")
        draw.text((x0 + 45, y0 + 138), f"stake {int(stakes[p])}", _LIGHT, font(14), anchor="mm")
    draw.text((W // 2, 18), f"Kuhn poker | pot {int(stakes.sum())}", _LIGHT, font(16), anchor="mm")
    draw.text((W // 2, H - 18), betting(view, 0), _LIGHT, font(14), anchor="mm")
    return np.asarray(img, dtype=np.uint8).copy()
