"""The web page's server without a browser: its JSON API, its safety, its command line.

Every registered game (Kuhn poker from tests/kuhn/ included) plays a whole game
through the API; what the API says is checked against the engine through the records
it downloads. The browser tests (test_web_browser.py) drive the page itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from web_kit import Client, serve  # noqa: E402

from kanaloa_env.bots import make_bot  # noqa: E402
from kanaloa_env.games import GAMES, get_game  # noqa: E402
from kanaloa_env.records import (  # noqa: E402
    describe_step,
    load_records,
    parse_records,
    record_bot_game,
    replay,
    save_records,
)
from kanaloa_env.web import create_app  # noqa: E402
from kanaloa_env.web.server import exposure_warning  # noqa: E402
from kanaloa_env.web.session import Catalogue, Session, WebError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with serve(create_app(allowed_hosts=["127.0.0.1"])) as c:
        yield c


def _table(game: str) -> dict[str, Any]:
    g = get_game(game)
    P = g.default_num_players
    return {
        "game": game,
        "num_players": P,
        "seat": 0,
        "bots": ["random"] * (P - 1),
        "seed": 5,
    }


def _play_to_the_end(client: Client, game: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play a whole game through the API with random moves of the human; the first and
    the last answer and the move log."""
    r = client.post("/api/play", _table(game))
    assert r.status == 200, r.text
    first = r.json()
    sid, view, log = first["info"]["session"], first["view"], list(first["log"])
    rng = np.random.default_rng(0)
    while not view["done"]:
        assert view["moves"] and view["to_act"] == 0
        action = int(rng.choice([m["action"] for m in view["moves"]]))
        r = client.post(f"/api/session/{sid}/move", {"action": action, "step": view["last"]})
        assert r.status == 200, r.text
        log += r.json()["log"]
        view = r.json()["view"]
    return first, log + [view]  # type: ignore[list-item]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_through_the_api_agrees_with_the_engine(
    client: Client, game: str, tmp_path: Path
) -> None:
    first, rest = _play_to_the_end(client, game)
    *log, final = rest
    sid = first["info"]["session"]
    assert [e["step"] for e in log] == list(range(len(log))) == list(range(final["last"]))
    # The record the page downloads replays, with the command line too.
    r = client.get(f"/api/session/{sid}/record")
    assert r.status == 200
    assert r.headers["content-disposition"].startswith("attachment; filename=")
    path = tmp_path / "game.jsonl"
    path.write_text(r.text)
    (rec,) = load_records(path)
    assert rec.actions == [e["action"] for e in log]
    names = [p["name"] for p in first["info"]["players"]]
    steps = list(replay(rec))
    g = get_game(game)
    for e, s in zip(log, steps, strict=True):
        assert e["player"] == int(s.before.current_player[0])
        assert e["lines"] == describe_step(s.before, e["action"], s.after, names=names)
    end = steps[-1].after
    assert final["result"]["ranks"] == g.final_ranks(end)[0].tolist()
    assert final["result"]["lines"] == g.final_lines(end, names)
    proc = subprocess.run(
        [sys.executable, "-m", "kanaloa_env.replay", str(path), "--brief", "--no-pause"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    if game in ("kanaloa", "kahuna"):  # a test-only game is not registered in a new process
        assert proc.returncode == 0, proc.stderr
    # Every position's picture is served, from the human's side only.
    r = client.get(f"/api/session/{sid}/image.png", params={"step": 0, "seat": 1})
    if g.provides("render_rgb"):
        assert r.status == 200 and r.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_games_list_offers_every_registered_game(client: Client) -> None:
    data = client.get("/api/games").json()
    assert [g["name"] for g in data["games"]] == list(GAMES)
    kanaloa = next(g for g in data["games"] if g["name"] == "kanaloa")
    assert kanaloa["player_counts"] == [3, 4, 5]
    assert {"random", "heuristic", "search", "net", "guided"} <= set(kanaloa["bots"])
    flags = {o["flag"]: o for o in kanaloa["options"]}
    assert flags["--announce"]["kind"] == "switch"
    assert flags["--dolphin"]["choices"] == ["optional", "automatic"]
    assert data["record_files"] == [] and data["record_folders"] == 0


def test_variant_options_reach_the_config(client: Client) -> None:
    r = client.post(
        "/api/play",
        {**_table("kanaloa"), "options": {"--announce": True, "--max-rounds": "7"}},
    )
    assert r.status == 200, r.text
    sid = r.json()["info"]["session"]
    rec = parse_records(client.get(f"/api/session/{sid}/record").text)[0]
    assert rec.config == {"nil_announcement": True, "max_rounds": 7}
    for options, message in [
        ({"--no-such": True}, "has no option '--no-such'"),
        ({"--max-rounds": "x"}, "invalid int value"),
        ({"--dolphin": "never"}, "invalid choice"),
        ({"--announce": "yes"}, "is a switch"),
    ]:
        r = client.post("/api/play", {**_table("kanaloa"), "options": options})
        assert r.status == 400 and message in r.json()["error"], r.text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"num_players": 7}, "played by 3..5 players"),
        ({"seat": 9}, "seat must be in 0..3"),
        ({"seat": None}, "needs your seat"),
        ({"bots": ["random"]}, "one bot for each of the seats"),
        ({"bots": ["random", "random", "model.zip"]}, "unknown bot 'model.zip'"),
        ({"bots": ["random", "random", "/etc/passwd"]}, "unknown bot '/etc/passwd'"),
        ({"seed": -1}, "a seed is an int"),
    ],
)
def test_a_bad_table_is_a_message(client: Client, change: dict[str, Any], message: str) -> None:
    r = client.post("/api/play", {**_table("kanaloa"), **change})
    assert r.status == 400 and message in r.json()["error"], r.text


def test_illegal_stale_and_foreign_moves_are_refused(client: Client) -> None:
    view = client.post("/api/play", _table("kahuna")).json()
    sid, step = view["info"]["session"], view["view"]["last"]
    legal = {m["action"] for m in view["view"]["moves"]}
    illegal = next(a for a in range(get_game("kahuna").num_actions) if a not in legal)
    for body, message in [
        ({"action": illegal, "step": step}, "is not a legal move now"),
        ({"action": min(legal), "step": step + 5}, "the game is at step"),
        ({"action": "1", "step": step}, "a move is an action"),
    ]:
        r = client.post(f"/api/session/{sid}/move", body)
        assert r.status == 400 and message in r.json()["error"], r.text
    assert client.post(f"/api/session/{sid}/advance", {}).status == 400
    r = client.get("/api/session/nosuchsession/view")
    assert r.status == 404 and "no longer on the server" in r.json()["error"]


def test_requests_must_be_json_from_a_host_the_server_listens_as(client: Client) -> None:
    r = client.request("POST", "/api/play", json.dumps(_table("kanaloa")).encode())  # no type
    assert r.status == 400 and "application/json" in r.json()["error"]
    r = client.request("POST", "/api/play", b"[1, 2", {"Content-Type": "application/json"})
    assert r.status == 400 and "not valid JSON" in r.json()["error"]
    # DNS rebinding: a page of another name that resolves here is refused.
    r = client.get("/api/games", headers={"Host": "evil.example"})
    assert r.status == 400
    page = client.get("/")
    assert page.status == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    for asset in ("app.js", "style.css"):
        assert client.get(f"/static/{asset}").status == 200


def test_a_live_game_among_bots_advances_one_move_at_a_time(client: Client) -> None:
    r = client.post(
        "/api/live", {"game": "kahuna", "num_players": 2, "bots": ["random", "heuristic"]}
    )
    assert r.status == 200, r.text
    sid = r.json()["info"]["session"]
    assert r.json()["view"]["last"] == 0
    for n in range(1, 4):
        data = client.post(f"/api/session/{sid}/advance", {}).json()
        assert data["view"]["last"] == n and len(data["log"]) == 1
    view = client.get(f"/api/session/{sid}/view", params={"step": 1, "seat": 1}).json()
    assert view["step"] == 1 and view["seat"] == 1 and view["moves"] == []


# ---- records: watched, untrusted -------------------------------------------------------


def _arena_file(tmp_path: Path) -> Path:
    folder = tmp_path / "records" / "arena"
    folder.mkdir(parents=True)
    g = get_game("kahuna")
    bots = [make_bot("random", g), make_bot("heuristic", g)]
    recs = [record_bot_game(g.make_config(), bots, seed=s) for s in (1, 2)]
    save_records(folder / "games.jsonl", recs)
    return folder / "games.jsonl"


def test_a_record_from_a_folder_replays_step_by_step(tmp_path: Path) -> None:
    path = _arena_file(tmp_path)
    (tmp_path / "outside.jsonl").write_text(path.read_text())
    (tmp_path / "records" / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    app = create_app(Catalogue.from_paths(record_dirs=[str(tmp_path / "records")]), ["127.0.0.1"])
    with serve(app) as client:
        _watch_a_folder(client, path, tmp_path)


def _watch_a_folder(client: Client, path: Path, tmp_path: Path) -> None:
    files = client.get("/api/games").json()["record_files"]
    # The link out of the folder is not listed.
    assert files == [{"folder": 0, "path": "arena/games.jsonl", "bytes": path.stat().st_size}]
    r = client.post("/api/replay", {"folder": 0, "path": "arena/games.jsonl", "index": 1})
    assert r.status == 200, r.text
    data = r.json()
    rec = load_records(path)[1]
    assert data["info"]["file_games"] == 2 and data["info"]["file_index"] == 1
    assert [e["action"] for e in data["log"]] == rec.actions
    sid = data["info"]["session"]
    states = [rec.start_state()] + [s.after for s in replay(rec)]
    g = get_game("kahuna")
    for k in (0, 5, len(states) - 1):
        view = client.get(f"/api/session/{sid}/view", params={"step": k, "seat": 1}).json()
        assert view["text"] == g.render_text(states[k], 0, color=False, seat=1, legal=False)
    assert view["result"]["ranks"] == g.final_ranks(states[-1])[0].tolist()
    r = client.get(f"/api/session/{sid}/image.png", params={"step": 3, "seat": 0})
    assert r.status == 200
    for bad, message in [
        ({"folder": 0, "path": "../outside.jsonl"}, "not inside the record folder"),
        ({"folder": 0, "path": "link.jsonl"}, "not inside the record folder"),
        ({"folder": 0, "path": str(tmp_path / "outside.jsonl")}, "not inside the record folder"),
        ({"folder": 0, "path": "arena/../../outside.jsonl"}, "not inside the record folder"),
        ({"folder": 0, "path": "/etc/passwd"}, "is a *.jsonl file"),
        ({"folder": 1, "path": "arena/games.jsonl"}, "no such record folder"),
        ({"folder": 0, "path": "arena/games.jsonl", "index": 2}, "holds 2 games"),
    ]:
        r = client.post("/api/replay", bad)
        assert r.status == 400 and message in r.json()["error"], (bad, r.text)


def _good_record() -> str:
    g = get_game("kanaloa")
    bots = [make_bot("random", g)] * 3
    return record_bot_game(g.make_config(num_players=3), bots, seed=4).to_jsonl()


def _tampered(what: str) -> str:
    lines = _good_record().splitlines()
    if what == "action":  # another legal-looking action at step 3
        d = json.loads(lines[4])
        d["action"] = (d["action"] + 1) % 48
        d.pop("name")
        lines[4] = json.dumps(d)
    elif what == "result":
        d = json.loads(lines[-1])
        d["result"]["winner"] = (d["result"]["winner"] + 1) % 3
        lines[-1] = json.dumps(d)
    elif what == "header":
        lines[0] = lines[0].replace('"num_players": 3', '"num_players": 9')
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json at all", "line 1: not valid JSON"),
        ("[" * 100_000, "not valid JSON"),
        ("{}", "must start with a kanaloa-record header"),
        ("", "no game records"),
        (_tampered("action"), "record diverges at step 3"),
        (_tampered("result"), "result 'winner'"),
        (_tampered("header"), "num_players must be in 3..5"),
    ],
    ids=["text", "deep", "no-header", "empty", "action", "result", "header"],
)
def test_a_bad_uploaded_record_is_a_message(client: Client, text: str, message: str) -> None:
    r = client.post("/api/replay", {"text": text, "name": "up.jsonl"})
    assert r.status == 400, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


def test_an_uploaded_record_replays(client: Client) -> None:
    r = client.post("/api/replay", {"text": _good_record(), "name": "up.jsonl"})
    assert r.status == 200, r.text
    data = r.json()
    assert data["info"]["kind"] == "replay" and data["view"]["step"] == 0
    end = client.get(f"/api/session/{data['info']['session']}/view").json()
    assert end["done"] and end["step"] == end["last"] == len(data["log"])


# ---- the command line ---------------------------------------------------------------------


def test_policy_files_only_as_npz_and_by_label(tmp_path: Path) -> None:
    zipped = tmp_path / "model.zip"
    zipped.write_bytes(b"PK")
    with pytest.raises(ValueError, match="model .zip is unpickled"):
        Catalogue.from_paths(policies=[str(zipped)])
    with pytest.raises(ValueError, match="no such file"):
        Catalogue.from_paths(policies=[str(tmp_path / "none.npz")])
    with pytest.raises(ValueError, match="no such folder"):
        Catalogue.from_paths(record_dirs=[str(tmp_path / "none")])
    pytest.importorskip("torch")
    from kanaloa_env.bots.policy_bot import shipped_paths

    path = shipped_paths("kahuna")[2]
    cat = Catalogue.from_paths(policies=[path])
    g = get_game("kahuna")
    label = f"file:{Path(path).stem}"
    assert label in cat.bot_names(g) and label not in cat.bot_names(get_game("kanaloa"))
    bot, name = cat.make_bot(g, label, 2)
    assert name == label and bot.game == "kahuna"
    with pytest.raises(WebError, match="unknown bot"):
        cat.make_bot(g, path, 2)  # the page names labels, never paths
    s = Session.play(cat, "kahuna", 2, 1, [label], seed=3)
    assert s.players == [label, "human"] and s.last > 0


def test_the_warning_names_what_another_host_exposes() -> None:
    assert exposure_warning("127.0.0.1", 8000, []) is None
    assert exposure_warning("::1", 8000, []) is None
    text = exposure_warning("0.0.0.0", 8000, ["runs"])
    assert text is not None and "without any login" in text and "runs" in text


def test_the_server_prints_its_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "kanaloa_env.web", "--port", "0", "--records", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kanaloa_env web: open http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/games", timeout=60) as resp:
            assert [g["name"] for g in json.load(resp)["games"]] == ["kanaloa", "kahuna"]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "kanaloa_env web: stopped" in out and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "model.zip"], "model .zip is unpickled"),
        (["--records", "/no/such/folder"], "no such folder"),
        (["--port", "70000"], "--port must be in 0..65535"),
    ],
)
def test_a_bad_command_line_exits_2(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kanaloa_env.web", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_another_host_is_warned_about_before_anything_listens() -> None:
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine: the warning comes
    # first, then the server cannot listen there and exits 2.
    proc = subprocess.run(
        [sys.executable, "-m", "kanaloa_env.web", "--host", "192.0.2.1", "--port", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("WARNING: listening on 192.0.2.1 (a free port), not only")
    assert "without any login" in proc.stderr and "cannot listen on 192.0.2.1" in proc.stderr


def test_the_web_layer_imports_no_game_internals() -> None:
    # Everything game-specific comes through the protocol: no engine, no game's package.
    import ast

    for path in sorted((ROOT / "kanaloa_env" / "web").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                name = "." * node.level + (node.module or "")
            elif isinstance(node, ast.Import):
                name = ",".join(a.name for a in node.names)
            else:
                continue
            for bad in ("..core", "kanaloa_env.core", "..games.", "kanaloa_env.games."):
                assert not name.startswith(bad) or name == "..games.protocol", (path.name, name)
