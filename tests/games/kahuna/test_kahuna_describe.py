"""Kahuna's decisions in words (games/kahuna/describe.py): the E1 steps, claims without
stones, exhaustion, scorings, final turns, every kind of end, and what stays hidden."""

from __future__ import annotations

import numpy as np
import pytest
from kahuna_kit import HOLD_ALOA, HOLD_GOLA, HOLD_LALE, act, e1, index, load, make

from kanaloa_env.core.kahuna import NUM_ACTIONS, action_name
from kanaloa_env.core.kahuna.constants import LINE_NAMES, LINES
from kanaloa_env.games import get_game
from kanaloa_env.games.kahuna.describe import describe_action, describe_step
from kanaloa_env.records import describe_step as describe_any

# E1 (KAHUNA-RULES.md): every claim, removal and stone loss its table names.
E1_STEPS = [
    (9, [
        "player 0 places a bridge on BARI-DUDA, paying DUDA",
        "player 0 claims BARI (3 of its 5 lines) and puts a stone on it",
        "player 1's bridge on ALOA-BARI goes back (K5.3)",
        "player 1 no longer holds ALOA: the stone goes back (K5.4)",
    ]),
    (0, [
        "player 0 places a bridge on ALOA-BARI, paying ALOA",
        "player 0 claims ALOA (2 of its 3 lines) and puts a stone on it",
        "player 1's bridge on ALOA-HUNA goes back (K5.3)",
        "player 1 no longer holds HUNA: the stone goes back (K5.4)",
    ]),
    (147, ["player 0 ends play (draw phase: hand back cards, then draw or skip)"]),
    (148, [
        "player 0 takes COCO from slot 0",
        "BARI is turned up from the pile into slot 0 (7 left)",
        "end of turn 41: player 1 to act (turn 42)",
    ]),
    (94, ["player 1 removes player 0's bridge on ELAI-HUNA, paying HUNA+HUNA"]),
    (26, [
        "player 1 places a bridge on ELAI-HUNA, paying ELAI",
        "player 1 claims ELAI (4 of its 6 lines) and puts a stone on it",
        "player 0's bridges on BARI-ELAI, DUDA-ELAI go back (K5.3)",
        "player 1 claims HUNA (3 of its 5 lines) and puts a stone on it",
        "player 0's bridge on DUDA-HUNA goes back (K5.3)",
        "player 0 no longer holds DUDA: the stone goes back (K5.4)",
    ]),
    (147, ["player 1 ends play (draw phase: hand back cards, then draw or skip)"]),
    (151, [
        "player 1 draws a card from the pile (6 left)",
        "end of turn 42: player 0 to act (turn 43)",
    ]),
]  # fmt: skip


def test_e1_steps_tell_every_claim_removal_and_stone_loss() -> None:
    s = load(e1())
    for action, expected in E1_STEPS:
        after = act(s, action)
        assert describe_step(s, action, after) == expected, action_name(action)
        s = after


def test_e1_actions_in_words() -> None:
    s = load(e1())
    assert describe_action(s, 9) == "place a bridge on BARI-DUDA, paying DUDA"
    assert describe_action(s, 94) == ("remove the opponent's bridge on ELAI-HUNA, paying HUNA+HUNA")
    assert describe_action(s, 148) == "take COCO from slot 0"  # the island in the slot
    assert describe_action(s, 150) == "take LALE from slot 2"
    assert describe_action(s, 135) == "discard ALOA face down"
    assert describe_action(s, 147) == "end play"
    assert describe_action(s, 151) == "draw from the pile"
    assert describe_action(s, 152) == "skip the draw"
    assert describe_action(act(s, 147), 135) == "hand back ALOA face down"
    # Every action has words, legal or not.
    assert all(describe_action(s, a) for a in range(NUM_ACTIONS))


def test_names_replace_the_default_player_words() -> None:
    s = load(e1())
    after = act(s, 9)
    said = describe_step(s, 9, after, names=["White", "Black"])
    assert said[0] == "White places a bridge on BARI-DUDA, paying DUDA"
    assert said[2] == "Black's bridge on ALOA-BARI goes back (K5.3)"
    # The protocol and the records dispatch to the same words.
    assert get_game("kahuna").describe_step(s, 9, after) == describe_step(s, 9, after)
    assert describe_any(s, 9, after, names=["W", "B"]) == describe_step(
        s, 9, after, names=["W", "B"]
    )


def _last_stone_position() -> dict:
    """Player 0 holds ten islands with nine stones (one left of ten) and places
    KAHU-LALE with LALE, claiming both ends (K5.2: the card's island first)."""
    kahu_lale = LINE_NAMES.index("KAHU-LALE")
    skip = {kahu_lale} | {LINE_NAMES.index(n) for n in ("IFFI-LALE", "IFFI-KAHU", "JOJO-KAHU")}
    mine = [LINE_NAMES[n] for n in range(len(LINES)) if n not in skip]
    held = ["ALOA", "BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI"]
    return make(
        bridges=(mine, ["IFFI-KAHU", "IFFI-LALE", "JOJO-KAHU"]),
        stones=(held, []),
        hands=(["LALE"], []),
    )


def test_a_claim_without_a_stone_left_is_unmarked_and_still_sends_bridges_back() -> None:
    s = load(_last_stone_position())
    a = index("place KAHU-LALE with LALE")
    assert describe_step(s, a, act(s, a)) == [
        "player 0 places a bridge on KAHU-LALE, paying LALE",
        "player 0 claims LALE (2 of its 3 lines) and puts a stone on it",
        "player 1's bridge on IFFI-LALE goes back (K5.3)",
        "player 0 claims KAHU (3 of its 5 lines) but has no stone left: KAHU stays unmarked (K5.3)",
        "player 1's bridges on IFFI-KAHU, JOJO-KAHU go back (K5.3)",
    ]


def test_draws_and_face_down_discards_stay_public_unless_told_for_the_drawer() -> None:
    sc = make(hands=(["ALOA", "BARI"], []), face_up=["COCO", "DUDA", "ELAI"])
    s = load(sc)
    top = sc["pile"][0]
    after = act(s, "draw")
    assert describe_step(s, 151, after)[0] == "player 0 draws a card from the pile (18 left)"
    assert describe_step(s, 151, after, seat=1)[0] == describe_step(s, 151, after)[0]
    assert describe_step(s, 151, after, seat=0)[0] == (
        f"player 0 draws {top} from the pile (18 left)"
    )
    # The public words do not depend on the card: another pile top, the same sentence.
    other = dict(sc, pile=sc["pile"][::-1])
    assert other["pile"][0] != top
    s2 = load(other)
    assert describe_step(s2, 151, act(s2, "draw")) == describe_step(s, 151, after)
    a = index("discard BARI")
    gone = act(s, a)
    assert describe_step(s, a, gone) == ["player 0 discards a card face down"]
    assert describe_step(s, a, gone, seat=0) == ["player 0 discards BARI face down"]
    five = load(make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []), phase="draw"))
    a = index("discard COCO")
    assert describe_step(five, a, act(five, a)) == ["player 0 hands back a card face down"]


def test_take_from_the_last_pile_card_leaves_the_slot_empty_and_scores() -> None:
    s = load(
        make(bridges=(HOLD_ALOA, ["COCO-GOLA"]), hands=([], []), face_up=["COCO", None, None],
             pile=[])
    )  # fmt: skip
    after = act(s, "take slot 0")
    said = describe_step(s, 148, after)
    row = ", ".join(["ALOA", "BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI",
                     "JOJO", "KAHU", "LALE"][int(c)] for c in after.face_up[0])  # fmt: skip
    assert said == [
        "player 0 takes COCO from slot 0",
        "slot 0 stays empty: the pile is empty",
        "end of turn 11",
        "the cards are exhausted: the pile and the face-up row are empty (first time, K7.1)",
        "first scoring, stones 1:0: player 0 gets 1 point (points 1:0)",
        f"the 23 discarded cards are shuffled into a new pile; {row} are turned face up (K7.3)",
        "player 1 to act (turn 12)",
    ]


def test_a_player_without_bridges_when_round_2_begins_loses_at_once() -> None:
    s = load(make(bridges=(HOLD_ALOA, []), hands=([], []), face_up=["COCO", None, None], pile=[]))
    said = describe_step(s, 148, act(s, "take slot 0"))
    assert said[4] == "first scoring, stones 1:0: player 0 gets 1 point (points 1:0)"
    assert said[-1] == "player 1 has no bridge on the board: player 0 wins (early end, K8.2)"


def test_third_exhaustion_final_turns_and_the_third_scoring() -> None:
    s = load(
        make(bridges=(HOLD_ALOA, HOLD_LALE), hands=([], []), face_up=[None, "COCO", None],
             pile=[], scorings=[[1, 0], [0, 2]])
    )  # fmt: skip
    assert describe_step(s, 149, act(s, "take slot 1"))[2:] == [
        "end of turn 11",
        "the cards are exhausted: the pile and the face-up row are empty (third time, K7.1)",
        "final turns (K7.4): player 1 plays one more turn, then player 0; then the third scoring",
    ]
    s = load(
        make(bridges=(HOLD_ALOA + HOLD_GOLA, HOLD_LALE), hands=([], []),
             face_up=[None, None, None], pile=[], scorings=[[1, 0], [0, 2]], final_turns_left=2)
    )  # fmt: skip
    first = act(s, "end play")
    assert describe_step(s, 147, first) == [
        "player 0 ends the final turn",
        "end of the first final turn (turn 11)",
        "player 1 plays the last turn",
    ]
    assert describe_step(first, 147, act(first, "end play")) == [
        "player 1 ends the final turn",
        "end of the last final turn (turn 12)",
        "third scoring, stones 2:1: player 0 gets 1 point (points 2:2)",
        "player 0 wins the game: 2 points each, more in the third scoring (1 to 0, K8.1)",
    ]


def test_a_removal_that_takes_the_last_bridge_ends_the_game_early() -> None:
    s = load(
        make(bridges=(HOLD_LALE, ["ALOA-BARI"]), stones=(["LALE"], []),
             hands=(["ALOA", "ALOA"], []), scorings=[[0, 1]])
    )  # fmt: skip
    a = index("remove ALOA-BARI with ALOA+ALOA")
    assert describe_step(s, a, act(s, a), names=["Ann", "Bob"]) == [
        "Ann removes Bob's bridge on ALOA-BARI, paying ALOA+ALOA",
        "Bob has no bridge on the board: Ann wins (early end, K8.2)",
    ]


def test_truncation_is_told() -> None:
    sc = make(hands=(["ALOA"], []))
    sc["config"] = {"max_turns": 11}
    s = load(sc)
    assert describe_step(s, 151, act(s, "draw"))[1:] == [
        "end of turn 11",
        "the game stops after 11 turns (max_turns=11, K9.1): no winner",
    ]


def test_skips_are_told() -> None:
    s = load(make(hands=(["ALOA"], [])))
    assert describe_step(s, 152, act(s, "skip")) == [
        "player 0 skips the draw",
        "end of turn 11: player 1 to act (turn 12)",
    ]


def test_random_games_describe_every_step_and_end_with_the_result() -> None:
    from kanaloa_env.core.kahuna import Config, init, step

    rng = np.random.default_rng(3)
    for seed in range(3):
        s = init(Config(), 1, seed=seed)
        while not s.done[0]:
            a = int(rng.choice(np.flatnonzero(s.legal[0])))
            after = step(s, np.array([a]))
            said = describe_step(s, a, after)
            assert said and all(isinstance(x, str) and x for x in said)
            s = after
        assert "wins" in said[-1] or "draw" in said[-1] or "stops" in said[-1]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"action": 153}, ValueError, r"action must be in 0..152, got 153"),
        ({"action": 1.0}, TypeError, r"action must be an int"),
        ({"i": 1}, ValueError, r"i must be in 0..0, got 1"),
        ({"names": ["only one"]}, TypeError, r"names must be two strings"),
        ({"names": "ab"}, TypeError, r"names must be two strings"),
        ({"seat": 2}, ValueError, r"seat must be None, 0 or 1"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type, match: str) -> None:
    s = load(e1())
    args = {"before": s, "action": 9, "after": act(s, 9), **kwargs}
    with pytest.raises(error, match=match):
        describe_step(**args)


def test_describe_action_rejects_bad_input() -> None:
    s = load(e1())
    with pytest.raises(ValueError, match="action must be in 0..152"):
        describe_action(s, -1)
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kahuna.State"):
        describe_action("state", 0)  # type: ignore[arg-type]
    over = load(make(to_act=None, phase="game_over", bridges=([], []), scorings=[[0, 0]],
                     winner=None, end_reason="early_end"))  # fmt: skip
    with pytest.raises(ValueError, match="is over: no decision to describe"):
        describe_step(over, 0, over)
