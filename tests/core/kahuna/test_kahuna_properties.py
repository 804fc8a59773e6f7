"""The engine against the plain-Python reference (tests/kahuna_reference.py),
written independently from KAHUNA-RULES.md: random legal games through the engine, and
at every decision the engine's legal set equals the reference's, and the engine's next
position (`to_scenario`), rewards and end equal the reference's `step` (the new row and
pile of a reshuffle compared as a multiset, K7.3). Each step continues from the
engine's position, so a reshuffle's random order cannot make the two drift apart."""

from __future__ import annotations

import kahuna_reference as ref
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanaloa_env.core.kahuna import Config, State, init, step, to_scenario
from kanaloa_env.core.kahuna.config import DISCARD_RULES
from kanaloa_env.core.kahuna.constants import DISCARD_BASE

configs = st.builds(
    Config,
    stones_per_player=st.integers(10, 12),
    first_player=st.sampled_from(["random", 0, 1]),
    discard_rule=st.sampled_from(DISCARD_RULES),
    early_end=st.booleans(),
    max_turns=st.sampled_from([200, 200, 60, 15]),
)


def play_against_reference(state: State, rng: np.random.Generator, eager: float) -> int:
    """Play every game of `state` to its end, checking each decision against the
    reference; `eager` is the chance to pick among the card plays when there are any
    (uniform play rarely empties a supply). Returns the decisions checked."""
    checked = 0
    for g in range(state.batch_size):
        s = state.take([g])
        while not s.done[0]:
            sc = to_scenario(s, 0)
            engine_legal = set(np.flatnonzero(s.legal[0]).tolist())
            assert engine_legal == ref.legal_actions(sc), sc
            plays = sorted(a for a in engine_legal if a < DISCARD_BASE)
            pool = plays if plays and rng.random() < eager else sorted(engine_legal)
            a = int(rng.choice(pool))
            want, rewards, reshuffled = ref.step(sc, a)
            s = step(s, np.array([a]))
            got = to_scenario(s, 0)
            assert ref.comparable(got, reshuffled) == ref.comparable(want, reshuffled), (sc, a)
            assert s.rewards[0].tolist() == rewards, (sc, a)
            checked += 1
    return checked


@settings(max_examples=12)
@given(cfg=configs, seed=st.integers(0, 2**64 - 1), eager=st.sampled_from([0.0, 0.9]))
def test_engine_agrees_with_the_reference_at_every_decision(
    cfg: Config, seed: int, eager: float
) -> None:
    assert play_against_reference(init(cfg, 1, seed), np.random.default_rng(seed), eager) > 0


@pytest.mark.slow
@settings(max_examples=300)
@given(cfg=configs, seed=st.integers(0, 2**64 - 1), eager=st.sampled_from([0.0, 0.5, 0.9]))
def test_engine_agrees_with_the_reference_soak(cfg: Config, seed: int, eager: float) -> None:
    assert play_against_reference(init(cfg, 4, seed), np.random.default_rng(seed), eager) > 0
