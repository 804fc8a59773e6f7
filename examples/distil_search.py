"""Distil the search bot into a policy network: supervised learning on search labels.

    python examples/distil_search.py --labels runs/labels/kanaloa_4p \
        --output-dir runs/distil/kanaloa_4p --num-players 4

Reads the chunk files of `examples/label_with_search.py` from every `--labels`
folder (any table sizes of one game), replays them to recover each decision's
observation and legal mask, and trains a multilayer perceptron to pick the search
bot's move: masked cross-entropy, Adam with a cosine schedule, `--epochs` passes.
With `--heuristic-weight w > 0` every decision also teaches the heuristic's move with
weight `w` (the heuristic's moves are free labels: they are the moves played).
A share of the chunks (`--held-out`) is kept aside to report how often the network
agrees with the search there.

The network is saved as a weights-only policy file (`kanaloa_env.bots.policy_file`,
no pickle), one per `--num-players` (the same weights: the observation says the table
size), and each is measured in the seat-balanced arena against heuristic bots filling
the table (`--eval-games` games, seed `--eval-seed`), as

    python -m kanaloa_env.arena --bots runs/distil/kanaloa_4p/kanaloa_4p.npz heuristic \
        heuristic heuristic --players 4 --games 4000 --seed 1

Shipping is a copy into `kanaloa_env/bots/data/` (docs/models.md). Deterministic for
`--seed` and `--torch-threads` (torch's CPU kernels give the same results for the same
thread count). Ctrl-C stops after the current minibatch and saves the network so far.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from typing import Any

import numpy as np

from kanaloa_env.training import GracefulStop, file_log, layer_sizes, run_script

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from label_with_search import replay_chunk  # noqa: E402  (a sibling example)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--labels", nargs="+", required=True, help="folders of label chunk files")
    p.add_argument("--output-dir", required=True, help="where the policy files and logs go")
    p.add_argument(
        "--num-players",
        type=int,
        nargs="+",
        default=None,
        help="table sizes to export and measure (default: those of the labels)",
    )
    p.add_argument("--hidden", default="512,256", help="hidden layer sizes, comma-separated")
    p.add_argument("--epochs", type=int, default=8, help="passes over the training decisions")
    p.add_argument("--batch-size", type=int, default=1024, help="minibatch size")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (cosine to 0)")
    p.add_argument("--weight-decay", type=float, default=1e-5, help="AdamW weight decay")
    p.add_argument(
        "--heuristic-weight",
        type=float,
        default=0.0,
        help="weight of the heuristic's move as a second target (0: search labels only)",
    )
    p.add_argument("--held-out", type=float, default=0.05, help="share of chunks held out")
    p.add_argument("--seed", type=int, default=0, help="seeds the split, the order and torch")
    p.add_argument("--torch-threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--eval-games", type=int, default=4000, help="arena games per table size")
    p.add_argument("--eval-seed", type=int, default=1, help="seed of the arena")
    args = p.parse_args(argv)
    try:
        args.hidden = layer_sizes(args.hidden, "--hidden")
    except ValueError as exc:
        p.error(str(exc))
    for name in ("epochs", "batch_size", "torch_threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.eval_games < 0 or args.heuristic_weight < 0 or not 0 <= args.held_out < 1:
        p.error("--eval-games, --heuristic-weight >= 0 and --held-out in [0, 1)")
    args.files = sorted(f for d in args.labels for f in glob.glob(os.path.join(d, "chunk_*.npz")))
    if not args.files:
        p.error(f"no chunk_*.npz files in {args.labels}")
    return args


def load_decisions(files: list[str], log: Any) -> dict[str, np.ndarray]:
    """Every decision of the chunk files, replayed: obs (D, obs_dim) float32, masks
    (D, A) bool, labels and heuristic (D,) int64, chunk (D,) int64, players (D,) int64,
    and the game's name."""
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "masks", "labels", "heuristic", "chunk", "players")
    }
    games = set()
    label_cpu = 0.0
    t0 = time.time()
    for i, path in enumerate(files):
        d = replay_chunk(path)
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
        games.add(meta["game"])
        label_cpu += float(meta["cpu_s"])
        n = len(d["labels"])
        for k in ("obs", "masks", "labels", "heuristic"):
            parts[k].append(d[k])
        parts["chunk"].append(np.full(n, i))
        parts["players"].append(np.full(n, meta["num_players"]))
    if len(games) != 1:
        raise SystemExit(f"the label folders mix games: {sorted(games)}")
    data: dict[str, Any] = {k: np.concatenate(v) for k, v in parts.items()}
    data["game"] = games.pop()
    sizes = {int(p): int((data["players"] == p).sum()) for p in np.unique(data["players"])}
    log(
        f"replayed {len(files)} chunks, {len(data['labels'])} decisions {sizes} in "
        f"{time.time() - t0:.0f}s (labelling them took {label_cpu / 3600:.2f} CPU hours); "
        "search agrees with the heuristic on "
        f"{np.mean(data['labels'] == data['heuristic']):.3f}"
    )
    return data


def train(args: argparse.Namespace, data: dict[str, Any], log: Any, stop: GracefulStop) -> Any:
    """The trained network (a torch Sequential of Linear and ReLU layers)."""
    import torch

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    n_chunks = int(data["chunk"].max()) + 1
    held = rng.permutation(n_chunks)[: int(round(args.held_out * n_chunks))]
    is_held = np.isin(data["chunk"], held)
    train_idx, held_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    obs = torch.from_numpy(data["obs"])
    masks = torch.from_numpy(data["masks"])
    labels = torch.from_numpy(data["labels"])
    heur = torch.from_numpy(data["heuristic"])
    layers: list[Any] = []
    width = obs.shape[1]
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
                pick = net(obs[i]).masked_fill(~masks[i], -torch.inf).argmax(1)
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
            logits = net(obs[i]).masked_fill(~masks[i], -1e9)
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
    return net


def export(args: argparse.Namespace, net: Any, game: str, sizes: list[int]) -> list[str]:
    """Save the network as one policy file per table size; their paths."""
    from kanaloa_env.bots.policy_file import PolicyWeights, make_metadata, save_policy

    linear = [m for m in net if hasattr(m, "weight")]
    layers = tuple(
        (m.weight.detach().numpy().astype(np.float32), m.bias.detach().numpy().astype(np.float32))
        for m in linear
    )
    training = {
        "recipe": "examples/label_with_search.py, then examples/distil_search.py",
        "command": "python examples/distil_search.py " + " ".join(sys.argv[1:]),
        "seed": args.seed,
        "method": "supervised learning of the search bot's moves in heuristic self-play",
    }
    paths = []
    for p in sizes:
        meta = make_metadata(p, args.hidden, "relu", training, game=game)
        path = os.path.join(args.output_dir, f"{game}_{p}p.npz")
        save_policy(path, PolicyWeights(meta, layers))
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(args.torch_threads)
    os.makedirs(args.output_dir, exist_ok=True)
    log = file_log(os.path.join(args.output_dir, "train.log"))

    log(f"args: {json.dumps({k: v for k, v in vars(args).items() if k != 'files'})}")
    cpu0, t0 = time.process_time(), time.time()
    data = load_decisions(args.files, log)
    sizes = args.num_players or sorted(int(p) for p in np.unique(data["players"]))
    with GracefulStop() as stop:
        net = train(args, data, log, stop)
    paths = export(args, net, data["game"], sizes)
    stop.exit_if_requested({"policy files": ", ".join(paths)}, progress="during training")
    log(f"trained in {time.process_time() - cpu0:.0f}s CPU, {time.time() - t0:.0f}s wall")
    summary: dict[str, Any] = {"policies": paths}
    if args.eval_games:
        from kanaloa_env.arena import run_tournament
        from kanaloa_env.bots.policy_file import PolicyBot

        for p, path in zip(sizes, paths, strict=True):
            bot = PolicyBot.load(path)
            result = run_tournament(
                [bot] + ["heuristic"] * (p - 1),
                num_players=p,
                num_games=args.eval_games,
                seed=args.eval_seed,
                game=data["game"],
            )
            result.write(os.path.join(args.output_dir, f"arena_{p}p"), overwrite=True)
            row = next(s for s in result.stats if s.name == bot.name)
            log(f"{p} players, against heuristic bots:\n{result.table()}")
            summary[f"win_rate_{p}p"] = [row.win_rate, row.ci_low, row.ci_high]
    log(f"done: {json.dumps(summary)}")
    return summary


if __name__ == "__main__":
    run_script(main)
