"""OpenSpiel's policy-gradient agent (PyTorch, `open_spiel.python.pytorch.policy_gradient`,
advantage actor-critic) learns Kahuna against a random player, through OpenSpiel's
`rl_environment` over `python_kahuna`.

    python examples/openspiel_kahuna_pg.py --episodes 400 --eval-games 200 --seed 1

The learner takes seat 0 and seat 1 in turn; the opponent plays uniformly random legal
moves. Before and after training it plays `--eval-games` games (seats alternating,
sampling from its policy) and prints its win rate against random with a 95% Wilson
interval. Needs the `openspiel` and `train` extras.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import policy_gradient

import kanaloa_env.openspiel  # noqa: F401  registers python_kahuna


@dataclass
class Result:
    """Win rates of the learner against random before and after training."""

    episodes: int
    seconds: float
    before: float
    after: float
    after_interval: tuple[float, float]
    eval_games: int


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (a draw counts half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def make_agent(env: rl_environment.Environment, seed: int) -> policy_gradient.PolicyGradient:
    """The actor-critic agent: one hidden layer of 64, Adam, an update every 8 episodes."""
    torch.manual_seed(seed)
    info = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    return policy_gradient.PolicyGradient(
        0,
        info,
        actions,
        loss_str="a2c",
        hidden_layers_sizes=[64],
        batch_size=8,
        critic_learning_rate=0.01,
        pi_learning_rate=0.01,
        entropy_cost=0.01,
        num_critic_before_pi=1,
        optimizer_str="adam",
    )


def play(env, agent, seat: int, rng: np.random.Generator, train: bool) -> float:
    """One game with the learner at `seat` against random; the learner's return."""
    agent.player_id = seat
    ts = env.reset()
    while not ts.last():
        p = ts.observations["current_player"]
        if p == seat:
            action = agent.step(ts, is_evaluation=not train).action
        else:
            action = int(rng.choice(ts.observations["legal_actions"][p]))
        ts = env.step([action])
    agent.step(ts, is_evaluation=not train)
    return float(ts.rewards[seat])


def evaluate(env, agent, games: int, rng: np.random.Generator) -> float:
    """The learner's win rate against random over `games` games, seats alternating."""
    score = sum((play(env, agent, g % 2, rng, train=False) + 1) / 2 for g in range(games))
    return score / games


def train(
    episodes: int,
    eval_games: int,
    seed: int = 0,
    game_string: str = "python_kahuna",
    measure_before: bool = True,
) -> Result:
    """Train for `episodes` games and measure the win rate after (and before, when
    `measure_before`; else `before` is 1/2, random against random by symmetry). The run
    is reproducible: seeded torch, numpy and environment, one torch thread."""
    torch.set_num_threads(1)
    np.random.seed(seed)  # OpenSpiel's agent samples its actions from numpy's global generator
    game = pyspiel.load_game(game_string)
    # (a `seed` keyword would go to the game settings, which a game object ignores)
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed)
    )
    agent = make_agent(env, seed)
    rng = np.random.default_rng(seed)
    before = evaluate(env, agent, eval_games, rng) if measure_before else 0.5
    start = time.perf_counter()
    for episode in range(episodes):
        play(env, agent, episode % 2, rng, train=True)
    seconds = time.perf_counter() - start
    after = evaluate(env, agent, eval_games, rng)
    return Result(
        episodes, seconds, before, after, wilson(after * eval_games, eval_games), eval_games
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip-before",
        action="store_true",
        help="do not measure the untrained agent (then 'before' shows 1/2, random's score)",
    )
    args = parser.parse_args()
    r = train(args.episodes, args.eval_games, args.seed, measure_before=not args.skip_before)
    lo, hi = r.after_interval
    print(
        f"episodes {r.episodes} in {r.seconds:.1f} s; win rate against random over "
        f"{r.eval_games} games: before {r.before:.1%}, after {r.after:.1%} [{lo:.1%}, {hi:.1%}]"
    )


if __name__ == "__main__":
    main()
