"""SuperSuit's wrappers on Kanaloa, each row of docs/integrations.md's SuperSuit table.

Every claim runs on Kanaloa and on PettingZoo's `texas_holdem_v4` and `leduc_holdem_v4`,
which have the same dict observation with an int8 action mask, as controls: a wrapper
that fails on all three fails for what it assumes, not for something Kanaloa does.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
import supersuit as ss
from integrations_snippets import DOC
from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
from pettingzoo.test import api_test
from pettingzoo.utils.env_logger import EnvLogger

import kanaloa_env

ENVS: dict[str, Callable[[], Any]] = {
    "kanaloa": lambda: kanaloa_env.env(num_players=4),
    "texas": texas_holdem_v4.env,
    "leduc": leduc_holdem_v4.env,
}


def _space_float16(space: Any) -> Any:
    import gymnasium

    box = space["observation"]
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(box.low, box.high, dtype=np.float16),
            "action_mask": space["action_mask"],
        }
    )


def _obs_float16(obs: dict, space: Any) -> dict:
    return {"observation": obs["observation"].astype(np.float16), "action_mask": obs["action_mask"]}


WORK = {
    "reward_lambda_v0": lambda e: ss.reward_lambda_v0(e, lambda r: 2 * r),
    "clip_reward_v0": lambda e: ss.clip_reward_v0(e, -0.5, 0.5),
    "action_lambda_v1": lambda e: ss.action_lambda_v1(e, lambda a, space: a, lambda space: space),
    "pad_action_space_v0": ss.pad_action_space_v0,
    "observation_lambda_v0": lambda e: ss.observation_lambda_v0(e, _obs_float16, _space_float16),
    "nan_noop_v0": lambda e: ss.nan_noop_v0(e, 0),
    "nan_random_v0": ss.nan_random_v0,
    "nan_zeros_v0": ss.nan_zeros_v0,
}
FAIL_WHEN_BUILT = {
    "color_reduction_v0": ss.color_reduction_v0,
    "resize_v1": lambda e: ss.resize_v1(e, 4, 4),
    "dtype_v0": lambda e: ss.dtype_v0(e, np.float16),
    "flatten_v0": ss.flatten_v0,
    "reshape_v0": lambda e: ss.reshape_v0(e, (1, -1)),
    "normalize_obs_v0": ss.normalize_obs_v0,
    "frame_stack_v1": ss.frame_stack_v1,
    "frame_stack_v2": ss.frame_stack_v2,
    "agent_indicator_v0": ss.agent_indicator_v0,
    "pad_observations_v0": ss.pad_observations_v0,
    "observation_lambda_v0 without a space function": lambda e: ss.observation_lambda_v0(
        e, lambda obs, space: obs
    ),
    "black_death_v3": ss.black_death_v3,
    "pettingzoo_env_to_vec_env_v1": ss.pettingzoo_env_to_vec_env_v1,
    "scale_actions_v0": lambda e: ss.scale_actions_v0(e, 0.5),
}
# Share of 100 masked random games ended by an illegal move, per env (docs: "every game";
# poker "about 1 in 5", "under 1 in 10", "about 1 in 2"), as (low, high) inclusive.
ILLEGAL_MOVES = {
    "frame_skip_v0": (
        lambda e: ss.frame_skip_v0(e, 2),
        {"kanaloa": (100, 100), "texas": (10, 30), "leduc": (10, 30)},
    ),
    "sticky_actions_v0": (
        lambda e: ss.sticky_actions_v0(e, 0.25),
        {"kanaloa": (100, 100), "texas": (1, 9), "leduc": (1, 9)},
    ),
    "delay_observations_v0": (
        lambda e: ss.delay_observations_v0(e, 1),
        {"kanaloa": (100, 100), "texas": (35, 65), "leduc": (35, 65)},
    ),
}


@contextmanager
def counting_illegal_moves() -> Iterator[list[int]]:
    """Count PettingZoo's TerminateIllegalWrapper warnings (one per game it ends)."""
    count = [0]
    original = EnvLogger.warn_on_illegal_move

    def count_it() -> None:
        count[0] += 1

    EnvLogger.warn_on_illegal_move = staticmethod(count_it)  # type: ignore[method-assign]
    try:
        yield count
    finally:
        EnvLogger.warn_on_illegal_move = original  # type: ignore[method-assign]


def play_masked(env: Any, games: int) -> int:
    """Play `games` seeded games, each agent a uniformly random legal action from its mask.

    Returns how many games an illegal move ended. A live agent handed a mask without a
    legal action plays action 0 (illegal there), which ends that game.
    """
    rng = np.random.default_rng(0)
    ended = 0
    with counting_illegal_moves() as illegal, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in range(games):
            before = illegal[0]
            env.reset(seed=g)
            for _agent in env.agent_iter(10_000):
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(rng.choice(legal)) if len(legal) else 0)
            ended += illegal[0] > before
    return ended


@pytest.mark.parametrize("env_name", ENVS)
@pytest.mark.parametrize("wrapper", WORK)
def test_wrappers_that_work(wrapper: str, env_name: str) -> None:
    env = WORK[wrapper](ENVS[env_name]())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=200)
    assert play_masked(env, games=10) == 0


@pytest.mark.parametrize("env_name", ENVS)
@pytest.mark.parametrize("wrapper", FAIL_WHEN_BUILT)
def test_wrappers_that_reject_the_env_when_built(wrapper: str, env_name: str) -> None:
    with pytest.raises((AttributeError, AssertionError, TypeError)):
        FAIL_WHEN_BUILT[wrapper](ENVS[env_name]())


@pytest.mark.parametrize("env_name", ENVS)
def test_clip_actions_fails_at_the_first_step(env_name: str) -> None:
    env = ss.clip_actions_v0(ENVS[env_name]())
    env.reset(seed=0)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    with pytest.raises(AttributeError, match="'Discrete' object has no attribute 'low'"):
        env.step(int(legal[0]))


@pytest.mark.parametrize("env_name", ENVS)
def test_max_observation_turns_the_dict_into_an_object_array(env_name: str) -> None:
    env = ss.max_observation_v0(ENVS[env_name](), 2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert isinstance(obs, np.ndarray) and obs.dtype == object and obs.shape == ()


@pytest.mark.parametrize("env_name", ENVS)
def test_masked_random_play_alone_makes_no_illegal_move(env_name: str) -> None:
    assert play_masked(ENVS[env_name](), games=30) == 0


@pytest.mark.parametrize("env_name", ENVS)
@pytest.mark.parametrize("wrapper", ILLEGAL_MOVES)
def test_wrappers_that_replay_or_delay_decisions_cause_illegal_moves(
    wrapper: str, env_name: str
) -> None:
    make, expected = ILLEGAL_MOVES[wrapper]
    low, high = expected[env_name]
    assert low <= play_masked(make(ENVS[env_name]()), games=100) <= high


@pytest.mark.parametrize("env_name", ENVS)
def test_vectorize_aec_env_runs_with_dict_observations_in_an_object_array(env_name: str) -> None:
    venv = ss.vectorize_aec_env_v0(ENVS[env_name](), 3)
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    with counting_illegal_moves() as illegal:
        for _ in venv.agent_iter(600):
            obs, rewards, terms, truncs, env_terms, env_truncs, passes, infos = venv.last()
            assert obs.dtype == object and obs.shape == (3,)
            actions = []
            for k in range(3):
                legal = np.flatnonzero(obs[k]["action_mask"])
                live = not (passes[k] or terms[k] or truncs[k]) and len(legal)
                actions.append(int(rng.choice(legal)) if live else 0)
            venv.step(actions)
            finished += int(np.sum(venv.envs_dones))
    assert finished > 0 and illegal[0] == 0


def test_the_docs_table_names_every_tested_wrapper() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## SuperSuit") : text.index("## CleanRL")]
    first_cells = [row.split("|")[1] for row in section.splitlines() if row.startswith("| `")]
    named = set(re.findall(r"`(\w+_v\d)`", " ".join(first_cells)))
    tested = {w.split()[0] for w in [*WORK, *FAIL_WHEN_BUILT, *ILLEGAL_MOVES]}
    tested |= {"clip_actions_v0", "max_observation_v0", "vectorize_aec_env_v0"}
    assert tested <= named, f"not in the page: {sorted(tested - named)}"
    # The page may also name wrappers that follow from a tested one (concat_vec_envs_v1).
    assert named - tested <= {"concat_vec_envs_v1"}, sorted(named - tested)
