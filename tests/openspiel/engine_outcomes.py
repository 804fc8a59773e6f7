"""The chance outcomes that make an OpenSpiel state deal what our engine dealt from its key:
for the differential tests (the same deal and actions in both, compared decision by
decision)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kanaloa_env.core.kahuna import constants as kc
from kanaloa_env.core.kanaloa import constants as nc


def kanaloa_kinds(hand: int) -> list[int]:
    """The card kinds (0..49) of a Kanaloa hand bit set, sorted."""
    bits = [b for b in range(nc.DECK_SIZE) if (hand >> b) & 1]
    return sorted(
        min(b, nc.KANALOA) if b < nc.NUM_TIKI + nc.NUM_KANALOA else nc.OCTOPUS for b in bits
    )


def kanaloa_deal(s: Any) -> list[int]:
    """The deal of the round `s` (a batch of one) is in: card j to player j % P."""
    P = s.num_players
    hands = [kanaloa_kinds(int(h)) for h in s.hands[0]]
    return [hands[j % P][j // P] for j in range(nc.HAND_SIZE * P)]


def kanaloa_setup(s: Any) -> list[int]:
    """The set-up's outcomes of a new engine game: the route, the first player, the deal."""
    route = [int(c) for c in s.route[0, 0::2]]
    return [*route, int(s.starting_player[0]), *kanaloa_deal(s)]


def kahuna_islands(word: int) -> list[int]:
    """The islands of a Kahuna count word, sorted (a multiset)."""
    return [x for x in range(kc.NUM_ISLANDS) for _ in range((int(word) >> (2 * x)) & 3)]


def kahuna_setup(s: Any, random_first: bool) -> list[int]:
    """The set-up's outcomes of a new engine game: 3 cards each, the row, the coin."""
    out = kahuna_islands(s.hands[0, 0]) + kahuna_islands(s.hands[0, 1])
    out += [int(x) for x in s.face_up[0]]
    return out + ([int(s.starting_player[0])] if random_first else [])


def kahuna_pile_top(s: Any) -> int:
    """The card the engine's next DRAW or refill takes (-1: none)."""
    size = int(s.pile_size[0])
    return int(s.pile[0, size - 1]) if size else -1


def observations_equal(ours: Any, engine_state: Any, st: Any, players: int) -> None:
    """Assert every player's OpenSpiel observation and information state tensors are our
    engine's observation."""
    for p in range(players):
        expect = ours.observe(engine_state, seat=p)[0]
        np.testing.assert_array_equal(np.asarray(st.observation_tensor(p), np.float32), expect)
        np.testing.assert_array_equal(
            np.asarray(st.information_state_tensor(p), np.float32), expect
        )
