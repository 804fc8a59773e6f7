"""Invariant checks for batches of Kanaloa states, shipped so users can run them on
their own states and bug reports (as pgx, PettingZoo and OpenSpiel ship theirs).

```python
from kanaloa_env.core.kanaloa.invariants import check_invariants, random_playthrough
check_invariants(state)                  # raises InvariantError naming game and rule
stats = random_playthrough(Config(), num_games=1000, seed=0)
```
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..batch import InvariantError, check_positive_int
from . import masks, route
from .config import Config
from .constants import (
    HAND_SIZE,
    KANALOA,
    KANALOA_BITS,
    MIN_ROUTE_CARDS,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
    OCTOPUS,
    OCTOPUS_BITS,
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

    Checked: every array holds values in its range (first, so that a corrupt index
    is reported, not met as an IndexError by the checks below); cards are conserved and no card is in two places (R1.2, R3.1); hand
    sizes match the tricks played; the cached bit sets agree with the arrays they
    summarise (`played` with the history, `present_slots` with `present`); at most
    one boat per field except boats that never left the start field (R2.3);
    progress differences agree with the boats' fields (R9.1) and no boat is more
    than a lap ahead unless it won (R9.2); at least three ocean cards remain (R7.2);
    tricks won add up; the cached mask equals a fresh computation and is non-empty
    exactly when the game is not over; end flags, winner and player to act agree.
    """
    cfg = state.config
    P, B = cfg.num_players, state.batch_size
    rows = np.arange(B)

    def fail(bad: np.ndarray, what: str) -> None:
        games = np.flatnonzero(bad)
        if games.size:
            raise InvariantError(f"{what}: games {games[:10].tolist()}")

    for name, lo, hi in _ranges(cfg):
        values = getattr(state, name).reshape(B, -1)
        fail(((values < lo) | (values > hi)).any(axis=1), f"{name} outside {lo}..{hi}")

    hands = state.hands
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
        lapped = prog[won, w] - others.min(axis=1) > lap[won]
        fail(np.isin(rows, won[~lapped]), "the winner did not lap the last boat (R9.2)")

    done = state.terminated | state.truncated
    fail(state.terminated & state.truncated, "both terminated and truncated")
    fail(done != (state.phase == Phase.GAME_OVER), "phase game_over must match the end flags")
    fail((state.winner >= 0) != state.terminated, "winner set exactly when terminated")
    fail(done != (state.current_player < 0), "no player to act exactly when the game is over")
    fresh = masks.compute_mask(state)
    fail((fresh != state.legal).any(axis=1), "cached mask differs from a fresh computation")
    fail(fresh.any(axis=1) == done, "mask must be non-empty exactly when the game is not over")


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
    )


@dataclass
class PlaythroughStats:
    """What `random_playthrough` saw: games, decisions, ends, rounds."""

    games: int
    decisions: int
    terminated: int
    truncated: int
    mean_rounds: float
    final_state: State


def random_playthrough(
    config: Config,
    num_games: int = 256,
    seed: int = 0,
    max_steps: int = 200_000,
    check_every: int = 1,
) -> PlaythroughStats:
    """Play random legal games to the end, checking invariants along the way.

    Besides `check_invariants`, each step checks that progress never decreases
    except by an ocean-card removal, that finished games stay unchanged, and that
    rewards appear only at the end (R10). Raises `InvariantError` on a violation or
    when a game neither ends nor truncates within `max_steps` decisions;
    `TypeError`/`ValueError` when `num_games`, `max_steps` or `check_every` is not an
    int >= 1.
    """
    for name, value in (
        ("num_games", num_games),
        ("max_steps", max_steps),
        ("check_every", check_every),
    ):
        check_positive_int(value, name)
    state = init(config, num_games, seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    for t in range(max_steps):
        done = state.done
        if done.all():
            break
        mask = state.legal
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        before = state
        state = step(before, actions)
        decisions += int((~done).sum())
        removed = before.present.sum(axis=1) != state.present.sum(axis=1)
        dropped = (state.progress < before.progress).any(axis=1)
        if (dropped & ~removed).any():
            raise InvariantError(
                f"progress decreased without a removal: games {np.flatnonzero(dropped & ~removed)[:10].tolist()}"
            )
        if (done & ~before.game_equal(state.replace(rewards=before.rewards))).any():
            raise InvariantError("a finished game changed in step")
        if (state.rewards[done] != 0).any():
            raise InvariantError("a finished game got a reward")
        ended = state.done & ~done
        if (state.rewards[~ended] != 0).any():
            raise InvariantError("reward outside the final step")
        if t % check_every == 0:
            check_invariants(state)
    else:
        raise InvariantError(f"games still running after {max_steps} steps")
    check_invariants(state)
    return PlaythroughStats(
        games=num_games,
        decisions=decisions,
        terminated=int(state.terminated.sum()),
        truncated=int(state.truncated.sum()),
        mean_rounds=float(state.round.mean()),
        final_state=state,
    )
