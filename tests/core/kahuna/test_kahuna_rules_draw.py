"""K3.2 (the turn's phases) and K6 (drawing): TAKE, DRAW, SKIP, the hand limit and
hand-backs, the turn's end and what the opponent knows (K6.7)."""

from __future__ import annotations

import numpy as np
from kahuna_kit import DRAW, END_PLAY, SKIP, act, kinds, legal, load, make, sc_of

from kanaloa_env.core.kahuna import Config, init, step


def test_k3_2_take_draw_and_skip_end_the_turn_directly_from_play() -> None:
    for action in ("take slot 1", "draw", "skip"):
        s = act(load(make(hands=[["ALOA"], []])), action)
        out = sc_of(s)
        assert out["to_act"] == 1 and out["turn"] == 11 and out["phase"] == "play"


def test_k3_2_end_play_opens_the_draw_phase_without_card_plays() -> None:
    s = act(load(make(bridges=[[], ["ELAI-HUNA"]], hands=[["ELAI", "HUNA"], []])), END_PLAY)
    assert sc_of(s)["phase"] == "draw"
    assert kinds(s) == {"take", "draw", "skip"}


def test_k6_1_take_refills_the_slot_from_the_top_of_the_pile() -> None:
    sc = make(hands=[[], []], face_up=["ALOA", "BARI", "COCO"], pile=["KAHU", "LALE"])
    out = sc_of(act(load(sc), "take slot 1"))
    assert out["hands"][0] == ["BARI"]
    assert out["face_up"] == ["ALOA", "KAHU", "COCO"]
    assert out["pile"] == ["LALE"]


def test_k6_1_with_an_empty_pile_the_taken_slot_stays_empty() -> None:
    sc = make(face_up=["ALOA", "BARI", "COCO"], pile=[])
    out = sc_of(act(load(sc), "take slot 2"))
    assert out["face_up"] == ["ALOA", "BARI", None]
    assert "take slot 2" not in legal(load(out))


def test_k6_2_draw_takes_the_top_card_and_needs_a_pile() -> None:
    sc = make(face_up=["ALOA", "BARI", "COCO"], pile=["KAHU", "LALE"])
    out = sc_of(act(load(sc), DRAW))
    assert out["hands"][0] == ["KAHU"] and out["pile"] == ["LALE"]
    assert "draw" not in legal(load(make(face_up=["ALOA", "BARI", "COCO"], pile=[])))


def test_k6_3_no_skip_right_after_the_opponents_skip() -> None:
    s = act(load(make()), SKIP)
    assert sc_of(s)["last_turn_skipped"] is True
    assert "skip" not in legal(s)
    s = act(s, DRAW)
    assert "skip" in legal(s) and sc_of(s)["last_turn_skipped"] is False


def test_k6_3_the_first_turn_of_the_game_may_skip() -> None:
    s = init(Config(), 16, seed=3)
    assert s.legal[:, SKIP].all()


def test_k6_4_take_and_draw_need_a_hand_of_at_most_four() -> None:
    five = make(hands=[["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []])
    assert kinds(load(five)) & {"take", "draw"} == set()
    assert "skip" in legal(load(five))


def test_k6_4_hand_backs_only_with_five_cards_or_after_a_first_one() -> None:
    four = make(hands=[["ALOA", "BARI", "COCO", "DUDA"], []])
    assert "discard" not in kinds(act(load(four), END_PLAY))
    five = make(hands=[["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []])
    s = act(load(five), END_PLAY)
    assert kinds(s) == {"discard", "skip"}
    s = act(s, "discard ALOA")
    assert sc_of(s)["handed_back"] is True
    assert kinds(s) == {"discard", "take", "draw"}  # A8: no skip after a hand-back
    s = act(s, "discard BARI", "take slot 0")
    out = sc_of(s)
    assert out["discard_down"] == [["ALOA", "BARI"], []]
    assert len(out["hands"][0]) == 4 and out["handed_back"] is False and out["to_act"] == 1


def test_k6_4_hand_backs_ignore_the_discard_rule() -> None:
    for rule in ("no_legal_play", "unplayable_cards"):
        five = make(
            hands=[["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []], config={"discard_rule": rule}
        )
        s = act(load(five), END_PLAY)
        assert {a for a in legal(s) if a.startswith("discard")} == {
            f"discard {x}" for x in ("ALOA", "BARI", "COCO", "DUDA", "ELAI")
        }


def test_k6_5_turns_alternate_and_count() -> None:
    s = load(make(starting_player=1, to_act=1))
    for t in range(6):
        out = sc_of(s)
        assert out["to_act"] == 1 ^ (out["turn"] % 2)
        s = act(s, DRAW if t % 2 else SKIP)
    assert sc_of(s)["turn"] == 16


def test_k6_7_take_shows_the_card_and_draw_does_not() -> None:
    sc = make(face_up=["ALOA", "BARI", "COCO"], pile=["KAHU", "LALE"])
    assert sc_of(act(load(sc), "take slot 0"))["known"] == [["ALOA"], []]
    assert "known" not in sc_of(act(load(sc), DRAW))


def test_k6_6_a_running_game_always_has_a_card_to_draw() -> None:
    s = init(Config(), 256, seed=11)
    rng = np.random.default_rng(0)
    for _ in range(400):
        live = ~s.done & (s.final_turns_left == 0)
        assert ((s.pile_size > 0) | (s.face_up >= 0).any(axis=1))[live].all()
        mask = np.where(s.done[:, None], True, s.legal)
        s = step(s, np.argmax(rng.random(mask.shape) * mask, axis=1))
