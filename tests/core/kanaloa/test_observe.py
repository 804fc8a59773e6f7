"""The batched encoder: chunking, `out=`, `seat=` and its errors (DESIGN.md, Observations).

What each slice means is tested through scenarios in tests/test_observation.py; here
the batch mechanics must not change a single value.
"""

import multiprocessing
import os
import threading

import numpy as np
import pytest

from kanaloa_env.bots import sample_legal
from kanaloa_env.core import kernels
from kanaloa_env.core.kanaloa import OBS_DIM, Config, init, observe, step_inplace
from kanaloa_env.core.kanaloa.constants import SUIT_NAMES
from kanaloa_env.core.kanaloa.observation import MAX_FIELDS, decode


def _mixed_batch(num_players: int, batch: int, steps: int):
    state = init(Config(num_players=num_players, nil_announcement=True), batch, seed=11)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        live = ~state.done
        actions = np.zeros(batch, dtype=np.int64)
        actions[live] = sample_legal(state.legal[live], rng)
        step_inplace(state, actions)
    return state


@pytest.mark.parametrize("num_players", [3, 5])
def test_a_large_batch_encodes_like_its_games_one_by_one(num_players: int) -> None:
    state = _mixed_batch(num_players, 2500, 60)
    assert len(np.unique(state.phase)) >= 3  # games in several phases at once
    obs = observe(state)
    assert obs.shape == (2500, OBS_DIM) and obs.dtype == np.float32
    for i in (0, 1023, 1024, 2047, 2048, 2499):
        np.testing.assert_array_equal(obs[i], observe(state.take([i]))[0])
    seats = np.arange(2500) % num_players
    by_seat = observe(state, seat=seats)
    for i in (5, 1500):
        np.testing.assert_array_equal(by_seat[i], observe(state.take([i]), seat=int(seats[i]))[0])


def test_out_is_filled_whether_or_not_it_is_contiguous() -> None:
    state = _mixed_batch(4, 300, 25)
    want = observe(state)
    out = np.full((300, OBS_DIM), np.nan, dtype=np.float32)
    assert observe(state, out=out) is out
    np.testing.assert_array_equal(out, want)
    wide = np.full((300, OBS_DIM + 3), np.nan, dtype=np.float32)
    view = wide[:, 1 : OBS_DIM + 1]  # rows not contiguous
    assert observe(state, out=view) is view
    np.testing.assert_array_equal(view, want)


def test_bad_seat_or_out_raise_value_error() -> None:
    state = _mixed_batch(4, 8, 3)
    with pytest.raises(ValueError, match="seat must be in 0..3"):
        observe(state, seat=4)
    with pytest.raises(ValueError, match=r"seat must be an int or a \(8,\) array"):
        observe(state, seat=np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="out must be a float32 array of shape"):
        observe(state, out=np.zeros((8, OBS_DIM), dtype=np.float64))


@pytest.mark.parametrize("seat", [2.7, 2.0, True, np.float64(1), "2", [1.0] * 8, np.ones(8, bool)])
def test_a_seat_that_is_no_integer_is_a_type_error(seat: object) -> None:
    # Issue 19.6: seat=2.7 was cast to 2 and seat=True to 1, silently.
    state = _mixed_batch(4, 8, 3)
    with pytest.raises(TypeError, match=r"seat must be an int or a \(8,\) integer array"):
        observe(state, seat=seat)  # type: ignore[arg-type]


def test_numpy_integer_seats_stay_accepted() -> None:
    state = _mixed_batch(4, 8, 3)
    want = observe(state, seat=2)
    for seat in (np.int64(2), np.uint8(2), np.int8(2), np.full(8, 2, np.int32), [2] * 8):
        np.testing.assert_array_equal(observe(state, seat=seat), want)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_route_block_lists_the_present_fields_in_sailing_order(num_players: int) -> None:
    # Against a plain reading: from the own field, step forward around the route,
    # skipping fields whose card was removed; one lap, then nothing.
    state = _mixed_batch(num_players, 60, 120)
    assert (~state.present).any()  # some cards were removed
    deck = state.config.deck
    F = state.config.route_fields
    for g in range(state.batch_size):
        for seat in range(num_players):
            fields = [f for f in range(F) if state.present[g, f // 2]]
            i = fields.index(int(state.boat_field[g, seat]))
            order = [fields[(i + k) % len(fields)] for k in range(len(fields))]
            want = [SUIT_NAMES[deck.color[state.route[g, f]]] for f in order]
            route = decode(observe(state.take([g]), seat=seat)[0])["route"]
            assert [r["color"] for r in route] == want
            assert [r["ahead"] for r in route] == list(range(len(order)))
            assert len(order) <= MAX_FIELDS


def test_the_reused_work_arrays_never_leak_between_calls() -> None:
    # The encoder keeps arrays per (config, batch size) and thread; interleaving
    # tables, batch sizes and seats must give what a first call gives.
    a = _mixed_batch(3, 40, 30)
    b = _mixed_batch(5, 40, 30)
    want_a, want_b = observe(a.copy()), observe(b.copy())
    want_a7 = observe(a.take(np.arange(7)))
    for _ in range(2):
        np.testing.assert_array_equal(observe(b), want_b)
        np.testing.assert_array_equal(observe(a), want_a)
        np.testing.assert_array_equal(observe(a.take(np.arange(7))), want_a7)
        observe(a, seat=2)


def test_threads_encoding_at_once_get_their_own_results() -> None:
    states = [_mixed_batch(4, 300, steps) for steps in (10, 20, 30, 40)]
    want = [observe(s) for s in states]
    got: list[list[np.ndarray]] = [[] for _ in states]

    def encode(i: int) -> None:
        for _ in range(20):
            got[i].append(observe(states[i]))

    threads = [threading.Thread(target=encode, args=(i,)) for i in range(len(states))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for i, results in enumerate(got):
        assert len(results) == 20
        for r in results:
            np.testing.assert_array_equal(r, want[i])


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_split_the_batch_without_changing_a_value(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernels, "MIN_GAMES_PER_THREAD", 64)  # split small batches too
    state = _mixed_batch(4, 1000, 40)
    seats = np.arange(1000) % 4
    want, want_seats = observe(state), observe(state, seat=seats)
    out = np.full((1000, OBS_DIM), np.nan, dtype=np.float32)
    assert observe(state, out=out, threads=threads) is out
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(observe(state, seat=seats, threads=threads), want_seats)
    view = np.full((1000, OBS_DIM + 1), np.nan, dtype=np.float32)[:, 1:]  # not contiguous
    np.testing.assert_array_equal(observe(state, out=view, threads=threads), want)
    # More threads than games per part allows: the parts stay at least 64 games.
    np.testing.assert_array_equal(observe(state.take(np.arange(100)), threads=threads), want[:100])


def test_threads_must_be_a_positive_int() -> None:
    state = _mixed_batch(4, 8, 3)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="threads must be an int >= 1, got"):
            observe(state, threads=bad)
    for bad in (2.0, True, "2", None):
        with pytest.raises(TypeError, match="threads must be an int >= 1, got"):
            observe(state, threads=bad)  # type: ignore[arg-type]
    np.testing.assert_array_equal(observe(state, threads=np.int64(2)), observe(state))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_a_fresh_encoder_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    # SubprocVecEnv and friends fork after the parent used the pool: its threads do
    # not exist in the child, which must start its own instead of waiting forever.
    monkeypatch.setattr(kernels, "MIN_GAMES_PER_THREAD", 64)
    state = _mixed_batch(3, 400, 20)
    want = observe(state, threads=2)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_encode_in_child, (state, 2)).get(timeout=60)
    np.testing.assert_array_equal(got, want)


def _encode_in_child(state, threads: int) -> np.ndarray:
    kernels.MIN_GAMES_PER_THREAD = 64
    return observe(state, threads=threads)
