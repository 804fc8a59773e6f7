"""Set-up: the only code that draws random numbers (K2.1, K2.2; the reshuffle of K7.3
draws through `shuffle_discards`).

Every draw comes from the game's own key (`core.rng`): the set-up shuffle is
`permutations(key, 0, 24)`, the reshuffle after scoring s is
`permutations(key, s, 24)`, and the first-player coin is `draws` on a stream of
its own, so a seed fixes a whole game, and game i of a batch is the same game at
any batch size.
"""

from __future__ import annotations

import numpy as np

from ..batch import check_positive_int
from ..rng import draws, game_keys, permutations
from . import cards, masks
from .config import Config
from .constants import (
    CARDS_PER_ISLAND,
    MAX_PILE,
    NO_CARD,
    NO_PLAYER,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_SCORINGS,
    ROW_SLOTS,
    START_HAND,
    Phase,
)
from .state import State

# The coin's stream: far from the shuffles' streams 0 (set-up), 1 and 2 (reshuffles).
COIN_STREAM = 1 << 32
# Card j of the 24 is island j // 2 (K1.4).
_ISLAND_OF_CARD = (np.arange(NUM_CARDS) // CARDS_PER_ISLAND).astype(np.int8)

MAX_GAME = 2**64 - 1
"""The largest game index in a stream (indices are uint64)."""


def empty_state(config: Config, batch_size: int) -> State:
    """A batch of zeroed arrays with the right shapes and dtypes (filled by `init`)."""
    B = batch_size
    z = np.zeros
    return State(
        config=config,
        key=z(B, np.uint64),
        phase=z(B, np.int8),
        current_player=z(B, np.int8),
        starting_player=z(B, np.int8),
        turn=z(B, np.int16),
        final_turns_left=z(B, np.int8),
        handed_back=z(B, bool),
        last_turn_skipped=z(B, bool),
        bridges=z((B, 2), np.uint32),
        stones=z((B, 2), np.uint16),
        hands=z((B, 2), np.uint32),
        known=z((B, 2), np.uint32),
        face_up=np.full((B, ROW_SLOTS), NO_CARD, np.int8),
        pile=np.full((B, MAX_PILE), NO_CARD, np.int8),
        pile_size=z(B, np.int8),
        discard_up=z(B, np.uint32),
        discard_down=z((B, 2), np.uint32),
        num_scorings=z(B, np.int8),
        scorings=z((B, NUM_SCORINGS, 2), np.int8),
        hidden_hand=z((B, 2), np.int8),
        hidden_down=z((B, 2), np.int8),
        winner=np.full(B, NO_PLAYER, np.int8),
        terminated=z(B, bool),
        truncated=z(B, bool),
        rewards=z((B, 2), np.float32),
        legal=z((B, NUM_ACTIONS), bool),
    )


def init(config: Config, batch_size: int, seed: int = 0, first_game: int = 0) -> State:
    """A batch of new games at the first decision (K2).

    Args:
        config: the rules; one config for the whole batch.
        batch_size: number of games `B`.
        seed: 0..2**64-1. Game `i` of the batch is game `first_game + i` of the
            stream `seed`, the same whatever the batch size.
        first_game: index of the batch's first game in the stream, in
            0..2**64-batch_size.

    Returns:
        A new `State` of batch size `B`.

    Raises:
        TypeError: `config` is not a Kahuna `Config`, or `batch_size` is not an int.
        ValueError: `batch_size < 1`, a bad `seed`, or a bad `first_game`.
    """
    if not isinstance(config, Config):
        raise TypeError(
            f"config must be a kanaloa_env.core.kahuna.Config, got {type(config).__name__}"
        )
    B = check_positive_int(batch_size, "batch_size")
    last = MAX_GAME - B + 1
    if (
        isinstance(first_game, bool)
        or not isinstance(first_game, (int, np.integer))
        or not 0 <= int(first_game) <= last
    ):
        raise ValueError(
            f"first_game must be an int in 0..2**64-{B} for a batch of {B}, got {first_game!r}"
        )
    first = int(first_game)
    return init_from_keys(config, game_keys(seed, np.arange(first, first + B, dtype=np.uint64)))


def init_from_keys(config: Config, keys: np.ndarray) -> State:
    """A batch of new games, one per uint64 key (see `rng.game_keys`), (B,) -> State."""
    if not isinstance(config, Config):
        raise TypeError(
            f"config must be a kanaloa_env.core.kahuna.Config, got {type(config).__name__}"
        )
    keys = np.asarray(keys)
    if keys.ndim != 1 or keys.dtype != np.uint64 or len(keys) == 0:
        raise ValueError(
            f"keys must be a non-empty (B,) uint64 array, got {keys.dtype} {keys.shape}"
        )
    state = empty_state(config, len(keys))
    reset_games(state, np.arange(len(keys)), keys)
    return state


def reset_games(state: State, idx: np.ndarray, keys: np.ndarray) -> None:
    """Start new games with `keys` (b,) uint64 in positions `idx` (b,) of `state`, in
    place (the vector env's auto-reset). `idx` may also be a (B,) bool mask."""
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    keys = np.asarray(keys, dtype=np.uint64)
    cfg = state.config
    state.key[idx] = keys
    # K2.1: 3 cards to player 0, 3 to player 1, 3 face up, 15 in the pile (first = top).
    deal = _ISLAND_OF_CARD.take(permutations(keys, 0, NUM_CARDS))
    one = cards.ONE
    h = START_HAND
    for p in range(2):
        hand = deal[:, p * h : (p + 1) * h]
        state.hands[idx, p] = one.take(hand[:, 0]) + one.take(hand[:, 1]) + one.take(hand[:, 2])
    row_end = 2 * h + ROW_SLOTS
    state.face_up[idx] = deal[:, 2 * h : row_end]
    pile = np.full((len(idx), MAX_PILE), NO_CARD, np.int8)
    rest = NUM_CARDS - row_end
    pile[:, :rest] = deal[:, row_end:][:, ::-1]  # stored bottom first
    state.pile[idx] = pile
    state.pile_size[idx] = rest
    # K2.2: the starting player.
    if cfg.first_player == "random":
        first = (draws(keys, COIN_STREAM, 1)[:, 0] >> np.uint64(63)).astype(np.int8)
    else:
        first = np.full(len(idx), int(cfg.first_player), np.int8)
    state.starting_player[idx] = first
    state.current_player[idx] = first
    state.phase[idx] = Phase.PLAY
    for name in (
        "turn",
        "final_turns_left",
        "handed_back",
        "last_turn_skipped",
        "bridges",
        "stones",
        "known",
        "discard_up",
        "discard_down",
        "num_scorings",
        "scorings",
        "hidden_hand",
        "hidden_down",
        "terminated",
        "truncated",
        "rewards",
    ):
        getattr(state, name)[idx] = 0
    state.winner[idx] = NO_PLAYER
    masks.refresh(state, idx)


def shuffle_discards(state: State, idx: np.ndarray) -> None:
    """K7.3: shuffle every discard of games `idx` (face up and face down) into a new
    pile and deal 3 of them face up into slots 0-2, in place.

    The order is `permutations(key, s, 24)` for scoring s (`num_scorings`, already
    counted): the discards, listed in canonical order, take the places of the
    permutation's entries below their number, so each game's order is uniform.
    """
    if len(idx) == 0:
        return
    pool = state.discard_up.take(idx) + state.discard_down[idx, 0] + state.discard_down[idx, 1]
    counts = cards.counts(pool).astype(np.int64)  # (b, 12)
    n = counts.sum(axis=1)
    # The discards in canonical order, padded to 24 with islands that sort last.
    listed = np.repeat(
        np.tile(np.arange(13, dtype=np.int8), len(idx)),
        np.column_stack([counts, NUM_CARDS - n]).reshape(-1),
    ).reshape(len(idx), NUM_CARDS)
    perm = permutations(state.key.take(idx), state.num_scorings.take(idx), NUM_CARDS)
    real = perm < n[:, None]
    order = np.argsort(~real, axis=1, kind="stable")  # real entries first, in order
    shuffled = np.take_along_axis(listed, np.take_along_axis(perm, order, axis=1), axis=1)
    # First card = top: the row gets cards 0..2, the pile the rest, top first.
    state.face_up[idx] = shuffled[:, :ROW_SLOTS]
    size = (n - ROW_SLOTS).astype(np.int8)
    cols = np.arange(MAX_PILE)
    rev = np.clip(n[:, None] - 1 - cols, 0, NUM_CARDS - 1)  # pile position c holds card n-1-c
    pile = np.take_along_axis(shuffled, rev, axis=1)[:, :MAX_PILE]
    pile[cols >= size[:, None]] = NO_CARD
    state.pile[idx] = pile
    state.pile_size[idx] = size
    state.discard_up[idx] = 0
    state.discard_down[idx] = 0
