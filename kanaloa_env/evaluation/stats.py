"""Small statistics shared by the arena and the evaluation helpers."""

from __future__ import annotations

import math

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(wins: int, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (default 95%).

    Args:
        wins: successes, 0..games.
        games: trials (0 gives the uninformative (0, 1)).
        z: the normal quantile (Z_95 for 95%).

    Returns:
        (low, high), both in [0, 1].

    Raises:
        ValueError: unless 0 <= wins <= games.
    """
    if games < 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games, got wins={wins}, games={games}")
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    # The bounds are exactly 0 and 1 at the extremes; rounding would leave 1 - 1e-16.
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return low, high
