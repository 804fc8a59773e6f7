"""Cost of a policy-file bot's decision at batch 1 (one observation at a time), on the CPU.

    python benchmarks/bench_policy.py                     # the shipped "net" bot, every game
    python benchmarks/bench_policy.py --policy runs/distil/kanaloa_4p.npz --decisions 5000

Positions come from random games of the policy's game and table size; each decision is
one `bot.act(observation[None], mask[None], rng)` call (torch on one thread, as a
bot in an AEC loop or in terminal play runs it), timed in CPU and wall time over
`--decisions` calls after 100 warm-up calls. Target (issue 24): <= 1 ms a decision.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def positions(game_name: str, num_players: int, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """(n, obs_dim) observations and (n, num_actions) masks of random legal play."""
    from kanaloa_env.bots import sample_legal
    from kanaloa_env.games import get_game

    game = get_game(game_name)
    state = game.init(game.make_config(None, num_players), 256, seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < n:
        live = np.flatnonzero(~(state.terminated | state.truncated))
        if not len(live):
            break
        obs.append(game.observe(state)[live])
        masks.append(state.legal[live].copy())
        actions = np.zeros(len(state.legal), np.int64)
        actions[live] = sample_legal(state.legal[live], rng)
        game.step_inplace(state, actions)
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--policy", nargs="*", default=None, help="policy files (default: shipped)")
    p.add_argument("--decisions", type=int, default=3000, help="timed calls per policy")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    import torch

    from kanaloa_env.bots.policy_bot import PolicyBot, shipped_paths
    from kanaloa_env.bots.policy_file import load_policy
    from kanaloa_env.games import GAMES

    torch.set_num_threads(1)
    if args.policy:
        paths = list(args.policy)
    else:
        paths = [path for g in GAMES for path in shipped_paths(g).values()]
    rng = np.random.default_rng(args.seed)
    print(f"{'policy':<40} {'layers':<12} {'CPU ms/decision':>16} {'wall ms/decision':>17}")
    for path in paths:
        w = load_policy(path)
        bot = PolicyBot(w)
        obs, masks = positions(w.metadata["game"], w.num_players, args.decisions + 100, args.seed)
        for i in range(100):
            bot.act(obs[i : i + 1], masks[i : i + 1], rng)
        n = len(obs) - 100
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(100, len(obs)):
            bot.act(obs[i : i + 1], masks[i : i + 1], rng)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        layers = "-".join(str(h) for h in w.hidden_sizes)
        name = os.path.basename(path)
        print(f"{name:<40} {layers:<12} {1e3 * cpu / n:>16.3f} {1e3 * wall / n:>17.3f}")
    print("target (issue 24): <= 1 ms a decision at batch 1")


if __name__ == "__main__":
    main()
