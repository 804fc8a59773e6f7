"""The SB3 VecEnv contract: shapes, infos on auto-reset, masks for sb3-contrib, seeding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from kanaloa_env.bots import sample_legal  # noqa: E402
from kanaloa_env.core.kanaloa import OBS_DIM, Config, legal_action_mask  # noqa: E402
from kanaloa_env.wrappers.sb3 import SB3VecEnv  # noqa: E402


def random_actions(env: SB3VecEnv, rng: np.random.Generator) -> np.ndarray:
    return sample_legal(get_action_masks(env), rng)


def test_reset_step_shapes_and_dtypes() -> None:
    env = SB3VecEnv(12, num_players=5, seed=0)
    assert isinstance(env, VecEnv) and env.num_envs == 12
    assert env.observation_space.shape == (OBS_DIM,) and env.action_space.n == 66
    obs = env.reset()
    assert obs.shape == (12, OBS_DIM) and obs.dtype == np.float32
    assert len(env.reset_infos) == 12
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs, rew, done, infos = env.step(random_actions(env, rng))
        assert obs.shape == (12, OBS_DIM) and obs.dtype == np.float32
        assert rew.shape == (12,) and rew.dtype == np.float32
        assert done.shape == (12,) and done.dtype == bool
        assert isinstance(infos, list) and len(infos) == 12
        assert env.observation_space.contains(obs[0])


def test_masks_reach_sb3_contrib() -> None:
    env = SB3VecEnv(6, seed=1)
    env.reset()
    assert env.has_attr("action_masks") and is_masking_supported(env)
    rows = env.env_method("action_masks")
    assert len(rows) == 6 and all(r.shape == (66,) and r.dtype == bool for r in rows)
    masks = get_action_masks(env)
    np.testing.assert_array_equal(masks, legal_action_mask(env.driver.state))
    sub = env.env_method("action_masks", indices=[4, 1])
    np.testing.assert_array_equal(np.stack(sub), masks[[4, 1]])
    assert env.get_attr("learner_seat", indices=2) == [2]
    assert env.env_is_wrapped(VecMonitor) == [False] * 6
    with pytest.raises(AttributeError):
        env.env_method("render_all")
    with pytest.raises(AttributeError):
        env.get_attr("no_such_thing")
    env.set_attr("note", "shared")
    assert env.get_attr("note") == ["shared"] * 6
    with pytest.raises(ValueError, match="all games"):
        env.set_attr("note", "one", indices=[0])
    # The driver's game options read through; setting one here would change nothing.
    assert env.get_attr("illegal_action") == ["raise"] * 6
    with pytest.raises(AttributeError, match="game option"):
        env.set_attr("illegal_action", "lose")
    assert env.driver.illegal_action == "raise"
    with pytest.raises(IndexError):
        env.env_method("action_masks", indices=[6])
    masks[:] = False  # a copy: the env is unaffected
    assert get_action_masks(env).any(axis=1).all()


def test_auto_reset_infos_terminal_observation_and_success() -> None:
    env = SB3VecEnv(16, seed=2, learner_seat="random")
    env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(120):
        obs, rew, done, infos = env.step(random_actions(env, rng))
        # reset_infos follow the auto-resets (as DummyVecEnv's do).
        assert [ri["learner_seat"] for ri in env.reset_infos] == env.get_attr("learner_seat")
        for i in np.flatnonzero(done):
            info = infos[i]
            term = info["terminal_observation"]
            assert term.shape == (OBS_DIM,) and term.dtype == np.float32
            assert not np.array_equal(term, obs[i])  # obs is the new game's
            assert info["TimeLimit.truncated"] is False
            assert info["is_success"] == (info["winner"] == info["learner_seat"])
            assert info["episode"]["r"] == pytest.approx(rew[i])
            assert info["episode"]["l"] > 0
            finished += 1
        for i in np.flatnonzero(~done):
            assert "terminal_observation" not in infos[i]
    assert finished > 10


def test_truncation_sets_timelimit_truncated() -> None:
    env = SB3VecEnv(8, config=Config(max_rounds=1), seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    truncated = 0
    for _ in range(30):
        _, _, done, infos = env.step(random_actions(env, rng))
        truncated += sum(infos[i]["TimeLimit.truncated"] for i in np.flatnonzero(done))
    assert truncated > 0


def test_seed_makes_reset_and_steps_reproducible() -> None:
    def run() -> list[np.ndarray]:
        env = SB3VecEnv(4, seed=0)
        env.seed(123)
        out = [env.reset()]
        rng = np.random.default_rng(5)
        for _ in range(20):
            obs, rew, done, _ = env.step(random_actions(env, rng))
            out += [obs, rew, done]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    other = SB3VecEnv(4, seed=0)
    other.seed(124)
    assert not np.array_equal(other.reset(), a[0])


def test_illegal_actions_raise_by_default() -> None:
    env = SB3VecEnv(3, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="illegal"):
        env.step((~get_action_masks(env)).argmax(axis=1))


@pytest.mark.parametrize("mode", ["random", "lose"])
def test_illegal_actions_are_marked_in_infos(mode: str) -> None:
    env = SB3VecEnv(3, seed=0, illegal_action=mode)
    env.reset()
    masks = get_action_masks(env)
    actions = masks.argmax(axis=1)
    actions[1] = int((~masks[1]).argmax())
    _, _, done, infos = env.step(actions)
    assert [info.get("illegal_action", False) for info in infos] == [False, True, False]
    assert done[1] == (mode == "lose")


def test_maskable_ppo_learns_evaluates_and_eval_callback_runs(tmp_path) -> None:
    env = SB3VecEnv(8, seed=0)
    eval_env = SB3VecEnv(4, seed=100)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    cb = MaskableEvalCallback(eval_env, eval_freq=8, n_eval_episodes=4, verbose=0)
    model.learn(256, callback=cb)
    assert model.num_timesteps >= 256
    assert cb.last_mean_reward > -np.inf
    with warnings.catch_warnings():
        # No "not wrapped with a Monitor": the env writes Monitor's info["episode"].
        warnings.simplefilter("error", UserWarning)
        rewards, lengths = evaluate_policy(
            model, eval_env, n_eval_episodes=8, return_episode_rewards=True
        )
    assert len(rewards) == 8 and all(
        r in (pytest.approx(1.0), pytest.approx(-1 / 3)) for r in rewards
    )
    assert all(isinstance(n, int) and n > 0 for n in lengths)
    assert eval_env.env_is_wrapped(Monitor) == [True] * 4
    with pytest.warns(UserWarning, match="already wrapped with a `Monitor`"):
        monitored = VecMonitor(SB3VecEnv(4, seed=7))  # works, but is not needed
    mean, _ = evaluate_policy(model, monitored, n_eval_episodes=4)
    assert -1.0 <= mean <= 1.0
