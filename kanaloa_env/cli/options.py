"""What the command-line tools (arena, play, replay) share: argument types, the game choice
and each game's config flags."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from ..games import DEFAULT_GAME, GAMES, get_game
from ..games.protocol import Game


def bounded_int(text: str, low: int, high: int | None, allowed: str) -> int:
    """An argparse `type`'s check: `text` as an int in `low..high` (no upper bound when
    `high` is None), else an error saying it must be `allowed` and naming the value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse `type`: `text` as an int >= 1, else an error naming the value."""
    return bounded_int(text, 1, None, "an int >= 1")


def seed_int(text: str) -> int:
    """An argparse `type`: `text` as a seed, an int in 0..2**64-1."""
    return bounded_int(text, 0, 2**64 - 1, "an int in 0..2**64-1")


def add_game_option(parser: argparse.ArgumentParser) -> None:
    """Add the `--game` option to `parser` (every tool takes it)."""
    parser.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=DEFAULT_GAME,
        help=f"which game (default {DEFAULT_GAME})",
    )


def own_bots_text() -> str:
    """Each registered game's own bots for a `--bots` help text, e.g. "Kanaloa: 'heuristic',
    'search', 'net', 'guided'; Kahuna: ..." (read from the bot registry, so a game's "net"
    and "guided" appear exactly when its policy files ship)."""
    from ..bots import bot_names

    parts = []
    for name in GAMES:
        own = [repr(b) for b in bot_names(name) if b != "random"]
        if own:
            parts.append(f"{get_game(name).title}: {', '.join(own)}")
    return "; ".join(parts)


def game_from_argv(argv: Sequence[str] | None) -> Game:
    """The game `--game` names in `argv` (before the full parser, which adds that game's
    own config flags); the default game when absent or not valid (the full parser then
    reports a bad value)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default=DEFAULT_GAME)
    known, _ = pre.parse_known_args(argv)
    return get_game(known.game if known.game in GAMES else DEFAULT_GAME)


def add_config_options(parser: argparse.ArgumentParser, game: Game) -> None:
    """Add to `parser` the config flags of `game` and `--config JSON` for any other config
    field."""
    group = parser.add_argument_group(f"{game.title} rules")
    game.add_cli_options(group)  # type: ignore[arg-type]
    group.add_argument(
        "--config",
        default=None,
        metavar="JSON",
        help=f"further {game.title} Config fields as a JSON object; fields: "
        + ", ".join(f for f in game.config_fields if f != "num_players"),
    )


def config_overrides(args: argparse.Namespace, game: Game) -> dict[str, Any]:
    """The config overrides of `game` that the parsed `args` ask for through its flags and
    `--config` (ValueError if malformed)."""
    overrides: dict[str, Any] = {}
    if args.config:
        try:
            extra = json.loads(args.config)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--config is not valid JSON: {exc}") from None
        if not isinstance(extra, dict):
            raise ValueError("--config must be a JSON object of Config fields")
        overrides.update(extra)
    overrides.update(game.cli_overrides(args))
    return overrides
