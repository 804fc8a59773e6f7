"""Kuhn poker's own rules (K1-K3 of `engine.py`), scenario format and bot: what the
conformance suite cannot know about this game."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.core.batch import InvariantError

from . import GAME
from .engine import (
    BET,
    CALL,
    CHECK,
    FOLD,
    Config,
    init,
    observe,
    step,
)
from .heuristic import HeuristicBot
from .positions import check_invariants, from_scenario


def _play(cards: list[str], history: list[str], ante: int = 1, bet: int = 1):
    config = {} if (ante, bet) == (1, 1) else {"ante": ante, "bet": bet}
    return from_scenario({"config": config, "cards": cards, "history": history})


@pytest.mark.parametrize(
    ("cards", "history", "winner", "won"),
    [
        (["K", "J"], ["check", "check"], 0, 1),  # K3: showdown, the antes
        (["J", "Q"], ["check", "check"], 1, 1),
        (["Q", "K"], ["bet", "call"], 1, 2),  # ante + bet
        (["J", "K"], ["bet", "fold"], 0, 1),  # K3: the bettor takes the pot unseen
        (["K", "Q"], ["check", "bet", "call"], 0, 2),
        (["K", "Q"], ["check", "bet", "fold"], 1, 1),
    ],
)
def test_k3_who_takes_the_pot_and_what_it_pays(
    cards: list[str], history: list[str], winner: int, won: int
) -> None:
    before = _play(cards, history[:-1])
    a = ["check", "bet", "call", "fold"].index(history[-1])
    after = step(before, np.array([a]))
    assert after.terminated[0] and after.winner[0] == winner
    assert after.rewards[0, winner] == won and after.rewards[0, 1 - winner] == -won
    assert after.current_player[0] == -1 and not after.legal[0].any()


def test_k2_stakes_scale_with_the_config() -> None:
    s = step(_play(["Q", "K"], ["bet"], ante=2, bet=5), np.array([CALL]))
    assert s.rewards[0].tolist() == [-7.0, 7.0]
    s = step(_play(["Q", "K"], ["bet"], ante=2, bet=5), np.array([FOLD]))
    assert s.rewards[0].tolist() == [2.0, -2.0]


def test_k2_masks_follow_the_betting() -> None:
    assert _play(["J", "Q"], []).legal[0].tolist() == [True, True, False, False]
    assert _play(["J", "Q"], ["check"]).legal[0].tolist() == [True, True, False, False]
    assert _play(["J", "Q"], ["bet"]).legal[0].tolist() == [False, False, True, True]
    assert _play(["J", "Q"], ["check", "bet"]).current_player[0] == 0


def test_k1_deals_are_two_different_cards_and_every_deal_comes_up() -> None:
    s = init(Config(), 600, seed=1)
    assert (s.cards[:, 0] != s.cards[:, 1]).all()
    deals = set(map(tuple, s.cards.tolist()))
    assert len(deals) == 6  # 3 * 2 ordered deals


def test_the_opponents_card_shows_only_at_a_showdown() -> None:
    from .engine import OFFSETS

    lo, hi = OFFSETS["shown"]
    folded = step(_play(["J", "K"], ["bet"]), np.array([FOLD]))
    assert not observe(folded, seat=0)[0, lo:hi].any()
    shown = step(_play(["J", "K"], ["bet"]), np.array([CALL]))
    assert observe(shown, seat=0)[0, lo:hi].tolist() == [0, 0, 1]


@pytest.mark.parametrize(
    ("scenario", "match"),
    [
        ({"cards": ["K", "K"], "history": []}, "two different cards"),
        ({"cards": ["K", "A"], "history": []}, "two different cards"),
        ({"cards": ["K", "J"], "history": ["call"]}, "'call' .* not legal"),
        ({"cards": ["K", "J"], "history": ["raise"]}, "history"),
        ({"cards": ["K", "J"]}, "'history' is missing"),
        ({"cards": ["K", "J"], "history": [], "pot": 3}, "unknown scenario keys"),
        ({"cards": ["K", "J"], "history": [], "config": {"blind": 1}}, "unknown fields"),
        ({"cards": ["K", "J"], "history": [], "key": -1}, "'key'"),
    ],
)
def test_bad_scenarios_name_the_key(scenario: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_scenario(scenario)


def test_bad_configs_name_the_field() -> None:
    with pytest.raises(ValueError, match="Config.bet"):
        Config(bet=0)
    with pytest.raises(TypeError, match="Config.ante"):
        Config(ante=1.5)  # type: ignore[arg-type]
    assert GAME.config_overrides(Config(bet=2)) == {"bet": 2}


def test_the_invariant_checker_names_the_rule() -> None:
    s = _play(["K", "J"], ["check"])
    s.cards[0, 1] = s.cards[0, 0]
    with pytest.raises(InvariantError, match="K1"):
        check_invariants(s)


def test_heuristic_bets_and_calls_kings_and_never_calls_with_a_jack() -> None:
    rng = np.random.default_rng(0)
    bot = HeuristicBot()
    for cards, history, want in [
        (["Q", "K"], ["check"], BET),  # second player with K bets after a check
        (["Q", "K"], ["bet"], CALL),
        (["K", "Q"], ["check", "bet"], CALL),
        (["Q", "J"], ["bet"], FOLD),
        (["J", "K"], ["check", "bet"], FOLD),
        (["Q", "J"], [], CHECK),  # the first player never bets a queen
    ]:
        s = _play(cards, history)
        for _ in range(20):
            assert bot.act(observe(s), s.legal, rng)[0] == want
