"""E1: the book's worked example ("Ausführliches Beispiel", KAHUNA-RULES.md), step by step.

White = player 0, Black = player 1, round 2, White to act. Every position the spec
states is checked after the step it belongs to; the further checks the spec lists
after E1 follow at the end.
"""

from __future__ import annotations

import numpy as np
from kahuna_kit import DRAW, END_PLAY, HOLD_ALOA, HOLD_GOLA, act, e1, held, legal, load, make, sc_of

from kanaloa_env.core.kahuna import action_name
from kanaloa_env.core.kahuna.constants import LINE_NAMES

WHITE_BEFORE = ["ALOA-DUDA", "BARI-ELAI", "BARI-FAAA", "DUDA-ELAI", "DUDA-HUNA", "ELAI-HUNA"]


def test_e1_indices_match_the_spec_action_table() -> None:
    assert [action_name(a) for a in (9, 0, 147, 148, 94, 26, 147, 151)] == [
        "place BARI-DUDA with DUDA",
        "place ALOA-BARI with ALOA",
        "end play",
        "take slot 0",
        "remove ELAI-HUNA with HUNA+HUNA",
        "place ELAI-HUNA with ELAI",
        "end play",
        "draw",
    ]


def test_e1_before_the_first_step() -> None:
    s = load(e1())
    assert sc_of(s) == e1()
    assert s.current_player[0] == 0 and s.round[0] == 2


def test_e1_step_1_white_claims_bari_and_black_loses_aloa() -> None:
    s = act(load(e1()), 9)
    sc = sc_of(s)
    # K5.2: DUDA already held (4 of 4 now, no claim); BARI reaches 3 = maj: claimed.
    assert sc["stones"] == [["BARI", "DUDA"], ["HUNA"]]
    # K5.3: Black's ALOA-BARI removed; K5.4: Black 1 on ALOA: its stone goes back.
    assert "ALOA-BARI" not in sc["bridges"][1]
    assert sc["bridges"][0] == sorted([*WHITE_BEFORE, "BARI-DUDA"], key=LINE_NAMES.index)
    assert sc["hands"][0] == ["ALOA", "KAHU"]


def test_e1_step_2_white_claims_aloa_and_black_loses_huna() -> None:
    s = act(load(e1()), 9, 0)
    sc = sc_of(s)
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]
    assert sc["bridges"][1] == ["ELAI-FAAA", "ELAI-IFFI", "ELAI-JOJO", "HUNA-IFFI", "HUNA-LALE"]
    assert sc["to_act"] == 0 and sc["phase"] == "play"


def test_e1_step_3_end_play_opens_the_draw_phase() -> None:
    s = act(load(e1()), 9, 0, 147)
    assert sc_of(s)["phase"] == "draw"
    assert legal(s) == {"take slot 0", "take slot 1", "take slot 2", "draw", "skip"}


def test_e1_step_4_white_takes_coco_and_the_spec_position_after_whites_turn() -> None:
    s = act(load(e1()), 9, 0, 147, 148)
    sc = sc_of(s)
    assert sc["hands"][0] == ["COCO", "KAHU"]
    assert sc["face_up"] == ["BARI", "IFFI", "LALE"]
    assert sc["pile"][0] == "FAAA"
    assert sc["known"] == [["COCO"], []]
    assert sc["to_act"] == 1 and sc["turn"] == 41
    assert sc["bridges"][0] == [
        "ALOA-BARI",
        "ALOA-DUDA",
        "BARI-DUDA",
        "BARI-ELAI",
        "BARI-FAAA",
        "DUDA-ELAI",
        "DUDA-HUNA",
        "ELAI-HUNA",
    ]
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]
    assert sc["bridges"][1] == ["ELAI-FAAA", "ELAI-IFFI", "ELAI-JOJO", "HUNA-IFFI", "HUNA-LALE"]
    assert s.config.stones_per_player - np.bitwise_count(s.stones[0, 1]) == 10
    assert sorted(sc["discard_up"]) == sorted([*e1()["discard_up"], "ALOA", "DUDA"])


def test_e1_step_5_black_removes_elai_huna_without_stone_changes() -> None:
    s = act(load(e1()), 9, 0, 147, 148, 94)
    sc = sc_of(s)
    assert "ELAI-HUNA" not in sc["bridges"][0]
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]
    assert sc["hands"][1] == ["ELAI", "GOLA"]


def test_e1_step_6_black_claims_elai_and_huna_and_white_loses_duda() -> None:
    s = act(load(e1()), 9, 0, 147, 148, 94, 26)
    sc = sc_of(s)
    assert sc["stones"] == [["ALOA", "BARI"], ["ELAI", "HUNA"]]
    assert sc["bridges"][0] == ["ALOA-BARI", "ALOA-DUDA", "BARI-DUDA", "BARI-FAAA"]


def test_e1_steps_7_8_and_the_spec_position_after_blacks_turn() -> None:
    s = act(load(e1()), 9, 0, 147, 148, 94, 26, 147)
    assert sc_of(s)["phase"] == "draw"
    s = act(s, 151)
    sc = sc_of(s)
    assert sc["hands"][1] == ["FAAA", "GOLA"]
    assert sc["pile"] == ["JOJO", "ALOA", "COCO", "GOLA", "KAHU", "LALE"]
    assert sc["to_act"] == 0 and sc["turn"] == 42
    assert sc["bridges"] == [
        ["ALOA-BARI", "ALOA-DUDA", "BARI-DUDA", "BARI-FAAA"],
        ["ELAI-FAAA", "ELAI-HUNA", "ELAI-IFFI", "ELAI-JOJO", "HUNA-IFFI", "HUNA-LALE"],
    ]
    assert [25 - int(n) for n in np.bitwise_count(s.bridges[0])] == [21, 19]  # supplies
    assert sc["stones"] == [["ALOA", "BARI"], ["ELAI", "HUNA"]]
    assert sc["discard_up"] == [
        "ALOA",
        "BARI",
        "DUDA",
        "DUDA",
        "ELAI",
        "ELAI",
        "FAAA",
        "HUNA",
        "HUNA",
        "IFFI",
        "JOJO",
    ]
    assert sc["face_up"] == ["BARI", "IFFI", "LALE"]
    assert s.rewards[0].tolist() == [0.0, 0.0] and not s.done[0]


# ---- the further checks the spec lists after E1 -------------------------------------


# Player 0 holds 9 islands with 9 of its 10 stones; BARI and COCO have 2 of its bridges
# each (maj 3), so BARI-COCO completes both at once.
NINE_HELD = [
    "ALOA-BARI",
    "ALOA-DUDA",
    "ALOA-HUNA",
    "BARI-DUDA",
    "COCO-FAAA",
    "COCO-GOLA",
    "DUDA-ELAI",
    "DUDA-HUNA",
    "ELAI-HUNA",
    "ELAI-IFFI",
    "ELAI-JOJO",
    "FAAA-GOLA",
    "GOLA-JOJO",
    "GOLA-KAHU",
    "HUNA-IFFI",
    "HUNA-LALE",
    "IFFI-JOJO",
    "IFFI-KAHU",
    "JOJO-KAHU",
    "KAHU-LALE",
]


def test_k5_2_both_ends_claimed_with_one_stone_left_the_card_island_gets_it() -> None:
    stones = held(NINE_HELD)
    assert len(stones) == 9
    for card in ("BARI", "COCO"):
        s = load(make(bridges=[NINE_HELD, []], stones=[stones, []], hands=[[card], []]))
        sc = sc_of(act(s, f"place BARI-COCO with {card}"))
        assert len(sc["stones"][0]) == 10
        assert card in sc["stones"][0]
        assert ({"BARI", "COCO"} - {card}).isdisjoint(sc["stones"][0])


def test_k8_2_a_player_without_bridges_when_scoring_1_ends_loses_at_once() -> None:
    # Player 1 has no bridge; player 0 draws the last card: scoring 1, then K8.2.
    sc = make(
        bridges=[HOLD_ALOA, []],
        hands=[["COCO"], ["DUDA"]],
        face_up=["GOLA", None, None],
        pile=[],
    )
    s = act(load(sc), "take slot 0")
    out = sc_of(s)
    assert out["scorings"] == [[1, 0]]
    assert out["phase"] == "game_over" and out["end_reason"] == "early_end"
    assert out["winner"] == 0 and s.rewards[0].tolist() == [1.0, -1.0]


def test_k7_4_after_the_third_exhaustion_the_drawers_opponent_plays_first() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        hands=[[], ["COCO"]],
        face_up=[None, "KAHU", None],
        pile=[],
        scorings=[[1, 0], [0, 2]],
        to_act=0,
    )
    s = act(load(sc), "take slot 1")
    out = sc_of(s)
    assert (
        out["final_turns_left"] == 2 and out["to_act"] == 1 and out["scorings"] == [[1, 0], [0, 2]]
    )
    assert legal(s) == {
        "end play",
        "place BARI-COCO with COCO",
        "place COCO-FAAA with COCO",
        "place COCO-KAHU with COCO",
    }
    s = act(s, END_PLAY)
    assert sc_of(s)["final_turns_left"] == 1 and sc_of(s)["to_act"] == 0
    s = act(s, END_PLAY)
    out = sc_of(s)
    assert out["end_reason"] == "final_scoring" and out["scorings"][2] == [0, 0]


def test_k6_4_five_cards_after_an_opponent_skip_allow_only_hand_backs() -> None:
    sc = make(
        hands=[["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []],
        last_turn_skipped=True,
    )
    s = act(load(sc), END_PLAY)
    assert legal(s) == {f"discard {x}" for x in ("ALOA", "BARI", "COCO", "DUDA", "ELAI")}
    s = act(s, "discard COCO")
    assert "skip" not in legal(s) and {"draw", "take slot 0"} <= legal(s)
    assert "discard ALOA" in legal(s)
    s = act(s, DRAW)
    assert sc_of(s)["discard_down"][0] == ["COCO"] and len(sc_of(s)["hands"][0]) == 5
