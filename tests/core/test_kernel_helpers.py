"""Helpers of the compiled engine and of the bots against plain numpy versions.

The kernels sort with an insertion sort, deal by ranking random words and read the
route slot by slot; `sample_legal` packs masks into words. Each must give exactly
what the obvious numpy version gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.kanaloa import Config, init, route, setup, step_inplace
from kanaloa_env.core.kanaloa.constants import (
    CARD_RANK,
    CARD_SUIT,
    DECK_SIZE,
    HAND_SIZE,
    KANALOA,
    SUIT_BITS,
    TIKI_BITS,
)
from kanaloa_env.core.kanaloa.masks import playable_tiki
from kanaloa_env.core.kanaloa.state import State
from kanaloa_env.core.kanaloa.tricks import trick_winner
from kanaloa_env.core.kernels import argsort_small
from kanaloa_env.core.rng import draw_one, draws, game_keys, permutations, round_base


def reference_sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform draw per row, the k-th legal action: cumsum and argmax."""
    counts = masks.sum(axis=1)
    k = (rng.random(len(masks)) * counts).astype(np.int64)
    return np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 63, 64, 65, 66, 72, 73, 130, 300])
@pytest.mark.parametrize("b", [1, 2, 63, 64, 101, 1000])
def test_sample_legal_picks_the_kth_legal_action(n: int, b: int) -> None:
    gen = np.random.default_rng(n * 1000 + b)
    masks = gen.random((b, n)) < gen.choice([0.02, 0.3, 0.9])
    masks[np.arange(b), gen.integers(0, n, b)] = True  # every row has one
    got = sample_legal(masks, np.random.default_rng(7))
    want = reference_sample(masks, np.random.default_rng(7))
    assert got.dtype == np.int64 and np.array_equal(got, want)
    # Views and Fortran order take the general path; same answer.
    for view in (masks[::-1], np.asfortranarray(masks)):
        got = sample_legal(view, np.random.default_rng(3))
        assert np.array_equal(got, reference_sample(view, np.random.default_rng(3)))


@pytest.mark.parametrize("b", [1, 5, 200])
def test_sample_legal_rejects_a_row_without_legal_actions(b: int) -> None:
    masks = np.ones((b, 66), dtype=bool)
    masks[b // 2] = False
    with pytest.raises(ValueError, match="at least one legal action"):
        sample_legal(masks, np.random.default_rng(0))


def random_tricks(
    gen: np.random.Generator, b: int, P: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cards = np.array([gen.permutation(50)[:P] for _ in range(b)])
    cards[gen.random((b, P)) < 0.1] = 48  # Kanaloa copies
    cards[gen.random((b, P)) < 0.05] = 49  # octopus copies
    suit = CARD_SUIT[cards]
    lead = np.full(b, -1, dtype=np.int8)
    for p in range(P - 1, -1, -1):  # the first Tiki card sets the suit to follow
        lead = np.where(suit[:, p] >= 0, suit[:, p], lead).astype(np.int8)
    trump = gen.integers(0, 4, b).astype(np.int8)
    leader = gen.integers(0, P, b).astype(np.int8)
    return cards, trump, lead, leader


@pytest.mark.parametrize("P", [3, 4, 5])
@pytest.mark.parametrize("b", [3, 1000])
def test_trick_winner_matches_three_where_passes(P: int, b: int) -> None:
    cards, trump, lead, _ = random_tricks(np.random.default_rng(P * b), b, P)
    suit = CARD_SUIT[cards]
    rank = CARD_RANK[cards].astype(np.int16)
    score = np.where((suit == lead[:, None]) & (suit >= 0), rank, -1)
    score = np.where(suit == trump[:, None], 12 + rank, score)
    score = np.where(cards == KANALOA, 24 + np.arange(P, dtype=np.int16), score)
    assert np.array_equal(trick_winner(cards, trump, lead), np.argmax(score, axis=1))


@pytest.mark.parametrize("b", [1, 33, 5000])
def test_playable_tiki_matches_the_suit_table(b: int) -> None:
    gen = np.random.default_rng(b)
    hand = gen.integers(0, 2**53, b, dtype=np.int64)
    hand &= gen.integers(0, 2**53, b, dtype=np.int64)
    lead = gen.integers(-1, 4, b).astype(np.int8)
    follow = hand & SUIT_BITS.astype(np.int64).take(lead)
    want = np.where(follow != 0, follow, hand & int(TIKI_BITS))
    got = np.array([playable_tiki(int(h), int(s)) for h, s in zip(hand, lead, strict=True)])
    assert np.array_equal(got, want)


def argsort_deal(keys: np.ndarray, round_: int, P: int) -> np.ndarray:
    perm = permutations(keys, round_, DECK_SIZE)[:, : HAND_SIZE * P]
    bits = np.left_shift(np.uint64(1), perm.astype(np.uint64))
    return np.bitwise_or.reduce(bits.reshape(len(keys), P, HAND_SIZE), axis=2)


@pytest.mark.parametrize("P", [3, 4, 5])
def test_deal_is_the_argsort_deal(P: int) -> None:
    keys = game_keys(11, np.arange(4000))
    for round_ in (1, 2, 57):
        assert np.array_equal(setup.deal(keys, round_, P), argsort_deal(keys, round_, P))
    assert np.array_equal(setup.deal(keys[:1], 3, P), argsort_deal(keys[:1], 3, P))


def test_the_deal_uses_the_words_of_rng_draws() -> None:
    keys = game_keys(5, np.arange(20))
    words = draws(keys, 3, DECK_SIZE)
    for g, key in enumerate(keys):
        base = round_base(key, 3)
        assert [draw_one(np.uint64(base), c) for c in range(DECK_SIZE)] == words[g].tolist()


@pytest.mark.parametrize("n", [1, 2, 5, 37, 53])
def test_argsort_small_is_a_stable_argsort(n: int) -> None:
    gen = np.random.default_rng(n)
    for words in (
        gen.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True),
        gen.integers(0, 4, n).astype(np.uint64),  # many ties: stable order
    ):
        order = np.full(n + 3, -7, dtype=np.int64)
        argsort_small(words, n, order)
        assert order[:n].tolist() == np.argsort(words, kind="stable").tolist()
        assert order[n:].tolist() == [-7] * 3  # nothing written past n


def played_states(cfg: Config, batch: int, steps: int) -> list[State]:
    """Copies of a batch along random play (with finished games left as they are)."""
    state = init(cfg, batch, seed=5)
    rng = np.random.default_rng(1)
    out = []
    for _ in range(steps):
        legal = np.where(state.done[:, None], True, state.legal)
        step_inplace(state, sample_legal(legal, rng), validate=False)
        out.append(state.copy())
    return out


def reference_removable(state: State, g: int, seat: int) -> list[bool]:
    """Slot by slot: the k-th present card after the boat's own card may go when no
    boat stands on it and more than three cards remain (R6.1, R7.2)."""
    N = state.config.route_cards
    own = int(state.boat_field[g, seat]) // 2
    boats = {int(f) // 2 for f in state.boat_field[g]}
    ahead = [(own + j) % N for j in range(1, N) if state.present[g, (own + j) % N]]
    many = int(state.present[g].sum()) > 3
    out = [many and slot not in boats for slot in ahead]
    return out + [False] * (12 - len(out))


@pytest.mark.parametrize("P", [3, 5])
def test_route_bit_sets_match_slot_by_slot_references(P: int) -> None:
    cfg = Config(num_players=P)
    for state in played_states(cfg, 48, 240)[::12]:
        games = np.arange(state.batch_size)
        seats = np.random.default_rng(0).integers(0, P, state.batch_size)
        ahead = route.removable_ahead(state, games, seats)
        for g in games:
            assert ahead[g].tolist() == reference_removable(state, g, seats[g])
        bits = state.present @ (1 << np.arange(cfg.route_cards))
        assert np.array_equal(state.present_slots, bits)
        assert np.array_equal(route.lap_length(state, games), 2 * state.present.sum(axis=1))
        assert np.array_equal(route.leading_seat_at(state, games), state.progress.argmax(axis=1))
        free = ahead.any(axis=1)  # the own card is never free, so this is every card
        assert np.array_equal(route.can_remove_at(state, games), free)
        for g in games[free][:8]:
            k = int(np.argmax(ahead[g]))
            slot = int(
                route.slot_ahead_at(state, np.array([g]), np.array([seats[g]]), np.array([k]))[0]
            )
            own = int(state.boat_field[g, seats[g]]) // 2
            order = [(own + j) % cfg.route_cards for j in range(1, cfg.route_cards)]
            assert slot == [s for s in order if state.present[g, s]][k]
