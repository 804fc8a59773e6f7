"""Views of one game of any game of the package: text (ANSI colours) and pictures.

`render_text(state, i)` and `render_rgb(state, i)` draw game `i` of a batch
through its game's own view (`Game.render_text`, `Game.render_rgb`); `render_frame`
is what the environments' `render()` returns for each render mode; `save_gif`
(`kanaloa_env.render.gif`) animates a list of positions. Pillow is imported only
for pictures.

This is the upper part of rendering, above the games (it asks a `Game`); the
primitives the games draw with (colours, wrapping, the canvas) are below them, in
`kanaloa_env.drawing`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..drawing.terminal import terminal_wants_color
from ..games import game_of_state

__all__ = [
    "RENDER_MODES",
    "SCALE_RANGE",
    "render_frame",
    "render_modes",
    "render_rgb",
    "render_text",
]

# The render modes of the AEC env and the Gymnasium single-agent env.
RENDER_MODES = ("human", "ansi", "rgb_array")
# The game view each render mode draws with (a `Game` method).
_MODE_VIEWS = {"human": "render_text", "ansi": "render_text", "rgb_array": "render_rgb"}


def render_modes(game: Any) -> list[str]:
    """The render modes of `RENDER_MODES` that `game`, a `Game`, can draw (its views,
    `Game.provides`)."""
    return [m for m in RENDER_MODES if game.provides(_MODE_VIEWS[m])]


# The size factors pictures may be scaled by (`gif.save_gif`, the replay CLI's --scale).
SCALE_RANGE = (0.1, 2.0)


def render_text(
    state: Any, i: int = 0, color: bool = True, seat: int | None = None, legal: bool = True
) -> str:
    """Game `i` of `state` (any game's batch) as a text table, with ANSI colours if
    `color`, as `seat` sees it, listing the legal moves if `legal`; see the game's
    `render_text` (`kanaloa_env.games.protocol.Game.render_text`)."""
    return game_of_state(state).render_text(state, i, color=color, seat=seat, legal=legal)


def render_rgb(state: Any, i: int = 0, seat: int | None = None) -> np.ndarray:
    """Game `i` of `state` (any game's batch) as an (H, W, 3) uint8 picture, as `seat` sees
    it (None: every hand open)."""
    return game_of_state(state).render_rgb(state, i, seat)


def render_frame(state: Any, i: int, mode: str) -> str | np.ndarray | None:
    """Game `i` of `state` drawn for an env's `render_mode`.

    "ansi" returns the text table with ANSI colour codes (also when printed to a
    pipe or a file: PettingZoo's ansi mode is a string for terminals); "human"
    prints it (plain when stdout is not a terminal or NO_COLOR is set) and returns
    None; "rgb_array" returns an (H, W, 3) uint8 image. Each shows the hand of the
    player to act.
    """
    if mode == "ansi":
        return render_text(state, i, color=True)
    if mode == "human":
        print(render_text(state, i, color=terminal_wants_color()))
        return None
    if mode == "rgb_array":
        return render_rgb(state, i)
    raise ValueError(f"render mode must be one of {RENDER_MODES}, got {mode!r}")
