"""Animated GIFs of a game: one frame per position, any game."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from ..core.files import atomic_write_path
from ..games import game_of_state
from . import SCALE_RANGE

__all__ = ["SCALE_RANGE", "check_scale", "save_gif"]


def check_scale(scale: float) -> float:
    """`scale` if it lies in SCALE_RANGE, else a ValueError saying the range."""
    lo, hi = SCALE_RANGE
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not lo <= scale <= hi:
        raise ValueError(f"scale must be a number in {lo}..{hi}, got {scale!r}")
    return float(scale)


def save_gif(
    states: Sequence[Any],
    path: str | os.PathLike[str],
    i: int = 0,
    seat: int | None = None,
    *,
    frame_ms: int = 700,
    last_ms: int = 4000,
    scale: float = 1.0,
) -> int:
    """Write an animated GIF with one frame per state (e.g. every position of a game).

    Args:
        states: the positions, in order (states of one game of the package).
        path: the .gif file to write (whole or not at all).
        i, seat: which game of each batch, whose hand to show (default the player
            to act), as for the game's `render_rgb`.
        frame_ms: how long each frame shows; `last_ms` for the last one.
        scale: resize the frames by this factor (0.5 gives a file about a third as big).

    Returns:
        The number of frames written.
    """
    if not states:
        raise ValueError("save_gif needs at least one state")
    check_scale(scale)
    g = game_of_state(states[0])
    frames = [Image.fromarray(g.render_rgb(s, i, seat)) for s in states]
    w, h = frames[0].size
    size = (round(w * scale), round(h * scale))
    if scale != 1.0:
        frames = [f.resize(size, Image.Resampling.LANCZOS) for f in frames]
    # One palette for the whole animation, from a few frames spread over the game
    # (adaptive per-frame palettes cost more and flicker).
    picks = [frames[k] for k in np.linspace(0, len(frames) - 1, min(4, len(frames))).astype(int)]
    sheet = Image.new("RGB", (size[0], size[1] * len(picks)))
    for k, f in enumerate(picks):
        sheet.paste(f, (0, k * size[1]))
    palette = sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    quant = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    durations = [frame_ms] * (len(quant) - 1) + [last_ms]
    with atomic_write_path(path) as tmp:
        quant[0].save(
            tmp,
            format="GIF",
            save_all=True,
            append_images=quant[1:],
            duration=durations,
            loop=0,
            optimize=False,
        )
    return len(quant)
