"""The bot protocol: policies that act on whole batches of decisions at once."""

from __future__ import annotations

import math
import sys
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Bot(Protocol):
    """A batched policy.

    `act(observations, masks, rng)` gets (b, obs_dim) float32 observations of the
    deciding players (the game's `observe`), their (b, A) bool legal masks and a
    `numpy.random.Generator`, and returns (b,) int64 legal actions.

    A bot that wants the structured game state sets `uses_state = True`; callers
    then also pass `view=public_view(state, seats)` (what the deciding players may
    know: other hands and the random key blanked) and `seats`, the (b,) deciding
    seats. A bot that reads only the masks sets `uses_observations = False` so
    callers can skip encoding observations. A bot written for one game only sets
    `game` to its name (e.g. "kanaloa"); callers reject it at another game's table.
    """

    name: str

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray: ...


def public_view(state: Any, seats: np.ndarray) -> Any:
    """A copy of `state` (any game's) holding only what player `seats[i]` may know in game
    `i`: the game's `public_view` (Kanaloa: other hands and the deal key zeroed)."""
    from ..games import game_of_state

    return game_of_state(state).public_view(state, seats)


# _SELECT8[v * 8 + j]: position of the j-th set bit of byte v.
_SELECT8 = np.zeros(256 * 8, dtype=np.int64)
for _v in range(256):
    for _j, _bit in enumerate(b for b in range(8) if _v >> b & 1):
        _SELECT8[_v * 8 + _j] = _bit
_BYTES = np.uint64(0x0101010101010101)  # one in every byte
_HIGH = np.uint64(0x8080808080808080)  # the high bit of every byte
_LITTLE = sys.byteorder == "little"


def _row_words(masks: np.ndarray) -> list[np.ndarray]:
    """(b, n) bool -> ceil(n / 64) contiguous (b,) uint64: bit j of word w is column 64 w + j."""
    b, n = masks.shape
    nw = max(1, -(-n // 64))
    if b < 64 or n > 72 or not _LITTLE or not masks.flags.c_contiguous:
        words = np.zeros((b, nw), dtype=np.uint64)
        words.view(np.uint8)[:, : -(-n // 8)] = np.packbits(masks, axis=1, bitorder="little")
        if not _LITTLE:
            words.byteswap(inplace=True)
        return [np.ascontiguousarray(words[:, j]) for j in range(nw)]
    # Packing the whole mask as one stream is ~8x faster than row by row (a short
    # axis). Row r then starts at bit n r; rows r = g m + i (g rows fill a whole
    # number of bytes) start `period` bytes apart at the same bit offset, so each
    # residue i reads its rows' first 64 columns as two strided (unaligned) words.
    stream = np.packbits(masks.reshape(-1), bitorder="little")
    buf = np.zeros(len(stream) + 16, dtype=np.uint8)  # room to read past the last row
    buf[: len(stream)] = stream
    g = 8 // math.gcd(n, 8)
    period = n * g // 8
    low = np.empty(b, dtype=np.uint64)
    for i in range(min(g, b)):
        first, shift = divmod(n * i, 8)
        rows = (b - i + g - 1) // g
        w = np.ndarray((rows,), np.uint64, buf, first, (period,)) >> shift
        if shift:
            w |= np.ndarray((rows,), np.uint64, buf, first + 8, (period,)) << (64 - shift)
        if n < 64:
            w &= (1 << n) - 1
        low[i::g] = w
    if n <= 64:
        return [low]
    # The (at most 8) columns past 64, one at a time.
    high = masks[:, 64].astype(np.uint64)
    for j in range(65, n):
        high |= masks[:, j].astype(np.uint64) << (j - 64)
    return [low, high]


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
        legal = masks[0].nonzero()[0]
        if len(legal) == 0:
            raise ValueError("every mask row needs at least one legal action")
        # The same draw and product as the batched path below.
        return legal[(rng.random(1) * len(legal)).astype(np.int64)]
    words = _row_words(masks)
    counts = [np.bitwise_count(w) for w in words]  # legal actions per word (uint8)
    if masks.shape[1] > 255:  # sums past a byte
        counts = [c.astype(np.int64) for c in counts]
    total = counts[0] if len(words) == 1 else sum(counts[1:], counts[0])
    if b and not total.all():
        raise ValueError("every mask row needs at least one legal action")
    k = (rng.random(b) * total).astype(np.int64)
    # The word holding the k-th legal action, and k's rank inside it.
    word, base, rank = words[0], 0, k
    upto = counts[0]  # legal actions in the words so far
    for j in range(1, len(words)):
        later = k >= upto  # the k-th lies beyond word j - 1
        word = np.where(later, words[j], word)
        rank = rank - counts[j - 1] * later
        base = base + 64 * later
        upto = upto + counts[j]
    # Legal actions up to and including each byte of the word, one count per byte
    # (the multiply sums the byte counts; none exceeds 64, so no byte overflows).
    upto = np.bitwise_count(word.view(np.uint8)).view(np.uint64) * _BYTES
    # The k-th set bit lies in the first byte whose count exceeds k: count the
    # bytes with upto <= k (bytewise: the high bit of 128 + k - upto survives).
    r = rank.view(np.uint64)
    shift = np.bitwise_count(((r * _BYTES | _HIGH) - upto) & _HIGH) << 3  # uint8: 8 * byte
    # Its rank inside that byte: k less the legal actions in the bytes below.
    index = ((word >> shift) & 0xFF) << 3
    index += r
    index -= ((upto << 8) >> shift) & 0xFF
    return base + shift + _SELECT8.take(index.view(np.int64))


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
