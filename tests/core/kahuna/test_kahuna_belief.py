"""Kahuna belief sampling (`core.kahuna.belief`): consistency with what the seat knows,
exact uniformity, the remembered cards, batching, determinism, bad input."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from kahuna_kit import load, make

from kanaloa_env.core.kahuna import (
    Config,
    State,
    check_invariants,
    init,
    observe,
    public_view,
    step,
)
from kanaloa_env.core.kahuna import cards as kcards
from kanaloa_env.core.kahuna.belief import (
    determinize,
    determinize_from_keys,
    hidden_cards,
    hidden_counts,
)
from kanaloa_env.core.kahuna.constants import ISLAND_NAMES, Phase
from kanaloa_env.games import get_game
from kanaloa_env.games.kahuna.heuristic import HeuristicBot

# The fields a sample must keep from the real game: everything public (K12).
PUBLIC = (
    "phase",
    "current_player",
    "starting_player",
    "turn",
    "final_turns_left",
    "handed_back",
    "last_turn_skipped",
    "bridges",
    "stones",
    "known",
    "face_up",
    "pile_size",
    "discard_up",
    "num_scorings",
    "scorings",
    "winner",
    "terminated",
    "truncated",
)


NO_OBS = np.zeros((0, 0), dtype=np.float32)  # the heuristic reads no observations


def positions(games: int, seed: int, every: int = 1) -> State:
    """Live games every `every` steps of play to the end, half the moves random, half
    the heuristic's (so that claims, removals, hand-backs, scorings and final turns
    all occur), as one batch."""
    state = init(Config(), games, seed=seed)
    rng = np.random.default_rng(seed)
    bot = HeuristicBot()
    out = []
    t = 0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        if t % every == 0:
            out.append(state.take(live))
        sub = state.take(live)
        smart = bot.act(NO_OBS, sub.legal, rng, view=sub, seats=sub.current_player.astype(np.int64))
        rand = np.argmax(rng.random(sub.legal.shape) * sub.legal, axis=1)
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = np.where(rng.random(len(live)) < 0.5, smart, rand)
        state = step(state, actions)
        t += 1
    return State.concatenate(out)


@pytest.fixture(scope="module")
def many() -> State:
    return positions(games=12, seed=3, every=2)


def check_samples(real: State, seats: np.ndarray, samples: State, n: int) -> None:
    """Every sample of game i agrees with all that seats[i] knows in game i."""
    game = np.repeat(np.arange(real.batch_size), n)
    seat = seats[game]
    rows = np.arange(samples.batch_size)
    check_invariants(samples)
    for name in PUBLIC:
        assert np.array_equal(getattr(samples, name), getattr(real, name)[game]), name
    assert np.array_equal(samples.hands[rows, seat], real.hands[game, seat])
    assert np.array_equal(samples.discard_down[rows, seat], real.discard_down[game, seat])
    # Hand sizes and face-down counts of the opponent are kept.
    for name in ("hands", "discard_down"):
        got = kcards.size(getattr(samples, name)[rows, 1 - seat])
        want = kcards.size(getattr(real, name)[game, 1 - seat])
        assert np.array_equal(got, want), name
    # The remembered opponent cards are always in its hand (K6.7).
    assert kcards.contains(samples.hands[rows, 1 - seat], real.known[game, 1 - seat]).all()
    assert np.array_equal(observe(samples, seat=seat), observe(real, seat=seats)[game])


@pytest.mark.parametrize("source", ["state", "view"])
def test_samples_agree_with_what_the_seat_knows(many: State, source: str) -> None:
    """From the real state or the public view, for the player to act and the other
    seat: every sample passes the invariant checker and the seat's observation of it
    is the real one."""
    phases = set(many.phase.tolist())
    assert {int(Phase.PLAY), int(Phase.DRAW)} <= phases
    assert (many.final_turns_left > 0).any() and (many.num_scorings == 2).any()
    for seats in (many.current_player.astype(np.int64), 1 - many.current_player.astype(np.int64)):
        src = many if source == "state" else public_view(many, seats)
        samples = determinize(src, seats, 3, np.random.default_rng(1))
        assert samples.batch_size == 3 * many.batch_size
        check_samples(many, seats, samples, 3)


def test_samples_do_not_read_the_hidden_cards(many: State) -> None:
    """The same keys give the same samples from the real state, its public view, and
    another state that differs only in what the seat cannot see."""
    seats = many.current_player.astype(np.int64)
    keys = np.arange(many.batch_size, dtype=np.uint64) * np.uint64(7919) + np.uint64(5)
    a = determinize_from_keys(many, seats, 4, keys)
    b = determinize_from_keys(public_view(many, seats), seats, 4, keys)
    other = determinize(many, seats, 1, np.random.default_rng(9))  # hidden part redrawn
    assert not np.array_equal(other.pile, many.pile)
    c = determinize_from_keys(other, seats, 4, keys)
    assert a.equal(b) and a.equal(c)


def test_the_hidden_part_varies_and_the_keys_are_fresh(many: State) -> None:
    seats = many.current_player.astype(np.int64)
    samples = determinize(many, seats, 16, np.random.default_rng(2))
    assert len(set(samples.key.tolist())) == samples.batch_size
    assert not np.isin(samples.key, many.key).any()
    rows = np.arange(samples.batch_size)
    opp = 1 - np.repeat(seats, 16)
    hidden = np.column_stack([samples.hands[rows, opp], samples.discard_down[rows, opp]])
    per_game = hidden.reshape(many.batch_size, 16, 2)
    varied = [len({tuple(r) for r in g}) > 1 for g in per_game]
    assert np.mean(varied) > 0.5  # most positions hide several cards


def test_remembered_cards_are_always_in_the_opponent_hand() -> None:
    """A position where the opponent's hand is mostly remembered: the known cards stay
    in every sample; only the one unknown card and the pile vary."""
    sc = make(
        hands=(["HUNA", "IFFI", "JOJO"], ["ALOA", "BARI", "GOLA", "GOLA"]),
        known=[[], ["ALOA", "GOLA", "GOLA"]],
        face_up=["ELAI", "FAAA", "LALE"],
        pile=["COCO", "DUDA", "KAHU"],
    )
    state = load(sc)
    samples = determinize(state, 0, 300, np.random.default_rng(0))
    check_samples(state, np.array([0]), samples, 300)
    hands = Counter(tuple(kcards.names_of(int(w))) for w in samples.hands[:, 1])
    hidden = hidden_cards(state, 0)[0]
    assert hidden.sum() == 1 + 3 and hidden_counts(state, 0)[0].tolist() == [1, 0, 3]
    for hand in hands:
        assert {"ALOA", "GOLA"} <= set(hand) and hand.count("GOLA") == 2
    # The unknown card is any of the hidden ones.
    extra = {next(x for x in h if x not in ("ALOA", "GOLA")) for h in hands}
    assert extra == {ISLAND_NAMES[x] for x in np.flatnonzero(hidden)}


# ---- exact uniformity ---------------------------------------------------------------


def chi2_sf(x: float, df: int) -> float:
    """Upper tail P(X > x) of a chi-square with `df` degrees of freedom: 1 - P(df/2, x/2),
    the regularized lower incomplete gamma function by its power series (scipy is not a
    dependency)."""
    a, z = df / 2.0, x / 2.0
    term = total = 1.0 / a
    n = 0
    while term > total * 1e-17:
        n += 1
        term *= z / (a + n)
        total += term
    return max(0.0, 1.0 - math.exp(a * math.log(z) - z - math.lgamma(a)) * total)


def test_chi2_sf_matches_table_values() -> None:
    for df, q in ((1, 10.828), (10, 29.588), (50, 86.661)):
        assert chi2_sf(q, df) == pytest.approx(1e-3, rel=2e-3)


def few_hidden() -> State:
    """Seat 0 to act; hidden from it: the opponent's 2 cards besides its known GOLA,
    its face-down discard and the 2-card pile, ALOA ALOA BARI COCO DUDA."""
    return load(
        make(
            hands=(["HUNA", "IFFI", "JOJO"], ["ALOA", "BARI", "GOLA"]),
            known=[[], ["GOLA"]],
            discard_down=(["KAHU"], ["ALOA"]),
            face_up=["ELAI", "FAAA", "LALE"],
            pile=["COCO", "DUDA"],
        )
    )


def test_few_hidden_cards_are_placed_uniformly() -> None:
    """Every placement of the hidden physical cards equally likely: the distribution of
    (opponent's hand, its face-down discard, pile order) matches the enumeration of all
    5! orders of the 5 physical cards, by a chi-square test at significance 1e-6 (fixed
    seed: deterministic). The two ALOA cards make some outcomes twice as likely."""
    state = few_hidden()
    hidden = [ISLAND_NAMES[x] for x in range(12) for _ in range(int(hidden_cards(state, 0)[0, x]))]
    assert sorted(hidden) == ["ALOA", "ALOA", "BARI", "COCO", "DUDA"]
    assert hidden_counts(state, 0)[0].tolist() == [2, 1, 2]
    expected: Counter[tuple] = Counter()
    for perm in itertools.permutations(hidden):
        hand = tuple(sorted(["GOLA", *perm[:2]], key=ISLAND_NAMES.index))
        expected[(hand, perm[2], perm[3:])] += 1
    draws = 30_000
    samples = determinize(state, 0, draws, np.random.default_rng(4))
    check_invariants(samples)
    seen: Counter[tuple] = Counter()
    for i in range(draws):
        hand = tuple(kcards.names_of(int(samples.hands[i, 1])))
        (down,) = kcards.names_of(int(samples.discard_down[i, 1]))
        size = int(samples.pile_size[i])
        pile = tuple(ISLAND_NAMES[x] for x in samples.pile[i, :size])
        seen[(hand, down, pile)] += 1
    assert set(seen) <= set(expected), "a sample is not a consistent placement"
    total = sum(expected.values())
    stat = sum(
        (seen.get(k, 0) - draws * w / total) ** 2 / (draws * w / total) for k, w in expected.items()
    )
    assert len(expected) > 20 and max(expected.values()) == 2 * min(expected.values())
    assert chi2_sf(stat, len(expected) - 1) > 1e-6, (stat, len(expected))


# ---- batching, determinism, the protocol ----------------------------------------------


def test_a_game_samples_do_not_depend_on_the_other_games(many: State) -> None:
    idx = np.arange(0, many.batch_size, max(1, many.batch_size // 12))
    sub = many.take(idx)
    seats = sub.current_player.astype(np.int64)
    keys = (np.arange(len(idx), dtype=np.uint64) + np.uint64(11)) * np.uint64(2654435761)
    counts = np.arange(len(idx)) % 3 + 1
    whole = determinize_from_keys(sub, seats, counts, keys)
    start = np.cumsum(counts) - counts
    for i in range(len(idx)):
        one = determinize_from_keys(
            sub.take([i]), seats[i : i + 1], int(counts[i]), keys[i : i + 1]
        )
        assert one.equal(whole.take(np.arange(start[i], start[i] + counts[i])))


def test_deterministic_for_a_seed(many: State) -> None:
    seats = many.current_player.astype(np.int64)
    a = determinize(many, seats, 3, np.random.default_rng(5))
    b = determinize(many, seats, 3, 5)  # an int seeds a Generator the same way
    c = determinize(many, seats, 3, np.random.default_rng(6))
    assert a.equal(b)
    assert not a.equal(c)


def test_through_the_game_protocol(many: State) -> None:
    game = get_game("kahuna")
    seats = many.current_player.astype(np.int64)
    view = game.public_view(many, seats)
    samples = game.determinize(view, seats, 2, np.random.default_rng(0))
    check_samples(many, seats, samples, 2)


# ---- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"seats": 2}, ValueError, "seats must be 0 or 1"),
        ({"seats": 0.0}, TypeError, "seats must be an int"),
        ({"seats": [0, 1, 0]}, ValueError, "seats must be an int or a"),
        ({"n": 0}, ValueError, "n must be >= 1"),
        ({"n": 1.5}, TypeError, "n must be an int"),
        ({"n": [1, 2, 3]}, ValueError, "n must be an int or a"),
        ({"rng": "seed"}, TypeError, "rng must be a numpy.random.Generator"),
    ],
)
def test_bad_arguments_are_rejected(kwargs: dict, error: type, match: str) -> None:
    state = few_hidden()
    args = {"seats": 0, "n": 2, "rng": 0, **kwargs}
    with pytest.raises(error, match=match):
        determinize(state, args["seats"], args["n"], args["rng"])


def test_bad_states_and_keys_are_rejected() -> None:
    state = few_hidden()
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kahuna.State"):
        determinize("state", 0, 1, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"keys must be a \(1,\) uint64"):
        determinize_from_keys(state, 0, 1, np.array([1, 2], dtype=np.uint64))
    with pytest.raises(ValueError, match="a public view made for the other seat"):
        determinize(public_view(state, 1), 0, 1, 0)
    broken = state.copy()
    broken.pile_size[0] += 1  # one card too many to place
    with pytest.raises(ValueError, match="cards are hidden from seat 0"):
        determinize(broken, 0, 1, 0)
    broken = state.copy()
    broken.known[0, 1] = kcards.word_of([0, 0, 6])  # known ALOA ALOA GOLA, hand ALOA BARI GOLA
    with pytest.raises(ValueError, match="remembered cards"):
        determinize(broken, 0, 1, 0)
    broken = state.copy()
    broken.discard_up[0] += kcards.ONE[4]  # a third ELAI (one is face up)
    with pytest.raises(ValueError, match="more than 2 cards of an island"):
        determinize(broken, 0, 1, 0)
