"""The compiled Kahuna engine: threads change no result, the wrappers' fast paths and
their fallbacks agree, and the small kernels behind `board` and `cards` agree with
plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.kahuna import (
    Config,
    init,
    init_from_keys,
    observe,
    reset_games,
    step,
    step_inplace,
)
from kanaloa_env.core.kahuna import cards as kcards
from kanaloa_env.core.kahuna.board import held_islands, island_counts
from kanaloa_env.core.kahuna.constants import LINES_AT, MAJORITY
from kanaloa_env.core.rng import game_keys

B = 2100  # above the 2048 games a batch needs before it is split among threads


def _play(threads: int, steps: int = 60) -> tuple[list[np.ndarray], object]:
    """Random legal self-play with resets; every observation along the way."""
    state = init_from_keys(Config(), game_keys(5, np.arange(B)), threads=threads)
    rng = np.random.default_rng(5)
    seen = []
    next_game = B
    for _ in range(steps):
        step_inplace(state, sample_legal(state.legal, rng), threads=threads)
        seen.append(observe(state, threads=threads))
        seen.append(observe(state, seat=1, threads=threads))
        done = np.flatnonzero(state.done)
        if done.size:
            keys = game_keys(5, np.arange(next_game, next_game + done.size))
            reset_games(state, done, keys, threads=threads)
            next_game += done.size
    return seen, state


def test_the_thread_count_changes_nothing() -> None:
    one, state_one = _play(1)
    two, state_two = _play(3)
    assert state_one.equal(state_two)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_step_copies_and_step_inplace_agree_for_any_thread_count() -> None:
    state = init(Config(), B, seed=2)
    actions = sample_legal(state.legal, np.random.default_rng(2))
    new = step(state, actions, threads=2)
    assert not new.equal(state)
    assert new.equal(step_inplace(state.copy(), actions, threads=1))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_are_refused_before_anything_is_written(bad: object) -> None:
    state = init(Config(), 4, seed=0)
    before = state.copy()
    actions = np.argmax(state.legal, axis=1)
    with pytest.raises((TypeError, ValueError), match="threads"):
        step_inplace(state, actions, threads=bad)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError), match="threads"):
        observe(state, threads=bad)  # type: ignore[arg-type]
    assert state.equal(before)


def test_strided_and_other_typed_arguments_give_the_same_results() -> None:
    # Contiguous int64 actions and a fresh `out` take the compiled code directly;
    # anything else goes through numba's dispatcher: the results are the same.
    state = init(Config(), 64, seed=3)
    actions = sample_legal(state.legal, np.random.default_rng(3))
    want = step_inplace(state.copy(), actions)
    wide = np.zeros((64, 2), dtype=np.int64)
    wide[:, 0] = actions
    assert step_inplace(state.copy(), wide[:, 0]).equal(want)  # a strided view
    assert step_inplace(state.copy(), actions.astype(np.int16)).equal(want)
    obs = observe(want)
    out = np.zeros((321, 64), dtype=np.float32).T  # Fortran order
    assert np.array_equal(observe(want, out=out), obs)
    frozen = np.zeros_like(obs)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        observe(want, out=frozen)


def test_step_without_validation_still_refuses_a_wrong_shape() -> None:
    state = init(Config(), 4, seed=0)
    before = state.copy()
    with pytest.raises(ValueError, match="shape"):
        step_inplace(state, np.zeros(3, dtype=np.int64), validate=False)
    assert state.equal(before)


def test_board_and_card_counts_agree_with_numpy() -> None:
    rng = np.random.default_rng(0)
    lines = rng.integers(0, 1 << 27, size=(50, 4), dtype=np.uint32)
    counts = np.bitwise_count(lines[..., None] & LINES_AT)
    assert np.array_equal(island_counts(lines), counts)
    held = ((counts >= MAJORITY) @ (1 << np.arange(12))).astype(np.uint16)
    assert held_islands(lines).dtype == np.uint16
    assert np.array_equal(held_islands(lines), held)
    assert int(held_islands(np.uint32(0b111))) == int(held_islands(np.array([7]))[0])
    words = kcards.from_counts(rng.integers(0, 3, size=(200, 12)))
    assert [kcards.num_cards(np.int64(w)) for w in words] == kcards.size(words).tolist()


def test_game_indices_out_of_range_are_refused() -> None:
    # (The kernels write where they are told: the wrappers check the indices.)
    state = init(Config(), 4, seed=0)
    before = state.copy()
    keys = game_keys(0, np.array([9]))
    for bad in ([4], [-5]):
        with pytest.raises(IndexError, match="reset_games"):
            reset_games(state, np.array(bad), keys)
    assert state.equal(before)
    last, also_last = state.copy(), state.copy()
    reset_games(last, np.array([-1]), keys)
    reset_games(also_last, np.array([3]), keys)
    assert last.equal(also_last) and not last.equal(before)


def test_a_copied_or_unpickled_state_runs_the_same_kernels() -> None:
    import copy
    import pickle

    state = init(Config(), 8, seed=4)
    obs = observe(state)  # (the state object now keeps its kernels' argument types)
    actions = sample_legal(state.legal, np.random.default_rng(4))
    want = step(state, actions)
    for other in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), state.copy()):
        assert np.array_equal(observe(other), obs)
        assert step_inplace(other, actions).equal(want)
