"""Scenarios (SCENARIO.md): exact round trips, continuing play, and inconsistency errors."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit import ROUTE_4, load, make

from kanaloa_env.core.kanaloa import (
    Config,
    State,
    Suit,
    from_scenario,
    init,
    observe,
    step,
    to_scenario,
)
from kanaloa_env.core.kanaloa.constants import card_from_name

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
SCENARIO_MD = Path("/work/shared/SCENARIO.md")


def example() -> dict[str, Any]:
    """The SCENARIO.md example (3 players, first trick, two cards played)."""
    return json.loads((SCENARIOS / "scenario_md_example.json").read_text())


# ---- round trips ----------------------------------------------------------------


def test_scenario_md_example_round_trips_exactly() -> None:
    sc = example()
    s = from_scenario(sc)
    assert s.batch_size == 1
    assert to_scenario(s, 0) == sc
    # Player 2 must follow blue (blue 1 led) and holds blue 3 and blue 11.
    assert set(np.flatnonzero(s.legal[0]).tolist()) == {2, 10}


@pytest.mark.skipif(not SCENARIO_MD.exists(), reason="the shared spec is not checked out")
def test_stored_example_is_the_one_in_scenario_md() -> None:
    block = re.search(r"```json\n(.*?)```", SCENARIO_MD.read_text(), re.S)
    assert block is not None
    assert json.loads(block.group(1)) == example()


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.json")), ids=lambda p: p.name)
def test_stored_scenarios_round_trip(path: Path) -> None:
    sc = json.loads(path.read_text())
    assert to_scenario(from_scenario(sc), 0) == sc


def test_scenario_is_json_compatible() -> None:
    sc = to_scenario(init(Config(num_players=5, nil_announcement=True), 1, seed=4), 0)
    assert json.loads(json.dumps(sc)) == sc


def test_hand_in_another_order_comes_back_sorted() -> None:
    sc = example()
    shuffled = copy.deepcopy(sc)
    shuffled["hands"][2] = list(reversed(sc["hands"][2]))
    assert to_scenario(from_scenario(shuffled), 0) == sc


def test_card_orientation_is_kept() -> None:
    # Card 1 printed red, blue*; reversed it is sailed blue* first.
    sc = make(
        route=["1r"] + ROUTE_4[1:6] + [0, 3, 5, 7, 9],
        boats=[12] * 4,
        hands=[[]] * 4,
        trick_number=8,
        phase="remove_round_end",
        progress=[0] * 4,
    )
    fields = sc["route"][0]["fields"]
    assert [f["color"] for f in fields] == ["blue", "red"] and fields[0]["dolphin"]
    assert to_scenario(from_scenario(sc), 0) == sc


def test_include_key_adds_only_the_key() -> None:
    s = init(Config(), 3, seed=8)
    with_key = to_scenario(s, 1, include_key=True)
    assert with_key.pop("key") == int(s.key[1])
    assert with_key == to_scenario(s, 1)


def test_to_scenario_rejects_a_bad_game_index() -> None:
    s = init(Config(), 2, seed=0)
    with pytest.raises(ValueError, match=r"game index i must be in 0\.\.1, got 2"):
        to_scenario(s, 2)
    # Issue 19.6: a string, a float or a bool was coerced to game 2 or 1.
    for bad in ("1", 1.0, 1.7, True, np.float64(1), None):
        with pytest.raises(TypeError, match=r"game index i must be an int in 0\.\.1, got"):
            to_scenario(s, bad)  # type: ignore[arg-type]
    assert to_scenario(s, np.int64(1)) == to_scenario(s, 1) == to_scenario(s, np.uint8(1))
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kanaloa.State"):
        to_scenario(to_scenario(s, 0), 0)  # type: ignore[arg-type]


def random_positions(cfg: Config, games: int, seed: int, every: int = 3) -> list[State]:
    """Batch-1 states of random games at every `every`-th decision, to the end."""
    rng = np.random.default_rng(seed)
    s = init(cfg, games, seed=seed)
    out = []
    t = 0
    while True:
        if t % every == 0:
            out += [s.take([i]) for i in range(games)]
        if s.done.all():
            return out
        s = step(s, np.argmax(rng.random(s.legal.shape) * s.legal, axis=1))
        t += 1


CONFIGS = [
    Config(num_players=3),
    Config(num_players=4, nil_announcement=True),
    Config(num_players=5, nil_announcement=True, dolphin_chain=True),
    Config(num_players=4, dolphin="automatic", reward="rank", max_rounds=2),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: repr(c.overrides() | {"P": c.num_players}))
def test_round_trip_at_random_positions(cfg: Config) -> None:
    positions = random_positions(cfg, games=6, seed=cfg.num_players)
    phases = set()
    for s in positions:
        for include_key in (False, True):
            sc = to_scenario(s, 0, include_key=include_key)
            assert to_scenario(from_scenario(sc), 0, include_key=include_key) == sc
        phases.add(sc["phase"])
    assert {"play", "remove_round_end", "game_over"} <= phases


def assert_same_game(a: State, b: State, where: str, rewards: bool = True) -> None:
    """Two batch-1 states describe the same position (their storage may differ).

    Rewards belong to the last step, not to the position: compare them after steps.
    """
    assert to_scenario(a, 0, include_key=True) == to_scenario(b, 0, include_key=True), where
    np.testing.assert_array_equal(a.legal, b.legal, err_msg=where)
    if rewards:
        np.testing.assert_array_equal(a.rewards, b.rewards, err_msg=where)
    assert a.terminated[0] == b.terminated[0] and a.truncated[0] == b.truncated[0], where
    if not a.done[0]:
        np.testing.assert_array_equal(observe(a), observe(b), err_msg=where)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: repr(c.overrides() | {"P": c.num_players}))
def test_play_continues_identically_from_a_loaded_scenario(cfg: Config) -> None:
    """A loaded position plays on exactly like the original, future deals included."""
    rng = np.random.default_rng(1)
    positions = random_positions(cfg, games=4, seed=10 + cfg.num_players, every=7)
    for n, original in enumerate(positions[::10]):
        loaded = from_scenario(to_scenario(original, 0, include_key=True))
        assert_same_game(loaded, original, f"position {n} loaded", rewards=False)
        for t in range(40):
            if original.done[0]:
                break
            a = np.array([rng.choice(np.flatnonzero(original.legal[0]))])
            original, loaded = step(original, a), step(loaded, a)
            assert_same_game(loaded, original, f"position {n}, step {t}")


def test_without_key_the_seed_fixes_future_deals() -> None:
    sc = make(
        route=ROUTE_4,
        boats=[0, 0, 0, 0],
        hands=[["kanaloa"], ["red-1"], ["red-2"], ["red-3"]],
        trick_number=7,
    )
    a = load(sc, seed=5)
    assert a.equal(load(sc, seed=5))
    assert not a.equal(load(sc, seed=6))
    assert int(load({**sc, "key": 12345}, seed=6).key[0]) == 12345


def test_observation_between_tricks_survives_the_round_trip() -> None:
    """R5.5 / SCENARIO.md: a position waiting for a dolphin decision loads unchanged.

    P0 leads the race on field 12 (red) and wins a green trick, landing on the
    dolphin field 13 (blue). No trick is open now: no suit to follow, and the trump
    the position shows is the leading boat's colour (blue), as the scenario derives.
    """
    sc = make(
        route=ROUTE_4,
        boats=[12, 0, 0, 0],
        hands=[["green-12", "green-1"], ["green-2", "green-3"], ["green-4", "green-5"]]
        + [["green-6", "green-7"]],
        trick_number=6,
    )
    s = load(sc)
    for card in ("green-12", "green-2", "green-4", "green-6"):
        s = step(s, np.array([card_from_name(card)]))
    assert to_scenario(s, 0)["phase"] == "dolphin"
    loaded = from_scenario(to_scenario(s, 0, include_key=True))
    assert_same_game(loaded, s, "dolphin decision", rewards=False)
    assert int(s.lead_suit[0]) == -1 and int(s.trump[0]) == Suit.BLUE


# ---- inconsistencies are rejected, naming the key -------------------------------


def _mut(fn) -> dict[str, Any]:
    sc = example()
    fn(sc)
    return sc


def _set(**kv: Any):
    def fn(sc: dict[str, Any]) -> None:
        sc.update(kv)

    return fn


def _hand(p: int, cards: list[str]):
    def fn(sc: dict[str, Any]) -> None:
        sc["hands"][p] = cards

    return fn


def _boat(p: int, **kv: Any):
    def fn(sc: dict[str, Any]) -> None:
        sc["boats"][p].update(kv)

    return fn


def _route(fn_route):
    def fn(sc: dict[str, Any]) -> None:
        fn_route(sc["route"])

    return fn


H0 = example()["hands"][0]
BAD = {
    # a card twice: in two hands, in a hand and played, twice in one hand
    "card in two hands": (_hand(0, H0[:-1] + ["blue-3"]), r"hands/played_this_round.*twice"),
    "card held and played": (_hand(0, H0[:-1] + ["blue-1"]), r"hands/played_this_round.*twice"),
    "card twice in a hand": (_hand(0, H0[:-1] + [H0[0]]), r"hands\[0\].*twice"),
    "four kanaloa": (_hand(0, H0[:-3] + ["kanaloa"] * 3), r"hands/played_this_round.*kanaloa"),
    "unknown card": (_hand(0, H0[:-1] + ["pink-3"]), r"'hands\[0\]\[6\]' is an unknown card"),
    # boats
    "boat on a removed card": (
        _boat(0, field=20, progress=1),
        r"'boats\[0\]\.field' must be an int in 0\.\.19",
    ),
    "two boats on one field": (
        lambda sc: [sc["boats"][p].update(field=3, progress=-16) for p in (0, 1)],
        r"'boats': players 0 and 1 share field 3",
    ),
    "start field shared after leaving": (
        _boat(1, progress=20),
        r"'boats': players 0 and 1 share field 19",
    ),
    "progress contradicts fields": (_boat(0, field=2, progress=5), r"'boats'.*contradicts"),
    "wrong number of boats": (lambda sc: sc["boats"].pop(), r"'boats' must have 3 entries"),
    # hands of the wrong size
    "hand too small": (_hand(1, example()["hands"][1][:-1]), r"'hands\[1\]' must hold 7 cards"),
    "hand too big before playing": (
        _hand(2, example()["hands"][2] + ["red-12"]),
        r"'hands\[2\]' must hold 8 cards",
    ),
    # phases that cannot occur
    "unknown phase": (_set(phase="bidding"), r"'phase' must be one of"),
    "announce without variant": (_set(phase="announce"), r"'phase'.*nil_announcement"),
    "round-end removal mid-round": (_set(phase="remove_round_end"), r"'phase'.*8th trick"),
    "octopus removal without octopus": (_set(phase="remove_octopus"), r"'phase'.*octopus"),
    "dolphin without pending": (_set(phase="dolphin"), r"'pending'"),
    "dolphin with cards in the trick": (_set(phase="dolphin", pending="trick"), r"'trick'"),
    "pending outside dolphin": (_set(pending="trick"), r"'pending' is only allowed"),
    "game over with a player to act": (_set(phase="game_over"), r"'to_act' must be null"),
    "winner while playing": (_set(winner=1), r"'winner' must be null"),
    # turn order, trick and cards played
    "wrong player to act": (_set(to_act=1), r"'to_act'"),
    "trick out of turn order": (
        lambda sc: sc["trick"][1].update(player=2),
        r"'trick\[1\]\.player' must be 1",
    ),
    "played does not end with the trick": (
        _set(played_this_round=["blue-2", "blue-1"]),
        r"'played_this_round' must end with",
    ),
    "played has too few cards": (
        _set(played_this_round=["blue-2"]),
        r"'played_this_round' must hold",
    ),
    "tricks won do not add up": (_set(tricks_won=[1, 0, 0]), r"'tricks_won'"),
    "announced with variant off": (_set(announced=[True, None, None]), r"'announced'"),
    "trick number out of range": (_set(trick_number=9), r"'trick_number'"),
    "round zero": (_set(round=0), r"'round'"),
    "leader out of range": (_set(leader=3), r"'leader'"),
    # route and removed cards
    "route card twice": (
        _route(lambda r: r.__setitem__(1, copy.deepcopy(r[0]))),
        r"'route\[1\]\.id'.*twice|'removed'",
    ),
    "route fields not the card's": (
        _route(lambda r: r[0]["fields"][0].update(color="blue")),
        r"'route\[0\]\.fields'",
    ),
    "route too short": (_route(lambda r: r.__delitem__(slice(2, None))), r"'route' must hold"),
    "removed lists a route card": (_set(removed=[8, 9, 6]), r"'removed'"),
    "removed misses a card": (_set(removed=[8]), r"'removed'"),
    "unknown config key": (_set(config={"dolphins": True}), r"'config'.*unknown config keys"),
    "bad config value": (_set(config={"max_rounds": 0}), r"'config'.*max_rounds"),
    "voids with a bad suit": (
        _set(voids=[["pink"], [], []]),
        r"'voids\[0\]\[0\]' must be a suit name",
    ),
    "key out of range": (_set(key=-1), r"'key'"),
    "num_players out of range": (_set(num_players=6), r"'num_players'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_inconsistent_scenario_is_rejected_naming_the_key(case: str) -> None:
    fn, match = BAD[case]
    with pytest.raises(ValueError, match=match):
        from_scenario(_mut(fn))


def test_missing_key_is_named() -> None:
    for key in ("route", "boats", "hands", "round", "trick", "played_this_round"):
        sc = example()
        del sc[key]
        with pytest.raises(ValueError, match=f"'{key}'"):
            from_scenario(sc)


def test_a_removal_phase_needs_a_removable_card() -> None:
    # An octopus on a 3-card route waits for no removal (R7.2).
    sc = make(
        route=[0, 2, 4],
        boats=[0, 0, 0, 0],
        hands=[["red-1"], [], ["red-2"], ["red-3"]],
        trick=["octopus"],
        leader=1,
        trick_number=7,
        phase="remove_octopus",
    )
    with pytest.raises(ValueError, match=r"'phase': remove_octopus but no ocean card"):
        from_scenario(sc)


def test_not_a_dict_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="dict"):
        from_scenario([])  # type: ignore[arg-type]
