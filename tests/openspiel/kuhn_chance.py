"""Kuhn poker's deal as OpenSpiel chance nodes: how a game from outside the package
joins OpenSpiel (`kanaloa_env.openspiel.register("kuhn", chance=KuhnChance(game))`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from kuhn import engine
from kuhn.engine import CARD_NAMES, MAX_MOVES, NUM_CARDS, NUM_PLAYERS

from kanaloa_env.openspiel import ChanceModel


class KuhnChance(ChanceModel):
    """The deal (K1): player 0's card, then player 1's, each uniform among those left, as
    OpenSpiel's own `kuhn_poker` deals."""

    max_chance_outcomes = NUM_CARDS

    def __init__(self, game: Any) -> None:
        self.game = game

    def begin(self, config: Any) -> list[Any]:
        return ["deal", []]

    def outcomes(self, st: Any) -> list[tuple[int, float]]:
        left = [c for c in range(NUM_CARDS) if c not in st.pending[1]]
        return [(c, 1.0 / len(left)) for c in left]

    def apply_outcome(self, st: Any, outcome: int) -> None:
        dealt = st.pending[1]
        dealt.append(outcome)
        if len(dealt) < NUM_PLAYERS:
            return
        s = self.game.init(st.config, 1, 0)
        s.cards[0, :] = dealt
        engine.refresh(s, np.array([0]))
        st.engine = s
        st.pending = None

    def outcome_name(self, st: Any, outcome: int) -> str:
        return f"deal {CARD_NAMES[outcome]} to player_{len(st.pending[1])}"

    def max_decisions(self, config: Any) -> int:
        return MAX_MOVES

    def utility_bounds(self, config: Any) -> tuple[float, float]:
        most = float(config.ante + config.bet)
        return -most, most
