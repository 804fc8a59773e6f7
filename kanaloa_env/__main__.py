"""`python -m kanaloa_env`: the package's commands, one line each.

Prints the list and exits 0 (`--help` and `-h` the same); any other argument is an
error (exit 2) that names the commands. Only the standard library is imported here:
the list must not wait for torch, the engines or matplotlib.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

#: Every `python -m kanaloa_env.<name>` entry point, with what it does.
COMMANDS: dict[str, str] = {
    "arena": "a seat-balanced tournament among bots, with win rates and ratings",
    "play": "play a game in the terminal against bots",
    "replay": "replay a game record step by step, or draw it as a GIF or PNGs",
    "web": "play and watch in the browser: a local web page (the 'web' extra)",
}

_PROG = "python -m kanaloa_env"


def usage() -> str:
    """The text `python -m kanaloa_env` prints."""
    width = max(len(f"{_PROG}.{name}") for name in COMMANDS)
    lines = [
        f"usage: {_PROG}.<command> [options]   (each command's --help lists its options)",
        "",
        "kanaloa_env: reinforcement-learning environments for Kanaloa and Kahuna.",
        "",
        "commands:",
    ]
    lines += [f"  {f'{_PROG}.{name}':<{width}}  {what}" for name, what in COMMANDS.items()]
    lines += [
        "",
        "The training scripts are not package commands: they are in the repository's",
        "examples/ folder (python examples/train_maskable_ppo.py --help).",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the commands; 0, or 2 for an argument other than --help / -h."""
    args = list(sys.argv[1:] if argv is None else argv)
    if all(a in ("-h", "--help") for a in args):
        print(usage())
        return 0
    bad = next(a for a in args if a not in ("-h", "--help"))
    if bad in COMMANDS:
        hint = f"run it as {_PROG}.{bad}"
    else:
        hint = f"run a command as {_PROG}.<command>, one of: {', '.join(COMMANDS)}"
    print(usage(), file=sys.stderr)
    print(f"{_PROG}: error: unknown argument {bad!r}; {hint}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
