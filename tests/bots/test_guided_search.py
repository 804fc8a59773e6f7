"""The guided search (`make_bot("guided")`): a network picks the actions the search spends
its rollouts on, and its choice breaks ties."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.bots import make_bot, public_view
from kanaloa_env.bots.search import SearchBot, guided_search
from kanaloa_env.games import get_game

pytest.importorskip("torch")


def positions(game: str, games: int = 48, seed: int = 2, steps: int = 7) -> object:
    """Live games of `game` after `steps` random moves each (a batch)."""
    g = get_game(game)
    state = g.init(g.make_config(None, None), games, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        live = state.legal.any(axis=1)
        acts = np.zeros(state.batch_size, np.int64)
        acts[live] = np.argmax(rng.random(state.legal[live].shape) * state.legal[live], axis=1)
        state = g.step(state, acts)
    return state.take(np.flatnonzero(state.legal.any(axis=1)))


def ask(bot: SearchBot, game: str, state: object, seed: int = 0) -> np.ndarray:
    g = get_game(game)
    seats = state.current_player.astype(np.int64)
    return bot.act(
        g.observe(state),
        state.legal.copy(),
        np.random.default_rng(seed),
        view=g.public_view(state, seats),
        seats=seats,
    )


class FixedGuide:
    """A guide with given logits per action, the same for every decision."""

    def __init__(self, game: str, scores: np.ndarray) -> None:
        self.game, self.scores, self.calls = game, scores.astype(np.float32), 0

    def logits(self, observations: np.ndarray) -> np.ndarray:
        self.calls += 1
        return np.tile(self.scores, (len(observations), 1))


@pytest.mark.parametrize("game", ["kanaloa", "kahuna"])
def test_top_one_plays_the_networks_choice_without_searching(game: str) -> None:
    state = positions(game)
    bot = guided_search(game, rollouts=64, guide_top=1)
    net = make_bot("net", game)
    got = ask(bot, game, state)
    want = net.act(get_game(game).observe(state), state.legal, np.random.default_rng(0))
    np.testing.assert_array_equal(got, want)
    assert bot.stats.rollouts == 0 and bot.stats.searched == 0


@pytest.mark.parametrize("game", ["kanaloa", "kahuna"])
def test_only_the_guides_top_actions_are_searched(game: str) -> None:
    g = get_game(game)
    state = positions(game)
    scores = np.random.default_rng(4).random(g.num_actions)
    guide = FixedGuide(game, scores)
    bot = SearchBot(rollouts=48, game=game, guide=guide, guide_top=2, **_defaults(game))
    got = ask(bot, game, state)
    for row, a in zip(state.legal, got, strict=True):
        legal = np.flatnonzero(row)
        top = legal[np.argsort(-scores[legal], kind="stable")[:2]]
        assert a in top
    assert guide.calls == 1
    # Two actions a decision: one round of 48 // 2 samples each.
    searched = int((state.legal.sum(axis=1) > 1).sum())
    assert bot.stats.rollouts == searched * 48


def _defaults(game: str) -> dict:
    d = dict(get_game(game).search_defaults())
    d.pop("rollouts", None)
    return d


def test_registered_as_guided_for_every_game_with_search_and_a_network() -> None:
    for game in ("kanaloa", "kahuna"):
        bot = make_bot("guided", game)
        assert isinstance(bot, SearchBot) and bot.name == "guided" and bot.game == game
        assert bot.uses_observations and bot.guide is not None
        assert bot.rollouts == get_game(game).search_defaults().get("rollouts", 512)
        assert not SearchBot(rollouts=8, game=game).uses_observations


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"guide": object()}, TypeError, "guide must have logits"),
        ({"guide": FixedGuide("kahuna", np.zeros(153))}, ValueError, "the guide plays kahuna"),
        ({"guide_top": 0}, ValueError, "guide_top must be >= 1"),
        ({"guide_top": 1.5}, TypeError, "guide_top must be an int"),
    ],
)
def test_bad_guides_are_named(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        SearchBot(rollouts=8, **kwargs)


def test_a_guide_of_the_wrong_shape_is_named() -> None:
    state = positions("kanaloa", games=4)
    bot = SearchBot(rollouts=8, guide=FixedGuide("kanaloa", np.zeros(5)))
    with pytest.raises(ValueError, match="the guide gave logits of shape"):
        ask(bot, "kanaloa", state)


def test_deterministic_for_a_seed() -> None:
    state = positions("kanaloa", games=8)
    seats = state.current_player.astype(np.int64)
    bot = guided_search("kanaloa", rollouts=32)
    a = ask(bot, "kanaloa", state, seed=5)
    view = public_view(state, seats)
    b = bot.act(
        get_game("kanaloa").observe(state),
        state.legal.copy(),
        np.random.default_rng(5),
        view=view,
        seats=seats,
    )
    np.testing.assert_array_equal(a, b)
