"""`python -m kanaloa_env.web`: entry point only; the command line is `kanaloa_env.web.server`."""

import sys

from .server import main

if __name__ == "__main__":
    sys.exit(main())
