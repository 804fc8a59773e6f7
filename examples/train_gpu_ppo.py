"""PPO that never leaves the GPU: the games, the opponents, the rollouts and the updates
all on one CUDA device.

    python examples/train_gpu_ppo.py --game kahuna --output-dir runs/gpu_ppo_kahuna

The games are a `GpuVectorEnv` (kanaloa_env/wrappers/gpu_vector.py): `--num-envs`
games, one learner seat each, the other seats played on the device by `--opponents`
("random": inside the rule kernels; "self": a copy of the learner's actor, refreshed
every `--self-play-every` updates, played as a torch policy; "heuristic" on the device
(`Game.gpu_bot`); any other bot spec, e.g. "net", is played on the CPU through a copy
of the batch, which is correct but slow). The observations reach the networks without a copy (CUDA array interface);
the actions go back the same way. A rollout is `--rollout-steps` steps of every game
(`--num-envs * --rollout-steps` learner decisions) kept in device tensors; advantages
by GAE(`--gamma`, `--gae-lambda`) over each game's own decisions, a game's end
(won, lost or truncated) ending its chain; the update is train_batched_ppo.py's,
`kanaloa_env.training.ppo.ppo_update` (clipped policy loss, squared-error critic,
entropy bonus, `--epochs` passes of `--minibatch`, early stop at `--target-kl`,
gradients clipped to norm 1, Adam at `--lr` falling linearly to a tenth), on the same
networks (`make_nets`).

With `--clone-decisions N` the actor first imitates the game's heuristic for N
learner decisions (on the GPU; the CPU recipe's warm start,
train_batched_ppo.py's `--bc-games`), and `--critic-warmup M` trains only the critic
for the first M decisions of PPO. The Kahuna recipe of the shipped file, on the GPU:

    python examples/train_gpu_ppo.py --game kahuna --opponents heuristic \
        --clone-decisions 2000000 --critic-warmup 1000000 --timesteps 20000000

Every `--eval-every` learner decisions the greedy actor plays `--eval-games` games
against the opponents (slot i's first game of its own stream, the learner in seat
i mod P) and the run saves `checkpoint.pt`; the best evaluated actor is kept in
`best.pt` and exported at the end as `policy.npz`, a weights-only policy file
(docs/models.md) that the arena and `make_bot` read.

Ctrl-C stops at the next safe point (between updates), saves `checkpoint.pt`, exports
the best actor so far and exits with status 130; the same command resumes from the
checkpoint. The log (`log.txt`) gives each update's learner decisions a second,
rollout and update included (what benchmarks/bench_gpu.py reports).

It needs a CUDA GPU with numba-cuda (`pip install -e ".[gpu]"`) and a CUDA build of
PyTorch, and refuses to start without them. The tests run it on the CPU under
numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1, torch on the CPU)
on a few games.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from kanaloa_env.training import GracefulStop, file_log, ppo, run_script
from kanaloa_env.training.cli import parse_game, parse_layer_sizes, require, script_parser
from kanaloa_env.training.gpu_ppo import Rollout, greedy_win_rate, torch_device

_TRAIN_STREAM, _EVAL_STREAM, _CLONE_STREAM = 21, 22, 23


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(__doc__)
    game_help = "a registered game with a GPU engine"
    seed_help = "seed of the game streams and torch"
    ppo.add_run_options(p, game_help=game_help, output_dir="runs/gpu_ppo", seed_help=seed_help)
    p.add_argument("--opponents", default="random", help="'random', 'self' or a bot spec")
    p.add_argument(
        "--self-play-every", type=int, default=10, help="updates between copies (--opponents self)"
    )
    p.add_argument("--timesteps", type=int, default=20_000_000, help="learner decisions")
    p.add_argument("--num-envs", type=int, default=8192, help="games played at once")
    p.add_argument("--rollout-steps", type=int, default=16, help="steps of every game a rollout")
    ppo.add_ppo_options(p, minibatch=16384)
    p.add_argument("--eval-every", type=int, default=2_000_000, help="decisions between evals")
    p.add_argument("--eval-games", type=int, default=4096, help="games per evaluation")
    p.add_argument(
        "--clone-decisions",
        type=int,
        default=0,
        help="warm start: learner decisions of the game's GPU heuristic to imitate first (0: none)",
    )
    p.add_argument("--clone-epochs", type=int, default=4, help="warm-start passes")
    p.add_argument("--clone-lr", type=float, default=1e-3, help="warm-start learning rate")
    args = p.parse_args(argv)
    args.hidden = parse_layer_sizes(p, args.hidden, "--hidden")
    sizes = ("num_envs", "rollout_steps", "minibatch", "epochs", "eval_every", "eval_games")
    require(p, args, sizes, lambda v: v >= 1, "must be at least 1")
    if args.timesteps < 0 or args.self_play_every < 1:
        p.error("--timesteps must be 0 or more and --self-play-every at least 1")
    if args.clone_decisions < 0 or args.critic_warmup < 0 or args.clone_epochs < 1:
        p.error("--clone-decisions and --critic-warmup must be 0 or more, --clone-epochs 1 or more")
    if not args.clone_lr > 0:
        p.error("--clone-lr must be above 0")
    if not 0 < args.gamma <= 1 or not 0 <= args.gae_lambda <= 1:
        p.error("--gamma must be in (0, 1] and --gae-lambda in [0, 1]")
    require(p, args, ("lr", "clip", "target_kl"), lambda v: v > 0, "must be above 0")

    game = parse_game(p, args.game)
    if not game.provides("gpu_engine"):
        p.error(f"--game: {game.title} has no GPU engine")
    if args.num_players is not None and args.num_players not in game.player_counts:
        p.error(f"--num-players: {game.title} is played by {game.player_counts_text()}")
    if args.clone_decisions and "heuristic" not in game.bot_factories():
        p.error(f"--clone-decisions: {game.title} has no heuristic bot to imitate")
    return args


def warm_start(
    actor: Any,
    game: Any,
    args: argparse.Namespace,
    opponents: Any,
    device: Any,
    log: Any,
    stop: Any,
) -> None:
    """Stage 1 (`--clone-decisions`): the learner seat plays the game's heuristic against
    the run's opponents for that many decisions (games of the warm-start stream) and the
    actor learns to pick its moves (masked cross-entropy, `--clone-epochs` passes of
    `--minibatch`, Adam at `--clone-lr` with a cosine schedule; the last 5% held out)."""
    import torch

    from kanaloa_env.bots import make_bot
    from kanaloa_env.core import gpu
    from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv, bot_player

    t0 = time.perf_counter()
    env = GpuVectorEnv(
        args.num_envs,
        game=game,
        num_players=args.num_players,
        opponents=opponents,
        seed=ppo.stream_seed(args.seed, _CLONE_STREAM),
        validate=False,
    )
    N = env.num_envs
    T = -(-args.clone_decisions // N)
    obs = env.reset()
    store_obs = torch.empty((T * N, env.engine.obs_dim), dtype=torch.float32, device=device)
    store_mask = torch.empty((T * N, env.engine.num_actions), dtype=torch.bool, device=device)
    store_act = torch.empty(T * N, dtype=torch.int64, device=device)
    # The game's heuristic, on the device where the game gives it a GPU form.
    teacher = bot_player(game, make_bot("heuristic", game=game), np.random.default_rng(args.seed))
    cuda = gpu.cuda_module()
    everywhere = cuda.to_device(np.ones(N, bool))
    out = cuda.to_device(np.zeros(N, np.int64))
    for t in range(T):
        a = gpu.as_torch(teacher.actions(env.state, everywhere, out))
        rows = slice(t * N, (t + 1) * N)
        store_obs[rows].copy_(obs)
        store_mask[rows].copy_(env.action_masks())
        store_act[rows].copy_(a)
        obs, _, _, _ = env.step(a)
    n = T * N
    log(f"warm start: {n:,} heuristic decisions played in {time.perf_counter() - t0:.1f}s")
    held = max(n // 20, 1)
    fit = n - held
    opt = torch.optim.Adam(actor.parameters(), lr=args.clone_lr)
    total = args.clone_epochs * -(-fit // args.minibatch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, total))
    gen = torch.Generator().manual_seed(args.seed + 3)
    for epoch in range(args.clone_epochs):
        order = torch.randperm(fit, generator=gen).to(device)
        for lo in range(0, fit, args.minibatch):
            if stop.requested:
                return
            i = order[lo : lo + args.minibatch]
            logits = actor(store_obs[i]).masked_fill(~store_mask[i], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, store_act[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            h = slice(fit, n)
            pick = actor(store_obs[h]).masked_fill(~store_mask[h], -torch.inf).argmax(1)
            agree = (pick == store_act[h]).float().mean().item()
        log(
            f"warm start epoch {epoch + 1}: held-out agreement {agree:.3f}, "
            f"{time.perf_counter() - t0:.1f}s"
        )


def evaluate(actor: Any, args: argparse.Namespace, opponents: Any, device: Any) -> float:
    """Win rate of the greedy actor in the first game of each of `--eval-games` slots of
    the evaluation stream, against `opponents`."""
    from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

    env = GpuVectorEnv(
        args.eval_games,
        game=args.game,
        num_players=args.num_players,
        opponents=opponents,
        seed=ppo.stream_seed(args.seed, _EVAL_STREAM),
        validate=False,
    )
    return greedy_win_rate(actor, env)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    device = torch_device("train_gpu_ppo.py")
    import copy

    import torch

    from kanaloa_env.games import get_game
    from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

    game = get_game(args.game)
    torch.manual_seed(args.seed)
    os.makedirs(args.output_dir, exist_ok=True)
    log = file_log(os.path.join(args.output_dir, "log.txt"))
    log(f"args: {json.dumps(vars(args))}; torch on {device}")
    actor, critic = (
        net.to(device) for net in ppo.make_nets(game.obs_dim, game.num_actions, args.hidden)
    )
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.lr, eps=1e-5)
    ckpt, best_path = (os.path.join(args.output_dir, f) for f in ("checkpoint.pt", "best.pt"))
    steps, updates, best, evals = 0, 0, -1.0, []
    t0 = time.time()

    self_copy = None
    opponents: Any = args.opponents
    if args.opponents == "self":
        self_copy = copy.deepcopy(actor).requires_grad_(False)
        opp_gen = torch.Generator(device=device).manual_seed(args.seed + 17)

        def opponents(obs: Any, mask: Any) -> Any:
            return ppo.sample_actions(self_copy, obs, mask, opp_gen)[0]

    def checkpoint() -> None:
        counters = {"steps": steps, "updates": updates, "best": best, "evals": evals}
        ppo.save_training(ckpt, actor, critic, opt, **counters)

    def evaluation() -> None:
        nonlocal best
        rate = evaluate(actor, args, opponents, device)
        evals.append([steps, rate])
        log(f"evaluation at {steps:,} decisions: greedy won {rate:.3f} of {args.eval_games}")
        if rate > best:
            best = rate
            ppo.save_checkpoint(best_path, actor=actor.state_dict(), steps=steps, win_rate=rate)

    with GracefulStop() as stop:
        if os.path.exists(ckpt):
            saved = ppo.load_checkpoint(ckpt, actor, critic, opt, device)
            steps, updates = int(saved["steps"]), int(saved["updates"])
            best, evals = float(saved["best"]), [list(e) for e in saved["evals"]]
            log(f"resumed from {ckpt} at {steps:,} decisions")
        elif args.clone_decisions:
            warm_start(actor, game, args, opponents, device, log, stop)
        if self_copy is not None:
            self_copy.load_state_dict(actor.state_dict())
        # A resumed run plays a stream of its own (new deals, not a repeat).
        env = GpuVectorEnv(
            args.num_envs,
            game=game,
            num_players=args.num_players,
            opponents=opponents,
            seed=ppo.stream_seed(args.seed + steps, _TRAIN_STREAM),
            validate=False,
        )
        gen = torch.Generator(device=device).manual_seed(args.seed + 1 + 7919 * steps)
        cpu_gen = torch.Generator().manual_seed(args.seed + 2 + 7919 * steps)
        roll = Rollout(env, args.rollout_steps, device)
        obs = env.reset()
        next_eval = (steps // args.eval_every + 1) * args.eval_every
        while steps < args.timesteps and not stop.requested:
            for g in opt.param_groups:
                g["lr"] = args.lr * (1 - 0.9 * steps / max(args.timesteps, 1))
            tc = time.perf_counter()
            obs = roll.collect(actor, critic, obs, gen)
            data = roll.batch(critic, obs, args.gamma, args.gae_lambda)
            tu = time.perf_counter()
            st = ppo.ppo_update(
                actor, critic, opt, data, args, cpu_gen, critic_only=steps < args.critic_warmup
            )
            if device.type == "cuda":
                torch.cuda.synchronize()
            te = time.perf_counter()
            n = len(data["act"])
            steps += n
            updates += 1
            won = roll.won[-4096:]
            roll.won = won
            log(
                f"{steps:,} decisions: {n / (te - tc):,.0f} learner decisions/s "
                f"(rollout {tu - tc:.2f}s, update {te - tu:.2f}s); sampled play won "
                f"{np.mean(won) if won else float('nan'):.3f} of the last {len(won)} games; "
                + ", ".join(f"{k} {v:.4f}" for k, v in st.items())
            )
            if self_copy is not None and updates % args.self_play_every == 0:
                self_copy.load_state_dict(actor.state_dict())
            if steps >= next_eval or steps >= args.timesteps:
                next_eval += args.eval_every
                evaluation()
                checkpoint()
        if stop.requested and updates:
            checkpoint()
    policy = (
        export(args, actor, game, env.num_players, best_path) if os.path.exists(best_path) else None
    )
    stop.exit_if_requested(
        {
            "checkpoint (the same command resumes)": ckpt if updates else None,
            "policy file": policy,
        },
        progress=f"after {steps:,} of {args.timesteps:,} decisions",
    )
    wall = time.time() - t0
    log(f"done: {steps:,} decisions in {wall:.0f} s wall; best evaluation {best:.3f}")
    return {"policy": policy, "timesteps": steps, "best_eval": best, "wall_s": round(wall, 1)}


def export(args: argparse.Namespace, actor: Any, game: Any, players: int, best_path: str) -> str:
    """The best evaluated actor as a weights-only policy file, `policy.npz`; its path."""
    import copy

    import torch

    saved = torch.load(best_path, weights_only=True, map_location="cpu")
    best = copy.deepcopy(actor).to("cpu")
    best.load_state_dict(saved["actor"])
    training = {
        "recipe": "examples/train_gpu_ppo.py",
        "command": ppo.command_line("examples/train_gpu_ppo.py"),
        "seed": args.seed,
        "timesteps": int(saved["steps"]),
        "method": ("a warm start imitating the heuristic, then " if args.clone_decisions else "")
        + f"PPO on the GPU against {args.opponents} opponents",
    }
    path = os.path.join(args.output_dir, "policy.npz")
    return ppo.save_actor_policy(path, best, players, args.hidden, training, game)


if __name__ == "__main__":
    run_script(main)
