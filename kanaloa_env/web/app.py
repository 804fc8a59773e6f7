"""The web server's routes: the page, its JSON API and the pictures (Starlette).

`create_app(catalogue)` builds the ASGI app that `python -m kanaloa_env.web` serves with
uvicorn. The page (`static/`) talks to these routes only:

| route | what |
|---|---|
| `GET /` | the page (`static/index.html`, its script and style sheet) |
| `GET /api/games` | the games, their table sizes, options and bots; the record files |
| `POST /api/play` | a new game: `{game, num_players, seat, bots, options, seed}` |
| `POST /api/live` | a game among bots: the same without `seat` |
| `POST /api/replay` | a record: `{folder, path, index}` (a listed file) or `{text, name, index}` |
| `GET /api/session/{id}/view?step=&seat=` | one position: text, moves, regions, result |
| `POST /api/session/{id}/move` | the human's move `{action, step}`, then the bots' |
| `POST /api/session/{id}/advance` | one bot move of a live game |
| `GET /api/session/{id}/image.png?step=&seat=` | the game's picture of a position |
| `GET /api/session/{id}/record` | the game as a record file (a download) |

Errors are JSON `{"error": message}` with status 400 (bad input, shown in the page),
404 (an unknown or dropped session) or 500 (a bug: logged on the server, never a
traceback in the page). POST bodies must be `application/json`, which a page of
another site cannot send without the server's consent (CORS), and the `Host` header
must be one the server listens as (against DNS rebinding).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .session import (
    MAX_RECORD_BYTES,
    Catalogue,
    Session,
    SessionStore,
    WebError,
    png_bytes,
)

__all__ = ["create_app"]

log = logging.getLogger("kanaloa_env.web")

_MAX_BODY = MAX_RECORD_BYTES + 1024 * 1024  # a record upload and its JSON wrapping
_SECURITY_HEADERS = {
    # The page loads nothing from elsewhere: its script, style and pictures are served here.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _static_dir() -> str:
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object (at most `_MAX_BODY` bytes)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise WebError("send the request as application/json")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > _MAX_BODY:
            raise WebError(f"the request is larger than {_MAX_BODY // 2**20} MiB")
        chunks.append(chunk)
    try:
        obj = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, RecursionError):
        raise WebError("the request is not valid JSON") from None
    if not isinstance(obj, dict):
        raise WebError("the request must be a JSON object")
    return obj


def _host_name(header: str) -> str:
    """The host of a `Host` header without its port ("[::1]:8000" -> "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]")[0]
    return header.split(":")[0]


class _HostCheck:
    """Refuse requests whose `Host` is not one the server listens as (DNS rebinding: a
    page of another site whose name resolves to this machine)."""

    def __init__(self, app: Any, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.any = "*" in allowed_hosts
        self.allowed = {h.strip("[]").lower() for h in allowed_hosts}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self.any:
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if _host_name(host) not in self.allowed:
                await _error(400, f"this server does not answer to host {host!r}")(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


def create_app(catalogue: Catalogue | None = None, allowed_hosts: Sequence[str] = ("*",)) -> Any:
    """The ASGI app serving the page for `catalogue` (default: no policy files, no
    record folders); requests whose `Host` is not in `allowed_hosts` are refused."""
    cat = catalogue or Catalogue()
    store = SessionStore()

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                response = await handler(request)
            except WebError as e:
                response = _error(400, str(e))
            except KeyError:
                response = _error(
                    404,
                    "this game is no longer on the server (it keeps the latest "
                    f"{store.limit}, and none after a restart): start a new one",
                )
            except Exception:  # a bug: logged here, a plain message in the page
                log.exception("error serving %s", request.url.path)
                response = _error(500, "the server failed on this request (see its console)")
            for k, v in _SECURITY_HEADERS.items():
                response.headers.setdefault(k, v)
            return response

        return run

    def session(request: Request) -> Session:
        return store.get(request.path_params["sid"])

    def opened(s: Session) -> dict[str, Any]:
        # A replay starts at its first position; a game at its latest.
        return {"info": s.info(), "view": s.view(0 if s.kind == "replay" else None), "log": s.log}

    async def index(request: Request) -> Response:
        return FileResponse(f"{_static_dir()}/index.html", media_type="text/html")

    async def games(request: Request) -> Response:
        return JSONResponse(
            {
                "games": await run_in_threadpool(cat.games),
                "record_files": await run_in_threadpool(cat.record_files),
                "record_folders": len(cat.record_dirs),
            }
        )

    async def play(request: Request) -> Response:
        b = await _body(request)
        if b.get("seat") is None:
            raise WebError("a game you play needs your seat")
        s = await run_in_threadpool(
            Session.play,
            cat,
            b.get("game"),
            b.get("num_players"),
            b.get("seat"),
            b.get("bots"),
            b.get("options"),
            b.get("seed"),
        )
        return JSONResponse(opened(store.add(s)))

    async def live(request: Request) -> Response:
        b = await _body(request)
        s = await run_in_threadpool(
            Session.play,
            cat,
            b.get("game"),
            b.get("num_players"),
            None,
            b.get("bots"),
            b.get("options"),
            b.get("seed"),
        )
        return JSONResponse(opened(store.add(s)))

    async def open_replay(request: Request) -> Response:
        b = await _body(request)
        if "text" in b:
            text, name = b.get("text"), b.get("name") or "uploaded record"
        else:
            text, name = await run_in_threadpool(
                cat.read_record_file, b.get("folder"), b.get("path")
            )
        s = await run_in_threadpool(Session.from_record, text, name, b.get("index", 0))
        return JSONResponse(opened(store.add(s)))

    async def view(request: Request) -> Response:
        s = session(request)
        q = request.query_params

        def work() -> dict[str, Any]:
            with s.lock:
                return s.view(q.get("step"), q.get("seat"))

        return JSONResponse(await run_in_threadpool(work))

    async def move(request: Request) -> Response:
        s = session(request)
        b = await _body(request)

        def work() -> dict[str, Any]:
            with s.lock:
                start = len(s.log)
                s.move(b.get("action"), b.get("step"))
                return {"log": s.log[start:], "view": s.view()}

        return JSONResponse(await run_in_threadpool(work))

    async def advance(request: Request) -> Response:
        s = session(request)
        if s.kind != "live":
            raise WebError("only a game among bots advances by itself")

        def work() -> dict[str, Any]:
            with s.lock:
                start = len(s.log)
                if not s.done:
                    s.advance()
                return {"log": s.log[start:], "view": s.view()}

        return JSONResponse(await run_in_threadpool(work))

    async def image(request: Request) -> Response:
        s = session(request)
        q = request.query_params

        def work() -> bytes:
            with s.lock:
                step, seat = q.get("step", str(s.last)), q.get("seat")
                s.check_step(step)
                s.shown_seat(seat)
            return png_bytes(s.picture(step, seat))  # positions never change: no lock

        data = await run_in_threadpool(work)
        # A position's picture never changes: the browser may keep it.
        return Response(
            data, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"}
        )

    async def record(request: Request) -> Response:
        s = session(request)
        with s.lock:
            text, name = s.record_text(), s.record_filename()
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    routes = [
        Route("/", guarded(index)),
        Route("/api/games", guarded(games)),
        Route("/api/play", guarded(play), methods=["POST"]),
        Route("/api/live", guarded(live), methods=["POST"]),
        Route("/api/replay", guarded(open_replay), methods=["POST"]),
        Route("/api/session/{sid}/view", guarded(view)),
        Route("/api/session/{sid}/move", guarded(move), methods=["POST"]),
        Route("/api/session/{sid}/advance", guarded(advance), methods=["POST"]),
        Route("/api/session/{sid}/image.png", guarded(image)),
        Route("/api/session/{sid}/record", guarded(record)),
        Mount("/static", StaticFiles(directory=_static_dir()), name="static"),
    ]
    middleware = [Middleware(_HostCheck, allowed_hosts=list(allowed_hosts))]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.store = store
    app.state.catalogue = cat
    return app
