"""SearchBot: legal play in every phase, batching, budgets, arguments, determinism, tactics."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
from core.kanaloa.kit import ROUTE_4, load, make

from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import SearchBot, bot_names, make_bot, public_view, search
from kanaloa_env.bots.search import evaluate_actions
from kanaloa_env.core.kanaloa import Config, Phase, State, init, step
from kanaloa_env.core.kanaloa.constants import card_from_name
from kanaloa_env.games.kanaloa.heuristic import HeuristicBot
from kanaloa_env.games.kanaloa.search import KanaloaSearch, decision_keys, win_chances


def ask(bot: SearchBot, state: State, idx: np.ndarray, seed: int = 0) -> np.ndarray:
    """The bot's actions in games `idx`, called the way the arena calls it."""
    sub = state.take(idx)
    seats = sub.current_player.astype(np.int64)
    return bot.act(
        None,
        sub.legal.copy(),
        np.random.default_rng(seed),
        view=public_view(sub, seats),
        seats=seats,
    )


def positions(config: Config, games: int, seed: int, every: int) -> list[State]:
    """Live games every `every` steps of mixed random/heuristic play, to the end."""
    state = init(config, games, seed=seed)
    rng = np.random.default_rng(seed)
    heuristic = HeuristicBot()
    out = []
    t = 0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        if t % every == 0:
            out.append(sub)
        actions = np.zeros(state.batch_size, dtype=np.int64)
        seats = sub.current_player.astype(np.int64)
        guided = heuristic.act(None, sub.legal, rng, view=sub, seats=seats)
        noise = np.argmax(rng.random(sub.legal.shape) * sub.legal, axis=1)
        actions[live] = np.where(rng.random(len(live)) < 0.5, guided, noise)
        state = step(state, actions)
        t += 1
    return out


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_plays_legal_actions_in_every_phase(num_players: int) -> None:
    """Asked at positions of every phase (the announce variant, optional dolphin),
    with the round horizon and the game horizon, it answers legal actions."""
    config = Config(num_players=num_players, nil_announcement=True)
    real = State.concatenate(positions(config, games=6, seed=num_players, every=3))
    assert set(real.phase.tolist()) == {
        Phase.ANNOUNCE,
        Phase.PLAY,
        Phase.REMOVE_OCTOPUS,
        Phase.REMOVE_ROUND_END,
        Phase.DOLPHIN,
    }
    for horizon, rollouts in (("round", 6), ("game", 2)):
        bot = SearchBot(rollouts=rollouts, horizon=horizon)
        actions = ask(bot, real, np.arange(real.batch_size))
        assert real.legal[np.arange(real.batch_size), actions].all()
        assert bot.stats.decisions == real.batch_size


def test_random_rollout_policy_plays_legal_actions() -> None:
    real = State.concatenate(positions(Config(num_players=4), games=4, seed=1, every=5))
    actions = ask(SearchBot(rollouts=8, policy="random"), real, np.arange(real.batch_size))
    assert real.legal[np.arange(real.batch_size), actions].all()


@pytest.mark.parametrize("selection", ["uniform", "halving"])
def test_a_batch_acts_as_one_call_per_decision(selection: str) -> None:
    """The same generator state: every decision of a batch gets the action it gets alone."""
    real = State.concatenate(positions(Config(num_players=4), games=3, seed=2, every=7))
    idx = np.arange(real.batch_size)
    bot = SearchBot(rollouts=12, selection=selection)
    batch = ask(bot, real, idx, seed=5)
    alone = [int(ask(bot, real, idx[i : i + 1], seed=5)[0]) for i in idx]
    assert batch.tolist() == alone


def test_searching_in_parts_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decisions split into engine batches of at most MAX_ROWS games get the same actions."""
    real = State.concatenate(positions(Config(num_players=4), games=3, seed=2, every=7))
    idx = np.arange(real.batch_size)
    whole = SearchBot(rollouts=12, selection="halving")
    expected = ask(whole, real, idx, seed=5)
    monkeypatch.setattr(search, "MAX_ROWS", 20)
    parts = SearchBot(rollouts=12, selection="halving")
    assert ask(parts, real, idx, seed=5).tolist() == expected.tolist()
    assert parts.stats.rollouts == whole.stats.rollouts


def test_deterministic_for_a_seed() -> None:
    real = State.concatenate(positions(Config(num_players=5), games=2, seed=3, every=9))
    idx = np.arange(real.batch_size)
    a = ask(SearchBot(rollouts=10), real, idx, seed=7)
    b = ask(SearchBot(rollouts=10), real, idx, seed=7)
    assert a.tolist() == b.tolist()
    bots = ["heuristic", "heuristic"]
    short = {"max_rounds": 1}  # one round each (truncated): enough to compare
    one = run_tournament([SearchBot(rollouts=4), *bots], 3, 3, seed=4, config=short)
    two = run_tournament([SearchBot(rollouts=4), *bots], 3, 3, seed=4, config=short)
    assert one.winner.tolist() == two.winner.tolist()
    assert one.decisions.tolist() == two.decisions.tolist()


def test_decision_keys_read_only_what_the_seat_knows() -> None:
    """Another hand or the deal key does not change a decision's key; its own hand does."""
    real = init(Config(num_players=4), 3, seed=6)
    seats = real.current_player.astype(np.int64)
    view = public_view(real, seats)
    base = np.uint64(99)
    np.testing.assert_array_equal(
        decision_keys(real, seats, base), decision_keys(view, seats, base)
    )
    other = view.copy()
    other.hands[np.arange(3), seats] ^= np.uint64(1) << np.uint64(52)
    assert (decision_keys(other, seats, base) != decision_keys(view, seats, base)).all()


# ---- budgets ----------------------------------------------------------------------


def test_rollout_budget_is_split_over_the_legal_actions() -> None:
    """Uniform selection: max(1, rollouts // legal) samples per decision, each tried on
    every legal action; decisions with one legal action are not searched."""
    real = State.concatenate(positions(Config(num_players=4), games=4, seed=8, every=4))
    bot = SearchBot(rollouts=20, selection="uniform")
    ask(bot, real, np.arange(real.batch_size))
    k = real.legal.sum(axis=1)
    searched = k > 1
    assert bot.stats.searched == int(searched.sum())
    assert bot.stats.rollouts == int((np.maximum(1, 20 // k) * k)[searched].sum())


def test_halving_spends_the_budget_in_rounds_on_the_better_half() -> None:
    """Sequential halving: ceil(log2 k) rounds of rollouts // rounds games each, over
    the actions still in the running (k, then ceil(k / 2), ...)."""
    real = State.concatenate(positions(Config(num_players=4), games=4, seed=8, every=4))
    bot = SearchBot(rollouts=48, selection="halving")
    actions = ask(bot, real, np.arange(real.batch_size))
    assert real.legal[np.arange(real.batch_size), actions].all()
    expected = 0
    for k in real.legal.sum(axis=1):
        rounds = int(np.ceil(np.log2(k))) if k > 1 else 0
        alive = int(k)
        for _ in range(rounds):
            expected += max(1, 48 // (rounds * alive)) * alive
            alive = (alive + 1) // 2
    assert bot.stats.rollouts == expected


def test_time_budget_stops_after_the_first_round_when_time_is_short() -> None:
    """With 1 ms per decision every decision gets one round of `chunk` samples; with a
    generous time and a rollout cap, the cap stops it."""
    real = State.concatenate(positions(Config(num_players=4), games=3, seed=9, every=6))
    k = real.legal.sum(axis=1)
    searched = k > 1
    bot = SearchBot(rollouts=None, time_ms=0.001, chunk=2)
    ask(bot, real, np.arange(real.batch_size))
    assert bot.stats.rollouts == int((2 * k)[searched].sum())
    capped = SearchBot(rollouts=8, time_ms=60_000.0, chunk=1)
    start = time.perf_counter()
    ask(capped, real, np.arange(real.batch_size))
    assert time.perf_counter() - start < 60
    assert capped.stats.rollouts == int((np.maximum(1, 8 // k) * k)[searched].sum())


# ---- arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rollouts": 0}, ValueError, "rollouts must be >= 1"),
        ({"rollouts": 2.5}, TypeError, "rollouts must be an int"),
        ({"rollouts": True}, TypeError, "rollouts must be an int"),
        ({"rollouts": None}, ValueError, "give a budget"),
        ({"time_ms": 0}, ValueError, "time_ms must be a finite number > 0"),
        ({"time_ms": float("nan")}, ValueError, "time_ms must be a finite number > 0"),
        ({"time_ms": "50"}, TypeError, "time_ms must be a number"),
        ({"policy": "greedy"}, ValueError, "policy must be one of"),
        ({"horizon": "trick"}, ValueError, "horizon must be one of"),
        ({"selection": "ucb"}, ValueError, "selection must be one of"),
        ({"chunk": 0}, ValueError, "chunk must be >= 1"),
    ],
)
def test_bad_arguments_are_rejected(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        SearchBot(**kwargs)


def test_bad_calls_are_rejected() -> None:
    real = init(Config(num_players=4), 2, seed=0)
    seats = real.current_player.astype(np.int64)
    view = public_view(real, seats)
    bot = SearchBot(rollouts=4)
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="needs view="):
        bot.act(None, real.legal, rng)
    with pytest.raises(ValueError, match="player to act"):
        bot.act(None, real.legal, rng, view=view, seats=(seats + 1) % 4)
    with pytest.raises(TypeError, match="seats must be integers"):
        bot.act(None, real.legal, rng, view=view, seats=seats.astype(float))
    with pytest.raises(ValueError, match="disagree"):
        bot.act(None, real.legal[:1], rng, view=view, seats=seats)
    illegal = ~real.legal
    with pytest.raises(ValueError, match="legal mask does not"):
        bot.act(None, illegal, rng, view=view, seats=seats)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        bot.act(None, real.legal, 0, view=view, seats=seats)


def test_registered_as_search() -> None:
    assert "search" in bot_names() and "search" in bot_names("kahuna")
    bot = make_bot("search")
    assert isinstance(bot, SearchBot) and bot.name == "search" and bot.game == "kanaloa"
    assert make_bot("search", game="kahuna").game == "kahuna"


def test_registered_bot_plays_whole_games_at_a_small_budget() -> None:
    """The CI-speed check of what the arena runs as `search`: the registered bot, its
    budget cut to 8 rollouts, plays whole 4-player games against the other bots."""
    bot = dataclasses.replace(make_bot("search"), rollouts=8)
    assert bot.rollouts == 8 and bot.selection == make_bot("search").selection
    result = run_tournament([bot, "heuristic", "random", "random"], 4, 4, seed=5)
    row = next(s for s in result.stats if s.name == "search")
    assert row.games == 4 and result.num_games == 4
    assert (result.winner >= 0).all()  # every game played to its end
    # Whole games: dozens of turns each, about a quarter of them the search bot's.
    assert 4 * 15 < bot.stats.decisions < result.decisions.sum() / 2
    assert 0 < bot.stats.searched <= bot.stats.decisions
    # Every legal action tried at least once; far below the default's 512 a search.
    assert 2 * bot.stats.searched <= bot.stats.rollouts < 64 * bot.stats.searched


# ---- tactics and values ------------------------------------------------------------


def test_takes_the_trick_that_wins_the_game() -> None:
    """Player 3 stands a lap ahead of the last boat: taking this trick with its
    Kanaloa (it plays last) laps the last boat and wins (R9.2). Every rollout of the
    Kanaloa is a win; every other card leaves the game open."""
    hand = [
        "red-2",
        "kanaloa",
        "blue-10",
        "blue-11",
        "green-10",
        "green-11",
        "turquoise-10",
        "turquoise-11",
    ]
    others = [
        ["red-6", "blue-1", "blue-2", "green-1", "green-2", "turquoise-1", "turquoise-2"],
        ["red-7", "blue-3", "blue-4", "green-3", "green-4", "turquoise-3", "turquoise-4"],
        ["red-8", "blue-5", "blue-6", "green-5", "green-6", "turquoise-5", "turquoise-6"],
    ]
    sc = make(
        route=ROUTE_4, boats=[1, 3, 4, 0], hands=[*others, hand], trick=["red-3", "red-4", "red-5"]
    )
    sc["boats"] = [
        {"field": 1, "progress": 1},
        {"field": 3, "progress": 3},
        {"field": 4, "progress": 4},
        {"field": 0, "progress": 22},
    ]
    state = load(sc)
    assert int(state.current_player[0]) == 3
    assert int(ask(SearchBot(rollouts=40), state, np.array([0]))[0]) == card_from_name("kanaloa")
    seats = np.array([3])
    values, used = evaluate_actions(
        KanaloaSearch(),
        public_view(state, seats),
        seats,
        state.legal.copy(),
        np.array([10]),
        np.array([123], dtype=np.uint64),
    )
    legal = np.flatnonzero(state.legal[0])
    assert values[0, card_from_name("kanaloa")] == 1.0
    others_best = max(values[0, a] for a in legal if a != card_from_name("kanaloa"))
    assert others_best < 1.0
    assert np.isnan(values[0, ~state.legal[0]]).all()
    assert used.tolist() == [10 * len(legal)]


def test_win_chances() -> None:
    """A distribution over the seats; equal boats get equal chances; a boat ahead of
    the others has the best chance."""
    state = init(Config(num_players=4), 1, seed=0)
    np.testing.assert_allclose(win_chances(state), 0.25)
    ahead = state.copy()
    ahead.progress[0] = [6, 2, 1, 0]
    w = win_chances(ahead)[0]
    assert w.sum() == pytest.approx(1.0)
    assert w[0] > w[1] > w[3]


def test_a_game_without_search_pieces_has_no_search_bot() -> None:
    from kanaloa_env.bots.search import search_games
    from kanaloa_env.games import GAMES, get_game

    assert search_games()[:2] == ["kanaloa", "kahuna"]
    for name in search_games():
        assert get_game(name).provides("search_pieces") and "search" in bot_names(name)
    assert get_game("kanaloa").search_defaults() == {
        "rollouts": 512,
        "policy": "heuristic",
        "horizon": "round",
    }
    bare = [n for n in ("kuhn",) if n in GAMES]
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
