"""Kahuna's invariants (KAHUNA-RULES.md), checked in numpy apart from the engine's
kernels: `check_invariants` raises `InvariantError` naming the games and the rule a
batch breaks, and `random_playthrough` plays random games under it with the checks of
each step (`_turns`); `kanaloa_env.testing` runs any game's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import engine
from ..batch import InvariantError
from ..engine import check_mask, check_ranges, fail
from . import cards, masks
from .config import Config
from .constants import (
    ALL_ISLANDS,
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    FINAL_TURNS,
    HAND_LIMIT,
    LINES_AT,
    MAJORITY,
    MAX_PILE,
    MAX_STONES,
    NO_CARD,
    NUM_ISLANDS,
    NUM_SCORINGS,
    Phase,
)
from .setup import init
from .state import State
from .step import step

__all__ = ["InvariantError", "PlaythroughStats", "check_invariants", "random_playthrough"]

_ISLAND_BITS = (1 << np.arange(NUM_ISLANDS)).astype(np.uint16)


def _held(bridges: np.ndarray) -> np.ndarray:
    """K5.1 in numpy, apart from the engine's kernels (this module is the independent
    check): island bit sets (same shape) held by each line set (...)."""
    counts = np.bitwise_count(bridges[..., None] & LINES_AT)
    return ((counts >= MAJORITY) @ _ISLAND_BITS).astype(np.uint16)  # type: ignore[no-any-return]


def check_invariants(state: State) -> None:
    """Check every game of `state`, a batch; raise `InvariantError` on the first broken rule.

    Checked: values in range (first, so a corrupt index is reported, not met as an
    IndexError); card conservation: hands, row, pile and discards hold each island's
    2 cards (K1.4); at most 5 cards in a hand (K2.3); `known` inside the hand
    (K6.7); one owner per line and at most 25 bridges each (K1.5); a stone only
    where its owner holds the island, at most stones_per_player, and with 12 stones
    a stone on every held island (K5.1, K5.4, K5.6); an empty slot only with an
    empty pile (K6.1); cards to draw outside the final turns and none in them (K6.6,
    K7.4); turns alternate (`current_player = starting_player XOR turn mod 2`);
    phase, flags and scorings agree (K3, K6.3, K6.4, K7); no running game meets the
    early end (K8.2) or max_turns (K9.1); end flags, winner, player to act agree
    (K8); the cached mask equals a fresh computation and is empty exactly when the
    game is over; the public-view counters are 0.
    """
    check_ranges(state, _ranges(state.config))
    _check_words(state)
    _check_cards(state)
    _check_board(state)
    _check_turns(state)
    _check_scorings(state)
    check_mask(state, masks.compute_mask(state), state.phase == Phase.GAME_OVER)


def _check_words(state: State) -> None:
    """The bit sets and count words hold no bit past the islands and lines (K1); the
    public-view counters are 0."""
    B = state.batch_size

    def rows(x: np.ndarray) -> np.ndarray:
        return x.reshape(B, -1)

    for name in ("hands", "known", "discard_up", "discard_down"):
        fail(
            (rows(cards.counts(getattr(state, name))) > 2).any(axis=1)
            | (rows(getattr(state, name)) >> 24 != 0).any(axis=1),
            f"{name}: more than 2 cards of an island (K1.4)",
        )
    fail(rows(state.bridges >> 27 != 0).any(axis=1), "bridges on lines past 26")
    fail(rows(state.stones >> 12 != 0).any(axis=1), "stones on islands past 11")
    fail(
        rows(state.hidden_hand != 0).any(axis=1) | rows(state.hidden_down != 0).any(axis=1),
        "a public view is not a state",
    )


def _check_cards(state: State) -> None:
    """K1.4, K2.3, K6.1, K6.7: every card in one place, hands within the limit."""
    B = state.batch_size
    size = state.pile_size.astype(np.intp)
    pos = np.arange(MAX_PILE)
    in_pile = pos < size[:, None]
    fail(((state.pile >= 0) != in_pile).any(axis=1), "pile entries do not match pile_size")
    pile_counts = np.zeros((B, NUM_ISLANDS), dtype=np.int64)
    row_counts = np.zeros((B, NUM_ISLANDS), dtype=np.int64)
    for x in range(NUM_ISLANDS):
        pile_counts[:, x] = ((state.pile == x) & in_pile).sum(axis=1)
        row_counts[:, x] = (state.face_up == x).sum(axis=1)
    total = (
        cards.counts(state.hands).sum(axis=1)
        + cards.counts(state.discard_down).sum(axis=1)
        + cards.counts(state.discard_up)
        + pile_counts
        + row_counts
    ).astype(np.int64)
    fail((total != 2).any(axis=1), "cards not conserved: an island without exactly 2 cards (K1.4)")
    fail((cards.size(state.hands) > HAND_LIMIT).any(axis=1), "a hand over 5 cards (K2.3)")
    fail(
        ~cards.contains(state.hands, state.known).all(axis=1),
        "known is not part of the hand (K6.7)",
    )
    fail(
        (state.face_up < 0).any(axis=1) & (size > 0),
        "an empty slot while the pile is not empty (K6.1)",
    )


def _check_board(state: State) -> None:
    """K1.5, K1.6, K5: bridges and stones."""
    cfg = state.config
    fail(state.bridges[:, 0] & state.bridges[:, 1] != 0, "a line owned twice (K1.5)")
    fail(
        (np.bitwise_count(state.bridges) > BRIDGES_PER_PLAYER).any(axis=1),
        "more than 25 bridges (K1.5)",
    )
    held = _held(state.bridges)
    fail(state.stones[:, 0] & state.stones[:, 1] != 0, "two stones on one island")
    fail(
        (state.stones & ~held != 0).any(axis=1),
        "a stone where its owner does not hold the island (K5.4)",
    )
    fail(
        (np.bitwise_count(state.stones) > cfg.stones_per_player).any(axis=1),
        "more stones than stones_per_player (K1.6)",
    )
    if cfg.stones_per_player == MAX_STONES:
        fail(
            (state.stones != held).any(axis=1),
            "with 12 stones, a held island without its stone (K5.6)",
        )


def _check_turns(state: State) -> None:
    """K3, K6, K7.4, K8, K9: turns, phases, flags and the end agree."""
    cfg = state.config
    B = state.batch_size
    size = state.pile_size.astype(np.intp)
    over = state.phase == Phase.GAME_OVER
    done = state.terminated | state.truncated
    final = state.final_turns_left > 0
    left = (size > 0) | (state.face_up >= 0).any(axis=1)
    fail(state.terminated & state.truncated, "both terminated and truncated")
    fail(done != over, "phase game_over must match the end flags")
    fail(over != (state.current_player < 0), "no player to act exactly when the game is over")
    fail(
        ~over & (state.current_player != state.starting_player ^ (state.turn & 1)),
        "turns do not alternate: current_player != starting_player XOR turn mod 2 (K3.1)",
    )
    if cfg.first_player != "random":
        fail(
            state.starting_player != cfg.first_player,
            "starting_player differs from config first_player (K2.2)",
        )
    fail((state.winner >= 0) & ~state.terminated, "a winner in a game not terminated")
    fail(~over & ~final & ~left, "no card to draw outside the final turns (K6.6)")
    fail(
        final & (left | (state.num_scorings != 2)),
        "final turns with cards to draw or without 2 scorings (K7.4)",
    )
    fail(final & (state.phase == Phase.DRAW), "a DRAW phase in a final turn (K3.3)")
    fail(final & state.last_turn_skipped & ~over, "a final turn after a skip (K7.1)")
    me = 2 * np.arange(B) + np.maximum(state.current_player, 0)
    fail(
        state.handed_back
        & (
            (state.phase != Phase.DRAW)
            | (cards.size(state.hands.reshape(-1).take(me)) >= HAND_LIMIT)
        ),
        "handed_back outside DRAW or with 5 cards (K6.4)",
    )
    fail(state.last_turn_skipped & (state.turn == 0), "a skip before the first turn (K6.3)")
    fail(~over & (state.num_scorings == NUM_SCORINGS), "3 scorings in a running game (K7.5)")
    fail(~over & ~final & (state.turn >= cfg.max_turns), "a running game past max_turns (K9.1)")
    fail(
        final
        & (state.turn > cfg.max_turns + FINAL_TURNS - state.final_turns_left.astype(np.int64)),
        "final turns begun after max_turns (K9.1)",
    )
    if cfg.early_end:
        bare = (state.bridges == 0).any(axis=1)
        fail(~over & (state.num_scorings > 0) & bare, "a running game meets the early end (K8.2)")


def _check_scorings(state: State) -> None:
    """K7.2, K7.5, K8.2, K9.1: the scorings done, and the end they lead to."""
    cfg = state.config
    final = state.final_turns_left > 0
    sc = state.scorings.astype(np.int64)
    n = state.num_scorings
    fail(
        ((np.arange(NUM_SCORINGS) >= n[:, None]) & (sc != 0).any(axis=2)).any(axis=1),
        "points in a scoring not done",
    )
    fail((sc.min(axis=2) != 0).any(axis=1), "both players scored in one scoring (K7.2)")
    for k, worth in enumerate((1, 2)):
        fail(
            (n > k) & ~np.isin(sc[:, k].max(axis=1), (0, worth)),
            f"scoring {k + 1} other than {worth} or 0 points (K7.2)",
        )
    stones = np.bitwise_count(state.stones).astype(np.int64)
    diff = stones[:, 0] - stones[:, 1]
    third = np.stack([np.maximum(diff, 0), np.maximum(-diff, 0)], axis=1)
    fail(
        (n == NUM_SCORINGS) & (sc[:, 2] != third).any(axis=1),
        "the third scoring is not the stone difference (K7.5)",
    )
    fail(
        state.truncated & ((n == NUM_SCORINGS) | final | (state.turn < cfg.max_turns)),
        "truncated outside K9.1",
    )
    fail(
        state.terminated
        & (n < NUM_SCORINGS)
        & ~(cfg.early_end & (n > 0) & (state.bridges == 0).any(axis=1)),
        "terminated without a scoring or early end (K7.5, K8.2)",
    )


def _ranges(cfg: Config) -> tuple[tuple[str, int, int], ...]:
    """(array, lowest, highest) for every array whose values index something."""
    return (
        ("phase", min(Phase), max(Phase)),
        ("current_player", -1, 1),
        ("starting_player", 0, 1),
        ("winner", -1, 1),
        ("turn", 0, cfg.max_turns + FINAL_TURNS),
        ("final_turns_left", 0, FINAL_TURNS),
        ("face_up", NO_CARD, NUM_ISLANDS - 1),
        ("pile", NO_CARD, NUM_ISLANDS - 1),
        ("pile_size", 0, MAX_PILE),
        ("num_scorings", 0, NUM_SCORINGS),
        ("scorings", 0, MAX_STONES),
        ("bridges", 0, ALL_LINES),
        ("stones", 0, ALL_ISLANDS),
    )


@dataclass
class PlaythroughStats(engine.PlaythroughStats):
    """What `random_playthrough` saw: the common figures, draws and turns."""

    draws: int
    mean_turns: float
    max_turns: int

    @staticmethod
    def figures(state: State) -> dict[str, Any]:
        """The figures of finished games that a playthrough reports, read from `state`:
        draws, mean and longest game in turns."""
        return {
            "draws": int((state.terminated & (state.winner < 0)).sum()),
            "mean_turns": float(state.turn.mean()),
            "max_turns": int(state.turn.max()),
        }


def _turns() -> Callable[[State, State, np.ndarray], None]:
    """The checks of each step of one run: rewards sum to 0 (K10.1), the player to act
    changes exactly when a turn ends and the turn counter grows by at most 1 (K3.1),
    and no game needs more than 7 decisions in one turn (K7.6)."""
    in_turn = np.zeros(0, dtype=np.int64)  # decisions in each game's current turn

    def turns(before: State, after: State, done: np.ndarray) -> None:
        nonlocal in_turn
        if in_turn.shape != done.shape:
            in_turn = np.zeros(done.shape, dtype=np.int64)
        fail(after.rewards.sum(axis=1) != 0, "rewards do not sum to 0 (K10.1)")
        turned = after.turn != before.turn
        fail(after.turn - before.turn > 1, "the turn counter jumped (K3.1)")
        switched = after.current_player != before.current_player
        fail(
            ~after.done & (switched != turned),
            "the player to act changed without a turn end (K3.1)",
        )
        in_turn = np.where(turned | done, 0, in_turn + 1)
        fail(in_turn >= 7, "more than 7 decisions in one turn (K7.6)")

    return turns


random_playthrough = engine.playthrough(
    init,
    step,
    check_invariants,
    PlaythroughStats,
    max_steps=5_000,
    each_run=_turns,
    why_long=" (K7.6)",
)
