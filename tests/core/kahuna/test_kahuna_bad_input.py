"""Bad input: clear TypeError/ValueError naming games and actions, the state left as it
was, and input arrays never written."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from kahuna_kit import END_PLAY, HOLD_ALOA, HOLD_GOLA, act, e1, load, make

from kanaloa_env.core.kahuna import (
    Config,
    State,
    init,
    observe,
    public_view,
    step,
    step_inplace,
    to_scenario,
    validate_actions,
)


def batch() -> State:
    """Four games in different phases: play, draw, a final turn, over."""
    play = load(e1())
    draw = act(load(e1()), END_PLAY)
    final = load(
        make(
            bridges=[HOLD_ALOA, HOLD_GOLA],
            hands=[["KAHU"], []],
            face_up=[None, None, None],
            pile=[],
            scorings=[[1, 0], [0, 0]],
            final_turns_left=2,
        )
    )
    over = act(
        load(make(bridges=[["ALOA-BARI"], ["ALOA-HUNA"]], hands=[["ALOA"], []], scorings=[[0, 0]])),
        "place ALOA-DUDA with ALOA",
    )
    assert over.done[0]
    return State.concatenate([play, draw, final, over])


GOOD = np.array([9, 148, 147, 0])


@pytest.mark.parametrize("fn", [step, step_inplace], ids=["step", "step_inplace"])
@pytest.mark.parametrize(
    "actions, error, pattern",
    [
        (GOOD.astype(float), TypeError, "integer array"),
        (GOOD.astype(bool), TypeError, "integer array"),
        (GOOD[:3], ValueError, r"shape \(4,\)"),
        (GOOD.reshape(2, 2), ValueError, r"shape \(4,\)"),
        (np.array([153, 148, 147, 0]), ValueError, "game 0: .*out of range 0..152"),
        (np.array([-1, 148, 147, 0]), ValueError, "game 0: .*out of range"),
        (
            np.array([9, 9, 147, 0]),
            ValueError,
            r"game 1: player 0 in phase draw cannot take action 9 \(place BARI-DUDA with DUDA\)",
        ),
        (
            np.array([9, 148, 148, 0]),
            ValueError,
            r"game 2: player 0 in phase play \(final turn\) cannot take action 148 \(take slot 0\)",
        ),
        (np.array([9, 147, 135, 0]), ValueError, r"game 1: .*end play\).*game 2: .*discard ALOA"),
    ],
)
def test_bad_actions_raise_and_leave_the_state_unchanged(
    fn: Callable[..., State], actions: np.ndarray, error: type, pattern: str
) -> None:
    s = batch()
    before = s.copy()
    with pytest.raises(error, match=pattern):
        fn(s, actions)
    assert s == before


def test_good_actions_step_every_game_and_ignore_the_finished_one() -> None:
    s = batch()
    for a in (GOOD, np.array([9, 148, 147, 99])):
        after = step(s, a)
        assert after.turn.tolist() == [40, 41, 11, s.turn[3]]
        assert to_scenario(after, 3) == to_scenario(s, 3)


@pytest.mark.parametrize("fn", [step, step_inplace], ids=["step", "step_inplace"])
def test_inputs_are_not_written(
    fn: Callable[..., State], read_only: Callable[[State], State]
) -> None:
    s = batch()
    actions = GOOD.copy()
    actions.flags.writeable = False
    if fn is step:
        s = read_only(s)
    fn(s, actions)
    assert actions.tolist() == GOOD.tolist()


def test_observe_and_public_view_do_not_write_the_state(
    read_only: Callable[[State], State],
) -> None:
    s = read_only(batch())
    observe(s)
    observe(s, seat=np.array([1, 0, 1, 0]))
    public_view(s, 0)


def test_validate_actions_returns_int64_and_checks_like_step() -> None:
    s = batch()
    got = validate_actions(s, GOOD.astype(np.uint8))
    assert got.dtype == np.int64 and got.tolist() == GOOD.tolist()
    with pytest.raises(ValueError, match="game 0"):
        validate_actions(s, np.array([10, 148, 147, 0]))


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        ({"config": "default"}, TypeError, "Config"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"batch_size": 2.0}, TypeError, "batch_size"),
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 1.5}, TypeError, "seed"),
        ({"first_game": -3}, ValueError, "first_game"),
        ({"first_game": 2**64 - 1}, ValueError, "first_game"),
    ],
)
def test_init_rejects_bad_arguments(kwargs: dict, error: type, pattern: str) -> None:
    args = {"config": Config(), "batch_size": 2, "seed": 0} | kwargs
    with pytest.raises(error, match=re.escape(pattern)):
        init(**args)


def test_to_scenario_and_public_view_reject_bad_indices() -> None:
    s = batch()
    with pytest.raises(ValueError, match="0..3"):
        to_scenario(s, 4)
    with pytest.raises(TypeError, match="int"):
        to_scenario(s, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="0 or 1"):
        public_view(s, 2)
    with pytest.raises(ValueError, match="shape"):
        public_view(s, np.array([0, 1]))
    with pytest.raises(ValueError, match="public view"):
        to_scenario(public_view(s, 0), 0)
