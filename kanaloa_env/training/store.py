"""`ObservationStore`: millions of observations in a quarter of float32's memory."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ObservationStore"]


class ObservationStore:
    """Rows of float32 observations kept as one-byte codes into a table of the distinct
    values they hold: exact (a row reads back bit for bit), a quarter of float32's memory.

    The games' observations take few distinct values (Kanaloa's 2.3M label decisions: 65
    over all 416 features), so a code of one byte a feature holds them; past 256 distinct
    values the codes widen to two bytes (uint16, 65,536 values), and past that `append`
    raises a `ValueError`. Distinct means distinct bit patterns (0.0 and -0.0 are kept
    apart), so a decoded row equals the appended one exactly, and training on decoded
    rows gives the same weights as training on the float32 array.

    ```python
    store = ObservationStore(num_rows, obs_dim)    # the rows are filled in order
    store.append(obs_chunk)                        # (n, obs_dim) float32, repeatedly
    batch = store.rows(idx)                        # (len(idx), obs_dim) float32
    ```
    `rows_torch(idx)` decodes into a torch tensor (idx a numpy or torch integer array).
    """

    def __init__(self, num_rows: int, obs_dim: int) -> None:
        if num_rows < 0 or obs_dim < 1:
            raise ValueError(f"need num_rows >= 0 and obs_dim >= 1, got {num_rows}, {obs_dim}")
        self.codes = np.zeros((num_rows, obs_dim), np.uint8)
        self._bits = np.zeros(0, np.uint32)  # the table's values as bit patterns, in order seen
        self.size = 0  # rows appended so far
        self._table: Any = None  # the float32 table as a torch tensor, made on first use

    @property
    def values(self) -> np.ndarray:
        """(V,) float32: the distinct values, a code's value is `values[code]`."""
        return self._bits.view(np.float32)

    @property
    def nbytes(self) -> int:
        """The memory the codes and the table take, in bytes."""
        return self.codes.nbytes + self._bits.nbytes

    def append(self, obs: np.ndarray) -> None:
        """Store `obs` ((n, obs_dim) float32) as the next n rows."""
        if not isinstance(obs, np.ndarray) or obs.dtype != np.float32 or obs.ndim != 2:
            raise TypeError("obs must be a 2-d float32 numpy array")
        n, dim = obs.shape
        if dim != self.codes.shape[1] or self.size + n > len(self.codes):
            raise ValueError(
                f"obs of shape {obs.shape} does not fit: {len(self.codes) - self.size} rows "
                f"of {self.codes.shape[1]} features are left"
            )
        bits = np.ascontiguousarray(obs).view(np.uint32)
        new = np.setdiff1d(np.unique(bits), self._bits, assume_unique=True)
        if len(new):
            table = np.concatenate([self._bits, new])  # old codes keep their meaning
            if len(table) > 1 << 16:
                raise ValueError(
                    f"the observations hold {len(table)} distinct values, more than the "
                    "65,536 this store codes"
                )
            if len(table) > np.iinfo(self.codes.dtype).max + 1:
                self.codes = self.codes.astype(np.uint16)
            self._bits, self._table = table, None
        order = np.argsort(self._bits)
        codes = order[np.searchsorted(self._bits[order], bits)]
        self.codes[self.size : self.size + n] = codes
        self.size += n

    def rows(self, idx: np.ndarray | slice) -> np.ndarray:
        """The float32 observations of rows `idx`: (len(idx), obs_dim)."""
        return self.values[self.codes[idx]]

    def rows_torch(self, idx: Any) -> Any:
        """`rows(idx)` as a float32 torch tensor (decoded by torch, in its threads)."""
        import torch

        if self._table is None:
            self._table = torch.from_numpy(self.values.copy())
        codes = torch.from_numpy(self.codes[np.asarray(idx)])
        return self._table[codes.long()]
