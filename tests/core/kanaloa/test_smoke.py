"""Random self-play through the shipped invariant checker for every table size."""

import pytest

from kanaloa_env.core.kanaloa import Config
from kanaloa_env.testing import random_playthrough


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize("nil_announcement", [False, True])
def test_random_games_keep_invariants(num_players: int, nil_announcement: bool) -> None:
    stats = random_playthrough(
        Config(num_players=num_players, nil_announcement=nil_announcement), 64, seed=1
    )
    assert stats.terminated + stats.truncated == 64
    assert stats.terminated == 64  # random play ends in ~5 rounds, far below max_rounds


def test_state_save_load_round_trip(tmp_path) -> None:
    import numpy as np

    from kanaloa_env.bots import sample_legal
    from kanaloa_env.core.kanaloa import State, init, step

    state = init(Config(num_players=5, nil_announcement=True, max_rounds=7), 16, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        state = step(state, sample_legal(state.legal, rng))
    path = tmp_path / "batch.npz"
    state.save(path)
    loaded = State.load(path)
    assert loaded == state
    assert loaded.config == state.config


def test_invariant_checker_catches_corruption() -> None:
    # The checker the tests rely on must itself fail on broken states (R1.2, R3.1).
    import numpy as np

    from kanaloa_env.bots import sample_legal
    from kanaloa_env.core.kanaloa import init, step
    from kanaloa_env.testing import InvariantError, check_invariants

    state = init(Config(num_players=4), 8, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(6):  # every game has cards in its history
        state = step(state, sample_legal(state.legal, rng))
    check_invariants(state)
    played = state.copy()
    played.played[3] ^= np.uint64(1) << np.uint64(47)
    with pytest.raises(InvariantError, match="played bit set.*games \\[3\\]"):
        check_invariants(played)
    twice = state.copy()
    twice.hands[2, 1] |= twice.hands[2, 0]
    with pytest.raises(InvariantError, match="games \\[2\\]"):
        check_invariants(twice)


def test_invariant_checker_catches_a_stale_present_slots_cache() -> None:
    # `present_slots` caches `present` for the step; a stale cache must not pass.
    import numpy as np

    from kanaloa_env.core.kanaloa import init
    from kanaloa_env.testing import InvariantError, check_invariants

    state = init(Config(num_players=4), 8, seed=5)
    check_invariants(state)
    stale = state.copy()
    stale.present[5, 3] = False  # a removal that forgot the cache
    with pytest.raises(InvariantError, match="present_slots.*games \\[5\\]"):
        check_invariants(stale)
    assert np.array_equal(state.present_slots, np.full(8, 2**11 - 1))


@pytest.mark.parametrize(
    ("name", "index", "value"),
    [
        ("boat_field", (1, 0), 99),
        ("history", (1, 0), 99),
        ("lead_suit", 1, 7),
        ("trump", 1, 9),
        ("leader", 1, 9),
        ("phase", 1, 17),
        ("route", (1, 0), 40),
        ("announced", (1, 2), 5),
        ("round", 1, -3),
    ],
)
def test_invariant_checker_names_values_out_of_range(name: str, index: object, value: int) -> None:
    # A corrupt index is reported as such, not met as an IndexError by later checks.
    import numpy as np

    from kanaloa_env.bots import sample_legal
    from kanaloa_env.core.kanaloa import init, step
    from kanaloa_env.testing import InvariantError, check_invariants

    state = init(Config(num_players=4), 3, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        state = step(state, sample_legal(state.legal, rng))
    check_invariants(state)
    bad = state.copy()
    getattr(bad, name)[index] = value
    with pytest.raises(InvariantError, match=rf"^{name} outside .*games \[1\]"):
        check_invariants(bad)


@pytest.mark.parametrize("arg", ["num_games", "max_steps", "check_every"])
def test_random_playthrough_rejects_counts_below_one(arg: str) -> None:
    with pytest.raises(ValueError, match=rf"{arg} must be an int >= 1, got 0"):
        random_playthrough(Config(num_players=3), **{"num_games": 2, arg: 0})
    with pytest.raises(TypeError, match=arg):
        random_playthrough(Config(num_players=3), **{"num_games": 2, arg: 1.5})
