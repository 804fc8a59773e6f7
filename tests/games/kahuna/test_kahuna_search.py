"""SearchBot playing Kahuna (`SearchBot(game="kahuna")`, pieces in
`games.kahuna.search`): legal play in every phase, batching, budgets, determinism,
the value, registration, and a position where the right move is obvious."""

from __future__ import annotations

import numpy as np
import pytest
from kahuna_kit import ACTION, load, make

from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import SearchBot, bot_names, make_bot
from kanaloa_env.bots.search import evaluate_actions
from kanaloa_env.core.kahuna import Config, Phase, State, init, public_view, step
from kanaloa_env.core.kahuna.belief import determinize
from kanaloa_env.core.kanaloa import Config as KanaloaConfig
from kanaloa_env.core.kanaloa import init as kanaloa_init
from kanaloa_env.games.kahuna.heuristic import HeuristicBot
from kanaloa_env.games.kahuna.search import (
    SEARCH_DEFAULTS,
    KahunaSearch,
    decision_keys,
    win_chance,
)

NO_OBS = np.zeros((0, 0), dtype=np.float32)  # state-reading bots read no observations


def positions(games: int, seed: int, every: int) -> State:
    """Live games every `every` steps of mixed heuristic/random play to the end, and
    every step of the final turns."""
    state = init(Config(), games, seed=seed)
    rng = np.random.default_rng(seed)
    bot = HeuristicBot()
    out = []
    t = 0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        if t % every == 0:
            out.append(sub)
        else:  # the final turns are short: keep all of them
            out.append(sub.take(np.flatnonzero(sub.final_turns_left > 0)))
        smart = bot.act(NO_OBS, sub.legal, rng, view=sub, seats=sub.current_player.astype(np.int64))
        rand = np.argmax(rng.random(sub.legal.shape) * sub.legal, axis=1)
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = np.where(rng.random(len(live)) < 0.7, smart, rand)
        state = step(state, actions)
        t += 1
    return State.concatenate(out)


@pytest.fixture(scope="module")
def real() -> State:
    return positions(games=4, seed=1, every=9)


def ask(bot: SearchBot, state: State, idx: np.ndarray | None = None, seed: int = 0) -> np.ndarray:
    """The bot's actions in games `idx`, called the way the arena calls it."""
    sub = state if idx is None else state.take(idx)
    seats = sub.current_player.astype(np.int64)
    return bot.act(
        NO_OBS,
        sub.legal.copy(),
        np.random.default_rng(seed),
        view=public_view(sub, seats),
        seats=seats,
    )


def test_plays_legal_actions_in_every_phase(real: State) -> None:
    """Play, draw and final turns, every round; both policies and both horizons."""
    assert {int(Phase.PLAY), int(Phase.DRAW)} <= set(real.phase.tolist())
    assert (real.final_turns_left > 0).any() and (real.num_scorings == 2).any()
    rows = np.arange(real.batch_size)
    for policy, horizon, rollouts in (
        ("random", "round", 8),
        ("random", "game", 4),
        ("heuristic", "round", 3),
    ):
        bot = SearchBot(game="kahuna", rollouts=rollouts, policy=policy, horizon=horizon)
        actions = ask(bot, real)
        assert real.legal[rows, actions].all(), (policy, horizon)
        assert bot.stats.searched == int((real.legal.sum(axis=1) > 1).sum())


@pytest.mark.parametrize("selection", ["uniform", "halving"])
def test_a_batch_acts_as_one_call_per_decision(real: State, selection: str) -> None:
    idx = np.arange(0, real.batch_size, max(1, real.batch_size // 6))[:6]
    bot = SearchBot(game="kahuna", rollouts=12, selection=selection, policy="random")
    together = ask(bot, real, idx, seed=3)
    alone = [int(ask(bot, real, idx[i : i + 1], seed=3)[0]) for i in range(len(idx))]
    assert together.tolist() == alone


def test_deterministic_for_a_seed(real: State) -> None:
    idx = np.arange(min(real.batch_size, 10))
    a = ask(SearchBot(game="kahuna", rollouts=10, policy="random"), real, idx, seed=7)
    b = ask(SearchBot(game="kahuna", rollouts=10, policy="random"), real, idx, seed=7)
    c = ask(SearchBot(game="kahuna", rollouts=10, policy="random"), real, idx, seed=8)
    assert np.array_equal(a, b)
    assert real.legal[idx, c].all()
    short = {"max_turns": 6}
    one, two = (
        run_tournament(
            [SearchBot(game="kahuna", rollouts=4, policy="random"), "heuristic"],
            2,
            2,
            seed=4,
            config=short,
            game="kahuna",
        )
        for _ in range(2)
    )
    assert (
        np.array_equal(one.winner, two.winner) and one.decisions.tolist() == two.decisions.tolist()
    )


def test_decision_keys_read_only_what_the_seat_knows(real: State) -> None:
    """The real state, its public view and a state with the hidden cards redrawn give
    the same keys; a different base gives different ones."""
    seats = real.current_player.astype(np.intp)
    base = np.uint64(12345)
    other = determinize(real, seats, 1, np.random.default_rng(0))
    a = decision_keys(real, seats, base)
    assert np.array_equal(a, decision_keys(public_view(real, seats), seats, base))
    assert np.array_equal(a, decision_keys(other, seats, base))
    assert not np.array_equal(a, decision_keys(real, seats, np.uint64(1)))


# ---- budgets ----------------------------------------------------------------------


def test_rollout_budget_is_split_over_the_legal_actions(real: State) -> None:
    """Uniform selection: max(1, rollouts // legal) samples per decision, each tried on
    every legal action; decisions with one legal action are not searched."""
    bot = SearchBot(game="kahuna", rollouts=20, selection="uniform", policy="random")
    ask(bot, real)
    k = real.legal.sum(axis=1)
    searched = k > 1
    assert bot.stats.searched == int(searched.sum())
    assert bot.stats.rollouts == int((np.maximum(1, 20 // k) * k)[searched].sum())


def test_halving_spends_the_budget_in_rounds(real: State) -> None:
    bot = SearchBot(game="kahuna", rollouts=48, selection="halving", policy="random")
    ask(bot, real)
    expected = 0
    for k in real.legal.sum(axis=1):
        rounds = int(np.ceil(np.log2(k))) if k > 1 else 0
        alive = int(k)
        for _ in range(rounds):
            expected += max(1, 48 // (rounds * alive)) * alive
            alive = (alive + 1) // 2
    assert bot.stats.rollouts == expected


def test_time_budget_stops_after_the_first_round_when_time_is_short(real: State) -> None:
    k = real.legal.sum(axis=1)
    bot = SearchBot(game="kahuna", rollouts=None, time_ms=0.001, chunk=2, policy="random")
    ask(bot, real)
    assert bot.stats.rollouts == int((2 * k)[k > 1].sum())


# ---- the value, the pieces, registration --------------------------------------------------


def test_win_chance_is_a_probability_that_sums_to_one_over_the_seats(real: State) -> None:
    a = win_chance(real, np.zeros(real.batch_size, dtype=np.intp))
    b = win_chance(real, np.ones(real.batch_size, dtype=np.intp))
    assert ((a > 0) & (a < 1)).all()
    assert np.allclose(a + b, 1.0)


def test_value_of_finished_and_stopped_games() -> None:
    """A won game is worth 1 to the winner and 0 to the loser, a draw 0.5 each; the
    round horizon stops at the next scoring, the game horizon only at the end."""
    state = init(Config(), 64, seed=2)
    pieces = KahunaSearch(rollout_policy="random")
    marker = pieces.marker(state)
    rng = np.random.default_rng(0)
    stopped_at_scoring = False
    while not state.done.all():
        stop = pieces.stopped(state, marker)
        assert np.array_equal(stop, state.done | (state.num_scorings > 0))
        assert np.array_equal(KahunaSearch(horizon="game").stopped(state, marker), state.done)
        stopped_at_scoring |= bool((stop & ~state.done).any())
        state = step(state, np.argmax(rng.random(state.legal.shape) * state.legal, axis=1))
    assert stopped_at_scoring
    for seat in (0, 1):
        v = pieces.value(state, np.full(64, seat))
        want = np.where(state.winner < 0, 0.5, (state.winner == seat).astype(float))
        assert np.array_equal(v, want)


def test_registered_as_search_for_kahuna() -> None:
    assert "search" in bot_names("kahuna")
    bot = make_bot("search", game="kahuna")
    assert isinstance(bot, SearchBot) and bot.game == "kahuna"
    for name, value in SEARCH_DEFAULTS.items():
        assert getattr(bot, name) == value
    result = run_tournament(
        ["search", "random"], 2, 2, seed=0, config={"max_turns": 8}, game="kahuna"
    )
    assert result.num_games == 2
    with pytest.raises(ValueError, match="plays kahuna, not kanaloa"):
        make_bot(SearchBot(game="kahuna"), game="kanaloa")
    with pytest.raises(ValueError, match="game must be one of"):
        SearchBot(game="chess")


def test_bad_calls_are_rejected(real: State) -> None:
    bot = SearchBot(game="kahuna", rollouts=4)
    sub = real.take([0])
    seats = sub.current_player.astype(np.int64)
    view = public_view(sub, seats)
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="needs view"):
        bot.act(NO_OBS, sub.legal, rng)
    k = kanaloa_init(KanaloaConfig(), 1, seed=0)
    with pytest.raises(TypeError, match="view must be a Kahuna State"):
        bot.act(NO_OBS, sub.legal, rng, view=k, seats=seats)
    with pytest.raises(ValueError, match="masks must be a"):
        bot.act(NO_OBS, sub.legal[:, :66], rng, view=view, seats=seats)
    with pytest.raises(ValueError, match="player to act"):
        bot.act(NO_OBS, sub.legal, rng, view=view, seats=1 - seats)
    with pytest.raises(ValueError, match="at least one legal action"):
        bot.act(NO_OBS, np.zeros_like(sub.legal), rng, view=view, seats=seats)


# ---- tactics ------------------------------------------------------------------------


def last_turn_decides() -> State:
    """The game's last turn (K7.4): player 0 trails 1:2 in points, stones are 2:2, and
    it holds one card, HUNA. Only placing DUDA-HUNA (its third bridge at DUDA, K5.2) wins: 3:2 stones give it
    the third scoring's point, 2:2 in total, and the tie goes to the third scoring
    (K8.1); anything else leaves 0 points and loses."""
    p0 = ["ALOA-BARI", "ALOA-DUDA", "BARI-DUDA", "HUNA-LALE", "IFFI-LALE"]
    p1 = ["BARI-COCO", "COCO-FAAA", "COCO-GOLA", "FAAA-GOLA", "GOLA-JOJO"]
    return load(
        make(
            bridges=(p0, p1),
            hands=(["HUNA"], ["ELAI", "JOJO", "KAHU", "KAHU"]),
            face_up=[None, None, None],
            pile=[],
            scorings=[[1, 0], [0, 2]],
            final_turns_left=1,
        )
    )


def test_finds_the_only_winning_move_of_the_last_turn() -> None:
    state = last_turn_decides()
    win = ACTION["place DUDA-HUNA with HUNA"]
    assert state.legal[0, win] and state.legal[0].sum() >= 5
    seats = np.array([0])
    values, _ = evaluate_actions(
        KahunaSearch(),
        public_view(state, seats),
        seats,
        state.legal.copy(),
        np.array([4]),
        np.array([99], dtype=np.uint64),
    )
    legal = np.flatnonzero(state.legal[0])
    assert values[0, win] == 1.0
    assert (values[0, legal[legal != win]] == 0.0).all()
    assert int(ask(SearchBot(game="kahuna", rollouts=64), state)[0]) == win
