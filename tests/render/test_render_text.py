"""The text renderer on hand-built and played positions (kanaloa_env.render.text)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.core.kanaloa import Config, from_scenario, init, step_inplace, to_scenario
from kanaloa_env.core.kanaloa.constants import REMOVE_BASE
from kanaloa_env.drawing.terminal import WIDTH
from kanaloa_env.render import render_text

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "scenario_md_example.json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _example() -> dict:
    return json.loads(SCENARIO.read_text())


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _line(text: str, start: str) -> str:
    found = [line for line in _lines(text) if line.startswith(start)]
    assert len(found) == 1, f"one line starting with {start!r} expected in:\n{text}"
    return found[0]


def _play(config: Config, seed: int, until) -> object:
    """Random legal play from `init(config, 1, seed)` until `until(state)` holds."""
    state = init(config, 1, seed=seed)
    rng = np.random.default_rng(seed)
    while not until(state):
        assert not state.done[0], "the game ended first"
        step_inplace(state, np.array([rng.choice(np.flatnonzero(state.legal[0]))]))
    return state


def _unwrapped(text: str, start: str) -> str:
    """The line starting with `start` joined with its wrapped continuation lines."""
    lines = _lines(text)
    i = lines.index(_line(text, start))
    out = lines[i]
    for line in lines[i + 1 :]:
        if not line.startswith("    "):
            break
        out += " " + line.strip()
    return out


def test_scenario_md_example_plain() -> None:
    # SCENARIO.md: 3 players; route cards 6,4,2,1,10,3,11,7,5,0; all boats on field 19
    # (the blue start field); player 0 led blue-1, player 1 played blue-2; player 2 to act.
    text = render_text(from_scenario(_example()), color=False)
    assert "\x1b" not in text
    assert (
        _lines(text)[0] == "Kanaloa | 3 players | round 1/100 | trick 1/8 | trump blue | lead blue"
    )
    assert "20 fields, 10 cards, 2 removed" in _line(text, "Route: ")  # replay reads "Route:"
    assert _line(text, "field ").split()[1:] == [str(k) for k in range(20)]
    colours = "G R B T B G B~ R T G B G~ G T~ G R~ B T~ R B*".split()
    cells_line = _lines(text)[3]
    cells = [cells_line[6 + 3 * k : 8 + 3 * k].strip() for k in range(20)]
    assert cells == colours
    # The three boats stack under field 19.
    boats = _lines(text)[4:7]
    assert [row[6 + 3 * 19 :].strip() for row in boats] == ["0", "1", "2"]
    assert all(row[: 6 + 3 * 19].strip() in ("", "boats") for row in boats)
    assert _line(text, " > player_2").split() == [">", "player_2", "19", "+0", "21", "0"]
    assert _line(text, "Trick") == "Trick (led by player_0): player_0 blue-1, player_1 blue-2"
    assert _line(text, "player_2 to act") == "player_2 to act: plays a card"
    assert _line(text, "Hand of player_2") == (
        "Hand of player_2: blue-3 blue-11 red-4 red-5 red-11 green-2 green-3 green-7"
    )
    assert _line(text, "Legal") == "Legal: 2 blue-3 | 10 blue-11"  # R4.3: follow blue


def test_seat_shows_that_hand_without_legal_actions() -> None:
    text = render_text(from_scenario(_example()), color=False, seat=0)
    assert _unwrapped(text, "Hand of player_0") == (
        "Hand of player_0: red-6 green-1 green-9 green-10 turquoise-3 turquoise-7 turquoise-11"
    )
    assert "Hand of player_2" not in text and "Legal" not in text
    assert "player_2 to act" in text


def test_colour_codes_only_add_escapes() -> None:
    state = from_scenario(_example())
    coloured = render_text(state, color=True)
    assert "\x1b[" in coloured
    assert "\x1b[97;44mB*\x1b[0m" in coloured  # the blue start field on a blue background
    assert "\x1b[94mblue-3\x1b[0m" in coloured  # cards in their suit's colour
    assert ANSI.sub("", coloured) == render_text(state, color=False)


def test_lines_fit_the_width_for_every_table_and_phase() -> None:
    for P in (3, 4, 5):
        cfg = Config(num_players=P, nil_announcement=True)
        state = init(cfg, 1, seed=P)
        rng = np.random.default_rng(P)
        while True:
            for color in (False, True):
                for line in _lines(render_text(state, color=color)):
                    assert len(ANSI.sub("", line)) <= WIDTH, line
            if state.done[0]:
                break
            step_inplace(state, np.array([rng.choice(np.flatnonzero(state.legal[0]))]))


def test_announce_column_and_phase() -> None:
    state = _play(
        Config(num_players=4, nil_announcement=True),
        1,
        lambda s: (s.announced[0] >= 0).sum() == 2,
    )
    text = render_text(state, color=False)
    assert "announced" in _line(text, "   player    field")
    sp = int(state.starting_player[0])
    for k in range(4):
        p = (sp + k) % 4
        row = [line for line in _lines(text) if re.match(rf"^ [ >W] player_{p} ", line)][0]
        want = {-1: "-", 0: "no", 1: "YES"}[int(state.announced[0, p])]
        assert row.split()[-1] == want
    assert "decides whether to announce no tricks" in text
    assert _line(text, "Legal") == "Legal: 62 announce no tricks | 63 do not announce"


def test_removal_actions_name_the_card_the_core_removes() -> None:
    state = _play(
        Config(num_players=4),
        5,
        lambda s: s.legal[0, REMOVE_BASE:62].sum() >= 3,
    )
    text = render_text(state, color=False)
    legal = _unwrapped(text, "Legal")
    for a in np.flatnonzero(state.legal[0, REMOVE_BASE:62]) + REMOVE_BASE:
        shown = int(re.search(rf"\b{a} remove fields \d+-\d+ \(card (\d+)\)", legal).group(1))
        after = state.copy()
        step_inplace(after, np.array([a]))
        gone = {c["id"] for c in to_scenario(state)["route"]} - {
            c["id"] for c in to_scenario(after)["route"]
        }
        assert gone == {shown}


def test_game_over_shows_winner_and_rewards() -> None:
    state = _play(Config(num_players=3), 2, lambda s: bool(s.done[0]))
    text = render_text(state, color=False)
    w = int(state.winner[0])
    assert _line(text, "Game over") == (
        f"Game over: player_{w} won by lapping the last boat (R9.2) in round {int(state.round[0])}"
    )
    assert _line(text, f" W player_{w}")
    assert "+1.00" in _line(text, "Rewards of the last step") and "-0.50" in text
    assert "to act" not in text and "Legal" not in text and "Hand" not in text
    assert "Hand of player_1" in render_text(state, color=False, seat=1)


def test_truncated_game() -> None:
    state = _play(Config(num_players=4, max_rounds=1), 3, lambda s: bool(s.done[0]))
    assert state.truncated[0]
    text = render_text(state, color=False)
    assert "stopped after max_rounds=1 (truncated, R9.4)" in text


def test_game_index_in_a_batch() -> None:
    batch = init(Config(num_players=5), 4, seed=9)
    assert render_text(batch, i=2) == render_text(batch.take([2]))
    assert render_text(batch, i=2) != render_text(batch, i=1)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"i": 1}, ValueError, "game index i must be in 0..0"),
        ({"i": -1}, ValueError, "game index i"),
        ({"i": 0.0}, TypeError, "game index i must be an int"),
        ({"seat": 3}, ValueError, "seat must be in 0..2"),
        ({"seat": "1"}, TypeError, "seat"),
    ],
)
def test_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        render_text(from_scenario(_example()), **kwargs)
    with pytest.raises(TypeError, match="State"):
        render_text(_example())
