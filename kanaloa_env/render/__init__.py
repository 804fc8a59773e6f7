"""Views of one game: `render_text` (text table, ANSI colours) and `render_rgb` (image).

`render_rgb` lives in `kanaloa_env.render.image` and is imported on first use, so
importing the text view does not load Pillow. `render_frame` is what the
environments' `render()` returns for each render mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .text import render_text, terminal_wants_color

if TYPE_CHECKING:
    from ..core.kanaloa.state import State

__all__ = ["RENDER_MODES", "SCALE_RANGE", "render_frame", "render_rgb", "render_text"]

# The render modes of the AEC env and the Gymnasium single-agent env.
RENDER_MODES = ("human", "ansi", "rgb_array")
# The size factors pictures may be scaled by (`image.save_gif`, the replay CLI's
# --scale); here, so that checking an option does not load Pillow.
SCALE_RANGE = (0.1, 2.0)


def render_frame(state: State, game: int, mode: str) -> str | np.ndarray | None:
    """Game `game` of `state` drawn for an env's `render_mode`.

    "ansi" returns the text table with ANSI colours; "human" prints it (plain when
    stdout is not a terminal or NO_COLOR is set) and returns None; "rgb_array"
    returns an (H, W, 3) uint8 image. Each shows the hand of the player to act.
    """
    if mode == "ansi":
        return render_text(state, game, color=True)
    if mode == "human":
        print(render_text(state, game, color=terminal_wants_color()))
        return None
    if mode == "rgb_array":
        from .image import render_rgb

        return render_rgb(state, game)
    raise ValueError(f"render mode must be one of {RENDER_MODES}, got {mode!r}")


def __getattr__(name: str) -> Any:
    if name == "render_rgb":
        from .image import render_rgb

        return render_rgb
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
