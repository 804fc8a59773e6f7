"""Belief sampling (`core.kanaloa.belief`): consistency, exact uniformity, voids, bad input."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kit import load, make

from kanaloa_env.bots import public_view
from kanaloa_env.core.kanaloa import Config, State, from_scenario, init, observe, step
from kanaloa_env.core.kanaloa.belief import (
    count_deals,
    determinize,
    determinize_from_keys,
    hand_sizes,
    hidden_cards,
)
from kanaloa_env.core.kanaloa.constants import (
    DECK_SIZE,
    KANALOA_BITS,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    OCTOPUS_BITS,
    SUIT_BITS,
)
from kanaloa_env.testing import check_invariants

ALL_BITS = (1 << DECK_SIZE) - 1
CONFIGS = [
    Config(num_players=p, nil_announcement=nil, dolphin=dolphin)
    for p in (3, 4, 5)
    for nil, dolphin in ((False, "optional"), (True, "optional"), (True, "automatic"))
]


def positions(config: Config, games: int, seed: int) -> list[State]:
    """The live games after every step of random play to the end (all phases)."""
    state = init(config, games, seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while not state.done.all():
        out.append(state.take(np.flatnonzero(~state.done)))
        actions = np.argmax(rng.random(state.legal.shape) * state.legal, axis=1)
        state = step(state, actions)
    return out


def check_samples(real: State, seats: np.ndarray, samples: State, n: int) -> None:
    """Every sample of game i agrees with what seats[i] knows in game i."""
    P = real.num_players
    game = np.repeat(np.arange(real.batch_size), n)
    seat = seats[game]
    rows = np.arange(samples.batch_size)
    check_invariants(samples)
    # The seat's observation is the real one, in every sample.
    np.testing.assert_array_equal(observe(samples, seat), observe(real, seats)[game])
    # Only the other hands, the key and the cached mask differ.
    ref = real.take(game)
    for name, value in samples.arrays().items():
        if name not in ("hands", "key", "legal"):
            np.testing.assert_array_equal(value, getattr(ref, name), err_msg=name)
    np.testing.assert_array_equal(samples.hands[rows, seat], ref.hands[rows, seat])
    to_act = ref.current_player == seat
    np.testing.assert_array_equal(samples.legal[to_act], ref.legal[to_act])
    # Hand sizes as in the real game, and no card of a suit its holder is void in.
    np.testing.assert_array_equal(
        np.bitwise_count(samples.hands & np.uint64(ALL_BITS)), np.bitwise_count(ref.hands)
    )
    for s in range(NUM_SUITS):
        void = (samples.voids >> np.uint8(s)) & np.uint8(1) == 1
        held = samples.hands & SUIT_BITS[s] != 0
        assert not (void & held & (np.arange(P) != seat[:, None])).any()


@pytest.mark.parametrize(
    "config",
    CONFIGS,
    ids=lambda c: f"P{c.num_players}-{'nil' if c.nil_announcement else 'plain'}-{c.dolphin}",
)
def test_samples_agree_with_what_the_seat_knows(config: Config) -> None:
    """On every position of random games (every phase, the announce variant, both
    dolphin modes), each sample keeps the seat's observation, differs from the real
    state only in the other hands, the key and the mask, passes the invariants and
    respects the voids; for the player to act and for another seat."""
    rng = np.random.default_rng(config.num_players)
    real = State.concatenate(positions(config, games=8, seed=config.num_players))
    assert set(real.phase.tolist()) >= {1, 2, 3} | ({0} if config.nil_announcement else set())
    to_act = real.current_player.astype(np.int64)
    other = (to_act + 1 + np.arange(real.batch_size) % (real.num_players - 1)) % real.num_players
    for seats in (to_act, other):
        samples = determinize(public_view(real, seats), seats, 3, rng)
        check_samples(real, seats, samples, 3)


def test_hand_sizes_and_hidden_cards_match_the_real_game() -> None:
    """`hand_sizes` (public) equals the real hand sizes; `hidden_cards` holds as many
    cards of each type as neither the seat holds nor were played."""
    for real in positions(Config(num_players=4, nil_announcement=True), games=8, seed=1)[::5]:
        sizes = hand_sizes(real)
        np.testing.assert_array_equal(sizes, np.bitwise_count(real.hands))
        for seat in range(4):
            hidden = hidden_cards(real, seat)
            own = real.hands[:, seat]
            assert not (hidden & own).any()
            others = np.bitwise_or.reduce(np.delete(real.hands, seat, axis=1), axis=1)
            for bits in (KANALOA_BITS, OCTOPUS_BITS):
                held = np.bitwise_count(others & bits)
                not_dealt = np.bitwise_count(hidden & bits) - held
                assert (not_dealt >= 0).all()
            tiki = np.uint64((1 << 48) - 1)
            np.testing.assert_array_equal(hidden & tiki, tiki & ~own & ~real.played)


def test_public_view_and_full_state_give_the_same_samples(read_only) -> None:
    """Only what the seat knows is read: the public view and the real state (hands
    and key included) give the same samples, and the input is not written."""
    real = positions(Config(num_players=5), games=4, seed=3)[20]
    seats = real.current_player.astype(np.int64)
    a = determinize(read_only(real.copy()), seats, 5, np.random.default_rng(9))
    b = determinize(read_only(public_view(real, seats)), seats, 5, np.random.default_rng(9))
    assert a.equal(b)


def test_batch_equals_one_call_per_game_with_the_same_keys() -> None:
    """`determinize_from_keys`: game i's samples depend on game i and keys[i] only."""
    real = positions(Config(num_players=4), games=6, seed=4)[13]
    seats = real.current_player.astype(np.int64)
    keys = np.arange(101, 101 + real.batch_size, dtype=np.uint64) * np.uint64(7919)
    counts = np.arange(1, real.batch_size + 1)
    batch = determinize_from_keys(real, seats, counts, keys)
    start = 0
    for g in range(real.batch_size):
        one = determinize_from_keys(real.take([g]), seats[g], int(counts[g]), keys[g : g + 1])
        assert one.equal(batch.take(np.arange(start, start + counts[g])))
        start += counts[g]
    assert start == batch.batch_size


def test_seeded_samples_repeat_and_samples_differ() -> None:
    """The same generator state gives the same samples; samples of one position
    differ in the hidden hands and in the key (fresh future deals)."""
    real = init(Config(num_players=4), 2, seed=5)
    a = determinize(real, 0, 8, np.random.default_rng(1))
    b = determinize(real, 0, 8, 1)  # an int seeds a generator
    assert a.equal(b)
    assert len({tuple(h) for h in a.hands[:8].tolist()}) == 8
    assert len(set(a.key.tolist())) == 16
    c = determinize(real, 0, 8, np.random.default_rng(2))
    assert not a.equal(c)


# ---- exact uniformity ---------------------------------------------------------------


def chi2_sf(x: float, df: int) -> float:
    """Upper tail P(X > x) of a chi-square with `df` degrees of freedom: 1 - P(df/2, x/2),
    the regularized lower incomplete gamma function by its power series (exact to
    float rounding for the x of these tests; scipy is not a dependency)."""
    a, z = df / 2.0, x / 2.0
    term = total = 1.0 / a
    n = 0
    while term > total * 1e-17:
        n += 1
        term *= z / (a + n)
        total += term
    return max(0.0, 1.0 - math.exp(a * math.log(z) - z - math.lgamma(a)) * total)


def test_chi2_sf_matches_table_values() -> None:
    """The helper reproduces textbook critical values (99.9% quantiles)."""
    for df, q in ((1, 10.828), (10, 29.588), (50, 86.661), (100, 149.449)):
        assert chi2_sf(q, df) == pytest.approx(1e-3, rel=2e-3)


def enumerate_deals(state: State, seat: int) -> list[tuple[int, ...]]:
    """Every consistent deal of game 0 by brute force: tuples of the other hands.

    The hidden physical cards are `hidden_cards`' (which copy of a Kanaloa or
    octopus card is hidden is a labelling); each other player draws its hand from the
    hidden cards outside its voids, in seat order; the rest stays out of the deal.
    """
    P = state.num_players
    hidden = int(hidden_cards(state, seat)[0])
    sizes = hand_sizes(state)[0]
    out = []

    def deal(p: int, left: int, hands: tuple[int, ...]) -> None:
        if p == P:
            out.append(hands)
            return
        if p == seat:
            deal(p + 1, left, (*hands, int(state.hands[0, seat])))
            return
        allowed = left
        for s in range(NUM_SUITS):
            if int(state.voids[0, p]) >> s & 1:
                allowed &= ~int(SUIT_BITS[s])
        bits = [b for b in range(DECK_SIZE) if allowed >> b & 1]
        for cards in itertools.combinations(bits, int(sizes[p])):
            word = sum(1 << b for b in cards)
            deal(p + 1, left & ~word, (*hands, word))

    deal(0, hidden, ())
    return out


def assert_uniform(state: State, seat: int, draws: int, seed: int) -> int:
    """Sample `draws` deals of game 0 and compare with the brute-force enumeration:
    every sample is a consistent deal, and a chi-square test over all of them keeps
    uniformity at significance 1e-6 (fixed seed: deterministic). Returns the number
    of deals."""
    deals = enumerate_deals(state, seat)
    assert len(deals) == len(set(deals)) == count_deals(state, seat)[0]
    samples = determinize(state, seat, draws, np.random.default_rng(seed))
    seen = Counter(tuple(int(h) for h in row) for row in samples.hands)
    assert set(seen) <= set(deals), "a sample is not a consistent deal"
    expected = draws / len(deals)
    stat = sum((seen.get(d, 0) - expected) ** 2 / expected for d in deals)
    assert chi2_sf(stat, len(deals) - 1) > 1e-6, (stat, len(deals))
    return len(deals)


def voided_4p() -> dict:
    """4 players, two cards each after six tricks; seat 0 to lead. Six cards are
    hidden in hands: turquoise-11/12, green-11/12, one Kanaloa, one octopus; the 21
    others are out of the deal. Player 1 is void in blue, red and green, player 2
    in blue, red and turquoise, player 3 in blue and red."""
    played = [f"turquoise-{v}" for v in range(1, 11)] + [f"green-{v}" for v in range(1, 11)]
    played += ["kanaloa", "kanaloa", "octopus", "blue-1"]
    sc = make(
        route=[0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9],
        boats=[0, 0, 0, 0],
        hands=[
            ["blue-2", "red-1"],
            ["turquoise-11", "kanaloa"],
            ["green-11", "octopus"],
            ["turquoise-12", "green-12"],
        ],
        trick_number=6,
        voids=[[], ["blue", "red", "green"], ["blue", "red", "turquoise"], ["blue", "red"]],
    )
    sc["played_this_round"] = played
    return sc


def test_uniform_over_the_deals_that_voids_allow() -> None:
    """Voids exclude most deals of the six hidden cards; the rest come up uniformly."""
    state = load(voided_4p())
    n = assert_uniform(state, 0, draws=8000, seed=11)
    # Player 2 gets two of {green-11, green-12, the specials player 1 leaves}:
    # far fewer than the C(6,2) C(4,2) = 90 deals without voids.
    assert n == 19


def test_copies_of_a_special_card_are_told_apart() -> None:
    """3 players, one card each; player 1 is void in every suit, so it holds one of
    the three hidden specials (two Kanaloa copies, one octopus): the Kanaloa comes up
    twice as often as the octopus, each physical deal alike."""
    played = ["kanaloa", "octopus"] + [f"red-{v}" for v in range(6, 13)]
    played += [f"green-{v}" for v in range(1, 13)]
    sc = make(
        route=[0, 2, 4, 6, 8, 10, 1, 3, 5, 7],
        boats=[0, 0, 0],
        hands=[["blue-3"], ["kanaloa"], ["red-5"]],
        trick_number=7,
        voids=[[], ["blue", "red", "green", "turquoise"], []],
    )
    sc["played_this_round"] = played
    state = load(sc)
    assert assert_uniform(state, 0, draws=9000, seed=12) == 3 * 30
    samples = determinize(state, 0, 3000, np.random.default_rng(13))
    kanaloa = np.mean(samples.hands[:, 1] & KANALOA_BITS != 0)
    assert abs(kanaloa - 2 / 3) < 5 * math.sqrt(2 / 9 / 3000)


def test_uniform_without_voids_pairwise() -> None:
    """5 players, one card each, no voids: 17 hidden cards. The pair of cards that
    players 1 and 2 hold is uniform over the 17 * 16 ordered pairs."""
    sc = make(
        route=[0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11],
        boats=[0] * 5,
        hands=[["blue-1"], ["blue-2"], ["kanaloa"], ["red-4"], ["octopus"]],
        trick_number=7,
    )
    state = load(sc)
    assert count_deals(state, 0) == [17 * 16 * 15 * 14]
    draws = 27200
    samples = determinize(state, 0, draws, np.random.default_rng(14))
    hidden = int(hidden_cards(state, 0)[0])
    bits = [1 << b for b in range(DECK_SIZE) if hidden >> b & 1]
    pairs = Counter(zip(samples.hands[:, 1].tolist(), samples.hands[:, 2].tolist(), strict=True))
    cells = [(a, b) for a in bits for b in bits if a != b]
    assert set(pairs) <= set(cells)
    expected = draws / len(cells)
    stat = sum((pairs.get(c, 0) - expected) ** 2 / expected for c in cells)
    assert chi2_sf(stat, len(cells) - 1) > 1e-6


def test_count_deals_matches_brute_force_on_real_positions() -> None:
    """On last-trick positions of random 5-player games with voids, `count_deals`
    equals a brute-force count and every sample is one of those deals."""
    checked = 0
    for real in positions(Config(num_players=5), games=12, seed=15):
        late = np.flatnonzero((real.trick_number == 7) & (real.voids.any(axis=1)))
        for g in late[:1]:
            game = real.take([g])
            seat = int(game.current_player[0])
            deals = enumerate_deals(game, seat)
            assert count_deals(game, seat) == [len(deals)]
            samples = determinize(game, seat, 20, np.random.default_rng(int(g)))
            assert {tuple(int(h) for h in row) for row in samples.hands} <= set(deals)
            checked += 1
    assert checked >= 10


# ---- bad input ----------------------------------------------------------------------


def test_bad_input_raises_clearly() -> None:
    state = init(Config(num_players=4), 2, seed=0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"seats must be in 0\.\.3"):
        determinize(state, 4, 2, rng)
    with pytest.raises(ValueError, match=r"seats must be in 0\.\.3"):
        determinize(state, [0, -1], 2, rng)
    with pytest.raises(ValueError, match=r"\(2,\) array"):
        determinize(state, [0, 1, 2], 2, rng)
    with pytest.raises(TypeError, match="seats must be"):
        determinize(state, 1.0, 2, rng)
    with pytest.raises(ValueError, match="n must be >= 1"):
        determinize(state, 0, 0, rng)
    with pytest.raises(ValueError, match="n must be >= 1"):
        determinize(state, 0, [1, 0], rng)
    with pytest.raises(TypeError, match="n must be an int"):
        determinize(state, 0, 2.5, rng)
    with pytest.raises(TypeError, match="n must be an int"):
        determinize(state, 0, True, rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        determinize(state, 0, 2, "seed")
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kanaloa.State"):
        determinize({"hands": []}, 0, 2, rng)
    with pytest.raises(ValueError, match="keys must be a"):
        determinize_from_keys(state, 0, 2, np.zeros(2, dtype=np.int64))


def test_unreachable_positions_are_rejected() -> None:
    """A hand of the wrong size, a card held and played, voids no deal satisfies."""
    state = init(Config(num_players=4), 1, seed=0)
    short = state.copy()
    short.hands[0, 0] &= short.hands[0, 0] - np.uint64(1)  # one card fewer
    with pytest.raises(ValueError, match="holds 7 cards but the tricks played leave it 8"):
        determinize(short, 0, 1, 0)
    both = state.copy()
    both.played[:] = both.hands[:, 0] & (both.hands[:, 0] - np.uint64(1)) ^ both.hands[:, 0]
    with pytest.raises(ValueError, match="holds a card that was played"):
        determinize(both, 0, 1, 0)
    extra = state.copy()
    extra.played[:] = KANALOA_BITS  # three Kanaloa played, none in the history
    hand = extra.hands[:, 0] & ~KANALOA_BITS
    extra.hands[:, 0] = hand & (hand - np.uint64(1)) | (np.uint64(1) << np.uint64(50))
    assert np.bitwise_count(extra.hands[0, 0]) == 8 - np.bitwise_count(
        state.hands[0, 0] & KANALOA_BITS
    )
    with pytest.raises(ValueError, match="hidden cards"):
        determinize(extra, 0, 1, 0)
    # Everyone else void in every suit: 24 cards from at most 5 specials.
    voids = state.replace(voids=np.array([[0, 15, 15, 15]], dtype=np.uint8))
    with pytest.raises(ValueError, match="no deal of the hidden cards is consistent"):
        determinize(voids, 0, 1, 0)
    assert count_deals(voids, 0) == [0]


def test_copies_used_up_hide_no_special() -> None:
    """With every Kanaloa played or held, no Kanaloa is hidden."""
    sc = make(
        route=[0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9],
        boats=[0, 0, 0, 0],
        hands=[
            ["kanaloa", "red-1"],
            ["blue-5", "red-2"],
            ["green-3", "red-3"],
            ["blue-7", "red-4"],
        ],
        trick_number=6,
    )
    sc["played_this_round"] = sc["played_this_round"][:22] + ["kanaloa", "kanaloa"]
    state = from_scenario(sc)
    hidden = hidden_cards(state, 0)
    assert np.bitwise_count(hidden & KANALOA_BITS)[0] == NUM_KANALOA - 3
    assert np.bitwise_count(hidden & OCTOPUS_BITS)[0] == NUM_OCTOPUS
    samples = determinize(state, 0, 50, 0)
    assert not (samples.hands[:, 1:] & KANALOA_BITS).any()


# ---- docs/belief.md -----------------------------------------------------------------


def test_docs_examples_run() -> None:
    """Every Python block of docs/belief.md runs (in order, sharing one namespace)."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "belief.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/belief.md", "exec"), namespace)
