"""The vector driver's pool: an object listed several times is a weight, and acts once."""

from __future__ import annotations

import numpy as np

from kanaloa_env.bots import sample_legal
from kanaloa_env.wrappers import VectorDriver


class FirstLegalBot:
    """Plays the first legal action (deterministic: the games do not depend on how the
    driver groups its calls) and counts its calls and decisions."""

    uses_state = False
    uses_observations = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0
        self.decisions = 0

    def act(self, observations, masks, rng, **kwargs):
        self.calls += 1
        self.decisions += len(masks)
        return np.argmax(masks, axis=1).astype(np.int64)


def play(opponents: list, steps: int = 60) -> VectorDriver:
    d = VectorDriver(128, num_players=4, opponents=opponents, opponent_sampling="random", seed=3)
    d.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        d.step(sample_legal(d.action_masks(), rng))
    return d


def test_a_repeated_object_is_drawn_by_weight_and_acts_once_per_opponent_turn() -> None:
    heavy, light = FirstLegalBot("heavy"), FirstLegalBot("light")
    grouped = play([heavy, heavy, heavy, light])
    share = heavy.decisions / (heavy.decisions + light.decisions)
    assert abs(share - 0.75) < 0.03, share  # 128 games x 3 seats, drawn per game
    # Distinct objects in the same places play the same games, one call per object.
    copies = [FirstLegalBot(f"h{i}") for i in range(3)]
    light2 = FirstLegalBot("light")
    separate = play([*copies, light2])
    assert grouped.state.equal(separate.state)
    assert sum(c.decisions for c in copies) == heavy.decisions
    assert light2.decisions == light.decisions
    assert heavy.calls <= light.calls * 2 and heavy.calls < sum(c.calls for c in copies) / 2
