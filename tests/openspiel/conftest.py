"""OpenSpiel tests: Kuhn poker (tests/kuhn/, registered by tests/conftest.py) joins
OpenSpiel with its chance model, as any game from outside the package would."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from kuhn_chance import KuhnChance  # noqa: E402

import kanaloa_env.openspiel as ko  # noqa: E402
from kanaloa_env.games import get_game  # noqa: E402

ko.register("kuhn", KuhnChance(get_game("kuhn")))
