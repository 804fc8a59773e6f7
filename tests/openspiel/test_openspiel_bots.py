"""Our bots as OpenSpiel bots: every kind plays whole games through `pyspiel.evaluate_bots`,
and a bot refuses what is not its game or its turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kanaloa_env.bots.search import SearchBot, guided_search  # noqa: E402
from kanaloa_env.openspiel import OpenSpielBot  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "kanaloa_env" / "bots" / "data"


def test_every_kind_of_bot_plays_kanaloa() -> None:
    game = pyspiel.load_game("python_kanaloa(players=5)")
    specs = [
        "random",
        "heuristic",
        "net",
        SearchBot(game="kanaloa", rollouts=8),
        guided_search("kanaloa", rollouts=8),
    ]
    bots = [OpenSpielBot(game, p, spec, seed=p) for p, spec in enumerate(specs)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert len(returns) == 5 and abs(sum(returns)) < 1e-9 and max(returns) == 1.0


def test_every_kind_of_bot_plays_kahuna() -> None:
    game = pyspiel.load_game("python_kahuna")
    pairs = [
        ("search", str(DATA / "kahuna_2p.npz")),
        ("heuristic", guided_search("kahuna", rollouts=8)),
    ]
    for seed, (a, b) in enumerate(pairs):
        bots = [OpenSpielBot(game, 0, a, seed=1), OpenSpielBot(game, 1, b, seed=2)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert returns[0] == -returns[1] and abs(returns[0]) <= 1


def test_a_policy_file_plays_from_its_path() -> None:
    game = pyspiel.load_game("python_kanaloa(players=3)")
    bots = [OpenSpielBot(game, p, str(DATA / "kanaloa_3p.npz")) for p in range(3)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 5)
    assert sorted(returns)[-1] == 1.0


def test_the_heuristic_beats_random_at_kahuna() -> None:
    game = pyspiel.load_game("python_kahuna")
    total = 0.0
    for seed in range(8):
        seat = seed % 2
        bots = [None, None]
        bots[seat] = OpenSpielBot(game, seat, "heuristic", seed=seed)
        bots[1 - seat] = OpenSpielBot(game, 1 - seat, "random", seed=seed)
        total += pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)[seat]
    assert total >= 4  # the heuristic wins nearly every game against random


def test_bad_use_is_refused() -> None:
    game = pyspiel.load_game("python_kahuna")
    with pytest.raises(ValueError, match="player_id must be 0..1"):
        OpenSpielBot(game, 2)
    with pytest.raises(TypeError, match="plays our games"):
        OpenSpielBot(pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="unknown bot"):
        OpenSpielBot(game, 0, "nosuchbot")
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    other = 1 - st.current_player()
    with pytest.raises(ValueError, match=f"plays player_{other}"):
        OpenSpielBot(game, other).step(st)
    kanaloa = pyspiel.load_game("python_kanaloa")
    with pytest.raises(TypeError, match="OpenSpielBot for kanaloa"):
        OpenSpielBot(kanaloa, 0).step(st)
    action = OpenSpielBot(game, st.current_player(), "heuristic").step(st)
    assert action in st.legal_actions()
    assert np.isfinite(action)
