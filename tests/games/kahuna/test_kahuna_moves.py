"""Kahuna at the terminal (games/kahuna/moves.py): numbered moves, the typed notation and
its round trips, the reasons a typed move is refused, prompts and the final lines."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kahuna_kit import HOLD_ALOA, HOLD_GOLA, HOLD_LALE, act, e1, load, make

from kanaloa_env.core.kahuna import Config, action_name, init, step
from kanaloa_env.core.kahuna.constants import LINE_NAMES
from kanaloa_env.drawing.terminal import strip_ansi
from kanaloa_env.games import get_game
from kanaloa_env.games.kahuna.describe import describe_action
from kanaloa_env.games.kahuna.moves import (
    HELP_TEXT,
    final_lines,
    legal_moves,
    notation,
    parse_move,
    turn_prompt,
)


def _notation(label: str) -> str:
    return strip_ansi(label).split("  (")[0]


def test_e1_moves_are_numbered_with_their_words_and_effects() -> None:
    moves = legal_moves(load(e1()))
    assert [m.number for m in moves] == list(range(1, len(moves) + 1))
    assert [m.action for m in moves] == np.flatnonzero(load(e1()).legal[0]).tolist()
    labels = {m.action: m.label for m in moves}
    assert labels[9] == (
        "place bridge BARI-DUDA, pay DUDA  (claims BARI, 1 of theirs off, they lose ALOA)"
    )
    assert labels[19] == "place bridge COCO-KAHU, pay KAHU"
    assert labels[135] == "discard ALOA  (face down, no other effect)"
    assert labels[147] == "end play  (to the draw phase, to hand back cards)"
    assert labels[148] == "take COCO from slot 0  (ends your turn)"
    assert labels[151] == "draw from the pile  (8 cards there, face down; ends your turn)"
    assert labels[152] == "skip the draw  (take no card; ends your turn)"
    # Black's turn in E1: the removal frees HUNA+HUNA's line; the claim takes two islands.
    s = act(load(e1()), 9, 0, 147, 148)
    labels = {m.action: m.label for m in legal_moves(s)}
    assert labels[94] == "remove opponent's bridge ELAI-HUNA, pay HUNA+HUNA"
    s = act(s, 94)
    labels = {m.action: m.label for m in legal_moves(s)}
    assert (
        labels[26]
        == "place bridge ELAI-HUNA, pay ELAI  (claims ELAI and HUNA, 3 of theirs off, they lose DUDA)"
    )
    assert 27 not in labels  # both HUNA cards were spent on the removal


def test_colour_only_paints_the_notation() -> None:
    s = load(e1())
    plain = legal_moves(s)
    coloured = legal_moves(s, color=True)
    assert all("\x1b[" in m.label for m in coloured)
    assert [strip_ansi(m.label) for m in coloured] == [m.label for m in plain]


def _random_positions(n_games: int, seed: int) -> list:
    """Every position of a few random games, several configs (final turns, draw
    phases, hand-backs and the stricter discard rules included)."""
    out = []
    rng = np.random.default_rng(seed)
    configs = [
        Config(),
        Config(discard_rule="no_legal_play"),
        Config(discard_rule="unplayable_cards"),
    ]
    for k in range(n_games):
        s = init(configs[k % 3], 1, seed=seed + k)
        while not s.done[0]:
            out.append(s)
            s = step(s, np.array([rng.choice(np.flatnonzero(s.legal[0]))]))
    return out


def test_every_legal_move_of_random_positions_round_trips() -> None:
    positions = _random_positions(6, seed=40)
    kinds = set()
    for s in positions:
        moves = legal_moves(s)
        assert moves and [m.action for m in moves] == np.flatnonzero(s.legal[0]).tolist()
        for m in moves:
            kinds.add(action_name(m.action).split()[0])
            assert parse_move(str(m.number), s) == m.action
            assert parse_move(_notation(m.label), s) == m.action
            assert parse_move(_notation(m.label).upper(), s) == m.action
            assert parse_move(notation(s, m.action), s) == m.action
            assert parse_move(action_name(m.action), s) == m.action
            assert parse_move(describe_action(s, m.action), s) == m.action
    assert kinds == {"place", "remove", "discard", "end", "take", "draw", "skip"}
    assert len(positions) > 500


@pytest.mark.parametrize(
    ("typed", "action"),
    [
        ("p bari-duda duda", 9),
        ("P DUDA-BARI DUDA", 9),  # either way round, any case
        ("place bari duda duda", 9),  # the hyphen is optional
        ("p bari-duda", 9),  # only DUDA can pay
        ("d kahu", 145),
        ("discard KAHU", 145),
        ("e", 147),
        ("end play", 147),
        ("t 2", 150),
        ("take lale", 150),  # the island shown in the slot
        ("take LALE from slot 2", 150),
        ("draw", 151),
        ("s", 152),
        ("skip the draw", 152),
        ("  12  ", 152 - 3),  # move 12 is take slot 1 (see the E1 labels)
    ],
)
def test_short_notations_in_e1(typed: str, action: int) -> None:
    assert parse_move(typed, load(e1())) == action


def test_hand_back_and_removal_notations() -> None:
    five = load(make(hands=(["ALOA", "BARI", "COCO", "COCO", "ELAI"], []), phase="draw"))
    assert parse_move("hand back coco", five) == 137
    assert parse_move("back coco", five) == 137
    s = act(load(e1()), 9, 0, 147, 148)  # Black to act, with HUNA HUNA ELAI GOLA
    assert parse_move("r elai-huna huna huna", s) == 94
    assert parse_move("remove HUNA-ELAI huna+huna", s) == 94
    assert parse_move("remove elai-huna elai huna", s) == 95
    with pytest.raises(ValueError, match=r"which one\? 'remove ELAI-HUNA HUNA HUNA' or "):
        parse_move("r elai-huna", s)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "nothing typed: type a move number 1..15"),
        ("0", "there is no move 0: type a move number 1..15"),
        ("16", "there is no move 16"),
        ("²", "not understood: '²'"),
        ("fly away", "not understood: 'fly away'"),
        ("p atlantis-aloa aloa", "unknown island 'atlantis'; islands are ALOA, BARI"),
        ("p aloa-coco aloa", "no line joins ALOA and COCO; ALOA's lines go to BARI, DUDA, HUNA"),
        ("p aloa-aloa", "a line joins two islands, got ALOA twice"),
        ("p aloa-duda coco", "the card must name an end of ALOA-DUDA: ALOA or DUDA"),
        ("p aloa-bari aloa", "ALOA-BARI holds the opponent's bridge: remove it first"),
        ("p aloa-duda aloa", "ALOA-DUDA already holds your bridge"),
        ("p bari-coco", "placing on BARI-COCO needs a BARI or COCO card; you hold ALOA DUDA KAHU"),
        ("p bari-coco coco", "you hold no COCO card"),
        ("p", "place where\\? e.g. 'place aloa-bari aloa'"),
        ("r aloa-duda", "ALOA-DUDA is your own bridge: only the opponent's can be removed"),
        ("r bari-coco", "there is no bridge of the opponent on BARI-COCO"),
        ("r aloa-bari", "removing ALOA-BARI needs two ALOA, two BARI or one of each; you hold"),
        ("r aloa-bari aloa aloa", "removing with ALOA\\+ALOA needs those two cards in hand"),
        ("r aloa-bari aloa coco", "the two cards must name ends of ALOA-BARI"),
        ("d coco", "you hold no COCO card"),
        ("d", "discard which card\\?"),
        ("take 3", "the face-up slots are 0, 1 and 2, got 3"),
        ("take bari", "BARI is not in the face-up row"),
        ("take coco 1", "slot 1 does not show COCO"),
        ("take", "take what\\?"),
        ("draw 2", "draw takes nothing after it"),
    ],
)
def test_refused_moves_say_why(typed: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message) if "\\" not in message else message):
        parse_move(typed, load(e1()))


def test_draw_phase_final_turn_full_hand_skip_and_supply_reasons() -> None:
    drawing = act(load(e1()), 147)
    with pytest.raises(ValueError, match="you ended play: now hand back cards, or take"):
        parse_move("p bari-duda duda", drawing)
    with pytest.raises(ValueError, match="you may hand back cards only with 5 cards"):
        parse_move("d aloa", drawing)
    final = load(
        make(bridges=(HOLD_ALOA, HOLD_LALE), hands=(["COCO"], []), face_up=[None, None, None],
             pile=[], scorings=[[1, 0], [0, 2]], final_turns_left=2)
    )  # fmt: skip
    for typed in ("draw", "skip", "d coco", "take 0"):
        with pytest.raises(ValueError, match="this is a final turn: only place, remove and end"):
            parse_move(typed, final)
    full = load(make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], [])))
    with pytest.raises(ValueError, match="your hand is full \\(5 cards\\): end play, then hand"):
        parse_move("draw", full)
    full_draw = load(
        make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []), phase="draw",
             last_turn_skipped=True)
    )  # fmt: skip
    with pytest.raises(ValueError, match="your hand is full \\(5 cards\\): hand back a card"):
        parse_move("take 0", full_draw)
    with pytest.raises(ValueError, match="the opponent skipped last turn: you must take or draw"):
        parse_move("skip", full_draw)
    handed = act(
        load(make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []), phase="draw")),
        "discard ALOA",
    )
    with pytest.raises(ValueError, match="you handed back a card: now take or draw"):
        parse_move("skip", handed)
    empty_pile = load(make(hands=(["ALOA"], []), face_up=["COCO", None, None], pile=[]))
    with pytest.raises(ValueError, match="the pile is empty: take a face-up card"):
        parse_move("draw", empty_pile)
    with pytest.raises(ValueError, match="slot 1 is empty"):
        parse_move("take 1", empty_pile)
    strict = make(hands=(["ALOA", "COCO"], []))
    strict["config"] = {"discard_rule": "no_legal_play"}
    with pytest.raises(
        ValueError, match="discarding ALOA is not allowed now \\(discard_rule='no_legal_play'"
    ):
        parse_move("d aloa", load(strict))
    # 25 bridges on the board: the supply is empty (K1.5).
    mine = [n for n in LINE_NAMES if n not in ("ALOA-BARI", "ALOA-DUDA")]
    stones = ["BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI", "JOJO", "KAHU"]
    no_supply = load(make(bridges=(mine, []), stones=(stones, []), hands=(["ALOA"], [])))
    with pytest.raises(ValueError, match="you have no bridge left in your supply"):
        parse_move("p aloa-bari aloa", no_supply)


def test_a_finished_game_has_no_moves() -> None:
    over = load(make(to_act=None, phase="game_over", bridges=([], HOLD_LALE), scorings=[[0, 1]],
                     winner=1, end_reason="early_end"))  # fmt: skip
    assert legal_moves(over) == []
    with pytest.raises(ValueError, match="the game is over"):
        parse_move("1", over)
    assert turn_prompt(over) == "the game is over"


def test_turn_prompts_address_the_player() -> None:
    assert turn_prompt(load(e1())) == (
        "you play cards (place, remove, discard) or end your turn by taking, drawing or skipping"
    )
    assert turn_prompt(act(load(e1()), 147)) == (
        "you hand back cards, or end your turn by taking, drawing or skipping"
    )
    stuck = load(
        make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []), phase="draw",
             last_turn_skipped=True)
    )  # fmt: skip
    assert turn_prompt(stuck) == "your hand is full: hand back a card, then draw"
    final = load(
        make(bridges=(HOLD_ALOA, HOLD_LALE), hands=(["COCO"], []), face_up=[None, None, None],
             pile=[], scorings=[[1, 0], [0, 2]], final_turns_left=2)
    )  # fmt: skip
    assert turn_prompt(final) == "your final turn: place or remove bridges, then end"


def test_help_text_examples_parse() -> None:
    # Each notation the help shows, in a position where it is legal.
    s = act(load(e1()), 9, 0, 147, 148)
    assert parse_move("remove ELAI-HUNA HUNA HUNA", s) == 94
    assert parse_move("take 0", load(e1())) == 148
    for example in ("place ALOA-BARI ALOA", "discard COCO", "take COCO", "end", "draw", "skip"):
        assert example in HELP_TEXT
    free = load(make(hands=(["ALOA", "COCO"], []), face_up=["COCO", "DUDA", "ELAI"]))
    assert parse_move("place ALOA-BARI ALOA", free) == 0
    assert parse_move("discard COCO", free) == 137
    assert parse_move("take COCO", free) == 148
    assert get_game("kahuna").move_help() == HELP_TEXT
    assert max(len(line) for line in HELP_TEXT.splitlines()) <= 80


def test_final_lines_give_the_result_and_the_standing() -> None:
    done = {"face_up": [None, None, None], "pile": []}
    s = load(
        make(to_act=None, phase="game_over", bridges=(HOLD_ALOA + HOLD_GOLA, HOLD_LALE),
             scorings=[[1, 0], [0, 2], [1, 0]], winner=0, end_reason="final_scoring", **done)
    )  # fmt: skip
    lines = final_lines(s, ["Ann (you)", "Bob"])
    assert lines == [
        "Game over: Ann (you) wins the game: 2 points each, more in the third scoring (1 to 0, K8.1).",
        "  points         1st   2nd   3rd  total   stones  bridges",
        "  Ann (you)        1     0     1      2        2        5",
        "  Bob              0     2     0      2        1        2",
    ]
    coloured = final_lines(s, ["Ann (you)", "Bob"], color=True)
    assert [strip_ansi(x) for x in coloured] == lines and "\x1b[" in coloured[0]
    early = load(make(to_act=None, phase="game_over", bridges=([], HOLD_LALE), scorings=[[0, 1]],
                      winner=1, end_reason="early_end"))  # fmt: skip
    lines = final_lines(early, ["player_0 (you)", "player_1"])
    assert lines[0] == (
        "Game over: player_0 (you) has no bridge on the board: player_1 wins (early end, K8.2)."
    )
    assert lines[2].split() == ["player_0", "(you)", "0", "-", "-", "0", "0", "0"]
    with pytest.raises(ValueError, match="names must name both seats"):
        final_lines(early, ["one"])


def test_bad_input_types() -> None:
    with pytest.raises(TypeError, match="a typed move must be a str"):
        parse_move(3, load(e1()))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="state must be a Kahuna State"):
        legal_moves("state")  # type: ignore[arg-type]
