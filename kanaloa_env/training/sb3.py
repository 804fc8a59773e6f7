"""What the stable-baselines3 training scripts share: a periodic callback that stops on
Ctrl-C, the evaluation row of their tables, and the files a run ends with.

```python
rows = []
every = [Every(args.eval_freq, lambda steps: rows.append(evaluation_row(...)))]
with GracefulStop() as stop:
    model.learn(total_timesteps, callback=periodic_callback(stop, every))
paths = save_run(model, rows, args.output_dir, num_players, "MaskablePPO", stop, progress)
```

stable-baselines3 is imported on first use, not with this module.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kanaloa_env.training.interrupt import GracefulStop
from kanaloa_env.training.records import plot_win_rates, win_rate_columns, write_csv

__all__ = [
    "Every",
    "evaluation_row",
    "maskable_ppo",
    "periodic_callback",
    "ppo_settings",
    "save_run",
]


@dataclass
class Every:
    """A task of `periodic_callback`: `action(timesteps)` once the run has reached
    `start // freq + 1` multiples of `freq` learner timesteps, then every `freq` more.

    Attributes:
        freq: learner timesteps between two runs of the task (>= 1).
        action: what to do, given the run's timesteps so far.
        start: the timesteps the callback's counter starts from (a resumed run's).
    """

    freq: int
    action: Callable[[int], None]
    start: int = 0

    def __post_init__(self) -> None:
        if self.freq < 1:
            raise ValueError(f"freq must be >= 1, got {self.freq}")
        self.next = (self.start // self.freq + 1) * self.freq


def periodic_callback(
    stop: GracefulStop,
    tasks: Sequence[Every],
    on_rollout_end: Callable[[int], None] | None = None,
) -> Any:
    """A stable-baselines3 callback that runs `tasks` between a PPO update and the next
    rollout, in order, each when it is due, and ends `model.learn` after the step
    under way once `stop.requested` (Ctrl-C; no task runs then). `on_rollout_end`
    gets the timesteps after every rollout (a progress display)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Periodic(BaseCallback):  # type: ignore[misc]  # (SB3's types are not read)
        def _on_rollout_start(self) -> None:
            if stop.requested:
                return
            for task in tasks:
                if self.num_timesteps >= task.next:
                    task.action(self.num_timesteps)
                    task.next += task.freq

        def _on_rollout_end(self) -> None:
            if on_rollout_end is not None:
                on_rollout_end(self.num_timesteps)

        def _on_step(self) -> bool:
            return not stop.requested  # False ends model.learn after this step

    return Periodic()


def ppo_settings(args: Any, **more: Any) -> dict[str, Any]:
    """MaskablePPO's keyword arguments from `args`, the parsed options of
    `add_rollout_options` and `add_loss_options` (`--gae-lambda` and `--clip-range` where the script has them), on
    the CPU and quiet; `more` adds or replaces any.

    The minibatch is at most a rollout (`n_steps * num_envs`).
    """
    settings: dict[str, Any] = {
        "n_steps": args.n_steps,
        "batch_size": min(args.batch_size, args.n_steps * args.num_envs),
        "n_epochs": args.n_epochs,
        "learning_rate": args.learning_rate,
        "gamma": args.gamma,
    }
    for name in ("gae_lambda", "clip_range"):
        if hasattr(args, name):
            settings[name] = getattr(args, name)
    settings.update(ent_coef=args.ent_coef, device="cpu", verbose=0)
    settings.update(more)
    return settings


def maskable_ppo(env: Any, args: Any, *, init_model: str | None = None, **more: Any) -> Any:
    """A sb3-contrib MaskablePPO model with an MLP policy on the vector env `env`, its
    settings `ppo_settings(args, **more)`; with `init_model` (a MaskablePPO .zip) that
    model, its network kept (`more`'s `policy_kwargs` is not used then)."""
    from sb3_contrib import MaskablePPO

    settings = ppo_settings(args, **more)
    if init_model:
        settings.pop("policy_kwargs", None)
        return MaskablePPO.load(init_model, env=env, **settings)
    return MaskablePPO("MlpPolicy", env, **settings)


def evaluation_row(
    model: Any,
    timesteps: int,
    games: Mapping[str, int],
    *,
    num_players: int,
    seed: int,
    started: tuple[float, float],
    game: str | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Evaluate `model` greedily against each kind of bot and return the table's row.

    Args:
        model: what `kanaloa_env.evaluation.evaluate` plays (an SB3 model).
        timesteps: the run's learner timesteps so far (the row's `timesteps`).
        games: games to play against each opponent kind ("random": 2000, ...), in order;
            a kind with 0 games is left out.
        num_players: the table size.
        seed: the evaluation's deal stream (one the training does not use).
        started: the run's `(time.time(), time.process_time())` at its start, for the
            row's `wall_s` and `cpu_s`.
        game: the game's name (None: the default game).
        say: where each result's line goes (None: printed, flushed at once).

    Returns:
        `timesteps`, `wall_s`, `cpu_s` and each kind's `win_rate_columns`.
    """
    from kanaloa_env.evaluation import evaluate

    row: dict[str, Any] = {
        "timesteps": timesteps,
        "wall_s": round(time.time() - started[0], 1),
        "cpu_s": round(time.process_time() - started[1], 1),
    }
    for label, n in games.items():
        if n <= 0:
            continue
        res = evaluate(model, label, num_games=n, game=game, num_players=num_players, seed=seed)
        row.update(win_rate_columns(label, res))
        line = f"[{timesteps:>9} steps, {row['wall_s']:>6}s] vs {label}: {res}"
        if say is None:
            print(line, flush=True)
        else:
            say(line)
    return row


def save_run(
    model: Any,
    rows: Sequence[Mapping[str, Any]],
    output_dir: str,
    num_players: int,
    title: str,
    stop: GracefulStop,
    progress: str,
) -> tuple[str, str, str]:
    """Save a finished or interrupted run: `model.zip` of `model`, and with any evaluation
    done (`rows`, in order) `eval.csv` (`write_csv`) and `learning_curve.png`
    (`plot_win_rates` with `num_players` and `title`), in `output_dir`. After Ctrl-C
    (`stop.requested`) it says what was saved where and exits 130 (`progress`: how far
    the run got). Returns the three paths."""
    model_path = os.path.join(output_dir, "model.zip")
    model.save(model_path)
    csv_path = os.path.join(output_dir, "eval.csv")
    png_path = os.path.join(output_dir, "learning_curve.png")
    if rows:  # none only when Ctrl-C came during the first evaluation
        write_csv(csv_path, rows)
        plot_win_rates(rows, num_players, png_path, title=title)
    stop.exit_if_requested(
        {
            "model": model_path,
            "evaluations": csv_path if rows else None,
            "learning curve": png_path if rows else None,
        },
        progress=progress,
    )
    return model_path, csv_path, png_path
