"""Distil the search bot into a policy network: supervised learning on search labels.

This is the main job (README): with its defaults it trains, from the label chunks
shipped in `data/labels/` (2,299,186 decisions of 3-, 4- and 5-player heuristic games,
each labelled with the search bot's move), the network that ships as the "net" bot,
and measures it against heuristic and random bots:

    python examples/distil_search.py                       # everything below, defaults
    python examples/distil_search.py --labels runs/labels/kanaloa_4p --num-players 4 \
        --output-dir runs/distil_4p                        # labels of your own

Reads the chunk files of `examples/label_with_search.py` from every `--labels`
folder (any table sizes of one game), replays them to recover each decision's
observation and legal mask, and trains a multilayer perceptron to pick the search
bot's move: masked cross-entropy, AdamW with a cosine schedule, `--epochs` passes.
With `--heuristic-weight w > 0` every decision also teaches the heuristic's move with
weight `w` (the heuristic's moves are free labels: they are the moves played).
A share of the chunks (`--held-out`) is kept aside to report how often the network
agrees with the search there. After every epoch the network plays `--curve-games`
games against heuristic bots at each table size (`kanaloa_env.evaluation.evaluate`),
for `eval.csv` and `learning_curve.png`.

The network is saved as a weights-only policy file (`kanaloa_env.bots.policy_file`,
no pickle), one per `--num-players` (the same weights: the observation says the table
size), and each is measured in the seat-balanced arena against heuristic bots filling
the table (`--eval-games` games, seed `--eval-seed`) and against random bots
(`--random-games`), as

    python -m kanaloa_env.arena --bots runs/distil/kanaloa_4p.npz heuristic heuristic \
        heuristic --players 4 --games 4000 --seed 1

Writes to `--output-dir` (default `runs/distil`): `kanaloa_{P}p.npz`, `eval.csv`,
`learning_curve.png`, `train.log` and the arenas' folders `arena_{P}p_{opponents}/`.
Shipping is a copy into `kanaloa_env/bots/data/` (docs/models.md). Deterministic for
`--seed` and `--torch-threads` (torch's CPU kernels give the same results for the same
thread count): the defaults rebuild the shipped files bit for bit. Ctrl-C stops after
the current minibatch and saves the network so far and the evaluations done.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import sys
import time
from typing import Any

import numpy as np

from kanaloa_env.training import (
    GracefulStop,
    ObservationStore,
    file_log,
    layer_sizes,
    run_script,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from label_with_search import read_chunk, replay  # noqa: E402  (a sibling example)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The shipped labels (examples/label_with_search.py, docs/models.md "The recipe").
DEFAULT_LABELS = [os.path.join(ROOT, "data", "labels", f"kanaloa_{p}p") for p in (3, 4, 5)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--labels",
        nargs="+",
        default=argparse.SUPPRESS,
        help="folders of label chunk files (default: the shipped data/labels/kanaloa_3p, "
        "kanaloa_4p and kanaloa_5p)",
    )
    p.add_argument("--output-dir", default="runs/distil", help="where the policy files and logs go")
    p.add_argument(
        "--num-players",
        type=int,
        nargs="+",
        default=argparse.SUPPRESS,
        help="table sizes to export and measure (default: those of the labels)",
    )
    p.add_argument("--hidden", default="512,256", help="hidden layer sizes, comma-separated")
    p.add_argument("--epochs", type=int, default=8, help="passes over the training decisions")
    p.add_argument("--batch-size", type=int, default=1024, help="minibatch size")
    p.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate (cosine to 0)")
    p.add_argument("--weight-decay", type=float, default=1e-5, help="AdamW weight decay")
    p.add_argument(
        "--heuristic-weight",
        type=float,
        default=0.0,
        help="weight of the heuristic's move as a second target (0: search labels only)",
    )
    p.add_argument("--held-out", type=float, default=0.05, help="share of chunks held out")
    p.add_argument("--seed", type=int, default=0, help="seeds the split, the order and torch")
    p.add_argument("--torch-threads", type=int, default=2, help="torch CPU threads")
    p.add_argument(
        "--curve-games",
        type=int,
        default=500,
        help="games against heuristic bots per table size after every epoch (0: none)",
    )
    p.add_argument(
        "--eval-games", type=int, default=4000, help="final arena games against heuristic bots"
    )
    p.add_argument(
        "--random-games", type=int, default=2000, help="final arena games against random bots"
    )
    p.add_argument("--eval-seed", type=int, default=1, help="seed of the arena")
    args = p.parse_args(argv)
    args.labels = getattr(args, "labels", DEFAULT_LABELS)
    args.num_players = getattr(args, "num_players", None)
    try:
        args.hidden = layer_sizes(args.hidden, "--hidden")
    except ValueError as exc:
        p.error(str(exc))
    for name in ("epochs", "batch_size", "torch_threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    for name in ("curve_games", "eval_games", "random_games"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0")
    if args.heuristic_weight < 0 or not 0 <= args.held_out < 1:
        p.error("--heuristic-weight must be >= 0 and --held-out in [0, 1)")
    args.files = sorted(f for d in args.labels for f in glob.glob(os.path.join(d, "chunk_*.npz")))
    if not args.files:
        p.error(f"no chunk_*.npz files in {args.labels}")
    return args


def load_decisions(files: list[str], log: Any) -> dict[str, Any]:
    """Every decision of the chunk files, replayed: obs, an `ObservationStore` of the
    (D, obs_dim) observations (a byte a feature: 0.96 GB for the shipped labels where
    float32 would take 3.8 GB), masks (D, A) bool, labels and heuristic (D,) int64, chunk
    (D,) int64, players (D,) int64, and the game's name."""
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
    data["sources"] = {  # what the labels are, for the policy files' metadata
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
    args: argparse.Namespace,
    data: dict[str, Any],
    log: Any,
    stop: GracefulStop,
    on_epoch: Any = None,
) -> Any:
    """The trained network (a torch Sequential of Linear and ReLU layers).

    `on_epoch(epoch, net, agreement)` runs after every epoch (1-based), with the
    held-out agreement with the search's moves; it must not draw from torch's
    generator (the run stays the same with or without it)."""
    import torch

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    n_chunks = int(data["chunk"].max()) + 1
    held = rng.permutation(n_chunks)[: int(round(args.held_out * n_chunks))]
    is_held = np.isin(data["chunk"], held)
    train_idx, held_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    obs = data["obs"]  # an ObservationStore: rows are decoded per minibatch
    masks = torch.from_numpy(data["masks"])
    labels = torch.from_numpy(data["labels"])
    heur = torch.from_numpy(data["heuristic"])
    layers: list[Any] = []
    width = obs.codes.shape[1]
    for h in args.hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, masks.shape[1]))
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps = args.epochs * -(-len(train_idx) // args.batch_size)
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
    for epoch in range(args.epochs):
        order = torch.from_numpy(rng.permutation(train_idx))
        total = 0.0
        for lo in range(0, len(order), args.batch_size):
            if stop.requested:
                log(f"stopped in epoch {epoch + 1}")
                return net
            i = order[lo : lo + args.batch_size]
            logits = net(obs.rows_torch(i)).masked_fill(~masks[i], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, labels[i])
            if args.heuristic_weight > 0:
                loss = loss + args.heuristic_weight * torch.nn.functional.cross_entropy(
                    logits, heur[i]
                )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(i)
        s, h = agreement(held_idx)
        log(
            f"epoch {epoch + 1}/{args.epochs}: loss {total / len(train_idx):.4f}, held-out "
            f"agreement with search {s:.3f}, with the heuristic {h:.3f}, {time.time() - t0:.0f}s"
        )
        if on_epoch is not None:
            net.eval()
            on_epoch(epoch + 1, net, s)
            net.train()
    return net


def weights(
    args: argparse.Namespace, net: Any, game: str, sizes: list[int], sources: dict | None = None
) -> list[Any]:
    """The network as one `PolicyWeights` per table size (`sources`: what the labels are,
    kept in the metadata)."""
    from kanaloa_env.bots.policy_bot import sequential_layers
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata

    layers = sequential_layers(net)
    training = {
        "recipe": "examples/label_with_search.py, then examples/distil_search.py",
        "command": "python examples/distil_search.py " + " ".join(sys.argv[1:]),
        "seed": args.seed,
        "method": "supervised learning of the search bot's moves in heuristic self-play",
    }
    if sources is not None:
        training["labels"] = sources
        if sources["guides"]:
            training["method"] = (
                "supervised learning of the guided search's moves in heuristic self-play"
            )
    return [
        PolicyWeights(make_metadata(p, args.hidden, "relu", training, game=game), layers)
        for p in sizes
    ]


def export(
    args: argparse.Namespace, net: Any, game: str, sizes: list[int], sources: dict | None = None
) -> list[str]:
    """Save the network as one policy file per table size; their paths."""
    from kanaloa_env.bots.policy_file import save_policy

    paths = []
    for p, w in zip(sizes, weights(args, net, game, sizes, sources), strict=True):
        path = os.path.join(args.output_dir, f"{game}_{p}p.npz")
        save_policy(path, w)
        paths.append(path)
    return paths


FIELDS = [
    *("epoch", "players", "opponents", "games", "win_rate", "ci_low", "ci_high", "agreement"),
    "cpu_s",  # of this process so far (the labels' own CPU time is in train.log)
]


def write_eval(args: argparse.Namespace, rows: list[dict[str, Any]], game: str) -> None:
    """eval.csv and learning_curve.png of the evaluations so far."""
    from kanaloa_env.core.files import atomic_write_path

    with atomic_write_path(os.path.join(args.output_dir, "eval.csv")) as tmp:
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
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
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_write_path(os.path.join(args.output_dir, "learning_curve.png")) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch

    from kanaloa_env.arena import run_tournament
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.evaluation import evaluate

    torch.set_num_threads(args.torch_threads)
    os.makedirs(args.output_dir, exist_ok=True)
    log = file_log(os.path.join(args.output_dir, "train.log"))
    log(f"args: {json.dumps({k: v for k, v in vars(args).items() if k != 'files'})}")
    cpu0, t0 = time.process_time(), time.time()
    data = load_decisions(args.files, log)
    game = data["game"]
    sizes = args.num_players or sorted(int(p) for p in np.unique(data["players"]))
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
        if not args.curve_games:
            return
        bot = PolicyBot(weights(args, net, game, sizes), name="student")
        for p in sizes:
            res = evaluate(
                bot, "heuristic", args.curve_games, num_players=p, seed=args.eval_seed, game=game
            )
            row(epoch, p, "heuristic", res, agreement)
            log(f"epoch {epoch}, {p} players, against heuristic bots: {res}")
        write_eval(args, rows, game)

    with GracefulStop() as stop:
        net = train(args, data, log, stop, on_epoch)
    paths = export(args, net, game, sizes, data["sources"])
    write_eval(args, rows, game)
    stop.exit_if_requested(
        {
            "policy files": ", ".join(paths),
            "evaluations": os.path.join(args.output_dir, "eval.csv"),
        },
        progress="during training",
    )
    log(f"trained in {time.process_time() - cpu0:.0f}s CPU, {time.time() - t0:.0f}s wall")
    summary: dict[str, Any] = {"policies": paths}
    finals = (("heuristic", args.eval_games), ("random", args.random_games))
    for p, path in zip(sizes, paths, strict=True):
        bot = PolicyBot.load(path)
        for opponents, games in finals:
            if not games:
                continue
            result = run_tournament(
                [bot] + [opponents] * (p - 1),
                num_players=p,
                num_games=games,
                seed=args.eval_seed,
                game=game,
            )
            result.write(os.path.join(args.output_dir, f"arena_{p}p_{opponents}"), overwrite=True)
            stats = next(s for s in result.stats if s.name == bot.name)
            row("final", p, opponents, stats, float("nan"))
            log(f"{p} players, against {opponents} bots:\n{result.table()}")
            summary[f"{opponents}_{p}p"] = [stats.win_rate, stats.ci_low, stats.ci_high]
    write_eval(args, rows, game)
    log(
        f"done in {time.process_time() - cpu0:.0f}s CPU, {time.time() - t0:.0f}s wall: "
        f"{json.dumps(summary)}"
    )
    return summary


if __name__ == "__main__":
    run_script(main)
