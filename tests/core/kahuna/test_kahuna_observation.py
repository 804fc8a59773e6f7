"""The observation (K12): what it holds, decoded and recomputed from scenarios; what it
never holds (swapping the opponent's hidden cards, its face-down discards and the pile
leaves it unchanged); the generated layout document."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kahuna_kit import e1, load, make

from kanaloa_env.core.kahuna import (
    OBS_DIM,
    Config,
    State,
    decode,
    from_scenario,
    init,
    observe,
    step,
    to_scenario,
)
from kanaloa_env.core.kahuna.constants import DEGREE, ISLAND_NAMES, LINE_NAMES, LINES, MAJORITY
from kanaloa_env.core.kahuna.observation import OBS_LAYOUT, layout_markdown

ROOT = Path(__file__).resolve().parents[3]


def random_states(cfg: Config, games: int, seed: int, steps: int, every: int = 5) -> list[State]:
    s = init(cfg, games, seed)
    rng = np.random.default_rng(seed)
    out = []
    for t in range(steps):
        mask = np.where(s.done[:, None], True, s.legal)
        s = step(s, np.argmax(rng.random(mask.shape) * mask, axis=1))
        if t % every == 0:
            out += [s.take([g]) for g in range(games)]
    return out


STATES = random_states(Config(), 6, 4, 220) + random_states(
    Config(stones_per_player=12, discard_rule="unplayable_cards", max_turns=50), 4, 8, 200
)


def expected(sc: dict[str, Any], cfg: Config, seat: int) -> dict[str, Any]:
    """What `decode(observe(state, seat))` must give, computed from the scenario."""
    me, opp = seat, 1 - seat
    known = sc.get("known", [[], []])
    over = sc["phase"] == "game_over"
    scor = sc["scorings"] + [[0, 0]] * (3 - len(sc["scorings"]))
    counts = [
        Counter(x for n in sc["bridges"][p] for x in LINES[LINE_NAMES.index(n)]) for p in (0, 1)
    ]
    taken = set(sc["bridges"][0]) | set(sc["bridges"][1])
    final = sc["final_turns_left"]
    return {
        "hand": sc["hands"][me],
        "known_theirs": known[opp],
        "known_mine": known[me],
        "discard_up": sc["discard_up"],
        "my_discard_down": sc["discard_down"][me],
        "face_up": sc["face_up"],
        "lines_mine": sc["bridges"][me],
        "lines_theirs": sc["bridges"][opp],
        "lines_free": [n for n in LINE_NAMES if n not in taken],
        "my_stones": sc["stones"][me],
        "their_stones": sc["stones"][opp],
        "my_bridges_at": [counts[me][x] for x in range(12)],
        "their_bridges_at": [counts[opp][x] for x in range(12)],
        "phase": sc["phase"],
        "to_act": sc["to_act"] == me,
        "round": min(len(sc["scorings"]), 2) + 1,
        "handed_back": sc["handed_back"],
        "final_turns_left": final,
        "last_turn_skipped": sc["last_turn_skipped"],
        "may_not_skip": not over
        and (final is not None or sc["last_turn_skipped"] or sc["handed_back"]),
        "discard_rule": cfg.discard_rule,
        "early_end": cfg.early_end,
        "my_bridge_supply": 25 - len(sc["bridges"][me]),
        "their_bridge_supply": 25 - len(sc["bridges"][opp]),
        "pile_size": len(sc["pile"]),
        "cards_to_draw": len(sc["pile"]) + sum(c is not None for c in sc["face_up"]),
        "my_hand_size": len(sc["hands"][me]),
        "their_hand_size": len(sc["hands"][opp]),
        "my_down_count": len(sc["discard_down"][me]),
        "their_down_count": len(sc["discard_down"][opp]),
        "my_stone_supply": cfg.stones_per_player - len(sc["stones"][me]),
        "their_stone_supply": cfg.stones_per_player - len(sc["stones"][opp]),
        "stones_per_player": cfg.stones_per_player,
        "turn": pytest.approx(sc["turn"] / cfg.max_turns),
        "my_scoring_1": scor[0][me],
        "their_scoring_1": scor[0][opp],
        "my_scoring_2": scor[1][me],
        "their_scoring_2": scor[1][opp],
        "my_scoring_3": scor[2][me],
        "their_scoring_3": scor[2][opp],
        "my_points": sum(r[me] for r in scor),
        "their_points": sum(r[opp] for r in scor),
    }


def test_k12_every_entry_decodes_to_what_the_position_holds() -> None:
    for s in STATES:
        sc = to_scenario(s, 0)
        for seat in (0, 1):
            assert decode(observe(s, seat=seat)[0]) == expected(sc, s.config, seat)


def test_the_default_observer_is_the_player_to_act() -> None:
    s = load(e1())
    assert np.array_equal(observe(s), observe(s, seat=0))
    assert decode(observe(s)[0])["to_act"] is True
    assert decode(observe(s, seat=1)[0])["to_act"] is False


def test_majority_entries_are_counts_over_thresholds() -> None:
    v = observe(load(e1()), seat=0)[0]
    a = OBS_LAYOUT_OFFSETS["my_majority"]
    assert v[a : a + 12].tolist() == pytest.approx(
        [c / m for c, m in zip([1, 2, 0, 3, 3, 1, 0, 2, 0, 0, 0, 0], MAJORITY, strict=True)]
    )


OBS_LAYOUT_OFFSETS = {}
_o = 0
for _name, _size, _ in OBS_LAYOUT:
    OBS_LAYOUT_OFFSETS[_name] = _o
    _o += _size


# ---- what it never holds (K12) --------------------------------------------------------


def hidden_swap(sc: dict[str, Any], seat: int, r: random.Random) -> dict[str, Any]:
    """The same position for `seat` with the opponent's unknown cards, its face-down
    discards and the pile dealt anew from their pooled cards (sizes kept)."""
    opp = 1 - seat
    sc = {k: (v.copy() if isinstance(v, list) else v) for k, v in sc.items()}
    known = sc.get("known", [[], []])
    hidden_hand = list((Counter(sc["hands"][opp]) - Counter(known[opp])).elements())
    pool = hidden_hand + sc["discard_down"][opp] + sc["pile"]
    r.shuffle(pool)
    hands, downs = list(sc["hands"]), list(sc["discard_down"])
    n, m = len(hidden_hand), len(sc["discard_down"][opp])
    hands[opp] = sorted(known[opp] + pool[:n], key=ISLAND_NAMES.index)
    downs[opp] = sorted(pool[n : n + m], key=ISLAND_NAMES.index)
    sc.update(hands=hands, discard_down=downs, pile=pool[n + m :])
    return sc


def test_k12_swapping_hidden_cards_and_the_pile_order_never_changes_an_observation() -> None:
    r = random.Random(0)
    changed = 0
    for s in STATES:
        sc = to_scenario(s, 0)
        for seat in (0, 1):
            before = observe(s, seat=seat)
            for _ in range(3):
                other = hidden_swap(sc, seat, r)
                swapped = from_scenario(other, seed=r.randrange(2**32))
                changed += swapped.hands[0, 1 - seat] != s.hands[0, 1 - seat]
                assert np.array_equal(observe(swapped, seat=seat), before)
    assert changed > 100  # the swaps did change hidden cards


def test_the_own_hand_and_the_opponents_known_cards_do_show() -> None:
    row = ["COCO", "COCO", "DUDA"]  # the rest, ALOA or BARI among it, in the pile
    a = make(hands=[["ALOA"], ["KAHU"]], face_up=row)
    b = make(hands=[["BARI"], ["KAHU"]], face_up=row)
    assert not np.array_equal(observe(load(a), seat=0), observe(load(b), seat=0))
    assert np.array_equal(observe(load(a), seat=1), observe(load(b), seat=1))
    c = make(hands=[["ALOA"], ["KAHU"]], face_up=row, known=[["ALOA"], []])
    assert not np.array_equal(observe(load(a), seat=1), observe(load(c), seat=1))


# ---- the API --------------------------------------------------------------------------


def test_a_batch_encodes_each_game_as_alone() -> None:
    batch = State.concatenate(STATES[:40])
    seats = np.arange(40) % 2
    whole = observe(batch, seat=seats)
    for g in range(40):
        assert np.array_equal(whole[g], observe(STATES[g], seat=int(seats[g]))[0])
    assert whole.dtype == np.float32 and whole.shape == (40, OBS_DIM)


def test_out_is_written_whole_and_returned() -> None:
    batch = State.concatenate(STATES[:8])
    out = np.full((8, OBS_DIM), np.nan, dtype=np.float32)
    assert observe(batch, out=out) is out
    assert not np.isnan(out).any() and np.array_equal(out, observe(batch))


def test_bad_seats_and_outs_are_rejected() -> None:
    s = load(e1())
    with pytest.raises(ValueError, match="0 or 1"):
        observe(s, seat=2)
    with pytest.raises(TypeError, match="seat"):
        observe(s, seat=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shape"):
        observe(s, seat=np.array([0, 1]))
    with pytest.raises(ValueError, match="out"):
        observe(s, out=np.zeros((1, OBS_DIM), dtype=np.float64))
    with pytest.raises(ValueError, match="decode"):
        decode(np.zeros(OBS_DIM + 1))


def test_values_lie_in_0_to_1_except_counts_over_thresholds() -> None:
    v = np.concatenate([observe(s, seat=p) for s in STATES for p in (0, 1)])
    majority = list(
        range(OBS_LAYOUT_OFFSETS["my_majority"], OBS_LAYOUT_OFFSETS["my_majority"] + 24)
    )
    rest = np.delete(v, majority + [OBS_LAYOUT_OFFSETS["numbers"] + 11], axis=1)  # (and turn)
    assert rest.min() >= 0 and rest.max() <= 1
    assert v[:, majority].max() <= (DEGREE / MAJORITY).max() + 1e-6  # all lines of an island


# ---- docs/observation-kahuna.md -------------------------------------------------------


def test_the_layout_document_is_current() -> None:
    doc = (ROOT / "docs" / "observation-kahuna.md").read_text()
    assert doc == layout_markdown(), (
        "docs/observation-kahuna.md is stale: run "
        "`python -m kanaloa_env.core.kahuna.observation > docs/observation-kahuna.md`"
    )
    assert sum(size for _, size, _ in OBS_LAYOUT) == OBS_DIM
