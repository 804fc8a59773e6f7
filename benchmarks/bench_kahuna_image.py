"""Milliseconds per Kahuna picture (`games/kahuna/image.py`), as a GIF of a whole game needs.

Renders every position of one random Kahuna game (`record_bot_game` with random
bots) and, as a reference on the same machine in the same run, of one random
4-player Kanaloa game, the two taking turns (`turns.best_in_turns`); prints the
milliseconds per frame of each, then writes the Kahuna game's GIF (every position,
`render.gif.save_gif`) and prints how long that took.

    python benchmarks/bench_kahuna_image.py                 # seed 0, 3 s per game
    python benchmarks/bench_kahuna_image.py --seed 4 --seconds 6
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script

from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kahuna import Config
from kanaloa_env.core.kanaloa import Config as KanaloaConfig
from kanaloa_env.records import record_bot_game, replay_states
from kanaloa_env.render import render_rgb
from kanaloa_env.render.gif import save_gif


def game_states(config: Any, seed: int) -> list[Any]:
    """Every position of one game of random bots."""
    players = 2 if isinstance(config, Config) else config.num_players
    return replay_states(record_bot_game(config, [RandomBot()] * players, seed=seed))


def frames_per_second(states: Sequence[Any]) -> Callable[[float], tuple[float]]:
    """A measurement for `best_in_turns`: pictures per second over the positions, in order."""

    def measure(seconds: float) -> tuple[float]:
        n, start = 0, time.perf_counter()
        while True:
            render_rgb(states[n % len(states)])
            n += 1
            if time.perf_counter() - start > seconds:
                return (n / (time.perf_counter() - start),)

    return measure


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seed", type=int, default=0, help="the games to render (default 0)")
    ap.add_argument(
        "--every", type=int, default=1, help="GIF of every N-th position only (default 1: all)"
    )
    add_turn_options(ap, "game")
    args = ap.parse_args(argv)
    kahuna = game_states(Config(), args.seed)
    kanaloa = game_states(KanaloaConfig(num_players=4), args.seed)
    for states in (kahuna, kanaloa):
        render_rgb(states[0])  # fonts loaded, caches filled
    (kahuna_fps,), (kanaloa_fps,) = best_in_turns(
        [frames_per_second(kahuna), frames_per_second(kanaloa)], args.seconds, args.rounds
    )
    print(
        f"Kahuna:  {1000 / kahuna_fps:6.1f} ms per frame ({len(kahuna)} positions, seed {args.seed})"
    )
    print(f"Kanaloa: {1000 / kanaloa_fps:6.1f} ms per frame (4 players, the reference)")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        n = save_gif(kahuna[:: args.every], Path(tmp) / "game.gif")
        took = time.perf_counter() - start
    print(f"GIF of the Kahuna game: {n} frames in {took:.1f} s ({1000 * took / n:.1f} ms a frame)")


if __name__ == "__main__":
    main()
