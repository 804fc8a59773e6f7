"""Invariant checks for any game's states, shipped so users can run them on their own
states and bug reports (as pgx, PettingZoo and OpenSpiel ship theirs).

```python
from kanaloa_env.testing import check_invariants, random_playthrough
check_invariants(state)                  # raises InvariantError naming game and rule
stats = random_playthrough(Config(), num_games=1000, seed=0)   # any game's Config
```

Each game's checker lives with its engine (`kanaloa_env.core.<game>.invariants`);
these two functions pick it by the state's or config's class.
"""

from __future__ import annotations

from typing import Any

from .core.kanaloa.invariants import InvariantError, PlaythroughStats

__all__ = ["InvariantError", "PlaythroughStats", "check_invariants", "random_playthrough"]


def check_invariants(state: Any) -> None:
    """Check every game of `state`, a batch of any game; raise `InvariantError` (an
    AssertionError) naming the game and rule on the first broken one."""
    from .games import game_of_state

    game_of_state(state).check_invariants(state)


def random_playthrough(config: Any, num_games: int = 256, seed: int = 0, **kwargs: Any) -> Any:
    """Play `num_games` random legal games of the config's game to the end from `seed`,
    checking invariants along the way (the engine's `random_playthrough`; `kwargs` are
    its own)."""
    from .games import game_of_config

    return game_of_config(config).random_playthrough(config, num_games, seed, **kwargs)
