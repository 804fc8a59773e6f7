"""uvicorn as the web page's server runs it: its HTTP protocol with time limits, its config.

uvicorn closes a connection left idle after an answer (`timeout_keep_alive`), but not
one that opens and sends nothing, sends half a request's head, or starts a body and
stalls: each would hold a connection (and, mid-body, a request) for ever. `TimedH11Protocol`
closes those after `Limits.head_seconds` and `Limits.body_seconds`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import Limits

__all__ = ["TimedH11Protocol", "uvicorn_config"]


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol that closes a connection whose request's head does not
    arrive within `head_seconds` (from the connection's start, or from the first byte
    of a next request) or whose body does not all arrive within `body_seconds` of its
    head. An application still answering is not timed: only the client's sending is."""

    head_seconds = Limits.head_seconds
    body_seconds = Limits.body_seconds

    _timer: asyncio.TimerHandle | None = None
    _timing: Any = None  # the h11 state of the client being timed

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start timing the head of the first request on the new connection `transport`."""
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        """Hand the received bytes `data` to h11, then time what the client owes next."""
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        """After an answer, time the head of the client's next request if it has begun."""
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the timer of a closed connection (`exc`: the error that closed it, if any)."""
        self._cancel()
        super().connection_lost(exc)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timing = None

    def _watch(self) -> None:
        """Time the client while it owes us a head or a body; keep the timer it runs
        while the client stays in the same state."""
        state = self.conn.their_state
        if state is h11.IDLE:
            # Between requests with nothing received, uvicorn's keep-alive timer runs.
            waiting = self.cycle is None or bool(self.conn.trailing_data[0])
            limit = self.head_seconds if waiting else None
        elif state is h11.SEND_BODY:
            limit = self.body_seconds
        else:
            limit = None
        if limit is None:
            self._cancel()
        elif self._timing is not state:
            self._cancel()
            self._timing = state
            self._timer = self.loop.call_later(limit, self._expired, state)

    def _expired(self, state: Any) -> None:
        self._timer = None
        if self.conn.their_state is state and not self.transport.is_closing():
            self.transport.close()


def uvicorn_config(app: Any, limits: Limits | None = None, **kwargs: Any) -> Any:
    """The `uvicorn.Config` serving `app` under `limits` (default `Limits()`): the timed
    protocol, the keep-alive time; `kwargs` add to or override uvicorn's options."""
    import uvicorn

    lim = limits or Limits()
    protocol = type(
        "TimedH11Protocol",
        (TimedH11Protocol,),
        {"head_seconds": lim.head_seconds, "body_seconds": lim.body_seconds},
    )
    options: dict[str, Any] = {
        "http": protocol,
        "log_level": "warning",
        "lifespan": "off",
        "timeout_keep_alive": lim.keep_alive_seconds,
        **kwargs,
    }
    return uvicorn.Config(app, **options)
