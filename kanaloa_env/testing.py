"""Invariant checks, shipped so users can run them on their own states and bug reports.

```python
from kanaloa_env.testing import check_invariants, random_playthrough
check_invariants(state)                  # raises InvariantError naming game and rule
stats = random_playthrough(Config(), num_games=1000, seed=0)
```
"""

from .core.kanaloa.invariants import (
    InvariantError,
    PlaythroughStats,
    check_invariants,
    random_playthrough,
)

__all__ = ["InvariantError", "PlaythroughStats", "check_invariants", "random_playthrough"]
