"""The English rulebook's worked example with four players (seeds/003), as one scenario.

Seat order (the order in which the book's players play): Ben 0, Anna 1, Danny 2,
Emily 3.

Construction. The book shows no picture we can read, so the route and the hands
are built to make every sentence of the text true. Route (11 cards, sailing
order, scenario field indices in brackets):

```
card   6        7          4            2         10          8            0         1  3  5  9
     red  green|green red*|blue turq.|blue green|green turq.|red   turq.|blue(st) red| ...
     [0]  [1]  |[2]   [3] |[4]  [5]  |[6]  [7] |[8]   [9]  |[10]  [11] |[12]  [13] |
     Anna Ben  |          |          |          |      Danny|Emily      |
```

- Anna stands right behind Ben: winning trick 1 she skips Ben's occupied field
  and lands on the green field [2].
- Emily leads on a red field [10]: red is trump, and stays trump after trick 1.
- Ben's next free card is card 4 (blue + turquoise); it lies between him and the
  leading boat, so removing it shrinks his gap to Emily by two fields.
- Danny stands right behind Emily: winning trick 2 he skips her field and lands on
  the turquoise field [11], overtaking her: turquoise becomes trump.
- After trick 2, Anna's next field [3] is card 7's red dolphin field; behind it is
  the field she leaves, ahead of it (card 4 is gone) card 2's blue field [6] is
  free, so she may sail on to [6].

Hands (trick 5 of a round, four cards each, one spare card so the round goes on):
Danny holds no turquoise (trick 1) and, once his blue 1 is gone, no blue (trick 2).
"""

from __future__ import annotations

import json
from pathlib import Path

from kit import act, hand, load, make, phase, progress, route_ids, trump, where

from kanaloa_env.core.kanaloa.constants import DOLPHIN_TAKE, OCTOPUS, REMOVE_BASE
from kanaloa_env.core.kanaloa.ocean import DEFAULT_OCEAN_DECK

BEN, ANNA, DANNY, EMILY = 0, 1, 2, 3

SCENARIO_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "rulebook_example.json"

EXAMPLE = make(
    route=[6, 7, 4, 2, 10, 8, 0, 1, 3, 5, 9],
    boats=[1, 0, 9, 10],  # Ben, Anna, Danny, Emily
    hands=[
        ["turquoise-2", "octopus", "red-7", "green-1"],  # Ben
        ["turquoise-5", "blue-8", "kanaloa", "green-2"],  # Anna
        ["blue-1", "red-3", "red-11", "green-3"],  # Danny
        ["turquoise-4", "blue-10", "kanaloa", "green-4"],  # Emily
    ],
    leader=BEN,
    trick_number=4,
)


def test_rulebook_example_four_players() -> None:
    """Every outcome the rulebook's example states, trick by trick (R4-R6, R8)."""
    scenario = json.loads(SCENARIO_FILE.read_text())
    assert scenario == EXAMPLE  # the stored file is the construction above
    state = load(scenario)
    # "Emily is in the lead. Her boat is on a red space. Red is therefore trumps."
    assert max(range(4), key=lambda p: progress(state)[p]) == EMILY
    assert trump(state) == "red"

    # Trick 1: Ben turquoise 2, Anna turquoise 5, Danny (no turquoise) blue 1, Emily turquoise 4.
    state = act(state, "turquoise-2", "turquoise-5")
    assert not any(c.startswith("turquoise") for c in hand(state, DANNY))
    state = act(state, "blue-1", "turquoise-4")
    # "Anna takes the trick because she played the highest card."
    assert state.tricks_won[0, ANNA] == 1
    assert int(state.current_player[0]) == ANNA
    # "She skips the next space because it is already occupied and lands on the green
    # water space."
    assert where(state, ANNA) == (7, 0)
    assert DEFAULT_OCEAN_DECK[7][0] == "green"
    # "Red is still trumps for the next trick as the leading boat has not moved."
    assert trump(state) == "red"

    # Trick 2: Anna blue 8, Danny red 3, Emily blue 10, Ben an octopus.
    state = act(state, "blue-8", "red-3", "blue-10", OCTOPUS)
    assert phase(state) == "remove_octopus" and int(state.current_player[0]) == BEN
    # "He chooses the next free card: blue + turquoise" -- the first legal removal.
    removals = [a for a in range(REMOVE_BASE, REMOVE_BASE + 12) if state.legal[0, a]]
    assert removals[0] == REMOVE_BASE + 1  # card 7 (k = 0) carries Anna's boat
    gap_before = progress(state)[EMILY] - progress(state)[BEN]
    state = act(state, removals[0])
    assert 4 not in route_ids(state)
    assert set(DEFAULT_OCEAN_DECK[4]) == {"blue", "turquoise"}
    # "... to reduce the gap to the leading player."
    assert progress(state)[EMILY] - progress(state)[BEN] == gap_before - 2
    # "Danny takes the trick as he was the only one to lay a card in the trump suit."
    assert state.tricks_won[0, DANNY] == 1
    # "He moves his boat forward and overtakes Emily. The new trump suit is turquoise."
    assert where(state, DANNY) == (8, 1)
    assert progress(state)[DANNY] > progress(state)[EMILY]
    assert trump(state) == "turquoise"

    # Trick 3: Danny red 11, Emily Kanaloa, Ben red 7, Anna Kanaloa.
    state = act(state, "red-11", "kanaloa", "red-7", "kanaloa")
    # "She takes the trick because the last played Kanaloa takes the trick."
    assert state.tricks_won[0, ANNA] == 2
    # "Anna moves her boat to the next free space. It has a dolphin on it."
    assert where(state, ANNA) == (7, 1)
    assert DEFAULT_OCEAN_DECK[7][1] == "red*"
    # "As both the space behind her and the next space is not occupied by any other
    # boat, she may move her boat one space forward."
    assert phase(state) == "dolphin" and int(state.current_player[0]) == ANNA
    state = act(state, DOLPHIN_TAKE)
    assert where(state, ANNA) == (2, 0)
    assert phase(state) == "play" and int(state.current_player[0]) == ANNA
    assert not state.terminated[0]
