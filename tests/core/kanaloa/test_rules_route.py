"""R6: boat moves, the dolphin, ocean-card removal actions and the start field.

Positions use `kit.ROUTE_4` (fields in its comment); the trick winner takes the
trick with a Kanaloa (`kit.win_trick`), so only the boats vary.
"""

from __future__ import annotations

import pytest
from kit import (
    ROUTE_4,
    act,
    field,
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

from kanaloa_env.core.kanaloa.constants import DOLPHIN_DECLINE, DOLPHIN_TAKE, REMOVE_BASE


def position(boats: list[int], winner: int, progress: list[int] | None = None, **kw) -> dict:
    """Trick 7 of a round (two cards each) that `winner` can take with a Kanaloa."""
    return make(
        route=kw.pop("route", ROUTE_4),
        boats=boats,
        progress=progress,
        hands=hands_for(winner, len(boats), 2),
        trick_number=6,
        **kw,
    )


# ---- R6.2 moving to the next free field -----------------------------------------


def test_r6_2_moves_to_the_next_field_when_it_is_free() -> None:
    s = win_trick(load(position([2, 0, 0, 0], winner=0)), 0)
    assert field(s, 0) == 3 and progress(s)[0] == 3


def test_r6_2_skips_several_occupied_fields() -> None:
    # P0 on 2; fields 3, 4, 5 hold P1, P2, P3: P0 lands on 6, sailing 4 fields.
    s = win_trick(load(position([2, 3, 4, 5], winner=0)), 0)
    assert field(s, 0) == 6
    assert progress(s) == [6, 3, 4, 5]


def test_r6_2_route_wraps_around_onto_the_start_field() -> None:
    # P0 on the last field 21 (last boat); the others ahead past the start field.
    # R6.4: the start field is free once every boat left it, an ordinary field.
    s = load(position([21, 3, 5, 7], winner=0, progress=[21, 25, 27, 29]))
    s = win_trick(s, 0)
    assert field(s, 0) == 0 and progress(s)[0] == 22
    assert not s.terminated[0]


def test_r6_4_start_field_is_skipped_once_a_boat_stands_on_it_again() -> None:
    # P1 came round onto the start field; P0 on field 21 skips it and lands on 1.
    s = load(position([21, 0, 5, 7], winner=0, progress=[21, 22, 27, 29]))
    s = win_trick(s, 0)
    assert field(s, 0) == 1 and progress(s)[0] == 23


def test_r2_3_boats_share_the_start_field_only_until_they_leave() -> None:
    # All on the start field. P0 leaves to field 1; P1 then skips it to field 2.
    s = load(position([0, 0, 0, 0], winner=0, route=ROUTE_4))
    s = win_trick(s, 0)
    assert [field(s, p) for p in range(4)] == [1, 0, 0, 0]
    sc = make(
        route=ROUTE_4,
        boats=[1, 0, 0, 0],
        hands=hands_for(1, 4, 1),
        leader=1,
        trick_number=7,
    )
    s = win_trick(load(sc), 1)
    assert [field(s, p) for p in range(4)] == [1, 2, 0, 0]
    assert progress(s) == [1, 2, 0, 0]


def test_r6_1_fields_of_a_removed_card_are_not_sailed() -> None:
    # P1 (start field) plays an octopus and removes card 4 (fields 4, 5), k = 1
    # (k = 0 is card 2, which carries P0). P0 then sails from 3 straight onto card 6.
    sc = make(
        route=ROUTE_4,
        boats=[3, 0, 0, 0],
        hands=[["kanaloa", "red-1"], ["octopus", "red-2"], ["red-3", "red-4"], ["red-5", "red-6"]],
        trick_number=6,
    )
    s = act(load(sc), "kanaloa", "octopus")
    assert phase(s) == "remove_octopus"
    assert REMOVE_BASE not in legal(s) and REMOVE_BASE + 1 in legal(s)
    s = act(s, REMOVE_BASE + 1, "red-3", "red-5")
    assert 4 not in route_ids(s)
    assert where(s, 0) == (6, 0)
    assert progress(s)[0] == 4  # one field sailed, the removed card's two do not count


# ---- R6.3 the dolphin ----------------------------------------------------------
# Field 13 (card 1, blue*) and 14 (card 3, green*) carry dolphins; 15 does not.


def test_r6_3_dolphin_with_free_neighbours_offers_the_bonus_move() -> None:
    s = win_trick(load(position([12, 0, 0, 0], winner=0)), 0)
    assert field(s, 0) == 13
    assert phase(s) == "dolphin" and int(s.current_player[0]) == 0
    assert legal(s) == {DOLPHIN_TAKE, DOLPHIN_DECLINE}
    s = act(s, DOLPHIN_TAKE)
    assert field(s, 0) == 14 and progress(s)[0] == 14
    assert phase(s) == "play" and int(s.current_player[0]) == 0


def test_r6_3_dolphin_declined_the_boat_stays() -> None:
    s = win_trick(load(position([12, 0, 0, 0], winner=0)), 0)
    s = act(s, DOLPHIN_DECLINE)
    assert field(s, 0) == 13 and progress(s)[0] == 13
    assert phase(s) == "play" and trump(s) == "blue"


def test_r6_3_dolphin_blocked_behind() -> None:
    # P0 on 11 skips P1 on 12 and lands on 13: the field behind is taken.
    s = win_trick(load(position([11, 12, 0, 0], winner=0)), 0)
    assert field(s, 0) == 13 and phase(s) == "play"


def test_r6_3_dolphin_blocked_ahead() -> None:
    s = win_trick(load(position([12, 14, 0, 0], winner=0)), 0)
    assert field(s, 0) == 13 and phase(s) == "play"


def test_r6_3_skipped_dolphin_field_does_not_count() -> None:
    # P0 on 18 skips P1 on the dolphin field 19 and ends on 20 (no dolphin).
    s = win_trick(load(position([18, 19, 0, 0], winner=0)), 0)
    assert field(s, 0) == 20 and phase(s) == "play"


def test_r6_3_dolphin_automatic_moves_without_a_decision() -> None:
    s = load(position([12, 0, 0, 0], winner=0, config={"dolphin": "automatic"}))
    s = win_trick(s, 0)
    assert field(s, 0) == 14 and progress(s)[0] == 14
    assert phase(s) == "play"


@pytest.mark.parametrize("chain", [False, True])
def test_r6_3_dolphin_chain_optional(chain: bool) -> None:
    # The bonus move ends on field 14, itself a dolphin with 13 and 15 free.
    s = load(position([12, 0, 0, 0], winner=0, config={"dolphin_chain": chain}))
    s = act(win_trick(s, 0), DOLPHIN_TAKE)
    assert field(s, 0) == 14
    if chain:
        assert phase(s) == "dolphin" and int(s.current_player[0]) == 0
        s = act(s, DOLPHIN_TAKE)
        assert field(s, 0) == 15
    assert phase(s) == "play"


@pytest.mark.parametrize("chain", [False, True])
def test_r6_3_dolphin_chain_automatic(chain: bool) -> None:
    s = load(
        position([12, 0, 0, 0], winner=0, config={"dolphin": "automatic", "dolphin_chain": chain})
    )
    s = win_trick(s, 0)
    assert field(s, 0) == (15 if chain else 14)
    assert phase(s) == "play"


def _dolphin_after_removal(ahead_boat: int) -> tuple:
    """P1 removes card 3 (fields 14, 15) with an octopus; P0 then lands on 13 (blue*).

    The nearest field ahead of 13 is then 16 (card 5); P3 stands on `ahead_boat`.
    """
    sc = make(
        route=ROUTE_4,
        boats=[12, 0, 0, ahead_boat],
        hands=[["kanaloa", "red-1"], ["octopus", "red-2"], ["red-3", "red-4"], ["red-5", "red-6"]],
        trick_number=6,
    )
    s = act(load(sc), "kanaloa", "octopus")
    # From P1's card (slot 0) card 3 is the 7th card ahead: k = 6.
    s = act(s, REMOVE_BASE + 6)
    assert 3 not in route_ids(s)
    return act(s, "red-3", "red-5")


def test_r6_3_neighbour_ahead_is_the_nearest_present_field_blocked() -> None:
    s = _dolphin_after_removal(ahead_boat=16)
    assert where(s, 0) == (1, 1)  # field 13, blue*
    assert phase(s) == "play"  # the field ahead (card 5's first) is taken


def test_r6_3_neighbour_ahead_is_the_nearest_present_field_free() -> None:
    s = _dolphin_after_removal(ahead_boat=17)
    assert where(s, 0) == (1, 1) and phase(s) == "dolphin"
    before = progress(s)[0]
    s = act(s, DOLPHIN_TAKE)
    assert where(s, 0) == (5, 0)
    assert progress(s)[0] == before + 1


# ---- removal actions 50..61 -----------------------------------------------------


def test_removal_actions_count_present_cards_ahead_of_the_acting_boat() -> None:
    """Actions 50 + k remove the k-th present card after the acting boat's card.

    Boats: P0 on card 2 (slot 1), P1 on card 1 (slot 6), P2 on card 5 (slot 8),
    P3 on card 9 (slot 10). P2 and P3 each play an octopus in the same trick.
    """
    sc = make(
        route=ROUTE_4,
        boats=[2, 12, 16, 20],
        hands=[["red-5"], ["red-9"], ["octopus"], ["octopus"]],
        leader=2,
        trick_number=7,
    )
    s = act(load(sc), "octopus")
    # From P2's slot 8: k=0 card 7, k=1 card 9 (P3), k=2 card 0 (start, free),
    # k=3 card 2 (P0), k=4..7 cards 4, 6, 8, 10, k=8 card 1 (P1), k=9 card 3.
    assert legal(s) == {REMOVE_BASE + k for k in (0, 2, 4, 5, 6, 7, 9)}
    s = act(s, REMOVE_BASE + 2)  # the start card may go once every boat left it
    assert route_ids(s) == [2, 4, 6, 8, 10, 1, 3, 5, 7, 9]
    s = act(s, "octopus")
    # From P3's slot 10, wrapping round and skipping the removed start card: k=0
    # card 2 (P0), k=1..4 cards 4, 6, 8, 10, k=5 card 1 (P1), k=6 card 3,
    # k=7 card 5 (P2), k=8 card 7.
    assert legal(s) == {REMOVE_BASE + k for k in (1, 2, 3, 4, 6, 8)}
    s = act(s, REMOVE_BASE + 8)
    assert route_ids(s) == [2, 4, 6, 8, 10, 1, 3, 5, 9]
    assert phase(s) == "play" and int(s.current_player[0]) == 0


def test_removal_never_offers_the_acting_boats_own_card_or_beyond_the_route() -> None:
    sc = make(
        route=ROUTE_4,
        boats=[0, 0, 0, 0],
        hands=[["octopus"], ["red-9"], ["red-5"], ["red-3"]],
        trick_number=7,
    )
    s = act(load(sc), "octopus")
    # Ten other cards: k = 0..9 are all free, k = 10, 11 do not exist.
    assert legal(s) == {REMOVE_BASE + k for k in range(10)}
