"""Train a policy bot: behaviour cloning of the heuristic, then MaskablePPO against it.

    nice -n 10 python examples/train_ppo_bot.py --seed 0 --num-players 4 \
        --output-dir runs/ppo_bot_4p

Two stages, each resumable (rerun the same command after a crash: a stage that
finished is skipped, an interrupted one continues from its last checkpoint):

1. **Behaviour cloning** (`--bc-chunks` chunks of `--bc-games` games). Heuristic
   bots play whole games against each other in one batch through the core; every
   decision gives (observation of the player to act, its legal mask, the
   heuristic's action, the player's discounted final reward). The policy network of a
   MaskablePPO model is trained with the masked cross-entropy of the heuristic's
   action, its value network with the squared error to that return, so that PPO
   starts near the heuristic's strength with a value function that already fits it.
   Fresh games every chunk: no sample is seen in more than `--bc-epochs` epochs.
   With `--init-policy FILE` the policy network is that file's (for instance a
   distilled search bot, `examples/distil_search.py`) and this stage fits only the
   value network, to the same returns.
2. **PPO fine-tuning** (`--ppo-timesteps` learner decisions) in the native
   vector env, one learner seat per game; every other seat is drawn per game from
   heuristic bots (share `--heuristic-share`) and a pool of frozen past selves
   (`MaskablePPOBot.frozen_copy`, sampling their policy; one joins every
   `--snapshot-freq` steps, the oldest leaves beyond `--pool-size`).

Every `--eval-freq` steps the greedy policy plays `--eval-games` games against
three heuristic bots (its own deal stream, unlike the final arena's), and the best
checkpoint by that win rate is kept. At the end that checkpoint is exported as a
weights-only policy file (`kanaloa_env.bots.policy_file`, no pickle) and measured in
the seat-balanced arena against heuristic bots (`--final-games` games, arena seed
`--final-seed`), which is the same as

    python -m kanaloa_env.arena --bots runs/ppo_bot_4p/policy.npz heuristic heuristic \
        heuristic --players 4 --games 4000 --seed 1

Writes to `--output-dir`: `bc.pt` (stage 1 checkpoint), `ppo_last.zip`,
`ppo_best.zip` and `pool/` (stage 2 checkpoints), `eval.csv`,
`learning_curve.png`, `policy.npz` (the exported policy) and `arena/` (the
final tournament's results). This recipe made the shipped 4-player file until the
distilled search bot replaced it (examples/distil_search.py, docs/models.md); shipping
a model is a copy: `cp runs/ppo_bot_4p/policy.npz kanaloa_env/bots/data/kanaloa_4p.npz`.

Determinism: every random stream (deals of each stage, bot sampling, torch) is
derived from `--seed`, and torch runs on one thread, so an uninterrupted run with
the same arguments gives the same weights. A resumed stage 2 continues with the same
weights and pool but new deals, so it is not bit-identical to an uninterrupted run.

Ctrl-C stops the run cleanly (`kanaloa_env.training.GracefulStop`) and keeps what it
can resume from: in stage 1 after the current minibatch (`bc.pt` stays as saved after
the last finished chunk; the chunk under way is redone on resume), in stage 2 at the
next step (`ppo_last.zip` is saved then; `eval.csv` and `learning_curve.png` hold the
evaluations done). A second Ctrl-C stops at once; stage 2 still saves `ppo_last.zip`.
The script then lists what is saved where and exits with status 130; the final arena
runs only after an uninterrupted stage 2. Rerunning the same command resumes.

A smoke run (a minute): `python examples/train_ppo_bot.py --bc-chunks 2 --bc-games 64
--ppo-timesteps 4096 --num-envs 32 --n-steps 64 --eval-freq 2048 --eval-games 64
--final-games 64 --output-dir /tmp/ppo_bot_smoke`.
"""

from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
import time
from typing import Any

import numpy as np

from kanaloa_env.training import GracefulStop, run_script
from kanaloa_env.training.cli import (
    add_loss_options,
    add_output_options,
    add_rollout_options,
    parse_layer_sizes,
    require,
    script_parser,
)
from kanaloa_env.training.ppo import stream_seed
from kanaloa_env.training.records import (
    plot_win_rates,
    run_log,
    start_run,
    win_rate_columns,
    write_csv,
)
from kanaloa_env.training.sb3 import Every, maskable_ppo, periodic_callback

# Streams of the stages, mixed with --seed into the deal seeds (distinct from the
# small integers users pass to the arena).
_BC_STREAM, _PPO_STREAM, _EVAL_STREAM, _BOT_STREAM = 1, 2, 3, 4


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    p.add_argument("--seed", type=int, default=0, help="seeds every deal stream, bot and torch")
    p.add_argument("--num-players", type=int, default=4, help="players at the table (3..5)")
    p.add_argument(
        "--net-arch", default="256,256", help="hidden layers of the policy and value MLPs"
    )
    add_output_options(p, "runs/ppo_bot_4p", "checkpoints, logs and the policy file")
    p.add_argument(
        "--init-policy",
        default=None,
        help="start from this policy file (e.g. examples/distil_search.py's) instead of "
        "cloning the heuristic: its layers and activation replace --net-arch, and stage 1 "
        "trains only the value network, on the heuristic games' returns",
    )
    g = p.add_argument_group("stage 1: behaviour cloning of the heuristic")
    g.add_argument("--bc-chunks", type=int, default=60, help="chunks of fresh heuristic games")
    g.add_argument("--bc-games", type=int, default=2048, help="heuristic self-play games per chunk")
    g.add_argument("--bc-epochs", type=int, default=2, help="passes over each chunk")
    g.add_argument("--bc-batch-size", type=int, default=1024, help="minibatch size")
    g.add_argument("--bc-lr", type=float, default=1e-3, help="Adam learning rate (cosine to 0)")
    g.add_argument("--bc-vf-coef", type=float, default=0.5, help="weight of the value loss")
    g = p.add_argument_group("stage 2: MaskablePPO against heuristic bots and past selves")
    g.add_argument(
        "--ppo-timesteps", type=int, default=10_000_000, help="learner decisions to train on"
    )
    add_rollout_options(g)
    g.add_argument("--learning-rate", type=float, default=3e-4, help="initial Adam learning rate")
    g.add_argument(
        "--learning-rate-final", type=float, default=3e-5, help="learning rate at the end (linear)"
    )
    add_loss_options(g, ent_coef=0.001, gamma_help="discount per learner decision")
    g.add_argument("--vf-coef", type=float, default=0.5, help="value loss coefficient")
    g.add_argument(
        "--target-kl", type=float, default=0.02, help="stop an update's epochs past this KL"
    )
    g.add_argument(
        "--heuristic-share",
        type=float,
        default=0.75,
        help="share of opponent seats played by the heuristic bot (the rest: the pool)",
    )
    g.add_argument("--pool-size", type=int, default=4, help="frozen past selves kept in the pool")
    g.add_argument(
        "--snapshot-freq", type=int, default=500_000, help="add the learner to the pool this often"
    )
    g.add_argument(
        "--progress-shaping",
        type=float,
        default=0.0,
        help="potential-based shaping weight on the boat's lead (0: plain R10 rewards)",
    )
    g = p.add_argument_group("evaluation")
    g.add_argument("--eval-freq", type=int, default=500_000, help="evaluate this often (steps)")
    g.add_argument(
        "--eval-games", type=int, default=2000, help="games against 3 heuristic bots per evaluation"
    )
    g.add_argument("--final-games", type=int, default=4000, help="games of the final arena")
    g.add_argument("--final-seed", type=int, default=1, help="seed of the final arena")
    args = p.parse_args(argv)
    positive = ("bc_games", "bc_epochs", "bc_batch_size", "num_envs", "batch_size", "n_epochs")
    positive += ("pool_size", "snapshot_freq", "eval_freq", "eval_games", "final_games")
    require(p, args, positive, lambda v: v >= 1, "must be >= 1")
    if args.bc_chunks < 0 or args.ppo_timesteps < 0:
        p.error("--bc-chunks and --ppo-timesteps must be >= 0")
    if args.n_steps < 2:
        p.error("--n-steps must be >= 2")
    if not 3 <= args.num_players <= 5:
        p.error("--num-players must be 3, 4 or 5")
    if not 0.0 <= args.heuristic_share <= 1.0:
        p.error("--heuristic-share must be in [0, 1]")
    args.net_arch = parse_layer_sizes(p, args.net_arch, "--net-arch")
    args.activation = "tanh"  # SB3's default
    if args.init_policy is not None:
        from kanaloa_env.bots.policy_file import load_policy

        try:
            weights = load_policy(args.init_policy)
        except (OSError, TypeError, ValueError) as exc:
            p.error(f"--init-policy: {exc}")
        if weights.metadata["game"] != "kanaloa":
            p.error(f"--init-policy: a {weights.metadata['game']} policy, not Kanaloa's")
        args.net_arch, args.activation = weights.hidden_sizes, weights.activation
    return args


# ---- stage 1: behaviour cloning --------------------------------------------------------


def heuristic_games(
    num_players: int, seed: int, first_game: int, num_games: int, gamma: float
) -> dict[str, np.ndarray]:
    """Play `num_games` heuristic self-play games to the end and record every decision.

    Games `first_game ..` of the core stream `seed`. For the D decisions taken:

    Returns:
        obs: (D, OBS_DIM) float32 observation of the player to act.
        masks: (D, 66) bool legal actions.
        actions: (D,) int64 the heuristic's action.
        returns: (D,) float32 that player's reward at the end of the game (R10),
            discounted by `gamma` per later decision of the same player (as PPO's
            value target of a learner that is this player).
    """
    from kanaloa_env.bots import public_view
    from kanaloa_env.core.kanaloa import Config, init, observe, step_inplace
    from kanaloa_env.games.kanaloa.heuristic import HeuristicBot

    state = init(Config(num_players=num_players), num_games, seed, first_game=first_game)
    bot = HeuristicBot()
    rng = np.random.default_rng(0)  # the heuristic is deterministic; the protocol needs one
    pos = np.arange(num_games)  # batch row -> game
    total = np.zeros((num_games, num_players), dtype=np.float32)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "masks", "actions", "game", "seat")
    }
    while len(pos):
        seats = state.current_player.astype(np.intp)
        masks = state.legal.copy()
        actions = bot.act(
            np.zeros((0, 0), np.float32), masks, rng, view=public_view(state, seats), seats=seats
        )
        parts["obs"].append(observe(state))
        parts["masks"].append(masks)
        parts["actions"].append(actions)
        parts["game"].append(pos.copy())
        parts["seat"].append(seats)
        step_inplace(state, actions)
        total[pos] += state.rewards
        live = ~(state.terminated | state.truncated)
        if not live.all():
            keep = np.flatnonzero(live)
            state, pos = state.take(keep), pos[keep]
    data = {k: np.concatenate(v) for k, v in parts.items()}
    game, seat = data.pop("game"), data.pop("seat")
    # Later decisions of the same (game, seat): walk the decisions backwards.
    key = game * num_players + seat
    later = np.zeros(len(key), dtype=np.int64)
    seen = np.zeros(num_games * num_players, dtype=np.int64)
    order = np.argsort(key, kind="stable")  # per (game, seat), in decision order
    counts = np.bincount(key, minlength=len(seen))
    rank = np.arange(len(key)) - np.repeat(np.cumsum(counts) - counts, counts)
    later[order] = counts[key[order]] - 1 - rank
    data["returns"] = (total[game, seat] * gamma**later).astype(np.float32)
    return data


def behaviour_cloning(model: Any, args: argparse.Namespace, log: Any, stop: GracefulStop) -> None:
    """Stage 1: fit `model.policy` to the heuristic's actions and returns (resumable).

    Saves `bc.pt` after every chunk; returns early, without saving the chunk under way,
    once `stop.requested` (Ctrl-C)."""
    import torch

    from kanaloa_env.core.files import atomic_write_path

    policy = model.policy
    path = os.path.join(args.output_dir, "bc.pt")
    opt = torch.optim.Adam(policy.parameters(), lr=args.bc_lr)
    start = 0
    if os.path.exists(path):
        # Our own checkpoint from an earlier run of this stage, not an untrusted file.
        ckpt = torch.load(path, weights_only=True)
        policy.load_state_dict(ckpt["policy"])
        opt.load_state_dict(ckpt["optimizer"])
        start = int(ckpt["chunk"])
        log(f"bc: resuming after chunk {start} of {args.bc_chunks}")
    if start >= args.bc_chunks:
        return
    seed = stream_seed(args.seed, _BC_STREAM, bits=64)
    held_out = heuristic_games(args.num_players, seed, 2**40, 256, args.gamma)
    # Minibatch steps per chunk, estimated from the held-out games, for the schedule.
    decisions = len(held_out["actions"]) * args.bc_games // 256
    steps_per_chunk = args.bc_epochs * -(-decisions // args.bc_batch_size)
    total_steps = max(1, args.bc_chunks * steps_per_chunk)

    def tensors(d: dict[str, np.ndarray]) -> tuple[torch.Tensor, ...]:
        return tuple(torch.as_tensor(d[k]) for k in ("obs", "actions", "masks", "returns"))

    def held_out_metrics() -> tuple[float, float]:
        obs, actions, masks, returns = tensors(held_out)
        policy.set_training_mode(False)
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=masks.numpy())
            acc = (dist.distribution.probs.argmax(dim=1) == actions).float().mean().item()
            vloss = ((policy.predict_values(obs).flatten() - returns) ** 2).mean().item()
        return acc, vloss

    t0 = time.time()
    for chunk in range(start, args.bc_chunks):
        data = heuristic_games(
            args.num_players, seed, chunk * args.bc_games, args.bc_games, args.gamma
        )
        obs, actions, masks, returns = tensors(data)
        gen = torch.Generator().manual_seed(stream_seed(args.seed, 1000 + chunk, bits=64) % 2**63)
        policy.set_training_mode(True)
        losses = []
        for _ in range(args.bc_epochs):
            perm = torch.randperm(len(actions), generator=gen)
            for lo in range(0, len(perm), args.bc_batch_size):
                if stop.requested:
                    log(f"bc: stopped in chunk {chunk + 1}/{args.bc_chunks}, which a rerun redoes")
                    return
                step = min(chunk * steps_per_chunk + len(losses), total_steps)
                for group in opt.param_groups:  # cosine from bc_lr to 0 over the whole stage
                    # A Python float: a numpy scalar would not reload with weights_only=True.
                    group["lr"] = float(args.bc_lr * 0.5 * (1 + np.cos(np.pi * step / total_steps)))
                i = perm[lo : lo + args.bc_batch_size]
                values, log_prob, _ = policy.evaluate_actions(
                    obs[i], actions[i], action_masks=masks[i].numpy()
                )
                loss = args.bc_vf_coef * ((values.flatten() - returns[i]) ** 2).mean()
                if args.init_policy is None:  # else the policy stays the file's
                    loss = loss - log_prob.mean()
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                opt.step()
                losses.append(loss.item())
        acc, vloss = held_out_metrics()
        log(
            f"bc chunk {chunk + 1}/{args.bc_chunks}: {len(actions)} decisions, "
            f"loss {np.mean(losses):.4f}, held-out accuracy {acc:.4f}, value mse {vloss:.4f}, "
            f"{time.time() - t0:.0f}s"
        )
        with atomic_write_path(path) as tmp:
            torch.save(
                {"policy": policy.state_dict(), "optimizer": opt.state_dict(), "chunk": chunk + 1},
                tmp,
            )


# ---- stage 2: PPO against heuristic bots and past selves --------------------------------


def opponent_list(heuristic: Any, pool: list[Any], share: float) -> list[Any]:
    """Opponents for `opponent_sampling="random"`: the heuristic object repeated so that
    it is drawn for about `share` of the seats, then the pool (the driver lets a
    repeated object act once per step, so repeats cost nothing)."""
    if not pool or share >= 1.0:
        return [heuristic]
    if share <= 0.0:
        return list(pool)
    repeats = max(1, round(share * len(pool) / (1.0 - share)))
    return [heuristic] * repeats + list(pool)


def lr_schedule(initial: float, final: float) -> Any:
    """SB3 schedule: linear from `initial` to `final` over the training progress."""

    def schedule(progress_remaining: float) -> float:
        return final + (initial - final) * progress_remaining

    return schedule


def load_pool(model: Any, folder: str, size: int) -> list[Any]:
    """The last `size` frozen policies saved in `folder` (our own checkpoints), as bots."""
    import torch

    from kanaloa_env.bots.model import MaskablePPOBot

    names = sorted((f for f in os.listdir(folder) if f.endswith(".pt")), key=lambda f: int(f[:-3]))
    pool = []
    for f in names[-size:]:
        policy = type(model.policy)(**model.policy._get_constructor_parameters())
        policy.load_state_dict(torch.load(os.path.join(folder, f), weights_only=True))
        policy.set_training_mode(False)
        pool.append(MaskablePPOBot(policy, deterministic=False, name=f"frozen@{f[:-3]}"))
    return pool


def ppo_finetune(
    model: Any, args: argparse.Namespace, log: Any, rows: list[dict], stop: GracefulStop
) -> Any:
    """Stage 2: MaskablePPO against heuristic bots and past selves (resumable).

    Once `stop.requested` (Ctrl-C) training ends at the next step, and `ppo_last.zip`
    is saved where it stopped (also when a second Ctrl-C stops it at once)."""
    import torch
    from sb3_contrib import MaskablePPO

    from kanaloa_env.bots.model import MaskablePPOBot
    from kanaloa_env.core.files import atomic_write_path
    from kanaloa_env.evaluation import evaluate
    from kanaloa_env.games.kanaloa.heuristic import HeuristicBot

    last = os.path.join(args.output_dir, "ppo_last.zip")
    best = os.path.join(args.output_dir, "ppo_best.zip")
    pool_dir = os.path.join(args.output_dir, "pool")
    os.makedirs(pool_dir, exist_ok=True)
    env = model.get_env()
    if os.path.exists(last):
        model = MaskablePPO.load(last, env=env, device="cpu")
        log(f"ppo: resuming at {model.num_timesteps} steps")
    heuristic = HeuristicBot()
    pool = load_pool(model, pool_dir, args.pool_size)
    t0 = time.time()
    best_rate = max((float(r["heuristic_win_rate"]) for r in rows), default=-1.0)

    def snapshot(timesteps: int) -> None:
        bot = MaskablePPOBot.frozen_copy(model, name=f"frozen@{timesteps}")
        with atomic_write_path(os.path.join(pool_dir, f"{timesteps}.pt")) as tmp:
            torch.save(bot.policy.state_dict(), tmp)
        pool.append(bot)
        del pool[: -args.pool_size]
        env.set_opponents(opponent_list(heuristic, pool, args.heuristic_share), "random")

    def run_eval(timesteps: int) -> None:
        nonlocal best_rate
        res = evaluate(
            model,
            "heuristic",
            num_games=args.eval_games,
            num_players=args.num_players,
            seed=stream_seed(args.seed, _EVAL_STREAM, bits=64),
        )
        wall_s = round(time.time() - t0, 1)
        row = {"stage": "ppo", "timesteps": timesteps, "wall_s": wall_s}
        rows.append(row | win_rate_columns("heuristic", res))
        log(f"ppo [{timesteps:>9} steps, {time.time() - t0:>6.0f}s] vs heuristic: {res}")
        model.save(last)
        if res.win_rate > best_rate:
            best_rate = res.win_rate
            model.save(best)
        write_eval(rows, args)

    if model.num_timesteps == 0:
        if not pool and args.heuristic_share < 1.0:
            snapshot(0)  # the cloned policy is the first past self
        run_eval(0)
    env.set_opponents(opponent_list(heuristic, pool, args.heuristic_share), "random")
    remaining = args.ppo_timesteps - model.num_timesteps
    if remaining > 0 and not stop.requested:
        # Between a PPO update and the next rollout: snapshot into the pool, evaluate.
        done = model.num_timesteps
        every = [Every(args.snapshot_freq, snapshot, done), Every(args.eval_freq, run_eval, done)]
        callback = periodic_callback(stop, every)
        try:
            model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
        finally:
            if stop.requested:  # Ctrl-C: keep the steps trained since the last evaluation
                model.save(last)
                log(f"ppo: stopped at {model.num_timesteps} steps; saved {last}")
        if not stop.requested and rows[-1]["timesteps"] != model.num_timesteps:
            run_eval(model.num_timesteps)
    return model


def write_eval(rows: list[dict], args: argparse.Namespace) -> None:
    """eval.csv and learning_curve.png of the evaluations so far."""
    fields = ["stage", "timesteps", "wall_s"] + [
        f"heuristic_{k}" for k in ("win_rate", "ci_low", "ci_high", "games")
    ]
    write_csv(os.path.join(args.output_dir, "eval.csv"), rows, fields)
    plot_win_rates(
        rows,
        args.num_players,
        os.path.join(args.output_dir, "learning_curve.png"),
        title="Cloned heuristic + MaskablePPO",
    )


def read_eval(args: argparse.Namespace) -> list[dict]:
    """The evaluations of an earlier (interrupted) run, to resume."""
    path = os.path.join(args.output_dir, "eval.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [
            {k: (v if k == "stage" else float(v)) for k, v in r.items()} for r in csv.DictReader(f)
        ]


# ---- export and the final measurement ------------------------------------------------------


def export_and_measure(model: Any, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    """Export the best checkpoint's policy network and play the final arena with it."""
    from sb3_contrib import MaskablePPO

    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.bots.sb3_export import export_maskable_ppo

    best = os.path.join(args.output_dir, "ppo_best.zip")
    if os.path.exists(best):
        model = MaskablePPO.load(best, device="cpu")
    path = os.path.join(args.output_dir, "policy.npz")
    argv = [a for a in sys.argv[1:]]
    training = {
        "recipe": "examples/train_ppo_bot.py",
        "command": "python examples/train_ppo_bot.py " + shlex.join(argv),
        "seed": args.seed,
        "timesteps": int(model.num_timesteps),
        "method": "behaviour cloning of the heuristic bot, then MaskablePPO against heuristic "
        "bots and frozen past selves",
    }
    if args.init_policy is not None:
        from kanaloa_env.bots.policy_file import load_policy

        start = load_policy(args.init_policy).metadata["training"]
        training["method"] = (
            "MaskablePPO against heuristic bots and frozen past selves, from a policy file "
            f"({os.path.basename(args.init_policy)}: {start.get('method', 'unknown')})"
        )
        training["init_policy_training"] = start
    export_maskable_ppo(model, path, num_players=args.num_players, training=training)
    bot = PolicyBot.load(path)
    result = run_tournament(
        [bot] + ["heuristic"] * (args.num_players - 1),
        num_players=args.num_players,
        num_games=args.final_games,
        seed=args.final_seed,
    )
    result.write(os.path.join(args.output_dir, "arena"), overwrite=True)  # a rerun re-measures
    log("final arena against heuristic bots:\n" + result.table())
    row = next(s for s in result.stats if s.name == bot.name)
    return {"policy": path, "win_rate": row.win_rate, "ci": (row.ci_low, row.ci_high)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch

    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    start_run(args.output_dir, args.torch_threads)
    log = run_log(args.output_dir, "train.log", vars(args))
    t0 = time.time()
    # TRY NOT TO MODIFY: seeding. Every stream comes from --seed; SB3 seeds torch.
    env = SB3VecEnv(
        args.num_envs,
        num_players=args.num_players,
        opponents="heuristic",
        opponent_sampling="random",
        seed=stream_seed(args.seed, _PPO_STREAM, bits=64),
        progress_shaping=args.progress_shaping,
    )
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    model = maskable_ppo(
        env,
        args,
        learning_rate=lr_schedule(args.learning_rate, args.learning_rate_final),
        vf_coef=args.vf_coef,
        target_kl=args.target_kl,
        policy_kwargs={"net_arch": args.net_arch, "activation_fn": activation},
        seed=stream_seed(args.seed, _BOT_STREAM, bits=64) % 2**32,
    )
    if args.init_policy is not None:
        from kanaloa_env.bots.policy_file import load_policy
        from kanaloa_env.bots.sb3_export import load_into_maskable_ppo

        load_into_maskable_ppo(load_policy(args.init_policy), model)
        log(f"policy network from {args.init_policy}")
    stage = "behaviour cloning (stage 1)"
    with GracefulStop() as stop:  # Ctrl-C: stop at the next safe point, list what is saved
        behaviour_cloning(model, args, log, stop)
        if not stop.requested:
            log(f"bc done at {time.time() - t0:.0f}s")
            stage = "PPO (stage 2)"
            rows = read_eval(args)
            model = ppo_finetune(model, args, log, rows, stop)
    files = {
        "behaviour cloning checkpoint": "bc.pt",
        "PPO checkpoint": "ppo_last.zip",
        "best PPO checkpoint": "ppo_best.zip",
        "evaluations": "eval.csv",
        "learning curve": "learning_curve.png",
    }
    paths = {k: os.path.join(args.output_dir, f) for k, f in files.items()}
    stop.exit_if_requested(
        {k: (p if os.path.exists(p) else None) for k, p in paths.items()},
        progress=f"in {stage}; the same command resumes the run",
    )
    log(f"ppo done at {time.time() - t0:.0f}s")
    summary = export_and_measure(model, args, log)
    log(f"done in {time.time() - t0:.0f}s: {summary}")
    return summary


if __name__ == "__main__":
    run_script(main)
