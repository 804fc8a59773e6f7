"""kanaloa_env.training.ObservationStore: observations as byte codes, read back exactly."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.kanaloa import Config, init, observe, step
from kanaloa_env.training import ObservationStore


def _kanaloa_observations(steps: int = 30) -> np.ndarray:
    state = init(Config(num_players=4), batch_size=64, seed=3)
    rng = np.random.default_rng(0)
    out = []
    for _ in range(steps):
        out.append(observe(state))
        mask = state.legal
        live = mask.any(axis=1)
        actions = np.zeros(state.batch_size, np.int64)
        actions[live] = sample_legal(mask[live], rng)
        state = step(state, actions)
    return np.concatenate(out)


def test_rows_read_back_bit_for_bit() -> None:
    obs = _kanaloa_observations()
    store = ObservationStore(len(obs), obs.shape[1])
    for lo in range(0, len(obs), 500):  # appended in parts, as chunks are
        store.append(obs[lo : lo + 500])
    assert store.size == len(obs) and store.codes.dtype == np.uint8
    assert store.nbytes < obs.nbytes / 3.5
    idx = np.random.default_rng(1).permutation(len(obs))[:700]
    assert np.array_equal(store.rows(idx).view(np.uint32), obs[idx].view(np.uint32))
    got = store.rows_torch(idx).numpy()
    assert got.dtype == np.float32 and np.array_equal(got.view(np.uint32), obs[idx].view(np.uint32))


def test_negative_zero_and_widening() -> None:
    store = ObservationStore(3, 300)
    first = np.full((1, 300), -0.0, np.float32)
    first[0, 0] = 0.0
    store.append(first)
    assert np.signbit(store.rows([0])[0, 1:]).all() and not np.signbit(store.rows([0])[0, 0])
    many = np.arange(300, dtype=np.float32)[None, :]  # 300 distinct values: two-byte codes
    store.append(many)
    assert store.codes.dtype == np.uint16
    assert np.array_equal(store.rows([0, 1]), np.concatenate([first, many]))


def test_bad_input() -> None:
    store = ObservationStore(2, 4)
    with pytest.raises(TypeError, match="float32"):
        store.append(np.zeros((1, 4)))
    with pytest.raises(ValueError, match="does not fit"):
        store.append(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="does not fit"):
        store.append(np.zeros((1, 5), np.float32))
    with pytest.raises(ValueError, match="num_rows"):
        ObservationStore(-1, 4)
    big = ObservationStore(1, 70_000)
    with pytest.raises(ValueError, match="65,536"):
        big.append(np.arange(70_000, dtype=np.float32)[None, :])


def test_a_refused_append_changes_nothing() -> None:
    store = ObservationStore(2, 70_000)
    store.append(np.zeros((1, 70_000), np.float32))
    with pytest.raises(ValueError, match="65,536"):
        store.append(np.arange(70_000, dtype=np.float32)[None, :])
    assert store.size == 1 and len(store.values) == 1 and store.codes.dtype == np.uint8
