"""Scenarios (KAHUNA-RULES.md "Scenario format"): exact round trips, every rejection the
spec lists (each naming its key), and a fuzz test of mutated scenarios."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kahuna_kit import HOLD_ALOA, HOLD_GOLA, e1, load, make

from kanaloa_env.core.kahuna import (
    Config,
    State,
    check_invariants,
    from_scenario,
    init,
    step,
    to_scenario,
)
from kanaloa_env.core.kahuna.constants import ISLAND_NAMES, LINE_NAMES


def random_states(cfg: Config, games: int, seed: int, steps: int) -> list[State]:
    """Batch-1 states met along random games (every 7th decision)."""
    s = init(cfg, games, seed)
    rng = np.random.default_rng(seed)
    out = []
    for t in range(steps):
        mask = np.where(s.done[:, None], True, s.legal)
        s = step(s, np.argmax(rng.random(mask.shape) * mask, axis=1))
        if t % 7 == 0:
            out += [s.take([g]) for g in range(games)]
    return out


CONFIGS = [
    Config(),
    Config(stones_per_player=12, discard_rule="unplayable_cards", first_player=1),
    Config(stones_per_player=11, discard_rule="no_legal_play", early_end=False, max_turns=40),
]


# ---- round trips ----------------------------------------------------------------------


def test_e1_round_trips_exactly() -> None:
    assert to_scenario(from_scenario(e1())) == e1()
    assert json.loads(json.dumps(to_scenario(load(e1())))) == e1()


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: str(c.overrides()))
def test_states_of_random_games_round_trip_through_scenarios(cfg: Config) -> None:
    for s in random_states(cfg, 8, 1, 200):
        sc = to_scenario(s, 0, include_key=True)
        back = from_scenario(json.loads(json.dumps(sc)))
        assert back.replace(rewards=s.rewards) == s  # (the last step's rewards are no position)
        assert to_scenario(back, 0, include_key=True) == sc


def test_without_key_the_seed_fixes_later_reshuffles() -> None:
    sc = make(bridges=[HOLD_ALOA, HOLD_GOLA], face_up=["JOJO", None, None], pile=[])
    take = np.array([148])
    a, b = (to_scenario(step(from_scenario(sc, seed=7), take), 0) for _ in range(2))
    assert a == b
    assert from_scenario(sc).key[0] == from_scenario(sc, seed=0).key[0]
    assert from_scenario(sc, seed=1).key[0] != from_scenario(sc, seed=2).key[0]


def test_lists_in_another_order_load_and_come_back_canonical() -> None:
    sc = e1()
    shuffled = copy.deepcopy(sc)
    for key in ("bridges", "stones", "hands"):
        for lst in shuffled[key]:
            lst.reverse()
    shuffled["discard_up"].reverse()
    assert to_scenario(from_scenario(shuffled)) == sc


def test_known_is_optional_and_written_only_when_not_empty() -> None:
    sc = e1()
    assert "known" not in to_scenario(from_scenario(sc))
    sc["known"] = [["ALOA"], ["HUNA", "HUNA"]]
    assert to_scenario(from_scenario(sc))["known"] == [["ALOA"], ["HUNA", "HUNA"]]


# ---- rejections (the spec's list) -----------------------------------------------------


def rejects(sc: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=re.escape(key)):
        from_scenario(sc)


def edited(**changes: Any) -> dict[str, Any]:
    sc = e1()
    sc.update(changes)
    return sc


def test_rejects_a_card_count_other_than_two_per_island() -> None:
    sc = e1()
    sc["pile"].append("ALOA")
    rejects(sc, "pile")
    sc = e1()
    sc["discard_up"].remove("JOJO")
    rejects(sc, "discard_up")


def test_rejects_a_line_owned_twice() -> None:
    sc = e1()
    sc["bridges"][0].append("ALOA-BARI")
    rejects(sc, "'bridges'")
    sc = e1()
    sc["bridges"][0].append("ALOA-DUDA")
    rejects(sc, "'bridges'")


def test_rejects_more_than_25_bridges_or_too_many_stones() -> None:
    sc = make(bridges=[LINE_NAMES[:26], []], stones=[[], []])
    rejects(sc, "'bridges'")
    sc = make(bridges=[LINE_NAMES[:24], []], config={"early_end": False})
    assert len(sc["stones"][0]) > 10
    rejects(sc, "'stones'")


def test_rejects_a_stone_on_an_island_its_owner_does_not_hold() -> None:
    sc = e1()
    sc["stones"][0].append("KAHU")
    rejects(sc, "'stones'")


def test_rejects_with_12_stones_a_held_island_without_its_stone() -> None:
    sc = e1()
    sc["config"] = {"stones_per_player": 12}
    sc["stones"][1] = ["ALOA"]  # Black holds HUNA too
    rejects(sc, "'stones'")
    sc["stones"][1] = ["ALOA", "HUNA"]
    assert from_scenario(sc).stones[0, 1] != 0


def test_rejects_two_stones_on_one_island() -> None:
    sc = make(bridges=[HOLD_ALOA, []], stones=[["ALOA"], ["ALOA"]])
    rejects(sc, "'stones'")


def test_rejects_a_hand_over_five() -> None:
    sc = make(hands=[["ALOA", "ALOA", "BARI", "BARI", "COCO", "COCO"], []])
    rejects(sc, "'hands'")


def test_rejects_an_empty_slot_while_the_pile_is_not_empty() -> None:
    rejects(make(face_up=["ALOA", None, "BARI"]), "'face_up'")


def test_rejects_pile_and_row_empty_in_a_running_game_outside_the_final_turns() -> None:
    rejects(make(face_up=[None, None, None], pile=[]), "'pile'")


def test_rejects_handed_back_outside_draw_or_with_five_cards() -> None:
    rejects(edited(handed_back=True), "'handed_back'")
    five = make(
        hands=[["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []], phase="draw", handed_back=True
    )
    rejects(five, "'handed_back'")
    four = make(hands=[["ALOA", "BARI", "COCO", "DUDA"], []], phase="draw", handed_back=True)
    assert from_scenario(four).handed_back[0]


def test_rejects_final_turns_with_cards_left_or_fewer_than_two_scorings() -> None:
    rejects(edited(final_turns_left=2, scorings=[[0, 1], [0, 0]]), "'final_turns_left'")
    base = dict(bridges=[HOLD_ALOA, HOLD_GOLA], face_up=[None, None, None], pile=[])
    rejects(make(**base, final_turns_left=2, scorings=[[0, 1]]), "'final_turns_left'")
    assert from_scenario(make(**base, final_turns_left=2, scorings=[[0, 1], [0, 0]]))


def test_rejects_the_draw_phase_in_a_final_turn() -> None:
    sc = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        face_up=[None, None, None],
        pile=[],
        final_turns_left=1,
        scorings=[[0, 1], [0, 0]],
        phase="draw",
    )
    rejects(sc, "'phase'")


def test_rejects_three_scorings_in_a_running_game() -> None:
    rejects(edited(scorings=[[0, 1], [0, 0], [1, 0]]), "'scorings'")


@pytest.mark.parametrize("bad", [[[1, 1]], [[2, 0]], [[0, 1], [1, 0]], [[0, 1], [0, 3]], [[-1, 0]]])
def test_rejects_scoring_points_the_rules_cannot_give(bad: list[list[int]]) -> None:
    rejects(edited(scorings=bad), "'scorings")


def test_rejects_to_act_against_alternation_or_null_while_running() -> None:
    rejects(edited(to_act=1), "'to_act'")
    rejects(edited(to_act=None), "'to_act'")
    rejects(edited(turn=41), "'to_act'")
    over = to_scenario(from_scenario(e1()), 0)
    over.update(phase="game_over", to_act=0, winner=None, end_reason="truncated")
    rejects(over, "'to_act'")


def test_rejects_winner_or_end_reason_in_a_running_game() -> None:
    rejects(edited(winner=0), "'winner'")
    rejects(edited(end_reason="early_end"), "'end_reason'")


def test_rejects_last_turn_skipped_at_turn_0() -> None:
    rejects(make(turn=0, last_turn_skipped=True), "'last_turn_skipped'")


def test_rejects_known_cards_not_in_the_hand() -> None:
    rejects(edited(known=[["BARI"], []]), "'known'")
    rejects(edited(known=[["ALOA", "ALOA"], []]), "'known'")


def test_rejects_a_running_game_that_meets_the_early_end() -> None:
    sc = e1()
    sc["bridges"][1], sc["stones"][1] = [], []
    rejects(sc, "'bridges'")
    sc["config"] = {"early_end": False}
    assert from_scenario(sc)


def test_rejects_bad_names_types_and_unknown_keys() -> None:
    rejects(edited(hands=[["ALOHA"], []]), "'hands[0]'")
    rejects(edited(bridges=[["ALOA-KAHU"], []]), "'bridges[0][0]'")
    rejects(edited(config={"stones_per_player": 13}), "'config'")
    rejects(edited(config={"colour": 1}), "'config'")
    rejects(edited(turn="40"), "'turn'")
    rejects(edited(phase="deal"), "'phase'")
    rejects(edited(extra=1), "extra")
    with pytest.raises(TypeError, match="dict"):
        from_scenario([])  # type: ignore[arg-type]
    sc = e1()
    del sc["turn"]
    rejects(sc, "'turn'")


def test_rejects_finished_positions_that_contradict_their_end() -> None:
    final = make(
        bridges=[HOLD_ALOA, HOLD_GOLA],
        face_up=[None, None, None],
        pile=[],
        scorings=[[1, 0], [0, 2], [0, 0]],
        phase="game_over",
        to_act=None,
        winner=1,
        end_reason="final_scoring",
    )
    assert from_scenario(final).terminated[0]
    rejects({**final, "winner": 0}, "'winner'")
    rejects({**final, "scorings": [[1, 0], [0, 2], [1, 0]]}, "'scorings'")
    rejects({**final, "end_reason": "early_end"}, "'end_reason'")
    rejects({**final, "end_reason": None}, "'end_reason'")


# ---- fuzz -----------------------------------------------------------------------------

ISLAND_OR_JUNK = [*ISLAND_NAMES, "ALOHA", None, 3]
LINE_OR_JUNK = [*LINE_NAMES, "ALOA-KAHU", None]


def mutate(sc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """One random edit of a scenario: a value replaced, a list entry added, removed or
    moved, a number nudged, a flag flipped."""
    sc = copy.deepcopy(sc)
    key = r.choice(sorted(sc))
    value = sc[key]
    choice = r.random()
    if choice < 0.1:
        sc[key] = r.choice([None, 0, 1, -1, 2, "x", [], [[], []], True, {}])
    elif choice < 0.15:
        del sc[key]
    elif isinstance(value, bool):
        sc[key] = not value
    elif isinstance(value, int):
        sc[key] = value + r.choice([-2, -1, 1, 2])
    elif value is None and key in ("final_turns_left", "winner", "to_act"):
        sc[key] = r.choice([0, 1, 2])
    elif value is None and key == "end_reason":
        sc[key] = r.choice(["final_scoring", "early_end", "truncated"])
    elif key == "phase":
        sc[key] = r.choice(["play", "draw", "game_over"])
    elif key == "config":
        field = r.choice(
            ["stones_per_player", "first_player", "discard_rule", "early_end", "max_turns"]
        )
        sc[key][field] = r.choice(
            [10, 11, 12, 0, 1, "random", "any_time", "no_legal_play", False, 41]
        )
    elif isinstance(value, list):
        lists = [value] if not value or not isinstance(value[0], list) else value
        target = r.choice(lists) if lists else value
        pool = LINE_OR_JUNK if key == "bridges" else ISLAND_OR_JUNK
        if key == "scorings":
            target = value
            pool = [[0, 0], [1, 0], [0, 1], [2, 0], [0, 2], [3, 0], [0, 1, 2]]
        op = r.random()
        if op < 0.4 and target:
            moved = target.pop(r.randrange(len(target)))
            if r.random() < 0.5 and key in ("hands", "discard_down", "stones", "bridges", "known"):
                lists[r.randrange(len(lists))].append(moved)
            elif r.random() < 0.5 and key != "scorings":
                r.choice([sc["pile"], sc["discard_up"]]).append(moved)
        elif op < 0.8:
            target.insert(r.randrange(len(target) + 1), r.choice(pool))
        elif target:
            target[r.randrange(len(target))] = r.choice(pool)
    return sc


def sources() -> list[dict[str, Any]]:
    out = [e1()]
    for cfg in CONFIGS:
        out += [to_scenario(s, 0) for s in random_states(cfg, 4, 3, 150)[::5]]
    return out


SOURCES = sources()


@settings(max_examples=400)
@given(
    which=st.integers(0, len(SOURCES) - 1), seed=st.integers(0, 2**32 - 1), edits=st.integers(1, 3)
)
def test_mutated_scenarios_load_into_valid_states_or_are_rejected_naming_a_key(
    which: int, seed: int, edits: int
) -> None:
    r = random.Random(seed)
    sc = SOURCES[which]
    for _ in range(edits):
        sc = mutate(sc, r)
    try:
        state = from_scenario(sc)
    except (ValueError, TypeError) as exc:
        assert re.search(r"scenario key|scenario keys|scenario must", str(exc)), str(exc)
        return
    check_invariants(state)
    assert from_scenario(to_scenario(state, 0, include_key=True)) == state
