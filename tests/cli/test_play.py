"""The terminal game: end to end through a subprocess fed scripted input, and its input parser."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kanaloa import Config, from_scenario, init
from kanaloa_env.core.kanaloa.constants import (
    ANNOUNCE,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    NO_ANNOUNCE,
    REMOVE_BASE,
    Phase,
    card_from_name,
)
from kanaloa_env.games.kanaloa.describe import ocean_card_ahead
from kanaloa_env.games.kanaloa.moves import legal_moves, parse_move
from kanaloa_env.play import play_game
from kanaloa_env.records import (
    load_record,
    record_bot_game,
    replay,
    replay_states,
)

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "tests" / "scenarios" / "scenario_md_example.json"


def run_play(args: list[str], stdin: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kanaloa_env.play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "3", "--seed", "1", "--bots", "random"],
        ["--players", "4", "--seat", "2", "--seed", "5", "--announce", "--bots", "heuristic", "random", "heuristic"],
    ],
    ids=["3p-random", "4p-announce-heuristic"],
)  # fmt: skip
def test_always_typing_1_plays_a_whole_game(args: list[str], tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    proc = run_play([*args, "--record", str(record)], "1\n" * 3000)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "wins the game!" in out and "Final positions" in out
    assert "Since your last move:" in out and " wins the trick (" in out and " sails " in out
    assert "\x1b[" not in out  # no colours when stdout is not a terminal
    assert "Traceback" not in proc.stderr
    # The record replays, and every human decision was move 1: the lowest legal action.
    rec = load_record(record)
    seat = int(args[args.index("--seat") + 1]) if "--seat" in args else 0
    assert rec.meta["players"][seat] == "human"
    human_steps = 0
    for r in replay(rec):
        if r.decision.player == seat:
            assert r.decision.action == int(np.flatnonzero(r.before.legal[0])[0])
            human_steps += 1
    assert human_steps > 8
    assert f"player_{rec.result['winner']}" in out.split("Final positions")[0].splitlines()[-1]


def test_bad_input_reprompts_with_a_reason_then_q_quits() -> None:
    stdin = "foo\n0\n99\nred-13\n\n#3\nyes\nh\nq\n"
    proc = run_play(["--players", "3", "--seed", "1", "--bots", "random"], stdin)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "not understood: 'foo'" in out
    assert "there is no move 0" in out and "there is no move 99" in out
    assert "unknown card 'red-13'" in out
    assert "nothing typed" in out
    assert "no ocean card is to be removed now" in out
    assert "How to answer" in out  # h prints help
    assert "You quit the game." in out
    assert out.count("Your move (") == 1  # every bad line re-prompted the same decision
    assert "Traceback" not in proc.stderr


def test_end_of_input_quits_cleanly_and_saves_the_partial_record(tmp_path: Path) -> None:
    record = tmp_path / "partial.jsonl"
    proc = run_play(
        ["--players", "4", "--seed", "2", "--bots", "random", "--record", str(record)], "1\n1\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "You quit the game." in proc.stdout
    rec = load_record(record)
    assert rec.result is None and len(rec.decisions) >= 2
    replay_states(rec)  # a partial game replays too


def test_ctrl_c_saves_the_partial_record(tmp_path: Path) -> None:
    lines = iter(["1", "1"])

    def typed(prompt: str) -> str:
        line = next(lines, None)
        if line is None:
            raise KeyboardInterrupt  # as input() does on Ctrl-C
        return line

    record = tmp_path / "interrupted.jsonl"
    with pytest.raises(KeyboardInterrupt):
        play_game(
            Config(num_players=3), 0, [RandomBot(), RandomBot()], seed=2,
            input_fn=typed, out=io.StringIO(), record_path=str(record),
        )  # fmt: skip
    rec = load_record(record)
    assert rec.result is None and len(rec.decisions) >= 2
    replay_states(rec)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "6"], "--players must be in 3..5"),
        (["--players", "3", "--seat", "3"], "--seat must be in 0..2"),
        (["--players", "4", "--bots", "random", "random"], "--bots takes one bot"),
        (["--bots", "nonsense"], "unknown bot 'nonsense'"),
        # Checked before the game, which would otherwise be lost when saving fails.
        (["--record", "no_such_dir/game.jsonl"], "directory 'no_such_dir' does not exist"),
        (["--record", "tests"], "--record tests: is a directory; name a file"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(args: list[str], message: str) -> None:
    proc = run_play(args, "")
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and "Kanaloa:" not in proc.stdout  # no game started


def test_color_always_paints_the_table() -> None:
    proc = run_play(
        ["--players", "3", "--seed", "1", "--bots", "random", "--color", "always"], "q\n"
    )
    assert proc.returncode == 0 and "\x1b[" in proc.stdout


# ---- the input parser on known positions -------------------------------------------


def test_parse_move_follows_suit_and_names_the_reason() -> None:
    # SCENARIO.md's example: player 2 must follow blue (blue-3, blue-11 in hand).
    state = from_scenario(json.loads(SCENARIO.read_text()))
    moves = legal_moves(state)
    assert [m.action for m in moves] == sorted(np.flatnonzero(state.legal[0]).tolist())
    assert parse_move("1", state) == moves[0].action
    assert parse_move(" Blue-11 ", state) == card_from_name("blue-11")
    with pytest.raises(ValueError, match=r"red-11 may not be played: you hold blue.*R4\.3"):
        parse_move("red-11", state)
    with pytest.raises(ValueError, match="green-12 is not in your hand"):
        parse_move("green-12", state)
    with pytest.raises(ValueError, match="kanaloa is not in your hand"):
        parse_move("kanaloa", state)
    with pytest.raises(ValueError, match=f"there is no move {len(moves) + 1}"):
        parse_move(str(len(moves) + 1), state)
    with pytest.raises(ValueError, match="not understood"):
        parse_move("Q", state)  # quitting is the terminal loop's business, not a move


@pytest.mark.parametrize("text", ["²", "１", "٣", "1²", "#１"])
def test_parse_move_takes_ascii_digits_only(text: str) -> None:
    """Other Unicode digits are not move numbers: the usual 'not understood', not int()'s error."""
    state = from_scenario(json.loads(SCENARIO.read_text()))
    with pytest.raises(ValueError, match=f"not understood: '{text}'; type a move number 1"):
        parse_move(text, state)


def _first_state(config: Config, phase: Phase, seeds=range(50)):
    for seed in seeds:
        rec = record_bot_game(config, [RandomBot()] * config.num_players, seed=seed)
        for s in replay_states(rec):
            if s.phase[0] == phase:
                return s
    raise AssertionError(f"no {phase.name} position found")


def test_parse_move_announce_dolphin_and_removal_words() -> None:
    ann = _first_state(Config(num_players=3, nil_announcement=True), Phase.ANNOUNCE)
    assert parse_move("yes", ann) == ANNOUNCE and parse_move("no", ann) == NO_ANNOUNCE
    with pytest.raises(ValueError, match="not playing a card now"):
        parse_move("blue-3", ann)
    dol = _first_state(Config(num_players=3), Phase.DOLPHIN)
    assert parse_move("take", dol) == DOLPHIN_TAKE and parse_move("decline", dol) == DOLPHIN_DECLINE
    rem = _first_state(Config(num_players=3), Phase.REMOVE_OCTOPUS)
    moves = legal_moves(rem)
    assert all(REMOVE_BASE <= m.action < ANNOUNCE for m in moves)
    slot, cid = ocean_card_ahead(rem, moves[-1].action)
    assert f"#{cid}:" in moves[-1].label
    assert parse_move(f"#{cid}", rem) == moves[-1].action
    gone = sorted(set(range(12)) - {ocean_card_ahead(rem, m.action)[1] for m in moves})
    with pytest.raises(ValueError, match=f"ocean card #{gone[0]} cannot be removed now"):
        parse_move(f"#{gone[0]}", rem)


def test_the_table_lists_no_raw_actions_even_when_they_wrap() -> None:
    """The numbered moves replace the renderer's 'Legal:' list, wrapped lines included."""
    from kanaloa_env.games import get_game

    game = get_game("kanaloa")
    state = init(Config(num_players=4), 1, seed=0)  # 8 cards in hand: the list wraps
    full = game.render_text(state, 0, color=False)
    table = game.render_text(state, 0, color=False, legal=False)
    assert "Legal:" not in table
    full_lines, lines = full.splitlines(), table.splitlines()
    assert len(full_lines) - len(lines) >= 2  # the list wrapped onto a second line
    assert lines == full_lines[: len(lines)]  # and nothing else differs


@pytest.mark.parametrize("game_name", ["kanaloa", "kahuna"])
def test_a_whole_game_prints_no_raw_action_list(game_name: str) -> None:
    """Issue 19 item 10: a long legal-move list (8 cards at Kanaloa's first trick, 16
    moves at Kahuna's first turn) once wrapped past 80 columns and left a stray line of
    raw action ids under the hand. Over a whole game, every table the human sees ends
    without it, and the numbered moves follow the table and its events directly."""
    from kanaloa_env.games import get_game

    game = get_game(game_name)
    config = game.make_config({}, num_players=game.default_num_players)
    bots = [RandomBot()] * (game.default_num_players - 1)
    out = io.StringIO()
    answers = iter(["1"] * 5000)
    play_game(config, 0, bots, seed=0, input_fn=lambda prompt: next(answers), out=out)
    lines = out.getvalue().splitlines()
    assert not [ln for ln in lines if ln.startswith("Legal")]
    # A raw list entry is an action id and its name ("12 play red-1"); numbered moves
    # read "  1) play ...".
    raw = re.compile(r"^\s*\d+ [a-z]")
    assert not [ln for ln in lines if raw.match(ln)]
    prompts = [k for k, ln in enumerate(lines) if ln.startswith("Your move (")]
    assert len(prompts) >= 10
    for k in prompts:
        # Upwards from the prompt: the events (if any), then the table's last line.
        j = k - 1
        while lines[j].startswith("  - "):
            j -= 1
        if lines[j] in ("So far:", "Since your last move:"):
            j -= 1
        while lines[j].startswith(" " * 10):  # a hand too long for 80 columns goes on here
            j -= 1
        last = lines[j]
        if game_name == "kanaloa":
            assert last.startswith("Hand of player_0: "), last
        else:
            assert last.startswith("Hand of player_1 ("), last
        assert max(len(ln) for ln in lines[: k + 1]) <= 100


def test_a_record_that_cannot_be_saved_is_a_one_line_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kanaloa_env.records import GameRecord

    def refuse(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(GameRecord, "save", refuse)
    out = io.StringIO()
    answers = iter(["1"] * 2000)
    play_game(
        Config(num_players=3),
        0,
        [RandomBot(), RandomBot()],
        seed=3,
        input_fn=lambda prompt: next(answers),
        out=out,
        record_path=str(tmp_path / "game.jsonl"),
    )
    text = out.getvalue()
    assert "could not save the game record" in text and "No space left on device" in text
    assert "Traceback" not in text
