"""K8 (the end: early end, finished games), K9 (truncation) and K10 (rewards)."""

from __future__ import annotations

import numpy as np
from kahuna_kit import DRAW, END_PLAY, HOLD_ALOA, HOLD_GOLA, SKIP, act, legal, load, make, sc_of

from kanaloa_env.core.kahuna import Config, init, step


def test_k8_2_a_claim_that_removes_the_last_opposing_bridge_ends_the_game() -> None:
    sc = make(
        bridges=[["ALOA-BARI"], ["ALOA-HUNA"]],
        hands=[["ALOA"], []],
        scorings=[[0, 0]],
    )
    s = act(load(sc), "place ALOA-DUDA with ALOA")
    out = sc_of(s)
    assert out["phase"] == "game_over" and out["end_reason"] == "early_end" and out["winner"] == 0
    assert out["to_act"] is None and s.rewards[0].tolist() == [1.0, -1.0]
    assert out["turn"] == 10  # the turn did not end


def test_k8_2_removing_the_last_opposing_bridge_ends_the_game() -> None:
    sc = make(bridges=[HOLD_ALOA, ["KAHU-LALE"]], hands=[["LALE", "KAHU"], []], scorings=[[1, 0]])
    s = act(load(sc), "remove KAHU-LALE with KAHU+LALE")
    assert sc_of(s)["winner"] == 0 and s.terminated[0]


def test_k8_2_not_in_round_1() -> None:
    sc = make(bridges=[["ALOA-BARI"], ["ALOA-HUNA"]], hands=[["ALOA"], []])
    s = act(load(sc), "place ALOA-DUDA with ALOA")
    assert not s.done[0] and sc_of(s)["bridges"][1] == []


def test_k8_2_off_when_early_end_is_off() -> None:
    sc = make(
        bridges=[["ALOA-BARI"], ["ALOA-HUNA"]],
        hands=[["ALOA"], []],
        scorings=[[0, 0]],
        config={"early_end": False},
    )
    s = act(load(sc), "place ALOA-DUDA with ALOA")
    assert not s.done[0]


def test_k8_2_a16_both_without_bridges_at_the_start_of_round_2_is_a_draw() -> None:
    sc = make(face_up=["JOJO", None, None], pile=[], hands=[[], []])
    s = act(load(sc), "take slot 0")
    out = sc_of(s)
    assert out["scorings"] == [[0, 0]] and out["end_reason"] == "early_end"
    assert out["winner"] is None and s.terminated[0] and s.rewards[0].tolist() == [0.0, 0.0]


def test_k8_3_a_finished_game_has_no_legal_action_and_ignores_its_entry() -> None:
    sc = make(bridges=[["ALOA-BARI"], ["ALOA-HUNA"]], hands=[["ALOA"], []], scorings=[[0, 0]])
    s = act(load(sc), "place ALOA-DUDA with ALOA")
    assert not s.legal.any()
    for a in (0, 152, 999, -5):
        after = step(s, np.array([a]))
        assert after.replace(rewards=s.rewards) == s
        assert after.rewards[0].tolist() == [0.0, 0.0]  # K10.1: a reward only once


def test_k9_1_truncation_after_max_turns() -> None:
    sc = make(config={"max_turns": 12}, to_act=1)  # turn 11
    s = act(load(sc), DRAW)
    out = sc_of(s)
    assert out["phase"] == "game_over" and out["end_reason"] == "truncated"
    assert out["winner"] is None and out["turn"] == 12
    assert s.truncated[0] and not s.terminated[0] and s.rewards[0].tolist() == [0.0, 0.0]


def test_k9_1_a_scoring_turn_that_reaches_max_turns_is_scored_then_truncated() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        face_up=["JOJO", None, None],
        pile=[],
        config={"max_turns": 11},
    )
    out = sc_of(act(load(sc), "take slot 0"))
    assert out["scorings"] == [[0, 0]] and out["end_reason"] == "truncated"


def test_k9_1_a22_no_truncation_once_the_final_turns_begin() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        face_up=["JOJO", None, None],
        pile=[],
        scorings=[[0, 0], [0, 0]],
        config={"max_turns": 11},
    )
    s = act(load(sc), "take slot 0")
    assert not s.done[0] and sc_of(s)["final_turns_left"] == 2 and sc_of(s)["turn"] == 11
    s = act(s, END_PLAY, END_PLAY)
    assert sc_of(s)["end_reason"] == "final_scoring" and sc_of(s)["turn"] == 13


def test_k10_1_rewards_only_at_the_step_that_ends_the_game() -> None:
    s = init(Config(), 128, seed=9)
    rng = np.random.default_rng(9)
    total = np.zeros((128, 2))
    while not s.done.all():
        mask = np.where(s.done[:, None], True, s.legal)
        done = s.done.copy()
        s = step(s, np.argmax(rng.random(mask.shape) * mask, axis=1))
        ended = s.done & ~done
        assert (s.rewards[~ended] == 0).all()
        total += s.rewards
    win = s.winner >= 0
    assert (total[win, s.winner[win]] == 1).all() and (total.sum(axis=1) == 0).all()
    assert (total[~win] == 0).all()


def test_skip_then_skip_is_illegal_so_turns_keep_moving() -> None:
    s = act(load(make()), SKIP)
    assert "skip" not in legal(s)
