"""Moved to `kanaloa_env.drawing.canvas` (below the games, which draw with it); this
name stays for old imports."""

from ..drawing.canvas import Canvas, Color, font

__all__ = ["Canvas", "Color", "font"]
