"""The OpenSpiel games and our engines agree: the same deal (the engine's, fed to OpenSpiel
as chance outcomes) and the same actions give the same player to act, legal actions,
observations (every player's) and rewards at every decision, over thousands of decisions."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from engine_outcomes import (  # noqa: E402
    kahuna_pile_top,
    kahuna_setup,
    kanaloa_deal,
    kanaloa_setup,
    observations_equal,
)

import kanaloa_env.openspiel  # noqa: E402,F401  registers the games
from kanaloa_env.core.kahuna import constants as kc  # noqa: E402
from kanaloa_env.games import get_game  # noqa: E402


def _feed(st, outcomes) -> None:
    for o in outcomes:
        assert st.is_chance_node()
        assert o in [a for a, _ in st.chance_outcomes()]
        st.apply_action(o)


def _check_decision(ours, s, st, P) -> list[int]:
    assert not st.is_chance_node()
    assert st.current_player() == int(s.current_player[0])
    legal = np.flatnonzero(s.legal[0]).tolist()
    assert st.legal_actions() == legal
    observations_equal(ours, s, st, P)
    return legal


KANALOA_CONFIGS = [
    "python_kanaloa(players=3)",
    "python_kanaloa(players=4,nil_announcement=True)",
    "python_kanaloa(players=5,dolphin=automatic,dolphin_chain=True,reward=rank)",
    "python_kanaloa(players=4,nil_announcement=True,announced_boat_moves=True,max_rounds=3)",
]


@pytest.mark.parametrize("name", KANALOA_CONFIGS)
def test_kanaloa_agrees_with_the_engine(name: str) -> None:
    ours = get_game("kanaloa")
    game = pyspiel.load_game(name)
    cfg = game.config
    P = cfg.num_players
    rng = np.random.default_rng(7)
    decisions = 0
    for seed in range(6):
        s = ours.init_game(cfg, 11, seed)
        st = game.new_initial_state()
        _feed(st, kanaloa_setup(s))
        returns = np.zeros(P)
        while not s.done[0]:
            legal = _check_decision(ours, s, st, P)
            a = int(rng.choice(legal))
            rnd = int(s.round[0])
            ours.step_inplace(s, np.array([a]))
            st.apply_action(a)
            decisions += 1
            returns += s.rewards[0]
            np.testing.assert_allclose(st.rewards(), s.rewards[0], atol=0)
            if int(s.round[0]) != rnd and not s.done[0]:
                _feed(st, kanaloa_deal(s))
        assert st.is_terminal()
        np.testing.assert_allclose(st.returns(), returns, atol=0)
    assert decisions > 450  # 4 configs: over 1,800 decisions


@pytest.mark.parametrize(
    "name",
    [
        "python_kahuna",
        "python_kahuna(first_player=player_1,discard_rule=no_legal_play,stones_per_player=12)",
        "python_kahuna(discard_rule=unplayable_cards,early_end=False,max_turns=60)",
    ],
)
def test_kahuna_agrees_with_the_engine(name: str) -> None:
    ours = get_game("kahuna")
    game = pyspiel.load_game(name)
    cfg = game.config
    rng = np.random.default_rng(3)
    decisions = reshuffles = draws = 0
    for seed in range(4):
        s = ours.init_game(cfg, 5, seed)
        st = game.new_initial_state()
        _feed(st, kahuna_setup(s, cfg.rules.random_first))
        returns = np.zeros(2)
        while not s.done[0]:
            legal = _check_decision(ours, s, st, 2)
            a = int(rng.choice(legal))
            top = kahuna_pile_top(s)
            scorings = int(s.num_scorings[0])
            ours.step_inplace(s, np.array([a]))
            st.apply_action(a)
            decisions += 1
            takes = a == kc.DRAW or kc.TAKE_BASE <= a < kc.TAKE_BASE + kc.ROW_SLOTS
            if takes and top >= 0:
                draws += 1
                _feed(st, [top])
            if int(s.num_scorings[0]) != scorings and not s.done[0]:
                reshuffles += 1
                _feed(st, [int(x) for x in s.face_up[0]])
            returns += s.rewards[0]
            np.testing.assert_allclose(st.returns(), returns, atol=0)
        assert st.is_terminal()
    assert decisions > 400 and draws > 50 and reshuffles > 0  # 3 configs: over 1,200
