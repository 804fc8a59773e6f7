"""R7: the end of a round (removal, next starting player) and the announce variant.

Positions are the last trick(s) of a round on `kit.ROUTE_4` (fields in its
comment); trick winners take their tricks with a Kanaloa (`kit.win_trick`).
"""

from __future__ import annotations

import numpy as np
import pytest
from kit import (
    ROUTE_4,
    act,
    field,
    hand,
    hands_for,
    legal,
    load,
    make,
    phase,
    progress,
    route_ids,
    trump,
    where,
    win_trick,
)

from kanaloa_env.core.kanaloa import Config, init
from kanaloa_env.core.kanaloa.constants import (
    ANNOUNCE,
    DOLPHIN_TAKE,
    HAND_SIZE,
    NO_ANNOUNCE,
    REMOVE_BASE,
)

NIL = {"nil_announcement": True}


def last_trick(boats: list[int], winner: int, route: list = ROUTE_4, **kw) -> dict:
    """The 8th trick of a round, one card each, which `winner` takes with a Kanaloa."""
    return make(
        route=route, boats=boats, hands=hands_for(winner, len(boats), 1), trick_number=7, **kw
    )


# ---- R7.1, R7.5 ---------------------------------------------------------------


def test_r7_1_last_trick_winner_removes_a_free_card_then_starts_the_next_round() -> None:
    # P2 takes the last trick from field 4 and lands on 5 (card 4). Cards holding
    # boats: 0 (P0, P1), 4 (P2), 10 (P3 on field 11).
    s = load(last_trick([0, 0, 4, 11], winner=2))
    s = win_trick(s, 2)
    assert field(s, 2) == 5
    assert phase(s) == "remove_round_end" and int(s.current_player[0]) == 2
    # From P2's card 4 (slot 2): k=0..2 cards 6, 8 free, 10 (P3); k=3..7 cards
    # 1, 3, 5, 7, 9 free; k=8 card 0 (P0, P1); k=9 card 2 free.
    assert legal(s) == {REMOVE_BASE + k for k in (0, 1, 3, 4, 5, 6, 7, 9)}
    s = act(s, REMOVE_BASE + 9)
    assert route_ids(s) == [0, 4, 6, 8, 10, 1, 3, 5, 7, 9]
    # R7.5 / R3.1: round 2, started by the last trick's winner, fresh deal.
    assert int(s.round[0]) == 2
    assert int(s.starting_player[0]) == 2 and int(s.current_player[0]) == 2
    assert phase(s) == "play" and int(s.trick_number[0]) == 0
    assert all(len(hand(s, p)) == HAND_SIZE for p in range(4))
    assert s.tricks_won[0].tolist() == [0, 0, 0, 0]
    assert trump(s) == "turquoise"  # P3 on field 11 still leads


def test_r7_1_the_round_end_removal_happens_once_per_round() -> None:
    s = win_trick(load(last_trick([0, 0, 4, 11], winner=2)), 2)
    s = act(s, REMOVE_BASE)
    assert phase(s) == "play"  # straight into round 2's first trick


def test_r7_2_no_removal_while_only_three_cards_remain() -> None:
    s = load(last_trick([0, 0, 0, 0], winner=1, route=[0, 2, 4]))
    s = win_trick(s, 1)
    assert int(s.round[0]) == 2 and phase(s) == "play"
    assert route_ids(s) == [0, 2, 4]
    assert int(s.current_player[0]) == 1


def test_r7_2_no_removal_when_no_card_is_free() -> None:
    # Four cards, one boat on each; P3 moves from 6 to 7 on its own card.
    s = load(last_trick([1, 2, 4, 6], winner=3, route=[0, 2, 4, 6]))
    s = win_trick(s, 3)
    assert field(s, 3) == 7
    assert int(s.round[0]) == 2 and phase(s) == "play"
    assert route_ids(s) == [0, 2, 4, 6]


@pytest.mark.parametrize(
    ("route", "boats"), [([0, 2, 4], [0, 0, 0, 0]), ([0, 2, 4, 6], [1, 2, 4, 6])]
)
def test_r7_2_octopus_removes_nothing_when_removal_is_impossible(route, boats) -> None:
    sc = make(
        route=route,
        boats=boats,
        hands=[["red-1", "red-2"], ["octopus", "red-3"], ["red-4", "red-5"], ["red-6", "red-7"]],
        trick_number=6,
    )
    s = act(load(sc), "red-1", "octopus")
    assert phase(s) == "play" and int(s.current_player[0]) == 2
    assert route_ids(s) == route


def test_r4_4_r7_1_several_removals_in_one_round() -> None:
    # P1 plays an octopus in each of the last two tricks, then P0 takes the last
    # trick: three cards leave the route in one round.
    sc = make(
        route=ROUTE_4,
        boats=[0, 0, 0, 0],
        hands=[
            ["kanaloa", "kanaloa"],
            ["octopus", "octopus"],
            ["red-1", "red-2"],
            ["red-3", "red-4"],
        ],
        trick_number=6,
    )
    s = act(load(sc), "kanaloa", "octopus", REMOVE_BASE + 9, "red-1", "red-3")
    assert len(route_ids(s)) == 10
    s = act(s, "kanaloa", "octopus")
    assert phase(s) == "remove_octopus"
    s = act(s, REMOVE_BASE + 8, "red-2", "red-4")
    assert phase(s) == "remove_round_end" and int(s.current_player[0]) == 0
    s = act(s, REMOVE_BASE + 6)  # from P0's card 2: card 5 (k = 7 is the start card)
    assert route_ids(s) == [0, 2, 4, 6, 8, 10, 1, 3]
    assert int(s.round[0]) == 2


def test_r6_3_r7_1_dolphin_on_the_last_trick_comes_before_the_removal() -> None:
    s = win_trick(load(last_trick([12, 0, 0, 0], winner=0)), 0)
    assert phase(s) == "dolphin" and field(s, 0) == 13
    s = act(s, DOLPHIN_TAKE)
    assert field(s, 0) == 14
    assert phase(s) == "remove_round_end" and int(s.current_player[0]) == 0
    s = act(s, REMOVE_BASE)
    assert int(s.round[0]) == 2 and int(s.starting_player[0]) == 0


# ---- R3.2, R7.3, R7.4: the announce variant -------------------------------------


def test_r3_2_announce_phase_in_turn_order_from_the_starting_player() -> None:
    sc = make(
        route=ROUTE_4,
        boats=[0, 0, 0, 0],
        hands=[
            ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5", "blue-6", "blue-7", "blue-8"],
            ["red-1", "red-2", "red-3", "red-4", "red-5", "red-6", "red-7", "red-8"],
            [
                "green-1",
                "green-2",
                "green-3",
                "green-4",
                "green-5",
                "green-6",
                "green-7",
                "green-8",
            ],
            ["turquoise-1", "turquoise-2", "turquoise-3", "turquoise-4", "turquoise-5"]
            + ["turquoise-6", "turquoise-7", "turquoise-8"],
        ],
        leader=2,
        phase="announce",
        announced=[None] * 4,
        config=NIL,
    )
    s = load(sc)
    order = []
    for decision in (ANNOUNCE, NO_ANNOUNCE, NO_ANNOUNCE, ANNOUNCE):
        assert phase(s) == "announce" and legal(s) == {ANNOUNCE, NO_ANNOUNCE}
        order.append(int(s.current_player[0]))
        s = act(s, decision)
    assert order == [2, 3, 0, 1]
    assert s.announced[0].tolist() == [0, 1, 1, 0]
    assert phase(s) == "play" and int(s.current_player[0]) == 2


def test_r3_2_every_round_starts_with_the_announce_phase() -> None:
    s = init(Config(num_players=4, nil_announcement=True), batch_size=8, seed=3)
    assert (s.phase == 0).all()  # Phase.ANNOUNCE
    assert (s.current_player == s.starting_player).all()
    s = load(last_trick([0, 0, 4, 11], winner=2, config=NIL))
    s = act(win_trick(s, 2), REMOVE_BASE)
    assert phase(s) == "announce" and int(s.current_player[0]) == 2
    assert s.announced[0].tolist() == [-1, -1, -1, -1]


def _announced_winner(config: dict) -> object:
    sc = make(
        route=ROUTE_4,
        boats=[0, 1, 0, 0],
        progress=[0, 1, 0, 0],
        hands=hands_for(1, 4, 2),
        trick_number=6,
        announced=[False, True, False, False],
        config=config,
    )
    return win_trick(load(sc), 1)


def test_r7_4_announced_boat_does_not_move_for_a_trick() -> None:
    s = _announced_winner(NIL)
    assert s.tricks_won[0, 1] == 1
    assert field(s, 1) == 1 and progress(s)[1] == 1
    assert int(s.current_player[0]) == 1 and phase(s) == "play"  # still leads


def test_r7_4_announced_boat_moves_when_configured() -> None:
    s = _announced_winner({**NIL, "announced_boat_moves": True})
    assert field(s, 1) == 2


def test_r7_4_tilted_boat_still_blocks_its_field() -> None:
    # P1 announced and stands on field 1; P0 wins and skips it.
    sc = make(
        route=ROUTE_4,
        boats=[0, 1, 0, 0],
        hands=hands_for(0, 4, 2),
        trick_number=6,
        announced=[False, True, False, False],
        config=NIL,
    )
    s = win_trick(load(sc), 0)
    assert field(s, 0) == 2


def _payout_position(starting_player: int, announced: list[bool], **kw) -> object:
    """Last trick, P0 wins it from field 10 and lands on 12 (skipping P3 on 11).

    P1 stands on field 4 and P2 on 5; the round-end removal takes card 3 (fields
    14, 15), far from them, so only the payouts move P1 and P2.
    """
    sc = last_trick(
        [10, 4, 5, 11],
        winner=0,
        starting_player=starting_player,
        announced=announced,
        config=NIL,
        **kw,
    )
    s = win_trick(load(sc), 0)
    assert field(s, 0) == 12 and phase(s) == "remove_round_end"
    return act(s, REMOVE_BASE)  # card 3, the first card ahead of P0's card 1


def test_r7_3_payout_three_moves_in_turn_order_from_the_starting_player() -> None:
    # Starting player 2: P2 pays out first, 5 -> 6 -> 7 -> 8; then P1, 4 -> 5 -> 6 -> 7.
    s = _payout_position(2, [False, True, True, False])
    assert where(s, 2) == (8, 0)  # field 8
    assert where(s, 1) == (6, 1)  # field 7
    assert int(s.round[0]) == 2


def test_r7_3_payout_order_matters() -> None:
    # Starting player 1: P1 first, 4 -> 6 (skips P2) -> 7 -> 8; then P2, 5 -> 6 -> 7 -> 9.
    s = _payout_position(1, [False, True, True, False])
    assert where(s, 1) == (8, 0)
    assert where(s, 2) == (8, 1)


def test_r7_3_announced_player_who_won_a_trick_gets_nothing() -> None:
    # P1 announced but won one of the earlier tricks.
    s = _payout_position(2, [False, True, True, False], tricks_won=[6, 1, 0, 0])
    assert where(s, 1) == (4, 0)  # field 4: no payout
    assert where(s, 2) == (8, 0)  # P2 (no trick) still pays out from 5 to 8


def test_r7_3_no_payout_without_announcing() -> None:
    s = _payout_position(2, [False, False, False, False])
    assert where(s, 1) == (4, 0) and where(s, 2) == (4, 1)


def test_r7_3_dolphin_only_where_the_third_payout_step_ends() -> None:
    # P1 pays out from 10: 11, 12, 13 (blue*, with 12 and 14 free): a decision.
    sc = last_trick(
        [0, 10, 0, 0], winner=0, route=ROUTE_4, announced=[False, True, False, False], config=NIL
    )
    s = win_trick(load(sc), 0)
    s = act(s, REMOVE_BASE + 9)  # P0 (field 1) removes card 9, the last card
    assert phase(s) == "dolphin" and int(s.current_player[0]) == 1
    assert field(s, 1) == 13
    s = act(s, DOLPHIN_TAKE)
    assert field(s, 1) == 14
    assert int(s.round[0]) == 2 and phase(s) == "announce"


def test_r7_3_dolphin_passed_during_the_payout_does_not_count() -> None:
    # P1 pays out from 12: 13 (blue*, passed), 14 (green*, passed), 15: no decision.
    sc = last_trick(
        [0, 12, 0, 0], winner=0, route=ROUTE_4, announced=[False, True, False, False], config=NIL
    )
    s = act(win_trick(load(sc), 0), REMOVE_BASE + 9)
    assert field(s, 1) == 15
    assert phase(s) == "announce"


def test_r7_3_payout_that_laps_ends_the_game_at_once() -> None:
    # Three cards (no removal). P1 (field 5, progress 5) is right behind P0 on
    # the start field 0; its first payout step skips P0 and P2 and laps P0.
    # P2 announced too but pays after P1 (starting player 1) and never moves.
    sc = last_trick(
        [0, 5, 1, 2],
        winner=3,
        route=[0, 2, 4],
        progress=[0, 5, 1, 2],
        starting_player=1,
        announced=[False, True, True, False],
        config=NIL,
    )
    s = win_trick(load(sc), 3)
    assert s.terminated[0] and not s.truncated[0]
    assert int(s.winner[0]) == 1 and phase(s) == "game_over"
    assert field(s, 1) == 2 and field(s, 2) == 1
    assert progress(s)[1] == 8 and progress(s)[1] - progress(s)[0] > 6
    np.testing.assert_allclose(s.rewards[0], [-1 / 3, 1, -1 / 3, -1 / 3])


def test_r7_5_winner_of_the_last_trick_starts_the_next_round_in_the_variant() -> None:
    s = _payout_position(2, [False, True, True, False])
    assert int(s.starting_player[0]) == 0 and int(s.current_player[0]) == 0
    assert phase(s) == "announce"


def test_r7_1_announced_winner_of_the_last_trick_still_removes_and_starts() -> None:
    # P1 announced, takes the last trick without moving (R7.4), removes a card
    # (R7.1), gets no payout (R7.3) and starts round 2 (R7.5).
    sc = last_trick([0, 3, 0, 0], winner=1, announced=[False, True, False, False], config=NIL)
    s = win_trick(load(sc), 1)
    assert field(s, 1) == 3
    assert phase(s) == "remove_round_end" and int(s.current_player[0]) == 1
    s = act(s, REMOVE_BASE)
    assert field(s, 1) == 3
    assert int(s.round[0]) == 2 and int(s.starting_player[0]) == 1
    assert phase(s) == "announce" and int(s.current_player[0]) == 1
