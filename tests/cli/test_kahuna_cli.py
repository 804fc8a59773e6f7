"""Kahuna end to end: terminal play driven by stdin, replay of a record (text and GIF),
PettingZoo's render test, and bots by name."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import render_test

import kanaloa_env
from kanaloa_env.bots import RandomBot, make_bot
from kanaloa_env.core.kahuna import Config
from kanaloa_env.drawing.terminal import strip_ansi
from kanaloa_env.games import get_game
from kanaloa_env.play import play_game
from kanaloa_env.records import load_record, record_bot_game, replay

REPO = Path(__file__).resolve().parents[2]


def _run(module: str, args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    # cwd is this checkout, so `python -m` imports its package, not another install.
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


def test_typing_1_plays_a_whole_game_and_the_record_replays(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    proc = _run(
        "kanaloa_env.play",
        ["--game", "kahuna", "--bots", "random", "--seed", "3", "--record", str(record)],
        "1\n" * 1000,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Traceback" not in proc.stderr and "\x1b[" not in out
    assert out.startswith("Kahuna: 2 players, seed 3; you are player_0; player_1: random")
    assert "Your move (you play cards" in out and "Since your last move:" in out
    assert "Board (maj:" in out and " 1) " in out
    assert "Game over: " in out and "  points " in out
    assert "Game record saved to" in out
    rec = load_record(record)
    assert rec.meta["players"] == ["human", "random"] and rec.result is not None
    human = 0
    for r in replay(rec):
        if r.decision.player == 0:
            assert r.decision.action == int(np.flatnonzero(r.before.legal[0])[0])
            human += 1
    assert human > 20


def test_bad_input_reprompts_with_a_reason_then_q_quits() -> None:
    stdin = "foo\n0\n99\np aloa-coco\nr kahu-lale\n\nh\nq\n"
    proc = _run("kanaloa_env.play", ["--game", "kahuna", "--bots", "random", "--seed", "3"], stdin)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "not understood: 'foo'" in out
    assert "there is no move 0" in out and "there is no move 99" in out
    assert "no line joins ALOA and COCO" in out
    assert "there is no bridge of the opponent on KAHU-LALE" in out
    assert "nothing typed" in out
    assert "How to answer: a move number from the list" in out  # h prints the help
    assert "You quit the game." in out
    assert out.count("Your move (") == 1  # every bad line re-prompted the same decision


def test_a_human_typing_the_notation_of_random_moves_finishes_a_game() -> None:
    out = io.StringIO()
    rng = np.random.default_rng(5)
    typed: list[str] = []

    def type_a_notation(prompt: str) -> str:
        # The moves printed last: "  12) take COCO from slot 0  (ends your turn)"; type a
        # random one's words before the note.
        tail = out.getvalue().rsplit("Your move (", 1)[1].split("\n")[1:]
        labels = [line.split(") ", 1)[1] for line in tail if ") " in line]
        typed.append(strip_ansi(labels[int(rng.integers(len(labels)))]).split("  (")[0])
        return typed[-1]

    final = play_game(Config(), 1, [RandomBot()], seed=8, input_fn=type_a_notation, out=out)
    assert final.done[0]
    kinds = {t.split()[0] for t in typed}
    assert {"place", "take", "end"} <= kinds
    assert "Game over: " in out.getvalue()


def test_replay_prints_every_step_and_renders_a_gif(tmp_path: Path) -> None:
    rec = record_bot_game(Config(), [RandomBot(), RandomBot()], seed=6)
    path = tmp_path / "k.jsonl"
    rec.save(path)
    full = _run("kanaloa_env.replay", [str(path)])
    assert full.returncode == 0, full.stderr
    assert full.stdout.count("\nStep ") == len(rec.decisions)
    assert "Kahuna, 2 players" in full.stdout and "Board (maj:" in full.stdout
    assert "player_0 (random) places a bridge on" in full.stdout
    assert "Game over: " in full.stdout
    brief = _run("kanaloa_env.replay", [str(path), "--brief"])
    assert brief.returncode == 0 and "Board (maj:" not in brief.stdout
    assert " - end of turn 1: player_" in brief.stdout
    gif = tmp_path / "k.gif"
    drawn = _run(
        "kanaloa_env.replay", [str(path), "--gif", str(gif), "--every", "30", "--scale", "0.3"]
    )
    assert drawn.returncode == 0, drawn.stderr
    n = len(range(0, len(rec.decisions) + 1, 30)) + (len(rec.decisions) % 30 != 0)
    assert f"({n} frames)" in drawn.stdout and gif.stat().st_size > 0


@pytest.mark.parametrize("raw", [False, True])
def test_pettingzoo_render_test_passes_for_every_mode(raw: bool, capsys) -> None:
    from kanaloa_env.aec import raw_env

    def make(render_mode=None):
        build = raw_env if raw else kanaloa_env.env
        return build(game="kahuna", render_mode=render_mode)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        render_test(make, custom_tests={"ansi": lambda s: "player_0" in s and "Board" in s})
    printed = capsys.readouterr().out
    assert "Board (maj:" in printed and "\x1b[" not in printed  # human mode, not a terminal


def test_random_needs_no_import_of_the_games_own_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("kahuna")

    def unavailable():
        raise ModuleNotFoundError("the heuristic is elsewhere")

    monkeypatch.setattr(game, "bot_factories", unavailable)
    assert isinstance(make_bot("random", game), RandomBot)
    with pytest.raises(ModuleNotFoundError):
        make_bot("heuristic", game)
