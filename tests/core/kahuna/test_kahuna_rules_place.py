"""K4 (playing cards) and K5 (majorities and stones): PLACE, REMOVE, DISCARD, claims and
stone losses, on hand-made positions."""

from __future__ import annotations

import pytest
from kahuna_kit import END_PLAY, HOLD_ALOA, HOLD_GOLA, act, held, kinds, legal, load, make, sc_of

from kanaloa_env.core.kahuna.constants import LINE_NAMES

# 10 islands held by player 0 with its 10 stones (BARI-COCO-... left for a claim).
TEN_HELD = [
    "ALOA-BARI",
    "ALOA-DUDA",
    "ALOA-HUNA",
    "BARI-DUDA",
    "BARI-ELAI",
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


# ---- K4.1 PLACE --------------------------------------------------------------------


def test_k4_1_place_needs_a_free_line_and_a_card_of_either_end() -> None:
    s = load(make(bridges=[[], ["ALOA-BARI"]], hands=[["ALOA"], []]))
    places = {a for a in legal(s) if a.startswith("place")}
    # ALOA's lines: ALOA-BARI is taken, ALOA-DUDA and ALOA-HUNA are free (A19).
    assert places == {"place ALOA-DUDA with ALOA", "place ALOA-HUNA with ALOA"}


def test_k4_1_a_line_held_by_either_player_is_not_free() -> None:
    s = load(make(bridges=[["ALOA-DUDA"], ["ALOA-BARI"]], hands=[["ALOA"], []]))
    assert {a for a in legal(s) if a.startswith("place")} == {"place ALOA-HUNA with ALOA"}


def test_k4_1_place_spends_the_card_face_up_and_puts_the_bridge() -> None:
    s = act(load(make(hands=[["DUDA", "KAHU"], []])), "place BARI-DUDA with DUDA")
    sc = sc_of(s)
    assert sc["bridges"][0] == ["BARI-DUDA"]
    assert sc["hands"][0] == ["KAHU"]
    assert sc["discard_up"].count("DUDA") == 1
    assert sc["to_act"] == 0 and sc["phase"] == "play"  # K3.2: the turn goes on


def test_k1_5_no_place_with_an_empty_bridge_supply_but_removal_stays_legal() -> None:
    mine = [n for n in LINE_NAMES if n not in ("ALOA-BARI", "KAHU-LALE")]  # 25 bridges
    stones = held(mine)[:10]
    s = load(
        make(
            bridges=[mine, ["KAHU-LALE"]],
            stones=[stones, []],
            hands=[["ALOA", "LALE", "LALE"], []],
        )
    )
    assert "place" not in kinds(s)
    assert "remove KAHU-LALE with LALE+LALE" in legal(s)


# ---- K5.2 / K5.3 claims -------------------------------------------------------------


def test_k5_2_a_bridge_that_reaches_the_majority_claims_with_a_stone() -> None:
    s = act(
        load(make(bridges=[["ALOA-BARI"], []], hands=[["ALOA"], []])), "place ALOA-DUDA with ALOA"
    )
    assert sc_of(s)["stones"] == [["ALOA"], []]


def test_k5_2_below_the_majority_nothing_is_claimed() -> None:
    s = act(load(make(hands=[["GOLA"], []])), "place COCO-GOLA with GOLA")
    assert sc_of(s)["stones"] == [[], []]


def test_k5_2_a9_adding_to_an_island_already_held_claims_nothing() -> None:
    # Player 0 holds ELAI (4 of 6); player 1's ELAI-JOJO came later and stays when
    # player 0 adds a fifth bridge there: no new claim (A9).
    mine = ["BARI-ELAI", "DUDA-ELAI", "ELAI-FAAA", "ELAI-HUNA"]
    sc = make(bridges=[mine, ["ELAI-JOJO"]], hands=[["IFFI"], []])
    out = sc_of(act(load(sc), "place ELAI-IFFI with IFFI"))
    assert out["bridges"][1] == ["ELAI-JOJO"]
    assert out["stones"] == [["ELAI"], []]


def test_k5_3_claim_removes_every_opposing_bridge_at_the_island() -> None:
    # ELAI (6 lines, maj 4): player 0 has 3, player 1 has 2 (BARI-ELAI, ELAI-JOJO).
    sc = make(
        bridges=[["DUDA-ELAI", "ELAI-FAAA", "ELAI-HUNA"], ["BARI-ELAI", "ELAI-JOJO", "JOJO-KAHU"]],
        hands=[["IFFI"], []],
    )
    s = act(load(sc), "place ELAI-IFFI with IFFI")
    out = sc_of(s)
    assert out["stones"][0] == ["ELAI"]
    assert out["bridges"][1] == ["JOJO-KAHU"]  # both lines at ELAI back to the supply
    assert int(s.bridges[0, 1]).bit_count() == 1


def test_k5_3_a9_opposing_bridges_placed_at_a_held_island_stay() -> None:
    # Player 0 holds GOLA; player 1 places GOLA-KAHU there and it stays (no claim).
    sc = make(bridges=[HOLD_GOLA, []], hands=[[], ["KAHU"]], to_act=1)
    s = act(load(sc), "place GOLA-KAHU with KAHU")
    assert sc_of(s)["bridges"][1] == ["GOLA-KAHU"]
    assert sc_of(s)["stones"] == [["GOLA"], []]


def test_k5_3_a2_claim_with_an_empty_stone_supply_still_removes_bridges() -> None:
    stones = held(TEN_HELD)
    assert len(stones) == 10 and "COCO" not in stones
    sc = make(bridges=[TEN_HELD, ["BARI-COCO"]], stones=[stones, []], hands=[["KAHU"], []])
    s = act(load(sc), "place COCO-KAHU with KAHU")
    out = sc_of(s)
    assert out["stones"][0] == stones  # no stone on COCO: the supply is empty
    assert out["bridges"][1] == []  # BARI-COCO still went back (A2)


def test_k5_6_a_held_island_without_stone_stays_unmarked_while_held() -> None:
    stones = held(TEN_HELD)
    sc = make(
        bridges=[TEN_HELD, ["BARI-COCO"]],
        stones=[stones, []],
        hands=[["KAHU", "BARI"], ["LALE", "LALE"]],
    )
    s = act(load(sc), "place COCO-KAHU with KAHU", "draw")
    # Player 1 takes LALE from player 0 (2 of 3 -> 1): a stone goes back to the supply.
    s = act(s, "remove HUNA-LALE with LALE+LALE", "draw")
    assert "LALE" not in sc_of(s)["stones"][0] and len(sc_of(s)["stones"][0]) == 9
    # A fourth bridge at COCO, still held, does not claim it again (K5.2, K5.6).
    s = act(s, "place BARI-COCO with BARI")
    assert "COCO" not in sc_of(s)["stones"][0] and len(sc_of(s)["stones"][0]) == 9


# ---- K5.4 stone losses --------------------------------------------------------------


def test_k5_4_a_claim_costs_the_opponent_a_stone_on_the_far_end() -> None:
    # Player 1 holds ALOA (ALOA-BARI, ALOA-HUNA). Player 0 claims BARI, removing ALOA-BARI.
    sc = make(
        bridges=[["BARI-COCO", "BARI-FAAA"], ["ALOA-BARI", "ALOA-HUNA"]],
        hands=[["ELAI"], []],
    )
    assert load(sc).stones[0, 1] != 0
    out = sc_of(act(load(sc), "place BARI-ELAI with ELAI"))
    assert out["stones"] == [["BARI"], []]
    assert out["bridges"][1] == ["ALOA-HUNA"]


def test_k5_4_a12_a_two_card_removal_costs_the_opponent_its_stone() -> None:
    sc = make(bridges=[[], ["ALOA-BARI", "ALOA-DUDA"]], hands=[["BARI", "BARI"], []])
    out = sc_of(act(load(sc), "remove ALOA-BARI with BARI+BARI"))
    assert out["bridges"][1] == ["ALOA-DUDA"]
    assert out["stones"] == [[], []]


def test_k5_5_no_cascade_a_lost_majority_removes_only_the_stone() -> None:
    # Player 1 loses ALOA; its other bridge there stays, and player 0 gains nothing
    # from the freed line.
    sc = make(
        bridges=[["BARI-COCO", "BARI-FAAA"], ["ALOA-BARI", "ALOA-HUNA", "HUNA-LALE"]],
        hands=[["ELAI"], []],
    )
    out = sc_of(act(load(sc), "place BARI-ELAI with ELAI"))
    assert out["bridges"] == [["BARI-COCO", "BARI-ELAI", "BARI-FAAA"], ["ALOA-HUNA", "HUNA-LALE"]]
    assert out["stones"] == [["BARI"], []]


# ---- K4.2 REMOVE --------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, pairs",
    [
        (["ELAI", "HUNA"], {"ELAI+HUNA"}),
        (["HUNA", "HUNA"], {"HUNA+HUNA"}),
        (["ELAI", "ELAI"], {"ELAI+ELAI"}),
        (["ELAI", "ELAI", "HUNA", "HUNA"], {"ELAI+ELAI", "HUNA+HUNA", "ELAI+HUNA"}),
        (["ELAI", "IFFI"], set()),
    ],
)
def test_k4_2_remove_pairs_name_the_ends_of_the_line(hand: list[str], pairs: set[str]) -> None:
    s = load(make(bridges=[[], ["ELAI-HUNA"]], hands=[hand, []]))
    got = {a.split(" with ")[1] for a in legal(s) if a.startswith("remove ELAI-HUNA")}
    assert got == pairs


def test_k4_2_own_bridges_and_free_lines_cannot_be_removed() -> None:
    s = load(make(bridges=[["ELAI-HUNA"], []], hands=[["ELAI", "HUNA"], []]))
    assert "remove" not in kinds(s)


def test_k4_2_remove_returns_the_bridge_and_spends_both_cards() -> None:
    sc = make(bridges=[[], ["ELAI-HUNA"]], hands=[["ELAI", "HUNA", "KAHU"], []])
    s = act(load(sc), "remove ELAI-HUNA with ELAI+HUNA")
    out = sc_of(s)
    assert out["bridges"] == [[], []]
    assert out["hands"][0] == ["KAHU"]
    assert {"ELAI", "HUNA"} <= set(out["discard_up"])
    assert out["stones"] == [[], []]  # a removal never claims (K4.2)


def test_k4_3_a5_the_freed_line_is_an_ordinary_place_later_in_the_turn() -> None:
    sc = make(bridges=[[], ["ELAI-HUNA"]], hands=[["HUNA", "HUNA", "ELAI"], []])
    s = act(load(sc), "remove ELAI-HUNA with HUNA+HUNA")
    assert "place ELAI-HUNA with ELAI" in legal(s)
    s = act(s, END_PLAY)
    assert "place" not in kinds(s)  # not in the DRAW phase


# ---- K4.4 / K4.5 DISCARD ------------------------------------------------------------


def test_k4_4_any_time_discards_any_held_card() -> None:
    s = load(make(hands=[["ALOA", "ALOA", "KAHU"], []]))
    assert {a for a in legal(s) if a.startswith("discard")} == {"discard ALOA", "discard KAHU"}


def test_k4_4_no_legal_play_discards_only_without_place_or_remove() -> None:
    cfg = {"discard_rule": "no_legal_play"}
    s = load(make(hands=[["ALOA"], []], config=cfg))
    assert "discard" not in kinds(s)
    # Every ALOA line taken: no place, no remove (one card): discarding is legal.
    full = make(
        bridges=[["ALOA-DUDA"], ["ALOA-BARI", "ALOA-HUNA"]], hands=[["ALOA"], []], config=cfg
    )
    assert {a for a in legal(load(full)) if a.startswith("discard")} == {"discard ALOA"}


def test_k4_4_unplayable_cards_discards_only_cards_no_legal_action_spends() -> None:
    cfg = {"discard_rule": "unplayable_cards"}
    # ALOA's lines are all taken; KAHU's are free.
    sc = make(
        bridges=[["ALOA-DUDA"], ["ALOA-BARI", "ALOA-HUNA"]],
        hands=[["ALOA", "KAHU"], []],
        config=cfg,
    )
    assert {a for a in legal(load(sc)) if a.startswith("discard")} == {"discard ALOA"}


def test_k4_4_discard_goes_face_down_and_the_opponent_forgets_one_of_each() -> None:
    sc = make(hands=[["ALOA", "ALOA", "COCO"], []], known=[["ALOA", "ALOA", "COCO"], []])
    out = sc_of(act(load(sc), "discard COCO"))
    assert out["discard_down"] == [["COCO"], []]
    assert out["hands"][0] == ["ALOA", "ALOA"]
    assert out["known"] == [["ALOA"], []]  # K6.7: one copy of every known island


def test_k6_7_spending_a_known_card_face_up_forgets_one_copy_per_card() -> None:
    sc = make(
        bridges=[[], ["ELAI-HUNA"]],
        hands=[["HUNA", "HUNA", "ELAI"], []],
        known=[["HUNA", "HUNA"], []],
    )
    out = sc_of(act(load(sc), "remove ELAI-HUNA with HUNA+HUNA"))
    assert "known" not in out  # both HUNA cards went face up
    sc = make(hands=[["HUNA", "ELAI"], []], known=[["HUNA"], []])
    out = sc_of(act(load(sc), "place ELAI-HUNA with ELAI"))
    assert out["known"] == [["HUNA"], []]  # the spent ELAI was not known


def test_k3_3_no_discard_in_a_final_turn() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        hands=[["KAHU"], []],
        face_up=[None, None, None],
        pile=[],
        scorings=[[0, 0], [0, 0]],
        final_turns_left=2,
    )
    assert kinds(load(sc)) == {"place", "end"}
