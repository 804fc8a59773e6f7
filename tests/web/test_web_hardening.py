"""The web server against what a careless or hostile client, a messy record folder or a
busy machine does: each test here reproduces a way the server once failed.

- a dangling link or a link loop in a `--records` folder, and more files than it lists;
- the security headers on every answer (static files, 404, 405, errors included);
- bodies over their limit (413, by Content-Length or counted), bodies of millions of
  JSON values, games opened at once (503), connections that stall (closed);
- uploads built only as far as the game shown;
- numbers in other scripts' digits ("²", "３", "٣");
- policy weights loaded once a process, and each tab's games kept apart;
- `advance` as strict as every POST; a client leaving mid-body; SIGTERM.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from web_kit import Client, serve  # noqa: E402

from kanaloa_env.bots import make_bot  # noqa: E402
from kanaloa_env.games import get_game  # noqa: E402
from kanaloa_env.records import GameRecord, parse_records, record_bot_game  # noqa: E402
from kanaloa_env.web import create_app  # noqa: E402
from kanaloa_env.web.session import Catalogue, Session, WebError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _limits(**kw: Any) -> Any:
    from kanaloa_env.web.limits import Limits

    return Limits(**kw)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with serve(create_app(allowed_hosts=["127.0.0.1"])) as c:
        yield c


def _kahuna_record(seed: int = 1) -> GameRecord:
    g = get_game("kahuna")
    return record_bot_game(g.make_config(), [make_bot("random", g)] * 2, seed=seed)


def _live(client: Client, tab: str | None = None, game: str = "kahuna") -> Any:
    headers = {"Content-Type": "application/json"}
    if tab is not None:
        headers["X-Kanaloa-Tab"] = tab
    P = get_game(game).default_num_players
    body = {"game": game, "num_players": P, "bots": ["random"] * P, "seed": 1}
    return client.request("POST", "/api/live", json.dumps(body).encode(), headers)


def _raw(base: str, data: bytes) -> socket.socket:
    """A connection to the server that has sent `data` (and may send more)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(data)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


# ---- the record folders ------------------------------------------------------------------


def test_a_dangling_link_or_a_loop_in_a_record_folder_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    _kahuna_record().save(folder / "good.jsonl")
    (folder / "dangling.jsonl").symlink_to(folder / "gone.jsonl")
    (folder / "loop-a.jsonl").symlink_to(folder / "loop-b.jsonl")
    (folder / "loop-b.jsonl").symlink_to(folder / "loop-a.jsonl")
    (folder / "folder.jsonl").mkdir()  # a folder with the suffix is no file either
    app = create_app(Catalogue.from_paths(record_dirs=[str(folder)]), ["127.0.0.1"])
    with serve(app) as c:
        r = c.get("/api/games")
        assert r.status == 200, r.text
        assert [f["path"] for f in r.json()["record_files"]] == ["good.jsonl"]
        assert r.json()["not_listed"] == 0
        for path in ("dangling.jsonl", "loop-a.jsonl"):
            r = c.post("/api/replay", {"folder": 0, "path": path})
            assert r.status == 400 and "no record file" in r.json()["error"], r.text
        assert c.post("/api/replay", {"folder": 0, "path": "good.jsonl"}).status == 200


def test_the_files_a_folder_holds_beyond_the_listed_ones_are_counted(tmp_path: Path) -> None:
    from kanaloa_env.web.session import _MAX_LISTED

    for k in range(_MAX_LISTED + 3):
        (tmp_path / f"{k:04d}.jsonl").write_text("")
    (tmp_path / "notes.txt").write_text("")  # not a record file: not counted
    files, not_listed = Catalogue.from_paths(record_dirs=[str(tmp_path)]).record_listing()
    assert len(files) == _MAX_LISTED and not_listed == 3
    assert files[-1]["path"] == f"{_MAX_LISTED - 1:04d}.jsonl"


# ---- headers on every answer -------------------------------------------------------------


def test_every_answer_carries_the_security_headers(client: Client) -> None:
    sid = _live(client).json()["info"]["session"]
    answers = {
        "page": client.get("/"),
        "static page": client.get("/static/index.html"),
        "script": client.get("/static/app.js"),
        "style": client.get("/static/style.css"),
        "api": client.get("/api/games"),
        "picture": client.get(f"/api/session/{sid}/image.png"),
        "record": client.get(f"/api/session/{sid}/record"),
        "no route": client.get("/no/such/page"),
        "no static file": client.get("/static/nothing.js"),
        "wrong method": client.get("/api/play"),
        "bad input": client.post("/api/play", {"game": "chess"}),
        "no session": client.get("/api/session/none/view"),
        "foreign host": client.get("/api/games", headers={"Host": "evil.example"}),
        "too large": client.request(
            "POST", "/api/play", b"{}" + b" " * 70_000, {"Content-Type": "application/json"}
        ),
        "head": client.request("HEAD", "/static/app.js"),
    }
    statuses = {k: r.status for k, r in answers.items()}
    assert statuses == {
        **{k: 200 for k in ("page", "static page", "script", "style", "api", "picture")},
        **{"record": 200, "head": 200, "bad input": 400, "foreign host": 400},
        **{"no route": 404, "no static file": 404, "no session": 404},
        **{"wrong method": 405, "too large": 413},
    }
    for what, r in answers.items():
        csp = r.headers.get("content-security-policy", "")
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, what
        assert r.headers.get("x-content-type-options") == "nosniff", what
        assert r.headers.get("x-frame-options") == "DENY", what
        assert r.headers.get("referrer-policy") == "no-referrer", what
    # An answer's own caching stays (a position's picture never changes).
    assert answers["picture"].headers["cache-control"] == "private, max-age=3600"
    assert answers["script"].headers["cache-control"] == "no-store"
    # Errors are JSON messages, 405 with its Allow header.
    assert answers["no route"].json() == {"error": "no such page or API route"}
    assert "POST" in answers["wrong method"].headers["allow"]


# ---- bodies, work at once, connections ---------------------------------------------------


def test_a_body_over_its_limit_is_refused_by_its_length_or_as_it_arrives(client: Client) -> None:
    # Declared: refused before a byte of the body is read (the body is never sent).
    sock = _raw(
        client.base,
        b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000000\r\nConnection: close\r\n\r\n",
    )
    head = _answer(sock).split(b"\r\n")[0]
    assert head == b"HTTP/1.1 413 Request Entity Too Large", head
    # Chunked, without a length: counted as it arrives.
    sock = _raw(
        client.base,
        b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    )
    chunk = b" " * 16384
    for _ in range(5):  # 80 KiB, beyond the limit; the answer comes before the body's end
        sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    answer = _answer(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than 64 KiB" in answer
    # An upload may be as large as a record.
    r = client.post("/api/replay", {"text": _kahuna_record().to_jsonl() + " " * 200_000})
    assert r.status == 200, r.text


def test_a_body_of_many_json_values_is_refused_before_it_is_parsed(client: Client) -> None:
    r = client.request(
        "POST",
        "/api/replay",
        json.dumps({"text": "x", "index": [0] * 5000}).encode(),
        {"Content-Type": "application/json"},
    )
    assert r.status == 400 and "more than 1000 JSON values" in r.json()["error"], r.text
    # Commas, brackets and braces inside strings are text, not values.
    text = _kahuna_record(1).to_jsonl() + _kahuna_record(2).to_jsonl() * 3
    assert text.count(",") > 1000
    r = client.post("/api/replay", {"text": text, "name": 'a "quoted", name [1, 2]'})
    assert r.status == 200, r.text


def test_games_opened_at_once_are_bounded(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(
        limits=_limits(max_opening=1, busy_wait_seconds=0.5), allowed_hosts=["127.0.0.1"]
    )
    caplog.set_level(logging.INFO, logger="kanaloa_env.web")
    with serve(app) as c:
        # An upload whose body has not all arrived holds the one place.
        sock = _raw(
            c.base,
            b"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"text": "',
        )
        time.sleep(0.3)
        r = _live(c)
        assert r.status == 503 and "busy" in r.json()["error"], r.text
        sock.close()  # the client leaves: its place is free again
        deadline = time.monotonic() + 10
        while (r := _live(c)).status == 503 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert r.status == 200, r.text
    # The client that left mid-body is one quiet line, no traceback.
    records = [r for r in caplog.records if r.name == "kanaloa_env.web"]
    assert [(r.levelno, r.getMessage()) for r in records] == [
        (logging.INFO, "a client left during POST /api/replay")
    ]
    assert all(r.exc_info is None for r in records)


def test_a_client_leaving_mid_body_is_one_quiet_line(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    sock = _raw(
        client.base,
        b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game": ',
    )
    time.sleep(0.3)
    sock.close()
    deadline = time.monotonic() + 10
    while not caplog.records and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    assert [(r.levelno, r.getMessage(), r.exc_info) for r in caplog.records] == [
        (logging.INFO, "a client left during POST /api/play", None)
    ]


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 50\r\n\r\n{",
    ],
    ids=["nothing", "half a head", "half a body"],
)
def test_a_connection_that_stalls_is_closed(sent: bytes) -> None:
    app = create_app(limits=_limits(head_seconds=0.5, body_seconds=0.5))
    with serve(app) as c:
        sock = _raw(c.base, sent)
        sock.settimeout(10)
        start = time.monotonic()
        answer = _answer(sock)  # raises TimeoutError if never closed
        assert time.monotonic() - start < 5
        assert b"200 OK" not in answer
        # A request in time is served, on a connection kept open between requests.
        sock = _raw(c.base, b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.8)  # longer than either limit: idle between requests is keep-alive's
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _answer(sock).count(b"HTTP/1.1 200 OK") == 2


# ---- uploads --------------------------------------------------------------------------------


def test_an_upload_is_built_only_as_far_as_the_game_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = [_kahuna_record(seed) for seed in (1, 2, 3)]
    text = "".join(r.to_jsonl() for r in games) * 400  # 1,200 games
    built: list[int] = []
    real = GameRecord.from_header.__func__  # type: ignore[attr-defined]

    def counted(cls: type, head: dict[str, Any], where: str = "header") -> GameRecord:
        built.append(1)
        return real(cls, head, where)  # type: ignore[no-any-return]

    monkeypatch.setattr(GameRecord, "from_header", classmethod(counted))
    s = Session.from_record(text, "big.jsonl", 1000)
    assert len(built) == 1
    assert s.file_games == 1200 and s.file_index == 1000
    assert s.record.actions == games[1000 % 3].actions
    assert s.last == len(games[1].decisions) if 1000 % 3 == 1 else True


def test_the_record_index_finds_the_games_parse_records_finds() -> None:
    from kanaloa_env.records import RecordIndex

    one, two = _kahuna_record(1).lines(), _kahuna_record(2).lines()
    escaped = one[0].replace('"format"', '"\\u0066ormat"')  # a header all the same
    named = json.loads(two[3])
    named["name"] = 'the "format" of a name'  # a decision line, not a header
    texts = [
        "\n".join(one + two),
        "\n\n" + "\r\n".join(one) + "\r\n\n" + "\u2028".join(two) + "\n",
        "\n".join([escaped, *one[1:], *two[:3], json.dumps(named), *two[4:]]),
    ]
    for text in texts:
        expected = parse_records(text, "t")
        index = RecordIndex(text, "t")
        assert len(index) == len(expected) == 2
        assert [index[i] for i in range(2)] == expected
    for bad in ("", "\n \n", "not json", '{"step": 0}', "[1]"):
        with pytest.raises(ValueError) as lazy:
            RecordIndex(bad, "t")
        with pytest.raises(ValueError) as full:
            parse_records(bad, "t")
        assert str(lazy.value) == str(full.value)
    # A fault in a game is reported when that game is built, naming its line.
    broken = "\n".join(one + [two[0], two[1], "{oops"])
    index = RecordIndex(broken, "t")
    assert index[0] == parse_records("\n".join(one), "t")[0]
    with pytest.raises(ValueError, match=f"t line {len(one) + 3}: not valid JSON"):
        index[1]
    with pytest.raises(ValueError, match="holds 2 games"):
        index[2]


def test_a_record_can_be_uploaded_as_is(client: Client) -> None:
    text = _kahuna_record(1).to_jsonl() + _kahuna_record(2).to_jsonl()
    r = client.request(
        "POST",
        "/api/replay?name=two.jsonl&index=1",
        text.encode(),
        {"Content-Type": "application/x-ndjson"},
    )
    assert r.status == 200, r.text
    data = r.json()
    assert data["info"]["file_games"] == 2 and data["info"]["file_index"] == 1
    assert [e["action"] for e in data["log"]] == _kahuna_record(2).actions
    r = client.request("POST", "/api/replay", b"\xff\xfe", {"Content-Type": "application/x-ndjson"})
    assert r.status == 400 and "not a text (UTF-8) file" in r.json()["error"]
    limited = create_app(limits=_limits(max_record_bytes=1000))
    with serve(limited) as c:
        r = c.request(
            "POST", "/api/replay", text.encode(), {"Content-Type": "application/x-ndjson"}
        )
        assert r.status == 400 and "larger than" in r.json()["error"], r.text


# ---- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize("digit", ["²", "３", "٣", "-1", "1e3"])
def test_only_ascii_digits_are_numbers(client: Client, digit: str) -> None:
    sid = _live(client).json()["info"]["session"]
    for params, message in [
        ({"step": digit}, "step must be in 0..0"),
        ({"step": 0, "seat": digit}, "seat must be in 0..1"),
    ]:
        r = client.get(f"/api/session/{sid}/view", params=params)
        assert r.status == 400 and message in r.json()["error"], (params, r.text)
        r = client.get(f"/api/session/{sid}/image.png", params=params)
        assert r.status == 400 and message in r.json()["error"], (params, r.text)
    body = {"game": "kahuna", "num_players": 2, "bots": ["random"] * 2, "seed": digit}
    r = client.post("/api/live", body)
    assert r.status == 400 and "a seed is an int" in r.json()["error"], r.text
    assert client.get(f"/api/session/{sid}/view", params={"step": "0", "seat": "1"}).status == 200
    assert client.post("/api/live", {**body, "seed": " 12 "}).json()["info"]["seed"] == 12


# ---- weights shared, tabs apart ------------------------------------------------------------


def test_policy_weights_are_loaded_once_and_never_changed() -> None:
    pytest.importorskip("torch")
    import numpy as np

    from kanaloa_env.bots.policy_bot import shipped_paths
    from kanaloa_env.bots.policy_file import load_policy

    cat = Catalogue()
    a = Session.play(cat, "kanaloa", 5, None, ["net"] * 5, seed=1)
    b = Session.play(cat, "kanaloa", 4, 0, ["net", "guided", "net"], seed=2)
    nets = {id(bot) for bot in a.bots.values()} | {id(b.bots[1]), id(b.bots[3])}
    assert len(nets) == 1  # one bot object for every net seat of every game
    net = a.bots[0]
    assert b.bots[2].guide is net  # the guided search plays on the same network
    for _ in range(30):
        if not a.done:
            a.advance()
    for P, path in shipped_paths("kanaloa").items():
        fresh = load_policy(path)
        for (w, bias), (w0, b0) in zip(net.weights[P].layers, fresh.layers, strict=True):
            assert not w.flags.writeable and not bias.flags.writeable
            assert np.array_equal(w, w0) and np.array_equal(bias, b0)
        for layer, (w0, b0) in zip(
            [m for m in net.nets[P] if hasattr(m, "weight")], fresh.layers, strict=True
        ):
            assert np.array_equal(layer.weight.numpy(), w0)
            assert np.array_equal(layer.bias.numpy(), b0)


def test_a_changed_policy_file_is_loaded_again(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from kanaloa_env.bots.policy_bot import shipped_paths
    from kanaloa_env.web.session import shared_policy_bot

    path = tmp_path / "p.npz"
    path.write_bytes(Path(shipped_paths("kahuna")[2]).read_bytes())
    first = shared_policy_bot([str(path)])
    assert shared_policy_bot([str(path)]) is first
    os.utime(path, ns=(0, 10**9))
    assert shared_policy_bot([str(path)]) is not first


def test_one_tabs_games_never_drop_anothers() -> None:
    app = create_app(limits=_limits(games_per_tab=3, max_games=5))
    with serve(app) as c:
        mine = _live(c, "tab-aaaaaaaa").json()["info"]["session"]
        theirs = [_live(c, "tab-bbbbbbbb").json()["info"]["session"] for _ in range(5)]
        # The other tab's sixth game dropped its own first, never mine.
        assert c.get(f"/api/session/{mine}/view").status == 200
        assert c.get(f"/api/session/{theirs[0]}/view").status == 404
        assert c.get(f"/api/session/{theirs[-1]}/view").status == 200
        # Full for all tabs (1 + 3 + 1 = 5), none left alone an hour: a new one waits.
        assert _live(c, "tab-cccccccc").status == 200
        r = _live(c, "tab-cccccccc")
        assert r.status == 503 and "--max-games" in r.json()["error"], r.text
        assert c.get(f"/api/session/{mine}/view").status == 200
        # A client without a tab id is one anonymous tab; a malformed id is refused.
        assert _live(c).status == 503
        r = _live(c, "short")
        assert r.status == 400 and "X-Kanaloa-Tab must be" in r.json()["error"]


def test_a_game_left_alone_long_enough_makes_room() -> None:
    from kanaloa_env.web.session import ServerFull, SessionStore

    now = [0.0]
    store = SessionStore(per_client=2, total=2, idle_seconds=60, clock=lambda: now[0])
    games = [Session.from_record(_kahuna_record().to_jsonl(), "r") for _ in range(3)]
    store.add(games[0], "a")
    store.add(games[1], "b")
    now[0] = 59
    store.get(games[1].id)
    with pytest.raises(ServerFull):
        store.add(games[2], "c")
    now[0] = 61  # a's game left alone 61 s, b's 2 s
    store.add(games[2], "c")
    with pytest.raises(KeyError):
        store.get(games[0].id)
    assert store.get(games[1].id) is games[1] and store.owned("c") == 1
    with pytest.raises(ValueError, match="per_client"):
        SessionStore(per_client=3, total=2)


# ---- advance, the command line, signals ---------------------------------------------------


def test_advance_takes_json_only(client: Client) -> None:
    sid = _live(client).json()["info"]["session"]
    for body, kind in [
        (b"a=1", "application/x-www-form-urlencoded"),
        (b"hello", "text/plain"),
        (b"", ""),
    ]:
        r = client.request(
            "POST", f"/api/session/{sid}/advance", body, {"Content-Type": kind} if kind else {}
        )
        assert r.status == 400 and "application/json" in r.json()["error"], (kind, r.text)
    r = client.request(
        "POST", f"/api/session/{sid}/advance", b"[1]", {"Content-Type": "application/json"}
    )
    assert r.status == 400 and "a JSON object" in r.json()["error"]
    assert client.post(f"/api/session/{sid}/advance", {}).json()["view"]["last"] == 1


def test_every_limit_is_a_flag_of_the_command_line() -> None:
    from dataclasses import fields

    from kanaloa_env.web.limits import FLAGS, Limits
    from kanaloa_env.web.server import _build_parser, limits_of

    assert sorted(name for _, name, *_ in FLAGS) == sorted(f.name for f in fields(Limits))
    text = _build_parser().format_help()
    for flag, *_ in FLAGS:
        assert flag in text
    assert limits_of(_build_parser().parse_args([])) == Limits()
    args = _build_parser().parse_args(["--max-record-mib", "0.5", "--game-idle", "2"])
    lim = limits_of(args)
    assert lim.max_record_bytes == 2**19 and lim.game_idle_seconds == 120
    for argv, message in [
        (["--max-games", "0"], "--max-games must be positive"),
        (["--max-opening", "1.5"], "--max-opening must be a whole number"),
        (["--games-per-tab", "200"], "cannot exceed"),
    ]:
        with pytest.raises(ValueError, match=message):
            limits_of(_build_parser().parse_args(argv))
    with pytest.raises(WebError):
        Session.from_record("x" * 2000, "r", 0, max_bytes=1000)


def _start_server(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kanaloa_env.web", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=ENV,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("kanaloa_env web: open http://127.0.0.1:"), line
    return proc, line.split()[3].rstrip("/")


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_sigterm_stops_the_server_cleanly_and_a_body_of_numbers_costs_little() -> None:
    proc, base = _start_server("--max-opening", "1")
    try:
        with urllib.request.urlopen(base + "/api/games", timeout=60) as resp:
            assert resp.status == 200
        if os.path.exists(f"/proc/{proc.pid}/status"):
            before = _peak_rss_mb(proc.pid)
            # 32 MiB of numbers: parsed, they would take many times their size.
            body = b'{"text": "x", "n": [' + b"1," * (16 * 2**20 - 20) + b"1]}"
            r = Client(base).request(
                "POST", "/api/replay", body, {"Content-Type": "application/json"}
            )
            assert r.status == 400 and "JSON values" in r.json()["error"]
            assert _peak_rss_mb(proc.pid) - before < 150
            # 25 MiB of a string full of escapes (a record's quotes, in JSON) is counted
            # without a regular expression's backtracking (which took 600 MB here).
            line = json.dumps({"step": 0, "player": 1, "action": 17, "name": 'a "b" \\'})
            body = json.dumps({"text": "\n".join([line] * 340_000)}).encode()
            assert len(body) > 25 * 2**20
            r = Client(base).request(
                "POST", "/api/replay", body, {"Content-Type": "application/json"}
            )
            assert r.status == 400 and "must start with a kanaloa-record header" in r.text
            assert _peak_rss_mb(proc.pid) - before < 250
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "kanaloa_env web: stopped" in out and "Traceback" not in err


def test_a_limit_that_is_not_positive_exits_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kanaloa_env.web", "--max-games", "-1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=120,
    )
    assert proc.returncode == 2 and "--max-games must be positive" in proc.stderr


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_games_with_network_bots_share_one_copy_of_the_weights() -> None:
    pytest.importorskip("torch")
    proc, base = _start_server()
    try:
        c = Client(base)
        table = {"game": "kanaloa", "num_players": 5, "bots": ["net"] * 5}
        assert c.post("/api/live", {**table, "seed": 0}).status == 200
        first = _rss_mb(proc.pid)  # torch, the engine and the weights are in
        for seed in range(1, 13):
            assert c.post("/api/live", {**table, "seed": seed}).status == 200
        # A copy of the weights a seat (the three Kanaloa networks, in numpy and torch)
        # was about 9 MB: 12 games x 5 seats would be 500 MB more.
        assert _rss_mb(proc.pid) - first < 60
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _bench(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_memory_benchmark_runs_at_a_tiny_size() -> None:
    out = _bench(
        "benchmarks/bench_web_memory.py", "--games", "2", "--players", "3", "--bot", "random",
        "--moves", "3",
    )  # fmt: skip
    lines = out.splitlines()
    assert lines[0].startswith("server started:") and "MB resident" in lines[0]
    assert lines[1].startswith("2 games opened:") and "3 x random" in lines[1]
    assert lines[2].startswith("2 games played:") and "(6 decisions in" in lines[2]


def test_the_upload_benchmark_runs_at_a_tiny_size() -> None:
    out = _bench("benchmarks/bench_web_upload.py", "--games", "40", "--index", "7")
    assert out.splitlines()[0].startswith("40 games, ") and "opening game 7" in out
    for what in ("every game built", "indexed", "POST /api/replay"):
        assert what in out
