"""Set-up and dealing: the only code that draws random numbers (R2, R3.1)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..batch import check_positive_int
from ..rng import draws, game_keys, permutations
from . import masks, route
from .config import Config
from .constants import (
    DECK_SIZE,
    HAND_SIZE,
    NO_CARD,
    NO_PLAYER,
    NO_SUIT,
    NUM_ACTIONS,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
    Suit,
)
from .state import State

_PHYSICAL_BITS = np.left_shift(np.uint64(1), np.arange(DECK_SIZE, dtype=np.uint64))


def empty_state(config: Config, batch_size: int) -> State:
    """A batch of zeroed arrays with the right shapes and dtypes (filled by `init`)."""
    B, P, N = batch_size, config.num_players, config.route_cards
    z = np.zeros
    return State(
        config=config,
        key=z(B, np.uint64),
        phase=z(B, np.int8),
        current_player=z(B, np.int8),
        round=z(B, np.int16),
        starting_player=z(B, np.int8),
        leader=z(B, np.int8),
        trick_number=z(B, np.int8),
        num_played=z(B, np.int8),
        history=np.full((B, TRICKS_PER_ROUND * P), NO_CARD, np.int8),
        played=z(B, np.uint64),
        lead_suit=np.full(B, NO_SUIT, np.int8),
        trump=z(B, np.int8),
        hands=z((B, P), np.uint64),
        tricks_won=z((B, P), np.int8),
        announced=np.full((B, P), -1, np.int8),
        voids=z((B, P), np.uint8),
        route=z((B, 2 * N), np.int8),
        present=np.ones((B, N), bool),
        present_slots=np.full(B, (1 << N) - 1, np.uint16),
        boat_field=z((B, P), np.int8),
        progress=z((B, P), np.int32),
        pending=z(B, np.int8),
        winner=np.full(B, NO_PLAYER, np.int8),
        terminated=z(B, bool),
        truncated=z(B, bool),
        rewards=z((B, P), np.float32),
        legal=z((B, NUM_ACTIONS), bool),
    )


MAX_GAME = 2**64 - 1
"""The largest game index in a stream (indices are uint64)."""


def _power_form(n: int) -> str:
    """`n` as `2**64-k` when it is near 2**64 (easier to read than 20 digits)."""
    return f"2**64-{2**64 - n}" if n > 2**63 else str(n)


def init(config: Config, batch_size: int, seed: int = 0, first_game: int = 0) -> State:
    """A batch of new games at the first decision of round 1.

    Args:
        config: the rules; one config for the whole batch.
        batch_size: number of games `B`.
        seed: 0..2**64-1. Game `i` of the batch is game `first_game + i` of the
            stream `seed`, the same whatever the batch size.
        first_game: index of the batch's first game in the stream; game indices
            are uint64, so `first_game + batch_size - 1 <= 2**64 - 1`.

    Returns:
        A new `State` of batch size `B`.

    Raises:
        TypeError: `config` is not a `Config`, or `batch_size` is not an int.
        ValueError: `batch_size < 1`, a bad `seed`, or `first_game` not an int in
            0..2**64-batch_size.
    """
    if not isinstance(config, Config):
        raise TypeError(f"config must be a kanaloa_env.core.Config, got {type(config).__name__}")
    B = check_positive_int(batch_size, "batch_size")
    # The batch's game indices must fit in uint64: past that np.arange raises a bare
    # OverflowError (or, for a numpy first_game, wraps with only a warning).
    last = MAX_GAME - B + 1
    if (
        isinstance(first_game, bool)
        or not isinstance(first_game, (int, np.integer))
        or not 0 <= int(first_game) <= last
    ):
        raise ValueError(
            f"first_game must be an int in 0..{_power_form(last)} for a batch of {B}, "
            f"got {first_game!r}"
        )
    first = int(first_game)
    keys = game_keys(seed, np.arange(first, first + B, dtype=np.uint64))
    return init_from_keys(config, keys)


def init_from_keys(config: Config, keys: np.ndarray) -> State:
    """A batch of new games, one per uint64 key (see `rng.game_keys`)."""
    state = empty_state(config, len(keys))
    reset_games(state, np.arange(len(keys)), np.asarray(keys, dtype=np.uint64))
    return state


def reset_games(state: State, idx: np.ndarray, keys: np.ndarray) -> None:
    """Start new games with `keys` in positions `idx` of `state`, in place (for auto-reset)."""
    cfg = state.config
    P, N, K = cfg.num_players, cfg.route_cards, cfg.deck.num_cards
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    b = len(idx)
    state.key[idx] = keys
    # R2.1: the cards left out are drawn among those without the start field.
    words = draws(np.asarray(keys, dtype=np.uint64), 0, K + 2 * N + 1)
    others = _other_cards(cfg.deck.start_card, K)
    cards = np.empty((b, N), dtype=np.int8)
    cards[:, 0] = cfg.deck.start_card
    cards[:, 1:] = others.take(np.argsort(words[:, : K - 1], axis=1, kind="stable")[:, : N - 1])
    # R2.2: random order and orientation: field 2n + side of slot n has deck code
    # 2 * card + (flip ^ side).
    order = np.argsort(words[:, K : K + N], axis=1, kind="stable")
    code = 2 * cards.reshape(-1).take(order + np.arange(0, b * N, N)[:, None])
    code += (words[:, K + N : K + 2 * N] >> np.uint64(63)).astype(np.int8)
    fields = np.empty((b, 2 * N), dtype=np.int8)
    fields[:, 0::2] = code
    fields[:, 1::2] = code ^ 1
    state.route[idx] = fields
    state.present[idx] = True
    state.present_slots[idx] = (1 << N) - 1
    # R2.3: every boat on the start field.
    state.boat_field[idx] = np.argmax(cfg.deck.start.take(fields), axis=1)[:, None]
    state.progress[idx] = 0
    state.round[idx] = 1
    # R2.4: the first starting player is drawn at random.
    state.starting_player[idx] = (words[:, -1] % np.uint64(P)).astype(np.int8)
    state.winner[idx] = NO_PLAYER
    state.terminated[idx] = False
    state.truncated[idx] = False
    state.rewards[idx] = 0
    state.pending[idx] = Pending.NONE
    # R8.2: every boat on the start field, which is blue (R1.3).
    start_round(state, idx, trump=Suit.BLUE)
    masks.refresh(state, idx)


@lru_cache(maxsize=16)
def _other_cards(start_card: int, num_cards: int) -> np.ndarray:
    """The ocean cards other than the start card, in deck order (R2.1)."""
    return np.array([c for c in range(num_cards) if c != start_card], dtype=np.int8)


def deal(keys: np.ndarray, round_: np.ndarray | int, num_players: int) -> np.ndarray:
    """(b, P) uint64 hands of 8 cards dealt from the shuffled 53 play cards (R3.1).

    The shuffle is `rng.permutations`: the argsort of 53 random words per game.
    Sorting the words with the card number written over their low 6 bits is ~3x
    faster and deals the same hands: the orders differ only among words that agree
    above those bits (odds ~2**-46 per deal), and that only matters where such
    words straddle the boundary of a hand; those games are dealt by the argsort.
    """
    n = HAND_SIZE * num_players
    keyed = draws(keys, round_, DECK_SIZE)
    keyed &= ~np.uint64(63)
    keyed |= _CARD_NUMBERS
    keyed.sort(axis=1)
    bits = np.left_shift(np.uint64(1), keyed[:, :n] & np.uint64(63))
    hands = _or_groups(bits.reshape(len(keyed), num_players, HAND_SIZE))
    # Last card of each hand against the next card dealt (or not dealt).
    last, nxt = keyed[:, HAND_SIZE - 1 : n : HAND_SIZE], keyed[:, HAND_SIZE : n + 1 : HAND_SIZE]
    tied = (last ^ nxt) < 64
    if tied.any():
        g = np.flatnonzero(tied.any(axis=1))
        perm = permutations(keys[g], np.broadcast_to(round_, keys.shape)[g], DECK_SIZE)[:, :n]
        hands[g] = _or_groups(_PHYSICAL_BITS[perm].reshape(len(g), num_players, HAND_SIZE))
    return hands


_CARD_NUMBERS = np.arange(DECK_SIZE, dtype=np.uint64)


def _or_groups(bits: np.ndarray) -> np.ndarray:
    """(b, P, 8) one-bit sets of distinct cards -> (b, P) their union.

    With distinct bits the union is the sum: one integer matrix product, where a
    reduction along the short last axis runs several times slower.
    """
    b, P, k = bits.shape
    return (bits.reshape(b * P, k) @ np.ones(k, dtype=np.uint64)).reshape(b, P)


def start_round(state: State, idx: np.ndarray, trump: int | np.ndarray | None = None) -> None:
    """Deal and reset the per-round arrays of games `idx` (R3.1-R3.3), in place.

    `state.starting_player` and `state.round` must already hold the new round's;
    `trump` (scalar or (b,)) is the trump when the caller knows it (else from the
    boats, R8.2).
    """
    if len(idx) == 0:
        return
    cfg = state.config
    state.hands[idx] = deal(state.key.take(idx), state.round.take(idx), cfg.num_players)
    state.history[idx] = NO_CARD
    state.played[idx] = 0
    state.num_played[idx] = 0
    state.trick_number[idx] = 0
    state.tricks_won[idx] = 0
    state.announced[idx] = -1
    state.voids[idx] = 0
    state.lead_suit[idx] = NO_SUIT
    sp = state.starting_player.take(idx)
    state.leader[idx] = sp
    state.current_player[idx] = sp
    state.phase[idx] = Phase.ANNOUNCE if cfg.nil_announcement else Phase.PLAY
    state.trump[idx] = route.trump_of(state, idx) if trump is None else trump
