"""`python -m kanaloa_env.replay FILE`: entry point only; the command line is
`kanaloa_env.cli.replay`, the record format `kanaloa_env.records`."""

from .cli.replay import main

__all__ = ["main"]

if __name__ == "__main__":
    import sys

    sys.exit(main())
