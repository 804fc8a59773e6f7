"""The observation through the AEC env: generated docs, hidden information, decode().

Expectations are derived from scenario dicts (SCENARIO.md) by rules written here
in plain Python, never from the encoder itself.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.aec import raw_env
from kanaloa_env.core.kanaloa import OBS_DIM, Config, decode, init, observe
from kanaloa_env.core.kanaloa.constants import (
    CARD_NAMES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_TIKI,
    PENDING_NAMES,
    PHASE_NAMES,
    SUIT_NAMES,
    Pending,
    Phase,
)
from kanaloa_env.core.kanaloa.observation import OBS_LAYOUT, layout_markdown
from kanaloa_env.core.kanaloa.ocean import DEFAULT_OCEAN_DECK

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "tests" / "scenarios" / "scenario_md_example.json"
FULL_DECK = list(CARD_NAMES[:NUM_TIKI]) + ["kanaloa"] * NUM_KANALOA + ["octopus"] * NUM_OCTOPUS


def _example() -> dict:
    return json.loads(SCENARIO.read_text())


def _env_at(sc: dict) -> raw_env:
    e = raw_env(num_players=sc["num_players"], **sc["config"])
    e.reset(seed=0, options={"scenario": copy.deepcopy(sc)})
    return e


# The default deck with red and green swapped and the cards in reverse order.
_OTHER_DECK = tuple(
    tuple(f.replace("red", "RED").replace("green", "red").replace("RED", "green") for f in card)
    for card in reversed(DEFAULT_OCEAN_DECK)
)


def _positions() -> list[dict]:
    """Scenario dumps of random games in every phase, 3-5 players, with the variant."""
    out = [_example()]
    rng = np.random.default_rng(7)
    for P, nil, seed in ((3, False, 1), (4, True, 2), (5, True, 3), (4, False, 4), (3, True, 5)):
        # The last game uses another ocean deck: the route reads its colours, dolphins
        # and start field from the deck in use (R1.3).
        deck = {} if seed < 5 else {"ocean_deck": _OTHER_DECK}
        e = raw_env(num_players=P, nil_announcement=nil, **deck)
        e.reset(seed=seed)
        phases: dict[str, int] = {}
        n = 0
        while not e.terminations[e.agent_selection] and not e.truncations[e.agent_selection]:
            sc = e.to_scenario()
            if phases.get(sc["phase"], 0) < 2 and (n % 11 == 0 or sc["phase"] != "play"):
                phases[sc["phase"]] = phases.get(sc["phase"], 0) + 1
                out.append(sc)
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
            n += 1
        out.append(e.to_scenario())  # game over
    return out


POSITIONS = _positions()


def test_positions_cover_every_phase() -> None:
    phases = {sc["phase"] for sc in POSITIONS}
    assert {"announce", "play", "remove_octopus", "remove_round_end", "game_over"} <= phases
    start_cards = {3: 10, 4: 11, 5: 12}  # R2.1
    assert any(len(sc["route"]) < start_cards[sc["num_players"]] for sc in POSITIONS)  # removals


# ---- docs/observation.md ------------------------------------------------------------


def test_observation_doc_is_generated_from_the_layout() -> None:
    doc = (ROOT / "docs" / "observation.md").read_text()
    assert doc == layout_markdown(), (
        "docs/observation.md is stale: run "
        "`python -m kanaloa_env.core.kanaloa.observation > docs/observation.md`"
    )
    assert f"**{OBS_DIM}**" in doc
    for name, size, _ in OBS_LAYOUT:
        assert f"| `{name}` |" in doc and f"| {size} |" in doc


# ---- only what the player may know ----------------------------------------------------


def _reshuffle_others(sc: dict, seat: int, rng: np.random.Generator) -> dict:
    """The same position with every other player's hand redrawn from the cards `seat`
    cannot see (other hands and the unused rest of the deck), sizes kept, and another
    random key (future deals). The redraw respects what `seat` does know of the other
    hands: the public voids (a player who showed it lacks a suit holds none, R4.3)."""
    out = copy.deepcopy(sc)
    pool = list(FULL_DECK)
    for c in sc["played_this_round"] + sc["hands"][seat]:
        pool.remove(c)
    voids = sc.get("voids", [[] for _ in sc["hands"]])
    others = sorted((p for p in range(len(sc["hands"])) if p != seat), key=lambda p: -len(voids[p]))
    for _ in range(100):  # (the most constrained players draw first; retry if stuck)
        rest = [pool[i] for i in rng.permutation(len(pool))]
        for p in others:
            allowed = [c for c in rest if c.split("-")[0] not in voids[p]]
            n = len(sc["hands"][p])
            if len(allowed) < n:
                break
            out["hands"][p] = allowed[:n]
            for c in allowed[:n]:
                rest.remove(c)
        else:
            out["key"] = int(rng.integers(0, 2**63))
            return out
    raise AssertionError("no redraw of the other hands fits the voids")


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_other_hands_do_not_change_an_observation(index: int) -> None:
    sc = POSITIONS[index]
    rng = np.random.default_rng(index)
    base = _env_at(sc)
    for seat, agent in enumerate(base.possible_agents):
        want = base.observe(agent)
        for _ in range(3):
            other = _reshuffle_others(sc, seat, rng)
            assert other["hands"] != sc["hands"] or not any(
                sc["hands"][p] for p in range(len(sc["hands"])) if p != seat
            )
            got = _env_at(other).observe(agent)
            np.testing.assert_array_equal(got["observation"], want["observation"])
            np.testing.assert_array_equal(got["action_mask"], want["action_mask"])


def test_own_hand_does_change_the_observation() -> None:
    # The control for the test above: the same swap seen from the player who loses a card.
    sc = _example()
    swapped = copy.deepcopy(sc)
    a, b = sc["hands"][0][0], sc["hands"][2][0]
    swapped["hands"][0][0], swapped["hands"][2][0] = b, a
    for agent in ("player_0", "player_2"):
        before = _env_at(sc).observe(agent)["observation"]
        after = _env_at(swapped).observe(agent)["observation"]
        assert not np.array_equal(before, after)
    np.testing.assert_array_equal(
        _env_at(sc).observe("player_1")["observation"],
        _env_at(swapped).observe("player_1")["observation"],
    )


# ---- decode() -------------------------------------------------------------------------


def _canonical(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_NAMES.index)


def _expected_view(sc: dict, seat: int) -> dict:
    """What `decode(observation of seat)` must say, from the scenario and the rules."""
    P = sc["num_players"]
    at = [(seat + r) % P for r in range(P)]  # absolute seat of each relative seat
    fields = [f for card in sc["route"] for f in card["fields"]]
    F = len(fields)
    boats = [b["field"] for b in sc["boats"]]
    prog = [b["progress"] for b in sc["boats"]]
    own = boats[seat]
    others = [prog[p] for p in range(P) if p != seat]
    tiki = [t["card"] for t in sc["trick"] if t["card"] not in ("kanaloa", "octopus")]
    leading = max(range(P), key=lambda p: prog[p])  # R8.1; ties only on the start field
    voids = sc.get("voids", [[] for _ in range(P)])
    return {
        "hand": _canonical(sc["hands"][seat]),
        "trick": {(t["player"] - seat) % P: t["card"] for t in sc["trick"]},
        "trick_leader_rel": (sc["leader"] - seat) % P,
        "lead_suit": tiki[0].split("-")[0] if tiki else None,
        "trump": fields[boats[leading]]["color"],  # R8.2
        "route": [
            {
                "ahead": k,
                "color": fields[(own + k) % F]["color"],
                "dolphin": fields[(own + k) % F]["dolphin"],
                "start": fields[(own + k) % F]["start"],
                "occupied": (own + k) % F in boats,
            }
            for k in range(F)
        ],
        "boats_ahead_rel": [(boats[p] - own) % F for p in at],
        "progress_rel": [prog[p] - prog[seat] for p in at],
        "lap_length": F,
        "fields_to_lap_last": F + 1 - (prog[seat] - min(others)),  # R9.2
        "fields_until_lapped": F + 1 - (max(others) - prog[seat]),
        "tricks_won_rel": [sc["tricks_won"][p] for p in at],
        "played_this_round": _canonical(sc["played_this_round"]),
        "voids_rel": {r: sorted(voids[p], key=SUIT_NAMES.index) for r, p in enumerate(at)},
        "announced_rel": [sc["announced"][p] for p in at],
        "phase": sc["phase"],
        "pending": sc.get("pending", "none"),
        "trick_number": sc["trick_number"],
        "ocean_cards": len(sc["route"]),
        "num_players": P,
        "to_act": sc["to_act"] == seat,
    }


def test_decode_names_the_parts_of_the_scenario_md_example() -> None:
    # SCENARIO.md: 3 players, first trick, player 0 led blue-1, player 1 played blue-2,
    # player 2 to act; every boat on the start field (the blue second field of card 0,
    # the last card of the route); cards 8 and 9 are out.
    e = _env_at(_example())
    d = decode(e.observe("player_2")["observation"])
    assert d["hand"] == [
        "blue-3",
        "blue-11",
        "red-4",
        "red-5",
        "red-11",
        "green-2",
        "green-3",
        "green-7",
    ]
    assert d["trick"] == {1: "blue-1", 2: "blue-2"}  # player 0 is 1 seat after player 2
    assert d["trick_leader_rel"] == 1
    assert (d["lead_suit"], d["trump"]) == ("blue", "blue")  # R4.2, R8.2 (start field)
    assert d["route"][0] == {
        "ahead": 0,
        "color": "blue",
        "dolphin": False,
        "start": True,
        "occupied": True,
    }
    # Then the route wraps to its first card (id 6: green, red), then card 4 (blue, turquoise).
    assert [f["color"] for f in d["route"][1:5]] == ["green", "red", "blue", "turquoise"]
    assert [f["dolphin"] for f in d["route"]].count(True) == 5  # card 1, 3, 5, 7, 11
    assert len(d["route"]) == 20 and d["lap_length"] == 20 and d["ocean_cards"] == 10
    assert d["progress_rel"] == [0, 0, 0] and d["boats_ahead_rel"] == [0, 0, 0]
    assert d["fields_to_lap_last"] == 21  # more than one lap (R9.2)
    assert d["tricks_won_rel"] == [0, 0, 0] and d["trick_number"] == 0
    assert d["played_this_round"] == ["blue-1", "blue-2"]
    assert d["announced_rel"] == [None, None, None]
    assert (d["phase"], d["num_players"], d["to_act"]) == ("play", 3, True)

    d0 = decode(e.observe("player_0")["observation"])
    assert d0["hand"] == _canonical(_example()["hands"][0])
    assert d0["trick"] == {0: "blue-1", 1: "blue-2"} and d0["trick_leader_rel"] == 0
    assert d0["to_act"] is False


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_decode_matches_the_position_for_every_seat(index: int) -> None:
    sc = POSITIONS[index]
    e = _env_at(sc)
    for seat, agent in enumerate(e.possible_agents):
        d = decode(e.observe(agent)["observation"])
        want = _expected_view(sc, seat)
        assert {k: d[k] for k in want} == want, f"seat {seat}"


@pytest.mark.parametrize(
    "config",
    [
        Config(num_players=4),
        Config(
            num_players=3,
            nil_announcement=True,
            announced_boat_moves=True,
            dolphin="automatic",
            dolphin_chain=True,
        ),
        Config(num_players=5, dolphin_chain=True),
    ],
)
def test_decision_table_size_and_rules_blocks(config: Config) -> None:
    # Every phase (the dolphin split by what follows it), the table size and the
    # rule options read back from the observation (R3.2, R6.3, R7.4).
    base = init(config, 1, seed=0)
    rules = {
        "nil_announcement": config.nil_announcement,
        "announced_boat_moves": config.announced_boat_moves,
        "dolphin_optional": config.dolphin == "optional",
        "dolphin_chain": config.dolphin_chain,
    }
    cases = [(ph, Pending.NONE) for ph in Phase if ph != Phase.DOLPHIN]
    cases += [(Phase.DOLPHIN, Pending.TRICK), (Phase.DOLPHIN, Pending.PAYOUT)]
    for phase, pending in cases:
        s = base.copy()
        s.phase[0], s.pending[0] = phase, pending
        s.current_player[0] = -1 if phase == Phase.GAME_OVER else 1
        for seat in range(config.num_players):
            d = decode(observe(s, seat=seat)[0])
            assert d["phase"] == PHASE_NAMES[phase]
            assert d["pending"] == PENDING_NAMES[pending]
            assert d["to_act"] == (seat == 1 and phase != Phase.GAME_OVER)
            assert d["rules"] == rules and d["num_players"] == config.num_players
