"""The RLlib multi-agent env (kanaloa_env.wrappers.rllib): spaces, masks, turn order,
rewards, illegal actions, RLlib's own checks and episode bookkeeping, the module bot.

Needs ray[rllib]: tests/integrations/test_rllib_venv.py runs this module in an environment
of its own (tests/conftest.py leaves it out where ray is not installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

import kanaloa_env
from kanaloa_env.core.kanaloa import NUM_ACTIONS, OBS_DIM, Config, init, observe
from kanaloa_env.wrappers import rllib as rllib_mod
from kanaloa_env.wrappers.rllib import ILLEGAL_ACTION_MODES, RLlibEnv, RLlibModuleBot

AGENTS4 = [f"player_{i}" for i in range(4)]


def legal_of(obs: dict[str, np.ndarray]) -> np.ndarray:
    return np.flatnonzero(obs["action_mask"])


def play(
    env: RLlibEnv, seed: int, rng: np.random.Generator, options: dict[str, Any] | None = None
) -> Iterator[tuple[str, int, tuple[Any, ...]]]:
    """Play one game with uniformly random legal actions: yields (mover, action, returns)."""
    obs, _ = env.reset(seed=seed, options=options)
    while True:
        (agent,) = obs
        action = int(rng.choice(legal_of(obs[agent])))
        out = env.step({agent: action})
        yield agent, action, out
        if out[2]["__all__"] or out[3]["__all__"]:
            return
        obs = out[0]


# ---- spaces and observations -------------------------------------------------------------


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_spaces_are_rllibs_masking_layout(num_players: int) -> None:
    env = RLlibEnv({"num_players": num_players})
    agents = [f"player_{i}" for i in range(num_players)]
    assert env.possible_agents == agents and env.agents == agents
    for a in agents:
        space = env.get_observation_space(a)
        assert isinstance(space, gym.spaces.Dict)
        assert set(space.spaces) == {"observations", "action_mask"}
        mask = space["action_mask"]
        assert mask.shape == (NUM_ACTIONS,) and mask.dtype == np.float32
        assert mask.low.min() == 0.0 and mask.high.max() == 1.0
        assert space["observations"].shape == (OBS_DIM,)
        assert space["observations"].dtype == np.float32
        assert env.get_action_space(a) == gym.spaces.Discrete(NUM_ACTIONS)


def test_observation_is_the_aec_envs_and_the_mask_the_engines() -> None:
    env = RLlibEnv({"num_players": 4})
    aec = kanaloa_env.raw_env(num_players=4)
    obs, infos = env.reset(seed=5)
    aec.reset(seed=5)
    (agent,) = obs
    assert agent == aec.agent_selection and infos == {agent: {}}
    state = init(Config(num_players=4), 1, seed=5)  # game 0 of stream 5
    assert agent == f"player_{int(state.current_player[0])}"
    np.testing.assert_array_equal(obs[agent]["observations"], observe(state)[0])
    np.testing.assert_array_equal(obs[agent]["action_mask"], state.legal[0].astype(np.float32))
    assert obs[agent]["action_mask"].dtype == np.float32
    assert env.get_observation_space(agent).contains(obs[agent])


def test_every_observation_of_a_game_lies_in_its_space() -> None:
    env = RLlibEnv({"num_players": 4})
    rng = np.random.default_rng(0)
    for _, _, (obs, *_rest) in play(env, 11, rng):
        for a, o in obs.items():
            assert env.get_observation_space(a).contains(o), a


# ---- turn order --------------------------------------------------------------------------


def test_only_the_agent_to_act_observes_and_may_act_twice_in_a_row() -> None:
    env = RLlibEnv({"num_players": 4})
    rng = np.random.default_rng(1)
    repeats = 0
    for seed in range(3):
        prev = None
        for agent, _, (obs, _, term, trunc, _) in play(env, seed, rng):
            if agent == prev:
                repeats += 1
            prev = agent
            if term["__all__"] or trunc["__all__"]:
                assert set(obs) == set(AGENTS4)
            else:
                (nxt,) = obs  # one observation: the agent to act
                assert nxt == env.aec.agent_selection
                state = env.aec.game_state
                assert nxt == f"player_{int(state.current_player[0])}"
                np.testing.assert_array_equal(
                    obs[nxt]["action_mask"], state.legal[0].astype(np.float32)
                )
    # Octopus removals and dolphin decisions make the same seat act twice in a row.
    assert repeats > 0


def test_step_rejects_a_dict_for_another_agent_or_none() -> None:
    env = RLlibEnv({"num_players": 4})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in AGENTS4 if a != agent)
    legal = int(legal_of(obs[agent])[0])
    with pytest.raises(ValueError, match=f"expects an action for '{agent}'"):
        env.step({other: legal})
    with pytest.raises(ValueError, match="only"):
        env.step({agent: legal, other: legal})
    with pytest.raises(ValueError, match=f"expects an action for '{agent}'"):
        env.step({})
    with pytest.raises(TypeError, match="integer"):
        env.step({agent: 1.5})
    with pytest.raises(TypeError, match="integer"):
        env.step({agent: True})
    # Nothing was applied: the same agent still acts, and a legal action works.
    assert env.aec.agent_selection == agent
    env.step({agent: np.int64(legal)})


def test_step_before_reset_and_after_the_end_raises() -> None:
    env = RLlibEnv({"num_players": 4})
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"player_0": 0})
    for _ in play(env, 2, np.random.default_rng(2)):
        pass
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"player_0": 0})


# ---- rewards and the end of a game -----------------------------------------------------


def test_rewards_every_mover_each_step_and_everyone_at_the_end() -> None:
    env = RLlibEnv({"num_players": 4})
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(AGENTS4, 0.0)
    steps = list(play(env, 4, rng))
    for agent, _, (_, rewards, term, trunc, _) in steps[:-1]:
        assert agent in rewards and rewards == {agent: 0.0}  # R10: only the end pays
        assert term == {"__all__": False} and trunc == {"__all__": False}
    agent, _, (obs, rewards, term, trunc, infos) = steps[-1]
    assert set(rewards) == set(AGENTS4) and set(obs) == set(AGENTS4) and set(infos) >= {agent}
    assert term == {"__all__": True} and trunc == {"__all__": False}
    winner = int(env.aec.game_state.winner[0])
    for a in AGENTS4:
        totals[a] += rewards[a]
        expected = 1.0 if a == f"player_{winner}" else -1.0 / 3
        assert rewards[a] == pytest.approx(expected)
        # No one acts on a final observation: its mask is all ones, never all zeros.
        np.testing.assert_array_equal(obs[a]["action_mask"], np.ones(NUM_ACTIONS, np.float32))
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-6)  # float32 thirds


def test_truncation_gives_every_agent_a_last_observation() -> None:
    env = RLlibEnv({"num_players": 4, "max_rounds": 1})
    *_, (_, _, (obs, rewards, term, trunc, _)) = play(env, 0, np.random.default_rng(4))
    if env.aec.game_state.terminated[0]:
        pytest.fail("seed 0 should not end in the first round; pick a seed that does not")
    assert trunc == {"__all__": True} and term == {"__all__": False}
    assert set(obs) == set(AGENTS4)
    assert rewards == dict.fromkeys(AGENTS4, 0.0)  # R9.4: a truncated game pays nothing


def test_an_rllib_episode_accepts_every_step_of_whole_games() -> None:
    """RLlib's own bookkeeping: it raises when an agent acted without a reward, or got
    truncated without a last observation; the returns per agent are the R10 rewards."""
    for config, seed in (({"num_players": 4}, 6), ({"num_players": 3, "max_rounds": 1}, 7)):
        env = RLlibEnv(config)
        episode = MultiAgentEpisode(
            observation_space=env.observation_spaces, action_space=env.action_spaces
        )
        obs, infos = env.reset(seed=seed)
        episode.add_env_reset(observations=obs, infos=infos)
        rng = np.random.default_rng(seed)
        final: dict[str, float] = {}
        while not episode.is_done:
            (agent,) = obs
            action = int(rng.choice(legal_of(obs[agent])))
            obs, rewards, term, trunc, infos = env.step({agent: action})
            episode.add_env_step(
                obs, {agent: action}, rewards, infos, terminateds=term, truncateds=trunc
            )
            final = rewards
        returns = episode.get_return(include_hanging_rewards=True)
        assert returns == pytest.approx(0.0, abs=1e-6)
        for a in env.possible_agents:
            assert episode.agent_episodes[a].get_return() == pytest.approx(final[a])


# ---- illegal actions ----------------------------------------------------------------------


def illegal_action(obs: dict[str, np.ndarray]) -> int:
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def test_illegal_action_default_is_lose() -> None:
    env = RLlibEnv({"num_players": 4})
    assert env.illegal_action == "lose" == ILLEGAL_ACTION_MODES[0]
    obs, _ = env.reset(seed=8)
    (agent,) = obs
    before = env.aec.to_scenario(include_key=True)
    out, rewards, term, trunc, infos = env.step({agent: illegal_action(obs[agent])})
    assert term == {"__all__": True} and trunc == {"__all__": False}
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in AGENTS4}
    assert infos[agent] == {"illegal_action": True}
    assert set(out) == set(AGENTS4)
    assert env.aec.to_scenario(include_key=True) == before  # the game itself was left alone
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


def test_out_of_range_actions_count_as_illegal() -> None:
    env = RLlibEnv({"num_players": 4, "illegal_reward": -2})
    for bad in (NUM_ACTIONS, -1, 10**6):
        obs, _ = env.reset(seed=9)
        (agent,) = obs
        _, rewards, term, _, _ = env.step({agent: bad})
        assert term["__all__"] and rewards[agent] == -2.0


def test_illegal_action_random_plays_a_seeded_legal_action() -> None:
    def run(seed: int) -> list[tuple[str, bytes]]:
        env = RLlibEnv({"num_players": 4, "illegal_action": "random"})
        obs, _ = env.reset(seed=seed)
        seen = []
        for _ in range(40):
            (agent,) = obs
            obs, rewards, term, trunc, infos = env.step({agent: illegal_action(obs[agent])})
            assert infos[agent] == {"illegal_action": True} and rewards[agent] == 0.0
            assert not term["__all__"] and not trunc["__all__"]
            (nxt,) = obs
            seen.append((nxt, obs[nxt]["observations"].tobytes()))
        return seen

    # The replacements come from np_random, seeded by reset: same seed, same game.
    assert run(10) == run(10)
    assert run(10) != run(11)


def test_illegal_action_random_replacement_is_one_of_the_legal_actions() -> None:
    env = RLlibEnv({"num_players": 4, "illegal_action": "random"})
    obs, _ = env.reset(seed=12)
    (agent,) = obs
    scenario = env.aec.to_scenario(include_key=True)
    legal = legal_of(obs[agent]).tolist()
    env.step({agent: illegal_action(obs[agent])})
    after = env.aec.to_scenario(include_key=True)
    # Replaying each legal action from the same position finds the one that was played.
    matches = 0
    for a in legal:
        probe = kanaloa_env.raw_env(num_players=4)
        probe.reset(seed=12, options={"scenario": scenario})
        probe.step(a)
        matches += probe.to_scenario(include_key=True) == after
    assert matches >= 1


def test_illegal_action_raise_changes_nothing() -> None:
    env = RLlibEnv({"num_players": 4, "illegal_action": "raise"})
    obs, _ = env.reset(seed=13)
    (agent,) = obs
    before = env.aec.to_scenario(include_key=True)
    with pytest.raises(ValueError, match="cannot take action"):
        env.step({agent: illegal_action(obs[agent])})
    assert env.aec.to_scenario(include_key=True) == before
    env.step({agent: int(legal_of(obs[agent])[0])})  # the game goes on


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        ({"illegal_action": "skip"}, ValueError, "illegal_action must be one of"),
        ({"illegal_reward": "a lot"}, TypeError, "illegal_reward must be a number"),
        ({"illegal_reward": float("nan")}, ValueError, "finite"),
        ({"num_players": 9}, ValueError, "num_players"),
        ({"no_such_option": 1}, TypeError, "unknown arguments"),
    ],
)
def test_bad_env_config_names_the_problem(
    config: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        RLlibEnv(config)


def test_env_config_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match="env_config must be a dict"):
        RLlibEnv(["num_players", 4])  # type: ignore[arg-type]


def test_render_mode_reaches_the_aec_env() -> None:
    env = RLlibEnv({"num_players": 3, "render_mode": "ansi"})
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text == env.aec.render()
    env.close()


# ---- RLlib's checks and seeding -----------------------------------------------------------


@pytest.mark.parametrize("config", [{}, {"num_players": 3}, {"illegal_action": "random"}])
def test_rllibs_environment_pre_check_passes(config: dict[str, Any]) -> None:
    # It resets with seed 42 and steps an action sampled from the unmasked action space.
    env = RLlibEnv(config)
    for k in range(5):
        env.action_spaces = {a: gym.spaces.Discrete(NUM_ACTIONS, seed=k) for a in env.agents}
        check_multiagent_environments(env)


def test_the_pre_check_survives_every_action() -> None:
    env = RLlibEnv({"num_players": 4})
    for a in range(NUM_ACTIONS):
        obs, _ = env.reset(seed=42)
        (agent,) = obs
        _, rewards, term, _, _ = env.step({agent: a})
        legal = obs[agent]["action_mask"][a] == 1
        assert term["__all__"] == (not legal) and agent in rewards


def test_same_seed_same_games() -> None:
    def trajectory(seed: int) -> list[tuple[str, int]]:
        env = RLlibEnv({"num_players": 4})
        rng = np.random.default_rng(0)
        moves = [(agent, action) for agent, action, _ in play(env, seed, rng)]
        env.reset()  # the next game continues the stream
        moves += [(agent, action) for agent, action, _ in play(env, None, rng)]  # type: ignore[arg-type]
        return moves

    assert trajectory(21) == trajectory(21)
    assert trajectory(21) != trajectory(22)


def test_reset_options_reach_the_aec_env() -> None:
    env = RLlibEnv({"num_players": 4})
    env.reset(seed=3)
    sc = env.aec.to_scenario(include_key=True)
    obs, _ = env.reset(seed=99, options={"scenario": sc})
    assert env.aec.to_scenario(include_key=True) == sc
    assert set(obs) == {env.aec.agent_selection}


# ---- any game of the package: the wrapper only uses the AEC API ----------------------------


class _Countdown:
    """A two-player AEC game (a stand-in for Kahuna): a counter starts at 5; a move takes
    1 or 2 off (2 is illegal below 2); who takes the last one wins. Player 1 moves twice
    in a row after a take of 2, to cover repeated turns."""

    def __init__(self, game: str = "countdown") -> None:
        self.game = game
        self.possible_agents = ["a", "b"]
        self.render_mode = None
        self._obs = gym.spaces.Box(0, 5, (1,), np.float32)
        self._act = gym.spaces.Discrete(2)

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return gym.spaces.Dict(
            {"observation": self._obs, "action_mask": gym.spaces.Box(0, 1, (2,), np.int8)}
        )

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self._act

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.n, self.agent_selection = 5, "a"
        self.rewards = {"a": 0.0, "b": 0.0}
        self.terminations = {"a": False, "b": False}
        self.truncations = {"a": False, "b": False}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.array([self.n >= 1, self.n >= 2], dtype=np.int8)
        if agent != self.agent_selection or self.n == 0:
            mask[:] = 0
        return {"observation": np.array([self.n], np.float32), "action_mask": mask}

    def step(self, action: int) -> None:
        mover = self.agent_selection
        self.n -= action + 1
        other = "b" if mover == "a" else "a"
        if self.n == 0:
            self.rewards = {mover: 1.0, other: -1.0}
            self.terminations = {"a": True, "b": True}
        else:
            self.rewards = {"a": 0.0, "b": 0.0}
            self.agent_selection = "b" if (mover == "b" and action == 1) else other

    def close(self) -> None:
        pass


def test_any_aec_game_works_and_options_reach_raw_env(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_raw_env(**options: Any) -> _Countdown:
        seen.update(options)
        return _Countdown(**options)

    monkeypatch.setattr(rllib_mod, "raw_env", fake_raw_env)
    env = RLlibEnv({"game": "countdown", "illegal_action": "raise"})
    assert seen == {"game": "countdown"}  # the wrapper's own keys stay with the wrapper
    assert env.possible_agents == ["a", "b"]
    assert env.get_observation_space("a")["action_mask"] == gym.spaces.Box(0, 1, (2,), np.float32)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"a"}
    obs, rewards, *_ = env.step({"a": 0})  # 4 left: b to act
    assert set(obs) == {"b"} and rewards == {"a": 0.0}
    obs, rewards, *_ = env.step({"b": 1})  # 2 left: b again
    assert set(obs) == {"b"} and rewards == {"b": 0.0}
    obs, rewards, term, trunc, _ = env.step({"b": 1})  # b takes the last two and wins
    assert rewards == {"a": -1.0, "b": 1.0} and term["__all__"] and not trunc["__all__"]
    assert set(obs) == {"a", "b"}
    check_multiagent_environments(env)  # both actions are legal at the start, even for "raise"


# ---- the module bot -----------------------------------------------------------------------


def masking_module(env: RLlibEnv, hidden: tuple[int, ...] = (32,)) -> Any:
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return ActionMaskingTorchRLModule(
        observation_space=env.get_observation_space("player_0"),
        action_space=env.get_action_space("player_0"),
        model_config=DefaultModelConfig(fcnet_hiddens=list(hidden)),
        inference_only=False,
    )


def test_rllibs_masking_module_samples_only_legal_actions_on_env_observations() -> None:
    import torch
    from ray.rllib.core.columns import Columns

    torch.manual_seed(0)
    env = RLlibEnv({"num_players": 4})
    module = masking_module(env)
    state = init(Config(num_players=4), 64, seed=0)
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(observe(state)),
            "action_mask": torch.from_numpy(state.legal.astype(np.float32)),
        }
    }
    with torch.no_grad():
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    dist = torch.distributions.Categorical(logits=logits)
    samples = dist.sample((200,)).numpy()  # (200, 64)
    assert state.legal[np.arange(64)[None, :], samples].all()


def test_module_bot_is_a_greedy_masked_argmax_and_plays_the_arena() -> None:
    import torch

    from kanaloa_env.arena import run_tournament

    torch.manual_seed(0)
    env = RLlibEnv({"num_players": 4})
    bot = RLlibModuleBot(masking_module(env), name="net")
    state = init(Config(num_players=4), 32, seed=1)
    obs, masks = observe(state), state.legal
    actions = bot.act(obs, masks, np.random.default_rng(0))
    assert actions.dtype == np.int64 and actions.shape == (32,)
    logits = bot.logits(obs, masks)
    assert np.isneginf(logits[~masks]).all() and np.isfinite(logits[masks]).all()
    np.testing.assert_array_equal(actions, logits.argmax(axis=1))
    sampled = RLlibModuleBot(bot.module, deterministic=False)
    a1 = sampled.act(obs, masks, np.random.default_rng(5))
    assert (a1 == sampled.act(obs, masks, np.random.default_rng(5))).all()
    assert masks[np.arange(32), a1].all()
    # The arena checks every action for legality.
    result = run_tournament([bot, "random", "random", "random"], 4, 8, seed=0)
    assert sum(s.games for s in result.stats if s.name == "net") == 8


def test_module_bot_rejects_bad_input(tmp_path: Path) -> None:
    env = RLlibEnv({"num_players": 4})
    bot = RLlibModuleBot(masking_module(env))
    state = init(Config(num_players=4), 4, seed=1)
    obs, masks = observe(state), state.legal
    with pytest.raises(ValueError, match="same"):
        bot.act(obs[:3], masks, np.random.default_rng(0))
    empty = masks.copy()
    empty[2] = False
    with pytest.raises(ValueError, match="at least one legal action"):
        bot.act(obs, empty, np.random.default_rng(0))
    with pytest.raises(TypeError, match="RLModule"):
        RLlibModuleBot(object())
    with pytest.raises(ValueError, match="does not exist"):
        RLlibModuleBot.from_checkpoint(tmp_path / "missing")
    with pytest.raises(ValueError, match="no RLlib module 'shared'"):
        RLlibModuleBot.from_checkpoint(tmp_path)


def test_module_bot_loads_a_saved_module(tmp_path: Path) -> None:
    env = RLlibEnv({"num_players": 4})
    module = masking_module(env)
    module.save_to_path(str(tmp_path / "mod"))
    bot = RLlibModuleBot.from_checkpoint(tmp_path / "mod")
    state = init(Config(num_players=4), 8, seed=2)
    ref = RLlibModuleBot(module)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(
        bot.act(observe(state), state.legal, rng), ref.act(observe(state), state.legal, rng)
    )
