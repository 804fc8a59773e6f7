"""R2 set-up and R3.1 dealing, checked over many fresh games (statistics, not seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.core.kanaloa import Config, Phase, init
from kanaloa_env.core.kanaloa.constants import DECK_SIZE, HAND_SIZE, ROUTE_CARDS
from kanaloa_env.core.kanaloa.setup import init_from_keys, reset_games
from kanaloa_env.core.rng import game_keys

B = 400


def popcount(words: np.ndarray) -> np.ndarray:
    return np.array([bin(int(w)).count("1") for w in words.ravel()]).reshape(words.shape)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_r2_1_route_size_and_cards_left_out(num_players: int) -> None:
    cfg = Config(num_players=num_players)
    s = init(cfg, batch_size=B, seed=11)
    N = ROUTE_CARDS[num_players]
    assert s.present.shape == (B, N) and s.present.all()
    cards = s.route[:, ::2] // 2
    assert (np.sort(cards, axis=1) == np.sort(s.route[:, 1::2] // 2, axis=1)).all()
    for row in cards:
        assert len(set(row.tolist())) == N  # distinct cards
        assert cfg.deck.start_card in row  # the start card is never left out
    if N < 12:
        left_out = {c for row in cards for c in set(range(12)) - set(row.tolist())}
        assert left_out == set(range(1, 12))  # any other card may be left out


def test_r2_2_random_order_and_orientation() -> None:
    s = init(Config(), batch_size=B, seed=12)
    sides = s.route % 2
    assert (sides[:, ::2] + sides[:, 1::2] == 1).all()  # a card's two fields, both sides
    assert 0.4 < sides[:, ::2].mean() < 0.6  # both orientations occur
    positions = np.argmax(s.route[:, ::2] // 2 == 0, axis=1)
    assert len(set(positions.tolist())) == 11  # the start card lies anywhere


def test_r2_3_every_boat_on_the_start_field_with_equal_progress() -> None:
    cfg = Config(num_players=5)
    s = init(cfg, batch_size=B, seed=13)
    codes = s.route[np.arange(B)[:, None], s.boat_field]
    assert cfg.deck.start[codes].all()
    assert (s.progress == 0).all()


def test_r2_4_first_starting_player_is_random() -> None:
    s = init(Config(num_players=5), batch_size=B, seed=14)
    counts = np.bincount(s.starting_player, minlength=5)
    assert (counts > B / 5 * 0.6).all()
    assert (s.current_player == s.starting_player).all()
    assert (s.leader == s.starting_player).all()
    assert (s.phase == Phase.PLAY).all()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_r3_1_deal_eight_disjoint_cards_each(num_players: int) -> None:
    s = init(Config(num_players=num_players), batch_size=B, seed=15)
    assert (popcount(s.hands) == HAND_SIZE).all()
    union = np.bitwise_or.reduce(s.hands, axis=1)
    assert (popcount(union) == HAND_SIZE * num_players).all()  # no card twice
    assert (union >> np.uint64(DECK_SIZE) == 0).all()
    # Every one of the 53 cards is dealt in some game: the deck is the whole deck.
    seen = np.bitwise_or.reduce(union)
    assert int(seen) == (1 << DECK_SIZE) - 1


def test_r3_1_each_round_gets_a_new_deal() -> None:
    from kanaloa_env.core.kanaloa.setup import deal

    keys = game_keys(3, np.arange(64, dtype=np.uint64))
    one = deal(keys, np.ones(64, np.int16), 4)
    two = deal(keys, np.full(64, 2, np.int16), 4)
    assert (one != two).any(axis=1).all()
    np.testing.assert_array_equal(one, deal(keys, np.ones(64, np.int16), 4))


def test_init_from_keys_and_reset_games_match_init() -> None:
    cfg = Config()
    s = init(cfg, batch_size=8, seed=21, first_game=3)
    keys = game_keys(21, np.arange(3, 11, dtype=np.uint64))
    assert init_from_keys(cfg, keys).equal(s)
    other = init(cfg, batch_size=8, seed=0)
    reset_games(other, np.array([2, 5]), keys[[2, 5]])
    assert other.game_equal(s).tolist() == [i in (2, 5) for i in range(8)]
