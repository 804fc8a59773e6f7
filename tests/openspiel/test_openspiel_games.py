"""The OpenSpiel games against OpenSpiel's own checks and conventions: `random_sim_test`
with and without serialization, parameters, bounds, strings, clones, pickling, the safe
deserializer, illegal actions and resampling."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kanaloa_env.openspiel import deserialize_game_and_state  # noqa: E402
from kanaloa_env.openspiel.game import OpenSpielState  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SIM_GAMES = [
    ("python_kanaloa(players=3)", 2),
    ("python_kanaloa(players=4,nil_announcement=True)", 1),
    ("python_kanaloa(players=5,dolphin=automatic,dolphin_chain=True,reward=rank)", 1),
    ("python_kahuna", 2),
    ("python_kahuna(discard_rule=no_legal_play,first_player=player_1,stones_per_player=11)", 1),
    ("python_kuhn", 20),
    ("python_kuhn(ante=2,bet=3)", 10),
]


@pytest.mark.parametrize("name,sims", SIM_GAMES)
def test_random_sim_test(name: str, sims: int) -> None:
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


@pytest.mark.parametrize("name", ["python_kanaloa(players=4)", "python_kahuna", "python_kuhn"])
def test_random_sim_test_with_serialization(name: str) -> None:
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def _random_state(game, seed: int, decisions: int):
    """A random game after `decisions` decisions and the chance nodes that follow."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    n = 0
    while not st.is_terminal() and (st.is_chance_node() or n < decisions):
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes(), strict=True)
            st.apply_action(int(rng.choice(actions, p=probs)))
        else:
            st.apply_action(int(rng.choice(st.legal_actions())))
            n += 1
    return st


def test_every_engine_option_is_a_parameter() -> None:
    game = pyspiel.load_game(
        "python_kanaloa(players=5,nil_announcement=True,announced_boat_moves=True,"
        "dolphin=automatic,dolphin_chain=True,max_rounds=7,reward=rank)"
    )
    cfg = game.config
    assert (cfg.num_players, cfg.nil_announcement, cfg.announced_boat_moves) == (5, True, True)
    assert (cfg.dolphin, cfg.dolphin_chain, cfg.max_rounds, cfg.reward) == (
        "automatic",
        True,
        7,
        "rank",
    )
    spec = pyspiel.load_game("python_kanaloa").get_type().parameter_specification
    assert set(spec) == {
        "players",
        "ocean_deck",
        "nil_announcement",
        "announced_boat_moves",
        "dolphin",
        "dolphin_chain",
        "max_rounds",
        "reward",
    }
    kahuna = pyspiel.load_game(
        "python_kahuna(stones_per_player=12,first_player=player_0,discard_rule=unplayable_cards,"
        "early_end=False,max_turns=50)"
    ).config
    assert (kahuna.stones_per_player, kahuna.first_player, kahuna.discard_rule) == (
        12,
        0,
        "unplayable_cards",
    )
    assert (kahuna.early_end, kahuna.max_turns) == (False, 50)


def test_an_ocean_deck_is_a_parameter() -> None:
    from kanaloa_env.core.kanaloa.ocean import DEFAULT_OCEAN_DECK
    from kanaloa_env.openspiel.chance import deck_text

    deck = list(DEFAULT_OCEAN_DECK)
    deck[1], deck[2] = deck[2], deck[1]
    game = pyspiel.load_game(f"python_kanaloa(players=5,ocean_deck={deck_text(deck)})")
    assert game.config.ocean_deck == tuple(deck)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize(
    "name,words",
    [
        ("python_kanaloa(players=6)", "num_players"),
        ("python_kanaloa(dolphin=sometimes)", "dolphin"),
        ("python_kanaloa(ocean_deck=blue+red)", "ocean_deck"),
        ("python_kahuna(stones_per_player=9)", "stones_per_player"),
        ("python_kahuna(first_player=player_2)", "first_player"),
        ("python_kanaloa(colour=blue)", "colour"),
    ],
)
def test_bad_parameters_are_refused_naming_them(name: str, words: str) -> None:
    with pytest.raises(Exception, match=words):
        pyspiel.load_game(name)


def test_bounds() -> None:
    k = pyspiel.load_game("python_kanaloa(players=5)")
    assert k.num_distinct_actions() == 66 and k.max_chance_outcomes() == 50
    assert (k.min_utility(), k.max_utility(), k.utility_sum()) == (-1.0, 1.0, 0.0)
    assert k.num_players() == 5
    assert k.max_game_length() >= 100 * 8 * 5
    h = pyspiel.load_game("python_kahuna")
    assert h.num_distinct_actions() == 153 and h.max_chance_outcomes() == 12
    assert h.max_game_length() >= 200
    assert h.observation_tensor_shape() == [h.ours.obs_dim]
    assert h.information_state_tensor_shape() == [h.ours.obs_dim]
    q = pyspiel.load_game("python_kuhn(ante=2,bet=3)")
    assert (q.min_utility(), q.max_utility()) == (-5.0, 5.0)
    for game, seed in ((k, 1), (h, 2)):
        st = _random_state(game, seed, 10**6)
        assert st.is_terminal() and len(st.history()) <= 2 * game.max_game_length()
        assert game.min_utility() <= min(st.returns()) <= max(st.returns()) <= game.max_utility()


def test_chance_outcomes_are_a_distribution() -> None:
    for name in ("python_kanaloa(players=3)", "python_kahuna"):
        game = pyspiel.load_game(name)
        rng = np.random.default_rng(0)
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                actions = [a for a, _ in outcomes]
                assert actions == sorted(set(actions))
                assert all(0 <= a < game.max_chance_outcomes() for a in actions)
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
                assert st.legal_actions() == actions
                st.apply_action(int(rng.choice(actions)))
            else:
                st.apply_action(int(rng.choice(st.legal_actions())))


def test_strings_are_in_our_notation() -> None:
    game = pyspiel.load_game("python_kanaloa(players=3)")
    st = _random_state(game, 0, 0)
    text = st.observation_string(0)
    assert "Kanaloa | 3 players" in text and "Hand of player_0" in text
    assert "Legal:" in st.information_state_string(st.current_player())
    assert "observation #" in st.information_state_string(0)
    assert st.action_to_string(st.current_player(), st.legal_actions()[0]).startswith("play ")
    setup = game.new_initial_state()
    assert setup.action_to_string(pyspiel.PlayerId.CHANCE, 0).startswith("route slot 0")
    kahuna = pyspiel.load_game("python_kahuna")
    deal = kahuna.new_initial_state()
    assert deal.action_to_string(pyspiel.PlayerId.CHANCE, 3) == "deal DUDA to player_0"
    assert kahuna.new_initial_state().observation_tensor(0) == [0.0] * kahuna.ours.obs_dim


def test_an_illegal_action_raises_naming_it_and_leaves_the_state() -> None:
    for name in ("python_kanaloa", "python_kahuna"):
        game = pyspiel.load_game(name)
        st = _random_state(game, 4, 3)
        before, history = str(st), st.history()
        illegal = next(a for a in range(game.num_distinct_actions()) if a not in st.legal_actions())
        with pytest.raises(Exception, match=rf"action {illegal} .*not legal.*legal: "):
            st.apply_action(illegal)
        with pytest.raises(Exception, match="kInvalidAction"):  # OpenSpiel's own check
            st.apply_action(-1)
        with pytest.raises(Exception, match="not legal"):
            st.apply_action(game.num_distinct_actions())
        assert str(st) == before and st.history() == history
        chance = game.new_initial_state()
        with pytest.raises(Exception, match="not possible"):
            chance.apply_action(game.max_chance_outcomes() + 5)
        assert chance.history() == []


def test_clone_is_independent() -> None:
    game = pyspiel.load_game("python_kahuna")
    st = _random_state(game, 5, 20)
    copy = st.clone()
    assert isinstance(copy, OpenSpielState) and str(copy) == str(st)
    assert copy.history() == st.history()
    copy.apply_action(copy.legal_actions()[0]) if not copy.is_chance_node() else None
    assert str(st) != str(copy) or copy.is_chance_node()
    assert st.history() == _random_state(game, 5, 20).history()


def test_games_pickle() -> None:
    for name in ("python_kanaloa(players=5,nil_announcement=True)", "python_kahuna(max_turns=9)"):
        game = pyspiel.load_game(name)
        back = pickle.loads(pickle.dumps(game))
        assert str(back) == str(game) and back.config == game.config


@pytest.mark.parametrize("name", ["python_kanaloa(players=3)", "python_kahuna"])
def test_serialization_round_trips_both_ways(name: str) -> None:
    game = pyspiel.load_game(name)
    for decisions in (0, 7, 60, 10**6):
        st = _random_state(game, decisions, decisions)
        text = pyspiel.serialize_game_and_state(game, st)
        g1, s1 = pyspiel.deserialize_game_and_state(text)
        g2, s2 = deserialize_game_and_state(text)
        assert str(g1) == str(g2) == str(game)
        for other in (s1, s2):
            assert other.history() == st.history() and str(other) == str(st)
            assert other.returns() == st.returns()
            if not st.is_terminal() and not st.is_chance_node():
                p = st.current_player()
                assert other.information_state_tensor(p) == st.information_state_tensor(p)


def test_the_safe_deserializer_refuses_bad_text_and_never_unpickles(tmp_path: Path) -> None:
    game = pyspiel.load_game("python_kahuna")
    st = _random_state(game, 1, 5)
    text = pyspiel.serialize_game_and_state(game, st)
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    import base64

    evil = base64.b64encode(pickle.dumps({"x": Evil()})).decode()
    hostile = text.split("__dict__=")[0] + f"__dict__={evil}\n"
    _, back = deserialize_game_and_state(hostile)
    assert not marker.exists() and back.history() == st.history()
    history = ",".join(f"{p}:{a}" for p, a in ((-1, 0),) * 2)
    cases = {
        "nothing": "no \\[Game\\]",
        text.replace("python_kahuna(", "kuhn_poker(").split("(")[0]: "no \\[Game\\]",
        text.replace("[Game]\npython_kahuna", "[Game]\ntic_tac_toe"): "not one of our games",
        text.replace("[Game]\npython_kahuna", "[Game]\npython_nosuch"): "not a registered",
        text.replace("max_turns=200", "max_turns=-3"): "max_turns",
        text.replace("history=", "history=-1:x,"): "not player:action",
        text.replace("history=", "history=0:3,"): "player 0 moves",
        text.replace("history=-1:", "history=-1:11,-1:11,-1:11,-1:"): "not possible",
        text.replace("move_number=", "move_number=9"): "move_number",
        "[Game]\npython_kahuna()\n[State]\n": "no history",
        f"[Game]\npython_kahuna()\n[State]\nhistory={history}\nmove_number=3\n": "move_number",
    }
    for bad, words in cases.items():
        with pytest.raises(ValueError, match=words):
            deserialize_game_and_state(bad)
    with pytest.raises(TypeError):
        deserialize_game_and_state(b"[Game]")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at most"):
        deserialize_game_and_state("x" * (1 << 23))


@pytest.mark.parametrize("name", ["python_kanaloa(players=4)", "python_kahuna"])
def test_resample_from_infostate_keeps_what_the_player_knows(name: str) -> None:
    game = pyspiel.load_game(name)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differ = 0
    for seed in range(6):
        st = _random_state(game, seed, 15 + 9 * seed)
        while st.is_chance_node():
            st.apply_action(st.chance_outcomes()[0][0])
        if st.is_terminal():
            continue
        p = st.current_player()
        for _ in range(3):
            r = st.resample_from_infostate(p, sampler)
            assert r.information_state_string(p) == st.information_state_string(p)
            assert r.legal_actions() == st.legal_actions()
            differ += any(
                r.observation_tensor(q) != st.observation_tensor(q)
                for q in range(game.num_players())
            )
            r.apply_action(r.legal_actions()[0])  # the sample plays on
    assert differ > 0  # other players' hidden cards were drawn anew
    with pytest.raises(ValueError, match="decision node"):
        game.new_initial_state().resample_from_infostate(0, sampler)


def test_importing_kanaloa_env_does_not_import_pyspiel() -> None:
    code = (
        "import sys, kanaloa_env, kanaloa_env.games, kanaloa_env.bots; "
        "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules; "
        "import kanaloa_env.openspiel; assert 'pyspiel' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_register_takes_any_game_with_a_chance_model() -> None:
    from kanaloa_env.games import get_game
    from kanaloa_env.openspiel import register, short_name
    from kanaloa_env.openspiel.game import _builtin_chance

    assert register("kanaloa") is register("kanaloa")  # once per process
    assert short_name("kuhn") == "python_kuhn" and "python_kuhn" in pyspiel.registered_names()
    with pytest.raises(TypeError, match="no built-in OpenSpiel chance model"):
        _builtin_chance(get_game("kuhn"))
    with pytest.raises(TypeError, match="must be a ChanceModel"):
        _register_fresh_kuhn_with(object())


def _register_fresh_kuhn_with(chance: object) -> None:
    from kanaloa_env.openspiel import game as module

    saved = module._REGISTERED.pop("python_kuhn")
    try:
        module.register("kuhn", chance=chance)  # type: ignore[arg-type]
    finally:
        module._REGISTERED["python_kuhn"] = saved


def test_only_a_players_own_observation_is_offered() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_kahuna")
    public = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="observes for one player"):
        make_observation(game, public)
    with pytest.raises(ValueError, match="not supported"):
        game.make_py_observer(None, {"x": 1})


@pytest.mark.parametrize("name", ["python_kanaloa(players=4)", "python_kahuna", "python_kuhn"])
def test_the_python_side_answers_agree_with_the_engine_and_cpp(name: str) -> None:
    """`legal_actions`, `is_chance_node`, `is_player_node` answered in Python and the
    observer's compiled path give what the engine and OpenSpiel's C++ calls give."""
    game = pyspiel.load_game(name)
    ours = game.ours
    P = game.num_players()
    obs_type = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    observer = game.make_py_observer(obs_type)
    rng = np.random.default_rng(3)
    for _ in range(2):
        st = game.new_initial_state()
        while True:
            player = st.current_player()
            assert st.is_chance_node() == pyspiel.State.is_chance_node(st) == (player == -1)
            assert st.is_player_node() == pyspiel.State.is_player_node(st) == (player >= 0)
            assert st.legal_actions() == pyspiel.State.legal_actions(st)
            for p in range(P):
                assert st.legal_actions(p) == pyspiel.State.legal_actions(st, p)
            if st.is_terminal():
                assert st.legal_actions() == []
                break
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                assert st.legal_actions() == [a for a, _ in outcomes]
                actions, probs = zip(*outcomes, strict=True)
                st.apply_action(int(rng.choice(actions, p=probs)))
                continue
            legal = st.legal_actions()
            assert legal == np.flatnonzero(st.engine.legal[0]).tolist()
            legal.append(-7)  # a caller's list is its own
            assert st.legal_actions() == legal[:-1]
            for p in range(P):
                observer.set_from(st, p)
                want = ours.observe(st.engine, seat=p)[0]
                np.testing.assert_array_equal(observer.tensor, want)
                np.testing.assert_array_equal(st.information_state_tensor(p), want)
                observer.set_from(st, np.int64(p))  # the engine's own path, same result
                np.testing.assert_array_equal(observer.tensor, want)
            with pytest.raises(ValueError, match="seat"):
                observer.set_from(st, P)
            st.apply_action(int(rng.choice(legal[:-1])))


@pytest.mark.parametrize(
    "name", ["python_kanaloa(players=3)", "python_kanaloa(players=5)", "python_kahuna"]
)
def test_is_possible_agrees_with_the_listed_outcomes(name: str) -> None:
    """The models' quick `is_possible` answers as the listing of `chance_outcomes` does
    (the base `ChanceModel.is_possible`), for every action at every chance node."""
    from kanaloa_env.openspiel import ChanceModel

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(11)
    outcomes = range(-2, game.max_chance_outcomes() + 2)
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            for o in outcomes:
                assert st.chance.is_possible(st, o) == ChanceModel.is_possible(st.chance, st, o)
            actions, probs = zip(*st.chance_outcomes(), strict=True)
            st.apply_action(int(rng.choice(actions, p=probs)))
        else:
            st.apply_action(int(rng.choice(st.legal_actions())))


@pytest.mark.parametrize("name", ["python_kanaloa", "python_kahuna"])
def test_our_games_call_their_compiled_kernels_directly(name: str) -> None:
    """Kanaloa's and Kahuna's states find their engine's compiled step and observation
    (`single.OneGame`), not the slower public-API fallback (which a change of the
    engines' layout would select without any other sign)."""
    from kanaloa_env.core.kernels import JIT_DISABLED
    from kanaloa_env.openspiel.single import OneGame

    if JIT_DISABLED:
        pytest.skip("under NUMBA_DISABLE_JIT the public calls are the path")
    st = _random_state(pyspiel.load_game(name), 2, 1)
    assert type(st._calls()) is OneGame
