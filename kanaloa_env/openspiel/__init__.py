"""Our games and bots in OpenSpiel (the `openspiel` extra: `pip install kanaloa_env[openspiel]`).

```python
import pyspiel
import kanaloa_env.openspiel  # registers python_kanaloa and python_kahuna

game = pyspiel.load_game("python_kanaloa(players=5,nil_announcement=True)")
state = game.new_initial_state()
```

Importing this module registers Kanaloa and Kahuna as OpenSpiel Python games; any other
game of `kanaloa_env.games` registers the same way with its `ChanceModel`
(`register(name, chance=...)`). Every random event is a chance node (`chance`), so a
history of actions replays a game exactly. `OpenSpielBot` plays our bots in OpenSpiel
(`pyspiel.evaluate_bots`), and `deserialize_game_and_state` reads OpenSpiel's serialized
form without unpickling anything. docs/integrations.md ("OpenSpiel") has the details.
"""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError(
        "kanaloa_env.openspiel needs OpenSpiel: pip install 'kanaloa_env[openspiel]'"
    ) from exc

from .bots import OpenSpielBot, make_openspiel_bot
from .chance import ChanceModel, KahunaChance, KanaloaChance
from .game import OpenSpielGame, OpenSpielObserver, OpenSpielState, register, short_name
from .serialization import deserialize_game_and_state

__all__ = [
    "ChanceModel",
    "KahunaChance",
    "KanaloaChance",
    "OpenSpielBot",
    "OpenSpielGame",
    "OpenSpielObserver",
    "OpenSpielState",
    "deserialize_game_and_state",
    "make_openspiel_bot",
    "register",
    "short_name",
]

register("kanaloa")
register("kahuna")
