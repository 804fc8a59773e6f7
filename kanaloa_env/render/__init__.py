"""Views of one game: `render_text` (text table, ANSI colours) and `render_rgb` (image).

`render_rgb` lives in `kanaloa_env.render.image` and is imported on first use, so
the text view works without the image module or its dependencies.
"""

from __future__ import annotations

from typing import Any

from .text import render_text

__all__ = ["render_rgb", "render_text"]


def __getattr__(name: str) -> Any:
    if name == "render_rgb":
        try:
            from .image import render_rgb
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.image":
                raise  # the image module exists; one of its own imports is missing
            raise AttributeError(
                f"{__name__}.render_rgb needs {__name__}.image, which is not installed"
            ) from None
        return render_rgb
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
