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
import math
import sys
import time

from kanaloa_env.drawing.terminal import plural
from kanaloa_env.training import GracefulStop, run_script
from kanaloa_env.training.cli import (
    add_evaluation_options,
    add_game_options,
    add_loss_options,
    add_output_options,
    add_rollout_options,
    check_ppo_options,
    script_parser,
    table_size,
)
from kanaloa_env.training.records import start_run
from kanaloa_env.training.sb3 import (
    Every,
    evaluation_row,
    maskable_ppo,
    periodic_callback,
    save_run,
)

# Budgets differ per game: Kanaloa's 4-player table still improves at 1.8M steps, where
# Kahuna's greedy policy wins 99.7% against random at 213k steps and nothing changes up to
# 606k, against random or the heuristic (see "Kahuna" above).
GAME_DEFAULTS: dict[str, dict[str, int]] = {
    "kanaloa": {"total_timesteps": 1_800_000, "eval_freq": 300_000},
    "kahuna": {"total_timesteps": 400_000, "eval_freq": 200_000},
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument("--seed", type=int, default=0, help="seeds the games, the bots and torch")
    add_game_options(p, choices=("kanaloa", "kahuna"), default="kanaloa")
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
    add_rollout_options(p)
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam learning rate")
    add_loss_options(p, ent_coef=0.01)
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
    per_game = ", ".join(f"{g} {d['eval_freq']:,}" for g, d in GAME_DEFAULTS.items())
    eval_help = f"evaluate every this many timesteps (default per game: {per_game})"
    add_evaluation_options(p, eval_freq=None, eval_freq_help=eval_help)
    output_help = "where the model, CSV and plot go"
    add_output_options(p, "runs/maskable_ppo", output_help, progress_bar=True)
    args = p.parse_args(argv)
    for key, value in GAME_DEFAULTS[args.game].items():
        if not hasattr(args, key):
            setattr(args, key, value)
    if args.eval_freq < 1:
        p.error(f"--eval-freq must be >= 1, got {args.eval_freq}")
    check_ppo_options(p, args)
    table_size(p, args)
    return args


def main(argv: list[str] | None = None) -> dict[str, object]:
    args = parse_args(argv)
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    start_run(args.output_dir, args.torch_threads)

    # TRY NOT TO MODIFY: seeding. The env seeds its games and bots; SB3 seeds torch.
    env = SB3VecEnv(
        args.num_envs,
        game=args.game,
        num_players=args.num_players,
        opponents=args.opponents,
        seed=args.seed,
        progress_shaping=args.progress_shaping,
    )
    policy_kwargs = {"net_arch": args.net_arch}
    model = maskable_ppo(env, args, policy_kwargs=policy_kwargs, seed=args.seed)

    rows: list[dict[str, object]] = []
    started = time.time(), time.process_time()

    def run_eval(timesteps: int) -> None:
        # Evaluation seeds differ from the training seed: unseen deals.
        games = {"random": args.eval_games, "heuristic": args.eval_heuristic_games}
        with progress.evaluating():
            row = evaluation_row(
                model,
                timesteps,
                games,
                num_players=args.num_players,
                seed=10_000 + args.seed,
                started=started,
                game=args.game,
                say=progress.write,
            )
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

    with GracefulStop() as stop:  # Ctrl-C: stop at the next step, save below, exit 130
        run_eval(0)
        # Every --eval-freq timesteps, between a PPO update and the next rollout; the
        # progress after every rollout.
        callback = periodic_callback(stop, [Every(args.eval_freq, run_eval)], progress.update)
        model.learn(total_timesteps=args.total_timesteps, callback=callback)
        if not stop.requested and (not rows or rows[-1]["timesteps"] != model.num_timesteps):
            run_eval(model.num_timesteps)
    train_s = time.time() - started[0]
    progress.close()

    title = f"MaskablePPO on {args.game.capitalize()}"
    model_path, csv_path, png_path = save_run(
        model,
        rows,
        args.output_dir,
        args.num_players,
        title,
        stop,
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


if __name__ == "__main__":
    run_script(main)
