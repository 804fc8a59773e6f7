"""What is Kahuna's own in its envs: its arguments and their errors, hidden information
swapped by hand through scenarios (independently of belief sampling), its results in
the arena, ranks and summary, and its config builder.

What every game must pass (PettingZoo's api, seed and render tests, the Gymnasium and
SB3 checkers, the vector envs, bounds, belief sampling, scenarios, invariants, bots,
records) is the conformance suite's, `tests/games/conformance/`."""

from __future__ import annotations

import numpy as np
import pytest

import kanaloa_env
from kanaloa_env.arena import run_tournament
from kanaloa_env.core import kahuna
from kanaloa_env.games import get_game

GAME = get_game("kahuna")


# ---- the env ------------------------------------------------------------------------------


def test_bad_arguments_name_the_game_and_fields() -> None:
    with pytest.raises(ValueError, match="Kahuna is played by|played by 2 players"):
        kanaloa_env.env(game="kahuna", num_players=3)
    with pytest.raises(TypeError, match="nil_announcement.*Kahuna Config fields"):
        kanaloa_env.env(game="kahuna", nil_announcement=True)
    with pytest.raises(ValueError, match="unknown game 'kahunaa'"):
        kanaloa_env.env(game="kahunaa")
    with pytest.raises(ValueError, match="stones_per_player"):
        kanaloa_env.env(game="kahuna", stones_per_player=9)


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


# ---- the arena ----------------------------------------------------------------------


def test_arena_plays_seat_balanced_two_player_games() -> None:
    result = run_tournament(["random", "random"], game="kahuna", num_games=40, seed=1)
    assert result.num_players == 2 and result.game.name == "kahuna"
    assert [s.seat_games for s in result.stats] == [[20, 20], [20, 20]]
    assert set(result.summary) == {"turns", "points", "stones", "bridges"}
    wins = sum(s.wins for s in result.stats)
    assert wins + int((result.winner < 0).sum()) == 40
    with pytest.raises(ValueError, match="2"):
        run_tournament(["random"] * 3, game="kahuna", num_players=3, num_games=3)


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
