"""The vector driver: shapes, masks, learner seats, opponents, auto-reset, rewards (R10)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from kanaloa_env.bots import RandomBot, sample_legal
from kanaloa_env.bots.model import CallableBot
from kanaloa_env.core.kanaloa import OBS_DIM, Config, decode, legal_action_mask, observe
from kanaloa_env.core.rng import game_keys
from kanaloa_env.wrappers import StepResult, VectorDriver, observation_space


def play(driver: VectorDriver, steps: int, seed: int = 0) -> Iterator[StepResult]:
    """Random learner play, yielding each StepResult right after its step."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = driver.action_masks()
        live = masks.any(axis=1)
        a = np.zeros(driver.num_envs, dtype=np.int64)
        a[live] = sample_legal(masks[live], rng)
        yield driver.step(a)


def assert_waiting_for_learner(driver: VectorDriver) -> None:
    s = driver.state
    live = ~s.done & ~driver.game_over
    assert (s.current_player[live] == driver.learner_seats[live]).all()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_shapes_dtypes_and_masks_equal_core(num_players: int) -> None:
    d = VectorDriver(16, num_players=num_players, seed=1)
    obs = d.reset()
    assert obs.shape == (16, OBS_DIM) and obs.dtype == np.float32
    for r in play(d, 60):
        assert r.obs.shape == (16, OBS_DIM) and r.obs.dtype == np.float32
        assert r.rewards.shape == (16,) and r.rewards.dtype == np.float32
        assert r.terminated.dtype == bool and r.truncated.dtype == bool
        E = len(r.ended)
        assert r.final_obs.shape == (E, OBS_DIM) and r.final_obs.dtype == np.float32
        assert r.winner.shape == r.learner_seat.shape == r.illegal.shape == (E,)
        masks = d.action_masks()
        assert masks.shape == (16, 66) and masks.dtype == bool
        s = d.state
        np.testing.assert_array_equal(masks, legal_action_mask(s))
        np.testing.assert_array_equal(r.obs, observe(s, seat=d.learner_seats))
        assert_waiting_for_learner(d)
        assert masks.any(axis=1).all()  # autoreset: every game has a decision
        space = observation_space()
        assert (r.obs >= space.low).all() and (r.obs <= space.high).all()


def test_returned_arrays_are_fresh() -> None:
    d = VectorDriver(8, seed=0)
    obs = d.reset()
    obs[:] = 123.0
    masks = d.action_masks()
    masks[:] = False
    assert d.action_masks().any(axis=1).all()
    assert not (d.observations() == 123.0).any()
    r = d.step(sample_legal(d.action_masks(), np.random.default_rng(0)))
    r.obs[:] = 7.0
    assert not (d.observations() == 7.0).all()
    seats = d.learner_seats
    seats[:] = 99
    assert (d.learner_seats < 4).all()


def test_rotating_learner_seat_follows_the_game_number() -> None:
    d = VectorDriver(10, num_players=4, learner_seat="rotate", seed=3)
    d.reset()
    np.testing.assert_array_equal(d.learner_seats, np.arange(10) % 4)
    started = 10
    for r in play(d, 80):
        for j, g in enumerate(r.ended):
            # ended games were replaced, in index order, by games started..started+k
            assert d.learner_seats[g] == (started + j) % 4
            assert r.learner_seat[j] in range(4)
        started += len(r.ended)
    assert started > 10  # some games were restarted


def test_auto_reset_uses_the_next_game_keys() -> None:
    d = VectorDriver(12, seed=5)
    d.reset()
    np.testing.assert_array_equal(d.state.key, game_keys(5, np.arange(12)))
    counter = 12
    for r in play(d, 80):
        if len(r.ended):
            want = game_keys(5, np.arange(counter, counter + len(r.ended)))
            np.testing.assert_array_equal(d.state.key[r.ended], want)
            counter += len(r.ended)
    assert counter > 12


def test_random_and_fixed_learner_seats() -> None:
    d = VectorDriver(200, num_players=5, learner_seat="random", seed=0)
    d.reset()
    seats = d.learner_seats
    assert set(seats.tolist()) == set(range(5))
    d2 = VectorDriver(200, num_players=5, learner_seat="random", seed=0)
    d2.reset()
    np.testing.assert_array_equal(seats, d2.learner_seats)
    d3 = VectorDriver(7, num_players=3, learner_seat=2, seed=0)
    d3.reset()
    assert (d3.learner_seats == 2).all()
    for _ in play(d3, 40):
        assert (d3.learner_seats == 2).all()
        assert_waiting_for_learner(d3)


def test_same_seed_same_trajectories_and_seeds_differ() -> None:
    def run(seed: int) -> list[np.ndarray]:
        d = VectorDriver(8, seed=seed)
        out = [d.reset()]
        for r in play(d, 50, seed=11):
            out += [r.obs, r.rewards, r.terminated, r.final_obs]
        return out

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_reset_with_seed_restarts_the_stream() -> None:
    d = VectorDriver(4, seed=9)
    first = d.reset()
    list(play(d, 5))
    np.testing.assert_array_equal(d.reset(seed=9), first)
    later = d.reset()  # continues the stream: new games
    assert not np.array_equal(later, first)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_end_of_game_rewards_r10_and_final_observation(num_players: int) -> None:
    """R10.1: +1 to the winner, -1/(P-1) to the others, reported when the game ends,
    also when it ends on an opponent's move; nothing before."""
    P = num_players
    d = VectorDriver(32, num_players=P, seed=2)
    d.reset()
    totals = np.zeros(32)
    ended = wins = 0
    for r in play(d, 120):
        not_ended = np.setdiff1d(np.arange(32), r.ended)
        assert (r.rewards[not_ended] == 0).all()
        totals += r.rewards
        for j, g in enumerate(r.ended):
            assert r.terminated[g] and not r.truncated[g]
            want = 1.0 if r.winner[j] == r.learner_seat[j] else -1.0 / (P - 1)
            assert r.rewards[g] == pytest.approx(want)
            assert r.episode_return[j] == pytest.approx(want)
            assert r.episode_length[j] > 0
            info = decode(r.final_obs[j])
            assert info["phase"] == "game_over" and not info["to_act"]
            assert decode(r.obs[g])["round_scaled"] == 0.0  # the new game's first round
        ended += len(r.ended)
        wins += int(r.won.sum())
    assert ended > 20 and 0 < wins < ended  # both outcomes occur


def test_truncation_is_reported_as_truncated_r9_4() -> None:
    d = VectorDriver(8, config=Config(max_rounds=1), seed=0)
    d.reset()
    seen = 0
    for r in play(d, 40):
        for j, g in enumerate(r.ended):
            if r.truncated[g]:
                seen += 1
                assert not r.terminated[g] and r.winner[j] == -1 and r.rewards[g] == 0.0
    assert seen > 0


def test_opponents_act_on_batches_in_few_calls() -> None:
    """The loop runs over pending decisions, never over games."""
    calls: list[int] = []

    def first_legal(obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        assert obs.shape == (len(masks), OBS_DIM)
        calls.append(len(masks))
        return masks.argmax(axis=1)

    d = VectorDriver(256, opponents=first_legal, seed=0)
    d.reset()
    calls.clear()
    list(play(d, 10))
    assert max(calls) > 100  # whole sub-batches at once
    assert len(calls) < 10 * 40  # far fewer calls than the ~2500 opponent decisions


def test_opponents_per_seat_and_from_a_pool() -> None:
    P = 4
    seen: dict[str, set[int]] = {}

    class SeatRecorder:
        uses_state = True
        uses_observations = False

        def __init__(self, name: str) -> None:
            self.name = name
            seen[name] = set()

        def act(self, obs, masks, rng, view=None, seats=None):
            seen[self.name].update(np.asarray(seats).tolist())
            return sample_legal(masks, rng)

    d = VectorDriver(
        4, num_players=P, opponents=[SeatRecorder(f"b{k}") for k in (1, 2, 3)], learner_seat=0
    )
    d.reset()
    list(play(d, 30))
    # Opponent k-1 sits k seats after the learner (seat 0).
    assert seen == {"b1": {1}, "b2": {2}, "b3": {3}}

    seen.clear()
    pool = [SeatRecorder("x"), SeatRecorder("y")]
    d = VectorDriver(64, num_players=P, opponents=pool, opponent_sampling="random", seed=1)
    d.reset()
    list(play(d, 20))
    assert seen["x"] == seen["y"] == {0, 1, 2, 3}


def test_set_opponents_takes_effect_at_once() -> None:
    d = VectorDriver(16, seed=0)
    d.reset()
    used = []
    d.set_opponents(CallableBot(lambda o, m, r: (used.append(1), m.argmax(axis=1))[1], name="f"))
    list(play(d, 3))
    assert used


def test_bad_opponent_actions_name_the_bot() -> None:
    d = VectorDriver(8, opponents=CallableBot(lambda o, m, r: (~m).argmax(axis=1), name="cheat"))
    with pytest.raises(ValueError, match="cheat"):
        d.reset()
        list(play(d, 3))


def test_illegal_learner_action_raise_leaves_state_unchanged() -> None:
    d = VectorDriver(6, seed=0, illegal_action="raise")
    d.reset()
    before = d.state
    bad = (~d.action_masks()).argmax(axis=1)
    with pytest.raises(ValueError, match="illegal learner actions"):
        d.step(bad)
    assert d.state.equal(before)
    huge = np.zeros(6, dtype=np.uint64)
    huge[1] = 2**64 - 1  # named as given, not as its wrapped int64 value
    with pytest.raises(ValueError, match=f"game 1: action {2**64 - 1},"):
        d.step(huge)
    assert d.state.equal(before)
    with pytest.raises(ValueError, match="shape"):
        d.step(np.zeros(5, dtype=np.int64))
    with pytest.raises(TypeError, match="integers"):
        d.step(np.zeros(6))


def test_illegal_learner_action_lose_ends_only_that_game() -> None:
    d = VectorDriver(6, seed=0, illegal_action="lose", illegal_reward=-2.0)
    d.reset()
    before = d.state
    a = sample_legal(d.action_masks(), np.random.default_rng(0))
    a[2] = 99  # out of range
    a[4] = int((~d.action_masks()[4]).argmax())
    r = d.step(a)
    np.testing.assert_array_equal(r.ended, [2, 4])
    assert r.terminated[[2, 4]].all() and not r.terminated[[0, 1, 3, 5]].any()
    assert r.illegal.all() and (r.winner == -1).all()
    assert r.rewards[2] == r.rewards[4] == -2.0
    np.testing.assert_array_equal(r.final_obs, observe(before.take([2, 4]), seat=[2, 0]))
    assert (d.state.round[[2, 4]] == 1).all()  # restarted


def test_illegal_learner_action_random_plays_a_legal_one() -> None:
    d = VectorDriver(6, seed=0, illegal_action="random")
    d.reset()
    r = d.step(np.full(6, 99))
    assert r.replaced.all() and len(r.ended) == 0


def test_without_autoreset_finished_games_stay_over() -> None:
    d = VectorDriver(16, seed=0, autoreset=False)
    d.reset()
    ended_total = 0
    for _ in range(400):
        if d.game_over.all():
            break
        over_before = d.game_over
        r = next(play(d, 1))
        assert (r.rewards[over_before] == 0).all()
        assert not np.isin(r.ended, np.flatnonzero(over_before)).any()
        ended_total += len(r.ended)
        assert d.action_masks()[d.game_over].all()  # over: all True (pgx), never all False
    assert d.game_over.all() and ended_total == 16


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_envs": 0}, ValueError),
        ({"num_envs": 2.0}, TypeError),
        ({"num_envs": 2, "learner_seat": "left"}, ValueError),
        ({"num_envs": 2, "learner_seat": 4}, ValueError),
        ({"num_envs": 2, "opponents": 42}, TypeError),
        ({"num_envs": 2, "opponents": "grandmaster"}, ValueError),
        ({"num_envs": 2, "opponents": ["random", "random"]}, ValueError),
        ({"num_envs": 2, "opponents": []}, ValueError),
        ({"num_envs": 2, "opponent_sampling": "round-robin"}, ValueError),
        ({"num_envs": 2, "illegal_action": "ignore"}, ValueError),
        ({"num_envs": 2, "num_players": 3, "config": Config(num_players=4)}, ValueError),
        ({"num_envs": 2, "config": "four players"}, TypeError),
        ({"num_envs": 2, "seed": -1}, ValueError),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        VectorDriver(**kwargs)


def test_step_before_reset_raises() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        VectorDriver(2).step(np.zeros(2, dtype=np.int64))


def test_random_opponents_skip_observations_but_heuristic_gets_state() -> None:
    d = VectorDriver(32, opponents="heuristic", seed=0)
    d.reset()
    list(play(d, 30))
    assert_waiting_for_learner(d)
    assert isinstance(VectorDriver(2).opponents[0], RandomBot)


def test_progress_shaping_telescopes_to_the_r10_return() -> None:
    """Shaping pays boat moves when they happen; per game it sums to zero, so every
    episode return is still the R10.1 result."""
    d = VectorDriver(32, seed=3, progress_shaping=1.0)
    d.reset()
    running = np.zeros(32)
    nonzero_mid_game = 0
    ended = 0
    for r in play(d, 120):
        not_ended = np.setdiff1d(np.arange(32), r.ended)
        nonzero_mid_game += int((r.rewards[not_ended] != 0).sum())
        running += r.rewards
        for j, g in enumerate(r.ended):
            want = 1.0 if r.won[j] else -1.0 / 3
            assert r.episode_return[j] == pytest.approx(want, abs=1e-5)
            assert running[g] == pytest.approx(want, abs=1e-5)  # the step rewards add up
            running[g] = 0
        ended += len(r.ended)
    assert ended > 10 and nonzero_mid_game > 100
    with pytest.raises(ValueError):
        VectorDriver(2, progress_shaping=float("nan"))


@pytest.mark.parametrize("game", ["kanaloa", "kahuna"])
def test_threads_change_nothing_but_speed(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kanaloa_env.core import kernels

    monkeypatch.setattr(kernels, "MIN_GAMES_PER_THREAD", 16)  # split this small batch

    def by_observation(obs: np.ndarray, masks: np.ndarray, rng: object) -> np.ndarray:
        # A choice that any changed observation value would likely change.
        k = (np.abs(obs).sum(axis=1) * 1000).astype(np.int64) % masks.sum(axis=1)
        return np.array([np.flatnonzero(m)[i] for m, i in zip(masks, k, strict=True)])

    opponents = ["random", "heuristic", CallableBot(by_observation)]
    kw = {"game": game, "seed": 5, "opponents": opponents, "opponent_sampling": "random"}
    one = VectorDriver(96, **kw)
    two = VectorDriver(96, threads=2, **kw)
    np.testing.assert_array_equal(one.reset(), two.reset())
    for a, b in zip(play(one, 40), play(two, 40), strict=True):
        np.testing.assert_array_equal(a.obs, b.obs)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        np.testing.assert_array_equal(a.ended, b.ended)
    assert two.threads == 2
    assert one.state.equal(two.state)
    with pytest.raises(ValueError, match="threads must be an int >= 1, got 0"):
        VectorDriver(2, threads=0)
    with pytest.raises(TypeError, match="threads must be an int >= 1, got 1.5"):
        VectorDriver(2, threads=1.5)  # type: ignore[arg-type]
