"""public_view (K12): a copy holding only what one player may know."""

from __future__ import annotations

import numpy as np
from kahuna_kit import e1, load

from kanaloa_env.core.kahuna import Config, State, init, observe, public_view, step


def test_the_opponents_hidden_cards_pile_and_key_are_blanked() -> None:
    sc = e1()
    sc["known"] = [[], ["HUNA"]]
    sc["discard_down"] = [["GOLA"], ["KAHU"]]
    sc["pile"].remove("GOLA")
    sc["pile"].remove("KAHU")
    s = load(sc)
    v = public_view(s, 0)
    assert v.hands[0, 0] == s.hands[0, 0] and v.discard_down[0, 0] == s.discard_down[0, 0]
    assert v.hands[0, 1] == s.known[0, 1]  # only HUNA, known, is left
    assert v.hidden_hand[0].tolist() == [0, 3] and v.hidden_down[0].tolist() == [0, 1]
    assert v.discard_down[0, 1] == 0 and (v.pile == -1).all() and v.pile_size[0] == 6
    assert v.key[0] == 0 and (v.bridges == s.bridges).all() and (v.known == s.known).all()
    assert v.legal[0].any()  # player 0 is to act: its own mask is kept
    assert not public_view(s, 1).legal.any()  # player 0's mask would show its cards
    assert s == load(sc)  # the input is untouched


def test_two_states_that_differ_only_in_hidden_cards_have_equal_views() -> None:
    a = e1()
    b = e1()
    b["hands"][1] = ["ELAI", "GOLA", "HUNA", "KAHU"]
    b["pile"] = ["BARI", "FAAA", "JOJO", "ALOA", "COCO", "GOLA", "HUNA", "LALE"]
    va, vb = public_view(load(a), 0), public_view(load(b, seed=5), 0)
    assert va == vb


def test_views_of_a_batch_per_game_seats() -> None:
    s = init(Config(), 6, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = step(s, np.argmax(rng.random(s.legal.shape) * s.legal, axis=1))
    seats = np.array([0, 1, 0, 1, 1, 0])
    v = public_view(s, seats)
    for g in range(6):
        assert v.take([g]) == public_view(s.take([g]), int(seats[g]))
        assert np.array_equal(
            observe(v.take([g]), seat=int(seats[g])), observe(s.take([g]), seat=int(seats[g]))
        )
    assert isinstance(v, State)
