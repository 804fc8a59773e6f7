"""Kahuna through every interface a Kanaloa user has: the PettingZoo registry (api, seed and
render tests), Gymnasium's and SB3's env checkers, the vector envs, the hidden-information
test through the env, the arena, records and the game protocol's contract."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import kanaloa_env
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import RandomBot, sample_legal
from kanaloa_env.core import kahuna
from kanaloa_env.games import get_game
from kanaloa_env.records import load_record, record_bot_game, replay_states
from kanaloa_env.wrappers import KanaloaGymVectorEnv, VectorDriver

GAME = get_game("kahuna")


# ---- PettingZoo ---------------------------------------------------------------------------


def test_registry_makes_the_kahuna_env() -> None:
    e = pettingzoo.make("aec", "kanaloa_env/kahuna-v0", discard_rule="no_legal_play")
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1"]
    assert e.unwrapped.game.name == "kahuna" and e.metadata["name"] == "kahuna_v0"
    assert e.unwrapped.config.discard_rule == "no_legal_play"
    assert e.action_space("player_0").n == kahuna.NUM_ACTIONS == 153
    assert e.observation_space("player_1")["observation"].shape == (kahuna.OBS_DIM,)


@pytest.mark.parametrize("make", ["registry", "env", "raw_env"])
def test_pettingzoo_api_test(make: str) -> None:
    if make == "registry":
        e = pettingzoo.make("aec", "kanaloa_env/kahuna-v0")
    elif make == "env":
        e = kanaloa_env.env(game="kahuna")
    else:
        e = kanaloa_env.raw_env(game="kahuna")
    api_test(e, num_cycles=1000)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: pettingzoo.make("aec", "kanaloa_env/kahuna-v0"), 300)


def test_bad_arguments_name_the_game_and_fields() -> None:
    with pytest.raises(ValueError, match="Kahuna is played by|played by 2 players"):
        kanaloa_env.env(game="kahuna", num_players=3)
    with pytest.raises(TypeError, match="nil_announcement.*Kahuna Config fields"):
        kanaloa_env.env(game="kahuna", nil_announcement=True)
    with pytest.raises(ValueError, match="unknown game 'kahunaa'"):
        kanaloa_env.env(game="kahunaa")
    with pytest.raises(ValueError, match="stones_per_player"):
        kanaloa_env.env(game="kahuna", stones_per_player=9)


def test_env_replays_game_0_of_the_engine_stream() -> None:
    e = kanaloa_env.raw_env(game="kahuna")
    e.reset(seed=11)
    assert e.game_state == kahuna.init(kahuna.Config(), 5, seed=11).take([0])


def test_hidden_information_never_reaches_an_observation_through_the_env() -> None:
    """Swapping the opponent's hidden cards and the pile order leaves an agent's
    observation (and mask) unchanged (K12)."""
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(20):
        e = kanaloa_env.raw_env(game="kahuna")
        e.reset(seed=seed)
        for _ in range(int(rng.integers(0, 60))):
            if not e.agents:
                break
            a = e.agent_selection
            e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))
        if not e.agents:
            continue
        sc = e.to_scenario()
        for me in (0, 1):
            them = 1 - me
            known = list(sc["known"][them]) if "known" in sc else []
            hidden = list(sc["hands"][them])
            for x in known:
                hidden.remove(x)
            pool = hidden + list(sc["pile"])
            if len(set(pool)) < 2:
                continue
            other = dict(sc)
            perm = list(rng.permutation(pool))
            hand = sorted(known + perm[: len(hidden)], key=kahuna_island_index)
            other["hands"] = [list(h) for h in sc["hands"]]
            other["hands"][them] = hand
            other["pile"] = perm[len(hidden) :]
            f = kanaloa_env.raw_env(game="kahuna")
            f.reset(options={"scenario": other})
            agent = f"player_{me}"
            a, b = e.observe(agent), f.observe(agent)
            np.testing.assert_array_equal(a["observation"], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            checked += 1
    assert checked >= 10


def kahuna_island_index(name: str) -> int:
    from kanaloa_env.core.kahuna.constants import ISLAND_NAMES

    return ISLAND_NAMES.index(name)


# ---- Gymnasium and SB3 ------------------------------------------------------------------


def test_gymnasium_check_env() -> None:
    env = gym.make("kanaloa_env/Kahuna-v0", opponents="random")
    assert env.unwrapped.game.name == "kahuna"
    check_env(env.unwrapped, skip_render_check=True)


def test_sb3_check_env() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gym.make("kanaloa_env/Kahuna-v0").unwrapped)


def test_single_agent_game_to_the_end() -> None:
    env = gym.make("kanaloa_env/Kahuna-v0", opponents="random")
    obs, info = env.reset(seed=3)
    assert obs.shape == (kahuna.OBS_DIM,) and info["action_mask"].shape == (153,)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(a)
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            break
        assert reward == 0.0
    assert terminated or truncated
    assert reward in (1.0, -1.0, 0.0)
    assert info["action_mask"].all()  # the finished game's mask: all True (pgx), never all False


def test_gymnasium_make_vec_and_the_sb3_vec_env() -> None:
    envs = gym.make_vec(
        "kanaloa_env/Kahuna-v0", num_envs=8, vectorization_mode="vector_entry_point"
    )
    assert isinstance(envs.unwrapped, KanaloaGymVectorEnv)
    assert envs.unwrapped.driver.game.name == "kahuna"
    obs, info = envs.reset(seed=0)
    assert obs.shape == (8, kahuna.OBS_DIM) and info["action_mask"].shape == (8, 153)
    rng = np.random.default_rng(1)
    for _ in range(300):
        obs, r, term, trunc, info = envs.step(sample_legal(info["action_mask"], rng))
        assert info["action_mask"].any(axis=1).all()
    pytest.importorskip("stable_baselines3")
    from kanaloa_env.wrappers.sb3 import KanaloaSB3VecEnv

    venv = KanaloaSB3VecEnv(4, game="kahuna", opponents="random", seed=0)
    assert venv.observation_space.shape == (kahuna.OBS_DIM,) and venv.action_space.n == 153
    venv.reset()
    for _ in range(50):
        venv.step(sample_legal(venv.action_masks(), rng))


def test_vector_driver_observations_stay_within_the_bounds() -> None:
    d = VectorDriver(64, game="kahuna", opponents="random", seed=5)
    low, high = GAME.observation_bounds()
    obs = d.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        assert (obs >= low).all() and (obs <= high).all()
        r = d.step(sample_legal(d.action_masks(), rng))
        obs = r.obs
        ended += len(r.ended)
        assert (r.final_obs >= low).all() and (r.final_obs <= high).all()
    assert ended > 20


def test_progress_shaping_sums_to_zero_over_a_game() -> None:
    """The shaping (stone difference) is potential-based: a game's shaped return equals
    its plain return."""
    plain = VectorDriver(32, game="kahuna", opponents="random", seed=2, autoreset=False)
    shaped = VectorDriver(
        32, game="kahuna", opponents="random", seed=2, autoreset=False, progress_shaping=1.0
    )
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    plain.reset(), shaped.reset()
    ret_a, ret_b = np.zeros(32), np.zeros(32)
    saw_shaping = False
    for _ in range(1000):
        if plain.game_over.all():
            break
        ra = plain.step(sample_legal(plain.action_masks(), rng_a))
        rb = shaped.step(sample_legal(shaped.action_masks(), rng_b))
        ret_a += ra.rewards
        ret_b += rb.rewards
        saw_shaping |= bool((rb.rewards != ra.rewards).any())
    assert plain.game_over.all() and shaped.game_over.all()
    assert saw_shaping
    np.testing.assert_allclose(ret_a, ret_b, atol=1e-5)


# ---- arena and records ----------------------------------------------------------------------


def test_arena_plays_seat_balanced_two_player_games() -> None:
    result = run_tournament(["random", "random"], game="kahuna", num_games=40, seed=1)
    assert result.num_players == 2 and result.game.name == "kahuna"
    assert [s.seat_games for s in result.stats] == [[20, 20], [20, 20]]
    assert set(result.summary) == {"turns", "points", "stones", "bridges"}
    wins = sum(s.wins for s in result.stats)
    assert wins + int((result.winner < 0).sum()) == 40
    with pytest.raises(ValueError, match="2"):
        run_tournament(["random"] * 3, game="kahuna", num_players=3, num_games=3)


def test_records_of_kahuna_games_replay(tmp_path) -> None:
    rec = record_bot_game(kahuna.Config(), [RandomBot(), RandomBot()], seed=4)
    assert rec.game == "kahuna" and rec.result is not None
    path = tmp_path / "k.jsonl"
    rec.save(path)
    loaded = load_record(path)
    states = replay_states(loaded)
    assert len(states) == len(rec.decisions) + 1 and states[-1].done[0]
    head = path.read_text().splitlines()[0]
    assert '"game": "kahuna"' in head


# ---- the protocol's contract ---------------------------------------------------------------


def test_final_ranks_and_summary() -> None:
    s = kahuna.init(kahuna.Config(), 3, seed=0)
    s.winner[:] = [0, 1, -1]
    assert GAME.final_ranks(s).tolist() == [[1, 2], [2, 1], [1.5, 1.5]]
    summary = GAME.game_summary(s)
    assert summary["turns"].shape == (3,) and summary["points"].shape == (3, 2)


def test_make_config_is_the_one_config_builder() -> None:
    assert GAME.make_config() == kahuna.Config()
    assert GAME.make_config({"early_end": False}).early_end is False
    assert GAME.make_config(None, 2, max_turns=50).max_turns == 50
    with pytest.raises(TypeError, match="unknown config options"):
        GAME.make_config(stones=11)
    with pytest.raises(ValueError, match="not both"):
        GAME.make_config(kahuna.Config(), max_turns=3)
