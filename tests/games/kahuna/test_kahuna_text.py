"""Kahuna's text table (games/kahuna/text.py) on hand-made positions and random games."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kahuna_kit import HOLD_ALOA, HOLD_GOLA, HOLD_LALE, act, e1, load, make

from kanaloa_env.core.kahuna import Config, init, public_view, step_inplace
from kanaloa_env.core.kanaloa import Config as KanaloaConfig
from kanaloa_env.core.kanaloa import init as kanaloa_init
from kanaloa_env.drawing.terminal import WIDTH, strip_ansi
from kanaloa_env.games.kahuna.text import PLAYER_FG, render_text
from kanaloa_env.render import render_text as render_any

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _line(text: str, start: str) -> str:
    found = [line for line in text.split("\n") if line.startswith(start)]
    assert len(found) == 1, f"one line starting with {start!r} expected in:\n{text}"
    return found[0]


def _unwrapped(text: str, start: str) -> str:
    """The line starting with `start` joined with its indented continuation lines."""
    lines = text.split("\n")
    i = lines.index(_line(text, start))
    out = lines[i]
    indent = out.index(": ") + 2  # `wrap` indents continuations by its prefix
    for line in lines[i + 1 :]:
        if not (line.startswith(" " * indent) and line[indent : indent + 1].strip()):
            break
        out += " " + line.strip()
    return out


def test_e1_plain_shows_the_whole_public_position_and_the_hand_to_act() -> None:
    text = render_text(load(e1()), color=False)
    assert "\x1b" not in text
    lines = text.split("\n")
    assert lines[0] == "Kahuna | round 2/3 | turn 41 | play phase | player_0 to act"
    assert lines[1] == "Points player_0 0, player_1 1  (scorings: 1st 0:1)"
    # The board: threshold, bridges of each player, holder and stone, two columns.
    assert _line(text, "ALOA").split() == ("ALOA 2 1 2 player_1 stone GOLA 3 - - -".split())
    assert _line(text, "BARI").split() == "BARI 3 2 1 - HUNA 3 2 3 player_1 stone".split()
    assert _line(text, "DUDA").split() == "DUDA 3 3 - player_0 stone JOJO 3 - 1 -".split()
    assert _line(text, "ELAI").split() == "ELAI 4 3 3 - KAHU 3 - - -".split()
    assert _unwrapped(text, "Bridges of player_0").split()[4:] == [
        "ALOA-DUDA", "BARI-ELAI", "BARI-FAAA", "DUDA-ELAI", "DUDA-HUNA", "ELAI-HUNA",
    ]  # fmt: skip
    assert _line(text, "Bridges of player_1").startswith("Bridges of player_1 (7): ALOA-BARI")
    free = _unwrapped(text, "Free lines").split()
    assert free[:3] == ["Free", "lines", "(14):"] and len(free) == 3 + 14
    assert "BARI-DUDA" in free and "ALOA-BARI" not in free
    # bridges and stones on the board and in supply, points, hand, face-down discards
    assert _line(text, " > player_0").split() == "> player_0 6 19 1 9 0 3 0".split()
    assert _line(text, "   player_1").split() == "player_1 7 18 2 8 1 4 0".split()
    assert _line(text, "Face-up row") == "Face-up row: 0 COCO | 1 IFFI | 2 LALE   Pile: 8 cards"
    assert _line(text, "Discards face up") == "Discards face up (6): BARI DUDA ELAI FAAA IFFI JOJO"
    assert _line(text, "Hand of player_0") == "Hand of player_0: ALOA DUDA KAHU"
    assert _line(text, "  player_1 knows") == "  player_1 knows: (none)"
    assert _line(text, "Hand of player_1") == "Hand of player_1 (4 cards): ? ? ? ?"
    legal = _unwrapped(text, "Legal").split(" | ")
    assert legal[0] == "Legal: 9 place BARI-DUDA with DUDA"
    assert legal[-3:] == ["150 take slot 2", "151 draw", "152 skip"]
    assert "Game over" not in text and "Note:" not in text


def test_seat_shows_that_hand_and_the_other_as_known_cards_and_backs() -> None:
    # After E1's step 4 White took COCO from the row: Black knows it (K6.7).
    s = act(load(e1()), 9, 0, 147, 148)
    text = render_text(s, color=False, seat=0)
    assert _line(text, "Hand of player_0") == "Hand of player_0: COCO KAHU"
    assert _line(text, "  player_1 knows") == "  player_1 knows: COCO"
    assert _line(text, "Hand of player_1") == "Hand of player_1 (4 cards): ? ? ? ?"
    assert "Legal" not in text  # player 1 is to act, not the hand shown
    to_act = render_text(s, color=False)
    assert _line(to_act, "Hand of player_1") == "Hand of player_1: ELAI GOLA HUNA HUNA"
    assert _line(to_act, "Hand of player_0") == "Hand of player_0 (2 cards): COCO ?"
    assert _line(to_act, "Legal").startswith("Legal: ")
    assert render_text(s, color=False, legal=False) == to_act.split("\nLegal: ")[0]


def test_own_face_down_discards_show_only_to_their_owner() -> None:
    sc = make(
        hands=(["ALOA"], ["BARI"]),
        discard_down=(["COCO"], ["DUDA", "DUDA"]),
        face_up=["ELAI", "FAAA", "GOLA"],
    )
    s = load(sc)
    mine = render_text(s, color=False, seat=0)
    assert _line(mine, "  own face-down discards") == "  own face-down discards: COCO"
    theirs = render_text(s, color=False, seat=1)
    assert _line(theirs, "  own face-down discards") == "  own face-down discards: DUDA DUDA"
    assert _line(mine, "   player_1").split()[-1] == "2"  # the count is public


def _swap_hidden(seen_by: int) -> tuple[dict, dict]:
    """Two scenarios that differ only in what player `seen_by` may not know (K12): the
    other hand beyond `known`, the other's face-down discards and the pile order."""
    a = make(
        bridges=(HOLD_ALOA, HOLD_LALE),
        hands=(["COCO", "DUDA"], ["ELAI", "FAAA", "GOLA"]),
        discard_down=(["HUNA"], ["IFFI"]),
        face_up=["JOJO", "KAHU", "KAHU"],
        pile=["BARI", "BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI", "JOJO"],
        known=[["COCO"], ["ELAI"]],
        to_act=seen_by,
    )
    b = make(
        bridges=(HOLD_ALOA, HOLD_LALE),
        hands=(["COCO", "DUDA"], ["ELAI", "FAAA", "GOLA"]),
        discard_down=(["HUNA"], ["IFFI"]),
        face_up=["JOJO", "KAHU", "KAHU"],
        pile=["JOJO", "IFFI", "HUNA", "GOLA", "FAAA", "ELAI", "DUDA", "COCO", "BARI", "BARI"],
        known=[["COCO"], ["ELAI"]],
        to_act=seen_by,
    )
    q = 1 - seen_by
    # The other player's unknown cards and face-down discard swapped with pile cards.
    b["hands"][q] = sorted((["ELAI", "BARI", "JOJO"] if q == 1 else ["COCO", "BARI"]), key=_order)
    b["discard_down"][q] = ["DUDA"] if q == 1 else ["BARI"]
    pool = a["hands"][q] + a["discard_down"][q] + a["pile"]
    for card in b["hands"][q] + b["discard_down"][q]:
        pool.remove(card)
    b["pile"] = pool
    return a, b


def _order(name: str) -> int:
    return ["ALOA", "BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI", "JOJO",
            "KAHU", "LALE"].index(name)  # fmt: skip


@pytest.mark.parametrize("seat", [0, 1])
def test_hidden_cards_and_the_pile_never_show(seat: int) -> None:
    a, b = _swap_hidden(seat)
    sa, sb = load(a), load(b, seed=9)
    assert sa.hands[0, 1 - seat] != sb.hands[0, 1 - seat]
    assert sa.discard_down[0, 1 - seat] != sb.discard_down[0, 1 - seat]
    for color in (False, True):
        assert render_text(sa, color=color, seat=seat) == render_text(sb, color=color, seat=seat)
    # The difference is visible from the other seat, so the check above can fail.
    assert render_text(sa, color=False, seat=1 - seat) != render_text(
        sb, color=False, seat=1 - seat
    )


def test_a_public_view_renders_like_the_state_it_hides() -> None:
    sc = make(
        hands=(["COCO", "DUDA"], ["ELAI", "FAAA", "GOLA"]),
        discard_down=(["HUNA"], ["IFFI", "IFFI"]),
        known=[[], ["FAAA"]],
        face_up=["JOJO", "KAHU", "KAHU"],
    )
    s = load(sc)
    assert render_text(public_view(s, 0), seat=0) == render_text(s, seat=0)
    text = render_text(public_view(s, 0), color=False, seat=0)
    assert _line(text, "Hand of player_1") == "Hand of player_1 (3 cards): FAAA ? ?"


def test_colour_codes_only_add_escapes_and_follow_the_player_colours() -> None:
    s = act(load(e1()), 9, 0, 147, 148)
    for seat in (None, 0, 1):
        coloured = render_text(s, color=True, seat=seat)
        assert ANSI.sub("", coloured) == render_text(s, color=False, seat=seat)
    coloured = render_text(s)
    assert f"{PLAYER_FG[0]}player_0\x1b[0m" in coloured
    assert f"{PLAYER_FG[1]}player_1\x1b[0m" in coloured
    # A wrapped list under a coloured prefix lines up with its first line.
    lines = strip_ansi(coloured).split("\n")
    i = next(k for k, line in enumerate(lines) if line.startswith("Bridges of player_0"))
    assert lines[i + 1].startswith(" " * len("Bridges of player_0 (8): ") + "DUDA-ELAI")


def test_flags_final_turn_skip_and_hand_back() -> None:
    final = make(
        bridges=(HOLD_ALOA, HOLD_LALE), hands=(["COCO"], []), face_up=[None, None, None],
        pile=[], scorings=[[1, 0], [0, 2]], final_turns_left=2,
    )  # fmt: skip
    text = render_text(load(final), color=False)
    assert "| final turn | player_0 to act" in text.split("\n")[0]
    assert _line(text, "Note:") == (
        "Note: final turn 1 of 2: place, remove or end; no discard, no draw (K3.3)"
    )
    skipped = make(hands=(["COCO"], []), last_turn_skipped=True)
    assert _line(render_text(load(skipped), color=False), "Note:") == (
        "Note: player_1 skipped last turn: no skip now (K6.3)"
    )
    five = make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []), phase="draw")
    s = act(load(five), "discard ALOA")
    assert _line(render_text(s, color=False), "Note:") == (
        "Note: a card was handed back: take or draw, no skip (K6.4)"
    )


def _over(**fields) -> str:
    return render_text(load(make(to_act=None, phase="game_over", **fields)), color=False)


def test_results_name_the_winner_and_the_reason() -> None:
    done = {"face_up": [None, None, None], "pile": []}
    text = _over(
        bridges=(HOLD_ALOA + HOLD_GOLA, HOLD_LALE), scorings=[[1, 0], [0, 2], [1, 0]],
        winner=0, end_reason="final_scoring", **done,
    )  # fmt: skip
    assert text.split("\n")[0] == "Kahuna | round 3/3 | 10 turns played | game over"
    assert _unwrapped(text, "Game over") == (
        "Game over: player_0 wins the game: 2 points each, more in the third scoring (1 to 0, K8.1)"
    )
    assert _line(text, " W player_0")  # the winner is marked
    assert "Hand of" not in text and "Legal" not in text
    text = _over(
        bridges=(HOLD_ALOA, HOLD_LALE), scorings=[[0, 0], [2, 0], [0, 0]],
        winner=0, end_reason="final_scoring", **done,
    )  # fmt: skip
    assert text.endswith("Game over: player_0 wins the game with 2 points to 0")
    text = _over(
        bridges=(["ALOA-BARI"], ["COCO-GOLA", "IFFI-LALE"]), stones=([], []),
        scorings=[[0, 0], [0, 0], [0, 0]], winner=1, end_reason="final_scoring", **done,
    )  # fmt: skip
    assert _unwrapped(text, "Game over").endswith("more bridges on the board (2 to 1, K8.1)")
    text = _over(
        bridges=(["ALOA-BARI"], ["COCO-GOLA"]), stones=([], []),
        scorings=[[0, 0], [0, 0], [0, 0]], winner=None, end_reason="final_scoring", **done,
    )  # fmt: skip
    assert _unwrapped(text, "Game over") == (
        "Game over: the game is a draw: 0:0 points and 1:1 bridges on the board (K8.1)"
    )
    text = _over(bridges=([], HOLD_LALE), scorings=[[0, 1]], winner=1, end_reason="early_end")
    assert _unwrapped(text, "Game over") == (
        "Game over: player_0 has no bridge on the board: player_1 wins (early end, K8.2)"
    )
    text = _over(bridges=([], []), scorings=[[0, 0]], winner=None, end_reason="early_end")
    assert _unwrapped(text, "Game over") == (
        "Game over: neither player has a bridge on the board: the game is a draw (early end, K8.2)"
    )
    sc = make(to_act=None, phase="game_over", winner=None, end_reason="truncated", turn=30)
    sc["config"] = {"max_turns": 30}
    text = render_text(load(sc), color=False)
    assert _unwrapped(text, "Game over") == (
        "Game over: the game stops after 30 turns (max_turns=30, K9.1): no winner"
    )


def test_lines_fit_80_columns_in_every_phase_of_random_games() -> None:
    state = init(Config(stones_per_player=12), 4, seed=11)
    rng = np.random.default_rng(11)
    seen = set()
    while not state.done.all():
        for g in range(4):
            seen.add((int(state.phase[g]), int(state.final_turns_left[g])))
            for seat in (None, 0, 1):
                for color in (False, True):
                    for line in render_text(state, g, color=color, seat=seat).split("\n"):
                        assert len(ANSI.sub("", line)) <= WIDTH, line
        legal = state.legal
        picks = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in legal])
        step_inplace(state, picks)
    for g in range(4):
        for line in render_text(state, g, seat=0).split("\n"):
            assert len(ANSI.sub("", line)) <= WIDTH, line
    # play, draw, both final turns and a finished game were all drawn
    assert {(0, 0), (1, 0), (0, 2), (0, 1)} <= seen and any(ph == 2 for ph, _ in seen)


def test_the_render_package_dispatches_to_kahuna() -> None:
    s = load(e1())
    assert render_any(s, 0, color=False) == render_text(s, color=False)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"i": 1}, ValueError, r"game index i must be in 0..0, got 1"),
        ({"i": -1}, ValueError, r"game index i must be in 0..0"),
        ({"i": 0.0}, TypeError, r"game index i must be an int in 0..0, got 0.0"),
        ({"i": True}, TypeError, r"game index i must be an int"),
        ({"seat": 2}, ValueError, r"seat must be in 0..1, got 2"),
        ({"seat": "0"}, TypeError, r"seat must be None or an int in 0..1, got '0'"),
        ({"seat": False}, TypeError, r"seat must be None or an int"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        render_text(load(e1()), **kwargs)


def test_a_state_of_another_game_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kahuna.State"):
        render_text(kanaloa_init(KanaloaConfig(), 1, seed=0))  # type: ignore[arg-type]
