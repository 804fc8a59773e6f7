"""Helpers of the conformance suite: the games it checks, random positions, random moves.

`GAME_NAMES` is read when the suite's modules are collected, so it holds every game
registered by then: the package's own and those `tests/conftest.py` registers
(`register_game`), such as Kuhn poker (`tests/kuhn/`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kanaloa_env.bots import sample_legal
from kanaloa_env.core.batch import GameState
from kanaloa_env.games import GAMES, get_game
from kanaloa_env.games.protocol import Game

GAME_NAMES = tuple(sorted(GAMES))


def require(game: Game[Any, Any], *methods: str) -> None:
    """Skip the test for a game that does not provide every one of `methods` (optional
    pieces of the protocol, `Game.provides`)."""
    missing = [m for m in methods if not game.provides(m)]
    if missing:
        pytest.skip(f"{game.name} does not provide {', '.join(missing)} (optional)")


def random_actions(state: GameState, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: a uniformly random legal action per running game, 0 for finished ones."""
    actions = np.zeros(state.batch_size, dtype=np.int64)
    live = ~state.done
    if live.any():
        actions[live] = sample_legal(state.legal[live], rng)
    return actions


def play_random(
    game: Game[Any, Any], state: GameState, rng: np.random.Generator, max_steps: int = 20_000
) -> list[GameState]:
    """Step `state` (in place) with random legal actions until every game is over;
    copies of the batch before the first step and after each one."""
    snapshots = [state.copy()]
    for _ in range(max_steps):
        if state.done.all():
            return snapshots
        game.step_inplace(state, random_actions(state, rng))
        snapshots.append(state.copy())
    raise AssertionError(f"{game.name}: random games still running after {max_steps} steps")


def positions(game: Game[Any, Any], num: int = 12, seed: int = 0) -> GameState:
    """A batch of `num` positions of random games of the default config: game `i` is
    stopped at a random decision (its first included), every fourth at its end."""
    g = get_game(game)
    rng = np.random.default_rng(seed)
    snapshots = play_random(g, g.init(g.make_config(), num, seed), rng)
    done = np.array([s.done for s in snapshots])  # (T, num)
    length = np.argmax(done, axis=0)  # the step at which each game ended
    picked = []
    for i in range(num):
        t = int(length[i]) if i % 4 == 3 else int(rng.integers(0, length[i]))
        picked.append(snapshots[t].take([i]))
    return type(picked[0]).concatenate(picked)


def same_position(game: Game[Any, Any], a: GameState, b: GameState) -> None:
    """Assert that batch-1 states `a` and `b` are the same position: every player's
    observation, the player to act, the mask and the end flags (the arrays may differ)."""
    for seat in range(a.num_players):
        np.testing.assert_array_equal(game.observe(a, seat=seat), game.observe(b, seat=seat))
    for field in ("current_player", "legal", "terminated", "truncated", "winner"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
