"""Distil the search bot into a policy network: supervised learning on search labels
(chunk files of `kanaloa_env.training.labels`).

The chunks are replayed to recover each decision's observation and legal mask, and a
multilayer perceptron learns to pick the search's move: masked cross-entropy, AdamW
with a cosine schedule. The network is saved as one weights-only policy file per table
size (the same weights: the observation says the table size). Deterministic for the
settings' seed and torch's thread count.

```python
log = file_log("runs/distil/train.log")
summary = distil(files, "runs/distil", DistilSettings(epochs=8), log=log,
                 recipe="...", command="python ...")
summary["policies"]                     # ["runs/distil/kanaloa_3p.npz", ...]
```
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kanaloa_env.training.interrupt import GracefulStop
from kanaloa_env.training.labels import read_chunk, replay
from kanaloa_env.training.records import save_figure, write_csv
from kanaloa_env.training.store import ObservationStore

__all__ = [
    "EVAL_FIELDS",
    "DistilSettings",
    "add_settings_options",
    "distil",
    "export_policies",
    "load_decisions",
    "policy_weights",
    "train",
    "write_eval",
]

Log = Callable[[str], None]

#: The columns of a distillation's `eval.csv` (`cpu_s`: of this process so far; the
#: labels' own CPU time is in its log).
EVAL_FIELDS = [
    *("epoch", "players", "opponents", "games", "win_rate", "ci_low", "ci_high", "agreement"),
    "cpu_s",
]


@dataclasses.dataclass(frozen=True)
class DistilSettings:
    """The training's settings.

    Attributes:
        hidden: hidden layer sizes (ReLU between them).
        epochs: passes over the training decisions.
        batch_size: minibatch size.
        lr: AdamW's learning rate at the start (cosine to 0 over the run).
        weight_decay: AdamW's weight decay.
        heuristic_weight: weight of the heuristic's move as a second target (0: the
            search's labels only).
        held_out: the share of chunks kept aside to measure the agreement with the search.
        seed: seeds the split, the order and torch.
    """

    hidden: Sequence[int] = (512, 256)
    epochs: int = 8
    batch_size: int = 1024
    lr: float = 1e-3
    weight_decay: float = 1e-5
    heuristic_weight: float = 0.0
    held_out: float = 0.05
    seed: int = 0

    @classmethod
    def from_args(cls, args: Any) -> DistilSettings:
        """The settings of `args`, a parsed command line with options of the fields' names."""
        return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})


def add_settings_options(parser: argparse.ArgumentParser | Any) -> None:
    """Add to `parser` (or an argument group) the options of `DistilSettings`' fields,
    with its defaults: `--hidden` (text,
    "512,256"), `--epochs`, `--batch-size`, `--lr`, `--weight-decay`,
    `--heuristic-weight`, `--held-out` and `--seed`."""
    d = DistilSettings()
    hidden = ",".join(map(str, d.hidden))
    parser.add_argument("--hidden", default=hidden, help="hidden layer sizes, comma-separated")
    parser.add_argument(
        "--epochs", type=int, default=d.epochs, help="passes over the training decisions"
    )
    parser.add_argument("--batch-size", type=int, default=d.batch_size, help="minibatch size")
    parser.add_argument("--lr", type=float, default=d.lr, help="AdamW learning rate (cosine to 0)")
    parser.add_argument(
        "--weight-decay", type=float, default=d.weight_decay, help="AdamW weight decay"
    )
    parser.add_argument(
        "--heuristic-weight",
        type=float,
        default=d.heuristic_weight,
        help="weight of the heuristic's move as a second target (0: search labels only)",
    )
    parser.add_argument(
        "--held-out", type=float, default=d.held_out, help="share of chunks held out"
    )
    parser.add_argument(
        "--seed", type=int, default=d.seed, help="seeds the split, the order and torch"
    )


def load_decisions(files: Sequence[str], log: Log) -> dict[str, Any]:
    """Every decision of the chunk files `files`, replayed; `log` takes a summary line.

    Returns:
        obs: an `ObservationStore` of the (D, obs_dim) observations (a byte a feature).
        masks: (D, A) bool legal actions.
        labels, heuristic: (D,) int64 the search's and the heuristic's moves.
        chunk: (D,) int64 the index in `files` of each decision's chunk.
        players: (D,) int64 the table size of each decision.
        game: the game's name (one for every chunk, else `SystemExit`).
        sources: what the labels are (chunks, decisions, rollouts, guides,
            label_cpu_hours), for the policy files' metadata.
    """
    from kanaloa_env.games import get_game

    chunks = [read_chunk(path) for path in files]  # moves and labels: a few bytes a decision
    games = {meta["game"] for meta, _, _ in chunks}
    if len(games) != 1:
        raise SystemExit(f"the label folders mix games: {sorted(games)}")
    game = games.pop()
    total = sum(len(labels) for _, _, labels in chunks)
    store = ObservationStore(total, get_game(game).obs_dim)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("masks", "labels", "heuristic", "chunk", "players")
    }
    label_cpu = 0.0
    t0 = time.time()
    for i, (path, (meta, moves, labels)) in enumerate(zip(files, chunks, strict=True)):
        d = replay(meta, moves, labels, where=path)
        label_cpu += float(meta["cpu_s"])
        n = len(d["labels"])
        store.append(d["obs"])
        for k in ("masks", "labels", "heuristic"):
            parts[k].append(d[k])
        parts["chunk"].append(np.full(n, i))
        parts["players"].append(np.full(n, meta["num_players"]))
    data: dict[str, Any] = {k: np.concatenate(v) for k, v in parts.items()}
    data["obs"], data["game"] = store, game
    data["sources"] = {
        "chunks": len(files),
        "decisions": int(total),
        "rollouts": sorted({int(meta["rollouts"]) for meta, _, _ in chunks}),
        "guides": sorted({", ".join(meta["guide"]) for meta, _, _ in chunks if "guide" in meta}),
        "label_cpu_hours": round(label_cpu / 3600, 3),
    }
    sizes = {int(p): int((data["players"] == p).sum()) for p in np.unique(data["players"])}
    log(
        f"replayed {len(files)} chunks, {len(data['labels'])} decisions {sizes} in "
        f"{time.time() - t0:.0f}s (labelling them took {label_cpu / 3600:.2f} CPU hours; "
        f"observations in {store.nbytes / 2**20:.0f} MiB, {len(store.values)} distinct "
        "values); search agrees with the heuristic on "
        f"{np.mean(data['labels'] == data['heuristic']):.3f}"
    )
    return data


def train(
    settings: DistilSettings,
    data: dict[str, Any],
    log: Log,
    stop: GracefulStop,
    on_epoch: Callable[[int, Any, float], None] | None = None,
) -> Any:
    """The trained network (a torch Sequential of Linear and ReLU layers) on `data`
    (`load_decisions`) with the hyperparameters `settings`; `log` takes the progress
    lines. Once `stop.requested` (Ctrl-C) it returns the network as it is after the
    current minibatch.

    `on_epoch(epoch, net, agreement)` runs after every epoch (1-based), with the
    held-out agreement with the search's moves; it must not draw from torch's
    generator (the run stays the same with or without it)."""
    import torch

    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    n_chunks = int(data["chunk"].max()) + 1
    held = rng.permutation(n_chunks)[: int(round(settings.held_out * n_chunks))]
    is_held = np.isin(data["chunk"], held)
    train_idx, held_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    obs = data["obs"]  # an ObservationStore: rows are decoded per minibatch
    masks = torch.from_numpy(data["masks"])
    labels = torch.from_numpy(data["labels"])
    heur = torch.from_numpy(data["heuristic"])
    layers: list[Any] = []
    width = obs.codes.shape[1]
    for h in settings.hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, masks.shape[1]))
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.AdamW(net.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    steps = settings.epochs * -(-len(train_idx) // settings.batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, steps))

    def agreement(idx: np.ndarray) -> tuple[float, float]:
        if not len(idx):
            return float("nan"), float("nan")
        net.eval()
        with torch.no_grad():
            hits_s = hits_h = 0
            for lo in range(0, len(idx), 65536):
                i = torch.from_numpy(idx[lo : lo + 65536])
                pick = net(obs.rows_torch(i)).masked_fill(~masks[i], -torch.inf).argmax(1)
                hits_s += int((pick == labels[i]).sum())
                hits_h += int((pick == heur[i]).sum())
        net.train()
        return hits_s / len(idx), hits_h / len(idx)

    t0 = time.time()
    for epoch in range(settings.epochs):
        order = torch.from_numpy(rng.permutation(train_idx))
        total = 0.0
        for lo in range(0, len(order), settings.batch_size):
            if stop.requested:
                log(f"stopped in epoch {epoch + 1}")
                return net
            i = order[lo : lo + settings.batch_size]
            logits = net(obs.rows_torch(i)).masked_fill(~masks[i], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, labels[i])
            if settings.heuristic_weight > 0:
                loss = loss + settings.heuristic_weight * torch.nn.functional.cross_entropy(
                    logits, heur[i]
                )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(i)
        with_search, with_heuristic = agreement(held_idx)
        log(
            f"epoch {epoch + 1}/{settings.epochs}: loss {total / len(train_idx):.4f}, held-out "
            f"agreement with search {with_search:.3f}, with the heuristic "
            f"{with_heuristic:.3f}, {time.time() - t0:.0f}s"
        )
        if on_epoch is not None:
            net.eval()
            on_epoch(epoch + 1, net, with_search)
            net.train()
    return net


def policy_weights(
    net: Any,
    game: str,
    sizes: Sequence[int],
    settings: DistilSettings,
    training: dict[str, Any],
    sources: dict[str, Any] | None = None,
) -> list[Any]:
    """The network as one `PolicyWeights` per table size in `sizes`.

    Args:
        net: `train`'s network.
        game: the game's name.
        sizes: the table sizes.
        settings: the training's settings (its seed and hidden sizes are recorded).
        training: what made it (`recipe`, `command`), kept in the metadata's `training`
            with the seed, the method and, given `sources` (`load_decisions`), the labels.
        sources: what the labels are.
    """
    from kanaloa_env.bots.policy_bot import sequential_layers
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata

    layers = sequential_layers(net)
    training = {
        **training,
        "seed": settings.seed,
        "method": "supervised learning of the search bot's moves in heuristic self-play",
    }
    if sources is not None:
        training["labels"] = sources
        if sources["guides"]:
            training["method"] = (
                "supervised learning of the guided search's moves in heuristic self-play"
            )
    hidden = list(settings.hidden)
    return [
        PolicyWeights(make_metadata(p, hidden, "relu", training, game=game), layers) for p in sizes
    ]


def export_policies(output_dir: str, weights: Sequence[Any], game: str) -> list[str]:
    """Save `weights` (`policy_weights`) as `{game}_{P}p.npz` in `output_dir`; the paths."""
    from kanaloa_env.bots.policy_file import save_policy

    paths = []
    for w in weights:
        path = os.path.join(output_dir, f"{game}_{w.num_players}p.npz")
        save_policy(path, w)
        paths.append(path)
    return paths


def write_eval(output_dir: str, rows: Sequence[dict[str, Any]], game: str) -> None:
    """`eval.csv` (`EVAL_FIELDS`) of the evaluations so far, `rows`, in `output_dir`, and
    with any evaluation after an epoch against heuristic bots `learning_curve.png` (its
    title names the game `game`)."""
    write_csv(os.path.join(output_dir, "eval.csv"), rows, EVAL_FIELDS)
    curve = [r for r in rows if r["opponents"] == "heuristic" and r["epoch"] != "final"]
    if not curve:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k, p in enumerate(sorted({r["players"] for r in curve})):
        mine = [r for r in curve if r["players"] == p]
        x = [r["epoch"] for r in mine]
        colour = f"C{k}"
        ax.plot(x, [r["win_rate"] for r in mine], marker="o", color=colour, label=f"{p} players")
        ax.fill_between(
            x, [r["ci_low"] for r in mine], [r["ci_high"] for r in mine], color=colour, alpha=0.2
        )
        ax.axhline(1.0 / p, color=colour, linestyle="--", linewidth=0.8)
    ax.set_xlabel("epoch")
    ax.set_ylabel("win rate against heuristic bots (95% CI)")
    ax.set_ylim(0, 0.7)
    ax.set_title(f"{game}: the search bot distilled (dashed: chance)")
    save_figure(fig, ax, os.path.join(output_dir, "learning_curve.png"))


def distil(
    files: Sequence[str],
    output_dir: str,
    settings: DistilSettings,
    *,
    log: Log,
    training: dict[str, Any],
    num_players: Sequence[int] | None = None,
    curve_games: int = 0,
    eval_games: int = 0,
    random_games: int = 0,
    eval_seed: int = 1,
) -> dict[str, Any]:
    """Train on the label chunk `files`, save the policy files and measure them.

    After every epoch the network plays `curve_games` games against heuristic bots at
    each table size (`eval.csv`, `learning_curve.png`); at the end each policy file plays
    the seat-balanced arena against heuristic bots (`eval_games`) and random bots
    (`random_games`), seed `eval_seed`, into `arena_{P}p_{opponents}/`. Ctrl-C stops
    after the current minibatch: the network so far is saved, the script told so and
    ended with status 130.

    Args:
        files: the chunk files (one game, any table sizes).
        output_dir: where everything goes (it exists).
        settings: the training's settings.
        log: the run's log.
        training: `recipe` and `command` for the policy files' metadata.
        num_players: the table sizes to export and measure (None: those of the labels).
        curve_games, eval_games, random_games, eval_seed: the measurements above
            (0 games: none).

    Returns:
        `policies` (the paths) and, per final measurement, `{opponents}_{P}p`: the win
        rate and its 95% interval.
    """
    import json

    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.evaluation import evaluate

    cpu0, t0 = time.process_time(), time.time()
    data = load_decisions(files, log)
    game = data["game"]
    sizes = list(num_players or sorted(int(p) for p in np.unique(data["players"])))
    rows: list[dict[str, Any]] = []

    def row(epoch: Any, p: int, opponents: str, res: Any, agreement: float) -> None:
        rows.append(
            {
                "cpu_s": round(time.process_time() - cpu0, 1),
                "epoch": epoch,
                "players": p,
                "opponents": opponents,
                "games": res.games,
                "win_rate": round(res.win_rate, 4),
                "ci_low": round(res.ci_low, 4),
                "ci_high": round(res.ci_high, 4),
                "agreement": round(agreement, 4),
            }
        )

    def on_epoch(epoch: int, net: Any, agreement: float) -> None:
        if not curve_games:
            return
        bot = PolicyBot(policy_weights(net, game, sizes, settings, training), name="student")
        for p in sizes:
            res = evaluate(bot, "heuristic", curve_games, num_players=p, seed=eval_seed, game=game)
            row(epoch, p, "heuristic", res, agreement)
            log(f"epoch {epoch}, {p} players, against heuristic bots: {res}")
        write_eval(output_dir, rows, game)

    with GracefulStop() as stop:
        net = train(settings, data, log, stop, on_epoch)
    weights = policy_weights(net, game, sizes, settings, training, data["sources"])
    paths = export_policies(output_dir, weights, game)
    write_eval(output_dir, rows, game)
    stop.exit_if_requested(
        {
            "policy files": ", ".join(paths),
            "evaluations": os.path.join(output_dir, "eval.csv"),
        },
        progress="during training",
    )
    log(f"trained in {time.process_time() - cpu0:.0f}s CPU, {time.time() - t0:.0f}s wall")
    summary: dict[str, Any] = {"policies": paths}
    finals = (("heuristic", eval_games), ("random", random_games))
    for p, path in zip(sizes, paths, strict=True):
        bot = PolicyBot.load(path)
        for opponents, games in finals:
            if not games:
                continue
            result = run_tournament(
                [bot] + [opponents] * (p - 1),
                num_players=p,
                num_games=games,
                seed=eval_seed,
                game=game,
            )
            result.write(os.path.join(output_dir, f"arena_{p}p_{opponents}"), overwrite=True)
            stats = next(s for s in result.stats if s.name == bot.name)
            row("final", p, opponents, stats, float("nan"))
            log(f"{p} players, against {opponents} bots:\n{result.table()}")
            summary[f"{opponents}_{p}p"] = [stats.win_rate, stats.ci_low, stats.ci_high]
    write_eval(output_dir, rows, game)
    log(
        f"done in {time.process_time() - cpu0:.0f}s CPU, {time.time() - t0:.0f}s wall: "
        f"{json.dumps(summary)}"
    )
    return summary
