"""Argument types shared by the command-line tools (arena, replay)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An argparse `type`: an int >= 1, else an error naming the value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {value}")
    return value
