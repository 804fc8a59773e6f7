"""`python -m kanaloa_env.play`: entry point only; the terminal game is `kanaloa_env.cli.play`."""

from .cli.play import HumanQuit, main, play_game

__all__ = ["HumanQuit", "main", "play_game"]

if __name__ == "__main__":
    import sys

    sys.exit(main())
