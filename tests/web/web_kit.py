"""What the web tests share: the real server (uvicorn) on a free loopback port in a thread,
and a small HTTP client (the standard library's) to talk to it."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from kanaloa_env.web.local import serve_in_thread


def missing(why: str) -> None:
    """A browser test's missing piece (Playwright, Chromium, axe): a failure in CI, where
    the browser tests must run, a skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests must run in CI: {why}")
    pytest.skip(why)


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.content)


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


class Client:
    """GET and POST against `base` (an http://127.0.0.1:port address)."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        req = urllib.request.Request(
            self.base + path, data=body, method=method, headers=headers or {}
        )
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return Reply(resp.status, _lower(resp.headers), resp.read())
        except urllib.error.HTTPError as e:
            return Reply(e.code, _lower(e.headers), e.read())

    def get(self, path: str, params: dict[str, Any] | None = None, **kw: Any) -> Reply:
        if params:
            path += "?" + urllib.parse.urlencode(params)
        return self.request("GET", path, **kw)

    def post(self, path: str, json_body: Any = None, **kw: Any) -> Reply:
        headers = {"Content-Type": "application/json"}
        return self.request("POST", path, json.dumps(json_body).encode(), headers)


@contextmanager
def serve(app: Any) -> Iterator[Client]:
    """Serve `app` with uvicorn on a free loopback port until the block ends."""
    with serve_in_thread(app) as base:
        yield Client(base)
