"""The web server's routes: the page, its JSON API and the pictures (Starlette).

`create_app(catalogue)` builds the ASGI app that `python -m kanaloa_env.web` serves with
uvicorn. The page (`static/`) talks to these routes only:

| route | what |
|---|---|
| `GET /` | the page (`static/index.html`, its script and style sheet) |
| `GET /api/games` | the games, their table sizes, options and bots; the record files |
| `POST /api/play` | a new game: `{game, num_players, seat, bots, options, seed}` |
| `POST /api/live` | a game among bots: the same without `seat` |
| `POST /api/replay` | a record: `{folder, path, index}` (a listed file) or `{text, name, index}`, or the record file itself as `application/x-ndjson` with `?name=&index=` |
| `GET /api/session/{id}/view?step=&seat=` | one position: text, moves, regions, result |
| `POST /api/session/{id}/move` | the human's move `{action, step}`, then the bots' |
| `POST /api/session/{id}/advance` | one bot move of a live game |
| `GET /api/session/{id}/image.png?step=&seat=` | the game's picture of a position |
| `GET /api/session/{id}/record` | the game as a record file (a download) |

Errors are JSON `{"error": message}` with status 400 (bad input, shown in the page),
404 (an unknown or dropped session, or no such route), 405 (a route without that
method), 413 (a body over its limit), 503 (busy, or full: try again later) or 500 (a
bug: logged on the server, never a traceback in the page). POST bodies must be
`application/json` (or, for an upload, `application/x-ndjson`), which a page of
another site cannot send without the server's consent (CORS), and the `Host` header
must be one the server listens as (against DNS rebinding). Every answer carries the
security headers (`_SECURITY_HEADERS`: the content security policy, no framing, no
type sniffing, no referrer, no caching unless the answer says otherwise).

A page names its tab with the header `X-Kanaloa-Tab` (`TAB_HEADER`: 8 to 64 letters,
digits, `-` or `_`, random per tab) on every API call: the server keeps each tab's
games apart (`SessionStore`), so one tab's new games never drop another's. Without
the header a client is one anonymous tab. The bounds on bodies, on games opened at
once and on games kept are `Limits` (`kanaloa_env.web.limits`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .limits import Limits
from .session import (
    Catalogue,
    ServerFull,
    Session,
    SessionStore,
    WebError,
    ascii_int,
    png_bytes,
)

__all__ = ["TAB_HEADER", "create_app"]

log = logging.getLogger("kanaloa_env.web")

TAB_HEADER = "X-Kanaloa-Tab"
_TAB_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
_NDJSON = "application/x-ndjson"
# A request's JSON is an object of a few keys: more values than this is no request of
# the page (and a body of millions of numbers would take far more memory than its size).
_MAX_JSON_VALUES = 1000
_JSON_STRING = re.compile(rb'"[^"]*"')  # once its escapes are out: no backtracking
_SECURITY_HEADERS = {
    # The page loads nothing from elsewhere: its script, style and pictures are served here.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_HEADER_BYTES = [
    (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in _SECURITY_HEADERS.items()
]


def _static_dir() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class _HttpError(Exception):
    """An answer other than 400: its status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n / 2**10:g} KiB"


async def _raw_body(request: Request, limit: int) -> bytearray:
    """The request's body, at most `limit` bytes (413 beyond: refused from its
    Content-Length before it is read, and counted as it arrives, whatever that said)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise _HttpError(
            413, f"the request is larger than {_mib(limit)}, the most this server takes"
        )
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise _HttpError(
                413, f"the request is larger than {_mib(limit)}, the most this server takes"
            )
    return data  # not copied into bytes: the largest is an upload's size


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


async def _body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object (at most `limit` bytes)."""
    if _media_type(request) != "application/json":
        raise WebError("send the request as application/json")
    return _json_object(await _raw_body(request, limit))


def _json_values(data: bytes | bytearray) -> int:
    """About how many values a JSON text holds (its strings, and the commas, brackets and
    braces outside them), counted at C speed without parsing it: a body whose parse would
    build millions of objects is refused by its count first."""
    # Inside a JSON string a backslash starts a two-byte escape, read from the left:
    # dropping the escaped backslashes, then the escaped quotes, leaves its delimiters as
    # the only quotes (in a valid text; an invalid one is refused by the parser later).
    flat = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    strings = flat.count(b'"') // 2
    if strings > _MAX_JSON_VALUES:
        return strings
    outside = _JSON_STRING.sub(b"", flat)
    return strings + sum(outside.count(c) for c in (b",", b"[", b"{"))


def _json_object(data: bytes | bytearray) -> dict[str, Any]:
    """A request body's JSON object, refused before it is parsed if it holds more than
    `_MAX_JSON_VALUES` values (`_json_values`)."""
    if _json_values(data) > _MAX_JSON_VALUES:
        raise WebError(f"the request holds more than {_MAX_JSON_VALUES} JSON values")
    try:
        obj = json.loads(data or b"{}")
    except (ValueError, RecursionError):
        raise WebError("the request is not valid JSON") from None
    if not isinstance(obj, dict):
        raise WebError("the request must be a JSON object")
    return obj


def _tab(request: Request) -> str:
    """The page's tab id (`TAB_HEADER`), "" for a client that sends none."""
    tab = request.headers.get(TAB_HEADER)
    if tab is None:
        return ""
    if not _TAB_ID.fullmatch(tab):
        raise WebError(f"{TAB_HEADER} must be 8 to 64 letters, digits, '-' or '_'")
    return tab


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


class _SecurityHeaders:
    """Add `_SECURITY_HEADERS` to every answer that does not set its own (the outermost
    layer: pages, API, static files, 404 and 405, errors)."""

    def __init__(self, app: Any, state: Any) -> None:
        self.app = app
        self.state = state  # the Starlette app's: store, catalogue, limits

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in _HEADER_BYTES if k not in have]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    catalogue: Catalogue | None = None,
    allowed_hosts: Sequence[str] = ("*",),
    limits: Limits | None = None,
) -> Any:
    """The ASGI app serving the page for `catalogue` (default: no policy files, no
    record folders) under `limits` (default `Limits()`); requests whose `Host` is not
    in `allowed_hosts` are refused."""
    lim = limits or Limits()
    cat = catalogue or Catalogue(max_record_bytes=lim.max_record_bytes)
    store = SessionStore(lim.games_per_tab, lim.max_games, lim.game_idle_seconds)
    opening = asyncio.Semaphore(lim.max_opening)

    async def open_slot() -> None:
        try:
            await asyncio.wait_for(opening.acquire(), lim.busy_wait_seconds)
        except TimeoutError:
            raise _HttpError(
                503,
                f"the server is busy opening {lim.max_opening} other games: try again in a moment",
            ) from None

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                response = await handler(request)
            except ServerFull as e:
                response = _error(503, str(e))
            except WebError as e:
                response = _error(400, str(e))
            except _HttpError as e:
                response = _error(e.status, str(e))
            except KeyError:
                response = _error(
                    404,
                    "this game is no longer on the server (it keeps the latest "
                    f"{store.limit} games of each page, drops a game left alone for "
                    f"{store.idle_seconds / 60:g} minutes when it is full, and keeps none "
                    "after a restart): start a new one",
                )
            except ClientDisconnect:
                # The client left before its request was in: nobody reads an answer.
                log.info("a client left during %s %s", request.method, request.url.path)
                response = _error(400, "the request did not arrive whole")
            except Exception:  # a bug: logged here, a plain message in the page
                log.exception("error serving %s", request.url.path)
                response = _error(500, "the server failed on this request (see its console)")
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
        files, not_listed = await run_in_threadpool(cat.record_listing)
        return JSONResponse(
            {
                "games": await run_in_threadpool(cat.games),
                "record_files": files,
                "record_folders": len(cat.record_dirs),
                "not_listed": not_listed,
                "limits": {
                    "max_record_bytes": lim.max_record_bytes,
                    "games_per_tab": lim.games_per_tab,
                    "max_games": lim.max_games,
                },
            }
        )

    async def new_game(request: Request, seat_needed: bool) -> Response:
        tab = _tab(request)
        b = await _body(request, lim.max_request_bytes)
        if seat_needed and b.get("seat") is None:
            raise WebError("a game you play needs your seat")
        await open_slot()
        try:
            s = await run_in_threadpool(
                Session.play,
                cat,
                b.get("game"),
                b.get("num_players"),
                b.get("seat") if seat_needed else None,
                b.get("bots"),
                b.get("options"),
                b.get("seed"),
            )
        finally:
            opening.release()
        return JSONResponse(opened(store.add(s, tab)))

    async def play(request: Request) -> Response:
        return await new_game(request, seat_needed=True)

    async def live(request: Request) -> Response:
        return await new_game(request, seat_needed=False)

    async def open_replay(request: Request) -> Response:
        tab = _tab(request)
        kind = _media_type(request)
        if kind not in ("application/json", _NDJSON):
            raise WebError(f"send the request as application/json (or a record as {_NDJSON})")
        await open_slot()  # the upload is read inside: bodies of uploads are bounded too
        try:
            data = await _raw_body(request, lim.max_upload_bytes)
            if kind == _NDJSON:
                try:
                    text: object = data.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise WebError(f"the record is not a text (UTF-8) file: {e.reason}") from None
                q = request.query_params
                name: object = q.get("name") or "uploaded record"
                index: object = ascii_int(q.get("index", "0"))
            else:
                b = _json_object(data)
                del data
                index = b.get("index", 0)
                if "text" in b:
                    text, name = b.get("text"), b.get("name") or "uploaded record"
                else:
                    text, name = await run_in_threadpool(
                        cat.read_record_file, b.get("folder"), b.get("path")
                    )
            s = await run_in_threadpool(
                Session.from_record, text, name, index, lim.max_record_bytes
            )
        finally:
            opening.release()
        return JSONResponse(opened(store.add(s, tab)))

    async def view(request: Request) -> Response:
        s = session(request)
        q = request.query_params

        def work() -> dict[str, Any]:
            with s.lock:
                return s.view(q.get("step"), q.get("seat"))

        return JSONResponse(await run_in_threadpool(work))

    async def move(request: Request) -> Response:
        s = session(request)
        b = await _body(request, lim.max_request_bytes)

        def work() -> dict[str, Any]:
            with s.lock:
                start = len(s.log)
                s.move(b.get("action"), b.get("step"))
                return {"log": s.log[start:], "view": s.view()}

        return JSONResponse(await run_in_threadpool(work))

    async def advance(request: Request) -> Response:
        s = session(request)
        await _body(request, lim.max_request_bytes)  # strict as every POST: JSON, bounded
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

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = {404: "no such page or API route", 405: "this route does not take that method"}
        return _error(exc.status_code, message.get(exc.status_code, str(exc.detail)), exc.headers)

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
    app = Starlette(routes=routes, exception_handlers={404: http_error, 405: http_error})
    app.state.store = store
    app.state.catalogue = cat
    app.state.limits = lim
    # Outermost first: every answer, the host check's and Starlette's own included, gets
    # the security headers.
    return _SecurityHeaders(_HostCheck(app, list(allowed_hosts)), app.state)
