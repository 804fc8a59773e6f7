"""The bot protocol: policies that act on whole batches of decisions at once."""

from __future__ import annotations

import math
import sys
from typing import Protocol, runtime_checkable

import numpy as np

from ..core.state import State


@runtime_checkable
class Bot(Protocol):
    """A batched policy.

    `act(observations, masks, rng)` gets (b, OBS_DIM) float32 observations of the
    deciding players (`kanaloa_env.core.observe`), their (b, 66) bool legal masks
    and a `numpy.random.Generator`, and returns (b,) int64 legal actions.

    A bot that wants the structured game state sets `uses_state = True`; callers
    then also pass `view=public_view(state, seats)` (other hands and the deal key
    blanked) and `seats`, the (b,) deciding seats. A bot that reads only the masks
    sets `uses_observations = False` so callers can skip encoding observations.
    """

    name: str

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray: ...


def public_view(state: State, seats: np.ndarray) -> State:
    """A copy of `state` holding only what player `seats[i]` may know in game `i`.

    Other players' hands and the random key (which fixes future deals) are zeroed.
    """
    view = state.copy()
    keep = np.arange(state.num_players)[None, :] == np.asarray(seats)[:, None]
    view.hands[~keep] = 0
    view.key[...] = 0
    return view


# _SELECT8[v * 8 + j]: position of the j-th set bit of byte v.
_SELECT8 = np.zeros(256 * 8, dtype=np.int64)
for _v in range(256):
    for _j, _bit in enumerate(b for b in range(8) if _v >> b & 1):
        _SELECT8[_v * 8 + _j] = _bit
_BYTES = np.uint64(0x0101010101010101)  # one in every byte
_HIGH = np.uint64(0x8080808080808080)  # the high bit of every byte
_LITTLE = sys.byteorder == "little"


def _row_words(masks: np.ndarray) -> np.ndarray:
    """(b, n) bool -> (b, ceil(n / 64)) uint64: bit j of word w is column 64 w + j."""
    b, n = masks.shape
    nw = max(1, -(-n // 64))
    if b < 64 or n > 121 or not _LITTLE or not masks.flags.c_contiguous:
        words = np.zeros((b, nw), dtype=np.uint64)
        words.view(np.uint8)[:, : -(-n // 8)] = np.packbits(masks, axis=1, bitorder="little")
        return words if _LITTLE else words.byteswap()
    # Packing the whole mask as one stream is ~8x faster than row by row (a short
    # axis). Row r then starts at bit n r; rows r = g m + i (g rows fill a whole
    # number of bytes) start `period` bytes apart at the same bit offset, so each
    # residue i reads its rows as two strided (unaligned) words and shifts them.
    stream = np.packbits(masks.reshape(-1), bitorder="little")
    buf = np.zeros(len(stream) + 16, dtype=np.uint8)  # room to read past the last row
    buf[: len(stream)] = stream
    g = 8 // math.gcd(n, 8)
    period = n * g // 8
    words = np.empty((b, nw), dtype=np.uint64)
    for i in range(min(g, b)):
        first, shift = divmod(n * i, 8)
        rows = (b - i + g - 1) // g
        lo = np.ndarray((rows,), np.uint64, buf, first, (period,))
        hi = np.ndarray((rows,), np.uint64, buf, first + 8, (period,))
        w = lo >> shift
        if shift:
            w |= hi << (64 - shift)
        if n < 64:
            w &= (1 << n) - 1
        words[i::g, 0] = w
        if nw == 2:  # n <= 121: the row ends within `hi`
            words[i::g, 1] = (hi >> shift) & ((1 << (n - 64)) - 1)
    return words


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(b,) int64: one uniformly random legal action per row of a (b, n) bool mask.

    One uniform draw per row picks the k-th legal action (k < the row's count).
    The rows are packed into 64-bit words and the k-th set bit is found with
    arithmetic on all rows at once (numpy's cumsum/argmax along the short
    66-column axis cost ten times more).
    """
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"masks must be a (b, n) bool array, got {masks.dtype} {masks.shape}")
    b = len(masks)
    if b == 1:  # the AEC env's case: a few scalar operations
        legal = np.flatnonzero(masks[0])
        if len(legal) == 0:
            raise ValueError("every mask row needs at least one legal action")
        # The same draw and product as the batched path below.
        return legal[(rng.random(1) * len(legal)).astype(np.int64)]
    words = _row_words(masks)
    counts = np.bitwise_count(words).astype(np.int64)  # (b, nw) legal actions per word
    total = counts[:, 0].copy()
    for j in range(1, words.shape[1]):
        total += counts[:, j]
    if b and not total.all():
        raise ValueError("every mask row needs at least one legal action")
    k = (rng.random(b) * total).astype(np.int64)
    # The word holding the k-th legal action, and k's rank inside it.
    word, base, rank = words[:, 0], np.zeros(b, dtype=np.int64), k
    upto = counts[:, 0].copy()  # legal actions in the words so far
    for j in range(1, words.shape[1]):
        later = k >= upto  # the k-th lies beyond word j - 1
        word = np.where(later, words[:, j], word)
        rank = rank - counts[:, j - 1] * later
        base += 64 * later
        upto += counts[:, j]
    word = np.ascontiguousarray(word)
    # Legal actions up to and including each byte of the word, one count per byte
    # (the multiply sums the byte counts; none exceeds 64, so no byte overflows).
    upto = np.bitwise_count(word.view(np.uint8)).view(np.uint64) * _BYTES
    # The k-th set bit lies in the first byte whose count exceeds k: count the
    # bytes with upto <= k (bytewise: the high bit of 128 + k - upto survives).
    r = rank.astype(np.uint64)
    shift = np.bitwise_count(((r * _BYTES | _HIGH) - upto) & _HIGH).astype(np.uint64) << 3
    # Its rank inside that byte: k less the legal actions in the bytes below.
    index = ((word >> shift) & 0xFF) << 3
    index += r
    index -= ((upto << 8) >> shift) & 0xFF
    return base + shift.view(np.int64) + _SELECT8.take(index)


class RandomBot:
    """Plays uniformly at random among the legal actions."""

    name = "random"
    uses_state = False
    uses_observations = False  # reads only the masks: callers may skip encoding

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        return sample_legal(masks, rng)
