"""PPO written straight on the batched engine: a learner seat in thousands of games at
once against the game's heuristic bots, after a warm start that imitates the heuristic.

    nice -n 10 python examples/train_batched_ppo.py --game kahuna --output-dir runs/ppo_kahuna

The loop is written on the engine itself, with no env wrapper: at every step the
learner's and the heuristic's decisions of `--num-games` games are made in one batch
each and the games advance together through the game's compiled kernels
(`step_inplace`, `observe`, the heuristic's batch decision), so the network's forward and
backward passes are most of the cost: about 7,000 learner decisions a second, updates
included, with the defaults on a 2-core machine. Any registered game with a "heuristic"
bot and a `shaping_potential` works. The defaults are the run that made the shipped
Kahuna policy (docs/models.md): 94 min of CPU, 48 min wall on 2 cores. Two stages:

1. **Warm start** (`--bc-games` games of heuristic self-play, `--bc-epochs` epochs,
   minibatches of 1,024, Adam at `--bc-lr` with a cosine schedule): the actor learns
   the heuristic's move by masked cross-entropy, the critic the deciding player's
   return (below) by squared error. The last 5% of the decisions are held out for the
   agreement the log reports.
2. **PPO** (`--timesteps` learner decisions). Every game has one learner seat, drawn
   per game; the other seats play the heuristic, and a finished game is replaced by
   the next deal. The learner samples its masked softmax. A learner transition runs
   from one of its decisions to its next (the opponents' moves in between are the
   environment's). Its reward is the final reward at the decision that ends the game
   (Kahuna K10.1: +1 win, -1 loss, 0 draw) plus potential-based shaping
   `--shaping * (gamma * phi(next) - phi(now))` with the game's `shaping_potential`
   (Kahuna: own minus opponent's stones / 12; 0 once the game is over), which leaves
   the best policy unchanged (Ng, Harada and Russell 1999) and gives a signal long
   before the end of a game of about 60 decisions a player. Advantages by
   GAE(`--gamma`, `--gae-lambda`), cut at the last complete transition of a rollout
   (each game's open transition is completed and trained in the next rollout). Clipped
   policy loss (`--clip`), squared-error critic (`--vf-coef`), entropy bonus
   (`--ent-coef`), Adam at `--lr` falling linearly to a tenth of it, `--epochs` passes
   of `--minibatch` per rollout of `--rollout` transitions, the remaining passes skipped
   once the mean approximate KL of a pass exceeds `--target-kl`, gradients clipped to
   norm 1. Actor and critic are separate networks of the same hidden sizes (ReLU).

Every `--eval-every` learner decisions the greedy actor plays `--eval-games` games
against the heuristic (seat g mod P in game g of its own deal stream) and the run
saves `checkpoint.pt`; the best evaluated actor is kept in `best.pt`. At the end that
actor is exported as `policy.npz`, a weights-only policy file (docs/models.md), and
plays the seat-balanced arena against heuristic bots (`--final-games` games, seed
`--final-seed`), the same as

    python -m kanaloa_env.arena --game kahuna --bots runs/ppo_kahuna/policy.npz heuristic --games 2000 --seed 1

Writes to `--output-dir`: `log.txt`, `checkpoint.pt`, `best.pt`, `eval.csv`,
`learning_curve.png`, `policy.npz` and `arena/`.

Ctrl-C stops at the next safe point (the rollout under way is dropped), saves
`checkpoint.pt` (after the warm start), exports the best actor so far and exits with
status 130; the same command resumes from the checkpoint (an interrupted warm start is
redone). Determinism: the deals, learner seats, sampling and torch are seeded from
`--seed` and the engine and bots are deterministic, so an uninterrupted run repeats
on the same machine and torch build with the same `--torch-threads` (float sums in
torch's threaded kernels may differ elsewhere); a resumed run draws new deals, so it
differs from an uninterrupted one.

A smoke run (a few seconds): `python examples/train_batched_ppo.py --bc-games 64
--bc-epochs 1 --timesteps 20000 --rollout 8192 --num-games 128 --eval-every 10000
--eval-games 50 --final-games 20 --output-dir /tmp/ppo_smoke`.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
from numba import njit

from kanaloa_env.training import GracefulStop, ppo, run_script
from kanaloa_env.training.cli import parse_game, parse_layer_sizes, require, script_parser
from kanaloa_env.training.records import plot_win_rates, run_log, write_csv

# Streams of the stages, mixed with --seed into the deal seeds.
_BC_STREAM, _PPO_STREAM, _EVAL_STREAM = 11, 12, 13

FIELDS = ["timesteps", "heuristic_win_rate", "heuristic_ci_low", "heuristic_ci_high", "cpu_s"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = script_parser(
        __doc__,
        epilog="The module docstring (python -m pydoc examples/train_batched_ppo.py) has "
        "the details.",
        raw=True,
    )
    seed_help = "seed of every stream"
    ppo.add_run_options(
        p, game_help="a registered game", output_dir="runs/ppo_kahuna", seed_help=seed_help
    )
    p.add_argument("--torch-threads", type=int, default=2, help="torch threads")
    p.add_argument("--bc-games", type=int, default=16384, help="warm-start games (0: none)")
    p.add_argument(
        "--init-policy",
        default=None,
        help="start the actor from this policy file (ReLU, its layer sizes replace --hidden; "
        "no warm start)",
    )
    p.add_argument("--bc-epochs", type=int, default=4, help="warm-start epochs")
    p.add_argument("--bc-lr", type=float, default=1e-3, help="warm-start learning rate")
    p.add_argument("--timesteps", type=int, default=20_000_000, help="learner decisions")
    p.add_argument("--num-games", type=int, default=1024, help="games played at once")
    p.add_argument("--rollout", type=int, default=65536, help="transitions per update")
    ppo.add_ppo_options(p, minibatch=2048)
    p.add_argument("--shaping", type=float, default=1.0, help="shaping weight (0: none)")
    p.add_argument(
        "--eval-every", type=int, default=1_000_000, help="learner decisions between evaluations"
    )
    p.add_argument("--eval-games", type=int, default=1000, help="games per evaluation")
    p.add_argument("--final-games", type=int, default=2000, help="arena games (0: none)")
    p.add_argument("--final-seed", type=int, default=1, help="seed of the final arena")
    args = p.parse_args(argv)
    args.hidden = parse_layer_sizes(p, args.hidden, "--hidden")
    at_least_1 = ("torch_threads", "num_games", "rollout", "minibatch", "epochs", "bc_epochs")
    require(
        p, args, (*at_least_1, "eval_every", "eval_games"), lambda v: v >= 1, "must be at least 1"
    )
    counts = ("bc_games", "timesteps", "final_games", "critic_warmup")
    require(p, args, counts, lambda v: v >= 0, "must be 0 or more")
    if not 0 < args.gamma <= 1 or not 0 <= args.gae_lambda <= 1:
        p.error("--gamma must be in (0, 1] and --gae-lambda in [0, 1]")
    require(p, args, ("lr", "bc_lr", "clip", "target_kl"), lambda v: v > 0, "must be above 0")

    game = parse_game(p, args.game)
    if args.num_players is not None and args.num_players not in game.player_counts:
        p.error(f"--num-players: {game.title} is played by {game.player_counts_text()}")
    if "heuristic" not in game.bot_factories():
        p.error(f"--game: {game.title} has no heuristic bot to train against")
    if args.init_policy is not None:
        from kanaloa_env.bots.policy_file import load_policy

        try:
            weights = load_policy(args.init_policy)
        except ValueError as exc:
            p.error(f"--init-policy: {exc}")
        if weights.metadata["game"] != game.name or weights.activation != "relu":
            p.error(
                f"--init-policy: a ReLU policy file of {game.title} is needed, "
                f"{args.init_policy} is a {weights.activation} file of {weights.metadata['game']}"
            )
        args.hidden = weights.hidden_sizes
        args.bc_games = 0
    return args


@njit(cache=True)
def shaped_returns(key, phi, final, gamma, shaping):  # pragma: no cover (compiled)
    """(D,) shaped discounted returns of the decisions of a batch of whole games.

    key: (D,) int64 `game * P + seat` of each decision, in the order played; phi: (D,)
    float64 the deciding player's potential; final: (games * P,) float64 each
    player's final reward. A decision's reward is `shaping * (gamma * phi(the player's
    next decision) - phi(now))`, at the player's last decision the final reward less
    `shaping * phi(now)` (the potential is 0 once the game is over)."""
    out = np.zeros(len(key), np.float64)
    next_g = np.zeros(len(final), np.float64)
    next_phi = np.zeros(len(final), np.float64)
    seen = np.zeros(len(final), np.bool_)
    for d in range(len(key) - 1, -1, -1):
        k = key[d]
        if seen[k]:
            g = shaping * (gamma * next_phi[k] - phi[d]) + gamma * next_g[k]
        else:
            seen[k] = True
            g = final[k] - shaping * phi[d]
        out[d] = g
        next_g[k] = g
        next_phi[k] = phi[d]
    return out


@njit(cache=True)
def gae(rew, val, next_val, done, succ, complete, gamma, lam):  # pragma: no cover (compiled)
    """(N,) float32 GAE advantages of a rollout's transitions (0 where not complete).

    A transition's successor (`succ`, -1: none in the buffer, or the game ended, `done`)
    always lies later in the buffer, so one backward pass suffices; a chain is cut where
    the successor is not complete yet (its reward is not known)."""
    adv = np.zeros(len(rew), np.float32)
    for j in range(len(rew) - 1, -1, -1):
        if not complete[j]:
            continue
        a = rew[j] + (0.0 if done[j] else gamma * next_val[j]) - val[j]
        s = succ[j]
        if s >= 0 and complete[s]:
            a += gamma * lam * adv[s]
        adv[j] = a
    return adv


def self_play(game: Any, num_players: int, seed: int, num_games: int, args: Any) -> dict:
    """Heuristic self-play of games 0.. `num_games` - 1 of deal stream `seed`, recorded.

    Returns, over the D decisions (rows of the batch in order, finished games dropped):
    obs (D, obs_dim) float32 observations of the player to act; masks (D, A) bool legal
    actions; actions (D,) int64 the heuristic's moves; returns (D,) float32 the deciding
    player's shaped discounted return (`shaped_returns`, `args.gamma`, `args.shaping`)."""
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.core.rng import game_keys

    cfg = game.make_config(None, num_players)
    state = game.init_from_keys(cfg, game_keys(seed, np.arange(num_games)))
    heuristic = make_bot("heuristic", game)
    rng = np.random.default_rng(0)  # unused by a deterministic heuristic
    pos = np.arange(num_games)
    final = np.zeros((num_games, num_players), dtype=np.float64)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "masks", "actions", "key", "phi")}
    while len(pos):
        seats = state.current_player.astype(np.int64)
        obs = game.observe(state)
        acts = bot_actions(heuristic, game, state, rng, observations=obs)
        parts["obs"].append(obs)
        parts["masks"].append(state.legal.copy())
        parts["actions"].append(acts)
        parts["key"].append(pos * num_players + seats)
        parts["phi"].append(game.shaping_potential(state, seats))
        game.step_inplace(state, acts)
        final[pos] += state.rewards
        live = state.current_player >= 0
        if not live.all():
            state = state.take(np.flatnonzero(live))
            pos = pos[live]
    data = {k: np.concatenate(v) for k, v in parts.items()}
    ret = shaped_returns(
        data.pop("key"),
        data.pop("phi").astype(np.float64),
        final.reshape(-1),
        float(args.gamma),
        float(args.shaping),
    )
    data["returns"] = ret.astype(np.float32)
    return data


class Rollouts:
    """`args.num_games` games played at once, one learner seat each and heuristic bots
    in the others; a finished game is replaced by the next deal of stream `seed`.

    `collect` plays until the buffer holds `args.rollout` learner transitions; `batch`
    gives the complete ones with their advantages. Buffer fields, per transition:
    `act`, `logp` (of the sampled action), `val` (critic), `phi` (potential), `rew`,
    `next_val`, `done`, `succ` (index of the player's next transition, -1 none) and
    `complete` (reward known); `obs` and `mask` alongside. `pending[i]` is game i's open
    transition (its learner's last decision, whose reward comes with the next one)."""

    def __init__(self, game: Any, num_players: int, args: Any, seed: int, rng: Any) -> None:
        from kanaloa_env.bots import make_bot
        from kanaloa_env.core.rng import game_keys

        self.game, self.args, self.seed, self.rng = game, args, seed, rng
        self.game_keys = game_keys
        n = args.num_games
        self.num_players = num_players
        self.state = game.init_from_keys(
            game.make_config(None, num_players), game_keys(seed, np.arange(n))
        )
        self.next_game = n
        self.seat = rng.integers(0, num_players, n)
        self.heuristic = make_bot("heuristic", game)
        self.bot_rng = np.random.default_rng(0)  # unused by a deterministic heuristic
        cap = args.rollout + 2 * n  # the carried open transitions and one more step
        self.obs = np.zeros((cap, game.obs_dim), np.float32)
        self.mask = np.zeros((cap, game.num_actions), bool)
        self.buf = {
            "act": np.zeros(cap, np.int64),
            "logp": np.zeros(cap, np.float32),
            "val": np.zeros(cap, np.float32),
            "phi": np.zeros(cap, np.float32),
            "rew": np.zeros(cap, np.float32),
            "next_val": np.zeros(cap, np.float32),
            "done": np.zeros(cap, bool),
            "succ": np.full(cap, -1, np.int64),
            "complete": np.zeros(cap, bool),
        }
        self.pending = np.full(n, -1, np.int64)
        self.size = 0
        self.results: list[float] = []  # the learner's final rewards, game by game

    def _carry_pending(self) -> None:
        """Move the open transitions (one per game at most) to the front of the buffer."""
        has = np.flatnonzero(self.pending >= 0)
        src, dst = self.pending[has], np.arange(len(has))
        self.obs[dst] = self.obs[src]
        self.mask[dst] = self.mask[src]
        for v in self.buf.values():
            v[dst] = v[src]
        self.pending[has] = dst
        self.size = len(has)

    def _close(self, idx: np.ndarray, rew: np.ndarray, next_val: Any, succ: Any) -> None:
        b = self.buf
        b["rew"][idx] = rew
        b["next_val"][idx] = next_val
        b["done"][idx] = succ is None
        b["succ"][idx] = -1 if succ is None else succ
        b["complete"][idx] = True

    def collect(self, actor: Any, critic: Any, gen: Any, stop: GracefulStop) -> None:
        """Play until the buffer holds `args.rollout` transitions (or Ctrl-C)."""
        import torch

        self._carry_pending()
        game, args, b = self.game, self.args, self.buf
        acts = np.zeros(args.num_games, np.int64)
        while self.size < args.rollout and not stop.requested:
            state = self.state
            obs = game.observe(state)
            learner = state.current_player == self.seat
            lr, op = np.flatnonzero(learner), np.flatnonzero(~learner)
            if len(op):
                acts[op] = self._heuristic(op, obs[op])
            if len(lr):
                o, m = torch.from_numpy(obs[lr]), torch.from_numpy(state.legal[lr])
                a, logp = ppo.sample_actions(actor, o, m, gen)
                with torch.no_grad():
                    v = critic(o)[:, 0]
                acts[lr] = a.numpy()
                phi = game.shaping_potential(state, self.seat)[lr]
                j = self.size + np.arange(len(lr))
                self.obs[j], self.mask[j] = obs[lr], state.legal[lr]
                b["act"][j], b["logp"][j], b["val"][j] = a.numpy(), logp.numpy(), v.numpy()
                b["phi"][j] = phi
                b["succ"][j], b["complete"][j] = -1, False
                prev = self.pending[lr]
                has = prev >= 0
                p = prev[has]
                rew = args.shaping * (args.gamma * phi[has] - b["phi"][p])
                self._close(p, rew, b["val"][j[has]], j[has])
                self.pending[lr] = j
                self.size += len(lr)
            game.step_inplace(state, acts)
            ended = np.flatnonzero(state.current_player < 0)
            if len(ended):
                reward = state.rewards[ended, self.seat[ended]]
                p = self.pending[ended]
                has = p >= 0
                p = p[has]
                self._close(p, reward[has] - args.shaping * b["phi"][p], 0.0, None)
                self.pending[ended] = -1
                self.results.extend(reward.tolist())
                keys = self.game_keys(self.seed, self.next_game + np.arange(len(ended)))
                self.next_game += len(ended)
                game.reset_games(state, ended, keys)
                self.seat[ended] = self.rng.integers(0, self.num_players, len(ended))

    def _heuristic(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        from kanaloa_env.bots.call import bot_actions

        return bot_actions(
            self.heuristic, self.game, self.state, self.bot_rng, rows=rows, observations=obs
        )

    def batch(self) -> dict[str, np.ndarray]:
        """The complete transitions: obs, mask, act, logp, adv (GAE) and ret (adv + val)."""
        b, k = self.buf, self.size
        adv = gae(
            b["rew"][:k],
            b["val"][:k],
            b["next_val"][:k],
            b["done"][:k],
            b["succ"][:k],
            b["complete"][:k],
            np.float32(self.args.gamma),
            np.float32(self.args.gae_lambda),
        )
        idx = np.flatnonzero(b["complete"][:k])
        return {
            "obs": self.obs[idx],
            "mask": self.mask[idx],
            "act": b["act"][idx],
            "logp": b["logp"][idx],
            "adv": adv[idx],
            "ret": adv[idx] + b["val"][idx],
        }


def evaluate_greedy(actor: Any, game: Any, num_players: int, games: int, seed: int) -> float:
    """Win rate of the greedy actor against heuristic bots in games 0.. `games` - 1 of
    deal stream `seed`, the learner in seat g mod P of game g."""
    import torch

    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.core.rng import game_keys

    cfg = game.make_config(None, num_players)
    state = game.init_from_keys(cfg, game_keys(seed, np.arange(games)))
    seat = np.arange(games) % num_players
    heuristic = make_bot("heuristic", game)
    rng = np.random.default_rng(0)
    final = np.zeros(games)
    pos = np.arange(games)
    while len(pos):
        obs = game.observe(state)
        learner = state.current_player == seat[pos]
        lr, op = np.flatnonzero(learner), np.flatnonzero(~learner)
        acts = np.zeros(len(pos), np.int64)
        if len(op):
            acts[op] = bot_actions(heuristic, game, state, rng, rows=op, observations=obs[op])
        if len(lr):
            with torch.no_grad():
                logits = actor(torch.from_numpy(obs[lr]))
            legal = torch.from_numpy(state.legal[lr])
            acts[lr] = logits.masked_fill(~legal, -torch.inf).argmax(1).numpy()
        game.step_inplace(state, acts)
        final[pos] += state.rewards[np.arange(len(pos)), seat[pos]]
        live = state.current_player >= 0
        if not live.all():
            state = state.take(np.flatnonzero(live))
            pos = pos[live]
    return float((final > 0).mean())


def warm_start(
    actor: Any, critic: Any, game: Any, num_players: int, args: Any, log: Any, stop: Any
) -> None:
    """Stage 1: the actor imitates the heuristic, the critic fits its shaped returns."""
    import torch

    t0 = time.time()
    data = self_play(game, num_players, ppo.stream_seed(args.seed, _BC_STREAM), args.bc_games, args)
    log(f"warm start: {len(data['actions']):,} heuristic decisions in {time.time() - t0:.0f}s")
    obs, masks = torch.from_numpy(data["obs"]), torch.from_numpy(data["masks"])
    acts, rets = torch.from_numpy(data["actions"]), torch.from_numpy(data["returns"])
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.bc_lr)
    n = len(acts)
    held = n // 20  # the last games' decisions
    steps = args.bc_epochs * -(-(n - held) // 1024)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, steps))
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.bc_epochs):
        order = torch.randperm(n - held, generator=gen)
        for lo in range(0, n - held, 1024):
            if stop.requested:
                return
            i = order[lo : lo + 1024]
            logits = actor(obs[i]).masked_fill(~masks[i], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, acts[i])
            loss = loss + ((critic(obs[i])[:, 0] - rets[i]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            h = slice(n - held, n)
            pick = actor(obs[h]).masked_fill(~masks[h], -torch.inf).argmax(1)
            agree = (pick == acts[h]).float().mean().item()
            vf = ((critic(obs[h])[:, 0] - rets[h]) ** 2).mean().item()
        log(
            f"warm start epoch {epoch + 1}: held-out agreement {agree:.3f}, "
            f"value mse {vf:.4f}, {time.time() - t0:.0f}s"
        )


def method_text(args: argparse.Namespace) -> str:
    """How the run's actor started, in words (the policy file's `training.method`)."""
    if args.init_policy:
        start = f"the actor of {os.path.basename(args.init_policy)}"
    elif args.bc_games:
        start = "a warm start imitating the heuristic"
    else:
        start = "random weights (no imitation)"
    return f"PPO against heuristic bots from {start}"


def export(args: argparse.Namespace, actor: Any, game: Any, players: int, steps: int) -> str:
    """The actor as a weights-only policy file, `policy.npz`; its path."""
    training = {
        "recipe": "examples/train_batched_ppo.py",
        "command": ppo.command_line("examples/train_batched_ppo.py"),
        "seed": args.seed,
        "timesteps": steps,
        "method": method_text(args),
    }
    path = os.path.join(args.output_dir, "policy.npz")
    return ppo.save_actor_policy(path, actor, players, args.hidden, training, game)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch

    from kanaloa_env.evaluation.stats import wilson_interval
    from kanaloa_env.games import get_game

    game = get_game(args.game)
    players = args.num_players or game.default_num_players
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    log = run_log(args.output_dir, "log.txt", vars(args))
    actor, critic = ppo.make_nets(game.obs_dim, game.num_actions, args.hidden)
    if args.init_policy:
        from kanaloa_env.bots.policy_file import load_policy

        linear = [m for m in actor if hasattr(m, "weight")]
        with torch.no_grad():
            for lin, (w, b) in zip(linear, load_policy(args.init_policy).layers, strict=True):
                lin.weight.copy_(torch.from_numpy(w))
                lin.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.lr, eps=1e-5)
    ckpt, best_path = (os.path.join(args.output_dir, f) for f in ("checkpoint.pt", "best.pt"))
    eval_seed = ppo.stream_seed(args.seed, _EVAL_STREAM)
    title = f"{game.title}: PPO on the batched engine"
    cpu0, t0 = time.process_time(), time.time()
    rows: list[dict[str, Any]] = []
    steps, best = 0, -1.0

    def evaluation() -> None:
        nonlocal best
        wins = evaluate_greedy(actor, game, players, args.eval_games, eval_seed)
        lo, hi = wilson_interval(int(round(wins * args.eval_games)), args.eval_games)
        cpu = time.process_time() - cpu0
        rows.append(dict(zip(FIELDS, [steps, wins, lo, hi, round(cpu, 1)], strict=True)))
        log(
            f"evaluation at {steps:,} steps: {wins:.3f} [{lo:.3f}, {hi:.3f}] against the "
            f"heuristic ({args.eval_games} games); {cpu:.0f} s CPU, {time.time() - t0:.0f} s wall"
        )
        write_csv(os.path.join(args.output_dir, "eval.csv"), rows, FIELDS)
        plot_win_rates(rows, players, os.path.join(args.output_dir, "learning_curve.png"), title)
        if wins > best:
            best = wins
            ppo.save_checkpoint(best_path, actor=actor.state_dict(), steps=steps, win_rate=wins)

    def checkpoint() -> None:
        counters = {"steps": steps, "best": best, "rows": rows, "cpu": time.process_time() - cpu0}
        ppo.save_training(ckpt, actor, critic, opt, **counters)

    with GracefulStop() as stop:
        if os.path.exists(ckpt):
            saved = ppo.load_checkpoint(ckpt, actor, critic, opt)
            steps, best, rows = int(saved["steps"]), float(saved["best"]), list(saved["rows"])
            cpu0 -= float(saved["cpu"])
            log(f"resumed from {ckpt} at {steps:,} steps")
        else:
            if args.bc_games:
                warm_start(actor, critic, game, players, args, log, stop)
            if not stop.requested:
                evaluation()
                checkpoint()
        # A resumed run continues with streams of its own (new deals, not a repeat).
        gen = torch.Generator().manual_seed(args.seed + 1 + 7919 * steps)
        rng = np.random.default_rng([args.seed, _PPO_STREAM, *([steps] if steps else [])])
        roll = Rollouts(game, players, args, ppo.stream_seed(args.seed + steps, _PPO_STREAM), rng)
        next_eval = (steps // args.eval_every + 1) * args.eval_every
        while steps < args.timesteps and not stop.requested:
            for g in opt.param_groups:
                g["lr"] = args.lr * (1 - 0.9 * steps / args.timesteps)
            tc = time.time()
            roll.collect(actor, critic, gen, stop)
            if stop.requested:
                break
            data = roll.batch()
            tu = time.time()
            st = ppo.ppo_update(
                actor, critic, opt, data, args, gen, critic_only=steps < args.critic_warmup
            )
            steps += len(data["act"])
            res = np.array(roll.results[-2000:])
            log(
                f"{steps:,} steps: sampled play won {np.mean(res > 0):.3f} of the last "
                f"{len(res)} games; collect {tu - tc:.1f}s, update {time.time() - tu:.1f}s; "
                + ", ".join(f"{k} {v:.4f}" for k, v in st.items())
            )
            if steps >= next_eval or steps >= args.timesteps:
                next_eval += args.eval_every
                evaluation()
                checkpoint()
        if stop.requested and rows:
            checkpoint()
    policy = None
    if os.path.exists(best_path):
        saved_best = torch.load(best_path, weights_only=True)
        actor.load_state_dict(saved_best["actor"])
        policy = export(args, actor, game, players, int(saved_best["steps"]))
        log(f"exported the actor of step {int(saved_best['steps']):,} ({best:.3f}) to {policy}")
    stop.exit_if_requested(
        {
            "checkpoint (the same command resumes)": ckpt if rows else None,
            "policy file": policy,
            "evaluations": os.path.join(args.output_dir, "eval.csv") if rows else None,
        },
        progress=f"after {steps:,} of {args.timesteps:,} steps",
    )
    summary: dict[str, Any] = {"policy": policy, "timesteps": steps, "best_eval": best}
    if args.final_games and policy:
        from kanaloa_env.arena import run_tournament
        from kanaloa_env.bots.policy_bot import PolicyBot

        bot = PolicyBot.load(policy)
        result = run_tournament(
            [bot] + ["heuristic"] * (players - 1),
            num_players=players,
            num_games=args.final_games,
            seed=args.final_seed,
            game=game,
        )
        result.write(os.path.join(args.output_dir, "arena"), overwrite=True)
        stats = next(s for s in result.stats if s.name == bot.name)
        log(f"arena, {args.final_games} games against the heuristic:\n{result.table()}")
        summary["arena"] = [stats.win_rate, stats.ci_low, stats.ci_high]
    cpu, wall = time.process_time() - cpu0, time.time() - t0
    log(f"done in {cpu:.0f} s of CPU, {wall:.0f} s wall")
    summary.update(cpu_s=round(cpu, 1), wall_s=round(wall, 1))
    return summary


if __name__ == "__main__":
    run_script(main)
