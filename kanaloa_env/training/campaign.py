"""Training campaigns that outlive their GPU windows: PPO on the device, stopped and resumed
exactly from one file per campaign kept in the repository.

    python -m kanaloa_env.training.campaign train data/campaigns/kanaloa_4p_scratch \\
        --seconds 420 --out gpu_results/campaigns
    python -m kanaloa_env.training.campaign status data/campaigns/*/
    python -m kanaloa_env.training.campaign export data/campaigns/kanaloa_4p_scratch --out runs/p.npz
    python -m kanaloa_env.training.campaign arena data/campaigns/kanaloa_4p_scratch --games 4000
    python -m kanaloa_env.training.campaign ship data/campaigns/kanaloa_4p_scratch
    python -m kanaloa_env.training.campaign docs            # docs/baselines.md's curves

A campaign is a folder (`data/campaigns/<name>/`) with its `recipe.json` (a
`campaign_file.Recipe`) and, once it has trained, `campaign.npz` (`campaign_file`: the
networks, Adam's state, the counters, the league and the curve). `train` loads the
file (or starts the campaign from its recipe), trains in chunks of `chunk_updates` PPO
updates on the GPU vector env, evaluates and saves at least every `--checkpoint-seconds`
(after the chunk running then), and stops before `--seconds` are spent (or on Ctrl-C,
at the next chunk's end, saving first). A chunk plays fresh games from a stream of its
own, so stopping and resuming between chunks trains the same weights as never stopping.

Each save evaluates the greedy actor against the heuristic on the device (`eval_games`
games, the first of each slot of the evaluation stream, seats rotating) and adds the
point (learner decisions, device-minutes, win rate) to the campaign's curve. Training
streams have bit 63 of their seed set and every evaluation seed is below 2**32, so no
evaluation plays a training deal. `arena` plays the campaign's best actor against the
heuristic in the CPU arena (seat-balanced, in parallel processes), the evaluation the
docs quote; `ship` makes the best actor the shipped network of its table when it beats
the shipped one against heuristic bots and head to head; `docs` rewrites the campaigns' section of docs/baselines.md from the files.

Training needs a CUDA GPU with numba-cuda and a CUDA build of torch, or numba-cuda's
simulator (NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1, torch on the CPU) for tests on
tiny recipes. `status`, `export`, `arena`, `ship` and `docs` run anywhere.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from kanaloa_env.training import GracefulStop, ppo
from kanaloa_env.training.campaign_file import (
    CampaignState,
    file_sha256,
    load_campaign,
    load_recipe,
    needs_start,
    new_progress,
    save_campaign,
)

__all__ = [
    "Campaign",
    "arena",
    "campaign_paths",
    "chunk_seed",
    "curve_markdown",
    "export_policy",
    "furthest_state",
    "main",
    "parallel_tournament",
    "ship",
    "update_docs",
]

RECIPE_FILE, CAMPAIGN_FILE, ARENA_FILE, LOG_FILE = (
    "recipe.json",
    "campaign.npz",
    "arena.json",
    "log.txt",
)
TRAIN, SAMPLE, SHUFFLE, OPPONENT, SLOTS, EVAL = range(1, 7)
"""The streams of a campaign's seed (`chunk_seed`)."""
TRAINING_BIT = 1 << 63
DOCS_BEGIN = "<!-- campaigns:begin (python -m kanaloa_env.training.campaign docs) -->"
DOCS_END = "<!-- campaigns:end -->"
ROOT = Path(__file__).resolve().parents[2]


def chunk_seed(seed: int, stream: int, chunk: int) -> int:
    """The 64-bit seed of stream `stream` (`TRAIN`, `SAMPLE`, ...) of chunk `chunk` of the
    campaign seeded `seed`: numpy's `SeedSequence` of the three. The training games'
    stream (`TRAIN`) has bit 63 set; `EVAL`'s seed is below 2**32 (`eval_seed`), so the
    two never share a deal."""
    v = int(np.random.SeedSequence([seed, stream, chunk]).generate_state(1, np.uint64)[0])
    return v | TRAINING_BIT if stream == TRAIN else v & (TRAINING_BIT - 1)


def eval_seed(seed: int) -> int:
    """The game stream of every evaluation of the campaign seeded `seed` (below 2**32)."""
    return int(np.random.SeedSequence([seed, EVAL]).generate_state(1, np.uint32)[0])


def campaign_paths(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """The files of the campaign folder `folder`: `recipe`, `campaign`, `arena`, `log`."""
    f = Path(folder)
    return {
        "recipe": f / RECIPE_FILE,
        "campaign": f / CAMPAIGN_FILE,
        "arena": f / ARENA_FILE,
        "log": f / LOG_FILE,
    }


def _device_name(device: Any) -> str:
    from kanaloa_env.core import gpu

    if gpu.simulator():
        return "numba-cuda simulator (no GPU)"
    import torch

    return str(torch.cuda.get_device_name(device))


def _params(net: Any) -> dict[str, np.ndarray]:
    return {
        k: v.detach().cpu().numpy().astype(np.float32, copy=True)
        for k, v in net.state_dict().items()
    }


def _load_params(net: Any, params: dict[str, np.ndarray]) -> None:
    import torch

    net.load_state_dict({k: torch.from_numpy(np.array(v, copy=True)) for k, v in params.items()})


class Campaign:
    """A campaign loaded on a torch device, ready to train.

    Args:
        folder: the campaign's folder (with its `recipe.json`).
        device: the torch device of the networks and the env's tensors.
        resume_from: campaign files to resume from besides the folder's own; the one
            furthest on (most chunks) wins. None of them: the campaign starts from its
            recipe.
        log: where progress lines go.

    Raises:
        ValueError: a bad recipe or campaign file, naming the file and the problem.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        device: Any,
        resume_from: Sequence[str | os.PathLike[str]] = (),
        log: Callable[[str], None] = print,
    ) -> None:
        import torch

        from kanaloa_env.games import get_game

        self.folder = Path(folder)
        self.name = self.folder.resolve().name
        self.paths = campaign_paths(self.folder)
        self.recipe = load_recipe(self.paths["recipe"])
        self.game = get_game(self.recipe.game)
        self.device = device
        self.log = log
        r = self.recipe
        torch.manual_seed(r.seed)
        self.actor, self.critic = (
            net.to(device)
            for net in ppo.make_nets(self.game.obs_dim, self.game.num_actions, list(r.hidden))
        )
        self.opt = torch.optim.Adam(
            [*self.actor.parameters(), *self.critic.parameters()], lr=r.lr, eps=1e-5
        )
        self.best: dict[str, np.ndarray] | None = None
        self.league: list[dict[str, np.ndarray]] = []
        self.progress: dict[str, Any] = {}
        self.start: dict[str, np.ndarray] | None = None
        state = furthest_state(self.folder, resume_from)
        if state is not None:
            self._restore(state)
            log(
                f"{self.name}: resumed at chunk {self.progress['chunks']}, "
                f"{self.progress['decisions']:,} decisions"
            )
        else:
            path = self._net_path() if needs_start(r) else None
            self.progress = new_progress(file_sha256(path) if path else None)
            if path:
                self.start = self._shipped_params(path)
            if r.init == "net" and self.start is not None:
                _load_params(self.actor, self.start)
            log(f"{self.name}: started from its recipe ({r.init})")

    # ---- the file ------------------------------------------------------------------

    def _net_path(self) -> str:
        from kanaloa_env.bots.policy_bot import shipped_paths

        path = shipped_paths(self.game).get(self.recipe.num_players)
        if path is None:
            raise ValueError(
                f"recipe init 'net' or a league needs a shipped {self.game.name} policy for "
                f"{self.recipe.num_players} players; there is none"
            )
        return path

    def _shipped_params(self, path: str) -> dict[str, np.ndarray]:
        """The shipped policy file at `path` as the actor's parameters (same layers)."""
        from kanaloa_env.bots.policy_file import load_policy

        weights = load_policy(path)
        if weights.hidden_sizes != list(self.recipe.hidden) or weights.activation != "relu":
            raise ValueError(
                f"recipe init 'net' or a league: {path} has hidden layers "
                f"{weights.hidden_sizes} ({weights.activation}); the recipe's are "
                f"{list(self.recipe.hidden)} (relu)"
            )
        names = [k for k in self.actor.state_dict() if k.endswith("weight")]
        params = {}
        for name, (w, b) in zip(names, weights.layers, strict=True):
            params[name], params[name[: -len("weight")] + "bias"] = w, b
        return params

    def _restore(self, state: CampaignState) -> None:
        import torch

        self.progress = json.loads(json.dumps(state.progress))
        _load_params(self.actor, state.actor)
        _load_params(self.critic, state.critic)
        if state.adam:
            saved = self.opt.state_dict()
            saved["state"] = {
                i: {
                    "step": torch.tensor(float(m["step"]), dtype=torch.float32),
                    "exp_avg": torch.from_numpy(m["exp_avg"].copy()).to(self.device),
                    "exp_avg_sq": torch.from_numpy(m["exp_avg_sq"].copy()).to(self.device),
                }
                for i, m in enumerate(state.adam)
            }
            self.opt.load_state_dict(saved)
        self.best = state.best
        self.league = list(state.league)
        self.start = state.start

    def state(self) -> CampaignState:
        """The campaign as it stands, as numpy arrays (what `save` writes)."""
        adam = []
        for i, s in sorted(self.opt.state_dict()["state"].items()):
            adam.append(
                {
                    "exp_avg": s["exp_avg"].detach().cpu().numpy().astype(np.float32),
                    "exp_avg_sq": s["exp_avg_sq"].detach().cpu().numpy().astype(np.float32),
                    "step": np.array(float(s["step"]), dtype=np.float32),
                }
            )
            assert i == len(adam) - 1
        return CampaignState(
            recipe=self.recipe,
            progress=json.loads(json.dumps(self.progress)),
            actor=_params(self.actor),
            critic=_params(self.critic),
            adam=adam,
            best=self.best,
            league=list(self.league),
            start=self.start,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the campaign file to `path` (whole or not at all)."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        save_campaign(path, self.state())

    # ---- training ------------------------------------------------------------------

    def _policy(self, params: dict[str, np.ndarray], sampled: bool, gen: Any = None) -> Any:
        """An opponent `f(obs, mask) -> actions` playing a copy of an actor's `params`:
        sampled from its softmax with the generator `gen`, or greedy."""
        import torch

        net = ppo.make_nets(self.game.obs_dim, self.game.num_actions, list(self.recipe.hidden))[0]
        _load_params(net, params)
        net = net.to(self.device).requires_grad_(False)

        def play(obs: Any, mask: Any) -> Any:
            if sampled:
                return ppo.sample_actions(net, obs, mask, gen)[0]
            with torch.no_grad():
                return net(obs).masked_fill(~mask, -torch.inf).argmax(1)

        return play

    def _opponents(self, chunk: int) -> dict[str, Any]:
        """The env's opponent arguments for chunk `chunk`."""
        import torch

        r = self.recipe
        if r.opponents == "heuristic":
            return {"opponents": "heuristic"}
        assert self.start is not None
        shipped = self._policy(self.start, sampled=False)
        gen = torch.Generator(device=self.device).manual_seed(chunk_seed(r.seed, OPPONENT, chunk))
        selves = [_params(self.actor), *self.league]
        members: list[Any] = ["heuristic", shipped]
        members += [self._policy(p, sampled=True, gen=gen) for p in selves]
        mix = r.league_mix
        shares = np.array(
            [mix["heuristic"], mix["net"], *([mix["self"] / len(selves)] * len(selves))], float
        )
        rng = np.random.default_rng(chunk_seed(r.seed, SLOTS, chunk))
        slots = rng.choice(len(members), size=r.num_envs, p=shares / shares.sum())
        return {"opponents": members, "opponent_slots": slots.astype(np.int64)}

    def train_chunk(self) -> dict[str, float]:
        """Train one chunk (`chunk_updates` PPO updates on fresh games); its figures."""
        import torch

        from kanaloa_env.training.gpu_ppo import Rollout
        from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

        r, p = self.recipe, self.progress
        c = p["chunks"]
        t0 = time.perf_counter()
        env = GpuVectorEnv(
            r.num_envs,
            game=self.game,
            num_players=r.num_players,
            seed=chunk_seed(r.seed, TRAIN, c),
            validate=False,
            **self._opponents(c),
        )
        gen = torch.Generator(device=self.device).manual_seed(chunk_seed(r.seed, SAMPLE, c))
        cpu_gen = torch.Generator().manual_seed(chunk_seed(r.seed, SHUFFLE, c))
        args = SimpleNamespace(
            **{
                k: getattr(r, k)
                for k in ("epochs", "clip", "ent_coef", "vf_coef", "target_kl", "minibatch")
            }
        )
        for g in self.opt.param_groups:
            g["lr"] = r.lr
        roll = Rollout(env, r.rollout_steps, self.device)
        obs = env.reset()
        rollout_s = update_s = 0.0
        stats: dict[str, float] = {}
        for _ in range(r.chunk_updates):
            tc = time.perf_counter()
            obs = roll.collect(self.actor, self.critic, obs, gen)
            data = roll.batch(self.critic, obs, r.gamma, r.gae_lambda)
            tu = time.perf_counter()
            stats = ppo.ppo_update(
                self.actor,
                self.critic,
                self.opt,
                data,
                args,
                cpu_gen,
                critic_only=p["decisions"] < r.critic_warmup,
            )
            if self.device.type == "cuda":
                torch.cuda.synchronize()
            rollout_s += tu - tc
            update_s += time.perf_counter() - tu
            p["decisions"] += len(data["act"])
            p["updates"] += 1
        p["chunks"] += 1
        if r.opponents == "league" and p["chunks"] % r.league_every == 0:
            self.league = [*self.league, _params(self.actor)][-r.league_size :]
            p["league"] = [*p["league"], p["decisions"]][-r.league_size :]
        wall = time.perf_counter() - t0
        p["device_seconds"] += wall
        n = r.chunk_updates * r.num_envs * r.rollout_steps
        won = roll.won
        figures = {
            "wall_s": wall,
            "decisions_per_s": n / wall,
            "rollout_s": rollout_s,
            "networks_s": roll.seconds["policy"],
            "env_s": roll.seconds["env"],
            "update_s": update_s,
            "sampled_win_rate": float(np.mean(won)) if won else math.nan,
            **stats,
        }
        self.log(
            f"{self.name}: chunk {c + 1}, {p['decisions']:,} decisions: "
            f"{figures['decisions_per_s']:,.0f} learner decisions/s (rollout {rollout_s:.1f}s: "
            f"networks {roll.seconds['policy']:.1f}s, env and opponents {roll.seconds['env']:.1f}s; "
            f"update {update_s:.1f}s); sampled play won {figures['sampled_win_rate']:.3f} of "
            f"{len(won)} games; " + ", ".join(f"{k} {v:.4f}" for k, v in stats.items())
        )
        return figures

    def evaluate(self) -> float:
        """Evaluate the greedy actor against the heuristic (`eval_games` games of the
        evaluation stream) on the device, add the point to the curve, keep the best
        actor; the win rate."""
        from kanaloa_env.training.gpu_ppo import greedy_win_rate
        from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

        r, p = self.recipe, self.progress
        t0 = time.perf_counter()
        env = GpuVectorEnv(
            r.eval_games,
            game=self.game,
            num_players=r.num_players,
            opponents="heuristic",
            seed=eval_seed(r.seed),
            validate=False,
        )
        rate = greedy_win_rate(self.actor, env)
        p["device_seconds"] += time.perf_counter() - t0
        p["curve"].append(
            {
                "decisions": p["decisions"],
                "device_minutes": round(p["device_seconds"] / 60, 3),
                "win_rate": rate,
                "games": r.eval_games,
                "window": max(p["windows"], 1),
                "device": _device_name(self.device),
            }
        )
        if p["best"] is None or rate > p["best"]["win_rate"]:
            p["best"] = {"win_rate": rate, "decisions": p["decisions"]}
            self.best = _params(self.actor)
        self.log(
            f"{self.name}: evaluation at {p['decisions']:,} decisions: greedy won {rate:.3f} "
            f"of {r.eval_games} against the heuristic"
        )
        return rate

    def train(
        self,
        seconds: float,
        out: str | os.PathLike[str],
        checkpoint_seconds: float = 120.0,
        max_chunks: int | None = None,
        stop: GracefulStop | None = None,
        mirrors: Sequence[str | os.PathLike[str]] = (),
    ) -> dict[str, Any]:
        """Train for at most `seconds` of wall time (or `max_chunks` chunks), evaluating and
        saving the campaign file to `out` after the chunk during which
        `checkpoint_seconds` have passed since the last save, and at the end; each save
        is written to every path of `mirrors` as well.

        A chunk starts only when the last chunk's time and an evaluation's still fit in
        `seconds`; the first one always starts. A call that trains no chunk writes
        nothing. `stop` (a `GracefulStop`): Ctrl-C ends the training after the running
        chunk, saved first. Returns the figures of the call: chunks, decisions, wall
        time, the last evaluation.
        """
        p = self.progress
        p["windows"] += 1
        t0 = time.perf_counter()
        last_save, chunk_s, eval_s, done = t0, 0.0, 0.0, 0
        start_decisions = p["decisions"]
        rate = None
        saved_at = p["chunks"]

        def save() -> None:
            nonlocal rate, saved_at
            if p["curve"] == [] or p["curve"][-1]["decisions"] != p["decisions"]:
                rate = self.evaluate()
            for path in (out, *mirrors):
                self.save(path)
            saved_at = p["chunks"]
            self.log(f"{self.name}: saved {out}")

        while max_chunks is None or done < max_chunks:
            if stop is not None and stop.requested:
                break
            if done and time.perf_counter() - t0 + chunk_s + eval_s > seconds:
                break
            tc = time.perf_counter()
            self.train_chunk()
            chunk_s = max(chunk_s, time.perf_counter() - tc)
            done += 1
            if time.perf_counter() - last_save >= checkpoint_seconds:
                te = time.perf_counter()
                save()
                eval_s = time.perf_counter() - te
                last_save = time.perf_counter()
        if saved_at != p["chunks"]:  # (nothing to save when no chunk ran since the last)
            save()
        return {
            "chunks": done,
            "decisions": p["decisions"] - start_decisions,
            "wall_s": round(time.perf_counter() - t0, 1),
            "win_rate": rate,
        }


def export_policy(
    state: CampaignState, path: str | os.PathLike[str], which: str = "best", name: str = ""
) -> str:
    """Write the `which` ("best" or "latest") actor of the campaign `state` (named
    `name`) as a policy file at `path`; its path. `ValueError` for "best" before any
    evaluation."""
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata, save_policy
    from kanaloa_env.games import get_game

    if which not in ("best", "latest"):
        raise ValueError(f"which must be 'best' or 'latest', got {which!r}")
    params = state.actor if which == "latest" else state.best
    if params is None:
        raise ValueError(f"campaign {name!r} has no evaluated actor yet: export 'latest'")
    r, p = state.recipe, state.progress
    decisions = p["decisions"] if which == "latest" else p["best"]["decisions"]
    training = {
        "recipe": "python -m kanaloa_env.training.campaign",
        "campaign": name,
        "campaign_recipe": json.loads(r.to_json()),
        "timesteps": int(decisions),
        "which": which,
        "method": f"PPO on the GPU against {r.opponents} opponents, from {r.init}",
    }
    keys = sorted({k.rsplit(".", 1)[0] for k in params}, key=int)
    layers = tuple((params[f"{k}.weight"], params[f"{k}.bias"]) for k in keys)
    meta = make_metadata(r.num_players, list(r.hidden), "relu", training, game=get_game(r.game))
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    save_policy(path, PolicyWeights(meta, layers))
    return os.fspath(path)


# ---- the CPU side: arenas of a campaign's actor ---------------------------------------


def _tournament_wins(
    bots: tuple[str, ...], game: str, players: int, games: int, seed: int
) -> tuple[dict[str, int], int]:
    """One seat-balanced tournament of `bots` (specs, repeats allowed): the wins of each
    spec over all its seats, and the games played."""
    from kanaloa_env.evaluation.arena import run_tournament

    result = run_tournament(list(bots), num_players=players, num_games=games, seed=seed, game=game)
    wins: dict[str, int] = dict.fromkeys(bots, 0)
    for row in result.stats:
        wins[row.spec] += row.wins
    return wins, len(result.winner)


def parallel_tournament(
    bots: Sequence[str], game: str, players: int, games: int, workers: int, seed: int
) -> tuple[dict[str, int], int, list[int], int]:
    """`games` seat-balanced games of `game` (a game name) among `bots` (a table's worth of
    bot specs, repeats allowed) split between `workers` spawned processes, worker k playing the tournament
    of seed `seed` + k; its share rounded up to a multiple of the table size `players`.
    Returns the wins of each spec over all its seats, the games played, the seeds and the
    games per seed."""
    if workers < 1 or games < 1:
        raise ValueError(f"games and workers must be at least 1, got {games}, {workers}")
    per = -(-games // (workers * players)) * players
    seeds = [seed + k for k in range(workers)]
    args = [(tuple(bots), game, players, per, s) for s in seeds]
    if workers == 1:
        shares = [_tournament_wins(*args[0])]
    else:
        # Spawned, not forked: a parent that has run torch can leave its thread pool
        # locked in a forked child.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=spawn) as pool:
            shares = list(pool.map(_tournament_wins, *zip(*args, strict=True)))
    wins = dict.fromkeys(bots, 0)
    for got, _ in shares:
        for spec, w in got.items():
            wins[spec] += w
    return wins, sum(n for _, n in shares), seeds, per


def furthest_state(
    folder: str | os.PathLike[str], resume_from: Sequence[str | os.PathLike[str]] = ()
) -> CampaignState | None:
    """The state of the campaign of `folder` furthest on (most chunks) among its own file
    and the campaign files `resume_from`, each checked against its `recipe.json`; None
    when none of them exists yet."""
    paths = campaign_paths(folder)
    recipe = load_recipe(paths["recipe"])
    files = [paths["campaign"], *map(Path, resume_from)]
    states = [load_campaign(p, recipe) for p in files if p.is_file()]
    return max(states, key=lambda s: s.progress["chunks"]) if states else None


def _trained_state(folder: Path, resume_from: Sequence[str | os.PathLike[str]]) -> CampaignState:
    state = furthest_state(folder, resume_from)
    if state is None:
        raise ValueError(f"campaign {folder} has not trained yet (no {CAMPAIGN_FILE})")
    return state


def arena(
    folder: str | os.PathLike[str],
    games: int = 4000,
    workers: int = 1,
    seed: int = 1,
    which: str = "best",
    out: str | os.PathLike[str] | None = None,
    resume_from: Sequence[str | os.PathLike[str]] = (),
) -> dict[str, Any]:
    """Play the campaign's `which` actor against heuristic bots in the CPU arena:
    `games` seat-balanced games (rounded up to a multiple of the table size and of
    `workers`), split between `workers` processes (worker k plays the tournament of
    seed `seed` + k). The actor is read from the furthest of the folder's campaign file
    and `resume_from` (further campaign files, e.g. a window's output). Appends the
    result to the campaign's `arena.json` (in `out`, else the folder) and returns it:
    wins, games, win rate, 95% interval, decisions of the actor, seeds."""
    from kanaloa_env.evaluation.stats import wilson_interval

    folder = Path(folder)
    paths = campaign_paths(folder)
    state = _trained_state(folder, resume_from)
    recipe = state.recipe
    P = recipe.num_players
    t0 = time.perf_counter()
    target = Path(out) if out is not None else folder
    target.mkdir(parents=True, exist_ok=True)
    policy = str(target / f".arena-{which}.npz")
    export_policy(state, policy, which, folder.name)
    try:
        bots = [policy, *["heuristic"] * (P - 1)]
        by_spec, played, seeds, per = parallel_tournament(
            bots, recipe.game, P, games, workers, seed
        )
    finally:
        os.unlink(policy)
    wins = by_spec[policy]
    lo, hi = wilson_interval(wins, played)
    decisions = (
        state.progress["decisions"] if which == "latest" else state.progress["best"]["decisions"]
    )
    result = {
        "decisions": int(decisions),
        "which": which,
        "wins": int(wins),
        "games": int(played),
        "win_rate": wins / played,
        "interval_95": [lo, hi],
        "seeds": seeds,
        "games_per_seed": per,
        "wall_s": round(time.perf_counter() - t0, 1),
        "workers": workers,
    }
    log_path = target / ARENA_FILE
    history = _read_arena(log_path if log_path.is_file() else paths["arena"])
    history.append(result)
    from kanaloa_env.core.files import atomic_write_text

    atomic_write_text(log_path, json.dumps(history, indent=1) + "\n")
    return result


def ship(
    folder: str | os.PathLike[str],
    games: int = 4000,
    head_to_head: int = 1000,
    workers: int = 1,
    seed: int = 1,
    against: str | os.PathLike[str] | None = None,
    to: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Ship the campaign's best actor when it beats the shipped network: both play
    `games` seat-balanced games against heuristic bots (the same seeds), then they meet
    head to head in `head_to_head` games, two seats each (at an odd table a heuristic
    bot takes the last seat). When the campaign's network wins more in both, it is
    written as the policy file `to` (default: the shipped file of its game and table)
    unless `dry_run`.

    Args:
        folder: the campaign folder.
        games, head_to_head: the games of the two comparisons.
        workers: processes each comparison's games are split between.
        seed: worker k plays the tournaments of seed `seed` + k.
        against: the policy file to beat (default: the shipped one).
        to: where a winning network is written (default: the shipped file).
        dry_run: compare only.

    Returns:
        The figures of both comparisons, `ships` (whether it won both), `written` (the
        path written, or None) and, when written, its `sha256` (for docs/models.md).
    """
    from kanaloa_env.bots.policy_bot import shipped_paths
    from kanaloa_env.evaluation.stats import wilson_interval
    from kanaloa_env.games import get_game

    folder = Path(folder)
    state = _trained_state(folder, ())
    r = state.recipe
    P = r.num_players
    shipped = shipped_paths(get_game(r.game)).get(P)
    against = os.fspath(against) if against is not None else shipped
    to = os.fspath(to) if to is not None else shipped
    if against is None or to is None:
        raise ValueError(f"no shipped {r.game} network for {P} players: pass against and to")
    with tempfile.TemporaryDirectory() as tmp:
        cand = export_policy(state, os.path.join(tmp, "campaign.npz"), "best", folder.name)
        rates: dict[str, dict[str, Any]] = {}
        won: dict[str, int] = {}
        for name, spec in (("campaign", cand), ("shipped", against)):
            bots = [spec, *["heuristic"] * (P - 1)]
            wins, played, seeds, _ = parallel_tournament(bots, r.game, P, games, workers, seed)
            lo, hi = wilson_interval(wins[spec], played)
            rates[name] = {"wins": wins[spec], "games": played, "interval_95": [lo, hi]}
            won[name] = wins[spec]
        table = [cand, against] * (P // 2) + ["heuristic"] * (P % 2)
        wins, played, _, _ = parallel_tournament(table, r.game, P, head_to_head, workers, seed)
        duel = {"campaign_wins": wins[cand], "shipped_wins": wins[against], "games": played}
        ships = won["campaign"] > won["shipped"] and wins[cand] > wins[against]
        written = None
        if ships and not dry_run:
            from kanaloa_env.bots.policy_file import load_policy, save_policy

            save_policy(to, load_policy(cand))
            written = to
    return {
        "campaign": folder.name,
        "decisions": state.progress["best"]["decisions"],
        "against_heuristic": rates,
        "head_to_head": duel,
        "seeds": seeds,
        "ships": ships,
        "written": written,
        "sha256": file_sha256(written) if written else None,
    }


def _read_arena(path: Path) -> list[dict[str, Any]]:
    """The results of `arena.json` at `path` (untrusted: a list of objects), or []."""
    if not path.is_file():
        return []
    if path.stat().st_size > 2**20:
        raise ValueError(f"{path}: larger than 1 MiB")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list) or not all(
        isinstance(d, dict)
        and isinstance(d.get("wins"), int)
        and isinstance(d.get("games"), int)
        and isinstance(d.get("decisions"), int)
        and 0 <= d["wins"] <= d["games"]
        for d in data
    ):
        raise ValueError(f"{path}: not a list of arena results")
    return data


# ---- the docs ----------------------------------------------------------------------


def curve_markdown(folder: str | os.PathLike[str]) -> str:
    """The campaign of `folder` as Markdown: its recipe in one line, then its curve (one
    row per evaluation) and its CPU arenas."""
    from kanaloa_env.evaluation.stats import wilson_interval

    folder = Path(folder)
    paths = campaign_paths(folder)
    r = load_recipe(paths["recipe"])
    start = "from scratch" if r.init == "scratch" else "from the shipped (distilled) network"
    head = (
        f"### `{folder.name}`\n\n{r.game.capitalize()} at {r.num_players} players, "
        f"{'-'.join(map(str, r.hidden))} ReLU networks {start}, against {r.opponents} "
        f"opponents; {r.num_envs:,} games x {r.rollout_steps} steps an update, "
        f"{r.chunk_updates} updates a chunk, lr {r.lr:g}, entropy {r.ent_coef:g}, "
        f"seed {r.seed} (`{os.path.relpath(paths['recipe'], ROOT)}`)."
    )
    if not paths["campaign"].is_file():
        return head + "\n\nNot started: it trains in the first GPU window that runs it.\n"
    s = load_campaign(paths["campaign"], r)
    p = s.progress
    lines = [
        head,
        "",
        f"{p['decisions']:,} learner decisions in {p['chunks']} chunks, "
        f"{p['device_seconds'] / 60:.1f} device-minutes over {p['windows']} windows.",
        "",
        "| window | device | learner decisions | device-minutes | greedy vs heuristic (device) |",
        "|---|---|---|---|---|",
    ]
    for pt in p["curve"]:
        wins = round(pt["win_rate"] * pt["games"])
        lo, hi = wilson_interval(wins, pt["games"])
        lines.append(
            f"| {pt['window']} | {pt['device']} | {pt['decisions']:,} | {pt['device_minutes']:.1f} "
            f"| {pt['win_rate']:.1%} ({lo:.1%}–{hi:.1%}, {pt['games']:,}) |"
        )
    results = _read_arena(paths["arena"])
    if results:
        lines += [
            "",
            "CPU arena (`python -m kanaloa_env.training.campaign arena`, seat-balanced, against "
            "heuristic bots):",
            "",
            "| actor at decisions | win rate | games | seeds |",
            "|---|---|---|---|",
        ]
        for a in results:
            lo, hi = wilson_interval(a["wins"], a["games"])
            lines.append(
                f"| {a['decisions']:,} ({a.get('which', 'best')}) | {a['wins'] / a['games']:.1%} "
                f"({lo:.1%}–{hi:.1%}) | {a['games']:,} | {a.get('seeds', '')} |"
            )
    return "\n".join(lines) + "\n"


def update_docs(
    campaigns: str | os.PathLike[str] = ROOT / "data" / "campaigns",
    doc: str | os.PathLike[str] = ROOT / "docs" / "baselines.md",
    check: bool = False,
) -> bool:
    """Rewrite the part of `doc` between `DOCS_BEGIN` and `DOCS_END` with the curves of
    every campaign folder under `campaigns` (sorted by name). With `check`, write
    nothing; either way, whether the doc was up to date."""
    from kanaloa_env.core.files import atomic_write_text

    text = Path(doc).read_text(encoding="utf-8")
    if DOCS_BEGIN not in text or DOCS_END not in text:
        raise ValueError(f"{doc} has no {DOCS_BEGIN!r} ... {DOCS_END!r} section")
    folders = sorted(f for f in Path(campaigns).iterdir() if (f / RECIPE_FILE).is_file())
    body = "\n".join(curve_markdown(f) for f in folders)
    a, b = text.index(DOCS_BEGIN) + len(DOCS_BEGIN), text.index(DOCS_END)
    new = text[:a] + "\n\n" + body + "\n" + text[b:]
    if new != text and not check:
        atomic_write_text(doc, new)
    return new == text


# ---- the command line ---------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kanaloa_env.training.campaign",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train campaigns on the GPU, one after the other")
    t.add_argument("folders", nargs="+", help="campaign folders (each with its recipe.json)")
    t.add_argument("--seconds", type=float, required=True, help="wall time for all of them")
    t.add_argument(
        "--out",
        default=None,
        help="write each campaign's file to OUT/<name>/campaign.npz (resuming from there when "
        "it is further on than the folder's own); default: into the folders",
    )
    t.add_argument(
        "--also-from",
        nargs="*",
        default=[],
        help="folders of further campaign files to resume from (DIR/<name>/campaign.npz)",
    )
    t.add_argument(
        "--mirror",
        nargs="*",
        default=[],
        help="folders each save is also written to (DIR/<name>/campaign.npz)",
    )
    t.add_argument("--checkpoint-seconds", type=float, default=120.0, help="seconds between saves")
    t.add_argument("--max-chunks", type=int, default=None, help="chunks per campaign at most")
    s = sub.add_parser("status", help="print where campaigns stand")
    s.add_argument("folders", nargs="+")
    e = sub.add_parser("export", help="write a campaign's actor as a policy file")
    e.add_argument("folder")
    e.add_argument("--out", required=True, help="the policy file to write (.npz)")
    e.add_argument("--which", choices=("best", "latest"), default="best")
    a = sub.add_parser("arena", help="the campaign's actor against heuristic bots on the CPU")
    a.add_argument("folder")
    a.add_argument("--games", type=int, default=4000)
    a.add_argument("--workers", type=int, default=1, help="processes")
    a.add_argument("--seed", type=int, default=1, help="worker k plays seed SEED + k")
    a.add_argument("--which", choices=("best", "latest"), default="best")
    a.add_argument("--out", default=None, help="folder of arena.json (default: the campaign's)")
    a.add_argument("--resume-from", nargs="*", default=[], help="newer campaign files to read")
    sh = sub.add_parser(
        "ship", help="ship the campaign's best network when it beats the shipped one"
    )
    sh.add_argument("folder")
    sh.add_argument("--games", type=int, default=4000, help="games of each against heuristics")
    sh.add_argument("--head-to-head", type=int, default=1000, help="games of the duel")
    sh.add_argument("--workers", type=int, default=1, help="processes")
    sh.add_argument("--seed", type=int, default=1, help="worker k plays seed SEED + k")
    sh.add_argument("--dry-run", action="store_true", help="compare only")
    d = sub.add_parser("docs", help="rewrite docs/baselines.md's campaign section")
    d.add_argument("--check", action="store_true", help="exit 1 when the section is stale")
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module) on `argv` (None: `sys.argv[1:]`); its exit status."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from kanaloa_env.training.records import file_log

    if args.command == "status":
        for folder in args.folders:
            paths = campaign_paths(folder)
            recipe = load_recipe(paths["recipe"])
            if not paths["campaign"].is_file():
                print(f"{folder}: not started")
                continue
            pr = load_campaign(paths["campaign"], recipe).progress
            last = pr["curve"][-1]["win_rate"] if pr["curve"] else math.nan
            print(
                f"{folder}: {pr['decisions']:,} decisions, {pr['chunks']} chunks, "
                f"{pr['device_seconds'] / 60:.1f} device-minutes, {pr['windows']} windows; "
                f"last evaluation {last:.3f}"
            )
        return 0
    if args.command == "export":
        paths = campaign_paths(args.folder)
        state = load_campaign(paths["campaign"], load_recipe(paths["recipe"]))
        print(export_policy(state, args.out, args.which, Path(args.folder).resolve().name))
        return 0
    if args.command == "arena":
        result = arena(
            args.folder, args.games, args.workers, args.seed, args.which, args.out, args.resume_from
        )
        print(json.dumps(result))
        return 0
    if args.command == "ship":
        got = ship(
            args.folder,
            args.games,
            args.head_to_head,
            args.workers,
            args.seed,
            dry_run=args.dry_run,
        )
        print(json.dumps(got, indent=1))
        return 0
    if args.command == "docs":
        fresh = update_docs(check=args.check)
        if args.check and not fresh:
            print(
                "docs/baselines.md's campaign section is stale: run "
                "python -m kanaloa_env.training.campaign docs",
                file=sys.stderr,
            )
            return 1
        return 0
    if args.max_chunks is not None and args.max_chunks < 1:
        raise ValueError("--max-chunks must be at least 1")
    if not args.seconds > 0 or not args.checkpoint_seconds > 0:
        raise ValueError("--seconds and --checkpoint-seconds must be above 0")
    for folder in args.folders:
        load_recipe(campaign_paths(folder)["recipe"])  # every recipe checked before training
    from kanaloa_env.training.gpu_ppo import torch_device

    device = torch_device("campaign training")
    t0 = time.perf_counter()
    results = {}
    with GracefulStop("campaign") as stop:
        for i, folder in enumerate(args.folders):
            name = Path(folder).resolve().name
            out_dir = Path(args.out) / name if args.out else Path(folder)
            out_dir.mkdir(parents=True, exist_ok=True)
            log = file_log(str(out_dir / LOG_FILE))
            out_file = out_dir / CAMPAIGN_FILE
            more = [Path(d) / name / CAMPAIGN_FILE for d in args.also_from]
            camp = Campaign(folder, device, resume_from=[out_file, *more], log=log)
            left = args.seconds - (time.perf_counter() - t0)
            share = left / (len(args.folders) - i)
            mirrors = [Path(d) / name / CAMPAIGN_FILE for d in args.mirror]
            results[name] = camp.train(
                share, out_file, args.checkpoint_seconds, args.max_chunks, stop, mirrors
            )
            if stop.requested:
                break
    print(json.dumps(results))
    stop.exit_if_requested({"campaign files": args.out or "the campaign folders"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
