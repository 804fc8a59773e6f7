"""Multi-agent PPO self-play on Ray RLlib: one policy for every seat, with action masks.

    pip install torch==2.13.0 && pip install -e ".[rllib]"
    python examples/train_rllib.py --seed 0

trains a single policy that plays all seats of a 4-player Kanaloa table against
itself (RLlib's new API stack: `kanaloa_env.wrappers.rllib.RLlibEnv`, multi-agent
PPO with every agent mapped to one module, RLlib's own `ActionMaskingTorchRLModule`,
RLlib's environment pre-check left on), then plays the greedy policy against three
heuristic bots and against three random bots in the arena (`kanaloa_env.arena`,
seat-balanced) and prints its win rate with a Wilson 95% interval. It writes to
`--output-dir` (default `runs/rllib`):

- `checkpoint/`: the algorithm (`Algorithm.from_checkpoint` resumes it), saved every
  `--checkpoint-every` iterations and at the end;
  `kanaloa_env.wrappers.rllib.RLlibModuleBot.from_checkpoint` turns it into a bot;
- `eval.csv`: per evaluation, env steps, wall time and the win rate against random bots;
- `results.json`: the final win rates and the settings.

Ctrl-C stops the run cleanly (`kanaloa_env.training.GracefulStop`): training stops after
the iteration under way (a second Ctrl-C stops at once), the checkpoint is saved and
`eval.csv` keeps the evaluations done; the script says where and exits with status 130,
without the final evaluation.

Ray: a local Ray instance by default; `--address auto` (or `HOST:6379`) joins a
running cluster (`ray start --head` on the head node), where `--num-env-runners`
sample on the cluster's CPUs. Every node needs `kanaloa_env[rllib]` installed.
`--tiny` shrinks everything to one small iteration (the CI test runs it). `--game kahuna`
trains on Kahuna (2 players; the arena's opponents are then Kahuna's bots):

    python examples/train_rllib.py --game kahuna --seed 0 --output-dir runs/rllib_kahuna

What learns here, and why these defaults: every env step is one decision of one
seat and trains the shared policy, so self-play at a 4-player table gives four
times the data of one learner seat. The reward is sparse (R10: +1 / -1/3 at the
end of a game of about 35 decisions per seat), so the discount is close to 1
(`--gamma 0.995`). Batches of 16k decisions (about 115 games) with minibatches of
4096 and a learning rate of 1e-3 follow the MaskablePPO example
(examples/train_maskable_ppo.py), which tuned them on the same observation; policy
and value nets are separate (256, 256) tanh MLPs. Masks remove illegal actions, so
no capacity goes into learning the rules.

Measured (seed 0, the defaults, 2-core machine under a load average of 10-15 from other
jobs, 2026-11-23): 1,509,426 env steps in 57 min; the greedy policy then won 16.0% (95%
CI 14.4-17.6%) against three heuristic bots, where a random player wins 5.4%, and 47.2%
(45.0-49.4%) against three random bots, 2,000 games each; chance is 25%. More in
docs/integrations-rllib.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import time
from pathlib import Path
from typing import Any

from kanaloa_env.drawing.terminal import plural
from kanaloa_env.games import DEFAULT_GAME, GAMES, get_game
from kanaloa_env.training import GracefulStop, run_script
from kanaloa_env.training.cli import (
    add_game_options,
    add_output_options,
    parse_layer_sizes,
    require,
    script_parser,
    table_size,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument("--seed", type=int, default=0, help="seeds RLlib (games, torch) and the arena")
    add_game_options(
        p, choices=sorted(GAMES), default=DEFAULT_GAME, game_help="which game to train on"
    )
    g = p.add_argument_group("Ray")
    g.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join ('auto', 'HOST:6379', 'ray://HOST:10001'); default: start "
        "a local Ray instance",
    )
    g.add_argument(
        "--num-env-runners",
        type=int,
        default=0,
        help="remote RLlib env runners (Ray actors) that sample; 0 samples in this process",
    )
    g.add_argument(
        "--num-envs-per-env-runner", type=int, default=64, help="games each env runner steps"
    )
    g = p.add_argument_group("PPO")
    g.add_argument(
        "--total-timesteps",
        type=int,
        default=1_500_000,
        help="budget: env steps (decisions of any seat) to sample before stopping",
    )
    g.add_argument(
        "--train-batch-size", type=int, default=16_384, help="env steps per PPO iteration"
    )
    g.add_argument("--minibatch-size", type=int, default=4096, help="PPO minibatch size")
    g.add_argument("--num-epochs", type=int, default=4, help="PPO epochs per iteration")
    g.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    g.add_argument("--gamma", type=float, default=0.995, help="discount factor")
    g.add_argument("--lambda", dest="lambda_", type=float, default=0.95, help="GAE lambda")
    g.add_argument("--clip-param", type=float, default=0.2, help="PPO clip range")
    g.add_argument("--entropy-coeff", type=float, default=0.01, help="entropy bonus coefficient")
    g.add_argument(
        "--hidden", default="256,256", help="hidden layer sizes of the policy and value MLPs"
    )
    g = p.add_argument_group("evaluation and checkpoints")
    g.add_argument(
        "--eval-every", type=int, default=10, help="evaluate against random bots every N iterations"
    )
    g.add_argument(
        "--eval-games", type=int, default=400, help="games per evaluation during training"
    )
    g.add_argument(
        "--final-random-games", type=int, default=2000, help="final games against random bots"
    )
    g.add_argument(
        "--final-heuristic-games", type=int, default=2000, help="final games against heuristic bots"
    )
    g.add_argument(
        "--checkpoint-every", type=int, default=10, help="save a checkpoint every N iterations"
    )
    output_help = "checkpoint, eval.csv, results.json"
    add_output_options(p, "runs/rllib", output_help, torch_help="torch CPU threads per process")
    p.add_argument(
        "--tiny",
        action="store_true",
        help="one tiny iteration with small nets and few evaluation games (the CI smoke run)",
    )
    args = p.parse_args(argv)
    if args.tiny:
        args.total_timesteps = 256
        args.train_batch_size = 256
        args.minibatch_size = 128
        args.num_epochs = 1
        args.num_envs_per_env_runner = 4
        args.hidden = "32,32"
        args.eval_every = 1
        args.eval_games = 8
        args.final_random_games = 8
        args.final_heuristic_games = 8
        args.checkpoint_every = 1
    table_size(p, args)
    sizes = ("num_envs_per_env_runner", "total_timesteps", "train_batch_size", "minibatch_size")
    sizes += ("num_epochs", "eval_every", "checkpoint_every", "torch_threads")
    require(p, args, sizes, lambda v: v >= 1, "must be >= 1")
    counts = ("num_env_runners", "eval_games", "final_random_games", "final_heuristic_games")
    require(p, args, counts, lambda v: v >= 0, "must be >= 0")
    args.hidden = parse_layer_sizes(p, args.hidden, "--hidden")
    return args


def build_config(args: argparse.Namespace) -> Any:
    """The PPO config: one module shared by every seat, RLlib's masking module unmodified."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from kanaloa_env.wrappers.rllib import SHARED_MODULE, RLlibEnv

    model = DefaultModelConfig(
        fcnet_hiddens=args.hidden, fcnet_activation="tanh", vf_share_layers=False
    )
    return (
        PPOConfig()
        .environment(RLlibEnv, env_config={"game": args.game, "num_players": args.num_players})
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
        )
        .multi_agent(
            policies={SHARED_MODULE},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED_MODULE,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_MODULE: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule, model_config=model
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            gamma=args.gamma,
            lambda_=args.lambda_,
            clip_param=args.clip_param,
            entropy_coeff=args.entropy_coeff,
        )
        .debugging(seed=args.seed)
    )


def arena_win_rate(
    bot: Any, opponent: str, num_players: int, games: int, seed: int, game: str = DEFAULT_GAME
) -> dict[str, float]:
    """The bot's win rate against `num_players - 1` copies of `opponent` in `game`,
    seat-balanced."""
    from kanaloa_env.arena import run_tournament

    # Blocks of P games rotate one table through every seat (kanaloa_env.arena).
    games = num_players * math.ceil(games / num_players)
    result = run_tournament(
        [bot] + [opponent] * (num_players - 1), num_players, games, seed=seed, game=game
    )
    row = next(s for s in result.stats if s.name == result.entrants[0])
    return {
        "games": row.games,
        "wins": row.wins,
        "win_rate": row.win_rate,
        "ci_low": row.ci_low,
        "ci_high": row.ci_high,
        "chance": 1.0 / num_players,
    }


def describe(r: dict[str, float]) -> str:
    return (
        f"win rate {100 * r['win_rate']:.1f}% (95% CI {100 * r['ci_low']:.1f}-"
        f"{100 * r['ci_high']:.1f}%) over {r['games']} games; chance {100 * r['chance']:.0f}%"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import ray
    import torch

    from kanaloa_env.wrappers.rllib import SHARED_MODULE, RLlibModuleBot

    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    out = Path(args.output_dir).resolve()  # RLlib checkpoints want absolute paths
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint"
    t0 = time.time()
    if args.address is None:
        ray.init(include_dashboard=False)
    else:
        ray.init(address=args.address)
    t1 = time.time()
    algo = build_config(args).build_algo()
    print(
        f"PPO self-play on {get_game(args.game).title}: {args.num_players} seats share "
        f"module {SHARED_MODULE!r}; "
        f"{plural(args.num_env_runners, 'remote env runner')} x "
        f"{plural(args.num_envs_per_env_runner, 'game')}; "
        f"budget {args.total_timesteps:,} env steps (Ray up in {t1 - t0:.0f} s, "
        f"algorithm built in {time.time() - t1:.0f} s)"
    )

    def evaluate_now(steps: int, elapsed: float, writer: Any) -> None:
        module = algo.get_module(SHARED_MODULE)
        bot = RLlibModuleBot(module, name="rllib")
        r = arena_win_rate(
            bot, "random", args.num_players, args.eval_games, args.seed + 1, args.game
        )
        writer.writerow(
            [steps, f"{elapsed:.1f}", r["games"], f"{r['win_rate']:.4f}"]
            + [f"{r['ci_low']:.4f}", f"{r['ci_high']:.4f}"]
        )
        print(f"  eval at {steps:,} steps vs random: {describe(r)}", flush=True)

    start = time.time()
    steps = iteration = 0
    with (
        GracefulStop() as stop,  # Ctrl-C: stop after this iteration, save below, exit 130
        open(out / "eval.csv", "w", newline="", encoding="utf-8") as f,
    ):
        writer = csv.writer(f)
        writer.writerow(["env_steps", "seconds", "games", "random_win_rate", "ci_low", "ci_high"])
        if args.eval_games:
            evaluate_now(0, 0.0, writer)
            f.flush()
        while steps < args.total_timesteps and not stop.requested:
            result = algo.train()
            iteration += 1
            runners = result["env_runners"]
            steps = int(result.get("num_env_steps_sampled_lifetime", 0)) or int(
                runners.get("num_env_steps_sampled_lifetime", 0)
            )
            learner = result.get("learners", {}).get(SHARED_MODULE, {})
            print(
                f"iter {iteration}: {steps:,} env steps, {time.time() - start:.0f} s, "
                f"episode length {runners.get('episode_len_mean', float('nan')):.1f}, "
                f"entropy {learner.get('entropy', float('nan')):.3f}, "
                f"vf loss {learner.get('vf_loss', float('nan')):.4f}",
                flush=True,
            )
            if iteration % args.checkpoint_every == 0:
                algo.save_to_path(str(checkpoint))
            if args.eval_games and iteration % args.eval_every == 0 and not stop.requested:
                evaluate_now(steps, time.time() - start, writer)
                f.flush()
    train_seconds = time.time() - start
    algo.save_to_path(str(checkpoint))
    algo.stop()
    ray.shutdown()
    stop.exit_if_requested(
        {"checkpoint": str(checkpoint), "evaluations": str(out / "eval.csv")},
        progress=f"after {plural(iteration, 'iteration')}, {steps:,} of "
        f"{args.total_timesteps:,} env steps",
    )
    print(f"trained {steps:,} env steps in {train_seconds:.0f} s; checkpoint {checkpoint}")

    # The evaluation reads the checkpoint back, as a user would.
    bot = RLlibModuleBot.from_checkpoint(checkpoint, SHARED_MODULE, name="rllib")
    results: dict[str, Any] = {
        "env_steps": steps,
        "iterations": iteration,
        "train_seconds": train_seconds,
        "settings": {k: v for k, v in vars(args).items()},
    }
    for opponent, games in (
        ("heuristic", args.final_heuristic_games),
        ("random", args.final_random_games),
    ):
        if games:
            r = arena_win_rate(bot, opponent, args.num_players, games, args.seed + 2, args.game)
            results[f"vs_{opponent}"] = r
            print(f"vs {plural(args.num_players - 1, f'{opponent} bot')}: {describe(r)}")
    with open(out / "results.json", "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2, default=str)
        f.write("\n")
    return results


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    run_script(main)
