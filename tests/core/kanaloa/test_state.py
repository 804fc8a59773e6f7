"""State: the batch helpers (copy, take, put, equal, concatenate, nbytes) and dtype maxima."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kanaloa_env.core.kanaloa import Config, State, init, step
from kanaloa_env.core.kanaloa.config import MAX_MAX_ROUNDS
from kanaloa_env.core.kanaloa.constants import (
    DECK_SIZE,
    MAX_OCEAN_CARDS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    PAYOUT_STEPS,
    TRICKS_PER_ROUND,
)


def played(state: State, steps: int, seed: int = 0) -> State:
    """`state` after `steps` random legal decisions in every game."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        state = step(state, np.argmax(rng.random(state.legal.shape) * state.legal, axis=1))
    return state


@pytest.fixture(scope="module")
def batch() -> State:
    return played(init(Config(num_players=4), batch_size=12, seed=5), 40)


def test_every_array_has_the_batch_axis(batch: State) -> None:
    for name, arr in batch.arrays().items():
        assert arr.shape[0] == 12, name
    assert set(batch.arrays()) == {f.name for f in dataclasses.fields(State)} - {"config"}


def test_copy_is_deep_and_equal(batch: State) -> None:
    c = batch.copy()
    assert c.equal(batch) and c == batch
    for name, arr in c.arrays().items():
        assert not np.shares_memory(arr, getattr(batch, name)), name
    c.progress[0, 0] += 1
    assert not c.equal(batch)
    assert c.game_equal(batch).tolist() == [False] + [True] * 11


@pytest.mark.parametrize(
    "idx",
    [[3, 0, 7], np.array([5]), slice(2, 6), np.arange(12) % 3 == 0, [-1, 2], [], np.uint8([11])],
    ids=str,
)
def test_take_gives_those_games(batch: State, idx) -> None:
    sub = batch.take(idx)
    rows = np.arange(12)[np.asarray(idx, dtype=int) if isinstance(idx, list) else idx]
    assert sub.batch_size == len(rows)
    for name, arr in sub.arrays().items():
        np.testing.assert_array_equal(arr, getattr(batch, name)[rows], err_msg=name)
        assert not np.shares_memory(arr, getattr(batch, name)), name


def test_take_rejects_bad_indices(batch: State) -> None:
    with pytest.raises(TypeError, match="indices must be integers, a boolean mask or a slice"):
        batch.take([1.5])
    with pytest.raises(IndexError, match=r"boolean mask must have shape \(12,\)"):
        batch.take(np.ones(3, dtype=bool))
    with pytest.raises(IndexError):
        batch.take([12])


def test_put_writes_games_back(batch: State) -> None:
    target = init(Config(num_players=4), batch_size=12, seed=99)
    target.put(np.array([1, 4]), batch.take([1, 4]))
    assert target.game_equal(batch).tolist() == [i in (1, 4) for i in range(12)]


def test_put_rejects_another_config(batch: State) -> None:
    other = init(Config(num_players=3), batch_size=2, seed=0)
    with pytest.raises(ValueError, match="different configs"):
        batch.copy().put(np.array([0, 1]), other)


def test_concatenate_joins_batches(batch: State) -> None:
    joined = State.concatenate([batch.take([0, 1]), batch.take(slice(2, 12))])
    assert joined.equal(batch)
    with pytest.raises(ValueError, match="at least one"):
        State.concatenate([])
    with pytest.raises(ValueError, match="different configs"):
        State.concatenate([batch, init(Config(num_players=5), 1)])


def test_equal_compares_config_and_every_array(batch: State) -> None:
    assert not batch.equal(batch.replace(rewards=batch.rewards + 1))
    assert batch != "state"
    assert not batch.equal(init(Config(num_players=4), 12, seed=5))  # the unplayed start
    five = init(Config(num_players=4, max_rounds=5), 12, seed=5)
    assert not five.equal(init(Config(num_players=4), 12, seed=5))  # same arrays, other config


def test_replace_shares_the_other_arrays(batch: State) -> None:
    r = batch.replace(rewards=np.zeros_like(batch.rewards))
    assert r.hands is batch.hands


def test_nbytes_per_game_counts_every_array() -> None:
    for p in (3, 4, 5):
        s = init(Config(num_players=p), batch_size=64)
        total = sum(a.nbytes for a in s.arrays().values())
        assert s.nbytes_per_game() * 64 == total
        assert s.nbytes_per_game() < 512  # small integer dtypes (DESIGN.md)


# ---- dtype maxima: the largest value each field can reach fits its dtype ----------


def _max(arr: np.ndarray) -> int:
    return np.iinfo(arr.dtype).max


def test_dtypes_hold_the_documented_maxima() -> None:
    s = init(Config(num_players=MAX_PLAYERS), batch_size=1)
    P, F = MAX_PLAYERS, 2 * MAX_OCEAN_CARDS
    assert _max(s.round) >= MAX_MAX_ROUNDS  # R9.4: round never passes max_rounds
    assert _max(s.num_played) >= TRICKS_PER_ROUND * P
    assert _max(s.history) >= NUM_CARD_TYPES - 1
    assert _max(s.trick_number) >= TRICKS_PER_ROUND and _max(s.tricks_won) >= TRICKS_PER_ROUND
    assert _max(s.boat_field) >= F - 1 and _max(s.route) >= F - 1
    assert _max(s.current_player) >= P - 1 and _max(s.winner) >= P - 1
    assert _max(s.phase) >= 5 and _max(s.pending) >= 2
    assert s.hands.dtype == np.uint64 and DECK_SIZE <= 64  # one bit per physical card
    assert s.voids.dtype == np.uint8  # four suit bits
    assert s.legal.shape[1] == NUM_ACTIONS and s.legal.dtype == bool
    # Progress grows at most by: per trick a move past every other boat plus a
    # dolphin, per round 8 tricks and 3 payout steps for each player past every
    # other boat (plus a dolphin). Over MAX_MAX_ROUNDS rounds that fits int32.
    per_round = TRICKS_PER_ROUND * (P + 1) + P * (PAYOUT_STEPS * P + 1)
    assert _max(s.progress) >= MAX_MAX_ROUNDS * per_round
    # Signed dtypes hold the -1 sentinels.
    for name in ("current_player", "winner", "history", "lead_suit", "announced"):
        assert np.iinfo(getattr(s, name).dtype).min <= -1, name
