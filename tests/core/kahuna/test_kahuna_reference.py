"""Tests of the plain-Python Kahuna reference (tests/kahuna_reference.py) alone.

Positions are scenario dicts (KAHUNA-RULES.md "Scenario format"); test names cite the K-ids
they check. No engine is needed: these pin the reference to the spec, so that a later
disagreement with the engine points at the engine or at a reading listed in the reference.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import kahuna_reference as R
import pytest

Scenario = dict[str, Any]


def make(
    *,
    bridges: tuple[list[str], list[str]] = ([], []),
    stones: tuple[list[str], list[str]] = ([], []),
    hands: tuple[list[str], list[str]] = ([], []),
    face_up: list[str | None] | None = None,
    pile: list[str] | None = None,
    discard_down: tuple[list[str], list[str]] = ([], []),
    **fields: Any,
) -> Scenario:
    """A checked scenario: unnamed cards go to `discard_up`; row defaults to the first three.

    `fields` overrides any other key (`scorings`, `turn`, `config`, ...); `to_act` follows
    K3.1 (starting_player XOR turn mod 2) unless given.
    """
    used = Counter(hands[0] + hands[1] + discard_down[0] + discard_down[1] + (pile or []))
    used.update(x for x in (face_up or []) if x is not None)
    rest = sorted((Counter({x: 2 for x in R.ISLANDS}) - used).elements(), key=R.ISLANDS.index)
    if face_up is None:
        face_up, rest = list(rest[:3]), rest[3:]
    if pile is None:  # two cards to draw, unless the row is already running out
        pile, rest = ([], rest) if None in face_up else (rest[:2], rest[2:])
    sc: Scenario = {
        "config": {},
        "starting_player": 0,
        "bridges": [sorted(b, key=R.LINE_INDEX.__getitem__) for b in bridges],
        "stones": [list(s) for s in stones],
        "hands": [sorted(h, key=R.ISLANDS.index) for h in hands],
        "face_up": list(face_up),
        "pile": list(pile or []),
        "discard_up": rest,
        "discard_down": [sorted(d, key=R.ISLANDS.index) for d in discard_down],
        "known": [[], []],
        "scorings": [],
        "phase": "play",
        "handed_back": False,
        "last_turn_skipped": False,
        "final_turns_left": None,
        "turn": 10,
        "winner": None,
        "end_reason": None,
    }
    sc.update(fields)
    if "to_act" not in fields:
        sc["to_act"] = sc["starting_player"] ^ (sc["turn"] % 2)
    R.check(sc)
    return sc


def kinds(actions: set[int]) -> set[str]:
    """The kinds of a set of actions, e.g. {'PLACE', 'END_PLAY', 'TAKE'}."""
    return {R.describe(a).split()[0] for a in actions}


def place(line: str, card: str) -> int:
    return R.action_index("place", line, card)


def remove(line: str, c1: str, c2: str) -> int:
    return R.action_index("remove", line, c1, c2)


def discard(x: str) -> int:
    return R.action_index("discard", x)


TAKE0, TAKE1, TAKE2 = 148, 149, 150
END_PLAY, DRAW, SKIP = R.END_PLAY, R.DRAW, R.SKIP

# Small holdings used below (K1.3: ALOA and LALE need 2 lines, GOLA and COCO 3).
HOLD_ALOA = ["ALOA-BARI", "ALOA-DUDA"]
HOLD_LALE = ["HUNA-LALE", "IFFI-LALE"]
HOLD_GOLA = ["COCO-GOLA", "FAAA-GOLA", "GOLA-JOJO"]


def e1_start() -> Scenario:
    """The spec's worked example E1, as given (round 2, White = 0 to act, turn 40)."""
    return {
        "config": {},
        "starting_player": 0,
        "bridges": [
            ["ALOA-DUDA", "BARI-ELAI", "BARI-FAAA", "DUDA-ELAI", "DUDA-HUNA", "ELAI-HUNA"],
            [
                "ALOA-BARI",
                "ALOA-HUNA",
                "ELAI-FAAA",
                "ELAI-IFFI",
                "ELAI-JOJO",
                "HUNA-IFFI",
                "HUNA-LALE",
            ],
        ],
        "stones": [["DUDA"], ["ALOA", "HUNA"]],
        "hands": [["ALOA", "DUDA", "KAHU"], ["ELAI", "GOLA", "HUNA", "HUNA"]],
        "face_up": ["COCO", "IFFI", "LALE"],
        "pile": ["BARI", "FAAA", "JOJO", "ALOA", "COCO", "GOLA", "KAHU", "LALE"],
        "discard_up": ["BARI", "DUDA", "ELAI", "FAAA", "IFFI", "JOJO"],
        "discard_down": [[], []],
        "scorings": [[0, 1]],
        "to_act": 0,
        "phase": "play",
        "handed_back": False,
        "last_turn_skipped": False,
        "final_turns_left": None,
        "turn": 40,
        "winner": None,
        "end_reason": None,
    }


def test_e1_book_example_step_by_step() -> None:
    sc = e1_start()
    R.check(sc)
    # Before: White holds DUDA (3 of 4); Black ALOA (2 of 3) and HUNA (3 of 5); ELAI 3:3.
    assert R.holder(sc, "DUDA") == 0 and R.line_counts(sc, 0, "DUDA") == 3
    assert R.holder(sc, "ALOA") == 1 and R.holder(sc, "HUNA") == 1
    assert R.line_counts(sc, 0, "ELAI") == R.line_counts(sc, 1, "ELAI") == 3
    assert (R.line_counts(sc, 0, "BARI"), R.line_counts(sc, 1, "BARI")) == (2, 1)
    assert [x for x in R.ISLANDS if R.holder(sc, x) is not None] == ["ALOA", "DUDA", "HUNA"]

    # 1. W PLACE BARI-DUDA with DUDA (9).
    a = R.action_index("place", "BARI-DUDA", "DUDA")
    assert a == 9 and R.describe(a) == "PLACE BARI-DUDA with DUDA"
    sc, r, rs = R.step(sc, a)
    assert (r, rs) == ([0.0, 0.0], False)
    assert R.line_counts(sc, 0, "DUDA") == 4 and R.line_counts(sc, 0, "BARI") == 3
    assert sc["stones"] == [["BARI", "DUDA"], ["HUNA"]]  # BARI claimed; Black's ALOA stone off
    assert "ALOA-BARI" not in sc["bridges"][1] and R.line_counts(sc, 1, "ALOA") == 1

    # 2. W PLACE ALOA-BARI with ALOA (0).
    a = R.action_index("place", "ALOA-BARI", "ALOA")
    assert a == 0
    sc, r, rs = R.step(sc, a)
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]
    assert "ALOA-HUNA" not in sc["bridges"][1] and R.line_counts(sc, 1, "HUNA") == 2
    assert R.line_counts(sc, 0, "BARI") == 4

    # 3. W END_PLAY (147); 4. W TAKE slot 0 (148).
    assert R.action_index("end_play") == 147
    sc, r, rs = R.step(sc, 147)
    assert sc["phase"] == "draw" and sc["to_act"] == 0
    assert R.action_index("take", 0) == 148
    sc, r, rs = R.step(sc, 148)
    assert sc["hands"][0] == ["COCO", "KAHU"]
    assert sc["face_up"] == ["BARI", "IFFI", "LALE"] and sc["pile"][0] == "FAAA"
    assert sc["known"] == [["COCO"], []]
    assert (sc["to_act"], sc["phase"], sc["turn"]) == (1, "play", 41)
    assert sc["bridges"] == [
        [
            "ALOA-BARI",
            "ALOA-DUDA",
            "BARI-DUDA",
            "BARI-ELAI",
            "BARI-FAAA",
            "DUDA-ELAI",
            "DUDA-HUNA",
            "ELAI-HUNA",
        ],
        ["ELAI-FAAA", "ELAI-IFFI", "ELAI-JOJO", "HUNA-IFFI", "HUNA-LALE"],
    ]
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]
    assert R.stone_supply(sc, 1) == 10
    assert sc["discard_up"] == ["ALOA", "BARI", "DUDA", "DUDA", "ELAI", "FAAA", "IFFI", "JOJO"]

    # 5. B REMOVE ELAI-HUNA with HUNA+HUNA (94): no stone changes.
    a = R.action_index("remove", "ELAI-HUNA", "HUNA", "HUNA")
    assert a == 94 and R.describe(a) == "REMOVE ELAI-HUNA with HUNA+HUNA"
    sc, r, rs = R.step(sc, a)
    assert "ELAI-HUNA" not in sc["bridges"][0]
    assert R.holder(sc, "ELAI") is None and R.holder(sc, "HUNA") is None
    assert sc["stones"] == [["ALOA", "BARI", "DUDA"], []]

    # 6. B PLACE ELAI-HUNA with ELAI (26): claims ELAI and HUNA; White loses DUDA's stone.
    a = R.action_index("place", "ELAI-HUNA", "ELAI")
    assert a == 26
    sc, r, rs = R.step(sc, a)
    assert R.line_counts(sc, 1, "ELAI") == 4 and R.line_counts(sc, 1, "HUNA") == 3
    assert sc["stones"] == [["ALOA", "BARI"], ["ELAI", "HUNA"]]
    for gone in ("BARI-ELAI", "DUDA-ELAI", "DUDA-HUNA"):
        assert gone not in sc["bridges"][0]
    assert R.line_counts(sc, 0, "DUDA") == 2 and R.holder(sc, "BARI") == 0

    # 7. B END_PLAY (147); 8. B DRAW (151).
    sc, r, rs = R.step(sc, 147)
    assert sc["phase"] == "draw"
    assert R.action_index("draw") == 151
    sc, r, rs = R.step(sc, 151)
    assert sc["hands"][1] == ["FAAA", "GOLA"]
    assert sc["pile"] == ["JOJO", "ALOA", "COCO", "GOLA", "KAHU", "LALE"]
    assert (sc["to_act"], sc["phase"], sc["turn"]) == (0, "play", 42)
    assert sc["bridges"] == [
        ["ALOA-BARI", "ALOA-DUDA", "BARI-DUDA", "BARI-FAAA"],
        ["ELAI-FAAA", "ELAI-HUNA", "ELAI-IFFI", "ELAI-JOJO", "HUNA-IFFI", "HUNA-LALE"],
    ]
    assert (R.bridge_supply(sc, 0), R.bridge_supply(sc, 1)) == (21, 19)
    assert sc["stones"] == [["ALOA", "BARI"], ["ELAI", "HUNA"]]
    assert sc["discard_up"] == [
        "ALOA",
        "BARI",
        "DUDA",
        "DUDA",
        "ELAI",
        "ELAI",
        "FAAA",
        "HUNA",
        "HUNA",
        "IFFI",
        "JOJO",
    ]
    assert sc["face_up"] == ["BARI", "IFFI", "LALE"]
    assert sc["known"] == [["COCO"], []]
    assert (sc["winner"], sc["end_reason"], sc["scorings"]) == (None, None, [[0, 1]])


# ---- K1: the board ------------------------------------------------------------------

# K1.3 as printed in the spec: island -> (degree, maj, neighbours).
K1_3_TABLE = {
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


def test_k1_2_lines_sorted_with_first_island_first() -> None:
    assert len(R.LINES) == 27 and len(set(R.LINES)) == 27
    assert all(a < b for a, b in R.LINES)
    assert list(R.LINES) == sorted(R.LINES)
    assert R.LINE_INDEX["ALOA-BARI"] == 0 and R.LINE_INDEX["KAHU-LALE"] == 26
    assert R.LINE_INDEX["ELAI-HUNA"] == 13 and R.LINE_INDEX["GOLA-JOJO"] == 18
    assert list(R.ISLANDS) == sorted(R.ISLANDS) and len(R.ISLANDS) == 12


def test_k1_3_degree_table_derived_from_line_list() -> None:
    for x, (deg, maj, neighbours) in K1_3_TABLE.items():
        assert R.DEGREE[x] == deg, x
        assert R.MAJ[x] == maj == deg // 2 + 1, x
        assert " ".join(R.NEIGHBOURS[x]) == neighbours, x
    assert sum(R.DEGREE.values()) == 2 * 27


def test_action_table_names_and_indices_round_trip() -> None:
    seen = set()
    for a in range(R.NUM_ACTIONS):
        words = R.describe(a).split()
        kind = words[0]
        if kind == "PLACE":
            assert R.action_index("place", words[1], words[3]) == a
        elif kind == "REMOVE":
            assert R.action_index("remove", words[1], *words[3].split("+")) == a
        elif kind == "DISCARD":
            assert R.action_index("discard", words[1]) == a
        elif kind == "TAKE":
            assert R.action_index("take", int(words[2])) == a
        else:
            assert R.action_index(kind.lower()) == a
        seen.add(R.describe(a))
    assert len(seen) == R.NUM_ACTIONS
    # The table's formulas: PLACE l = i // 2; REMOVE l = (i - 54) // 3, k = (i - 54) % 3.
    assert R.describe(53) == "PLACE KAHU-LALE with LALE"
    assert R.describe(54) == "REMOVE ALOA-BARI with ALOA+ALOA"
    assert R.describe(55) == "REMOVE ALOA-BARI with BARI+BARI"
    assert R.describe(56) == "REMOVE ALOA-BARI with ALOA+BARI"
    assert R.describe(134) == "REMOVE KAHU-LALE with KAHU+LALE"
    assert R.describe(135) == "DISCARD ALOA" and R.describe(146) == "DISCARD LALE"
    assert R.action_index("remove", ("HUNA", "ELAI"), "HUNA", "ELAI") == 54 + 3 * 13 + 2


@pytest.mark.parametrize(
    "args",
    [
        ("place", "ALOA-BARI", "COCO"),
        ("place", "ALOA-COCO", "ALOA"),
        ("remove", "ALOA-BARI", "ALOA", "COCO"),
        ("take", 3),
        ("discard", "MAUI"),
        ("jump",),
    ],
)
def test_action_index_rejects_bad_names(args: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError):
        R.action_index(*args)


# ---- K2: set-up ---------------------------------------------------------------------


def test_k2_1_deal_in_shuffled_order() -> None:
    deck = [x for x in R.ISLANDS for _ in range(2)]
    random.Random(3).shuffle(deck)
    sc = R.deal(deck, 1)
    R.check(sc)
    assert sorted(sc["hands"][0]) == sorted(deck[0:3])
    assert sorted(sc["hands"][1]) == sorted(deck[3:6])
    assert sc["face_up"] == deck[6:9] and sc["pile"] == deck[9:]
    assert (sc["to_act"], sc["turn"], sc["phase"], sc["scorings"]) == (1, 0, "play", [])
    assert sc["bridges"] == [[], []] and sc["stones"] == [[], []]
    assert sc["discard_up"] == [] and sc["known"] == [[], []] and "key" not in sc
    assert SKIP in R.legal_actions(sc)  # K6.3: the first turn may skip
    with pytest.raises(ValueError, match="first_player"):
        R.deal(deck, 1, {"first_player": 0})
    with pytest.raises(ValueError, match="24 island cards"):
        R.deal(deck[:-1] + ["ALOA"], 0)


# ---- K4: playing cards -----------------------------------------------------------------


def test_k4_1_place_needs_a_free_line_and_a_card_of_an_end() -> None:
    sc = make(bridges=(["ALOA-BARI"], ["ALOA-DUDA"]), hands=(["ALOA", "KAHU"], []))
    plays = {a for a in R.legal_actions(sc) if a < R.REMOVE_BASE}
    # ALOA's lines ALOA-BARI and ALOA-DUDA are taken; KAHU's five lines are free.
    assert plays == {place("ALOA-HUNA", "ALOA")} | {
        place(line, "KAHU")
        for line in ("COCO-KAHU", "GOLA-KAHU", "IFFI-KAHU", "JOJO-KAHU", "KAHU-LALE")
    }


def test_k1_5_empty_bridge_supply_no_place_but_remove() -> None:
    # Player 0 has all 25 bridges down; player 1 owns KAHU-LALE; JOJO-KAHU is free.
    lines0 = [n for n in R.LINE_NAMES if n not in ("JOJO-KAHU", "KAHU-LALE")]
    assert len(lines0) == 25
    held0 = [x for x in R.ISLANDS if R.holder({"bridges": [lines0, ["KAHU-LALE"]]}, x) == 0]
    sc = make(
        bridges=(lines0, ["KAHU-LALE"]),
        stones=(held0[:10], []),
        hands=(["KAHU", "KAHU", "LALE"], []),
    )
    assert R.bridge_supply(sc, 0) == 0 and R.owner(sc, R.LINE_INDEX["JOJO-KAHU"]) is None
    legal = R.legal_actions(sc)
    assert not {a for a in legal if a < R.REMOVE_BASE}  # JOJO-KAHU is free but no bridge left
    assert {remove("KAHU-LALE", "KAHU", "LALE"), remove("KAHU-LALE", "KAHU", "KAHU")} <= legal
    after, _, _ = R.step(sc, remove("KAHU-LALE", "KAHU", "LALE"))
    assert R.bridge_supply(after, 1) == 25  # K1.5: the bridge goes back to its owner
    # With one bridge back in supply, player 0 could place again.
    fewer = make(
        bridges=(lines0[1:], ["KAHU-LALE"]),
        stones=([x for x in held0 if R.holder({"bridges": [lines0[1:], []]}, x) == 0][:10], []),
        hands=(["KAHU", "KAHU", "LALE"], []),
    )
    assert place("JOJO-KAHU", "KAHU") in R.legal_actions(fewer)


def test_k4_2_remove_pairs_only_on_opponent_bridges() -> None:
    sc = make(
        bridges=(["ELAI-JOJO"], ["ELAI-HUNA", "DUDA-HUNA"]),
        hands=(["ELAI", "ELAI", "HUNA", "HUNA", "JOJO"], []),
    )
    removes = {a for a in R.legal_actions(sc) if R.REMOVE_BASE <= a < R.DISCARD_BASE}
    assert removes == {
        remove("ELAI-HUNA", "ELAI", "HUNA"),
        remove("ELAI-HUNA", "ELAI", "ELAI"),
        remove("ELAI-HUNA", "HUNA", "HUNA"),
        remove("DUDA-HUNA", "HUNA", "HUNA"),  # two cards of one end remove any line there
    }  # never the own ELAI-JOJO, never a single card
    after, _, _ = R.step(sc, remove("ELAI-HUNA", "ELAI", "HUNA"))
    assert after["bridges"] == [["ELAI-JOJO"], ["DUDA-HUNA"]]
    assert after["hands"][0] == ["ELAI", "HUNA", "JOJO"]
    assert Counter(after["discard_up"]) - Counter(sc["discard_up"]) == Counter(["ELAI", "HUNA"])
    assert after["stones"] == [[], []]  # K4.2: a removal never claims


def test_k4_3_freed_line_reoccupied_by_plain_place() -> None:
    sc = make(bridges=([], ["ELAI-HUNA"]), hands=(["HUNA", "HUNA", "ELAI"], []))
    sc, _, _ = R.step(sc, remove("ELAI-HUNA", "HUNA", "HUNA"))
    assert place("ELAI-HUNA", "ELAI") in R.legal_actions(sc)
    assert sc["phase"] == "play" and sc["to_act"] == 0
    # Not forced: the turn may end without it.
    assert {END_PLAY, DRAW, TAKE0} <= R.legal_actions(sc)


def test_k4_4_any_time_discards_every_held_island() -> None:
    sc = make(hands=(["ALOA", "ALOA", "KAHU"], []))
    assert {a for a in R.legal_actions(sc) if 135 <= a < 147} == {discard("ALOA"), discard("KAHU")}
    after, _, _ = R.step(sc, discard("KAHU"))
    assert after["discard_down"] == [["KAHU"], []] and after["hands"][0] == ["ALOA", "ALOA"]
    assert after["phase"] == "play" and not after["handed_back"]


def test_k4_4_no_legal_play_discards_only_without_place_or_remove() -> None:
    cfg = {"discard_rule": "no_legal_play"}
    # ALOA's three lines are player 0's own: no PLACE, no REMOVE with ALOA cards.
    own = ["ALOA-BARI", "ALOA-DUDA", "ALOA-HUNA"]
    blocked = make(
        config=cfg,
        bridges=(own, ["KAHU-LALE"]),
        stones=(["ALOA"], []),
        hands=(["ALOA", "ALOA"], []),
    )
    assert {a for a in R.legal_actions(blocked) if 135 <= a < 147} == {discard("ALOA")}
    free = make(
        config=cfg,
        bridges=(own, ["KAHU-LALE"]),
        stones=(["ALOA"], []),
        hands=(["ALOA", "KAHU"], []),
    )
    legal = R.legal_actions(free)
    assert not {a for a in legal if 135 <= a < 147}  # a KAHU placement is legal
    assert place("COCO-KAHU", "KAHU") in legal


def test_k4_4_unplayable_cards_discards_card_by_card() -> None:
    cfg = {"discard_rule": "unplayable_cards"}
    own = ["ALOA-DUDA", "ALOA-HUNA", "BARI-COCO", "BARI-DUDA", "BARI-ELAI", "BARI-FAAA"]
    # ALOA and BARI cards can only remove Black's ALOA-BARI; KAHU can be placed.
    one_each = make(
        config=cfg,
        bridges=(own, ["ALOA-BARI"]),
        stones=(["ALOA", "BARI"], []),
        hands=(["ALOA", "BARI", "KAHU"], []),
    )
    legal = R.legal_actions(one_each)
    assert remove("ALOA-BARI", "ALOA", "BARI") in legal
    assert {a for a in legal if 135 <= a < 147} == set()
    one_aloa = make(
        config=cfg,
        bridges=(own, ["ALOA-BARI"]),
        stones=(["ALOA", "BARI"], []),
        hands=(["ALOA", "KAHU"], []),
    )
    assert {a for a in R.legal_actions(one_aloa) if 135 <= a < 147} == {discard("ALOA")}
    two_aloa = make(
        config=cfg,
        bridges=(own, ["ALOA-BARI"]),
        stones=(["ALOA", "BARI"], []),
        hands=(["ALOA", "ALOA", "KAHU"], []),
    )
    legal = R.legal_actions(two_aloa)
    assert remove("ALOA-BARI", "ALOA", "ALOA") in legal
    assert {a for a in legal if 135 <= a < 147} == set()


@pytest.mark.parametrize("rule", R.DISCARD_RULES)
def test_k6_4_hand_back_ignores_discard_rule(rule: str) -> None:
    sc = make(
        config={"discard_rule": rule},
        hands=(["ALOA", "BARI", "COCO", "DUDA", "KAHU"], []),
        phase="draw",
    )
    assert {a for a in R.legal_actions(sc) if 135 <= a < 147} == {
        discard(x) for x in ("ALOA", "BARI", "COCO", "DUDA", "KAHU")
    }


def test_k4_5_spent_face_up_discarded_face_down() -> None:
    sc = make(bridges=([], ["COCO-KAHU"]), hands=(["KAHU", "KAHU", "LALE", "GOLA"], []))
    sc, _, _ = R.step(sc, remove("COCO-KAHU", "KAHU", "KAHU"))
    sc, _, _ = R.step(sc, place("KAHU-LALE", "LALE"))
    sc, _, _ = R.step(sc, discard("GOLA"))
    assert sc["discard_down"] == [["GOLA"], []]
    up: Counter[str] = Counter(sc["discard_up"])
    assert up["KAHU"] == 2 and up["LALE"] == 2


# ---- K5: majorities and stones -------------------------------------------------------------


def test_k5_1_holder_needs_maj_lines() -> None:
    sc = make(bridges=(["ALOA-BARI"], ["ALOA-DUDA", "ALOA-HUNA"]), stones=([], ["ALOA"]))
    assert R.holder(sc, "ALOA") == 1 and R.holder(sc, "BARI") is None
    assert R.line_counts(sc, 0, "ALOA") == 1 and R.line_counts(sc, 1, "ALOA") == 2


def _k5_2_position(stones_per_player: int = 10) -> Scenario:
    """Player 0 holds 9 islands with 9 stones (one stone left) and needs KAHU-LALE for two more.

    Player 1 has IFFI-LALE (at LALE) and JOJO-KAHU (at KAHU) and holds JOJO with
    FAAA-JOJO, GOLA-JOJO, JOJO-KAHU.
    """
    banned = {"JOJO", "KAHU", "LALE"}
    b0 = [
        n
        for n, (a, b) in zip(R.LINE_NAMES, R.LINES, strict=True)
        if a not in banned and b not in banned
    ]
    b0 += ["HUNA-LALE", "COCO-KAHU", "GOLA-KAHU", "IFFI-JOJO"]
    b1 = ["IFFI-LALE", "JOJO-KAHU", "FAAA-JOJO", "GOLA-JOJO"]
    held = [x for x in R.ISLANDS if R.holder({"bridges": [b0, b1]}, x) == 0]
    assert len(held) == 9 and R.holder({"bridges": [b0, b1]}, "JOJO") == 1
    extra = stones_per_player - 10
    return make(
        config={"stones_per_player": stones_per_player} if extra else {},
        bridges=(b0, b1),
        stones=(held, ["JOJO"]),
        hands=(["KAHU", "LALE"], []),
        scorings=[[1, 0]],
    )


@pytest.mark.parametrize("card,stone", [("KAHU", "KAHU"), ("LALE", "LALE")])
def test_k5_2_both_ends_claimed_one_stone_left_card_island_first(card: str, stone: str) -> None:
    sc = _k5_2_position()
    assert R.stone_supply(sc, 0) == 1
    after, rewards, _ = R.step(sc, place("KAHU-LALE", card))
    # Both ends reach maj exactly; the card's island gets the last stone (K5.2, K5.3a, A2).
    assert R.holder(after, "KAHU") == 0 and R.holder(after, "LALE") == 0
    assert stone in after["stones"][0] and len(after["stones"][0]) == 10
    other = "LALE" if stone == "KAHU" else "KAHU"
    assert other not in after["stones"][0]
    # K5.3(b) clears both islands even for the unmarked one; K5.4 costs Black JOJO.
    assert after["bridges"][1] == ["FAAA-JOJO", "GOLA-JOJO"]
    assert after["stones"][1] == []
    assert after["phase"] == "play" and rewards == [0.0, 0.0]


def test_k5_2_both_ends_claimed_with_stones_to_spare() -> None:
    sc = _k5_2_position(stones_per_player=11)
    after, _, _ = R.step(sc, place("KAHU-LALE", "LALE"))
    assert {"KAHU", "LALE"} <= set(after["stones"][0]) and R.stone_supply(after, 0) == 0


def test_k5_2_a9_no_claim_on_an_island_already_held() -> None:
    # Player 0 holds ELAI with 4 of 6 and its stone; player 1's ELAI-IFFI came later and stays.
    b0 = ["BARI-ELAI", "DUDA-ELAI", "ELAI-FAAA", "ELAI-HUNA"]
    sc = make(
        bridges=(b0, ["ELAI-IFFI", "KAHU-LALE"]),
        stones=(["ELAI"], []),
        hands=(["JOJO"], []),
        config={"stones_per_player": 11},
    )
    after, _, _ = R.step(sc, place("ELAI-JOJO", "JOJO"))
    assert R.line_counts(after, 0, "ELAI") == 5
    assert after["stones"] == [["ELAI"], []]  # no second claim, no stone
    assert after["bridges"][1] == ["ELAI-IFFI", "KAHU-LALE"]  # nothing removed


def test_k5_3_claim_without_stone_still_removes_bridges() -> None:
    sc = _k5_2_position()
    sc, _, _ = R.step(sc, place("KAHU-LALE", "KAHU"))
    assert R.stone_supply(sc, 0) == 0
    # LALE is held without a stone (K5.6); it scores nothing and adding bridges gives none.
    assert R.holder(sc, "LALE") == 0 and "LALE" not in sc["stones"][0]


def test_k5_6_unmarked_island_gets_a_stone_only_when_regained() -> None:
    # Player 0 holds LALE without a stone and has stones to spare.
    sc = make(
        bridges=(HOLD_LALE, ["ALOA-BARI"]),
        stones=([], []),
        hands=(["KAHU"], ["LALE", "LALE"]),
        scorings=[[0, 0]],
    )
    after, _, _ = R.step(sc, place("KAHU-LALE", "KAHU"))
    assert after["stones"] == [[], []]  # 3 of 3 is not "equals maj": no claim
    # Player 1 breaks the majority; player 0 regains it and claims.
    sc = make(
        bridges=(HOLD_LALE, ["ALOA-BARI"]),
        stones=([], []),
        hands=(["IFFI"], ["LALE", "LALE"]),
        scorings=[[0, 0]],
        turn=11,
    )
    sc, _, _ = R.step(sc, remove("IFFI-LALE", "LALE", "LALE"))
    sc, _, _ = R.step(sc, SKIP)
    sc, _, _ = R.step(sc, place("IFFI-LALE", "IFFI"))
    assert sc["stones"] == [["LALE"], []]


def test_k5_4_stone_loss_after_removal_a12() -> None:
    # Player 1 holds LALE and ALOA; player 0 removes HUNA-LALE with HUNA+LALE.
    sc = make(
        bridges=(["KAHU-LALE"], HOLD_LALE + HOLD_ALOA),
        stones=([], ["ALOA", "LALE"]),
        hands=(["HUNA", "LALE", "ALOA", "ALOA"], []),
    )
    after, _, _ = R.step(sc, remove("HUNA-LALE", "HUNA", "LALE"))
    assert after["stones"] == [[], ["ALOA"]] and R.stone_supply(after, 1) == 9
    after, _, _ = R.step(after, remove("ALOA-BARI", "ALOA", "ALOA"))
    assert after["stones"] == [[], []]
    assert after["bridges"] == [["KAHU-LALE"], ["ALOA-DUDA", "IFFI-LALE"]]


def test_k5_5_claim_ripple_takes_stones_only() -> None:
    # Player 0 claims LALE: player 1's HUNA-LALE goes, so player 1 loses HUNA's stone, but
    # player 1's other HUNA bridges stay and player 0 gains nothing at HUNA.
    b1 = ["HUNA-LALE", "ALOA-HUNA", "DUDA-HUNA"]
    sc = make(bridges=(["IFFI-LALE"], b1), stones=([], ["HUNA"]), hands=(["KAHU"], []))
    after, _, _ = R.step(sc, place("KAHU-LALE", "KAHU"))
    assert after["stones"] == [["LALE"], []]
    assert after["bridges"] == [["IFFI-LALE", "KAHU-LALE"], ["ALOA-HUNA", "DUDA-HUNA"]]
    assert R.holder(after, "HUNA") is None


# ---- K6: drawing ---------------------------------------------------------------------------


def test_k6_1_take_refills_the_slot_from_the_pile() -> None:
    sc = make(hands=(["ALOA"], []), face_up=["KAHU", "LALE", "JOJO"], pile=["COCO", "GOLA"])
    after, _, _ = R.step(sc, TAKE1)
    assert after["face_up"] == ["KAHU", "COCO", "JOJO"] and after["pile"] == ["GOLA"]
    assert after["hands"][0] == ["ALOA", "LALE"] and after["known"] == [["LALE"], []]
    assert (after["to_act"], after["turn"], after["phase"]) == (1, 11, "play")


def test_k6_1_take_with_empty_pile_leaves_the_slot_empty() -> None:
    sc = make(hands=(["ALOA"], []), face_up=["KAHU", "LALE", "JOJO"], pile=[])
    after, _, _ = R.step(sc, TAKE0)
    assert after["face_up"] == [None, "LALE", "JOJO"]
    assert TAKE0 not in R.legal_actions(after) and DRAW not in R.legal_actions(after)


def test_k6_2_draw_takes_the_pile_top_unseen() -> None:
    sc = make(hands=(["ALOA"], []), pile=["COCO", "GOLA"], known=[["ALOA"], []])
    after, _, _ = R.step(sc, DRAW)
    assert after["hands"][0] == ["ALOA", "COCO"] and after["pile"] == ["GOLA"]
    assert after["known"] == [["ALOA"], []]  # K6.7: a draw shows nothing


def test_k6_3_no_skip_after_opponent_skip() -> None:
    sc = make(hands=(["ALOA"], ["KAHU"]))
    sc, _, _ = R.step(sc, SKIP)
    assert sc["last_turn_skipped"] and sc["to_act"] == 1
    assert SKIP not in R.legal_actions(sc)
    sc, _, _ = R.step(sc, END_PLAY)
    assert SKIP not in R.legal_actions(sc) and DRAW in R.legal_actions(sc)
    sc, _, _ = R.step(sc, DRAW)
    assert not sc["last_turn_skipped"] and SKIP in R.legal_actions(sc)


def test_k3_2_draw_from_play_equals_end_play_then_draw() -> None:
    sc = make(hands=(["ALOA"], ["KAHU"]))
    for a in (TAKE0, TAKE2, DRAW, SKIP):
        direct, r1, s1 = R.step(sc, a)
        via, _, _ = R.step(sc, END_PLAY)
        via, r2, s2 = R.step(via, a)
        assert (direct, r1, s1) == (via, r2, s2), R.describe(a)


def test_k6_4_five_cards_after_opponent_skip_only_hand_backs() -> None:
    hand = ["ALOA", "ALOA", "BARI", "COCO", "DUDA"]
    sc = make(
        hands=(hand, []), last_turn_skipped=True, bridges=(HOLD_GOLA, []), stones=(["GOLA"], [])
    )
    legal = R.legal_actions(sc)
    assert not legal & {TAKE0, TAKE1, TAKE2, DRAW, SKIP}  # 5 cards, skip banned
    sc, _, _ = R.step(sc, END_PLAY)
    assert R.legal_actions(sc) == {discard(x) for x in ("ALOA", "BARI", "COCO", "DUDA")}
    sc, _, _ = R.step(sc, discard("ALOA"))
    assert sc["handed_back"] and sc["phase"] == "draw"
    assert R.legal_actions(sc) == {TAKE0, TAKE1, TAKE2, DRAW} | {
        discard(x) for x in ("ALOA", "BARI", "COCO", "DUDA")
    }
    sc, _, _ = R.step(sc, discard("COCO"))  # further hand-backs stay legal
    sc, _, _ = R.step(sc, DRAW)
    assert len(sc["hands"][0]) == 4 and sc["discard_down"] == [["ALOA", "COCO"], []]
    assert sc["to_act"] == 1 and not sc["handed_back"] and not sc["last_turn_skipped"]


def test_k6_4_hand_back_then_no_skip() -> None:
    hand = ["ALOA", "BARI", "COCO", "DUDA", "ELAI"]
    sc = make(hands=(hand, []), phase="draw")
    assert R.legal_actions(sc) == {SKIP} | {discard(x) for x in hand}
    sc, _, _ = R.step(sc, discard("ELAI"))
    assert SKIP not in R.legal_actions(sc)
    assert {TAKE0, TAKE1, TAKE2, DRAW} <= R.legal_actions(sc)


def test_k6_4_no_hand_back_below_five_cards() -> None:
    sc = make(hands=(["ALOA", "BARI", "COCO", "DUDA"], []), phase="draw")
    assert R.legal_actions(sc) == {TAKE0, TAKE1, TAKE2, DRAW, SKIP}


def test_k6_4_take_and_draw_need_four_cards_at_most() -> None:
    sc = make(hands=(["ALOA", "BARI", "COCO", "DUDA", "ELAI"], []))
    legal = R.legal_actions(sc)
    assert SKIP in legal and not legal & {TAKE0, TAKE1, TAKE2, DRAW}


def test_k6_7_known_cards() -> None:
    sc = make(
        hands=(["ALOA", "ALOA", "BARI", "KAHU"], []),
        face_up=["LALE", "BARI", "KAHU"],
        pile=["COCO", "DUDA", "ELAI"],
        known=[["ALOA", "ALOA", "BARI"], []],
        bridges=([], ["ALOA-BARI"]),
    )
    # Spending one ALOA face up forgets one ALOA.
    after, _, _ = R.step(sc, place("ALOA-DUDA", "ALOA"))
    assert after["known"] == [["ALOA", "BARI"], []]
    # A 2-card removal forgets each spent card.
    after, _, _ = R.step(sc, remove("ALOA-BARI", "ALOA", "ALOA"))
    assert after["known"] == [["BARI"], []]
    # A face-down discard forgets one of every distinct known island, whatever was discarded.
    after, _, _ = R.step(sc, discard("KAHU"))
    assert after["known"] == [["ALOA"], []]
    # A TAKE adds the taken island.
    after, _, _ = R.step(sc, TAKE2)
    assert after["known"] == [["ALOA", "ALOA", "BARI", "KAHU"], []]


# ---- K7: exhaustion and scorings -------------------------------------------------------------


def _last_card(scorings: list[list[int]], **fields: Any) -> Scenario:
    """Player 0 to take the last available card (slot 1), round len(scorings) + 1.

    Player 0 holds ALOA and LALE (2 stones), player 1 holds GOLA (1 stone); face-down
    discards lie under the discard pile.
    """
    return make(
        bridges=(HOLD_ALOA + HOLD_LALE, HOLD_GOLA),
        stones=(["ALOA", "LALE"], ["GOLA"]),
        hands=(["KAHU"], ["JOJO", "JOJO"]),
        face_up=[None, "KAHU", None],
        discard_down=(["BARI"], ["COCO", "COCO"]),
        scorings=scorings,
        **fields,
    )


def test_k7_1_k7_2_k7_3_first_exhaustion_scores_and_reshuffles() -> None:
    sc = _last_card([], turn=30)
    before = Counter(sc["discard_up"] + sc["discard_down"][0] + sc["discard_down"][1])
    after, rewards, reshuffled = R.step(sc, TAKE1)
    assert reshuffled and rewards == [0.0, 0.0]
    assert after["scorings"] == [[1, 0]]  # 2 stones against 1
    assert Counter(after["face_up"] + after["pile"]) == before  # face-down cards included
    assert None not in after["face_up"] and len(after["pile"]) == sum(before.values()) - 3
    assert after["discard_up"] == [] and after["discard_down"] == [[], []]
    assert after["hands"] == [["KAHU", "KAHU"], ["JOJO", "JOJO"]]
    assert after["bridges"] == sc["bridges"] and after["stones"] == sc["stones"]
    assert (after["to_act"], after["turn"], after["phase"]) == (1, 31, "play")
    assert SKIP in R.legal_actions(after)  # the drawer drew
    assert after["known"] == [["KAHU"], []]


def test_k7_2_second_scoring_two_points_and_ties_score_nothing() -> None:
    after, _, reshuffled = R.step(_last_card([[0, 1]], turn=60), TAKE1)
    assert reshuffled and after["scorings"] == [[0, 1], [2, 0]]
    tied = make(
        bridges=(HOLD_ALOA, HOLD_GOLA),
        stones=(["ALOA"], ["GOLA"]),
        face_up=["KAHU", None, None],
        scorings=[[0, 1]],
    )
    after, _, reshuffled = R.step(tied, TAKE0)
    assert reshuffled and after["scorings"] == [[0, 1], [0, 0]]
    tied = make(
        bridges=(HOLD_ALOA, HOLD_GOLA), stones=(["ALOA"], ["GOLA"]), face_up=["KAHU", None, None]
    )
    after, _, _ = R.step(tied, TAKE0)
    assert after["scorings"] == [[0, 0]]


def test_k7_1_not_exhausted_while_a_slot_holds_a_card() -> None:
    sc = make(
        bridges=(HOLD_ALOA, HOLD_GOLA), stones=(["ALOA"], ["GOLA"]), face_up=["KAHU", "KAHU", None]
    )
    after, _, reshuffled = R.step(sc, TAKE0)
    assert not reshuffled and after["scorings"] == [] and after["face_up"] == [None, "KAHU", None]


def test_k7_4_after_third_exhaustion_drawer_opponent_plays_first() -> None:
    sc = make(
        bridges=(HOLD_ALOA + HOLD_LALE, HOLD_GOLA),
        stones=(["ALOA", "LALE"], ["GOLA"]),
        hands=(["KAHU"], ["LALE", "LALE"]),
        face_up=[None, None, "BARI"],
        scorings=[[1, 0], [0, 2]],
        turn=91,
    )
    assert sc["to_act"] == 1  # the drawer
    sc, rewards, reshuffled = R.step(sc, TAKE2)
    assert not reshuffled and rewards == [0.0, 0.0]
    assert (sc["to_act"], sc["final_turns_left"], sc["turn"], sc["phase"]) == (0, 2, 92, "play")
    assert sc["scorings"] == [[1, 0], [0, 2]] and not sc["last_turn_skipped"]
    assert sc["face_up"] == [None, None, None] and sc["pile"] == []
    assert kinds(R.legal_actions(sc)) == {"PLACE", "END_PLAY"}  # K3.3: no DISCARD, no draw
    sc, rewards, _ = R.step(sc, END_PLAY)
    assert (sc["to_act"], sc["final_turns_left"], sc["turn"], rewards) == (1, 1, 93, [0.0, 0.0])
    assert kinds(R.legal_actions(sc)) == {"PLACE", "REMOVE", "END_PLAY"}
    # The drawer's final turn still counts: removing HUNA-LALE costs player 0 LALE's stone.
    sc, _, _ = R.step(sc, remove("HUNA-LALE", "LALE", "LALE"))
    assert sc["stones"] == [["ALOA"], ["GOLA"]] and sc["phase"] == "play"
    sc, rewards, _ = R.step(sc, END_PLAY)
    # K7.5: 1 stone each, no points; totals 1:2 (K8.1).
    assert sc["scorings"] == [[1, 0], [0, 2], [0, 0]]
    assert (sc["phase"], sc["winner"], sc["end_reason"]) == ("game_over", 1, "final_scoring")
    assert (sc["to_act"], sc["final_turns_left"], sc["turn"]) == (None, None, 94)
    assert rewards == [-1.0, 1.0] and R.legal_actions(sc) == set()


def test_k7_4_final_turn_actions_resolve_claims() -> None:
    sc = make(
        bridges=(["ALOA-BARI"], HOLD_GOLA),
        stones=([], ["GOLA"]),
        hands=(["ALOA"], []),
        face_up=[None, None, None],
        scorings=[[1, 0], [0, 2]],
        final_turns_left=2,
        turn=100,
    )
    sc, _, _ = R.step(sc, place("ALOA-DUDA", "ALOA"))
    assert sc["stones"] == [["ALOA"], ["GOLA"]]
    assert discard("ALOA") not in R.legal_actions(sc)


def test_k7_5_third_scoring_difference_of_stones() -> None:
    b0 = HOLD_ALOA + HOLD_LALE + HOLD_GOLA
    sc = make(
        bridges=(b0, ["KAHU-LALE"]),
        stones=(["ALOA", "GOLA", "LALE"], []),
        face_up=[None, None, None],
        scorings=[[0, 0], [0, 0]],
        final_turns_left=1,
        turn=101,
    )
    after, rewards, _ = R.step(sc, END_PLAY)
    assert after["scorings"] == [[0, 0], [0, 0], [3, 0]]
    assert after["winner"] == 0 and rewards == [1.0, -1.0]


# ---- K8: the end of the game ---------------------------------------------------------------


@pytest.mark.parametrize(
    "scorings,stones,extra_bridges,winner",
    [
        ([[1, 0], [2, 0]], (1, 1), (0, 0), 0),  # totals 3:0
        ([[0, 1], [0, 2]], (2, 1), (0, 0), 1),  # totals 1:3
        ([[0, 1], [2, 0]], (1, 2), (0, 0), 1),  # totals 2:2, third scoring 0:1
        ([[1, 0], [0, 2]], (2, 1), (0, 0), 0),  # totals 2:2, third scoring 1:0
        ([[0, 0], [0, 0]], (1, 1), (1, 0), 0),  # 0:0 everywhere, more bridges
        ([[0, 0], [0, 0]], (1, 1), (0, 2), 1),
        ([[0, 0], [0, 0]], (1, 1), (0, 0), None),  # a draw (A15)
    ],
)
def test_k8_1_winner_and_tie_breaks(
    scorings: list[list[int]],
    stones: tuple[int, int],
    extra_bridges: tuple[int, int],
    winner: int | None,
) -> None:
    holdings = [("ALOA", HOLD_ALOA), ("LALE", HOLD_LALE)]
    b0 = [line for _, lines in holdings[: stones[0]] for line in lines]
    s0 = [x for x, _ in holdings[: stones[0]]]
    gola_coco = [("GOLA", HOLD_GOLA), ("COCO", ["BARI-COCO", "COCO-FAAA", "COCO-KAHU"])]
    b1 = [line for _, lines in gola_coco[: stones[1]] for line in lines]
    s1 = [x for x, _ in gola_coco[: stones[1]]]
    # Bridges that make no majority, to equalise the counts and then add `extra_bridges`.
    base = max(len(b0), len(b1))
    b0 += ["ELAI-JOJO", "ELAI-FAAA", "IFFI-JOJO", "DUDA-HUNA"][: base + extra_bridges[0] - len(b0)]
    b1 += ["DUDA-ELAI", "ELAI-IFFI", "HUNA-IFFI"][: base + extra_bridges[1] - len(b1)]
    sc = make(
        bridges=(b0, b1),
        stones=(s0, s1),
        face_up=[None, None, None],
        scorings=scorings,
        final_turns_left=1,
        turn=120,
    )
    assert len(b0) - len(b1) == extra_bridges[0] - extra_bridges[1]
    after, rewards, _ = R.step(sc, END_PLAY)
    assert after["phase"] == "game_over" and after["end_reason"] == "final_scoring"
    assert after["winner"] == winner
    expected = [0.0, 0.0] if winner is None else [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert rewards == expected


def test_k8_2_early_end_when_the_last_bridge_is_removed() -> None:
    sc = make(
        bridges=(["ALOA-BARI"], ["KAHU-LALE"]),
        hands=(["KAHU", "LALE"], []),
        scorings=[[0, 1]],
        turn=50,
    )
    after, rewards, _ = R.step(sc, remove("KAHU-LALE", "KAHU", "LALE"))
    assert (after["phase"], after["winner"], after["end_reason"]) == ("game_over", 0, "early_end")
    assert after["to_act"] is None and after["turn"] == 50 and rewards == [1.0, -1.0]
    assert R.legal_actions(after) == set()
    with pytest.raises(ValueError, match="not legal"):
        R.step(after, END_PLAY)


def test_k8_2_early_end_by_a_claim() -> None:
    # Player 1 (to act) claims ALOA, which clears player 0's only bridge.
    sc = make(
        bridges=(["ALOA-HUNA"], ["ALOA-BARI", "KAHU-LALE"]),
        hands=([], ["ALOA"]),
        scorings=[[1, 0], [0, 0]],
        turn=71,
    )
    after, rewards, _ = R.step(sc, place("ALOA-DUDA", "ALOA"))
    assert after["stones"] == [[], ["ALOA"]] and after["bridges"][0] == []
    assert (after["winner"], after["end_reason"], rewards) == (1, "early_end", [-1.0, 1.0])


def test_k8_2_no_early_end_in_round_1_or_when_off() -> None:
    sc = make(bridges=(["ALOA-BARI"], ["KAHU-LALE"]), hands=(["KAHU", "LALE"], []))
    after, _, _ = R.step(sc, remove("KAHU-LALE", "KAHU", "LALE"))
    assert after["phase"] == "play" and after["bridges"][1] == []
    sc = make(
        bridges=(["ALOA-BARI"], ["KAHU-LALE"]),
        hands=(["KAHU", "LALE"], []),
        scorings=[[0, 1]],
        config={"early_end": False},
    )
    after, _, _ = R.step(sc, remove("KAHU-LALE", "KAHU", "LALE"))
    assert after["phase"] == "play" and after["config"] == {"early_end": False}


def test_k8_2_no_bridges_when_round_2_begins_loses_at_once() -> None:
    sc = make(bridges=(HOLD_ALOA, []), stones=(["ALOA"], []), face_up=["KAHU", None, None], turn=40)
    after, rewards, reshuffled = R.step(sc, TAKE0)
    assert reshuffled and after["scorings"] == [[1, 0]]
    assert (after["phase"], after["winner"], after["end_reason"]) == ("game_over", 0, "early_end")
    assert rewards == [1.0, -1.0] and after["turn"] == 41 and after["to_act"] is None
    assert after["discard_up"] == [] and len(after["pile"]) + 3 == 24 - 1  # all but the hand


def test_k8_2_both_without_bridges_is_a_draw() -> None:
    sc = make(face_up=["KAHU", None, None], turn=40)
    after, rewards, reshuffled = R.step(sc, TAKE0)
    assert reshuffled and after["scorings"] == [[0, 0]]
    assert (after["phase"], after["winner"], after["end_reason"]) == (
        "game_over",
        None,
        "early_end",
    )
    assert rewards == [0.0, 0.0]


# ---- K9: truncation --------------------------------------------------------------------------


def test_k9_1_truncated_when_a_turn_reaches_max_turns() -> None:
    sc = make(hands=(["ALOA"], []), config={"max_turns": 12}, turn=10)
    sc, _, _ = R.step(sc, DRAW)
    assert sc["phase"] == "play" and sc["turn"] == 11
    sc, rewards, _ = R.step(sc, SKIP)
    assert (sc["phase"], sc["winner"], sc["end_reason"], sc["turn"]) == (
        "game_over",
        None,
        "truncated",
        12,
    )
    assert rewards == [0.0, 0.0] and sc["last_turn_skipped"] and sc["to_act"] is None


def test_k9_1_a_scoring_turn_is_truncated_after_its_scoring() -> None:
    sc = _last_card([], turn=30, config={"max_turns": 31})
    after, rewards, reshuffled = R.step(sc, TAKE1)
    assert reshuffled and after["scorings"] == [[1, 0]]
    assert (after["end_reason"], after["winner"], rewards) == ("truncated", None, [0.0, 0.0])


def test_k9_1_early_end_at_a_scoring_comes_before_truncation() -> None:
    # K6.5: K7 (scoring, then K8.2 right after it) is checked before K9.
    sc = make(
        bridges=(HOLD_ALOA, []),
        stones=(["ALOA"], []),
        face_up=["KAHU", None, None],
        turn=40,
        config={"max_turns": 41},
    )
    after, rewards, reshuffled = R.step(sc, TAKE0)
    assert reshuffled and (after["end_reason"], after["winner"]) == ("early_end", 0)
    assert rewards == [1.0, -1.0]


def test_k9_1_not_once_final_turns_begin() -> None:
    sc = make(
        bridges=(HOLD_ALOA, HOLD_GOLA),
        stones=(["ALOA"], ["GOLA"]),
        face_up=["KAHU", None, None],
        scorings=[[1, 0], [0, 2]],
        turn=20,
        config={"max_turns": 21},
    )
    sc, _, _ = R.step(sc, TAKE0)  # the third exhaustion at the turn limit
    assert sc["phase"] == "play" and sc["final_turns_left"] == 2 and sc["turn"] == 21
    sc, _, _ = R.step(sc, END_PLAY)
    assert sc["phase"] == "play" and sc["final_turns_left"] == 1 and sc["turn"] == 22
    sc, rewards, _ = R.step(sc, END_PLAY)
    assert sc["end_reason"] == "final_scoring" and sc["scorings"][2] == [0, 0]
    assert sc["winner"] == 1 and rewards == [-1.0, 1.0]  # totals 1:2


# ---- step and check --------------------------------------------------------------------------


def test_step_rejects_illegal_and_bad_actions_without_mutating() -> None:
    sc = e1_start()
    frozen = copy.deepcopy(sc)
    with pytest.raises(ValueError, match="not legal"):
        R.step(sc, place("COCO-GOLA", "GOLA"))  # White holds no GOLA card
    assert sc == frozen
    with pytest.raises(ValueError, match="0..152"):
        R.step(sc, 153)
    with pytest.raises(TypeError):
        R.step(sc, "9")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        R.step(sc, True)
    R.step(sc, 9)
    assert sc == frozen


def _bad(change: dict[str, Any], base: Scenario | None = None) -> Scenario:
    sc = copy.deepcopy(base if base is not None else e1_start())
    sc.update(copy.deepcopy(change))
    return sc


BAD = [
    ({"key": [1, 2]}, "key"),
    ({"config": {"stones_per_player": 13}}, "stones_per_player"),
    ({"config": {"discard_rule": "never"}}, "discard_rule"),
    ({"config": {"colour": 1}}, "colour"),
    ({"pile": ["BARI", "FAAA", "JOJO", "ALOA", "COCO", "GOLA", "KAHU"]}, "2 per island"),
    ({"bridges": [["ALOA-DUDA", "ALOA-BARI"], ["ALOA-BARI"]]}, "owned twice"),
    ({"bridges": [["ALOA-DUDA", "ALOA-MAUI"], []]}, "unknown line"),
    ({"stones": [["DUDA", "KAHU"], ["ALOA", "HUNA"]]}, "does not hold"),
    ({"stones": [["DUDA", "DUDA"], ["ALOA", "HUNA"]]}, "two stones"),
    (
        {
            "hands": [
                ["ALOA", "DUDA", "KAHU", "KAHU", "COCO", "COCO"],
                ["ELAI", "GOLA", "HUNA", "HUNA"],
            ]
        },
        "hands",
    ),
    (
        {
            "face_up": ["COCO", None, "LALE"],
            "discard_up": ["BARI", "DUDA", "ELAI", "FAAA", "IFFI", "IFFI", "JOJO"],
        },
        "empty slot",
    ),
    ({"handed_back": True}, "handed_back"),
    ({"final_turns_left": 2}, "final_turns_left"),
    ({"scorings": [[0, 1], [1, 0]]}, "scorings"),
    ({"scorings": [[2, 0]]}, "scorings"),
    ({"to_act": 1}, "to_act"),
    ({"to_act": None}, "to_act"),
    ({"winner": 0}, "winner"),
    ({"turn": 0, "to_act": 0, "last_turn_skipped": True}, "last_turn_skipped"),
    ({"known": [["COCO"], []]}, "known"),
    ({"phase": "bidding"}, "phase"),
    ({"bridges": [[], ["ALOA-BARI", "ALOA-HUNA"]], "stones": [[], ["ALOA"]]}, "K8.2"),
]


@pytest.mark.parametrize("change,key", BAD, ids=[k for _, k in BAD])
def test_check_rejects_invalid_scenarios_naming_the_key(change: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=key):
        R.check(_bad(change))
    with pytest.raises(ValueError, match=key):
        R.legal_actions(_bad(change))


def test_check_rejects_the_spec_list_in_final_turns_and_with_12_stones() -> None:
    base = make(
        bridges=(HOLD_ALOA, HOLD_GOLA),
        stones=(["ALOA"], ["GOLA"]),
        face_up=[None, None, None],
        scorings=[[1, 0], [0, 2]],
        final_turns_left=2,
    )
    R.check(base)
    with pytest.raises(ValueError, match="DRAW phase"):
        R.check(_bad({"phase": "draw"}, base))
    with pytest.raises(ValueError, match="fewer than 2"):
        R.check(_bad({"scorings": [[1, 0]]}, base))
    with pytest.raises(ValueError, match="3 scorings"):
        R.check(_bad({"scorings": [[1, 0], [0, 2], [0, 0]]}, base))
    with pytest.raises(ValueError, match="K6.6"):
        R.check(_bad({"final_turns_left": None}, base))
    with pytest.raises(ValueError, match="12 stones"):
        R.check(_bad({"config": {"stones_per_player": 12}, "stones": [[], ["GOLA"]]}, base))
    R.check(_bad({"config": {"stones_per_player": 11}, "stones": [[], ["GOLA"]]}, base))
    with pytest.raises(ValueError, match="5-card|at most 4"):
        R.check(
            make(hands=(["ALOA"] * 2 + ["BARI"] * 2 + ["COCO"], []), phase="draw", handed_back=True)
        )


def test_outputs_are_canonical_and_config_keeps_overrides_only() -> None:
    sc = e1_start()
    sc["config"] = {"early_end": True, "max_turns": 150}
    sc["hands"][1] = ["HUNA", "GOLA", "HUNA", "ELAI"]
    after, _, _ = R.step(sc, 9)
    assert after["config"] == {"max_turns": 150}
    assert after["hands"][1] == ["ELAI", "GOLA", "HUNA", "HUNA"]
    assert "known" in after and "key" not in after


# ---- random play: the reference keeps the spec's invariants ---------------------------------------


def random_game(
    rng: random.Random, cfg: dict[str, Any] | None = None
) -> list[tuple[Scenario, int, Scenario, list[float], bool]]:
    """A uniformly random legal game: (position, action, next position, rewards, reshuffled).

    A reshuffle's cards come back sorted from the reference; here they are shuffled, as the
    engine's random stream would.
    """
    deck = [x for x in R.ISLANDS for _ in range(2)]
    rng.shuffle(deck)
    first = (cfg or {}).get("first_player", "random")
    sc = R.deal(deck, rng.randrange(2) if first == "random" else first, cfg)
    out = []
    while sc["phase"] != "game_over":
        a = rng.choice(sorted(R.legal_actions(sc)))
        nxt, rewards, reshuffled = R.step(sc, a)
        if reshuffled:
            cards = nxt["face_up"] + nxt["pile"]
            rng.shuffle(cards)
            nxt["face_up"], nxt["pile"] = cards[:3], cards[3:]
        out.append((sc, a, nxt, rewards, reshuffled))
        sc = nxt
    return out


GAME_CONFIGS = [
    {},
    {"discard_rule": "no_legal_play", "stones_per_player": 12},
    {"discard_rule": "unplayable_cards", "stones_per_player": 11, "first_player": 1},
    {"early_end": False},
]


@pytest.mark.parametrize(
    "cfg", GAME_CONFIGS, ids=lambda c: ",".join(map(str, c.values())) or "defaults"
)
def test_random_games_keep_the_invariants(cfg: dict[str, Any]) -> None:
    rng = random.Random(repr(cfg))
    ends: Counter[str] = Counter()
    for _ in range(6):
        game = random_game(rng, cfg)
        steps_this_turn = 0
        for sc, a, nxt, rewards, reshuffled in game:
            R.check(nxt)
            assert a in R.legal_actions(sc)
            steps_this_turn += 1
            if nxt["turn"] != sc["turn"] or nxt["phase"] == "game_over":
                assert steps_this_turn <= 7  # K7.6
                steps_this_turn = 0
            assert len(nxt["scorings"]) - len(sc["scorings"]) == int(reshuffled) or (
                nxt["end_reason"] == "final_scoring"
            )
            if nxt["phase"] != "game_over":
                assert R.legal_actions(nxt), "a running game always has a legal action"
                assert sum(rewards) == 0 and rewards == [0.0, 0.0]
            if R.config(nxt)["stones_per_player"] == 12:  # K5.6
                for x in R.ISLANDS:
                    h = R.holder(nxt, x)
                    assert (h is not None and x in nxt["stones"][h]) or (
                        h is None and all(x not in s for s in nxt["stones"])
                    )
        last = game[-1][2]
        assert last["end_reason"] in ("final_scoring", "early_end")  # no truncation at 200
        assert last["turn"] <= 130  # K7.6
        ends[last["end_reason"]] += 1
        w = last["winner"]
        final_rewards = game[-1][3]
        assert final_rewards == (
            [0.0, 0.0] if w is None else [1.0 - 2 * (w == 1), 1.0 - 2 * (w == 0)]
        )
    assert ends["final_scoring"] >= 1


def test_random_positions_distinct_actions_distinct_states() -> None:
    rng = random.Random(7)
    for _ in range(3):
        for sc, _, _, _, _ in random_game(rng)[::5]:
            results: dict[str, int] = {}
            for a in sorted(R.legal_actions(sc)):
                nxt, _, reshuffled = R.step(sc, a)
                if reshuffled:
                    continue  # the real order is random
                if a in (TAKE0, TAKE1, TAKE2):
                    # The one exception: two slots showing one island differ in slot order only.
                    nxt["face_up"] = sorted(nxt["face_up"], key=str)
                key = repr(nxt)
                if key in results:
                    b = results[key]
                    assert {a, b} <= {TAKE0, TAKE1, TAKE2}, (R.describe(a), R.describe(b))
                    assert sc["face_up"][a - TAKE0] == sc["face_up"][b - TAKE0]
                results[key] = a


def test_check_rejects_too_many_bridges_or_stones() -> None:
    base = make(bridges=(HOLD_ALOA, HOLD_GOLA), stones=(["ALOA"], ["GOLA"]))
    with pytest.raises(ValueError, match=r"bridges\[0\].*at most 25"):
        R.check(_bad({"bridges": [list(R.LINE_NAMES[:26]), []], "stones": [[], []]}, base))
    lines0 = list(R.LINE_NAMES[:25])  # player 1 owns the other two lines
    held = [x for x in R.ISLANDS if R.holder({"bridges": [lines0, []]}, x) == 0]
    board = {"bridges": [lines0, list(R.LINE_NAMES[25:])]}
    R.check(_bad({**board, "stones": [held[:11], []], "config": {"stones_per_player": 11}}, base))
    with pytest.raises(ValueError, match=r"stones\[0\].*at most 10"):
        R.check(_bad({**board, "stones": [held[:11], []]}, base))


def test_comparable_pools_a_reshuffled_row_and_pile() -> None:
    sc = _last_card([], turn=30)
    ref, _, reshuffled = R.step(sc, TAKE1)
    real = copy.deepcopy(ref)
    cards = real["face_up"] + real["pile"]
    random.Random(0).shuffle(cards)
    real["face_up"], real["pile"] = cards[:3], cards[3:]
    real["key"] = [1, 2]
    assert real != ref
    assert R.comparable(real, reshuffled) == R.comparable(ref, reshuffled)
    assert R.comparable(real, False) != R.comparable(ref, False)
    real["pile"][0] = "ALOA" if real["pile"][0] != "ALOA" else "BARI"
    with pytest.raises(ValueError, match="2 per island"):
        R.comparable(real, reshuffled)


@pytest.mark.slow
@pytest.mark.parametrize(
    "cfg", GAME_CONFIGS, ids=lambda c: ",".join(map(str, c.values())) or "defaults"
)
def test_random_games_soak(cfg: dict[str, Any]) -> None:
    rng = random.Random("soak" + repr(cfg))
    for _ in range(100):
        game = random_game(rng, cfg)
        for _, _, nxt, _, _ in game:
            R.check(nxt)
        assert game[-1][2]["turn"] <= 130  # K7.6
