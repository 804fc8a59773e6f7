"""Random self-play through the shipped invariant checker for every table size."""

import pytest

from kanaloa_env.core import Config
from kanaloa_env.testing import random_playthrough


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize("nil_announcement", [False, True])
def test_random_games_keep_invariants(num_players: int, nil_announcement: bool) -> None:
    stats = random_playthrough(Config(num_players=num_players, nil_announcement=nil_announcement), 64, seed=1)
    assert stats.terminated + stats.truncated == 64
    assert stats.terminated == 64  # random play ends in ~5 rounds, far below max_rounds
