"""Bad input: clear TypeError/ValueError naming games and actions, and no state change.

A batch of 8 games, each in a different kind of position (built from scenarios
and joined), is the target; every bad call must leave it exactly as it was, for
the pure `step` and for `step_inplace` alike.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kit import ROUTE_4, act, hands_for, load, make, win_trick

from kanaloa_env.core.kanaloa import (
    Config,
    State,
    from_scenario,
    init,
    legal_action_mask,
    observe,
    step,
    step_inplace,
    to_scenario,
)
from kanaloa_env.core.kanaloa.constants import DOLPHIN_TAKE, NO_ANNOUNCE, OCTOPUS, REMOVE_BASE


def _positions() -> list[State]:
    """Batch-1 states, one per phase (plus a finished game), same config."""
    cfg = {"nil_announcement": True}
    play = load(
        make(route=ROUTE_4, boats=[0] * 4, hands=hands_for(0, 4, 2), trick_number=6, config=cfg)
    )
    octo = make(
        route=ROUTE_4,
        boats=[0] * 4,
        hands=[["red-1"], ["octopus"], ["red-2"], ["red-3"]],
        trick_number=7,
        config=cfg,
    )
    remove_octopus = act(load(octo), "red-1", OCTOPUS)
    dolphin = win_trick(
        load(
            make(
                route=ROUTE_4,
                boats=[12, 0, 0, 0],
                hands=hands_for(0, 4, 2),
                trick_number=6,
                config=cfg,
            )
        ),
        0,
    )
    round_end = win_trick(
        load(
            make(route=ROUTE_4, boats=[0] * 4, hands=hands_for(2, 4, 1), trick_number=7, config=cfg)
        ),
        2,
    )
    announce = act(round_end, REMOVE_BASE)
    over = win_trick(
        load(
            make(
                route=ROUTE_4,
                boats=[5, 4, 10, 12],
                progress=[5, 26, 10, 12],
                hands=hands_for(1, 4, 2),
                trick_number=6,
                config=cfg,
            )
        ),
        1,
    )
    states = [play, remove_octopus, dolphin, round_end, announce, over, play, dolphin]
    phases = [to_scenario(s, 0)["phase"] for s in states]
    assert phases == [
        "play",
        "remove_octopus",
        "dolphin",
        "remove_round_end",
        "announce",
        "game_over",
        "play",
        "dolphin",
    ]
    return states


@pytest.fixture(scope="module")
def batch() -> State:
    return State.concatenate(_positions())


def good_actions(state: State) -> np.ndarray:
    """One legal action per game (0 for finished games)."""
    return np.array([np.flatnonzero(row)[0] if row.any() else 0 for row in state.legal])


def assert_rejected(state: State, actions: object, error: type, match: str) -> None:
    """Both step functions raise `error` and leave `state` exactly unchanged."""
    before = state.copy()
    with pytest.raises(error, match=match):
        step(state, actions)  # type: ignore[arg-type]
    assert state.equal(before)
    with pytest.raises(error, match=match):
        step_inplace(state, actions)  # type: ignore[arg-type]
    assert state.equal(before)


def test_good_actions_step(batch: State) -> None:
    out = step(batch, good_actions(batch))
    assert not out.equal(batch)
    # The finished game did not change (its rewards were those of its last step).
    assert out.game_equal(batch.replace(rewards=out.rewards))[5]
    assert not out.rewards[5].any()


@pytest.mark.parametrize(
    "actions",
    [np.zeros(8, np.float64), np.zeros(8, bool), np.array(["1"] * 8), np.zeros(8, object), 3.0],
    ids=["float", "bool", "str", "object", "python-float"],
)
def test_non_integer_actions_are_a_type_error(batch: State, actions: object) -> None:
    assert_rejected(batch, actions, TypeError, r"actions must be an integer array of shape \(8,\)")


@pytest.mark.parametrize("shape", [(), (7,), (9,), (8, 1), (1, 8)], ids=lambda s: f"shape{s}")
def test_wrong_shape_is_a_value_error(batch: State, shape: tuple) -> None:
    actions = np.zeros(shape, np.int64)
    match = rf"actions must have shape \(8,\), got {re.escape(str(shape))}"
    assert_rejected(batch, actions, ValueError, match)


@pytest.mark.parametrize("value", [-1, 66, 1000, -(2**40)])
def test_out_of_range_names_the_game_and_the_range(batch: State, value: int) -> None:
    a = good_actions(batch)
    a[3] = value
    assert_rejected(
        batch,
        a,
        ValueError,
        rf"game 3: player 2 in phase remove_round_end cannot take action {value} \(out of range 0\.\.65\)",
    )


def test_huge_unsigned_action_is_named_as_given(batch: State) -> None:
    a = good_actions(batch).astype(np.uint64)
    a[3] = 2**64 - 1  # -1 once cast to int64
    assert_rejected(batch, a, ValueError, rf"cannot take action {2**64 - 1} \(out of range")


def test_illegal_actions_name_every_bad_game(batch: State) -> None:
    a = good_actions(batch)
    a[0] = DOLPHIN_TAKE  # play phase
    a[2] = REMOVE_BASE  # dolphin phase
    a[4] = 0  # announce phase: a card
    with pytest.raises(ValueError) as err:
        step(batch, a)
    msg = str(err.value)
    assert "game 0: player 0 in phase play cannot take action 64 (take dolphin move)" in msg
    assert (
        "game 2: player 0 in phase dolphin cannot take action 50 (remove ocean card 0 ahead)" in msg
    )
    assert "game 4: player 2 in phase announce cannot take action 0 (play blue-1)" in msg
    assert "game 1" not in msg and "game 6" not in msg


def test_card_not_in_hand_is_illegal(batch: State) -> None:
    a = good_actions(batch)
    a[6] = 47  # turquoise-12, which player 0 does not hold
    assert_rejected(batch, a, ValueError, r"game 6: .*action 47 \(play turquoise-12\)")


def test_many_bad_games_are_summarised(batch: State) -> None:
    big = State.concatenate([batch] * 3)
    a = np.full(24, 63)  # only the announce games may take it
    with pytest.raises(ValueError, match=r"and \d+ more"):
        step(big, a)


def test_finished_games_ignore_their_action(batch: State) -> None:
    for value in (0, 49, 65, -7, 10_000):
        a = good_actions(batch)
        a[5] = value
        out = step(batch, a)
        assert out.game_equal(batch.replace(rewards=out.rewards))[5]
        assert not out.rewards[5].any()
        assert not out.legal[5].any() and not legal_action_mask(out)[5].any()


def test_step_does_not_write_its_input(batch: State, read_only) -> None:
    frozen = read_only(batch.copy())
    out = step(frozen, good_actions(batch))
    assert out.phase.flags.writeable
    assert frozen.equal(batch)
    observe(frozen)
    legal_action_mask(frozen)
    to_scenario(frozen, 3)


def test_step_inplace_writes_and_returns_the_same_object(batch: State) -> None:
    s = batch.copy()
    out = step_inplace(s, good_actions(batch))
    assert out is s
    assert s.equal(step(batch, good_actions(batch)))


def test_legal_action_mask_is_a_copy(batch: State) -> None:
    m = legal_action_mask(batch)
    m[:] = True
    assert not batch.legal.all()


def test_actions_as_a_list_or_small_ints_are_accepted(batch: State) -> None:
    a = good_actions(batch)
    expect = step(batch, a)
    assert step(batch, a.tolist()).equal(expect)
    assert step(batch, a.astype(np.uint8)).equal(expect)
    assert step(batch, a.astype(np.int8)).equal(expect)


# ---- init, observe and scenario arguments --------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"batch_size": 2.0}, TypeError, "batch_size"),
        ({"batch_size": True}, TypeError, "batch_size"),
        ({"batch_size": 2, "seed": -1}, ValueError, "seed"),
        ({"batch_size": 2, "seed": 2**64}, ValueError, "seed"),
        ({"batch_size": 2, "seed": 1.5}, TypeError, "seed"),
        ({"batch_size": 2, "first_game": -1}, ValueError, "first_game"),
    ],
)
def test_init_rejects_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        init(Config(), **kwargs)


def test_init_needs_a_config() -> None:
    with pytest.raises(TypeError, match="config"):
        init({"num_players": 4}, 2)  # type: ignore[arg-type]


def test_from_scenario_errors_leave_nothing_behind() -> None:
    s = init(Config(), 1, seed=0)
    sc = to_scenario(s, 0)
    sc["hands"][0] = sc["hands"][0][:-1]
    with pytest.raises(ValueError, match=r"hands\[0\]"):
        from_scenario(sc)
    assert s.equal(init(Config(), 1, seed=0))


def test_no_announce_is_illegal_outside_the_announce_phase(batch: State) -> None:
    a = good_actions(batch)
    a[7] = NO_ANNOUNCE  # a dolphin decision
    assert_rejected(
        batch, a, ValueError, r"game 7: player 0 in phase dolphin .* \(do not announce\)"
    )
