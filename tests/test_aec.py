"""The PettingZoo AEC env with Kanaloa: PettingZoo's conformance tests at the tables the
conformance suite (`tests/games/conformance/`, every game at its default table) does not play,
AEC == core with Kanaloa's rules, scenarios, bad input.

The AEC env is the core at batch size 1, so most tests play it side by side with a
core batch seeded the same way and compare game 0 after every step.
"""

from __future__ import annotations

import copy
import json
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import kanaloa_env
from kanaloa_env.aec import raw_env
from kanaloa_env.core.kanaloa import (
    NUM_ACTIONS,
    OBS_DIM,
    Config,
    Phase,
    init,
    observe,
    step_inplace,
)
from kanaloa_env.core.kanaloa.constants import OCTOPUS, REMOVE_BASE
from kanaloa_env.core.kanaloa.observation import OBS_LAYOUT

SCENARIO = Path(__file__).parent / "scenarios" / "scenario_md_example.json"
TABLES = [(3, False), (4, False), (5, False), (3, True), (4, True), (5, True)]
# The tables beyond the default (4 players, no variant), which the conformance suite plays.
OTHER_TABLES = [t for t in TABLES if t != (4, False)]


def _scenario() -> dict:
    return json.loads(SCENARIO.read_text())


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_warnings():
    # api_test warns about dict observations of envs it does not know by name, and
    # about its own reset(options={"options": 1}); neither is a failure.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# ---- PettingZoo's own conformance tests ------------------------------------------


@pytest.mark.parametrize(("num_players", "nil"), OTHER_TABLES)
def test_pettingzoo_api_test(num_players: int, nil: bool) -> None:
    api_test(kanaloa_env.env(num_players=num_players, nil_announcement=nil), num_cycles=1000)


@pytest.mark.parametrize(("num_players", "nil"), OTHER_TABLES)
def test_pettingzoo_seed_test(num_players: int, nil: bool) -> None:
    seed_test(lambda: kanaloa_env.env(num_players=num_players, nil_announcement=nil), 200)


@pytest.mark.parametrize(("num_players", "nil"), OTHER_TABLES)
def test_pettingzoo_render_test(num_players: int, nil: bool, capsys) -> None:
    def make(render_mode=None):
        return kanaloa_env.env(
            num_players=num_players, nil_announcement=nil, render_mode=render_mode
        )

    render_test(make, custom_tests={"ansi": lambda s: "player_0" in s and "Route" in s})
    assert "Route" in capsys.readouterr().out  # human mode printed the table


# ---- construction, spaces, metadata -------------------------------------------------


def test_metadata_spaces_and_agents() -> None:
    e = raw_env(num_players=5)
    assert e.metadata["name"] == "kanaloa_v0"
    assert e.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert e.metadata["is_parallelizable"] is False and e.metadata["render_fps"] > 0
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    for agent in e.possible_agents:
        assert e.action_space(agent) is e.action_space(agent)
        assert e.observation_space(agent) is e.observation_space(agent)
        assert e.action_space(agent).n == NUM_ACTIONS == 66
        obs_space = e.observation_space(agent)
        assert obs_space["observation"].shape == (OBS_DIM,)
        assert obs_space["observation"].dtype == np.float32
        assert obs_space["action_mask"].shape == (66,) and obs_space["action_mask"].dtype == np.int8
    e.reset(seed=0)
    assert e.observation_space("player_0") is e.observation_space("player_0")  # stable over reset


def test_every_config_option_is_an_argument() -> None:
    deck = Config().ocean_deck
    e = raw_env(
        num_players=3,
        ocean_deck=deck,
        nil_announcement=True,
        announced_boat_moves=True,
        dolphin="automatic",
        dolphin_chain=True,
        max_rounds=7,
        reward="rank",
    )
    want = Config(3, deck, True, True, "automatic", True, 7, "rank")
    assert e.config == want
    assert raw_env(config=want).config == want
    assert kanaloa_env.env(num_players=3, max_rounds=7).unwrapped.config.max_rounds == 7


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_players": 6}, ValueError, "num_players"),
        ({"dolphin": "sometimes"}, ValueError, "dolphin"),
        ({"max_round": 3}, TypeError, "unknown arguments"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"config": Config(), "max_rounds": 3}, ValueError, "either config"),
        ({"config": {"num_players": 3}}, TypeError, "Config"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        raw_env(**kwargs)


def test_package_exports_and_pettingzoo_registry() -> None:
    import pettingzoo

    assert callable(kanaloa_env.env) and kanaloa_env.raw_env is raw_env
    if not hasattr(pettingzoo, "aec_registry"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry (1.27 added it)")
    assert "kanaloa_env/kanaloa-v0" in pettingzoo.aec_registry
    e = pettingzoo.make("aec", "kanaloa_env/kanaloa-v0", num_players=3, nil_announcement=True)
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1", "player_2"]
    assert e.unwrapped.config.nil_announcement and isinstance(e.unwrapped, raw_env)
    # The same classic wrapper stack as env().
    layers = []
    w = e
    while w is not e.unwrapped:
        layers.append(w)
        w = w.env
    assert [type(w).__name__ for w in layers[1:]] == [
        "AssertOutOfBoundsWrapper",
        "TerminateIllegalWrapper",
    ]
    assert isinstance(layers[0], pettingzoo.utils.wrappers.OrderEnforcingWrapper)


def test_use_before_reset_is_a_clear_error() -> None:
    e = raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        e.observe("player_0")
    with pytest.raises(RuntimeError, match="reset"):
        e.to_scenario()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        e.last()
    with pytest.raises(RuntimeError, match="reset"):
        raw_env(render_mode="ansi").render()
    e.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        e.observe("player_9")


# ---- AEC == core, random games ---------------------------------------------------------


def _game0_equal(env_state, batch) -> bool:
    return env_state.equal(batch.take([0]))


def _play_against_core(e: raw_env, seed: int, rng: np.random.Generator, batch: int = 3) -> dict:
    """Play one random game through `e` and, in step, game 0 of a core batch seeded `seed`.

    Checks after every decision: the env's game equals core game 0 (deals, route,
    everything); agent_selection is the core's player to act; the mask in the
    observation is exactly the core's mask; the observation is the core's encoding
    of that seat; other agents get their own view and an all-zero mask. At the end:
    every agent done, rewards per R10, every agent removed by its dead step.
    """
    e.reset(seed=seed)
    core = init(e.config, batch, seed=seed)
    P = e.config.num_players
    assert _game0_equal(e.game_state, core)
    stats = {"decisions": 0, "repeats": 0, "dolphin": 0, "octopus_repeat": 0}
    previous = None
    while not core.done[0]:
        seat = int(core.current_player[0])
        agent = e.agent_selection
        assert agent == f"player_{seat}"
        obs, reward, terminated, truncated, info = e.last()
        assert (reward, terminated, truncated, info) == (0.0, False, False, {})
        assert obs["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(obs["action_mask"], core.legal[0].astype(np.int8))
        np.testing.assert_array_equal(obs["observation"], observe(core, seat=seat)[0])
        if stats["decisions"] % 7 == 0:  # another agent's view, now and then
            other = (seat + 1 + stats["decisions"] % (P - 1)) % P
            o = e.observe(f"player_{other}")
            assert not o["action_mask"].any()
            np.testing.assert_array_equal(o["observation"], observe(core, seat=other)[0])
        if agent == previous:
            stats["repeats"] += 1
            stats["dolphin"] += int(core.phase[0] == Phase.DOLPHIN)
            stats["octopus_repeat"] += int(core.phase[0] == Phase.REMOVE_OCTOPUS)
        previous = agent
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        actions = np.array(
            [action]
            + [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in core.legal[1:]]
        )
        e.step(action)
        step_inplace(core, actions)
        stats["decisions"] += 1
        assert _game0_equal(e.game_state, core)
    # R10: rewards only at the end; check what each agent collects on its dead step.
    want = core.rewards[0].astype(np.float64)
    if core.terminated[0] and e.config.reward == "win_loss":
        w = int(core.winner[0])
        expected = np.full(P, -1.0 / (P - 1))
        expected[w] = 1.0
        np.testing.assert_allclose(want, expected, rtol=1e-6)
    elif e.config.reward == "win_loss":
        assert not want.any()  # truncated: no winner, no reward (R9.4)
    else:
        assert want.max() == 1.0 and want.min() == -1.0  # rank: furthest +1, last -1
    assert abs(want.sum()) < 1e-5
    collected = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert terminated == bool(core.terminated[0]) and truncated == bool(core.truncated[0])
        assert not obs["action_mask"].any()
        collected[agent] = reward
        e.step(None)
    assert e.agents == []
    assert collected == {f"player_{p}": pytest.approx(want[p]) for p in range(P)}
    stats["terminated"] = int(core.terminated[0])
    return stats


def _games(cases: list[tuple[dict, int]], seed0: int) -> dict:
    rng = np.random.default_rng(seed0)
    total: dict = {}
    seed = seed0
    for kwargs, n in cases:
        e = raw_env(**kwargs)
        for _ in range(n):
            seed += 1
            for k, v in _play_against_core(e, seed, rng).items():
                total[k] = total.get(k, 0) + v
            total["games"] = total.get("games", 0) + 1
    return total


def _cases(full: int, short: int) -> list[tuple[dict, int]]:
    """Full games for every table, and short games (max_rounds 1-2) that truncate."""
    out: list[tuple[dict, int]] = []
    for P, nil in TABLES:
        out.append(({"num_players": P, "nil_announcement": nil}, full))
        out.append(({"num_players": P, "nil_announcement": nil, "max_rounds": 1}, short))
    out.append(({"num_players": 4, "reward": "rank", "max_rounds": 2}, short))
    out.append(({"num_players": 3, "dolphin": "automatic", "dolphin_chain": True}, full))
    return out


def test_random_games_match_the_core() -> None:
    total = _games(_cases(full=1, short=2), seed0=1000)
    assert total["games"] == 7 * 1 + 7 * 2
    assert 0 < total["terminated"] < total["games"]  # both endings were seen
    # The agent to act repeated: octopus removals and dolphin decisions came up.
    assert total["octopus_repeat"] > 0 and total["dolphin"] > 0


@pytest.mark.slow
def test_random_games_match_the_core_soak() -> None:
    total = _games(_cases(full=100, short=150), seed0=50_000)
    assert total["games"] == 7 * 100 + 7 * 150


def test_seeded_reset_plays_game_zero_of_any_batch() -> None:
    e = raw_env(num_players=5)
    for seed in (0, 1, 2**64 - 1):
        e.reset(seed=seed)
        for B in (1, 4):
            assert _game0_equal(e.game_state, init(e.config, B, seed=seed))


def test_unseeded_resets_follow_the_env_generator() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    keys_a, keys_b = [], []
    for _ in range(3):
        a.reset()
        b.reset()
        keys_a.append(int(a.game_state.key[0]))
        keys_b.append(int(b.game_state.key[0]))
    assert keys_a == keys_b  # a seeded reset reseeds the generator of later resets
    assert len(set(keys_a)) == 3  # and each unseeded reset is a new game
    for bad, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError)):
        with pytest.raises(error, match="seed"):
            a.reset(seed=bad)


def test_pickled_env_plays_on_identically() -> None:
    e = raw_env(num_players=4)
    e.reset(seed=5)
    for _ in range(10):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    f = pickle.loads(pickle.dumps(e))
    for _ in range(20):
        a = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1])
        e.step(a)
        f.step(a)
        assert e.game_state.equal(f.game_state) and e.agent_selection == f.agent_selection


# ---- agents that act twice, scenarios ---------------------------------------------------


def _octopus_scenario() -> dict:
    """SCENARIO.md's position with player 2's green-7 swapped for player 1's octopus."""
    sc = _scenario()
    sc["hands"][1] = [c if c != "octopus" else "green-7" for c in sc["hands"][1]]
    sc["hands"][2] = [c if c != "green-7" else "octopus" for c in sc["hands"][2]]
    return sc


def test_octopus_player_acts_again_to_remove_then_trick_winner_leads() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=0, options={"scenario": _octopus_scenario()})
    assert e.agent_selection == "player_2"
    e.step(OCTOPUS)  # R4.1: a special card may be played although blue is held
    assert e.agent_selection == "player_2"  # R4.4: the octopus player removes a card
    mask = e.observe("player_2")["action_mask"]
    assert mask[REMOVE_BASE:62].any() and not mask[:REMOVE_BASE].any()
    assert e.game_state.phase[0] == Phase.REMOVE_OCTOPUS
    e.step(REMOVE_BASE + 1)
    # R5.2: blue is trump (all boats on the blue start field, R8.2): blue-2 of player 1 wins.
    assert e.agent_selection == "player_1"
    assert e.game_state.tricks_won[0].tolist() == [0, 1, 0]


def test_scenario_round_trip_through_reset_and_to_scenario() -> None:
    sc = _scenario()
    e = raw_env(num_players=3)
    e.reset(seed=3, options={"scenario": copy.deepcopy(sc)})
    assert e.to_scenario() == sc
    assert e.agent_selection == f"player_{sc['to_act']}"

    # Mid-game positions: dump, restart a second env from the dump, play on in step.
    rng = np.random.default_rng(0)

    def act(x: raw_env) -> int:
        return int(rng.choice(np.flatnonzero(x.observe(x.agent_selection)["action_mask"])))

    a = raw_env(num_players=4, nil_announcement=True)
    a.reset(seed=21)

    def same_position(x: raw_env, y: raw_env) -> bool:
        # from_scenario packs the remaining ocean cards into the first route slots, so
        # after a removal the arrays differ while the position (and every view) is equal.
        views = all(
            np.array_equal(x.observe(p)["observation"], y.observe(p)["observation"])
            and np.array_equal(x.observe(p)["action_mask"], y.observe(p)["action_mask"])
            for p in x.possible_agents
        )
        return views and x.to_scenario(include_key=True) == y.to_scenario(include_key=True)

    for chunk in (5, 30, 60):  # the last dump follows an ocean card removal
        for _ in range(chunk):
            a.step(act(a))
        assert not a.terminations[a.agent_selection]
        # With the key, future deals are the same; without it, the seed's (game 0 of seed).
        b = raw_env(num_players=4, nil_announcement=True)
        b.reset(options={"scenario": a.to_scenario(include_key=True)})
        assert same_position(a, b) and b.agent_selection == a.agent_selection
        c = raw_env(num_players=4, nil_announcement=True)
        c.reset(seed=21, options={"scenario": a.to_scenario()})
        assert same_position(b, c)
        snapshot = pickle.dumps(a)
        for _ in range(40):  # past the end of the round: the next deal matches too
            x = act(a)
            a.step(x)
            b.step(x)
            assert same_position(a, b) and a.agent_selection == b.agent_selection
            assert a.rewards == b.rewards
            if a.terminations[a.agent_selection] or a.truncations[a.agent_selection]:
                break
        a = pickle.loads(snapshot)
    assert not a.game_state.present.all()  # a removal did happen before the last dump


def test_scenario_with_another_config_is_rejected() -> None:
    e = raw_env(num_players=3, nil_announcement=True)
    with pytest.raises(ValueError, match="differs from the env's"):
        e.reset(options={"scenario": _scenario()})
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=4).reset(options={"scenario": _scenario()})
    bad = _scenario()
    bad["to_act"] = 0
    with pytest.raises(ValueError, match="to_act"):
        raw_env(num_players=3).reset(options={"scenario": bad})
    with pytest.raises(ValueError, match="'scenaro'; did you mean 'scenario'"):
        raw_env(num_players=3).reset(options={"scenaro": _scenario()})
    # Other unknown keys are ignored silently, as PettingZoo's api_test expects.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw_env(num_players=3).reset(seed=0, options={"options": 1})


def test_scenario_of_a_finished_game_starts_with_every_agent_done() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=4)
    while not e.terminations[e.agent_selection] and not e.truncations[e.agent_selection]:
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    sc = e.to_scenario()
    f = raw_env(num_players=3)
    f.reset(options={"scenario": sc})
    assert all(f.terminations.values()) and f.agents == f.possible_agents
    for _ in f.agent_iter():
        assert f.last()[1] == 0.0
        f.step(None)
    assert f.agents == []


# ---- illegal and malformed actions ------------------------------------------------


def test_raw_env_rejects_illegal_actions_and_keeps_the_game() -> None:
    e = raw_env(num_players=4)
    e.reset(seed=8)
    for _ in range(3):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    before = e.game_state.copy()
    agent, rewards, cumulative = e.agent_selection, dict(e.rewards), dict(e._cumulative_rewards)
    mask = e.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    cases = [
        (illegal, ValueError, f"{agent} cannot take action {illegal}"),
        (66, ValueError, "out of range"),
        (-1, ValueError, "out of range"),
        (np.int64(10**6), ValueError, "out of range"),
        (1.0, TypeError, "integer"),
        ("3", TypeError, "integer"),
        (True, TypeError, "integer"),
        (None, TypeError, "integer"),
        (np.array([1, 2]), TypeError, "integer"),
    ]
    for action, error, match in cases:
        with pytest.raises(error, match=match):
            e.step(action)
        assert e.game_state.equal(before)
        assert (e.agent_selection, e.rewards, e._cumulative_rewards) == (
            agent,
            rewards,
            cumulative,
        )
    legal = int(np.flatnonzero(mask)[0])
    for form in (np.int32(legal), np.array(legal), np.array([legal], dtype=np.uint8)):
        f = pickle.loads(pickle.dumps(e))
        f.step(form)
        assert not f.game_state.equal(before)


def test_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    e = kanaloa_env.env(num_players=4)
    e.reset(seed=8)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0])
    e.step(illegal)  # classic TerminateIllegalWrapper: -1 for the offender, 0 for the rest
    assert all(e.terminations.values())
    assert e.rewards == {a: (-1.0 if a == agent else 0) for a in e.possible_agents}
    seen = {}
    for a in e.agent_iter():
        seen[a] = e.last()[1]
        e.step(None)
    assert seen == {a: (-1.0 if a == agent else 0) for a in e.possible_agents}
    e.reset(seed=8)
    with pytest.raises(AssertionError, match="action space"):
        e.step(66)


# ---- rendering -------------------------------------------------------------------


def test_render_modes(capsys) -> None:
    e = raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and "\x1b[" in text and "player_2" in text
    h = raw_env(num_players=3, render_mode="human")
    h.reset(seed=1)
    assert h.render() is None
    printed = capsys.readouterr().out
    assert "Route" in printed and "\x1b[" not in printed  # captured stdout is no terminal
    h.step(int(np.flatnonzero(h.observe(h.agent_selection)["action_mask"])[0]))
    assert "Route" in capsys.readouterr().out  # human mode draws after every step
    n = raw_env(num_players=3)
    n.reset(seed=1)
    assert n.render() is None


def test_module_docstring_is_current() -> None:
    doc = sys.modules["kanaloa_env.aec"].__doc__
    for section in (
        "### Observation Space",
        "#### Legal Actions Mask",
        "### Action Space",
        "### Rewards",
        "### Version History",
    ):
        assert section in doc
    assert f"Kanaloa ({OBS_DIM},)" in doc
    assert f"Kanaloa: {OBS_DIM} floats" in doc
    for name, _, _ in OBS_LAYOUT:
        assert f"`{name}`" in doc, f"observation part {name} missing from the env docstring"


# ---- after the game, before reset, odd action types ------------------------------------


def _finished(e) -> None:
    e.reset(seed=1)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_after_the_game_every_call_says_reset() -> None:
    e = raw_env(num_players=3)
    _finished(e)
    assert e.agents == []
    for call in (lambda: e.step(0), lambda: e.step(None), lambda: e.last()):
        with pytest.raises(RuntimeError, match=r"game is over .*call reset\(\)"):
            call()
    e.reset(seed=2)  # and the env plays on
    assert e.agents == e.possible_agents


def test_agent_iter_before_reset_says_reset() -> None:
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        raw_env(num_players=3).agent_iter()


@pytest.mark.parametrize("action", [True, np.bool_(False), 1.0, "1", [1]])
def test_env_rejects_non_integer_actions_before_pettingzoo_wrappers(action) -> None:
    e = kanaloa_env.env(num_players=3)
    e.reset(seed=0)
    before = e.unwrapped.to_scenario()
    with pytest.raises(TypeError, match="action must be an integer"):
        e.step(action)
    assert e.unwrapped.to_scenario() == before
