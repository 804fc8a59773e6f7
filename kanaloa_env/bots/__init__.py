"""Batched bots: `act(observations, masks, rng) -> actions`."""

from .base import Bot, RandomBot, public_view, sample_legal

__all__ = ["Bot", "RandomBot", "public_view", "sample_legal"]
