"""The installed wheel's smoke test: run by `tests/wheel/test_wheel.py` with the Python of
a fresh virtual environment into which the wheel was installed (not editable).

It checks that the package imported is the installed one, that both games' AEC envs
play games to their end, with random moves and with the shipped `net` bots in
every seat, and that the
package's data files (policies, the web page) are in the wheel. It prints one line per
check; any failure raises. Standard library and the package only: it must not import
anything from the repository.
"""

from __future__ import annotations

import os
import sys
from importlib import resources

import numpy as np


def main() -> None:
    import kanaloa_env

    where = os.path.realpath(kanaloa_env.__file__)
    if not where.startswith(os.path.realpath(sys.prefix) + os.sep):
        raise SystemExit(
            f"kanaloa_env imported from {where}, not from the environment {sys.prefix}"
        )
    print(f"kanaloa_env {kanaloa_env.__version__} from {os.path.dirname(where)}")
    check_requirements()

    from kanaloa_env.bots import make_bot
    from kanaloa_env.records import bot_action

    rng = np.random.default_rng(0)
    for game in ("kanaloa", "kahuna"):
        for players in ("random", "net"):
            env = kanaloa_env.env(game=game)
            env.reset(seed=1)
            bots = {a: make_bot("net", game) for a in env.agents} if players == "net" else {}
            decisions = 0
            for agent in env.agent_iter(max_iter=20_000):
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    action = None
                elif bots:
                    action = bot_action(bots[agent], env.unwrapped.game_state, rng)
                    decisions += 1
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                    decisions += 1
                env.step(action)
            if env.agents:
                raise SystemExit(f"{game}: the game did not end in 20,000 steps")
            print(f"{game}: a game of {players} players ran to its end ({decisions} decisions)")

    static = resources.files("kanaloa_env.web") / "static"
    names = sorted(p.name for p in static.iterdir())
    for needed in ("index.html", "app.js", "style.css"):
        if needed not in names:
            raise SystemExit(f"the web page's {needed} is missing from the wheel ({names})")
    print(f"web page files present: {', '.join(names)}")


def check_requirements() -> None:
    """Every dependency the wheel declares (and those of its `web` extra) is installed in
    a version it allows: the wheel was installed without resolving them."""
    from importlib import metadata

    from packaging.requirements import Requirement

    for line in metadata.requires("kanaloa_env") or []:
        req = Requirement(line)
        if req.marker is not None and not any(
            req.marker.evaluate({"extra": extra}) for extra in ("", "web")
        ):
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"the wheel needs {req}, which is not installed") from None
        if not req.specifier.contains(have, prereleases=True):
            raise SystemExit(f"the wheel needs {req}, installed is {have}")
    print("the wheel's requirements are met")


if __name__ == "__main__":
    main()
