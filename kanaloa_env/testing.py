"""Invariant checks, shipped so users can run them on their own states and bug reports.

One entry point for both games: `check_invariants` takes a Kanaloa or a Kahuna state,
`random_playthrough` a Kanaloa or a Kahuna `Config`, and each calls its game's checker.

```python
from kanaloa_env.testing import check_invariants, random_playthrough
check_invariants(state)                  # raises InvariantError naming game and rule
stats = random_playthrough(Config(), num_games=1000, seed=0)
```
"""

from __future__ import annotations

from typing import Any

from .core import kahuna
from .core.batch import InvariantError
from .core.kanaloa import invariants as _kanaloa
from .core.kanaloa.invariants import PlaythroughStats

__all__ = ["InvariantError", "PlaythroughStats", "check_invariants", "random_playthrough"]


def check_invariants(state: Any) -> None:
    """Check every game of a Kanaloa or Kahuna batch; raise `InvariantError` on the
    first broken rule (see each game's `invariants` module for what is checked)."""
    if isinstance(state, kahuna.State):
        kahuna.check_invariants(state)
    else:
        _kanaloa.check_invariants(state)


def random_playthrough(config: Any, *args: Any, **kwargs: Any) -> Any:
    """Play random legal games of the config's game to the end, checking invariants
    along the way (see each game's `random_playthrough` for the arguments); returns
    that game's stats (`PlaythroughStats` for Kanaloa, Kahuna's own for Kahuna)."""
    if isinstance(config, kahuna.Config):
        return kahuna.random_playthrough(config, *args, **kwargs)
    return _kanaloa.random_playthrough(config, *args, **kwargs)
