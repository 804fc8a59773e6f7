"""One conformance suite over every registered game, through the public interfaces only.

Parametrized over `kanaloa_env.games.GAMES` as it stands when the tests are
collected: the package's games and the ones `tests/conftest.py` registers (Kuhn
poker, `tests/kuhn/`). For each game, with its default config:

- the protocol: every required piece, spaces and bounds, configs, the engine's
  seeding, purity and checks;
- PettingZoo: the registry id, `api_test` (registry, `env()`, `raw_env()`),
  `seed_test`, `render_test` over the render modes the game can draw, and the AEC
  env as the engine at batch size 1;
- Gymnasium's `check_env` on the single-agent env, SB3's `check_env`,
  `gymnasium.make_vec` with the vector entry point and the SB3 `VecEnv`;
- observations within `Game.observation_bounds()`;
- hidden information (games with belief sampling): states drawn by `determinize`
  from a player's public view change what the player cannot know and leave that
  player's observation as it is;
- scenarios: `to_scenario`/`from_scenario` round trips that play on identically;
- random playthroughs under the invariant checker, which catches broken states;
- every bot of `bots.bot_names(game)` playing legally in the arena (the search
  bot at a tiny budget), its games saved as records that replay;
- records and replay, terminal play and the words of its views;
- the AEC env's `state()` (PettingZoo's state tests; every player's observation);
- the clickable regions of its picture (`Game.action_regions`): legal moves, on the picture.

Optional pieces a game does not provide (`Game.provides`) are skipped, with the
reason. Run it for one game with `python -m pytest tests/conformance -k kuhn`.
"""

from __future__ import annotations

import dataclasses
import io
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from conformance_kit import (
    GAME_NAMES,
    play_random,
    positions,
    random_actions,
    require,
    same_position,
)
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import kanaloa_env
from kanaloa_env.aec import registry_id
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import RandomBot, bot_names, make_bot, sample_legal
from kanaloa_env.core.batch import GameState
from kanaloa_env.core.rng import game_keys
from kanaloa_env.games import get_game
from kanaloa_env.games.protocol import Game
from kanaloa_env.records import (
    Recorder,
    ReplayError,
    load_record,
    load_records,
    record_bot_game,
    replay,
    replay_states,
)
from kanaloa_env.render import render_modes
from kanaloa_env.wrappers import GymVectorEnv, VectorDriver


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> Game[Any, Any]:
    return get_game(request.param)


@pytest.fixture(autouse=True)
def _quiet_checker_warnings() -> Iterator[None]:
    # api_test warns about dict observations of envs it does not know by name, and
    # about its own reset(options={"options": 1}); neither is a failure.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _gym_id(game: Game[Any, Any]) -> str:
    return kanaloa_env.GYM_ENV_IDS[game.name]


# ---- the protocol ---------------------------------------------------------------------


def test_the_game_has_every_required_piece(game: Game[Any, Any]) -> None:
    assert game.missing_pieces() == []
    assert (
        get_game(game.name) is game and kanaloa_env.games.GAMES[game.name].version == game.version
    )
    assert isinstance(game.num_actions, int) and game.num_actions >= 2
    assert isinstance(game.obs_dim, int) and game.obs_dim >= 1
    counts = game.player_counts
    assert counts and list(counts) == sorted(set(counts)) and min(counts) >= 1
    assert game.default_num_players in counts
    assert issubclass(game.state_class, GameState)
    names = [game.action_name(a) for a in range(game.num_actions)]
    assert all(isinstance(n, str) and n for n in names)
    assert len(set(names)) == game.num_actions, "two actions share a name"
    low, high = game.observation_bounds()
    assert low.shape == high.shape == (game.obs_dim,)
    assert low.dtype == high.dtype == np.float32 and (low <= high).all()


def test_configs_build_and_round_trip_through_overrides(game: Game[Any, Any]) -> None:
    cfg = game.make_config()
    assert isinstance(cfg, game.config_class)
    P = game.num_players_of(cfg)
    assert P == game.default_num_players
    assert game.make_config(None, P) == cfg
    overrides = game.config_overrides(cfg)
    assert json.loads(json.dumps(overrides)) == overrides == {}
    assert game.config_from_overrides(P, overrides) == cfg
    with pytest.raises(TypeError, match="unknown config options"):
        game.make_config(no_such_option_anywhere=1)
    with pytest.raises(ValueError, match="num_players|players"):
        game.make_config(None, max(game.player_counts) + 1)


def test_game_i_of_a_seed_is_the_same_at_any_batch_size(game: Game[Any, Any]) -> None:
    cfg = game.make_config()
    batch = game.init(cfg, 5, seed=7)
    assert batch.batch_size == 5 and batch.num_players == game.num_players_of(cfg)
    assert game.init_game(cfg, 7, i=3).equal(batch.take([3]))
    assert game.init(cfg, 1, seed=7).equal(batch.take([0]))
    keys = game_keys(7, np.arange(5))
    assert game.init_from_keys(cfg, keys).equal(batch)
    other = game.init(cfg, 5, seed=8)
    game.reset_games(other, np.array([1, 4]), keys[[1, 4]])
    assert other.take([1, 4]).equal(batch.take([1, 4]))
    assert not game.init(cfg, 5, seed=8).take([0]).equal(batch.take([0]))
    assert (batch.current_player >= 0).all() and batch.legal.any(axis=1).all()
    assert batch.legal.shape == (5, game.num_actions) and not batch.done.any()


def test_step_is_pure_and_refuses_illegal_actions(game: Game[Any, Any]) -> None:
    pos = positions(game, 8, seed=1)
    rng = np.random.default_rng(0)
    before = pos.copy()
    for arr in pos.arrays().values():
        arr.flags.writeable = False
    actions = random_actions(pos, rng)
    after = game.step(pos, actions)
    assert pos.equal(before) and not after.equal(before)
    live = int(np.flatnonzero(~pos.done)[0])
    illegal = actions.copy()
    illegal[live] = int(np.flatnonzero(~pos.legal[live])[0])
    with pytest.raises(ValueError, match=f"game {live}"):
        game.validate_actions(pos, illegal)
    state = before.copy()
    with pytest.raises(ValueError, match=f"game {live}"):
        game.step_inplace(state, illegal)
    assert state.equal(before), "a refused step changed the state"
    with pytest.raises(ValueError):
        game.step_inplace(state, np.full(state.batch_size, game.num_actions))
    assert (after.legal[after.done] == 0).all() and (after.current_player[after.done] == -1).all()


def test_final_ranks_and_summary_of_finished_games(game: Game[Any, Any]) -> None:
    state = game.init(game.make_config(), 16, seed=2)
    play_random(game, state, np.random.default_rng(2))
    P = state.num_players
    ranks = game.final_ranks(state)
    assert ranks.shape == (16, P) and (ranks >= 1).all() and (ranks <= P).all()
    np.testing.assert_allclose(ranks.sum(axis=1), P * (P + 1) / 2)
    won = np.flatnonzero(state.winner >= 0)
    assert (ranks[won, state.winner[won]] == 1).all()
    for name, values in game.game_summary(state).items():
        assert isinstance(name, str) and np.asarray(values).shape[0] == 16
    assert game.shaping_potential(state, np.zeros(16, np.intp)).shape == (16,)


# ---- PettingZoo ---------------------------------------------------------------------------


def _make(game: Game[Any, Any], how: str, **kwargs: Any) -> Any:
    if how == "registry":
        return pettingzoo.make("aec", registry_id(game), **kwargs)
    if how == "env":
        return kanaloa_env.env(game=game.name, **kwargs)
    return kanaloa_env.raw_env(game=game.name, **kwargs)


def test_pettingzoo_registry_makes_the_env(game: Game[Any, Any]) -> None:
    assert registry_id(game) == f"kanaloa_env/{game.name}-{game.version}"
    assert registry_id(game) in pettingzoo.aec_registry
    e = pettingzoo.make("aec", registry_id(game))
    e.reset(seed=0)
    assert e.unwrapped.game is game and e.metadata["name"] == f"{game.name}_{game.version}"
    P = game.default_num_players
    assert e.agents == [f"player_{p}" for p in range(P)]
    assert e.action_space("player_0").n == game.num_actions
    assert e.observation_space("player_0")["observation"].shape == (game.obs_dim,)


@pytest.mark.parametrize("how", ["registry", "env", "raw_env"])
def test_pettingzoo_api_test(game: Game[Any, Any], how: str) -> None:
    api_test(_make(game, how), num_cycles=1000)


def test_pettingzoo_seed_test(game: Game[Any, Any]) -> None:
    seed_test(lambda: _make(game, "registry"), 300)


def test_render_modes(game: Game[Any, Any], capsys: pytest.CaptureFixture[str]) -> None:
    modes = render_modes(game)
    assert kanaloa_env.raw_env(game=game.name).metadata["render_modes"] == modes
    assert gym.make(_gym_id(game)).unwrapped.metadata["render_modes"] == modes
    render_test(
        lambda render_mode=None: kanaloa_env.env(game=game.name, render_mode=render_mode),
        custom_tests={"ansi": lambda s: "player_0" in s},
    )
    if "human" in modes:
        assert "player_0" in capsys.readouterr().out  # human mode printed the table
    for mode in modes:  # the single-agent env draws the same
        env = gym.make(_gym_id(game), render_mode=mode)
        env.reset(seed=0)
        frame = env.render()
        if mode == "rgb_array":
            assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.dtype == np.uint8
        else:
            assert frame is None if mode == "human" else isinstance(frame, str)


def test_aec_env_is_the_engine_at_batch_size_one(game: Game[Any, Any]) -> None:
    """Play random games through `raw_env` and, in step, game 0 of an engine batch seeded
    the same: the same state, player to act, observations and masks after every
    decision, and the same returns."""
    cfg = game.make_config()
    P = game.num_players_of(cfg)
    rng = np.random.default_rng(0)
    e = kanaloa_env.raw_env(game=game.name)
    for seed in (1, 2):
        e.reset(seed=seed)
        core = game.init(cfg, 3, seed)
        returns = dict.fromkeys(e.possible_agents, 0.0)
        core_returns = np.zeros(P)
        while not core.done[0]:
            assert e.game_state.equal(core.take([0]))
            seat = int(core.current_player[0])
            assert e.agent_selection == f"player_{seat}"
            obs, reward, terminated, truncated, _ = e.last()
            returns[e.agent_selection] += reward
            assert not terminated and not truncated
            np.testing.assert_array_equal(obs["action_mask"], core.legal[0].astype(np.int8))
            np.testing.assert_array_equal(obs["observation"], game.observe(core, seat=seat)[0])
            other = (seat + 1) % P
            o = e.observe(f"player_{other}")
            assert not o["action_mask"].any()
            np.testing.assert_array_equal(o["observation"], game.observe(core, seat=other)[0])
            actions = random_actions(core, rng)
            e.step(int(actions[0]))
            game.step_inplace(core, actions)
            core_returns += core.rewards[0]
        for agent in e.agent_iter():
            _, reward, terminated, truncated, _ = e.last()
            assert (terminated, truncated) == (bool(core.terminated[0]), bool(core.truncated[0]))
            returns[agent] += reward
            e.step(None)
        assert e.agents == []
        assert returns == {f"player_{p}": pytest.approx(core_returns[p]) for p in range(P)}


# ---- Gymnasium and SB3 ----------------------------------------------------------------------


def test_gymnasium_check_env(game: Game[Any, Any]) -> None:
    env = gym.make(_gym_id(game), opponents="random")
    assert env.unwrapped.game is game
    check_env(env.unwrapped, skip_render_check=True)


def test_sb3_check_env(game: Game[Any, Any]) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gym.make(_gym_id(game)).unwrapped)


def test_single_agent_env_plays_to_the_end(game: Game[Any, Any]) -> None:
    env = gym.make(_gym_id(game), opponents="random")
    obs, info = env.reset(seed=3)
    assert obs.shape == (game.obs_dim,) and info["action_mask"].shape == (game.num_actions,)
    rng = np.random.default_rng(0)
    for _ in range(5000):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(a)
        assert env.observation_space.contains(obs) and isinstance(reward, float)
        if terminated or truncated:
            break
    assert terminated or truncated
    assert info["action_mask"].all()  # a finished game's mask: all True (pgx), never all False


def test_progress_shaping_keeps_each_games_return(game: Game[Any, Any]) -> None:
    """Shaping by `Game.shaping_potential` is potential-based: a game's shaped return
    equals its plain return; a game that offers a potential sees it change rewards."""
    plain = VectorDriver(32, game=game.name, opponents="random", seed=2, autoreset=False)
    shaped = VectorDriver(
        32, game=game.name, opponents="random", seed=2, autoreset=False, progress_shaping=1.0
    )
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    plain.reset(), shaped.reset()
    ret_a, ret_b = np.zeros(32), np.zeros(32)
    saw_shaping = False
    for _ in range(5000):
        if plain.game_over.all():
            break
        ra = plain.step(sample_legal(plain.action_masks(), rng_a))
        rb = shaped.step(sample_legal(shaped.action_masks(), rng_b))
        ret_a += ra.rewards
        ret_b += rb.rewards
        saw_shaping |= bool((rb.rewards != ra.rewards).any())
    assert plain.game_over.all() and shaped.game_over.all()
    np.testing.assert_allclose(ret_a, ret_b, atol=1e-5)
    offers = type(game).shaping_potential is not Game.shaping_potential
    assert saw_shaping == offers


def test_make_vec_with_the_vector_entry_point(game: Game[Any, Any]) -> None:
    envs = gym.make_vec(_gym_id(game), num_envs=8, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, GymVectorEnv)
    assert envs.unwrapped.driver.game is game
    obs, info = envs.reset(seed=0)
    assert obs.shape == (8, game.obs_dim) and info["action_mask"].shape == (8, game.num_actions)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        obs, _, term, trunc, info = envs.step(sample_legal(info["action_mask"], rng))
        assert envs.observation_space.contains(obs)
        assert info["action_mask"].any(axis=1).all()
        ended += int((term | trunc).sum())
        if ended >= 8:
            break
    assert ended >= 8, "games do not end (or do not restart)"


def test_sb3_vec_env_restarts_finished_games(game: Game[Any, Any]) -> None:
    pytest.importorskip("stable_baselines3")
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    venv = SB3VecEnv(4, game=game.name, opponents="random", seed=0)
    assert venv.observation_space.shape == (game.obs_dim,)
    assert venv.action_space.n == game.num_actions
    venv.reset()
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(400):
        _, _, dones, infos = venv.step(sample_legal(venv.action_masks(), rng))
        for done, info in zip(dones, infos, strict=True):
            if done:
                finished += 1
                assert info["terminal_observation"].shape == (game.obs_dim,)
        if finished >= 4:
            break
    assert finished >= 4


# ---- observations ----------------------------------------------------------------------------


def test_observations_stay_within_the_bounds(game: Game[Any, Any]) -> None:
    low, high = game.observation_bounds()
    pos = positions(game, 16, seed=4)
    for seat in range(pos.num_players):
        obs = game.observe(pos, seat=seat)
        assert obs.shape == (16, game.obs_dim) and obs.dtype == np.float32
        assert ((obs >= low) & (obs <= high)).all(), f"seat {seat} outside the bounds"
    d = VectorDriver(32, game=game.name, opponents="random", seed=5)
    obs = d.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        assert ((obs >= low) & (obs <= high)).all()
        r = d.step(sample_legal(d.action_masks(), rng))
        obs = r.obs
        ended += len(r.ended)
        assert ((r.final_obs >= low) & (r.final_obs <= high)).all()
    assert ended >= 32


def test_hidden_information_never_reaches_an_observation(game: Game[Any, Any]) -> None:
    """Belief sampling swaps what a player cannot know: the sampled states change
    another player's observation (so something was swapped), never this player's."""
    require(game, "public_view", "determinize")
    pos = positions(game, 16, seed=3)
    B, P, n = pos.batch_size, pos.num_players, 6
    rep = np.repeat(np.arange(B), n)
    rng = np.random.default_rng(0)
    swapped = 0
    for seat in range(P):
        seats = np.full(B, seat)
        real = game.observe(pos, seat=seats)
        view = game.public_view(pos, seats)
        np.testing.assert_array_equal(game.observe(view, seat=seats), real)
        for source in (view, pos):
            samples = game.determinize(source, seats, n, rng)
            assert samples.batch_size == B * n
            np.testing.assert_array_equal(game.observe(samples, seat=seats[rep]), real[rep])
            np.testing.assert_array_equal(samples.current_player, pos.current_player[rep])
            np.testing.assert_array_equal(samples.done, pos.done[rep])
            mine = pos.current_player[rep] == seat
            np.testing.assert_array_equal(samples.legal[mine], pos.legal[rep][mine])
            if game.provides("check_invariants"):
                game.check_invariants(samples)
            other = (seat + 1) % P
            theirs = game.observe(pos, seat=other)[rep]
            swapped += int((game.observe(samples, seat=other) != theirs).any(axis=1).sum())
    assert swapped > 0, "determinize never changed anything hidden from the player"


def test_the_aec_state_passes_pettingzoos_state_tests(game: Game[Any, Any]) -> None:
    from pettingzoo.test.state_test import test_state, test_state_space

    P = game.default_num_players
    for env in (kanaloa_env.env(game=game.name), kanaloa_env.raw_env(game=game.name)):
        assert env.state_space.shape == (P * game.obs_dim,)
        test_state_space(env)
    # Random actions, illegal ones included: env() ends the game on one, as PettingZoo's do.
    test_state(kanaloa_env.env(game=game.name), num_cycles=50)


def test_the_state_is_every_players_observation_and_holds_what_each_hides(
    game: Game[Any, Any],
) -> None:
    pos = positions(game, 16, seed=5)
    B, P = pos.batch_size, pos.num_players
    sv = game.state_vector(pos)
    low, high = game.state_bounds(P)
    assert sv.shape == (B, P * game.obs_dim) and sv.dtype == np.float32
    assert ((sv >= low) & (sv <= high)).all()
    for p in range(P):
        block = sv[:, p * game.obs_dim : (p + 1) * game.obs_dim]
        np.testing.assert_array_equal(block, game.observe(pos, seat=p))
    env = kanaloa_env.raw_env(game=game.name)
    env.reset(seed=3)
    np.testing.assert_array_equal(env.state(), game.state_vector(env.game_state)[0])
    # States that one player cannot tell apart (belief samples) differ in the state vector.
    require(game, "determinize")
    seats = np.zeros(B, dtype=np.int64)
    samples = game.determinize(pos, seats, 6, np.random.default_rng(1))
    rep = np.repeat(np.arange(B), 6)
    differs = (game.state_vector(samples) != sv[rep]).any(axis=1)
    assert differs.any(), "the state vector missed what player 0 cannot see"


def test_a_public_view_hides_what_the_seat_may_not_know(game: Game[Any, Any]) -> None:
    """`public_view` keeps nothing that belief sampling is free to change: the key is
    blanked (it fixes every later chance event), and two sets of states drawn by
    `determinize` from one view give equal public views, equal to the view itself."""
    require(game, "public_view", "determinize")
    pos = positions(game, 16, seed=4)
    B, P, n = pos.batch_size, pos.num_players, 3
    rep = np.repeat(np.arange(B), n)
    for seat in range(P):
        seats = np.full(B, seat)
        view = game.public_view(pos, seats)
        assert (view.key == 0).all(), "public_view must blank the key"
        assert game.public_view(view, seats).equal(view), "a view of a view is the view"
        views = [
            game.public_view(game.determinize(view, seats, n, np.random.default_rng(k)), seats[rep])
            for k in (1, 2)
        ]
        for name in pos.array_names():
            for got in views:
                np.testing.assert_array_equal(
                    getattr(got, name),
                    getattr(view, name)[rep],
                    err_msg=f"{name}: the public view shows what belief sampling changes",
                )


# ---- positions -------------------------------------------------------------------------------


def test_scenarios_round_trip_and_play_on_identically(game: Game[Any, Any]) -> None:
    require(game, "to_scenario", "from_scenario")
    pos = positions(game, 8, seed=5)
    rng = np.random.default_rng(1)
    for i in range(pos.batch_size):
        sc = game.to_scenario(pos, i, include_key=True)
        assert json.loads(json.dumps(sc)) == sc, "a scenario is not JSON"
        restored = game.from_scenario(json.loads(json.dumps(sc)))
        assert game.to_scenario(restored, 0, include_key=True) == sc
        one = pos.take([i])
        same_position(game, restored, one)
        keyless = dict(sc)
        del keyless["key"]
        same_position(game, game.from_scenario(keyless, seed=3), one)
        while not one.done[0]:  # the key fixes every later chance event
            actions = random_actions(one, rng)
            game.step_inplace(one, actions)
            game.step_inplace(restored, actions)
            same_position(game, restored, one)
            np.testing.assert_array_equal(restored.rewards, one.rewards)
        e = kanaloa_env.raw_env(game=game.name)
        e.reset(options={"scenario": sc})
        assert e.to_scenario(include_key=True) == sc
        assert all(e.terminations.values()) == bool(pos.done[i])


# ---- invariants ------------------------------------------------------------------------------


def test_random_playthrough_under_the_invariant_checker(game: Game[Any, Any]) -> None:
    require(game, "random_playthrough", "check_invariants")
    game.random_playthrough(game.make_config(), num_games=32, seed=0)
    game.check_invariants(positions(game, 16, seed=6))


@pytest.mark.parametrize("broken", ["mask", "player_to_act", "end_flag"])
def test_the_invariant_checker_catches_a_broken_state(game: Game[Any, Any], broken: str) -> None:
    require(game, "check_invariants")
    pos = positions(game, 8, seed=7)
    state = pos.take([int(np.flatnonzero(~pos.done)[0])])
    if broken == "mask":
        state.legal[0] = ~state.legal[0]
    elif broken == "player_to_act":
        state.current_player[0] = -1
    else:
        state.terminated[0] = True
    with pytest.raises(AssertionError):
        game.check_invariants(state)


# ---- bots and the arena -----------------------------------------------------------------------


def _bots() -> list[tuple[str, str]]:
    return [(g, b) for g in GAME_NAMES for b in bot_names(g)]


@pytest.mark.parametrize(("name", "bot"), _bots(), ids=[f"{g}-{b}" for g, b in _bots()])
def test_every_bot_plays_legally_in_the_arena(name: str, bot: str, tmp_path: Path) -> None:
    game = get_game(name)
    player = make_bot(bot, game)
    if dataclasses.is_dataclass(player) and "rollouts" in {
        f.name for f in dataclasses.fields(player)
    }:
        player = dataclasses.replace(player, rollouts=4, time_ms=None)  # a tiny search
    P = game.default_num_players
    result = run_tournament(
        [player] + ["random"] * (P - 1), num_games=2 * P, seed=3, game=name, record_games=True
    )
    assert result.num_games == 2 * P and (result.decisions > 0).all()
    assert (result.seat_counts() >= 1).all()
    path = tmp_path / "games.jsonl"
    result.save_records(path)
    for i, record in enumerate(load_records(path)):
        final = replay_states(record)[-1]
        assert final.done[0] and int(final.winner[0]) == int(result.winner[i])


# ---- records, replay, terminal play -------------------------------------------------------------


def test_records_save_load_and_replay(game: Game[Any, Any], tmp_path: Path) -> None:
    cfg = game.make_config()
    P = game.num_players_of(cfg)
    rec = record_bot_game(cfg, [RandomBot() for _ in range(P)], seed=4)
    assert rec.game == game.name and rec.result is not None
    path = tmp_path / "game.jsonl"
    rec.save(path)
    assert json.loads(path.read_text().splitlines()[0])["game"] == game.name
    loaded = load_record(path)
    states = replay_states(loaded)
    assert len(states) == len(rec.decisions) + 1 and states[-1].done[0]
    assert states[0].equal(game.init_game(cfg, 4))
    steps = list(replay(loaded))
    for r in steps:
        assert game.step(r.before, np.array([r.decision.action])).equal(r.after)
    if game.provides("describe_step"):
        for r in steps:
            words = game.describe_step(r.before, r.decision.action, r.after, 0)
            assert words and all(isinstance(w, str) and w for w in words)
    # A record that leaves the rules fails at the step where it does.
    n = len(loaded.decisions) // 2
    d = loaded.decisions[n]
    illegal = int(np.flatnonzero(~states[n].legal[0])[0])
    loaded.decisions[n] = dataclasses.replace(d, action=illegal, name=None)
    with pytest.raises(ReplayError, match=f"step {n}"):
        replay_states(loaded)


def test_a_record_from_a_position_replays(game: Game[Any, Any], tmp_path: Path) -> None:
    require(game, "to_scenario", "from_scenario")
    pos = positions(game, 4, seed=8)
    rec = Recorder.from_state(pos, 1)
    rng = np.random.default_rng(3)
    while not rec.done:
        rec.step(int(random_actions(rec.state, rng)[0]))
    rec.record.save(tmp_path / "from_position.jsonl")
    states = replay_states(load_record(tmp_path / "from_position.jsonl"))
    assert states[-1].equal(rec.state)


def test_terminal_play_to_the_end(game: Game[Any, Any]) -> None:
    require(game, "legal_moves", "parse_move", "turn_prompt", "final_lines", "move_help")
    require(game, "render_text", "describe_step")
    from kanaloa_env.cli.play import play_game

    cfg = game.make_config()
    P = game.num_players_of(cfg)
    typed = iter(["h", "not a move at all", "0"])
    out = io.StringIO()
    final = play_game(
        cfg, 0, [RandomBot() for _ in range(P - 1)], 0, input_fn=lambda _: next(typed, "1"), out=out
    )
    assert final.done[0]
    text = out.getvalue()
    assert game.move_help() in text
    names = ["player_0 (you)"] + [f"player_{p}" for p in range(1, P)]
    for line in game.final_lines(final, names):
        assert line in text


def test_moves_and_words_at_every_kind_of_position(game: Game[Any, Any]) -> None:
    require(game, "legal_moves", "parse_move", "turn_prompt", "describe_action")
    pos = positions(game, 12, seed=9)
    for i in np.flatnonzero(~pos.done):
        one = pos.take([int(i)])
        moves = game.legal_moves(one)
        assert [m.action for m in moves] == np.flatnonzero(one.legal[0]).tolist()
        assert [m.number for m in moves] == list(range(1, len(moves) + 1))
        for m in moves:
            assert game.parse_move(str(m.number), one) == m.action
            assert m.label and game.describe_action(one, m.action)
        with pytest.raises(ValueError):
            game.parse_move("zz-no-such-move", one)
        assert game.turn_prompt(one)


def test_action_regions_are_legal_moves_on_the_picture(game: Game[Any, Any]) -> None:
    require(game, "action_regions", "render_rgb")
    pos = positions(game, 12, seed=4)
    H, W = game.render_rgb(pos.take([0]), 0).shape[:2]
    P = pos.num_players
    seen = 0
    for i in np.flatnonzero(~pos.done):
        one = pos.take([int(i)])
        to_act = int(one.current_player[0])
        regions = game.action_regions(one, 0)
        assert regions == game.action_regions(one, 0, to_act)
        for r in regions:
            assert one.legal[0, r.action], r
            assert r.shape in ("rect", "polygon", "line")
            assert len(r.points) >= 2 and (r.width > 0) == (r.shape == "line")
            xs, ys = zip(*r.points, strict=True)
            assert 0 <= min(xs) <= max(xs) <= W and 0 <= min(ys) <= max(ys) <= H, r
        seen += len(regions)
        # Another seat's picture shows another hand: nothing of it is the mover's to click.
        assert game.action_regions(one, 0, (to_act + 1) % P) == [] or P == 1
    assert seen > 0 and pos.done.any()
    for i in np.flatnonzero(pos.done):
        assert game.action_regions(pos.take([int(i)]), 0) == []
