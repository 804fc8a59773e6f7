"""The Gymnasium single-agent env with Kanaloa (Gymnasium's checker at the table sizes the
conformance suite, `tests/games/conformance/`, does not play; illegal actions, seeding) and
make_vec."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import kanaloa_env  # (also registers kanaloa_env/Kanaloa-v0)
from kanaloa_env.core.kanaloa import OBS_DIM
from kanaloa_env.wrappers import GymVectorEnv, SingleAgentEnv

ENV_ID = "kanaloa_env/Kanaloa-v0"


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("num_players", [3, 5])  # 4, the default: the conformance suite
def test_gymnasium_check_env(num_players: int) -> None:
    env = gym.make(ENV_ID, num_players=num_players, opponents="random")
    check_env(env.unwrapped, skip_render_check=True)


def test_spaces_types_and_masks() -> None:
    env = gym.make(ENV_ID, num_players=4, opponents="random")
    assert env.observation_space.shape == (OBS_DIM,) and env.action_space.n == 66
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    mask = env.unwrapped.action_masks()
    assert mask.shape == (66,) and mask.dtype == bool
    np.testing.assert_array_equal(mask, info["action_mask"])
    np.testing.assert_array_equal(mask, env.get_wrapper_attr("action_masks")())
    steps = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(first_legal(info["action_mask"]))
        steps += 1
        assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            break
        assert reward == 0.0
    assert steps > 5
    assert reward in (pytest.approx(1.0), pytest.approx(-1 / 3))
    assert info["is_success"] == (reward > 0) and not info["illegal_action"]
    assert env.unwrapped.action_masks().all()  # over: all True (pgx), the action ignored
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_arrays_are_fresh_per_call() -> None:
    env = SingleAgentEnv()
    obs, info = env.reset(seed=1)
    obs[:] = 5.0
    info["action_mask"][:] = False
    assert env.action_masks().any()
    obs2, *_ = env.step(first_legal(env.action_masks()))
    assert not (obs2 == 5.0).all()


def test_illegal_action_default_loses_the_game() -> None:
    env = SingleAgentEnv(num_players=3)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info["illegal_action"] and info["winner"] == -1 and not info["is_success"]
    env2 = SingleAgentEnv(illegal_reward=-5.0)
    env2.reset(seed=0)
    assert env2.step(1000)[1] == -5.0  # out of range counts as illegal too


def test_illegal_action_raise_and_random() -> None:
    env = SingleAgentEnv(illegal_action="raise")
    _, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal"):
        env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    env = SingleAgentEnv(illegal_action="random")
    _, info = env.reset(seed=0)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert not terminated and info["illegal_action"]


def test_same_seed_same_game_and_next_reset_is_a_new_game() -> None:
    def trajectory(env: SingleAgentEnv, seed: int | None) -> list:
        obs, info = env.reset(seed=seed)
        out = [obs, info["learner_seat"]]
        for _ in range(200):
            obs, reward, term, trunc, info = env.step(first_legal(info["action_mask"]))
            out += [obs, reward]
            if term or trunc:
                break
        return out

    a = trajectory(SingleAgentEnv(opponents="random"), 42)
    b = trajectory(SingleAgentEnv(opponents="random"), 42)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    env = SingleAgentEnv()
    trajectory(env, 42)
    c = trajectory(env, None)  # game 1 of stream 42, the learner in the next seat
    assert c[1] == 1 and not np.array_equal(c[0], a[0])


def test_gym_make_kwargs_reach_the_env() -> None:
    env = gym.make(ENV_ID, num_players=5, opponents=["random"] * 4, learner_seat=3)
    _, info = env.reset(seed=0)
    assert env.unwrapped.config.num_players == 5 and info["learner_seat"] == 3
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv(render_mode="rgb")


def test_render_modes_are_the_aec_envs(capsys) -> None:
    env = SingleAgentEnv(render_mode="ansi")
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Route" in text and "\x1b[" in text
    assert env.metadata["render_modes"] == kanaloa_env.raw_env().metadata["render_modes"]

    rgb = SingleAgentEnv(render_mode="rgb_array")
    rgb.reset(seed=0)
    img = rgb.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape[2] == 3

    human = SingleAgentEnv(render_mode="human")
    human.reset(seed=0)
    assert "Route" in capsys.readouterr().out  # drawn at reset ...
    human.step(int(human.action_masks().nonzero()[0][0]))
    assert "Route" in capsys.readouterr().out  # ... and at every step
    assert human.render() is None

    with pytest.warns(UserWarning, match="render mode"):  # as Gymnasium's own envs
        assert SingleAgentEnv().render() is None


def test_sb3_make_vec_env_with_its_default_render_mode() -> None:
    # make_vec_env asks for render_mode="rgb_array" and only retries without it on a TypeError.
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(ENV_ID, n_envs=2, seed=0)
    obs = venv.reset()
    assert obs.shape == (2, OBS_DIM)
    assert venv.render_mode == "rgb_array"


def test_make_vec_vector_entry_point() -> None:
    envs = gym.make_vec(
        ENV_ID, num_envs=8, vectorization_mode="vector_entry_point", num_players=4, seed=0
    )
    assert isinstance(envs.unwrapped, GymVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=3)
    assert obs.shape == (8, OBS_DIM) and info["action_mask"].shape == (8, 66)
    assert envs.single_action_space.n == 66 and envs.action_space.shape == (8,)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        mask = envs.unwrapped.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rew, term, trunc, info = envs.step(actions)
        assert rew.shape == term.shape == trunc.shape == (8,)
        done = term | trunc
        if done.any():
            np.testing.assert_array_equal(info["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert info["final_obs"][i].shape == (OBS_DIM,)
                assert not np.array_equal(info["final_obs"][i], obs[i])
                fi = info["final_info"]
                assert fi["_is_success"][i]
                assert fi["is_success"][i] == (fi["winner"][i] == fi["learner_seat"][i])
            ended += int(done.sum())
    assert ended > 0
    envs.close()


def test_vector_infos_mark_illegal_actions_and_carry_key_masks() -> None:
    for mode, ends in (("random", False), ("lose", True)):
        envs = GymVectorEnv(4, seed=0, illegal_action=mode)
        _, info = envs.reset()
        assert info["_action_mask"].all() and info["_learner_seat"].all()
        actions = info["action_mask"].argmax(axis=1)
        actions[2] = int((~info["action_mask"][2]).argmax())  # illegal in game 2 only
        _, _, term, _, info = envs.step(actions)
        np.testing.assert_array_equal(info["illegal_action"], [False, False, True, False])
        assert info["_illegal_action"].all() and info["_action_mask"].all()
        assert term[2] == ends
        if ends:
            assert info["final_info"]["illegal_action"][2]


def test_vector_envs_are_random_unless_seeded() -> None:
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    def gym_vec(**kw: int) -> np.ndarray:
        envs = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", **kw)
        return envs.reset()[0]

    def sb3_vec(**kw: int) -> np.ndarray:
        return SB3VecEnv(4, **kw).reset()

    for make in (gym_vec, sb3_vec):
        assert not np.array_equal(make(), make())  # as Gymnasium's and SB3's own envs
        np.testing.assert_array_equal(make(seed=11), make(seed=11))


def test_unsupported_reset_options_warn() -> None:
    for env in (SingleAgentEnv(), GymVectorEnv(2, seed=0)):
        with pytest.warns(UserWarning, match="ignoring reset options"):
            env.reset(seed=0, options={"reset_mask": np.ones(2, bool)})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.reset(seed=0, options={})


def test_vector_reset_seeds_np_random_as_gymnasium_does() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point")
    envs.reset(seed=5)
    first = envs.np_random.integers(1 << 30)
    assert envs.np_random_seed == 5
    envs.reset(seed=5)
    assert envs.np_random.integers(1 << 30) == first
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=-1)


def test_make_vec_sync_mode_wraps_the_single_env() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (2, OBS_DIM) and info["action_mask"].shape == (2, 66)
    envs.close()
