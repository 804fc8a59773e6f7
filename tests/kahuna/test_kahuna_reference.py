"""Tests of the plain-Python Kahuna reference (tests/kahuna/kahuna_reference.py) alone.

Positions are scenario dicts (KAHUNA-RULES.md "Scenario format"); test names cite the K-ids
they check. No engine is needed: these pin the reference to the spec, so that a later
disagreement with the engine points at the engine or at a reading listed in the reference.
"""

from __future__ import annotations

from typing import Any

import kahuna_reference as R

Scenario = dict[str, Any]


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
