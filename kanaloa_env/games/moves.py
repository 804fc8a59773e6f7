"""What the games' terminal moves share: reading a typed move number.

Each game's `moves.py` lists the numbered legal moves and reads what a human types
(`Game.legal_moves`, `Game.parse_move`); a number picks a move of the list the same
way in every game.
"""

from __future__ import annotations

import re

__all__ = ["NUMBER", "move_number"]

# ASCII digits only: str.isdigit() also takes "²" (which int() refuses) and "１" or "٣"
# (which int() reads as 1 and 3), none of which a move number should be.
NUMBER = re.compile(r"[0-9]+")


def move_number(word: str, n: int, hint: str) -> int | None:
    """The move a typed `word` (stripped, lower case) numbers among `n` listed moves,
    as an index 0..n-1; None when `word` is not a number (the game reads it further).

    Raises:
        ValueError: nothing typed (the message offers a number, `hint`'s other way to
            type a move, help and quitting), or a number outside 1..n.
    """
    choose = f"type a move number 1..{n}"
    if not word:
        raise ValueError(f"nothing typed: {choose}, {hint}, h for help or q to quit")
    if not NUMBER.fullmatch(word):
        return None
    k = int(word)
    if not 1 <= k <= n:
        raise ValueError(f"there is no move {k}: {choose}")
    return k - 1
