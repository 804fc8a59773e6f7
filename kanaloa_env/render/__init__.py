"""Views of one game of any game of the package: text (ANSI colours) and pictures.

`render_text(state, game)` and `render_rgb(state, game)` draw game `game` of a
batch through its game's own view (`kanaloa_env.games.<game>`); `render_frame` is
what the environments' `render()` returns for each render mode; `save_gif`
(`kanaloa_env.render.gif`) animates a list of positions. Pillow is imported only
for pictures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .terminal import terminal_wants_color

__all__ = ["RENDER_MODES", "SCALE_RANGE", "render_frame", "render_rgb", "render_text"]

# The render modes of the AEC env and the Gymnasium single-agent env.
RENDER_MODES = ("human", "ansi", "rgb_array")
# The size factors pictures may be scaled by (`gif.save_gif`, the replay CLI's --scale).
SCALE_RANGE = (0.1, 2.0)


def render_text(
    state: Any, game: int = 0, color: bool = True, seat: int | None = None, legal: bool = True
) -> str:
    """Game `game` of `state` (any game's batch) as a text table; see the game's
    `render_text` (`kanaloa_env.games.protocol.Game.render_text`)."""
    from ..games import game_of_state

    return game_of_state(state).render_text(state, game, color=color, seat=seat, legal=legal)


def render_rgb(state: Any, game: int = 0, seat: int | None = None) -> np.ndarray:
    """Game `game` of `state` (any game's batch) as an (H, W, 3) uint8 picture."""
    from ..games import game_of_state

    return game_of_state(state).render_rgb(state, game, seat)


def render_frame(state: Any, game: int, mode: str) -> str | np.ndarray | None:
    """Game `game` of `state` drawn for an env's `render_mode`.

    "ansi" returns the text table with ANSI colour codes (also when printed to a
    pipe or a file: PettingZoo's ansi mode is a string for terminals); "human"
    prints it (plain when stdout is not a terminal or NO_COLOR is set) and returns
    None; "rgb_array" returns an (H, W, 3) uint8 image. Each shows the hand of the
    player to act.
    """
    if mode == "ansi":
        return render_text(state, game, color=True)
    if mode == "human":
        print(render_text(state, game, color=terminal_wants_color()))
        return None
    if mode == "rgb_array":
        return render_rgb(state, game)
    raise ValueError(f"render mode must be one of {RENDER_MODES}, got {mode!r}")
