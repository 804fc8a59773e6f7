"""Train sb3-contrib's MaskablePPO on Kanaloa or Kahuna against bots, on the native vector env.

    python examples/train_maskable_ppo.py --seed 0
    python examples/train_maskable_ppo.py --game kahuna --seed 0

trains one seat against three random bots at a 4-player Kanaloa table (the defaults:
about 5 min of CPU time, see "Measured" below), evaluates the greedy policy every
`--eval-freq` steps against random and heuristic bots (win rate with a Wilson
95% interval, all games played side by side in the vector driver), and writes
to `--output-dir`:

- `model.zip`: the MaskablePPO model (`kanaloa_env.bots.model.MaskablePPOBot.load`
  turns it into a bot for the arena and human play);
- `eval.csv`: timesteps, wall and CPU time (of this process, evaluations included) and
  win rates with their intervals;
- `learning_curve.png`: the win rates over training, chance (1/P) dashed.

A smoke run: `python examples/train_maskable_ppo.py --total-timesteps 2048 --num-envs 16
--n-steps 64 --eval-games 50 --eval-heuristic-games 0 --output-dir /tmp/smoke`.

Ctrl-C stops the run cleanly (`kanaloa_env.training.GracefulStop`): training stops at
the next step (after the evaluation under way, if any; a second Ctrl-C stops at once),
the model and the evaluations done so far are saved as above, the script says where
and exits with status 130.

PPO collects whole rollouts (`--n-steps` x `--num-envs` learner steps per update),
so the run trains the requested steps rounded up to a whole number of rollouts;
the progress display says so, counts to that number, and estimates the time left
from the training rate and the measured length of an evaluation (the first one
runs before training). On a terminal it is a bar; otherwise (a log file, CI) it
prints a line every 10% of the run.

What makes PPO learn here: many games at once (`--num-envs 256`) give
decorrelated batches at low cost per step; the reward is sparse (R10: +1 / -1/3
at the end of a game of about 33 learner decisions), so the discount is close
to 1 (`--gamma 0.995`) and the rollouts are long enough to see game ends
(`--n-steps 64` x 256 games = 16k steps, about 490 finished games per update);
a (256, 256) MLP reads the 416-feature observation; masks remove illegal
actions, so no capacity goes into learning the rules. With such large batches
a higher learning rate than SB3's default pays: at about 300k steps 1e-3 reached
46% against random bots where 3e-4 reached 37% and 2e-3 41% (1000-game
evaluations). Potential-based progress shaping (`--progress-shaping 1`, an
option of the env) did not help measurably (39% vs 37% at 3e-4, 44% vs 46% at
1e-3), so the default reward is plain R10.

Measured (`python examples/train_maskable_ppo.py --seed 0 --no-progress-bar`,
2026-11-26, the project's 2-core machine at a load average of about 2): the default run
(1,802,240 steps) took 4 min 56 s of CPU time and 5 min 27 s wall, and reached 53.8% (95%
CI 51.6-56.0%) against three random bots (chance 25%) and 15.4% (12.5-18.8%) against
three heuristic bots (on the numpy engines of 2026-11-23: the same win rates, 7 min 17 s
of CPU).

Kahuna (`--game kahuna`): one seat against a random opponent, the same hyperparameters,
a budget of its own (`GAME_DEFAULTS`: 400k steps; the greedy policy wins 99.7% against
random at 213k steps and stays there up to 606k). Measured (seed 0, 2-core machine at a
load average of about 12, 2026-11-23): 6 min 55 s wall (409,600 steps) and 99.7% (95% CI
99.3-99.8%, 2,000 games) against a random opponent, 0.8% (0.3-2.0%, 500 games) against the
heuristic; `--progress-shaping 1` (stone difference / 12) changed neither measurably.
docs/kahuna.md, "Training and bots", has the arena's check and the curves.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time

import numpy as np

from kanaloa_env.drawing.terminal import plural
from kanaloa_env.training import GracefulStop, layer_sizes, run_script

# Budgets differ per game: Kanaloa's 4-player table still improves at 1.8M steps, where
# Kahuna's greedy policy wins 99.7% against random at 213k steps and nothing changes up to
# 606k, against random or the heuristic (see "Kahuna" above).
GAME_DEFAULTS: dict[str, dict[str, int]] = {
    "kanaloa": {"total_timesteps": 1_800_000, "eval_freq": 300_000},
    "kahuna": {"total_timesteps": 400_000, "eval_freq": 200_000},
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the games, the bots and torch")
    p.add_argument("--game", choices=("kanaloa", "kahuna"), default="kanaloa", help="which game")
    p.add_argument(
        "--num-players",
        type=int,
        default=None,
        help="players at the table (Kanaloa 3..5, default 4; Kahuna 2)",
    )
    p.add_argument(
        "--opponents",
        default="random",
        help="training opponents: a bot name (random, heuristic) or a model .zip",
    )
    p.add_argument(
        "--total-timesteps",
        type=int,
        default=argparse.SUPPRESS,
        help="learner decisions to train on (default per game: "
        + ", ".join(f"{g} {d['total_timesteps']:,}" for g, d in GAME_DEFAULTS.items())
        + ")",
    )
    p.add_argument("--num-envs", type=int, default=256, help="games played side by side")
    p.add_argument("--n-steps", type=int, default=64, help="rollout length per game per update")
    p.add_argument("--batch-size", type=int, default=4096, help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per update")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--gamma", type=float, default=0.995, help="discount factor")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    p.add_argument("--clip-range", type=float, default=0.2, help="PPO clip range")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus coefficient")
    p.add_argument(
        "--net-arch", default="256,256", help="hidden layer sizes of the policy and value MLPs"
    )
    p.add_argument(
        "--progress-shaping",
        type=float,
        default=0.0,
        help="potential-based shaping weight on the game's shaping potential (Kanaloa: the "
        "boat's lead; Kahuna: the stone difference / 12; 0: the game's plain rewards)",
    )
    p.add_argument(
        "--eval-freq",
        type=int,
        default=argparse.SUPPRESS,
        help="evaluate every this many timesteps (default per game: "
        + ", ".join(f"{g} {d['eval_freq']:,}" for g, d in GAME_DEFAULTS.items())
        + ")",
    )
    p.add_argument(
        "--eval-games", type=int, default=2000, help="evaluation games against random bots"
    )
    p.add_argument(
        "--eval-heuristic-games",
        type=int,
        default=500,
        help="evaluation games against heuristic bots (0: skip)",
    )
    p.add_argument(
        "--output-dir", default="runs/maskable_ppo", help="where the model, CSV and plot go"
    )
    p.add_argument("--torch-threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--no-progress-bar", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    for key, value in GAME_DEFAULTS[args.game].items():
        if not hasattr(args, key):
            setattr(args, key, value)
    if args.eval_freq < 1:
        p.error(f"--eval-freq must be >= 1, got {args.eval_freq}")
    if args.total_timesteps < 1 or args.num_envs < 1 or args.n_steps < 2:
        p.error("--total-timesteps and --num-envs must be >= 1 and --n-steps >= 2")
    from kanaloa_env.games import get_game

    game = get_game(args.game)
    if args.num_players is None:
        args.num_players = game.default_num_players
    if args.num_players not in game.player_counts:
        p.error(f"--num-players must be in {game.player_counts_text()} for {game.title}")
    try:
        args.net_arch = layer_sizes(args.net_arch, "--net-arch")
    except ValueError as exc:
        p.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> dict[str, object]:
    args = parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from kanaloa_env.evaluation import evaluate
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    torch.set_num_threads(args.torch_threads)
    os.makedirs(args.output_dir, exist_ok=True)

    # TRY NOT TO MODIFY: seeding. The env seeds its games and bots; SB3 seeds torch.
    env = SB3VecEnv(
        args.num_envs,
        game=args.game,
        num_players=args.num_players,
        opponents=args.opponents,
        seed=args.seed,
        progress_shaping=args.progress_shaping,
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(args.batch_size, args.n_steps * args.num_envs),
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": args.net_arch},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )

    rows: list[dict[str, object]] = []
    t0, cpu0 = time.time(), time.process_time()

    def run_eval(timesteps: int) -> None:
        row: dict[str, object] = {
            "timesteps": timesteps,
            "wall_s": round(time.time() - t0, 1),
            "cpu_s": round(time.process_time() - cpu0, 1),
        }
        # Evaluation seeds differ from the training seed: unseen deals.
        for label, games in (("random", args.eval_games), ("heuristic", args.eval_heuristic_games)):
            if games <= 0:
                continue
            res = evaluate(
                model,
                label,
                num_games=games,
                game=args.game,
                num_players=args.num_players,
                seed=10_000 + args.seed,
            )
            row.update(
                {
                    f"{label}_win_rate": round(res.win_rate, 4),
                    f"{label}_ci_low": round(res.ci_low, 4),
                    f"{label}_ci_high": round(res.ci_high, 4),
                    f"{label}_games": res.games,
                }
            )
            progress.write(f"[{timesteps:>9} steps, {row['wall_s']:>6}s] vs {label}: {res}")
        rows.append(row)

    rollout = args.n_steps * args.num_envs
    total = math.ceil(args.total_timesteps / rollout) * rollout  # PPO runs whole rollouts
    evals = len(range(args.eval_freq, total, args.eval_freq)) + 1  # periodic + the final one
    progress = Progress(total, evals, enabled=not args.no_progress_bar)
    if total != args.total_timesteps:
        progress.write(
            f"training {total:,} steps: {args.total_timesteps:,} rounded up to whole rollouts "
            f"of {rollout:,} ({args.n_steps} steps x {plural(args.num_envs, 'game')})"
        )

    class PeriodicEval(BaseCallback):
        """Evaluate every `--eval-freq` timesteps, between a PPO update and the next rollout;
        report progress after every rollout."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = args.eval_freq

        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= self.next_eval and not stop.requested:
                with progress.evaluating():
                    run_eval(self.num_timesteps)
                self.next_eval += args.eval_freq

        def _on_rollout_end(self) -> None:
            progress.update(self.num_timesteps)

        def _on_step(self) -> bool:
            return not stop.requested  # False ends model.learn after this step

    with GracefulStop() as stop:  # Ctrl-C: stop at the next step, save below, exit 130
        with progress.evaluating():
            run_eval(0)
        model.learn(total_timesteps=args.total_timesteps, callback=PeriodicEval())
        if not stop.requested and (not rows or rows[-1]["timesteps"] != model.num_timesteps):
            with progress.evaluating():
                run_eval(model.num_timesteps)
    train_s = time.time() - t0
    progress.close()

    model_path = os.path.join(args.output_dir, "model.zip")
    model.save(model_path)
    csv_path = os.path.join(args.output_dir, "eval.csv")
    png_path = os.path.join(args.output_dir, "learning_curve.png")
    if rows:  # none only when Ctrl-C came during the first evaluation
        write_rows(rows, csv_path)
        title = f"MaskablePPO on {args.game.capitalize()}"
        plot_curve(rows, args.num_players, png_path, title=title)
    stop.exit_if_requested(
        {
            "model": model_path,
            "evaluations": csv_path if rows else None,
            "learning curve": png_path if rows else None,
        },
        progress=f"after {model.num_timesteps:,} of {total:,} steps",
    )
    final = rows[-1]
    print(
        f"done: {model.num_timesteps} steps in {train_s:.0f}s (with evaluations); "
        f"model {model_path}, curve {png_path}, table {csv_path}"
    )
    summary = {"model": model_path, "csv": csv_path, "plot": png_path, "final": final}
    summary["args"] = {k: v for k, v in vars(args).items()}
    return summary


def write_rows(rows: list[dict[str, object]], path: str) -> None:
    """The evaluations as a CSV table, `timesteps` first."""
    fields = sorted({k for r in rows for k in r}, key=lambda k: (k != "timesteps", k))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


class Progress:
    """The run's progress: a bar on a terminal, a line every 10% otherwise; the time left is
    the training still to do at the measured training rate plus the evaluations still to
    come at their measured length."""

    def __init__(self, total: int, evals: int, enabled: bool = True) -> None:
        self.total, self.evals_left, self.enabled = total, evals, enabled
        self.done = 0
        self.train_s = self.eval_s = 0.0
        self.evals_run = 0
        self.last = time.time()
        self.next_line = 0.1
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", unit_scale=True, bar_format=(
                "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
            ))  # fmt: skip

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def evaluating(self) -> _Timed:
        return _Timed(self)

    def update(self, steps: int) -> None:
        now = time.time()
        self.train_s += now - self.last
        self.last = now
        gained, self.done = steps - self.done, steps
        left = self.left()
        if self.bar is not None:
            self.bar.update(gained)
            self.bar.set_postfix_str(f"about {left} left, evaluations included", refresh=True)
        elif self.enabled and steps >= self.next_line * self.total:
            self.next_line = math.floor(10 * steps / self.total) / 10 + 0.1
            print(
                f"[{100 * steps / self.total:5.1f}%] {steps:,}/{self.total:,} steps, "
                f"about {left} left (evaluations included)",
                file=sys.stderr,
                flush=True,
            )

    def left(self) -> str:
        rate = self.done / self.train_s if self.train_s > 0 else 0.0
        per_eval = self.eval_s / self.evals_run if self.evals_run else 0.0
        if rate <= 0:
            return "?"
        s = (self.total - self.done) / rate + max(self.evals_left, 0) * per_eval
        return f"{int(s // 60)}m{int(s % 60):02d}s"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Timed:
    """Times one evaluation for `Progress` (its time is not training time)."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress

    def __enter__(self) -> None:
        self.p.train_s += time.time() - self.p.last
        self.start = time.time()

    def __exit__(self, *exc: object) -> None:
        now = time.time()
        if self.p.evals_run or self.p.done:  # the evaluation before training is not counted
            self.p.evals_left -= 1
        self.p.eval_s += now - self.start
        self.p.evals_run += 1
        self.p.last = now


def plot_curve(
    rows: list[dict[str, object]], num_players: int, path: str, title: str | None = None
) -> None:
    """Win rate against each opponent kind over training, with the Wilson 95% bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = np.array([r["timesteps"] for r in rows], dtype=float)
    for label, colour in (("random", "tab:blue"), ("heuristic", "tab:orange")):
        key = f"{label}_win_rate"
        if not all(key in r for r in rows):
            continue
        y = np.array([r[key] for r in rows], dtype=float)
        lo = np.array([r[f"{label}_ci_low"] for r in rows], dtype=float)
        hi = np.array([r[f"{label}_ci_high"] for r in rows], dtype=float)
        others = f"{num_players - 1} {label} bots" if num_players > 2 else f"a {label} bot"
        ax.plot(x, y, marker="o", color=colour, label=f"vs {others}")
        ax.fill_between(x, lo, hi, color=colour, alpha=0.2)
    ax.axhline(1.0 / num_players, color="grey", linestyle="--", label=f"chance (1/{num_players})")
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{title or 'MaskablePPO'}, {num_players} players")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    run_script(main)
