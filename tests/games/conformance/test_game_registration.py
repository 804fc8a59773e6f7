"""Registering a game (`kanaloa_env.games.register_game`): what the protocol requires is
checked at registration, a registered game reaches the env registries, and a game with
only the required pieces already plays through every generic layer."""

from __future__ import annotations

import argparse
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import kuhn
import numpy as np
import pytest
from kuhn import engine as kuhn_engine
from pettingzoo.test import api_test

import kanaloa_env
from kanaloa_env import games
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import bot_names, make_bot, sample_legal
from kanaloa_env.games import GAMES, get_game, register_game
from kanaloa_env.games.protocol import Game
from kanaloa_env.render import render_modes
from kanaloa_env.wrappers import VectorDriver

TESTS = Path(__file__).resolve().parents[2]


def engine_with(*functions: str) -> ModuleType:
    """An engine module holding only `functions` of Kuhn poker's engine (the protocol's
    defaults serve every engine function a game's engine module defines)."""
    module = ModuleType("bare_kuhn_engine")
    for name in functions:
        setattr(module, name, getattr(kuhn_engine, name))
    return module


# What every game needs of its engine; Kuhn's `observe`, `public_view` and `determinize`
# stay out, so that the optional pieces are missing.
BARE_ENGINE = engine_with(
    "init", "init_from_keys", "reset_games", "step_inplace", "step", "validate_actions"
)


class BareKuhn(Game[Any, Any]):
    """Kuhn poker with the required pieces only: attributes, an engine module of the
    required functions and the four required methods; no views, bots, positions,
    invariants or belief sampling."""

    name = "bare_kuhn"
    title = "Kuhn poker, bare"
    num_actions = kuhn_engine.NUM_ACTIONS
    obs_dim = kuhn_engine.OBS_DIM
    player_counts = (2,)
    default_num_players = 2
    config_class = kuhn_engine.Config
    state_class = kuhn_engine.State
    engine = BARE_ENGINE

    def observe(self, state: Any, seat: Any = None, threads: int = 1) -> np.ndarray:
        return kuhn_engine.observe(state, seat)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return kuhn.GAME.observation_bounds()

    def final_ranks(self, state: Any) -> np.ndarray:
        return kuhn.GAME.final_ranks(state)

    def action_name(self, action: int) -> str:
        return kuhn_engine.ACTION_NAMES[action]


class NoObserve(BareKuhn):
    name = "no_observe"
    observe = Game.observe  # type: ignore[assignment]
    final_ranks = Game.final_ranks  # type: ignore[assignment]


class NoEngine(BareKuhn):
    name = "no_engine"
    engine = None  # type: ignore[assignment]


class SeveralTables(BareKuhn):
    name = "several_tables"
    player_counts = (2, 3)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A private copy of the game registry for one test, without the env-id hooks."""
    monkeypatch.setattr(games, "GAMES", dict(GAMES))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))
    monkeypatch.setattr(games, "_hooks", [])
    return games.GAMES


def test_a_missing_required_method_fails_at_registration(registry: dict[str, Any]) -> None:
    with pytest.raises(
        TypeError, match=r"game 'no_observe' \(.*NoObserve\) lacks .*: observe, final_ranks"
    ):
        register_game("no_observe", NoObserve())
    assert "no_observe" not in registry
    with pytest.raises(TypeError, match=r"'no_engine'.*init, init_from_keys, init_game, reset"):
        register_game("no_engine", NoEngine)
    with pytest.raises(TypeError, match="several_tables.*observed_table_sizes"):
        register_game("several_tables", SeveralTables())


def test_a_missing_class_attribute_fails_at_registration(registry: dict[str, Any]) -> None:
    body = {k: v for k, v in vars(BareKuhn).items() if k not in ("num_actions", "__dict__")}
    no_actions = type("NoActions", (Game,), {**body, "name": "no_actions"})
    with pytest.raises(TypeError, match="'no_actions'.*lacks.*num_actions"):
        register_game("no_actions", no_actions())


def test_bad_registrations_name_what_is_wrong(registry: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="lower case"):
        register_game("Bare Kuhn", BareKuhn())
    with pytest.raises(ValueError, match="named 'bare_kuhn'.*registered as 'other'"):
        register_game("other", BareKuhn())
    with pytest.raises(ValueError, match="version 'v0'.*at 'v1'"):
        register_game("bare_kuhn", BareKuhn(), version="v1")
    with pytest.raises(TypeError, match="not a kanaloa_env.games.Game"):
        register_game("bare_kuhn", object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'module:attribute'"):
        register_game("bare_kuhn", "kuhn.GAME")

    class OtherKuhn(BareKuhn):
        name = "kuhn"

    with pytest.raises(ValueError, match="'kuhn' is registered already"):
        register_game("kuhn", OtherKuhn())
    assert "bare_kuhn" not in registry and "other" not in registry


def test_registering_again_returns_the_game(registry: dict[str, Any]) -> None:
    assert register_game("kuhn", "kuhn:GAME") is kuhn.GAME is get_game("kuhn")
    assert register_game("kuhn", kuhn.GAME) is kuhn.GAME
    g = register_game("bare_kuhn", BareKuhn)
    assert registry["bare_kuhn"].target == f"{__name__}:BareKuhn" and get_game("bare_kuhn") is g
    seen: list[str] = []
    games.on_register(seen.append)
    assert {"kanaloa", "kahuna", "kuhn", "bare_kuhn"} <= set(seen)


def test_a_game_with_only_the_required_pieces_plays_everywhere() -> None:
    bare = BareKuhn()
    assert bare.missing_pieces() == []
    assert not any(bare.provides(m) for m in Game.OPTIONAL_METHODS)
    assert render_modes(bare) == [] and bot_names(bare) == ("random",)
    e = kanaloa_env.raw_env(game=bare)
    assert e.metadata["render_modes"] == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(e, num_cycles=100)
    with pytest.raises(ValueError, match="render_mode"):
        kanaloa_env.raw_env(game=bare, render_mode="ansi")
    result = run_tournament(["random", "random"], game=bare, num_games=8, seed=0)
    assert (result.winner >= 0).all()
    d = VectorDriver(8, game=bare, opponents="random", seed=0)
    d.reset()
    r = d.step(sample_legal(d.action_masks(), np.random.default_rng(0)))
    assert r.obs.shape == (8, bare.obs_dim)


def test_the_engine_module_gives_the_engine_methods() -> None:
    """A game provides each call into the engine that its engine module defines, through
    the protocol's defaults, without writing the method; the others say what is missing."""

    class EngineKuhn(BareKuhn):
        name = "engine_kuhn"
        engine = kuhn_engine
        observe = Game.observe  # type: ignore[assignment]

    g, bare = EngineKuhn(), BareKuhn()
    assert g.missing_pieces() == []
    assert [m for m in Game.OPTIONAL_METHODS if g.provides(m)] == ["public_view", "determinize"]
    state = g.init(g.config_class(), 6, seed=3)
    seats = np.maximum(state.current_player, 0).astype(np.int64)
    assert np.array_equal(g.observe(state, seat=seats), kuhn_engine.observe(state, seat=seats))
    assert g.public_view(state, seats).equal(kuhn_engine.public_view(state, seats))
    samples = g.determinize(state, seats, 2, np.random.default_rng(0))
    assert samples.batch_size == 12
    with pytest.raises(
        NotImplementedError, match="Kuhn poker, bare has no to_scenario: its engine"
    ):
        g.to_scenario(state)
    with pytest.raises(NotImplementedError, match="bare_kuhn has no belief sampling"):
        bare.determinize(state, seats, 2, np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match="has no public_view: its engine module"):
        bare.public_view(state, seats)


def test_a_game_class_takes_its_sizes_and_types_from_its_engine_module() -> None:
    class Minimal(Game[Any, Any]):
        name = "minimal_kuhn"
        title = "Kuhn poker, minimal"
        player_counts = (2,)
        default_num_players = 2
        engine = kuhn_engine
        observation_bounds = BareKuhn.observation_bounds
        final_ranks = BareKuhn.final_ranks
        action_name = BareKuhn.action_name

    m = Minimal()
    assert m.missing_pieces() == [] and m.version == "v0"
    assert (m.num_actions, m.obs_dim, m.config_class, m.state_class) == (
        kuhn_engine.NUM_ACTIONS,
        kuhn_engine.OBS_DIM,
        kuhn_engine.Config,
        kuhn_engine.State,
    )
    # What the class sets itself stays; an engine module without the name gives nothing.
    assert type("Own", (Minimal,), {"engine": kuhn_engine, "obs_dim": 7}).obs_dim == 7
    assert not hasattr(type("Bare", (Game,), {"engine": BARE_ENGINE}), "num_actions")


def test_a_game_registered_after_import_gets_both_env_ids() -> None:
    """In a fresh process: `import kanaloa_env`, then register, then make by id."""
    code = (
        "import kanaloa_env, gymnasium, pettingzoo\n"
        "from kanaloa_env.games import register_game\n"
        "assert 'kuhn' not in kanaloa_env.GYM_ENV_IDS\n"
        "register_game('kuhn', 'kuhn:GAME')\n"
        "env = gymnasium.make('kanaloa_env/Kuhn-v0', opponents='heuristic')\n"
        "env.reset(seed=0)\n"
        "aec = pettingzoo.make('aec', 'kanaloa_env/kuhn-v0')\n"
        "aec.reset(seed=0)\n"
        "print(kanaloa_env.GYM_ENV_IDS['kuhn'], aec.unwrapped.game.title)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=TESTS,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "kanaloa_env/Kuhn-v0 Kuhn poker"


def test_the_guide_lists_every_required_and_optional_piece() -> None:
    guide = (TESTS.parent / "docs" / "adding-a-game.md").read_text()
    for piece in (*Game.REQUIRED_ATTRIBUTES, *Game.REQUIRED_METHODS, *Game.OPTIONAL_METHODS):
        assert f"`{piece}`" in guide, f"docs/adding-a-game.md does not mention {piece}"


def leaky_kuhn(field: str) -> Game[Any, Any]:
    """Kuhn poker whose public view keeps the state's `field` (the key, or the cards)."""

    class Leaky(type(kuhn.GAME)):  # type: ignore[misc]
        name = f"leaky_{field}_kuhn"

        def public_view(self, state: Any, seats: np.ndarray) -> Any:
            view = super().public_view(state, seats)
            getattr(view, field)[:] = getattr(state, field)
            return view

    return Leaky()


def test_the_conformance_suite_catches_a_public_view_that_shows_too_much() -> None:
    from test_conformance import test_a_public_view_hides_what_the_seat_may_not_know as check

    check(kuhn.GAME)
    with pytest.raises(AssertionError, match="public_view must blank the key"):
        check(leaky_kuhn("key"))
    with pytest.raises(AssertionError, match="cards: the public view shows"):
        check(leaky_kuhn("cards"))


def test_an_unknown_bot_says_which_piece_the_game_lacks() -> None:
    bare = BareKuhn()
    with pytest.raises(ValueError, match=r"Kuhn poker, bare has no `search_pieces`, .*search bot"):
        make_bot("search", game=bare)
    with pytest.raises(ValueError, match=r"has no `bot_factories`, .*heuristic.*adding-a-game"):
        make_bot("heuristic", game=bare)
    with pytest.raises(ValueError, match=r"Kuhn poker has no `search_pieces`"):
        make_bot("search", game="kuhn")
    with pytest.raises(ValueError, match=r"unknown bot 'wizard' for Kuhn poker: use one of"):
        make_bot("wizard", game="kuhn")


def test_the_config_flags_make_the_command_line_options() -> None:
    """`Game.config_flags` give a game's flags and the config overrides they ask for:
    values (converted where the flag says), switches, nothing for a flag not given."""
    for game, argv, want in [
        (kuhn.GAME, ["--bet", "2"], {"bet": 2}),
        (
            get_game("kahuna"),
            ["--first-player", "1", "--no-early-end"],
            {"first_player": 1, "early_end": False},
        ),
        (get_game("kahuna"), ["--first-player", "random"], {"first_player": "random"}),
        (
            get_game("kanaloa"),
            ["--announce", "--max-rounds", "3"],
            {"nil_announcement": True, "max_rounds": 3},
        ),
        (BareKuhn(), [], {}),
    ]:
        parser = argparse.ArgumentParser()
        game.add_cli_options(parser)
        assert game.cli_overrides(parser.parse_args(argv)) == want
        assert game.make_config(want)  # the overrides make a valid config
