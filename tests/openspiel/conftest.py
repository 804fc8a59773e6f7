"""OpenSpiel tests: Kuhn poker (tests/kuhn/, registered by tests/conftest.py) joins
OpenSpiel with its chance model, as any game from outside the package would. Without
OpenSpiel (the `openspiel` extra) nothing here is collected."""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("pyspiel") is None:
    collect_ignore_glob = ["test_*.py"]
else:
    from kuhn_chance import KuhnChance

    import kanaloa_env.openspiel as ko
    from kanaloa_env.games import get_game

    ko.register("kuhn", KuhnChance(get_game("kuhn")))
