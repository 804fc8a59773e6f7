"""Hostile and impossible scenarios (issue 19.2) and real dumps that must load (19.3).

Every position `from_scenario` accepts passes `check_invariants`; everything else is
a ValueError naming the key, also for input of the wrong type, nested without end or
with numbers near 2**31. And no position real play reaches is rejected: every
position of random games at 3, 4 and 5 players dumps, loads, passes the checker and
dumps again the same.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit import ROUTE_4, act, at_start, hands_for, load, make, win_trick

from kanaloa_env.core.kanaloa import Config, State, from_scenario, init, observe, step, to_scenario
from kanaloa_env.core.kanaloa.config import MAX_MAX_ROUNDS
from kanaloa_env.core.kanaloa.constants import (
    KANALOA_BITS,
    MAX_PROGRESS,
    OCTOPUS_BITS,
    PAYOUT_STEPS,
    TRICKS_PER_ROUND,
)
from kanaloa_env.core.scenario_checks import MAX_NESTING
from kanaloa_env.testing import check_invariants

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def example() -> dict[str, Any]:
    """SCENARIO.md's example: 3 players, first trick, blue 1 and blue 2 played."""
    return json.loads((SCENARIOS / "scenario_md_example.json").read_text())


def rejected(sc: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_scenario(sc)


# ---- 19.2: positions the rules cannot reach ------------------------------------------


def test_a_boat_more_than_a_lap_ahead_while_the_game_goes_on_is_rejected() -> None:
    # Boat 1 on field 4 with progress 48 is two laps of 22 past field 4: 43 fields
    # ahead of boat 0 (R9.2 would have ended the game); the observation's lapping
    # distances then left their declared bounds.
    sc = make(
        route=ROUTE_4,
        boats=[5, 4, 10, 12],
        progress=[5, 48, 10, 12],
        hands=hands_for(0),
        trick_number=6,
    )
    rejected(sc, r"^scenario key 'boats': boat 1 is more than a lap \(22 fields\) ahead")
    sc["boats"][1]["progress"] = 26  # 21 fields ahead: the game goes on
    check_invariants(from_scenario(sc))


def test_a_winner_who_never_lapped_is_rejected() -> None:
    sc = make(
        route=ROUTE_4,
        boats=[5, 4, 10, 12],
        progress=[5, 26, 10, 12],
        hands=hands_for(1, cards=1),
        trick_number=7,
        phase="game_over",
    )
    sc["winner"] = 1
    rejected(sc, r"^scenario key 'winner': player 1 did not lap the last boat")
    # The same game after boat 1 really lapped boat 0 (R9.2) loads.
    won = win_trick(load({**sc, "phase": "play", "winner": None, "to_act": 0}), 1)
    dump = to_scenario(won, 0)
    assert dump["phase"] == "game_over" and dump["winner"] == 1
    check_invariants(from_scenario(dump))
    # One move laps and ends the game: a winner two laps ahead, or another boat more
    # than a lap ahead, never stands at the end (a dump once observed progress at -9.5
    # against declared bounds of -2..2).
    F = 2 * len(dump["route"])
    progress = [b["progress"] for b in dump["boats"]]
    last = progress.index(min(progress))
    behind = copy.deepcopy(dump)
    behind["boats"][last]["progress"] -= F
    rejected(behind, r"^scenario key 'winner': player 1 is two laps \(44 fields\) or more ahead")
    other = next(p for p in range(4) if p not in (1, last))
    ahead = copy.deepcopy(dump)
    ahead["boats"][other]["progress"] += F
    rejected(ahead, r"^scenario key 'boats': a boat besides the winner 1 is more than a lap")


def test_a_running_game_without_a_legal_action_is_rejected() -> None:
    # Phase play after the 8th trick: nobody holds a card, every action was refused.
    sc = make(route=ROUTE_4, boats=at_start(), hands=[[]] * 4, trick_number=8)
    rejected(sc, r"^scenario key 'phase': play needs a trick to play")


def test_a_truncated_game_must_end_round_max_rounds() -> None:
    sc = make(route=ROUTE_4, boats=at_start(), hands=[[]] * 4, trick_number=8, phase="game_over")
    rejected(sc, r"^scenario key 'winner' is null in phase game_over, which means truncated")
    sc["config"] = {"max_rounds": 1}
    assert bool(from_scenario(sc).truncated[0])


@pytest.mark.parametrize("progress", [2**31 - 2, -(2**31) + 1, MAX_PROGRESS + 1, 10**30])
def test_progress_past_the_bound_is_rejected(progress: int) -> None:
    sc = make(route=ROUTE_4, boats=at_start(), hands=hands_for(0), progress=[progress] * 4)
    rejected(sc, rf"^scenario key 'boats\[0\]\.progress' must be an int in -{MAX_PROGRESS}\.\.")


@pytest.mark.parametrize("sign", [1, -1])
def test_progress_at_the_bound_plays_a_whole_game(sign: int) -> None:
    # A game started at the bound plays to its end with valid states (no int32 overflow).
    sc = make(
        route=ROUTE_4,
        boats=at_start(),
        hands=hands_for(0),
        trick_number=6,
        progress=[sign * MAX_PROGRESS] * 4,
    )
    state = from_scenario(sc)
    rng = np.random.default_rng(0)
    while not state.done[0]:
        state = step(state, np.array([rng.choice(np.flatnonzero(state.legal[0]))]))
        check_invariants(state)
    assert int(state.progress.min()) >= sign * MAX_PROGRESS  # the last boat never moves back


def test_the_progress_bound_is_beyond_any_real_game() -> None:
    # constants.MAX_PROGRESS: per round at most 8 tricks and 5 payout turns move a boat,
    # each raising the least progress by at most a lap (24 fields) while no boat is a
    # lap ahead; over the longest game that stays below the bound, and a game started
    # at the bound stays where 8 * progress fits an int32 (route.py's arithmetic).
    per_round = (TRICKS_PER_ROUND + 5) * 24
    assert PAYOUT_STEPS == 3  # (a payout turn is one player's three steps and a dolphin)
    longest = MAX_MAX_ROUNDS * per_round + 2 * 24
    assert longest < MAX_PROGRESS
    assert 8 * (MAX_PROGRESS + longest) < 2**31


# ---- 19.2: input of the wrong type, nested without end -------------------------------


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


BAD_TYPES: dict[str, tuple[Any, str]] = {
    # (mutation of the example, the key the message names)
    "removed holds a string": (lambda sc: sc.update(removed=["8", 9]), r"'removed\[0\]'"),
    "removed holds floats": (lambda sc: sc.update(removed=[8.0, 9.0]), r"'removed\[0\]'"),
    "removed holds a bool": (lambda sc: sc.update(removed=[8, True]), r"'removed\[1\]'"),
    "removed twice": (lambda sc: sc.update(removed=[8, 9, 9]), r"'removed\[2\]'"),
    "a bool as trick player": (
        lambda sc: sc["trick"][1].update(player=True),
        r"'trick\[1\]\.player' must be 1",
    ),
    "a float as trick player": (
        lambda sc: sc["trick"][1].update(player=1.0),
        r"'trick\[1\]\.player' must be 1",
    ),
    "a bool as to_act": (lambda sc: sc.update(to_act=True), r"'to_act' must be an int"),
    "a float as num_players": (lambda sc: sc.update(num_players=3.0), r"'num_players'"),
    "a string as round": (lambda sc: sc.update(round="1"), r"'round' must be an int"),
    "a float as boat field": (
        lambda sc: sc["boats"][0].update(field=19.0),
        r"'boats\[0\]\.field' must be an int",
    ),
    "a bool as progress": (
        lambda sc: sc["boats"][0].update(progress=False),
        r"'boats\[0\]\.progress' must be an int",
    ),
    "a float in tricks_won": (lambda sc: sc.update(tricks_won=[0.0, 0, 0]), r"'tricks_won\[0\]'"),
    "an int as announcement": (
        lambda sc: sc.update(config={"nil_announcement": True}, announced=[1, 0, 0]),
        r"'announced\[0\]' must be true, false or null",
    ),
    "a string as dolphin flag": (
        lambda sc: sc["route"][3]["fields"][0].update(dolphin="yes"),
        r"'route\[3\]\.fields\[0\]\.dolphin' must be true or false",
    ),
    "a number as colour": (
        lambda sc: sc["route"][0]["fields"][0].update(color=2),
        r"'route\[0\]\.fields\[0\]\.color' must be one of",
    ),
    "a tuple as hand": (
        lambda sc: sc["hands"].__setitem__(0, tuple(sc["hands"][0])),
        r"'hands\[0\]' must be a list",
    ),
    "a number as card": (
        lambda sc: sc["hands"][0].__setitem__(0, 5),
        r"'hands\[0\]\[0\]' is an unknown card",
    ),
    "a list as phase": (lambda sc: sc.update(phase=["play"]), r"'phase' must be one of"),
    "a float key": (lambda sc: sc.update(key=5.0), r"'key' must be an int"),
    "an unknown key": (lambda sc: sc.update(void=[]), r"'void' is unknown"),
    "an unknown boat key": (
        lambda sc: sc["boats"][0].update(speed=1),
        r"'boats\[0\]' has unknown keys \['speed'\]",
    ),
    "a missing field flag": (
        lambda sc: sc["route"][0]["fields"][0].pop("start"),
        r"'route\[0\]\.fields\[0\]' must be a dict with keys .* missing \['start'\]",
    ),
    "removed nested 100,000 deep": (lambda sc: sc.update(removed=_deep(100_000)), r"'removed'"),
    "played nested 100,000 deep": (
        lambda sc: sc.update(played_this_round=_deep(100_000)),
        r"'played_this_round'",
    ),
    "config nested 100,000 deep": (
        lambda sc: sc.update(config={"ocean_deck": _deep(100_000)}),
        r"'config'",
    ),
    "a list inside itself": (lambda sc: sc["removed"].append(sc["removed"]), r"'removed'"),
    "a huge number": (lambda sc: sc.update(round=10**5000), r"'round' must be an int .* bits"),
    "a long string": (lambda sc: sc.update(phase="x" * 10**6), r"'phase' must be one of"),
    "a long config value": (
        lambda sc: sc.update(config={"dolphin": "x" * 10**6}),
        r"'config' is invalid: Config.dolphin must be one of",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_TYPES))
def test_wrong_types_and_endless_nesting_are_rejected_naming_the_key(case: str) -> None:
    fn, key = BAD_TYPES[case]
    sc = example()
    fn(sc)
    with pytest.raises(ValueError, match=rf"^scenario key {key}") as info:
        from_scenario(sc)
    assert len(str(info.value)) < 1000  # a short message, whatever the input's size


def test_nesting_is_bounded_before_anything_recursive() -> None:
    sc = example()
    # removed[1] is a list at depth 2 (the scenario's keys are depth 1), here holding
    # lists down to depth MAX_NESTING: within the bound, an ordinary wrong type.
    sc["removed"] = [8, _deep(MAX_NESTING - 2)]
    rejected(sc, r"^scenario key 'removed\[1\]' must be an int")
    sc["removed"] = [8, _deep(MAX_NESTING - 1)]
    rejected(sc, rf"^scenario key 'removed' nests lists or dicts more than {MAX_NESTING} deep")


def test_numpy_integers_are_ints() -> None:
    sc = example()
    sc["to_act"], sc["boats"][0]["field"] = np.int64(2), np.uint8(19)
    assert to_scenario(from_scenario(sc), 0) == example()


def test_a_void_in_a_suit_the_player_holds_is_rejected() -> None:
    sc = example()
    sc["voids"] = [[], [], ["blue"]]  # player 2 holds blue 3 and blue 11
    rejected(sc, r"^scenario key 'voids\[2\]' says player 2 lacks blue")
    sc["voids"] = [[], [], ["turquoise"]]
    assert to_scenario(from_scenario(sc), 0)["voids"] == [[], [], ["turquoise"]]


def test_a_dolphin_decision_needs_a_boat_on_an_eligible_dolphin() -> None:
    sc = make(route=ROUTE_4, boats=[12, 0, 0, 0], hands=hands_for(0), trick_number=6)
    state = win_trick(load(sc), 0)  # boat 0 lands on the dolphin field 13
    dump = to_scenario(state, 0)
    assert dump["phase"] == "dolphin"
    check_invariants(from_scenario(dump))
    moved = copy.deepcopy(dump)
    moved["boats"][0].update(field=15, progress=moved["boats"][0]["progress"] + 2)
    rejected(moved, r"^scenario key 'phase': dolphin, but boat 0 does not stand on a dolphin")
    other = copy.deepcopy(dump)
    other["to_act"] = 2
    rejected(other, r"^scenario key 'pending': 'trick': the winner of a trick")


# ---- 19.3: dumps of real games load into states that pass the checker ----------------


def test_the_rulebook_example_passes_the_checker() -> None:
    # Players 1 and 3 each hold a Kanaloa card: the copies take distinct hand bits.
    sc = json.loads((SCENARIOS / "rulebook_example.json").read_text())
    state = from_scenario(sc)
    check_invariants(state)
    kanaloa = state.hands[0] & KANALOA_BITS
    assert int(kanaloa[1]) and int(kanaloa[3]) and not int(kanaloa[1] & kanaloa[3])
    assert to_scenario(state, 0) == sc


def test_special_copies_take_distinct_bits_in_every_hand() -> None:
    hands = [
        ["kanaloa", "octopus"],
        ["kanaloa", "octopus"],
        ["kanaloa", "red-3"],
        ["red-1", "red-2"],
    ]
    state = load(make(route=ROUTE_4, boats=at_start(), hands=hands, trick_number=6))
    check_invariants(state)
    specials = state.hands[0] & (KANALOA_BITS | OCTOPUS_BITS)
    assert int(np.bitwise_or.reduce(specials)) == int(KANALOA_BITS | OCTOPUS_BITS)
    assert sum(int(x).bit_count() for x in specials) == 5
    # And play goes on from it as from a deal: each plays a copy, none is lost.
    after = act(state, "kanaloa", "octopus")
    check_invariants(after)


def _dump_every_position(cfg: Config, games: int, seed: int, every: int) -> int:
    """Every `every`-th position of random games to their ends: dump, load, check,
    dump again equal; the loaded batch is also checked as one. Returns the count."""
    rng = np.random.default_rng(seed)
    s = init(cfg, games, seed=seed)
    n, t = 0, 0
    while True:
        if t % every == 0 or s.done.all():
            loaded = []
            for i in range(games):
                sc = to_scenario(s, i, include_key=True)
                state = from_scenario(sc)
                assert to_scenario(state, 0, include_key=True) == sc, (cfg, t, i)
                loaded.append(state)
            check_invariants(State.concatenate(loaded))
            n += games
        if s.done.all():
            return n
        s = step(s, np.argmax(rng.random(s.legal.shape) * s.legal, axis=1))
        t += 1


DUMP_CONFIGS = [
    Config(num_players=3),
    Config(num_players=4, nil_announcement=True),
    Config(num_players=5, nil_announcement=True, dolphin_chain=True),
    Config(num_players=4, nil_announcement=True, announced_boat_moves=True, dolphin="automatic"),
]


@pytest.mark.parametrize("cfg", DUMP_CONFIGS, ids=lambda c: f"P{c.num_players}-{c.overrides()}")
def test_dumps_of_random_games_load_and_pass_the_checker(cfg: Config) -> None:
    assert _dump_every_position(cfg, games=12, seed=cfg.num_players, every=5) > 300


@pytest.mark.slow
@pytest.mark.parametrize("cfg", DUMP_CONFIGS, ids=lambda c: f"P{c.num_players}-{c.overrides()}")
def test_dumps_of_hundreds_of_random_games_at_every_position(cfg: Config) -> None:
    _dump_every_position(cfg, games=200, seed=100 + cfg.num_players, every=1)


def test_loaded_observations_stay_within_the_declared_bounds() -> None:
    # A boat a lap ahead in a running game once gave lapping features of 833.
    from kanaloa_env.games import get_game

    low, high = get_game("kanaloa").observation_bounds()
    sc = make(
        route=ROUTE_4,
        boats=[5, 4, 10, 12],
        progress=[5, 26, 10, 12],
        hands=hands_for(0),
        trick_number=6,
    )
    state = from_scenario(sc)
    for seat in range(4):
        obs = observe(state, seat=seat)[0]
        assert (obs >= low).all() and (obs <= high).all()
