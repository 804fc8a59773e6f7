"""A tiny campaign for the tests: a Kahuna recipe with one hidden layer of 8, and a state of
it built from random numbers (no torch, no training)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kanaloa_env.training.campaign_file import (
    CampaignState,
    Recipe,
    expected_shapes,
    needs_start,
    new_progress,
)

ROOT = Path(__file__).resolve().parents[2]
TINY = Recipe(game="kahuna", num_players=2, hidden=(8,), num_envs=3, minibatch=6, seed=3)


def tiny_state(
    recipe: Recipe = TINY, updates: int = 2, league: int = 1, best: bool = True
) -> CampaignState:
    """A campaign state of `recipe` after `updates` updates (with Adam state when above 0),
    `league` past selves and, with `best`, one evaluation and its actor."""
    rng = np.random.default_rng(0)
    progress = new_progress()
    progress.update(decisions=48, updates=updates, chunks=1, device_seconds=3.5, windows=1)
    progress["league"] = [24] * league
    if best:
        progress["best"] = {"win_rate": 0.5, "decisions": 48}
        progress["curve"] = [
            {
                "decisions": 48,
                "device_minutes": 0.05,
                "win_rate": 0.5,
                "games": 2,
                "window": 1,
                "device": "d",
            }
        ]
    shapes = expected_shapes(recipe, progress)

    def arrays(prefix: str) -> dict[str, np.ndarray]:
        return {
            k[len(prefix) :]: rng.random(s).astype(np.float32)
            for k, s in shapes.items()
            if k.startswith(prefix)
        }

    adam = [
        {
            k: np.abs(rng.random(shapes[f"adam.{i}.{k}"])).astype(np.float32)
            for k in ("exp_avg", "exp_avg_sq")
        }
        | {"step": np.array(2.0, np.float32)}
        for i in range(sum(k.startswith("adam.") and k.endswith(".step") for k in shapes))
    ]
    return CampaignState(
        recipe=recipe,
        progress=progress,
        actor=arrays("actor."),
        critic=arrays("critic."),
        adam=adam,
        best=arrays("best.") if best else None,
        league=[arrays(f"league.{j}.") for j in range(league)],
        start=arrays("start.") if needs_start(recipe) else None,
    )
