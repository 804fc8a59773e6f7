"""No Gymnasium env hands a policy a mask without a legal action (issue 18).

A policy that masks its logits with -inf turns such a row into NaN probabilities, and
torch's `Categorical` raises. Gymnasium's `sync` and `async` vector envs over the
single-agent env reset a finished game on the next step, so the step that ends a game
hands out that game's mask: the single-agent env gives it as all True there (pgx's
convention: the action sent for it is ignored). The native vector env resets in the same
step and hands out the new game's mask.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kanaloa_env

ENV_ID = kanaloa_env.GYM_ENV_ID


def legal_choice(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(N,) a uniformly random legal action for each row of (N, 66) masks."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync", "async"])
def test_vector_envs_never_hand_out_a_mask_without_a_legal_action(mode: str) -> None:
    envs = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode=mode)
    try:
        _, info = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        finished = empty = 0
        for _ in range(400):
            masks = np.asarray(info["action_mask"], dtype=bool)
            assert masks.shape == (4, 66)
            empty += int((~masks.any(axis=1)).sum())
            masks[~masks.any(axis=1)] = True  # count every such row, keep playing
            _, _, terminated, truncated, info = envs.step(legal_choice(masks, rng))
            finished += int((terminated | truncated).sum())
        assert finished >= 8  # the check covered the steps that end games
        assert empty == 0, f"{empty} masks without a legal action in 400 steps of 4 games"
    finally:
        envs.close()


def test_single_env_mask_at_the_end_of_a_game_has_legal_actions() -> None:
    env = gym.make(ENV_ID, num_players=4, opponents="random")
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):  # five games
        terminated = truncated = False
        while not (terminated or truncated):
            assert info["action_mask"].any()
            _, _, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"])))
            )
        assert info["action_mask"].any() and env.unwrapped.action_masks().any()
        _, info = env.reset()
