"""Reading OpenSpiel's serialized form of our games' states, safely.

`pyspiel.serialize_game_and_state(game, state)` writes a Python game's state as its
history, its move number and its attributes pickled (`__dict__=`), and
`pyspiel.deserialize_game_and_state` unpickles that line: unpickling runs whatever code
the text asks for, so OpenSpiel's reader is for text you wrote yourself.
`deserialize_game_and_state` here reads the same text as untrusted input: it checks the
game string names one of our registered games, reads the history as numbers, replays it
through `apply_action` (every action and chance outcome checked) and ignores the pickled
attributes, never unpickling them. Our games' histories replay a game exactly (every
random event is a chance node), so nothing else is needed.
"""

from __future__ import annotations

import re
from typing import Any

import pyspiel

from .game import PREFIX, OpenSpielGame, OpenSpielState

__all__ = ["MAX_TEXT", "deserialize_game_and_state"]

MAX_TEXT = 1 << 22  # characters: a longest game's history is far shorter
_GAME = re.compile(r"python_[a-z][a-z0-9_]*(\([A-Za-z0-9_=,.*+/ -]*\))?")
_MOVE = re.compile(r"(-1|\d{1,3}):(\d{1,6})")


def deserialize_game_and_state(text: str) -> tuple[OpenSpielGame, OpenSpielState]:
    """The game and state of `pyspiel.serialize_game_and_state`'s text for one of our
    games, read without evaluating anything in it.

    Raises:
        TypeError: `text` is not a string.
        ValueError: text that is not such a serialization (naming the part at fault),
            a game that is not one of ours, or a history that our game rejects (an
            illegal action or impossible chance outcome, named with the legal ones).
    """
    if not isinstance(text, str):
        raise TypeError(f"a serialized game and state is a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"a serialized game and state is at most {MAX_TEXT} characters")
    lines = [line.strip() for line in text.splitlines()]
    try:
        game_line = lines[lines.index("[Game]") + 1]
        state_lines = lines[lines.index("[State]") + 1 :]
    except (ValueError, IndexError):
        raise ValueError(
            "not a serialized game and state: no [Game] and [State] sections"
        ) from None
    if not _GAME.fullmatch(game_line) or not game_line.startswith(PREFIX):
        raise ValueError(f"[Game] {game_line[:80]!r} is not one of our games' strings")
    short = game_line.split("(")[0]
    if short not in pyspiel.registered_names():
        raise ValueError(f"[Game] {short!r} is not a registered game")
    try:
        game = pyspiel.load_game(game_line)
    except pyspiel.SpielError as exc:
        raise ValueError(f"[Game] {game_line[:80]!r}: {exc}") from None
    if not isinstance(game, OpenSpielGame):
        raise ValueError(f"[Game] {short!r} is not one of our games")
    fields: dict[str, str] = {}
    for line in state_lines:
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"[State] line {line[:40]!r} is not key=value")
        fields[key] = value  # __dict__ is kept as text and never read
    if "history" not in fields:
        raise ValueError("[State] has no history= line")
    moves = [m for m in fields["history"].split(",") if m]
    state: Any = game.new_initial_state()
    for n, move in enumerate(moves):
        match = _MOVE.fullmatch(move)
        if match is None:
            raise ValueError(f"history entry {n} {move[:20]!r} is not player:action")
        player, action = int(match.group(1)), int(match.group(2))
        if state.is_terminal():
            raise ValueError(f"history entry {n}: the game is over before it")
        if player != state.current_player():
            raise ValueError(
                f"history entry {n}: player {player} moves, but player "
                f"{state.current_player()} is to act"
            )
        state.apply_action(action)
    if "move_number" in fields and fields["move_number"] != str(len(moves)):
        raise ValueError(
            f"[State] move_number={fields['move_number'][:20]!r} disagrees with the "
            f"history's {len(moves)} moves"
        )
    return game, state
