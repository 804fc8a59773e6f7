"""Thousands of random games end (K7.6) with every invariant holding; determinism; game
i identical at batch sizes 1, 7 and 64; the checker catches broken states; saving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from kahuna_kit import e1, load

from kanaloa_env.core.kahuna import (
    Config,
    InvariantError,
    State,
    check_invariants,
    init,
    random_playthrough,
    step,
)
from kanaloa_env.core.kahuna.config import DISCARD_RULES
from kanaloa_env.testing import InvariantError as ShippedInvariantError

CONFIGS = [
    Config(),
    Config(stones_per_player=12, first_player=0, discard_rule="unplayable_cards"),
    Config(stones_per_player=11, discard_rule="no_legal_play", early_end=False),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: str(c.overrides()))
def test_k7_6_random_games_end_within_130_turns_with_every_invariant(cfg: Config) -> None:
    stats = random_playthrough(cfg, num_games=700, seed=1, check_every=3)
    assert stats.terminated == 700 and stats.truncated == 0
    assert stats.max_turns <= 130  # K7.6
    assert stats.decisions > 700 * 60


@pytest.mark.slow
@pytest.mark.parametrize("rule", DISCARD_RULES)
@pytest.mark.parametrize("stones", [10, 11, 12])
def test_k7_6_soak(rule: str, stones: int) -> None:
    stats = random_playthrough(
        Config(stones_per_player=stones, discard_rule=rule), num_games=4000, seed=stones
    )
    assert stats.terminated == 4000 and stats.max_turns <= 130


def test_k9_1_short_games_truncate_with_every_invariant() -> None:
    stats = random_playthrough(Config(max_turns=25), num_games=300, seed=2)
    assert stats.truncated == 300 and stats.max_turns == 25


def play(cfg: Config, batch: int, seed: int, steps: int) -> list[State]:
    """Random games where each game's choice depends only on its index and step."""
    s = init(cfg, batch, seed)
    out = [s]
    for t in range(steps):
        legal = s.legal | s.done[:, None]
        count = legal.sum(axis=1)
        pick = (np.arange(batch) * 7919 + t * 104729) % count  # the pick-th legal action
        actions = np.argmax(np.cumsum(legal, axis=1) > pick[:, None], axis=1)
        s = step(s, actions)
        out.append(s)
    return out


def test_game_i_plays_identically_at_batch_sizes_1_7_and_64() -> None:
    big = play(Config(), 64, 3, 180)
    for size in (1, 7):
        small = play(Config(), size, 3, 180)
        for t in range(0, 181, 9):
            assert small[t] == big[t].take(np.arange(size))


def test_a_seed_reproduces_a_batch_and_another_seed_differs() -> None:
    a, b, c = (play(Config(), 16, seed, 120)[-1] for seed in (4, 4, 5))
    assert a == b and a != c


def test_saved_states_load_back_checked(tmp_path: Path) -> None:
    s = play(Config(stones_per_player=11), 8, 6, 90)[-1]
    s.save(tmp_path / "batch.npz")
    assert State.load(tmp_path / "batch.npz") == s
    s.bridges[2, 0] |= s.bridges[2, 1]  # a line owned twice
    s.save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="owned twice"):
        State.load(tmp_path / "bad.npz")


# ---- the checker catches broken states ------------------------------------------------

BREAKS: list[tuple[str, Callable[[State], None]]] = [
    ("cards not conserved", lambda s: s.hands.__setitem__((0, 0), s.hands[0, 0] + 1)),
    ("owned twice", lambda s: s.bridges.__setitem__((0, 1), s.bridges[0, 1] | s.bridges[0, 0])),
    ("does not hold", lambda s: s.stones.__setitem__((0, 0), s.stones[0, 0] | 1 << 10)),
    ("alternate", lambda s: s.current_player.__setitem__(0, 1)),
    ("cached mask", lambda s: s.legal.__setitem__((0, 152), not s.legal[0, 152])),
    ("known is not part", lambda s: s.known.__setitem__((0, 1), 1 << 20)),
    ("pile entries", lambda s: s.pile.__setitem__((0, 20), 3)),
    ("phase game_over", lambda s: s.terminated.__setitem__(0, True)),
    ("scoring", lambda s: s.scorings.__setitem__((0, 1, 0), 1)),
    ("handed_back", lambda s: s.handed_back.__setitem__(0, True)),
    ("outside", lambda s: s.phase.__setitem__(0, 7)),
    ("public view", lambda s: s.hidden_hand.__setitem__((0, 1), 2)),
]


@pytest.mark.parametrize("what, breaks", BREAKS, ids=[b[0] for b in BREAKS])
def test_the_checker_names_the_broken_rule(what: str, breaks: Callable[[State], None]) -> None:
    s = load(e1())
    check_invariants(s)
    breaks(s)
    with pytest.raises(InvariantError, match=what):
        check_invariants(s)


def test_one_invariant_error_class_for_both_games() -> None:
    s = load(e1())
    s.current_player[0] = 1
    with pytest.raises(ShippedInvariantError, match="alternate"):
        check_invariants(s)


def test_random_playthrough_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_games"):
        random_playthrough(Config(), num_games=0)
    with pytest.raises(TypeError, match="check_every"):
        random_playthrough(Config(), check_every=1.5)  # type: ignore[arg-type]
