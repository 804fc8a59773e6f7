"""R9 (progress, lapping, the end of the game) and R10 (rewards).

Positions on `kit.ROUTE_4` (22 fields, fields in its comment). A lap is the
current route's length in fields; a boat laps the last boat when its progress
exceeds the last boat's by more than a lap, i.e. it sails past the last boat's
field from behind (R9.2).
"""

from __future__ import annotations

import numpy as np
import pytest
from kit import (
    ROUTE_4,
    act,
    field,
    first_legal,
    hand,
    hands_for,
    load,
    make,
    phase,
    progress,
    route_ids,
    win_trick,
)

from kanaloa_env.core.kanaloa import step
from kanaloa_env.core.kanaloa.constants import DOLPHIN_TAKE, REMOVE_BASE
from kanaloa_env.testing import check_invariants


def race(boats: list[int], progress: list[int], winner: int, cards: int = 2, **kw) -> dict:
    """A trick (of `cards` left per hand) on ROUTE_4 that `winner` takes with a Kanaloa."""
    return make(
        route=kw.pop("route", ROUTE_4),
        boats=boats,
        progress=progress,
        hands=hands_for(winner, len(boats), cards),
        trick_number=8 - cards,
        **kw,
    )


# P1 leads the race a lap ahead of the rest, right behind the last boat P0 (field 5).
BEHIND_LAST = {"boats": [5, 4, 10, 12], "progress": [5, 26, 10, 12]}


def test_r9_2_lapping_by_skipping_the_last_boats_field() -> None:
    s = load(race(**BEHIND_LAST, winner=1))
    s = win_trick(s, 1)
    assert field(s, 1) == 6 and progress(s)[1] == 28  # 28 - 5 > 22
    assert s.terminated[0] and not s.truncated[0]
    assert int(s.winner[0]) == 1
    np.testing.assert_allclose(s.rewards[0], [-1 / 3, 1, -1 / 3, -1 / 3])
    check_invariants(s)


def test_r9_2_landing_right_behind_the_last_boat_does_not_lap() -> None:
    s = load(race([5, 3, 10, 12], [5, 25, 10, 12], winner=1))
    s = win_trick(s, 1)
    assert field(s, 1) == 4 and progress(s)[1] - progress(s)[0] == 21
    assert not s.terminated[0] and phase(s) == "play"


def test_r9_2_game_ends_at_once_mid_round() -> None:
    # Trick 6 of 8: two tricks are never played, no removal, no payout.
    s = load(race(**BEHIND_LAST, winner=1, cards=3))
    s = win_trick(s, 1)
    assert phase(s) == "game_over" and int(s.current_player[0]) == -1
    assert all(len(hand(s, p)) == 2 for p in range(4))
    assert not s.legal[0].any()
    # A finished game ignores its action, whatever it is, and pays no more rewards.
    for a in (0, 49, 65, -5, 1000):
        after = step(s, np.array([a]))
        assert after.replace(rewards=s.rewards).equal(s)
        assert not after.rewards.any()


def _shrink_then_win(remove: bool) -> object:
    """P1 (field 5) leads; P0 (field 8) is last; card 6 (fields 6, 7) lies between.

    P2 plays an octopus and, if `remove`, removes card 6 (k = 7 from P2's card 1).
    P1 then takes the trick.
    """
    sc = make(
        route=ROUTE_4,
        boats=[8, 5, 12, 16],
        progress=[8, 27, 12, 16],
        hands=[
            ["red-1", "red-2"],
            ["kanaloa", "kanaloa"],
            ["octopus", "red-3"],
            ["red-4", "red-5"],
        ],
        trick_number=6,
    )
    s = act(load(sc), "red-1", "kanaloa")
    if remove:
        s = act(s, "octopus", REMOVE_BASE + 7)
        assert 6 not in route_ids(s)
        # R9.3: the removal shrank the lap to 20 with P1 19 ahead: the game goes on.
        assert not s.terminated[0] and phase(s) == "play"
        assert progress(s)[1] - progress(s)[0] == 19
        check_invariants(s)
    else:
        s = act(s, "red-3")
    return act(s, "red-4")


def test_r9_2_lapping_after_the_route_shrank() -> None:
    s = _shrink_then_win(remove=True)
    assert s.terminated[0] and int(s.winner[0]) == 1
    assert progress(s)[1] - progress(s)[0] == 21  # > 20, the shrunk lap


def test_r9_2_same_move_without_the_removal_does_not_lap() -> None:
    s = _shrink_then_win(remove=False)
    assert not s.terminated[0]
    assert progress(s)[1] - progress(s)[0] == 20  # < 22


def test_r9_3_removal_never_ends_the_game() -> None:
    # The removal leaves P1 one field behind the last boat (one lap minus one ahead),
    # and the game goes on (checked inside `_shrink_then_win`).
    _shrink_then_win(remove=True)


def test_r9_2_dolphin_move_cannot_lap() -> None:
    # P1 (field 12, 19 ahead of the last boat P0 on 15) wins, lands on the dolphin
    # 13 and takes the bonus move to 14, right behind P0: 21 ahead, not lapped.
    # (The bonus move needs a free field ahead, so it never passes the last boat.)
    s = load(race([15, 12, 18, 20], [15, 34, 18, 20], winner=1, cards=3))
    s = act(win_trick(s, 1), DOLPHIN_TAKE)
    assert field(s, 1) == 14 and progress(s)[1] - progress(s)[0] == 21
    assert not s.terminated[0]
    s = win_trick(s, 1)  # the next move skips P0's field and laps
    assert s.terminated[0] and int(s.winner[0]) == 1


def test_r9_1_removal_shrinks_exactly_the_gaps_it_lies_on() -> None:
    # Last boat P0 on field 1; P1 10, P2 12, P3 20. P3 removes card 4 (fields 4, 5),
    # on every gap; P0 removes card 7 (fields 18, 19), only on P3's gap.
    sc = make(
        route=ROUTE_4,
        boats=[1, 10, 12, 20],
        hands=[["octopus"], ["red-1"], ["red-2"], ["octopus"]],
        leader=3,
        trick_number=7,
    )
    s = load(sc)
    assert progress(s) == [1, 10, 12, 20]
    s = act(s, "octopus", REMOVE_BASE + 2)
    assert route_ids(s) == [0, 2, 6, 8, 10, 1, 3, 5, 7, 9]
    assert progress(s) == [1, 8, 10, 18]
    s = act(s, "octopus", REMOVE_BASE + 7)
    assert route_ids(s) == [0, 2, 6, 8, 10, 1, 3, 5, 9]
    assert progress(s) == [1, 8, 10, 16]
    check_invariants(s)


# ---- R9.4 truncation, R10 rewards ----------------------------------------------


@pytest.mark.parametrize("reward", ["win_loss", "rank"])
def test_r9_4_truncated_after_max_rounds(reward: str) -> None:
    sc = race([0, 3, 7, 11], [0, 3, 7, 11], winner=2, cards=1, round=3)
    sc["config"] = {"max_rounds": 3, "reward": reward} if reward == "rank" else {"max_rounds": 3}
    s = win_trick(load(sc), 2)
    assert phase(s) == "remove_round_end"
    assert not s.rewards.any()
    s = act(s, first_legal(s))
    assert s.truncated[0] and not s.terminated[0]
    assert phase(s) == "game_over" and int(s.winner[0]) == -1
    assert int(s.round[0]) == 3 and int(s.current_player[0]) == -1
    if reward == "win_loss":
        assert not s.rewards.any()
    else:  # R10 rank: P2 moved 7 -> 8; ranks by progress 11 > 8 > 3 > 0
        np.testing.assert_allclose(s.rewards[0], [-1, -1 / 3, 1 / 3, 1])
    check_invariants(s)


def test_r9_4_round_before_max_rounds_goes_on() -> None:
    sc = race([0, 3, 7, 11], [0, 3, 7, 11], winner=2, cards=1, round=2)
    sc["config"] = {"max_rounds": 3}
    s = win_trick(load(sc), 2)
    s = act(s, first_legal(s))
    assert not s.truncated[0] and int(s.round[0]) == 3 and phase(s) == "play"


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_r10_1_win_loss_rewards_at_the_ending_step_only(num_players: int) -> None:
    # P1 on field 4, one lap ahead, right behind the last boat P0 on 5.
    boats = [5, 4, 10, 12, 14][:num_players]
    prog = [5, 26, 10, 12, 14][:num_players]
    route = ROUTE_4[:10] if num_players == 3 else ROUTE_4
    if num_players == 3:
        prog[1] = 24  # a lap is 20 fields on 10 cards
    s = load(race(boats, prog, winner=1, route=route))
    rewards = []
    for _ in range(num_players):
        s = act(
            s, "kanaloa" if int(s.current_player[0]) == 1 else int(np.flatnonzero(s.legal[0])[0])
        )
        rewards.append(s.rewards[0].copy())
    assert s.terminated[0]
    assert all(not r.any() for r in rewards[:-1])
    want = np.full(num_players, -1 / (num_players - 1))
    want[1] = 1
    np.testing.assert_allclose(rewards[-1], want)
    assert abs(rewards[-1].sum()) < 1e-6


def test_r10_rank_rewards_on_a_win_spread_by_progress() -> None:
    sc = race(**BEHIND_LAST, winner=1)
    sc["config"] = {"reward": "rank"}
    s = win_trick(load(sc), 1)
    assert s.terminated[0]
    # progress: P1 28 > P3 12 > P2 10 > P0 5
    np.testing.assert_allclose(s.rewards[0], [-1, 1, -1 / 3, 1 / 3])


def test_r10_rank_rewards_ties_share() -> None:
    # Truncation with P0, P1 still on the start field (tied, progress 0).
    sc = race([0, 0, 7, 11], [0, 0, 7, 11], winner=3, cards=1, round=1)
    sc["config"] = {"max_rounds": 1, "reward": "rank"}
    s = win_trick(load(sc), 3)
    s = act(s, first_legal(s))
    assert s.truncated[0]
    np.testing.assert_allclose(s.rewards[0], [-2 / 3, -2 / 3, 1 / 3, 1])
    assert abs(s.rewards[0].sum()) < 1e-6
