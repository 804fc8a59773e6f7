"""Kanaloa's invariants (RULES.md), checked in numpy apart from the engine's kernels:
`check_invariants` raises `InvariantError` naming the games and the rule a batch breaks,
`check_loaded` adds what a state read from a file must pass, and `random_playthrough`
plays random games under them (`kanaloa_env.testing` runs any game's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import engine
from ..batch import InvariantError
from ..engine import check_mask, check_ranges, fail
from . import masks, route
from .config import Config
from .constants import (
    CARD_SUIT,
    HAND_SIZE,
    KANALOA,
    KANALOA_BITS,
    MAX_PROGRESS,
    MIN_ROUTE_CARDS,
    NO_SUIT,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
    OCTOPUS,
    OCTOPUS_BITS,
    SUIT_BITS,
    TIKI_BITS,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
)
from .setup import init
from .state import State
from .step import step
from .tricks import played_from_history

__all__ = ["InvariantError", "PlaythroughStats", "check_invariants", "random_playthrough"]


def check_invariants(state: State) -> None:
    """Check every game of a batch; raise `InvariantError` on the first broken rule.

    A state passes when the rules could have reached it, as far as one state shows.
    Checked: every array holds values in its range, `|progress| <= 8 * MAX_PROGRESS`
    included (`MAX_PROGRESS` bounds positions given from outside; first, so that a
    corrupt index is reported, not met as an IndexError by the checks below); hands
    and the played set hold only the 53 card bits; cards are conserved and no card
    is in two places (R1.2, R3.1); hand sizes match the tricks played; the cached bit sets agree with the arrays they summarise
    (`played` with the history, `present_slots` with `present`); at most one boat
    per field except boats that never left the start field (R2.3); progress
    differences agree with the boats' fields (R9.1) and no boat is more than a lap
    ahead unless it won, and the winner less than two (R9.2); at least three ocean cards remain (R7.2); tricks won
    add up; the cached mask equals a fresh computation and is non-empty exactly when
    the game is not over; end flags, winner and player to act agree; rewards are in
    -1..1 and only where the game is over (R10). The phase fits the trick: the open
    trick holds fewer than P cards (all P only while its last, an octopus, waits
    for its removal), the suit to follow is its first Tiki card's (R4.2), the player
    to act is the one the phase names, the first trick is the starting player's
    (R3.3); announcements fit the variant and the announce phase (R3.2); a void
    (the player showed it lacks a suit) means no card of that suit in hand (R4.3);
    a dolphin decision has a boat on a dolphin with both neighbours free and a move
    it follows (R6.3, R7.3); a won game ended after a trick, a truncated one after
    the 8th trick of round `max_rounds` (R9.4).
    """
    check_ranges(state, _ranges(state.config))
    _check_cards(state)
    _check_route(state)
    done = _check_end(state)
    _check_phase(state, done)


def _check_cards(state: State) -> None:
    """R1.2, R3.1: the 53 cards, each in one place; the round's record of plays and tricks."""
    P = state.num_players
    hands = state.hands
    fail(
        ((hands | state.played[:, None]) & ~_CARD_BITS).any(axis=1),
        "a hand or the played set holds a bit that is no card (bits 0..52)",
    )
    overlap = hands[:, :, None] & hands[:, None, :]
    overlap[:, np.arange(P), np.arange(P)] = 0  # a hand overlaps itself
    fail(overlap.any(axis=(1, 2)), "a card is in two hands (R1.2)")
    hist = state.history
    played_mask = np.arange(hist.shape[1])[None, :] < state.num_played[:, None]
    fail(((hist >= 0) != played_mask).any(axis=1), "history does not match num_played")
    fail(
        state.played != played_from_history(hist, state.num_played),
        "the played bit set does not match the history",
    )
    union = np.bitwise_or.reduce(hands, axis=1)
    for c in range(NUM_TIKI):
        in_hand = (union >> np.uint64(c)) & np.uint64(1)
        n_played = ((hist == c) & played_mask).sum(axis=1)
        fail(in_hand.astype(int) + n_played > 1, f"Tiki card {c} held and played twice (R1.2)")
    for card, bits, copies in (
        (KANALOA, KANALOA_BITS, NUM_KANALOA),
        (OCTOPUS, OCTOPUS_BITS, NUM_OCTOPUS),
    ):
        held = np.bitwise_count(hands & bits).sum(axis=1)
        n_played = ((hist == card) & played_mask).sum(axis=1)
        fail(held + n_played > copies, f"more than {copies} copies of card type {card} (R1.2)")
    sizes = np.bitwise_count(hands & (TIKI_BITS | KANALOA_BITS | OCTOPUS_BITS))
    fail(
        sizes.sum(axis=1) + state.num_played != HAND_SIZE * P,
        "cards not conserved: hands + played != 8P (R3.1)",
    )
    fail(state.trick_number * P > state.num_played, "trick_number ahead of cards played")
    fail(
        state.tricks_won.sum(axis=1) != state.trick_number,
        "tricks won do not add up to trick_number",
    )


def _check_route(state: State) -> None:
    """R2.3, R7.2, R9.1, R9.2: the ocean cards left, the boats on them, their progress."""
    cfg = state.config
    P = cfg.num_players
    rows = np.arange(state.batch_size)
    present = state.present
    fail(present.sum(axis=1) < MIN_ROUTE_CARDS, "fewer than 3 ocean cards (R7.2)")
    fail(
        state.present_slots != present @ (1 << np.arange(present.shape[1])),
        "the present_slots bit set does not match present",
    )
    fail(
        ~present[rows[:, None], state.boat_field // 2].all(axis=1),
        "a boat stands on a removed card",
    )
    lap = route.lap_length(state, rows)
    start = cfg.deck.start[state.route[rows[:, None], state.boat_field]]
    # Compact field index of every boat: present fields before its field.
    pres_f = np.repeat(present, 2, axis=1)
    before = np.cumsum(pres_f, axis=1) - pres_f
    compact = before[rows[:, None], state.boat_field]
    prog = state.progress
    for p in range(P):
        for q in range(p + 1, P):
            same = state.boat_field[:, p] == state.boat_field[:, q]
            fail(
                same & ~(start[:, p] & (prog[:, p] == prog[:, q])),
                f"boats {p} and {q} share a non-start field (R2.3)",
            )
            d = (prog[:, p] - prog[:, q]) - (compact[:, p] - compact[:, q])
            fail(d % lap != 0, f"progress of boats {p},{q} contradicts their fields (R9.1)")
    spread = prog.max(axis=1) - prog.min(axis=1)
    fail(
        ~state.terminated & (spread > lap),
        "a boat is more than a lap ahead but the game goes on (R9.2)",
    )
    won = np.flatnonzero(state.terminated)
    if won.size:
        w = state.winner[won].astype(np.intp)
        others = prog[won].astype(np.int64).copy()
        others[np.arange(len(won)), w] = np.iinfo(np.int64).max
        last = others.min(axis=1)
        lapped = prog[won, w] - last > lap[won]
        fail(np.isin(rows, won[~lapped]), "the winner did not lap the last boat (R9.2)")
        # The winning move starts less than a lap ahead and sails at most a lap; the
        # other boats did not move.
        fail(
            np.isin(rows, won[prog[won, w] - last >= 2 * lap[won]]),
            "the winner is two laps ahead of the last boat: more than one move lapped (R9.2)",
        )
        others[np.arange(len(won)), w] = np.iinfo(np.int64).min
        fail(
            np.isin(rows, won[others.max(axis=1) - last > lap[won]]),
            "a boat besides the winner is more than a lap ahead of the last (R9.2)",
        )


def _check_end(state: State) -> np.ndarray:
    """End flags, winner, player to act, the cached mask and the rewards (R9, R10) agree;
    returns (B,) whether each game is over."""
    done = state.terminated | state.truncated
    fail(state.terminated & state.truncated, "both terminated and truncated")
    fail(done != (state.phase == Phase.GAME_OVER), "phase game_over must match the end flags")
    fail((state.winner >= 0) != state.terminated, "winner set exactly when terminated")
    fail(done != (state.current_player < 0), "no player to act exactly when the game is over")
    check_mask(state, masks.compute_mask(state), done)
    r = state.rewards
    fail(~(np.abs(r) <= 1).all(axis=1), "rewards outside -1..1 (R10)")
    fail(~done & (r != 0).any(axis=1), "rewards in a game that is not over (R10)")
    return done


def check_loaded(state: State) -> None:
    """What a state read from a file must pass (`State.load`): `check_invariants`, and
    progress within `MAX_PROGRESS`, as a scenario's (`from_scenario`)."""
    check_invariants(state)
    far = np.flatnonzero((np.abs(state.progress.astype(np.int64)) > MAX_PROGRESS).any(axis=1))
    if far.size:
        raise ValueError(
            f"progress beyond -{MAX_PROGRESS}..{MAX_PROGRESS}: games {far[:10].tolist()}"
        )


def _check_phase(state: State, done: np.ndarray) -> None:
    """The phase, the open trick, the player to act and the round's public record
    agree (see `check_invariants`); `done` (B,) is terminated | truncated."""
    cfg = state.config
    P, B = cfg.num_players, state.batch_size
    rows = np.arange(B)
    phase, cur, leader = state.phase, state.current_player.astype(np.intp), state.leader
    tn, sp = state.trick_number.astype(np.intp), state.starting_player
    n_trick = state.num_played - tn * P
    fail(n_trick > P, "the open trick holds more cards than players")
    hist = state.history
    slot = np.minimum(tn[:, None] * P + np.arange(P), hist.shape[1] - 1)
    trick = np.where(np.arange(P) < n_trick[:, None], hist[rows[:, None], slot], -1)
    last = trick[rows, np.maximum(n_trick - 1, 0)]
    octopus_waits = (phase == Phase.REMOVE_OCTOPUS) & (n_trick > 0) & (last == OCTOPUS)
    fail((n_trick == P) & ~octopus_waits, "a complete trick outside an octopus removal (R4.4)")
    lead = np.full(B, NO_SUIT, dtype=np.int8)
    for j in range(P - 1, -1, -1):  # the first Tiki card of the trick wins the overwrite
        tiki = (trick[:, j] >= 0) & (trick[:, j] < NUM_TIKI)
        lead = np.where(tiki, CARD_SUIT[np.maximum(trick[:, j], 0)], lead)
    fail(state.lead_suit != lead, "the suit to follow is not the trick's first Tiki suit (R4.2)")
    fail((tn == 0) & (leader != sp), "the first trick is not led by the starting player (R3.3)")

    seat_after = (leader + n_trick) % P
    fail(
        (phase == Phase.PLAY) & ((cur != seat_after) | (tn >= TRICKS_PER_ROUND)),
        "phase play: not the next player of an open trick to act",
    )
    fail(
        (phase == Phase.REMOVE_OCTOPUS) & (~octopus_waits | (cur != (seat_after - 1) % P)),
        "phase remove_octopus: the player to act did not just play an octopus (R4.4)",
    )
    fail(
        (phase == Phase.REMOVE_ROUND_END)
        & ((tn != TRICKS_PER_ROUND) | (cur != leader) | (n_trick != 0)),
        "phase remove_round_end: not after the 8th trick with its winner to act (R7.1)",
    )
    after_move = (phase == Phase.DOLPHIN) | done
    fail(after_move & ((n_trick != 0) | (tn == 0)), "a move's aftermath with an open trick")
    fail(
        (phase == Phase.ANNOUNCE) & ((state.num_played != 0) | (not cfg.nil_announcement)),
        "phase announce after a card or without the variant (R3.2)",
    )
    fail(
        state.truncated & ((state.round != cfg.max_rounds) | (tn != TRICKS_PER_ROUND)),
        "truncated before the end of round max_rounds (R9.4)",
    )

    dolphin = phase == Phase.DOLPHIN
    fail(dolphin != (state.pending != Pending.NONE), "pending set exactly in phase dolphin")
    seat_flat = rows * P + np.maximum(cur, 0)
    announced_cur = state.announced.take(seat_flat)
    trick_pending = dolphin & (state.pending == Pending.TRICK)
    moves = not cfg.nil_announcement or cfg.announced_boat_moves
    fail(
        trick_pending & ((cur != leader) | ((announced_cur == 1) & (not moves))),
        "a dolphin decision after a trick, not by the trick's winner who moved (R6.3, R7.4)",
    )
    fail(
        dolphin
        & (state.pending == Pending.PAYOUT)
        & (
            (not cfg.nil_announcement)
            | (tn != TRICKS_PER_ROUND)
            | (announced_cur != 1)
            | (state.tricks_won.take(seat_flat) != 0)
        ),
        "a dolphin decision in the payouts, not by an announcer without tricks (R7.3)",
    )
    d = np.flatnonzero(dolphin)
    if d.size:
        ok = route.dolphin_eligible_at(state, d, cur[d])
        fail(np.isin(rows, d[~ok]), "a dolphin decision without an eligible dolphin (R6.3)")

    ann = state.announced
    if not cfg.nil_announcement:
        fail((ann != -1).any(axis=1), "announcements without the variant (R3.2)")
    else:
        rank = (np.arange(P) - sp[:, None]) % P
        decided = np.where(
            (phase == Phase.ANNOUNCE)[:, None], rank < ((cur - sp) % P)[:, None], True
        )
        fail(((ann != -1) != decided).any(axis=1), "announcements do not fit the phase (R3.2)")
    voids = state.voids.astype(np.uint64)
    held = np.zeros_like(state.hands)
    for s in range(NUM_SUITS):
        suit_held = (state.hands & SUIT_BITS[s]) != 0
        held |= suit_held.astype(np.uint64) << np.uint64(s)
    fail((voids & held).any(axis=1), "a void in a suit the player holds (R4.3)")
    fail(
        (state.num_played == 0) & (state.voids != 0).any(axis=1),
        "a void before the first card of the round",
    )


_CARD_BITS = TIKI_BITS | KANALOA_BITS | OCTOPUS_BITS


def _ranges(cfg: Config) -> tuple[tuple[str, int, int], ...]:
    """(array, lowest, highest) for every array whose values index something."""
    P = cfg.num_players
    return (
        ("phase", min(Phase), max(Phase)),
        ("pending", min(Pending), max(Pending)),
        ("current_player", -1, P - 1),  # -1: the game is over
        ("starting_player", 0, P - 1),
        ("leader", 0, P - 1),
        ("winner", -1, P - 1),
        ("round", 1, cfg.max_rounds),
        ("trick_number", 0, TRICKS_PER_ROUND),
        ("num_played", 0, HAND_SIZE * P),
        ("history", -1, NUM_CARD_TYPES - 1),  # -1: no card yet
        ("lead_suit", -1, NUM_SUITS - 1),  # -1: no suit to follow yet
        ("trump", 0, NUM_SUITS - 1),
        ("tricks_won", 0, TRICKS_PER_ROUND),
        ("announced", -1, 1),  # undecided, no, yes (R3.2)
        ("voids", 0, (1 << NUM_SUITS) - 1),
        ("route", 0, len(cfg.deck.color) - 1),  # deck field codes
        ("boat_field", 0, cfg.route_fields - 1),
        # A position given from outside holds |progress| <= MAX_PROGRESS, and no game
        # gains 2**22 from there (constants.py): 8x the bound leaves room, and
        # route.py's 8 * progress still fits the int32.
        ("progress", -8 * MAX_PROGRESS, 8 * MAX_PROGRESS),
    )


@dataclass
class PlaythroughStats(engine.PlaythroughStats):
    """What `random_playthrough` saw: the common figures, and rounds."""

    mean_rounds: float

    @staticmethod
    def figures(state: State) -> dict[str, Any]:
        """The figures of finished games that a playthrough reports, read from `state`: the
        mean number of rounds."""
        return {"mean_rounds": float(state.round.mean())}


def _moves(before: State, after: State, done: np.ndarray) -> None:
    """R9.1: progress never decreases but by an ocean card's removal."""
    removed = before.present.sum(axis=1) != after.present.sum(axis=1)
    dropped = (after.progress < before.progress).any(axis=1)
    fail(dropped & ~removed, "progress decreased without a removal")


# Each step also checks that progress never decreases but by an ocean card's removal;
# a game that neither ends nor truncates within `max_steps` decisions is an error.
random_playthrough = engine.playthrough(
    init, step, check_invariants, PlaythroughStats, max_steps=200_000, each_run=lambda: _moves
)
