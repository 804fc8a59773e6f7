"""TorchRL's `check_env_specs` on Kanaloa and on the poker controls (docs/integrations.md).

The check plays 3 random steps and then draws one more random action from the last
step's specs. PettingZoo's AEC envs give a finished game's last mover an all-zero mask,
so the draw fails where 3 steps can finish a game (poker) and never on Kanaloa, whose
games last far longer.
"""

from __future__ import annotations

import warnings

import torch
from pettingzoo.classic import texas_holdem_v4
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs

import kanaloa_env


def wrap(aec_env: object, seed: int) -> PettingZooWrapper:
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL's "tested with PettingZoo 1.24.3"
        return PettingZooWrapper(
            aec_env,
            use_mask=True,
            categorical_actions=True,
            group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
            seed=seed,
        )


def test_check_env_specs_passes_on_kanaloa() -> None:
    for seed in range(5):
        check_env_specs(wrap(kanaloa_env.env(num_players=4), seed))


def test_check_env_specs_fails_on_a_poker_hand_that_ends_within_its_steps() -> None:
    failures = 0
    for seed in range(10):
        try:
            check_env_specs(wrap(texas_holdem_v4.env(), seed))
        except RuntimeError as e:
            assert "invalid multinomial distribution" in str(e)
            failures += 1
    assert failures > 0
