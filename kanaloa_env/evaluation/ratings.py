"""Multiplayer ratings from finishing orders: openskill's Plackett-Luce model."""

from __future__ import annotations

import numpy as np

__all__ = ["competition_ranks", "openskill_ratings"]


def competition_ranks(ranks: np.ndarray) -> np.ndarray:
    """(G, P) int places for ratings, 1 + the seats strictly ahead (ties equal), from
    (G, P) fractional finishing ranks (1 = first, tied seats sharing the mean place)."""
    r = np.asarray(ranks, dtype=np.float64)
    return 1 + (r[:, None, :] < r[:, :, None]).sum(axis=2)


def openskill_ratings(
    seating: np.ndarray, ranks: np.ndarray, num_entrants: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rate every game in order; (E,) mu, sigma and ordinal (mu - 3 sigma) per entrant.

    Args:
        seating: (G, P) entrant index per seat.
        ranks: (G, P) competition ranks per seat (1 = first; ties equal).
        num_entrants: E.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(num_entrants)]
    for seats, rank in zip(seating.tolist(), ranks.tolist(), strict=True):
        new = model.rate([[ratings[e]] for e in seats], ranks=rank)
        for e, team in zip(seats, new, strict=True):
            ratings[e] = team[0]
    mu = np.array([r.mu for r in ratings])
    sigma = np.array([r.sigma for r in ratings])
    return mu, sigma, np.array([r.ordinal() for r in ratings])
