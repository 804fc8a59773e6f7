"""Play and watch in the browser: `python -m kanaloa_env.web` (`pip install -e ".[web]"`).

```
python -m kanaloa_env.web                                  # http://127.0.0.1:8000/
python -m kanaloa_env.web --records runs --policy runs/distil/policy_4p.npz --port 8001
```

A local page for every registered game: **play** at a table of bots (the arena's bot
names and the policy files given with `--policy`), with the game's picture, its legal
moves clickable on it (cards, bridges, ocean cards) and as buttons, the bots' moves
one by one in a move log, the final ranking, and the record to download (it replays
with `python -m kanaloa_env.replay`); **watch** a record file (uploaded, or from a
folder given with `--records`) step by step (buttons, arrow keys, a slider) from any
seat's side or with all hands open, or a live game among bots at a chosen speed.

Safe by default: the server listens on 127.0.0.1 only (`--host` names another
address, and the command says what that exposes); records from the page are
untrusted input, checked as the replay command checks them, and a bad one gives a
message in the page; the page can read only `*.jsonl` files inside the `--records`
folders and can seat only named bots and the `--policy` files, which are weights
only (`.npz`): no pickled model is ever loaded. What one request, one browser tab and
all of them may take is bounded, each bound a flag (`kanaloa_env.web.limits`,
docs/web.md).

`kanaloa_env.web.session` holds the games and views (no web framework), and
`kanaloa_env.web.app` the routes (Starlette); the page is plain HTML, SVG and
JavaScript in `static/`, served by the package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "main"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The ASGI app: `kanaloa_env.web.app.create_app(*args, **kwargs)`; needs the `web`
    extra."""
    from .app import create_app as make

    return make(*args, **kwargs)


def main(argv: Any = None) -> int:
    """The command line with `argv` as its arguments (`kanaloa_env.web.server.main`)."""
    from .server import main as run

    return run(argv)
