"""K7 (exhaustion, scorings, reshuffles, final turns) and K8.1 (the winner)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from kahuna_kit import (
    END_PLAY,
    HOLD_ALOA,
    HOLD_GOLA,
    HOLD_LALE,
    SKIP,
    act,
    kinds,
    legal,
    load,
    make,
    sc_of,
)

from kanaloa_env.core.kahuna import Config, init, step


def last_card(**fields):  # type: ignore[no-untyped-def]
    """Player 0 to act, one card left (slot 0), nothing in the pile; player 0 holds
    ALOA and LALE, player 1 GOLA."""
    fields.setdefault("bridges", [HOLD_ALOA + HOLD_LALE, HOLD_GOLA])
    fields.setdefault("hands", [["COCO"], ["DUDA", "DUDA"]])
    fields.setdefault("discard_down", [["KAHU"], ["BARI"]])
    return make(face_up=["JOJO", None, None], pile=[], **fields)


def test_k7_1_taking_the_last_available_card_scores() -> None:
    s = act(load(last_card()), "take slot 0")
    out = sc_of(s)
    assert out["scorings"] == [[1, 0]]  # K7.2: 2 stones against 1
    assert out["turn"] == 11 and out["to_act"] == 1 and s.round[0] == 2


def test_k7_1_no_scoring_while_a_slot_still_holds_a_card() -> None:
    sc = make(face_up=["JOJO", "KAHU", None], pile=[], hands=[[], []])
    out = sc_of(act(load(sc), "take slot 0"))
    assert out["scorings"] == [] and out["face_up"] == [None, "KAHU", None]


def test_k7_2_the_second_scoring_is_worth_2_and_a_tie_nothing() -> None:
    out = sc_of(act(load(last_card(scorings=[[0, 1]])), "take slot 0"))
    assert out["scorings"] == [[0, 1], [2, 0]]
    tie = last_card(bridges=[HOLD_ALOA, HOLD_GOLA])
    assert sc_of(act(load(tie), "take slot 0"))["scorings"] == [[0, 0]]


def test_k7_3_the_reshuffle_pools_every_discard_into_a_new_row_and_pile() -> None:
    before = last_card()
    out = sc_of(act(load(before), "take slot 0"))
    pooled = Counter(before["discard_up"]) + Counter(["KAHU", "BARI"])
    assert Counter([*out["face_up"], *out["pile"]]) == pooled
    assert None not in out["face_up"] and len(out["pile"]) == sum(pooled.values()) - 3
    assert out["discard_up"] == [] and out["discard_down"] == [[], []]
    assert out["hands"] == [["COCO", "JOJO"], ["DUDA", "DUDA"]]
    assert out["bridges"] == before["bridges"] and out["stones"] == before["stones"]


def test_k7_3_the_drawers_opponent_continues_and_may_skip() -> None:
    s = act(load(last_card()), "take slot 0")
    assert s.current_player[0] == 1 and "skip" in legal(s) and kinds(s) >= {"take", "draw"}


def test_k7_3_the_new_order_comes_from_the_games_key() -> None:
    orders = set()
    for seed in range(6):
        out = sc_of(act(load(last_card(), seed=seed), "take slot 0"))
        again = sc_of(act(load(last_card(), seed=seed), "take slot 0"))
        assert out == again
        orders.add((tuple(out["face_up"]), tuple(out["pile"])))
    assert len(orders) > 1


def test_k7_3_reshuffles_after_random_play_keep_every_card() -> None:
    s = init(Config(), 64, seed=5)
    rng = np.random.default_rng(5)
    seen = 0
    while not s.done.all():
        mask = np.where(s.done[:, None], True, s.legal)
        before = s.num_scorings.copy()
        s = step(s, np.argmax(rng.random(mask.shape) * mask, axis=1))
        new = (s.num_scorings > before) & (s.num_scorings < 3) & ~s.done
        seen += int(new.sum())
        assert ((s.face_up >= 0).all(axis=1) | ~new).all()  # K7.3: the row is full
        assert ((s.discard_up == 0) | ~new).all()
    assert seen > 64


def test_k7_4_a22_final_turns_play_only_and_alternate() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        hands=[["KAHU", "KAHU"], ["LALE"]],
        face_up=[None, None, None],
        pile=[],
        scorings=[[1, 0], [0, 2]],
        final_turns_left=2,
        to_act=1,
    )
    s = load(sc)
    assert kinds(s) == {"place", "end"}
    s = act(s, "place KAHU-LALE with LALE", END_PLAY)
    out = sc_of(s)
    assert out["final_turns_left"] == 1 and out["to_act"] == 0 and out["turn"] == 12
    assert kinds(s) == {"place", "remove", "end"}
    s = act(s, END_PLAY)
    out = sc_of(s)
    assert out["phase"] == "game_over" and out["final_turns_left"] is None and out["turn"] == 13


KAHU3 = ["COCO-KAHU", "IFFI-KAHU", "JOJO-KAHU"]


@pytest.mark.parametrize(
    "scorings, bridges, winner, third",
    [
        # K8.1: the higher total wins (stones 1:1, third scoring 0:0).
        ([[1, 0], [0, 2]], [HOLD_ALOA, HOLD_GOLA], 1, [0, 0]),
        # Equal totals: more points in the third scoring.
        ([[1, 0], [0, 2]], [HOLD_ALOA + HOLD_LALE, HOLD_GOLA], 0, [1, 0]),
        ([[0, 1], [2, 0]], [HOLD_ALOA, HOLD_GOLA + KAHU3], 1, [0, 1]),
        # 0:0 after three scorings: more bridges on the board; equal: a draw (A15).
        ([[0, 0], [0, 0]], [[*HOLD_ALOA, "BARI-ELAI"], HOLD_LALE], 0, [0, 0]),
        ([[0, 0], [0, 0]], [HOLD_ALOA, [*HOLD_LALE, "ELAI-HUNA"]], 1, [0, 0]),
        ([[0, 0], [0, 0]], [HOLD_ALOA, HOLD_LALE], None, [0, 0]),
    ],
)
def test_k7_5_k8_1_third_scoring_and_winner(
    scorings: list[list[int]], bridges: list[list[str]], winner: int | None, third: list[int]
) -> None:
    sc = make(
        bridges=bridges,
        face_up=[None, None, None],
        pile=[],
        scorings=scorings,
        final_turns_left=1,
        to_act=0,
    )
    s = act(load(sc), END_PLAY)
    out = sc_of(s)
    assert out["scorings"] == [*scorings, third]
    assert out["end_reason"] == "final_scoring" and out["winner"] == winner
    expect = [0.0, 0.0] if winner is None else [1.0 - 2 * winner, 2 * winner - 1.0]
    assert s.rewards[0].tolist() == expect and s.terminated[0] and not s.truncated[0]


def test_k3_4_the_round_is_one_plus_the_scorings_done() -> None:
    s = load(last_card())
    assert s.round[0] == 1
    s = act(s, "take slot 0")
    assert s.round[0] == 2
    assert load(last_card(scorings=[[1, 0]])).round[0] == 2
    assert load(last_card(scorings=[[1, 0], [0, 0]])).round[0] == 3


def test_k7_1_skip_does_not_exhaust() -> None:
    s = act(load(make(face_up=["JOJO", None, None], pile=[])), SKIP)
    assert sc_of(s)["scorings"] == [] and sc_of(s)["face_up"] == ["JOJO", None, None]
