"""Old names kept for one release: each still works and warns (DeprecationWarning) on use,
and the new names do not warn."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from kanaloa_env.core import Config, init
from kanaloa_env.games import get_game

# (module, old name, module of the new object, its new name)
RENAMED = [
    ("kanaloa_env.wrappers", "KanaloaEnv", "kanaloa_env.wrappers.single", "SingleAgentEnv"),
    ("kanaloa_env.wrappers.single", "KanaloaEnv", "kanaloa_env.wrappers.single", "SingleAgentEnv"),
    (
        "kanaloa_env.wrappers",
        "KanaloaGymVectorEnv",
        "kanaloa_env.wrappers.gym_vector",
        "GymVectorEnv",
    ),
    (
        "kanaloa_env.wrappers.gym_vector",
        "KanaloaGymVectorEnv",
        "kanaloa_env.wrappers.gym_vector",
        "GymVectorEnv",
    ),
    ("kanaloa_env.wrappers", "KanaloaSB3VecEnv", "kanaloa_env.wrappers.sb3", "SB3VecEnv"),
    ("kanaloa_env.wrappers.sb3", "KanaloaSB3VecEnv", "kanaloa_env.wrappers.sb3", "SB3VecEnv"),
    ("kanaloa_env.bots", "HeuristicBot", "kanaloa_env.games.kanaloa.heuristic", "HeuristicBot"),
    (
        "kanaloa_env.bots.search",
        "KanaloaSearch",
        "kanaloa_env.games.kanaloa.search",
        "KanaloaSearch",
    ),
    ("kanaloa_env.bots.search", "win_chances", "kanaloa_env.games.kanaloa.search", "win_chances"),
    (
        "kanaloa_env.bots.search",
        "decision_keys",
        "kanaloa_env.games.kanaloa.search",
        "decision_keys",
    ),
    ("kanaloa_env.bots.search", "WIN_WEIGHTS", "kanaloa_env.games.kanaloa.search", "WIN_WEIGHTS"),
    ("kanaloa_env.bots.search", "_features", "kanaloa_env.games.kanaloa.search", "_features"),
]


@pytest.mark.parametrize(("module", "old", "where", "new"), RENAMED)
def test_an_old_name_warns_and_is_the_new_object(
    module: str, old: str, where: str, new: str
) -> None:
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"{old}\b.*deprecated|moved to") as record:
        value = getattr(mod, old)
    assert value is getattr(importlib.import_module(where), new)
    # The warning points at the caller (this file), not at the package.
    assert Path(record[0].filename).name == Path(__file__).name


def test_from_import_of_an_old_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="use SingleAgentEnv"):
        from kanaloa_env.wrappers import KanaloaEnv  # noqa: F401
    with pytest.warns(DeprecationWarning, match=r'make_bot\("heuristic", game=...\)'):
        from kanaloa_env.bots import HeuristicBot  # noqa: F401


def test_the_new_names_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from kanaloa_env.bots import make_bot
        from kanaloa_env.bots.search import SearchBot, check_act, keyed_legal  # noqa: F401
        from kanaloa_env.games.kanaloa.search import KanaloaSearch, win_chances  # noqa: F401
        from kanaloa_env.render import render_text
        from kanaloa_env.wrappers import GymVectorEnv, SB3VecEnv, SingleAgentEnv  # noqa: F401

        render_text(init(Config(), 2, seed=0), i=1)
        make_bot("heuristic", game="kanaloa")


def test_search_games_is_deprecated() -> None:
    from kanaloa_env.bots import search

    with pytest.warns(DeprecationWarning, match="search_games"):
        names = search.SEARCH_GAMES
    assert names == tuple(search.search_games()) and {"kanaloa", "kahuna"} <= set(names)


# ---- the batch index: `i` everywhere, the old keyword `game` deprecated ----------------------


def test_the_old_batch_index_keyword_warns() -> None:
    from kanaloa_env.render import render_text

    state = init(Config(num_players=3), 3, seed=4)
    with pytest.warns(DeprecationWarning, match="the keyword 'game' is now 'i'"):
        old = render_text(state, game=2, color=False)
    assert old == render_text(state, i=2, color=False) != render_text(state, i=1, color=False)
    g = get_game("kanaloa")
    with pytest.warns(DeprecationWarning, match="init_game"):
        one = g.init_game(Config(), 7, game=3)
    assert one.equal(g.init_game(Config(), 7, i=3)) and one.equal(init(Config(), 4, 7).take([3]))
    with pytest.warns(DeprecationWarning):
        text = g.render_text(state, game=1, color=False)
    assert text == g.render_text(state, 1, color=False)
    with pytest.raises(TypeError, match="got both 'game' and 'i'"):
        render_text(state, game=1, i=1)


def test_load_record_takes_i(tmp_path: Path) -> None:
    from kanaloa_env.bots import RandomBot
    from kanaloa_env.records import load_record, record_bot_game, save_records

    recs = [record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=s) for s in (1, 2)]
    path = tmp_path / "two.jsonl"
    save_records(path, recs)
    assert load_record(path, i=1).seed == 2
    with pytest.warns(DeprecationWarning, match="load_record"):
        assert load_record(path, game=0).seed == 1  # type: ignore[call-arg]


def test_a_game_without_search_pieces_has_no_search_bot() -> None:
    from kanaloa_env.bots import SearchBot, bot_names, make_bot
    from kanaloa_env.bots.search import search_games

    assert search_games()[:2] == ["kanaloa", "kahuna"]
    for name in search_games():
        assert get_game(name).provides("search_pieces") and "search" in bot_names(name)
    assert get_game("kanaloa").search_defaults() == {
        "rollouts": 512,
        "policy": "heuristic",
        "horizon": "round",
    }
    bare = [n for n in ("kuhn",) if n in importlib.import_module("kanaloa_env.games").GAMES]
    if not bare:
        pytest.skip("no registered game without search pieces (tests/conftest.py registers kuhn)")
    g = get_game(bare[0])
    assert not g.provides("search_pieces") and g.search_defaults() == {}
    assert "search" not in bot_names(g)
    with pytest.raises(ValueError, match="unknown bot 'search'"):
        make_bot("search", game=g)
    with pytest.raises(ValueError, match=r"game must be one of \['kanaloa', 'kahuna'"):
        SearchBot(game=g.name)
    assert SearchBot(game=get_game("kahuna"), rollouts=4).game == "kahuna"  # a Game: its name


def test_the_bot_name_ppo_is_net_and_warns() -> None:
    pytest.importorskip("torch")
    import warnings

    from kanaloa_env.bots import bot_names, make_bot

    for game in ("kanaloa", "kahuna"):
        assert "ppo" not in bot_names(game) and "net" in bot_names(game)
        with pytest.warns(DeprecationWarning, match="'ppo' is deprecated.*use 'net'"):
            old = make_bot("ppo", game=game)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            new = make_bot("net", game=game)
        assert old.name == new.name == "net" and old.weights.keys() == new.weights.keys()
