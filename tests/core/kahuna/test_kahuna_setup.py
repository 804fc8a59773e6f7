"""K1 (components), K2 (set-up), the configuration, action names, and the packages' APIs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kanaloa_env.core.kahuna import (
    NUM_ACTIONS,
    Config,
    action_name,
    init,
    init_from_keys,
    reset_games,
    to_scenario,
)
from kanaloa_env.core.kahuna.constants import (
    DEGREE,
    ISLAND_NAMES,
    LINE_NAMES,
    LINES,
    MAJORITY,
    NEIGHBOURS,
)
from kanaloa_env.core.rng import game_keys

# KAHUNA-RULES.md K1.3, as printed.
K1_3 = {
    "ALOA": (3, 2, "BARI DUDA HUNA"),
    "BARI": (5, 3, "ALOA COCO DUDA ELAI FAAA"),
    "COCO": (4, 3, "BARI FAAA GOLA KAHU"),
    "DUDA": (4, 3, "ALOA BARI ELAI HUNA"),
    "ELAI": (6, 4, "BARI DUDA FAAA HUNA IFFI JOJO"),
    "FAAA": (5, 3, "BARI COCO ELAI GOLA JOJO"),
    "GOLA": (4, 3, "COCO FAAA JOJO KAHU"),
    "HUNA": (5, 3, "ALOA DUDA ELAI IFFI LALE"),
    "IFFI": (5, 3, "ELAI HUNA JOJO KAHU LALE"),
    "JOJO": (5, 3, "ELAI FAAA GOLA IFFI KAHU"),
    "KAHU": (5, 3, "COCO GOLA IFFI JOJO LALE"),
    "LALE": (3, 2, "HUNA IFFI KAHU"),
}


def test_k1_2_lines_are_sorted_pairs_with_the_alphabetically_first_end_first() -> None:
    assert len(LINES) == 27 and list(LINES) == sorted(LINES)
    assert all(a < b for a, b in LINES)
    assert LINE_NAMES[13] == "ELAI-HUNA" and LINE_NAMES[26] == "KAHU-LALE"


def test_k1_3_degrees_thresholds_and_neighbours_derive_from_the_lines() -> None:
    for x, name in enumerate(ISLAND_NAMES):
        deg, maj, nbrs = K1_3[name]
        assert (DEGREE[x], MAJORITY[x]) == (deg, maj)
        assert [ISLAND_NAMES[y] for y in range(12) if NEIGHBOURS[x] >> y & 1] == nbrs.split()


def test_action_names_follow_the_action_table() -> None:
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert names[0] == "place ALOA-BARI with ALOA" and names[1] == "place ALOA-BARI with BARI"
    assert names[54:57] == [
        "remove ALOA-BARI with ALOA+ALOA",
        "remove ALOA-BARI with BARI+BARI",
        "remove ALOA-BARI with ALOA+BARI",
    ]
    assert names[135] == "discard ALOA" and names[146] == "discard LALE"
    assert names[147:] == ["end play", "take slot 0", "take slot 1", "take slot 2", "draw", "skip"]
    with pytest.raises(ValueError, match="0..152"):
        action_name(153)


def test_k2_1_the_deal() -> None:
    s = init(Config(), 64, seed=1)
    for g in range(64):
        sc = to_scenario(s, g)
        assert [len(h) for h in sc["hands"]] == [3, 3]
        assert None not in sc["face_up"] and len(sc["pile"]) == 15
        assert sc["bridges"] == [[], []] and sc["stones"] == [[], []]
        assert sc["discard_up"] == [] and sc["discard_down"] == [[], []]
        assert sc["turn"] == 0 and sc["phase"] == "play" and sc["scorings"] == []
        cards = sc["hands"][0] + sc["hands"][1] + sc["face_up"] + sc["pile"]
        assert sorted(cards) == sorted(ISLAND_NAMES * 2)
    assert len({str(to_scenario(s, g)["pile"]) for g in range(64)}) == 64


def test_k2_2_the_starting_player_is_a_fair_coin_or_fixed() -> None:
    s = init(Config(), 4000, seed=2)
    assert 1850 < int(s.starting_player.sum()) < 2150
    assert (s.current_player == s.starting_player).all()
    for p in (0, 1):
        assert (init(Config(first_player=p), 50, seed=2).starting_player == p).all()
    # The coin has its own stream: the deal does not depend on it.
    a, b = init(Config(first_player=0), 8, seed=2), init(Config(first_player=1), 8, seed=2)
    assert (a.hands == b.hands).all() and (a.pile == b.pile).all()


def test_game_i_is_the_same_game_at_any_batch_size_and_first_game() -> None:
    big = init(Config(), 16, seed=5)
    for g in (0, 7, 15):
        assert init(Config(), 1, seed=5, first_game=g) == big.take([g])
    assert init_from_keys(Config(), game_keys(5, np.arange(16))) == big


def test_reset_games_restarts_only_the_given_games() -> None:
    s = init(Config(), 6, seed=3)
    s.turn[:] = 9
    keys = game_keys(3, np.array([10, 11]))
    reset_games(s, np.array([1, 4]), keys)
    fresh = init_from_keys(Config(), keys)
    assert s.take([1, 4]) == fresh
    assert (s.turn[[0, 2, 3, 5]] == 9).all()
    mask = np.zeros(6, dtype=bool)
    mask[0] = True
    reset_games(s, mask, game_keys(3, np.array([12])))
    assert s.turn[0] == 0


# ---- Config ---------------------------------------------------------------------------


def test_config_defaults_are_the_spec_defaults() -> None:
    c = Config()
    assert (c.stones_per_player, c.first_player, c.discard_rule, c.early_end, c.max_turns) == (
        10,
        "random",
        "any_time",
        True,
        200,
    )
    assert c.overrides() == {}


@pytest.mark.parametrize(
    "field, value, error, pattern",
    [
        ("stones_per_player", 9, ValueError, "stones_per_player must be in 10..12"),
        ("stones_per_player", 13, ValueError, "10..12"),
        ("stones_per_player", 10.0, TypeError, "stones_per_player must be an int"),
        ("stones_per_player", True, TypeError, "stones_per_player"),
        ("first_player", 2, ValueError, "first_player must be one of 'random', 0, 1"),
        ("first_player", "first", ValueError, "first_player"),
        ("first_player", True, ValueError, "first_player"),
        ("discard_rule", "never", ValueError, "discard_rule must be one of"),
        ("early_end", 1, TypeError, "early_end must be a bool"),
        ("max_turns", 0, ValueError, "max_turns must be in 1..10000"),
        ("max_turns", "200", TypeError, "max_turns must be an int"),
    ],
)
def test_config_rejects_bad_values_naming_the_field(
    field: str, value: object, error: type, pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        Config(**{field: value})


def test_config_overrides_and_from_dict_round_trip() -> None:
    c = Config(
        stones_per_player=12,
        first_player=1,
        discard_rule="no_legal_play",
        early_end=False,
        max_turns=50,
    )
    assert Config.from_dict(c.overrides()) == c
    assert c.overrides() == {
        "stones_per_player": 12,
        "first_player": 1,
        "discard_rule": "no_legal_play",
        "early_end": False,
        "max_turns": 50,
    }
    assert "max_turns" not in c.replace(max_turns=200).overrides()
    with pytest.raises(ValueError, match="unknown config keys"):
        Config.from_dict({"stones": 10})
    with pytest.raises(TypeError, match="dict"):
        Config.from_dict([("max_turns", 5)])  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.max_turns = 3  # type: ignore[misc]


# ---- the packages' APIs ---------------------------------------------------------------


def test_the_issue_api_imports_and_kanaloas_core_api_is_unchanged() -> None:
    from kanaloa_env.core.kahuna import (  # noqa: F401
        Config,
        from_scenario,
        init,
        legal_action_mask,
        observe,
        step,
        to_scenario,
    )
    from kanaloa_env.core.kanaloa import Config as CoreConfig
    from kanaloa_env.core.kanaloa import Config as KanaloaConfig
    from kanaloa_env.core.kanaloa import init as core_init

    assert CoreConfig is KanaloaConfig and core_init is not init
    assert core_init(CoreConfig(num_players=3), 2, seed=0).legal.shape == (2, 66)
