"""Counter-based random numbers: every draw is a hash of (game key, round, counter).

A game's key depends only on the batch seed and the game's index, so game `i` of a
batch is the same game whatever the batch size (DESIGN.md, Chance). The hash is
SplitMix64's finaliser, applied elementwise with wrapping uint64 arithmetic.
The array functions serve Python code; the compiled engines draw one word at a time
with `mix64_one` and `draw_one`, which give the same words (`draws(k, r, n)[i, c] ==
draw_one(k[i], r, c)`; a test checks it).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .kernels import small_kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_ROUND_MULT = np.uint64(0xD1B54A32D192ED03)
_COUNTER_MULT = np.uint64(0xA0761D6478BD642F)

MAX_SEED = 2**64 - 1


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of `x`, a uint64 array (a bijection with good avalanche)."""
    z = x + _GOLDEN
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


@small_kernel
def mix64_one(x: np.uint64) -> np.uint64:
    """`mix64` of one uint64 `x` (for compiled code)."""
    z = np.uint64(x) + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)  # type: ignore[no-any-return]


@small_kernel
def round_base(key: np.uint64, round_: int) -> np.uint64:
    """The hash of (game `key`, round `round_`) that `draw_one`'s words of that round
    start from."""
    return mix64_one(np.uint64(key) ^ (np.uint64(round_) * _ROUND_MULT))  # type: ignore[no-any-return]


@small_kernel
def draw_one(base: np.uint64, counter: int) -> np.uint64:
    """Word `counter` (0, 1, ...) of the round whose `round_base` is `base`: the entry
    `draws(keys, round, n)[i, counter]`."""
    return mix64_one(base ^ (np.uint64(counter + 1) * _COUNTER_MULT))  # type: ignore[no-any-return]


def check_seed(seed: object) -> int:
    """Validate a seed: a Python or numpy integer in 0..2**64-1."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int in 0..2**64-1, got {type(seed).__name__}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed must be in 0..2**64-1, got {seed}")
    return int(seed)


def keys_from_generator(rng: object, n: int) -> np.ndarray:
    """(n,) uint64 keys, one 64-bit draw each from `rng` (a `numpy.random.Generator`,
    or an int seed for a new one); TypeError for anything else."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        rng = np.random.default_rng(int(rng))
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator or an int seed, got {type(rng).__name__}"
        )
    return rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)


def check_keys(keys: object, n: int) -> np.ndarray:
    """`keys` as an (n,) uint64 array, or a ValueError saying what is expected."""
    k = np.asarray(keys)
    if k.dtype != np.uint64 or k.shape != (n,):
        raise ValueError(f"keys must be a ({n},) uint64 array, got {k.dtype} {k.shape}")
    return k


def game_keys(seed: int, game_ids: np.ndarray) -> np.ndarray:
    """Keys of games `game_ids` (int array) of the stream seeded `seed`, (len,) uint64."""
    # Arrays only (a scalar id as shape (1,)): array integer overflow wraps silently.
    ids = np.atleast_1d(np.asarray(game_ids, dtype=np.uint64))
    return mix64(_seed_base(check_seed(seed)) ^ mix64(ids))


def seed_base(seed: int) -> int:
    """The hash of a stream's seed that `game_key_one` starts from (a Python int)."""
    return int(_seed_base(check_seed(seed))[0])


@small_kernel
def game_key_one(base: np.uint64, game: np.uint64) -> np.uint64:
    """The key of game `game` of the stream whose `seed_base` is `base`: the entry
    `game_keys(seed, [game])[0]`, one at a time (for compiled code: the GPU's resets)."""
    return mix64_one(np.uint64(base) ^ mix64_one(np.uint64(game)))  # type: ignore[no-any-return]


@lru_cache(maxsize=64)
def _seed_base(seed: int) -> np.ndarray:
    """(1,) uint64 hash of a stream's seed (read-only), the same for all its games."""
    base = mix64(np.array([seed], dtype=np.uint64))
    base.flags.writeable = False
    return base


def draws(keys: np.ndarray, round_: np.ndarray | int, n: int) -> np.ndarray:
    """(B, n) uint64 random words for each game key of `keys` (B,) and round `round_` (one
    or (B,)): counters 0..n-1."""
    # All operands are arrays (a scalar round as shape (1,)): numpy wraps array
    # integer overflow silently, so no errstate is needed (it warns for scalars).
    r = np.asarray(round_, dtype=np.uint64).reshape(-1)
    base = mix64(keys ^ (r * _ROUND_MULT))
    return mix64(base[:, None] ^ _counters(n))


@lru_cache(maxsize=16)
def _counters(n: int) -> np.ndarray:
    """(n,) uint64 counter terms of `draws` (read-only)."""
    with np.errstate(over="ignore"):
        ctr = np.arange(1, n + 1, dtype=np.uint64) * _COUNTER_MULT
    ctr.flags.writeable = False
    return ctr


def permutations(keys: np.ndarray, round_: np.ndarray | int, n: int) -> np.ndarray:
    """(B, n) int64: a random permutation of 0..n-1 per game key of `keys` (B,) and round
    `round_` (one or (B,)), the argsort of hashes.

    The 64-bit hashes of one game are distinct (a collision has odds ~n^2 / 2^65),
    so the permutation does not depend on the sort algorithm; the default
    (introsort) is three times faster than a stable sort here.
    """
    return np.argsort(draws(keys, round_, n), axis=1)
