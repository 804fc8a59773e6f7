"""The page on this machine for scripts and tests: the real server (uvicorn) on a free
loopback port in a thread, and headless Chromium started the way this project starts it.

```python
from kanaloa_env.web import create_app
from kanaloa_env.web.local import chromium_launch_options, serve_in_thread

with serve_in_thread(create_app()) as base:          # "http://127.0.0.1:PORT"
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium_launch_options())
        browser.new_page().goto(base + "/")
```
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CHROMIUM_ARGS", "chromium_launch_options", "chromium_path", "serve_in_thread"]

# Root in a container needs --no-sandbox; the rest keeps Chromium off the network (a
# closed machine refuses its background connections) and quiet.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str:
    """The system's Chromium (Debian's package: /usr/bin/chromium)."""
    return shutil.which("chromium") or "/usr/bin/chromium"


def chromium_launch_options() -> dict[str, Any]:
    """Keyword arguments of Playwright's `chromium.launch` for the system's Chromium,
    headless (never a browser of Playwright's own download)."""
    return {"executable_path": chromium_path(), "args": list(CHROMIUM_ARGS), "headless": True}


@contextmanager
def serve_in_thread(app: Any, timeout: float = 60.0, limits: Any = None) -> Iterator[str]:
    """Serve `app` with uvicorn on a free loopback port until the block ends, configured
    as `python -m kanaloa_env.web` configures it (`timeouts.uvicorn_config`; `limits`:
    default the app's own, else `Limits()`); yields the base address,
    "http://127.0.0.1:PORT".

    Raises:
        RuntimeError: the server did not start within `timeout` seconds.
    """
    import uvicorn

    from .timeouts import uvicorn_config

    if limits is None:
        state = getattr(app, "state", None)
        limits = getattr(state, "limits", None)
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, limits))
    # uvicorn installs signal handlers only in the main thread; here it runs without.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            sock.close()
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
