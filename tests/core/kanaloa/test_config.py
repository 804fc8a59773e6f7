"""Config: defaults from RULES.md, validation errors that name the field, the ocean deck."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest

from kanaloa_env.core.kanaloa import DEFAULT_OCEAN_DECK, Config
from kanaloa_env.core.kanaloa.ocean import parse_field
from kanaloa_env.testing import random_playthrough


def test_defaults_are_the_rules_md_config_defaults() -> None:
    cfg = Config()
    assert cfg.num_players == 4  # R1.4
    assert cfg.ocean_deck == DEFAULT_OCEAN_DECK  # R1.3
    assert cfg.nil_announcement is False  # R3.2
    assert cfg.announced_boat_moves is False  # R7.4
    assert cfg.dolphin == "optional" and cfg.dolphin_chain is False  # R6.3
    assert cfg.max_rounds == 100  # R9.4
    assert cfg.reward == "win_loss"  # R10.1
    assert cfg.overrides() == {}


@pytest.mark.parametrize(("num_players", "cards"), [(3, 10), (4, 11), (5, 12)])
def test_r2_1_route_cards_per_table_size(num_players: int, cards: int) -> None:
    cfg = Config(num_players=num_players)
    assert cfg.route_cards == cards and cfg.route_fields == 2 * cards


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"num_players": 2}, ValueError, "num_players"),
        ({"num_players": 6}, ValueError, "num_players"),
        ({"num_players": 4.0}, TypeError, "num_players"),
        ({"num_players": True}, TypeError, "num_players"),
        ({"max_rounds": 0}, ValueError, "max_rounds"),
        ({"max_rounds": 10_001}, ValueError, "max_rounds"),
        ({"max_rounds": "100"}, TypeError, "max_rounds"),
        ({"nil_announcement": 1}, TypeError, "nil_announcement"),
        ({"announced_boat_moves": "no"}, TypeError, "announced_boat_moves"),
        ({"dolphin_chain": None}, TypeError, "dolphin_chain"),
        ({"dolphin": "always"}, ValueError, "dolphin"),
        ({"reward": "score"}, ValueError, "reward"),
    ],
)
def test_bad_values_raise_naming_the_field(kwargs: dict, error: type, name: str) -> None:
    with pytest.raises(error, match=rf"Config\.{name}"):
        Config(**kwargs)


def test_error_names_the_allowed_values() -> None:
    with pytest.raises(ValueError, match=r"3\.\.5"):
        Config(num_players=7)
    with pytest.raises(ValueError, match="optional.*automatic"):
        Config(dolphin="never")
    with pytest.raises(ValueError, match="win_loss.*rank"):
        Config(reward="money")


def test_config_is_frozen_and_hashable() -> None:
    cfg = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.num_players = 5  # type: ignore[misc]
    assert hash(cfg) == hash(Config()) and cfg == Config()
    assert cfg.replace(num_players=5).num_players == 5
    with pytest.raises(ValueError, match="num_players"):
        cfg.replace(num_players=9)


def test_overrides_round_trip_through_from_dict() -> None:
    cfg = Config(
        num_players=5,
        nil_announcement=True,
        dolphin="automatic",
        dolphin_chain=True,
        max_rounds=7,
        reward="rank",
    )
    over = cfg.overrides()
    assert over == {
        "nil_announcement": True,
        "dolphin": "automatic",
        "dolphin_chain": True,
        "max_rounds": 7,
        "reward": "rank",
    }
    assert Config.from_dict(5, over) == cfg


def test_from_dict_rejects_unknown_keys_and_lists_the_allowed() -> None:
    with pytest.raises(ValueError, match=r"unknown config keys \['dolphins'\].*allowed"):
        Config.from_dict(4, {"dolphins": "optional"})


# ---- OCEAN-DECK ----------------------------------------------------------------


def _parsed(deck) -> list[list[tuple[int, bool, bool]]]:
    return [[parse_field(f) for f in card] for card in deck]


def test_default_deck_is_the_rules_md_table() -> None:
    """OCEAN-DECK: 12 cards, each colour pair on two cards, one dolphin per pair."""
    cards = _parsed(DEFAULT_OCEAN_DECK)
    assert len(cards) == 12
    pairs = Counter(frozenset((a[0], b[0])) for a, b in cards)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(4), 2)}
    assert all(n == 2 for n in pairs.values())
    assert Counter(f[0] for card in cards for f in card) == {0: 6, 1: 6, 2: 6, 3: 6}
    dolphin_pairs = [frozenset((a[0], b[0])) for a, b in cards if a[1] or b[1]]
    assert sorted(map(sorted, dolphin_pairs)) == sorted(map(sorted, pairs))
    assert sum(f[1] for card in cards for f in card) == 6
    starts = [(k, j) for k, card in enumerate(cards) for j, f in enumerate(card) if f[2]]
    assert starts == [(0, 0)]
    assert cards[0][0][0] == 0 and not any(f[1] for f in cards[0])  # blue, no dolphin


def test_default_deck_literal_table() -> None:
    assert DEFAULT_OCEAN_DECK == (
        ("blue(start)", "red"),
        ("red", "blue*"),
        ("blue", "green"),
        ("green*", "blue"),
        ("blue", "turquoise"),
        ("turquoise*", "blue"),
        ("red", "green"),
        ("green", "red*"),
        ("red", "turquoise"),
        ("turquoise", "red*"),
        ("green", "turquoise"),
        ("turquoise*", "green"),
    )


SMALL_DECK = (("blue(start)", "red"),) + tuple(("green", "turquoise*") for _ in range(9))


@pytest.mark.parametrize(
    ("deck", "match"),
    [
        (DEFAULT_OCEAN_DECK[:10], r"ocean_deck has 10 cards; 4 players need at least 11"),
        ((), r"ocean_deck must be a tuple of 1\.\.12"),
        (DEFAULT_OCEAN_DECK + (("red", "green"),), r"ocean_deck must be a tuple of 1\.\.12"),
        (DEFAULT_OCEAN_DECK[:11] + (("red", "red*"),), r"ocean_deck card 11 .*differ in colour"),
        (DEFAULT_OCEAN_DECK[:11] + (("red", "purple"),), r"ocean_deck field 'purple'"),
        (DEFAULT_OCEAN_DECK[:11] + (("red",),), r"ocean_deck card 11 must be a pair"),
        (DEFAULT_OCEAN_DECK[:11] + (("red", "green", "blue"),), r"ocean_deck card 11"),
        ((("blue", "red"),) + DEFAULT_OCEAN_DECK[1:], r"exactly one start field, found 0"),
        (DEFAULT_OCEAN_DECK[:11] + (("blue(start)", "red"),), r"exactly one start field, found 2"),
        ((("green(start)", "red"),) + DEFAULT_OCEAN_DECK[1:], r"start field must be blue"),
    ],
)
def test_ocean_deck_validation_names_ocean_deck(deck: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Config(num_players=4, ocean_deck=deck)


def test_ocean_deck_of_wrong_type_raises_type_error() -> None:
    with pytest.raises(TypeError, match="ocean_deck"):
        Config(ocean_deck="blue red")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ocean_deck field"):
        Config(ocean_deck=DEFAULT_OCEAN_DECK[:11] + (("red", 3),))  # type: ignore[arg-type]


def test_ocean_deck_from_json_lists_is_normalised() -> None:
    cfg = Config(ocean_deck=[list(c) for c in DEFAULT_OCEAN_DECK])  # type: ignore[arg-type]
    assert cfg.ocean_deck == DEFAULT_OCEAN_DECK and cfg == Config()


def test_custom_deck_is_used_by_the_engine() -> None:
    # Ten cards suffice for three players; a game on it plays to the end.
    cfg = Config(num_players=3, ocean_deck=SMALL_DECK)
    assert cfg.deck.num_cards == 10 and int(cfg.deck.dolphin.sum()) == 9
    assert cfg.overrides() == {"ocean_deck": [list(c) for c in SMALL_DECK]}
    stats = random_playthrough(cfg, num_games=16, seed=2)
    assert stats.terminated + stats.truncated == 16
    with pytest.raises(ValueError, match="ocean_deck has 10 cards; 4 players"):
        Config(num_players=4, ocean_deck=SMALL_DECK)


def test_custom_deck_may_put_a_dolphin_on_the_start_field() -> None:
    # R1.3 (ocean deck) and R6.3 (dolphin) do not forbid it, and the printed deck has
    # none: docs/rules.md, "The dolphin".
    deck = (("blue*(start)", "red"),) + DEFAULT_OCEAN_DECK[1:]
    cfg = Config(ocean_deck=deck)
    assert cfg.deck.dolphin[0] and cfg.deck.start[0]
    stats = random_playthrough(cfg, num_games=32, seed=4)  # every invariant holds
    assert stats.terminated + stats.truncated == 32
