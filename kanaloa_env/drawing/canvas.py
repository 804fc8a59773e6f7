"""Drawing helpers every game's pictures share: Pillow's built-in font and a supersampled canvas.

Drawn with Pillow and its built-in font, so pictures work on a fresh machine; nothing
is read from disk.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

__all__ = ["Canvas", "font"]

Color = tuple[int, int, int]


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's built-in font at `size` px (a bitmap font on Pillow < 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no sizes for the default font
        return ImageFont.load_default()


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, anchor: str) -> tuple[tuple[int, int], Image.Image]:
    """The text's coverage mask and its offset from the anchor point (cached: most labels
    repeat from frame to frame, and rasterising text is the slowest part of a picture)."""
    f = font(size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return (left, top), mask


class Canvas:
    """An ImageDraw at `scale` times the output size (drawn large, then shrunk: smooth edges).

    Coordinates are in output pixels; text is queued and drawn last at the output size.
    The picture is `width` x `height` output pixels on a `background` colour;
    `text_color` is the default colour of text.
    """

    def __init__(
        self, width: int, height: int, background: Color, scale: int, text_color: Color
    ) -> None:
        self.s = scale
        self.text_color = text_color
        self.img = Image.new("RGB", (width * scale, height * scale), background)
        self.d = ImageDraw.Draw(self.img)
        self.texts: list[tuple] = []

    def pts(self, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """`points` in output pixels as points of the large drawing."""
        return [(x * self.s, y * self.s) for x, y in points]

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        """The box from (`x0`, `y0`) to (`x1`, `y1`) in output pixels, in the large
        drawing's."""
        return (x0 * self.s, y0 * self.s, x1 * self.s, y1 * self.s)

    def polygon(self, points: list[tuple[float, float]], fill=None, outline=None, width=1) -> None:
        """A polygon through `points`, filled with `fill`, its `outline` `width` pixels wide."""
        pts = self.pts(points)
        w = max(1, round(width * self.s))
        if outline is None or w == 1:
            self.d.polygon(pts, fill=fill, outline=outline)
            return
        # Pillow draws a wide polygon outline through a mask of the whole canvas; a
        # closed wide line looks the same and is many times faster.
        if fill is not None:
            self.d.polygon(pts, fill=fill)
        self.d.line(pts + pts[:1], fill=outline, width=w, joint="curve")

    def line(self, points: list[tuple[float, float]], fill, width: float = 1) -> None:
        """A line through `points` in colour `fill`, `width` pixels wide."""
        self.d.line(self.pts(points), fill=fill, width=max(1, round(width * self.s)), joint="curve")

    def rect(self, x0, y0, x1, y1, fill=None, outline=None, width=1, radius=0) -> None:
        """A rectangle from (`x0`, `y0`) to (`x1`, `y1`) with corners rounded by `radius`,
        filled with `fill`, its `outline` `width` pixels wide."""
        self.d.rounded_rectangle(
            self.box(x0, y0, x1, y1),
            radius=radius * self.s,
            fill=fill,
            outline=outline,
            width=max(1, width * self.s),
        )

    def ellipse(self, x0, y0, x1, y1, fill=None, outline=None, width=1) -> None:
        """The ellipse in the box from (`x0`, `y0`) to (`x1`, `y1`), filled with `fill`, its
        `outline` `width` pixels wide."""
        self.d.ellipse(self.box(x0, y0, x1, y1), fill=fill, outline=outline, width=width * self.s)

    def text(self, xy, text: str, size: int, fill=None, anchor: str = "la") -> None:
        """Queue `text` at `xy` in a `size`-pixel font, colour `fill` (default the canvas's
        text colour), placed by PIL's `anchor`."""
        # Text is drawn last, at the output size: the font is anti-aliased already, and
        # rendering it supersampled would cost more than all the shapes.
        self.texts.append((xy, text, size, self.text_color if fill is None else fill, anchor))

    def text_width(self, text: str, size: int) -> float:
        """The width in output pixels of `text` in a `size`-pixel font."""
        return self.d.textlength(text, font=font(size))

    def result(self) -> Image.Image:
        """The picture at the output size, the queued text drawn on it."""
        img = self.img if self.s == 1 else self.img.reduce(self.s)  # box filter
        for (x, y), text, size, fill, anchor in self.texts:
            (left, top), mask = _text_mask(text, size, anchor)
            img.paste(fill, (round(x) + left, round(y) + top), mask)
        return img
