"""R5 (winning a trick) and R8 (trump from the leading boat).

Most tests play the last trick of a round: every player holds exactly the card
they play (`trick_number=7`), so the trick is the only thing that varies. The
trump is set by where the leading boat stands on `kit.ROUTE_4`.
"""

from __future__ import annotations

import numpy as np
import pytest
from kit import ROUTE_4, act, load, make, phase, progress, trump, where

from kanaloa_env.core.kanaloa import Config, init
from kanaloa_env.core.kanaloa.constants import DOLPHIN_DECLINE, DOLPHIN_TAKE, Suit

# A field of ROUTE_4 of each colour for the leading boat (all others on the start field).
TRUMP_FIELD = {"blue": 0, "red": 1, "green": 3, "turquoise": 5}


def trick_winner(cards: list[str], trump_suit: str = "blue", leader: int = 0) -> int:
    """Play one trick (cards in play order from `leader`) and return the winning seat.

    An octopus's removal, where one is asked for, takes the first legal card.
    """
    P = len(cards)
    hands = [[cards[(p - leader) % P]] for p in range(P)]
    boats = [0] * P
    boats[P - 1] = TRUMP_FIELD[trump_suit]  # the leading boat sets the trump (R8.2)
    route = ROUTE_4[:10] if P == 3 else ROUTE_4  # 3 players sail 10 cards (R2.1)
    s = load(make(route=route, boats=boats, hands=hands, leader=leader, trick_number=7))
    assert trump(s) == trump_suit
    for card in cards:
        s = act(s, card)
        if phase(s) == "remove_octopus":
            s = act(s, int(np.flatnonzero(s.legal[0])[0]))
    assert s.tricks_won[0].sum() == 8
    # Trick 8 went to the leader of the earlier tricks (kit default) plus the winner.
    won = s.tricks_won[0].copy()
    won[leader] -= 7
    (winner,) = np.flatnonzero(won == 1)
    assert int(s.leader[0]) == winner  # R7.5 / R3.3: the winner leads on
    return int(winner)


def test_r5_1_kanaloa_led_beats_trump_and_high_cards() -> None:
    assert trick_winner(["kanaloa", "red-12", "blue-12", "green-1"], "blue") == 0


def test_r5_1_last_kanaloa_wins() -> None:
    assert trick_winner(["kanaloa", "red-3", "kanaloa", "red-12"], "red") == 2
    assert trick_winner(["red-3", "kanaloa", "kanaloa", "kanaloa"], "red") == 3


def test_r5_1_last_kanaloa_wins_whoever_led() -> None:
    assert trick_winner(["red-3", "kanaloa", "kanaloa", "red-1"], "green", leader=2) == 0


def test_r5_2_trump_played_on_a_void_wins() -> None:
    assert trick_winner(["red-5", "red-12", "blue-1", "green-12"], "blue") == 2


def test_r5_2_highest_trump_wins() -> None:
    assert trick_winner(["red-5", "blue-3", "blue-9", "red-12"], "blue") == 2
    assert trick_winner(["turquoise-2", "turquoise-7", "red-12", "turquoise-3"], "turquoise") == 1


def test_r5_3_off_suit_high_card_never_wins() -> None:
    assert trick_winner(["red-2", "green-12", "blue-12", "red-3"], "turquoise") == 3
    assert trick_winner(["red-2", "green-12", "blue-12", "green-11"], "turquoise") == 0


def test_r5_3_highest_card_of_the_led_suit_wins() -> None:
    assert trick_winner(["green-4", "green-11", "green-10", "green-1"], "red") == 1


def test_r5_4_octopus_led_the_first_tiki_card_sets_the_suit() -> None:
    # The octopus asks for a removal first (R4.4); red 3 then sets the suit.
    assert trick_winner(["octopus", "red-3", "red-9", "green-12"], "turquoise") == 2


def test_r5_4_octopus_never_wins() -> None:
    assert trick_winner(["octopus", "octopus", "green-1"], "blue") == 2
    assert trick_winner(["green-1", "octopus", "octopus"], "blue") == 0
    assert trick_winner(["octopus", "kanaloa", "octopus"], "blue") == 1


def test_r5_5_octopus_removal_does_not_change_the_trick_trump() -> None:
    # P3 leads on a red field. P1's octopus removes a card mid-trick; the trick is
    # still decided with red as trump (red 1 beats green 12 led).
    s = load(
        make(
            route=ROUTE_4,
            boats=[0, 0, 0, 1],
            hands=[["green-12"], ["octopus"], ["red-1"], ["green-2"]],
            trick_number=7,
        )
    )
    assert trump(s) == "red"
    s = act(s, "green-12", "octopus")
    assert phase(s) == "remove_octopus"
    s = act(s, int(np.flatnonzero(s.legal[0])[0]))
    assert trump(s) == "red"
    s = act(s, "red-1", "green-2")
    assert int(s.leader[0]) == 2


@pytest.mark.parametrize("take", [True, False])
def test_r5_5_next_trump_is_fixed_after_the_dolphin_decision(take: bool) -> None:
    # P0 leads the race on field 12 (red: trump red). P0 wins and lands on field 13
    # (blue*, dolphin); 12 and 14 are free. Taking the bonus move puts P0 on 14
    # (green), declining leaves it on 13 (blue): the next trick's trump follows.
    s = load(
        make(
            route=ROUTE_4,
            boats=[12, 0, 0, 0],
            hands=[
                ["green-12", "green-1"],
                ["green-2", "green-3"],
                ["green-4", "green-5"],
                ["green-6", "green-7"],
            ],
            trick_number=6,
        )
    )
    assert trump(s) == "red"
    s = act(s, "green-12", "green-2", "green-4", "green-6")
    assert phase(s) == "dolphin" and where(s, 0) == (1, 1)
    s = act(s, DOLPHIN_TAKE if take else DOLPHIN_DECLINE)
    assert phase(s) == "play"
    assert trump(s) == ("green" if take else "blue")


def test_r8_2_trump_is_blue_at_the_start_of_every_game(any_config: Config) -> None:
    s = init(any_config, batch_size=32, seed=7)
    assert (s.trump == Suit.BLUE).all()
    start = any_config.deck.start[s.route[np.arange(32)[:, None], s.boat_field]]
    assert start.all()  # R2.3: every boat on the start field


def test_r8_1_leading_boat_is_furthest_in_progress_not_in_field_index() -> None:
    # P1 sailed past the start field: field 1 (red) but progress 23 beats P0's
    # field 20 (turquoise, progress 20). Trump is red.
    s = load(
        make(
            route=ROUTE_4,
            boats=[20, 1, 18, 16],
            progress=[20, 23, 18, 16],
            hands=[["green-1"], ["green-2"], ["green-3"], ["green-4"]],
            trick_number=7,
        )
    )
    assert trump(s) == "red"
    assert max(range(4), key=lambda p: progress(s)[p]) == 1
