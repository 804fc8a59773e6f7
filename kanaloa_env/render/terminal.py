"""Moved to `kanaloa_env.drawing.terminal` (below the games, which draw with it); this
name stays for old imports."""

from ..drawing.terminal import (
    BOLD,
    COLOR_CHOICES,
    RESET,
    WIDTH,
    add_color_option,
    color_from_option,
    paint,
    plural,
    strip_ansi,
    terminal_wants_color,
    visible_len,
    wrap,
)

__all__ = [
    "BOLD",
    "COLOR_CHOICES",
    "RESET",
    "WIDTH",
    "add_color_option",
    "color_from_option",
    "paint",
    "plural",
    "strip_ansi",
    "terminal_wants_color",
    "visible_len",
    "wrap",
]
