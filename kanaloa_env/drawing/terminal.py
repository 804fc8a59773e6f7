"""What every game's text view and the command-line tools share: colours, line wrapping and
counted nouns ("1 game", "2 games")."""

from __future__ import annotations

import argparse
import os
import re
import sys

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

WIDTH = 80  # lines wrap to this many visible characters
RESET = "\x1b[0m"
BOLD = "\x1b[1m"
COLOR_CHOICES = ("auto", "always", "never")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def terminal_wants_color() -> bool:
    """ANSI colours by default only on a terminal, and never when NO_COLOR is set."""
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def add_color_option(ap: argparse.ArgumentParser) -> None:
    """Add to `ap` the `--color auto|always|never` option of the command-line tools."""
    ap.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="ANSI colours: auto = only when the output is a terminal and NO_COLOR is unset",
    )


def color_from_option(choice: str) -> bool:
    """Whether to colour, for `choice`, a `--color` value (see `add_color_option`)."""
    return terminal_wants_color() if choice == "auto" else choice == "always"


def paint(text: str, code: str, color: bool) -> str:
    """`text` in the ANSI style `code` when `color`, else plain."""
    return f"{code}{text}{RESET}" if color else text


def strip_ansi(text: str) -> str:
    """`text` without ANSI colour codes."""
    return _ANSI.sub("", text)


def visible_len(text: str) -> int:
    """The length of `text` on screen (ANSI codes take no room)."""
    return len(strip_ansi(text))


def wrap(prefix: str, parts: list[str], sep: str, width: int = WIDTH) -> list[str]:
    """Join `parts`, separated by `sep`, after `prefix` into lines of at most `width`
    visible characters."""
    if not parts:
        return [prefix + "(none)"]
    lines, line = [], prefix + parts[0]
    for part in parts[1:]:
        if visible_len(line + sep + part) > width:
            lines.append(line.rstrip())
            line = " " * visible_len(prefix) + part
        else:
            line += sep + part
    return lines + [line]


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, the noun in the plural unless `count` is 1: `plural(1, "game")` is
    "1 game", `plural(3, "game")` "3 games"; `many` is an irregular plural:
    `plural(2, "index", "indices")` "2 indices"."""
    return f"{count} {word if count == 1 else many or word + 's'}"
