"""R4: which cards may be played, and the octopus's removal decision.

Positions are hand-built (kit.make) late in a round, so hands are short: with
`trick_number=5` every player holds three cards before the trick.
"""

from __future__ import annotations

import pytest
from kit import ROUTE_4, act, at_start, legal, legal_cards, load, make, phase, route_ids

from kanaloa_env.core.kanaloa.constants import (
    KANALOA,
    NUM_ACTIONS,
    OCTOPUS,
    REMOVE_BASE,
    card_from_name,
)


def late_trick(hands: list[list[str]], trick: list[str], leader: int = 0) -> dict:
    """Trick 6 of a round on the start field (trump blue); hands as given."""
    return make(
        route=ROUTE_4, boats=at_start(), hands=hands, trick=trick, leader=leader, trick_number=5
    )


def test_r4_3_holder_of_the_led_suit_must_follow() -> None:
    # P0 leads red 5; P1 holds two reds and a blue (trump): only the reds are legal.
    s = load(
        late_trick(
            [
                ["red-5", "green-1", "green-2"],
                ["red-2", "red-9", "blue-3"],
                ["green-3", "green-4", "green-5"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    s = act(s, "red-5")
    assert legal_cards(s) == {"red-2", "red-9"}


def test_r4_3_no_obligation_to_win_or_trump() -> None:
    # Red led. P1 may play the low red 2 rather than the winning red 9; P2 (void in
    # red) may throw a green card rather than trump with blue.
    s = load(
        late_trick(
            [
                ["red-5", "green-1", "green-2"],
                ["red-2", "red-9", "green-10"],
                ["blue-3", "green-3", "green-4"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    s = act(s, "red-5")
    assert legal_cards(s) == {"red-2", "red-9"}
    s = act(s, "red-2")
    assert legal_cards(s) == {"blue-3", "green-3", "green-4"}
    s = act(s, "green-3")
    assert phase(s) == "play"


def test_r4_3_void_player_may_play_any_card() -> None:
    s = load(
        late_trick(
            [
                ["red-5", "green-1", "green-2"],
                ["blue-3", "green-10", "turquoise-4"],
                ["green-3", "green-4", "green-5"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    s = act(s, "red-5")
    assert legal_cards(s) == {"blue-3", "green-10", "turquoise-4"}


def test_r4_1_specials_may_be_played_while_holding_the_led_suit() -> None:
    s = load(
        late_trick(
            [
                ["red-5", "green-1", "green-2"],
                ["red-2", "kanaloa", "octopus"],
                ["green-3", "green-4", "green-5"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    s = act(s, "red-5")
    assert legal_cards(s) == {"red-2", "kanaloa", "octopus"}


def test_r4_1_specials_may_lead() -> None:
    s = load(
        late_trick(
            [
                ["red-5", "kanaloa", "octopus"],
                ["red-2", "red-3", "red-4"],
                ["green-3", "green-4", "green-5"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    assert legal_cards(s) == {"red-5", "kanaloa", "octopus"}


def test_r4_2_no_suit_to_follow_until_the_first_tiki_card() -> None:
    # P0 leads a Kanaloa: P1 may play anything. P1 plays an octopus (no removal is
    # possible on a 3-card route), still no suit; P2's green 3 sets the suit for P3.
    sc = make(
        route=[0, 2, 4],
        boats=[0, 0, 0, 0],
        hands=[
            ["kanaloa", "green-1", "green-2"],
            ["octopus", "red-9", "blue-3"],
            ["green-3", "red-4", "red-5"],
            ["green-6", "red-8", "blue-9"],
        ],
        trick_number=5,
    )
    s = load(sc)
    s = act(s, "kanaloa")
    assert legal_cards(s) == {"octopus", "red-9", "blue-3"}
    s = act(s, "octopus")
    assert phase(s) == "play" and int(s.current_player[0]) == 2
    assert legal_cards(s) == {"green-3", "red-4", "red-5"}
    s = act(s, "green-3")
    assert legal_cards(s) == {"green-6"}


def test_r4_2_suit_is_set_by_a_tiki_card_played_after_a_special_lead() -> None:
    sc = late_trick(
        [
            ["kanaloa", "green-1", "green-2"],
            ["red-9", "red-1", "blue-3"],
            ["red-4", "red-5", "green-3"],
            ["green-6", "red-8", "blue-9"],
        ],
        [],
    )
    s = act(load(sc), "kanaloa", "blue-3")
    assert legal_cards(s) == {"red-4", "red-5", "green-3"}  # P2 holds no blue
    s = act(s, "red-4")
    assert legal_cards(s) == {"blue-9"}  # blue, not red, is the suit to follow


def test_play_mask_holds_only_cards_in_hand() -> None:
    s = load(
        late_trick(
            [
                ["red-5", "kanaloa", "octopus"],
                ["red-2", "red-3", "red-4"],
                ["green-3", "green-4", "green-5"],
                ["green-6", "green-8", "green-9"],
            ],
            [],
        )
    )
    assert legal(s) == {card_from_name("red-5"), KANALOA, OCTOPUS}
    assert s.legal.shape == (1, NUM_ACTIONS)


def test_r4_4_octopus_asks_its_player_to_remove_a_free_card() -> None:
    # Boats: P0 and P1 on the start card (slot 0), P2 on card 2 (slot 1), P3 on
    # card 6 (slot 3). Free cards ahead of P1: slots 2, 4..10 -> k = 1, 3..9.
    sc = make(
        route=ROUTE_4,
        boats=[0, 1, 2, 6],
        hands=[
            ["red-5", "green-1", "green-2"],
            ["red-2", "octopus", "blue-3"],
            ["green-3", "green-4", "green-5"],
            ["green-6", "green-8", "green-9"],
        ],
        trick_number=5,
    )
    s = act(load(sc), "red-5")
    s = act(s, "octopus")
    assert phase(s) == "remove_octopus"
    assert int(s.current_player[0]) == 1
    assert legal(s) == {REMOVE_BASE + k for k in (1, 3, 4, 5, 6, 7, 8, 9)}
    s = act(s, REMOVE_BASE + 1)  # card 4, the first free card
    assert route_ids(s) == [0, 2, 6, 8, 10, 1, 3, 5, 7, 9]
    assert phase(s) == "play" and int(s.current_player[0]) == 2


@pytest.mark.parametrize("kind", ["kanaloa", "tiki"])
def test_r4_4_other_cards_ask_no_removal(kind: str) -> None:
    card = "kanaloa" if kind == "kanaloa" else "red-2"
    sc = late_trick(
        [
            ["red-5", "green-1", "green-2"],
            ["red-2", "kanaloa", "blue-3"],
            ["green-3", "green-4", "green-5"],
            ["green-6", "green-8", "green-9"],
        ],
        [],
    )
    s = act(load(sc), "red-5", card)
    assert phase(s) == "play" and int(s.current_player[0]) == 2
