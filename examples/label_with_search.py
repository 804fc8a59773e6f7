"""Label heuristic self-play with the search bot's choices: data for search distillation.

    python examples/label_with_search.py --game kanaloa --num-players 4 --rollouts 128 \
        --workers 2 --seconds 3600 --output-dir runs/labels/kanaloa_4p

Heuristic bots play whole games against each other (a batch of `--games-per-chunk`
games per chunk, the game's own deal stream `--seed`, games `chunk * games_per_chunk
..`); at every decision the search bot (`make_bot("search", game=...)` with
`--rollouts` rollouts) says what it would play in the seat to act. The heuristic's
move is the one played, so the positions are those of heuristic games, and a chunk is
fully described by its deal seed, its games and the heuristic's moves: each chunk
file `chunk_NNNNN.npz` holds only

- `heuristic`: (D,) int16, the moves played, decision by decision (rows of the
  batch in order, finished games dropped, as `examples/distil_search.py` replays them),
- `search`: (D,) int16, the search bot's choice at the same decisions,
- `meta`: JSON (game, num_players, seed, first_game, num_games, rollouts, CPU seconds;
  for a guided search also `guide`, the policy files' names, and `guide_top`),

and the observations, masks and returns are recomputed by replaying it
(`replay_chunk`), which also checks that every stored move is the heuristic's.

With `--guide FILE ...` the labels come from the search guided by those policy files
(`SearchBot(guide=...)`, `make_bot("guided")` with other networks): the search spends
its rollouts on the network's `--guide-top` most likely actions. Labelling with the
guided search of generation n and distilling the labels into generation n + 1 is one
step of expert iteration (docs/models.md).

Chunks run in `--workers` processes; each is written whole (atomically) when done,
so a stopped run loses at most the chunks under way, and a rerun skips the chunks
already on disk. `--seconds` stops starting new chunks after that many seconds
(chunks under way finish); `--chunks` caps the number. A chunk's labels depend only
on its arguments (the search draws from a generator seeded by `--seed` and the
chunk), not on the worker or the order.

CPU cost here (a 2-core machine, one worker per core): about 2.5 ms of CPU time a
decision at 4 players with 128 rollouts; a 4-player game has about 128 decisions.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import signal
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from kanaloa_env.training import GracefulStop, run_script

_LABEL_STREAM = 5  # mixed with --seed into the search bot's generator of a chunk


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--game", default="kanaloa", help="a registered game with a search bot")
    p.add_argument(
        "--num-players",
        type=int,
        default=argparse.SUPPRESS,
        help="table size (default: the game's default)",
    )
    p.add_argument("--rollouts", type=int, default=128, help="search rollouts per decision")
    p.add_argument(
        "--guide",
        nargs="+",
        default=None,
        help="policy files (.npz) that guide the search (default: the plain search)",
    )
    p.add_argument("--guide-top", type=int, default=3, help="actions a guided search searches")
    p.add_argument("--seed", type=int, default=0, help="deal stream of the games")
    p.add_argument("--games-per-chunk", type=int, default=64, help="games in one chunk file")
    p.add_argument("--chunks", type=int, default=100_000, help="at most this many chunks")
    p.add_argument(
        "--seconds",
        type=float,
        default=argparse.SUPPRESS,
        help="start no chunk after this many seconds (default: no limit)",
    )
    p.add_argument("--workers", type=int, default=1, help="processes labelling chunks")
    p.add_argument(
        "--output-dir", required=True, default=argparse.SUPPRESS, help="folder of the chunk files"
    )
    args = p.parse_args(argv)
    args.num_players = getattr(args, "num_players", None)
    args.seconds = getattr(args, "seconds", None)
    for name in ("rollouts", "games_per_chunk", "chunks", "workers", "guide_top"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.seconds is not None and not args.seconds > 0:
        p.error("--seconds must be > 0")
    from kanaloa_env.games import get_game

    try:
        game = get_game(args.game)
        args.num_players = game.num_players_of(game.make_config(None, args.num_players))
    except (TypeError, ValueError) as exc:
        p.error(str(exc))
    if not game.provides("search_pieces"):
        p.error(f"{game.name} has no search bot")
    if args.guide:  # checked with numpy only: the workers load the network
        from kanaloa_env.bots.policy_file import load_policy

        try:
            games = {load_policy(path).metadata["game"] for path in args.guide}
        except ValueError as exc:
            p.error(f"--guide: {exc}")
        if games != {game.name}:
            p.error(f"--guide: policy files of {game.title} are needed, got {sorted(games)}")
    return args


def make_labeler(args: argparse.Namespace) -> Any:
    """The search bot that labels: plain, or guided by the `--guide` policy files."""
    from kanaloa_env.bots import make_bot

    search = dataclasses.replace(make_bot("search", args.game), rollouts=args.rollouts)
    if not args.guide:
        return search
    from kanaloa_env.bots.policy_bot import PolicyBot

    guide = PolicyBot.load(args.guide)
    return dataclasses.replace(search, guide=guide, guide_top=args.guide_top, name="guided")


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the main process, which stops starting chunks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def chunk_path(output_dir: str, chunk: int) -> str:
    return os.path.join(output_dir, f"chunk_{chunk:05d}.npz")


def self_play(
    game_name: str,
    num_players: int,
    seed: int,
    first_game: int,
    num_games: int,
    labeler: Any = None,
    label_rng: np.random.Generator | None = None,
    moves: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Heuristic self-play of games `first_game ..` of deal stream `seed`, recorded.

    With `moves` the games are replayed from those moves instead (each checked to be
    the heuristic's, so a chunk file from another version of the engine or the bot
    fails loudly rather than teaching wrong positions).

    Returns, for the D decisions taken (rows of the batch in order, finished games
    dropped after each step):
        obs: (D, obs_dim) float32 observation of the player to act.
        masks: (D, num_actions) bool legal actions.
        heuristic: (D,) int64 the heuristic's move (the one played).
        labels: (D,) int64 `labeler`'s choice (only with a labeler).
        game, seat: (D,) int64 game of the chunk and the seat to act.
        final: (num_games, num_players) float32 each seat's total reward.
    """
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.core.rng import game_keys
    from kanaloa_env.games import get_game

    game = get_game(game_name)
    cfg = game.make_config(None, num_players)
    state = game.init_from_keys(cfg, game_keys(seed, first_game + np.arange(num_games)))
    heuristic = make_bot("heuristic", game)
    rng = np.random.default_rng(0)  # the heuristic bots are deterministic
    pos = np.arange(num_games)
    final = np.zeros((num_games, num_players), dtype=np.float32)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "masks", "heuristic", "labels", "game", "seat")
    }
    done_moves = 0
    while len(pos):
        seats = state.current_player.astype(np.int64)
        masks = state.legal.copy()
        acts = bot_actions(heuristic, game, state, rng)
        if moves is not None:
            stored = moves[done_moves : done_moves + len(pos)]
            if len(stored) != len(pos) or not np.array_equal(stored, acts):
                raise ValueError(
                    f"the stored moves are not this engine's heuristic games (decisions "
                    f"{done_moves}..{done_moves + len(pos) - 1}): a chunk from another version?"
                )
        done_moves += len(pos)
        parts["obs"].append(game.observe(state))
        parts["masks"].append(masks)
        parts["heuristic"].append(acts)
        parts["game"].append(pos.copy())
        parts["seat"].append(seats)
        if labeler is not None:
            view = game.public_view(state, seats)
            obs = parts["obs"][-1]
            parts["labels"].append(
                np.asarray(labeler.act(obs, masks, label_rng, view=view, seats=seats), np.int64)
            )
        game.step_inplace(state, acts)
        final[pos] += state.rewards
        live = ~(state.terminated | state.truncated)
        if not live.all():
            keep = np.flatnonzero(live)
            state, pos = state.take(keep), pos[keep]
    if moves is not None and done_moves != len(moves):
        raise ValueError(f"the chunk has {len(moves)} moves, its games took {done_moves}")
    data = {k: np.concatenate(v) for k, v in parts.items() if v}
    data["final"] = final
    return data


def label_chunk(args: argparse.Namespace, chunk: int) -> tuple[int, int, float]:
    """Label chunk `chunk` and write its file; (chunk, decisions, CPU seconds)."""
    from kanaloa_env.core.files import atomic_write_path

    cpu = time.process_time()
    search = make_labeler(args)
    rng = np.random.default_rng([args.seed, _LABEL_STREAM, chunk])
    first = chunk * args.games_per_chunk
    data = self_play(
        args.game, args.num_players, args.seed, first, args.games_per_chunk, search, rng
    )
    cpu = time.process_time() - cpu
    meta = {
        "game": args.game,
        "num_players": args.num_players,
        "seed": args.seed,
        "first_game": first,
        "num_games": args.games_per_chunk,
        "rollouts": args.rollouts,
        "cpu_s": round(cpu, 2),
    }
    if args.guide:
        meta["guide"] = [os.path.basename(p) for p in args.guide]
        meta["guide_top"] = args.guide_top
    with atomic_write_path(chunk_path(args.output_dir, chunk)) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(
                f,
                heuristic=data["heuristic"].astype(np.int16),
                search=data["labels"].astype(np.int16),
                meta=np.array(json.dumps(meta)),
            )
    return chunk, len(data["heuristic"]), cpu


def read_chunk(path: str) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """(meta, heuristic moves, search labels) of a chunk file (untrusted: checked, a
    `ValueError` naming the file and the problem; nothing in it is unpickled)."""
    try:
        with np.load(path, allow_pickle=False) as d:
            arrays = {name: d[name] for name in d.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:  # numpy refuses pickles
        raise ValueError(f"{path}: not a readable label chunk ({exc})") from None
    if set(arrays) != {"heuristic", "search", "meta"}:
        raise ValueError(f"{path}: not a label chunk (arrays {sorted(arrays)})")
    try:
        meta = json.loads(str(arrays["meta"]))
    except ValueError:
        raise ValueError(f"{path}: the metadata is not JSON") from None
    moves, labels = arrays["heuristic"], arrays["search"]
    counts = ("num_players", "seed", "first_game", "num_games", "rollouts")
    guided = isinstance(meta, dict) and "guide" in meta
    if guided and (
        not isinstance(meta["guide"], list)
        or not all(isinstance(n, str) for n in meta["guide"])
        or type(meta.get("guide_top")) is not int
        or meta["guide_top"] < 1
    ):
        raise ValueError(f"{path}: bad guide metadata {meta!r}")
    if (
        not isinstance(meta, dict)
        or set(meta) != {"game", "cpu_s", *counts, *(("guide", "guide_top") if guided else ())}
        or not isinstance(meta["game"], str)
        or not all(type(meta[k]) is int and meta[k] >= 0 for k in counts)
        or meta["num_games"] < 1
        or not isinstance(meta["cpu_s"], (int, float))
    ):
        raise ValueError(f"{path}: bad metadata {meta!r}")
    for name, a in (("heuristic", moves), ("search", labels)):
        if a.dtype.kind not in "iu" or a.ndim != 1:
            raise ValueError(
                f"{path}: {name!r} must be a 1-D integer array, got {a.dtype} {a.shape}"
            )
    if moves.shape != labels.shape:
        raise ValueError(f"{path}: moves {moves.shape} and labels {labels.shape} differ")
    return meta, moves.astype(np.int64), labels.astype(np.int64)


def replay(
    meta: dict[str, Any], moves: np.ndarray, labels: np.ndarray, where: str = "chunk"
) -> dict[str, np.ndarray]:
    """The decisions of a chunk (`read_chunk`'s parts) with observations and masks,
    replayed (see `self_play`); the search labels come as `labels`, each checked to be
    a legal move. `where` names the chunk in errors."""
    data = self_play(
        meta["game"],
        meta["num_players"],
        meta["seed"],
        meta["first_game"],
        meta["num_games"],
        moves=moves,
    )
    num_actions = data["masks"].shape[1]
    if ((labels < 0) | (labels >= num_actions)).any():
        raise ValueError(f"{where}: a search label is not an action (0..{num_actions - 1})")
    if not data["masks"][np.arange(len(labels)), labels].all():
        raise ValueError(f"{where}: a search label is not a legal move")
    data["labels"] = labels
    return data


def replay_chunk(path: str) -> dict[str, np.ndarray]:
    """`replay` of the chunk file at `path`."""
    return replay(*read_chunk(path), where=path)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    os.makedirs(args.output_dir, exist_ok=True)
    t0 = time.time()
    todo = [c for c in range(args.chunks) if not os.path.exists(chunk_path(args.output_dir, c))]
    done: list[tuple[int, int, float]] = []
    with GracefulStop() as stop:
        # Spawned, not forked: a parent that has run torch (a guide, an earlier step of
        # examples/expert_iteration.py) can leave its thread pool locked in a forked child.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            args.workers, mp_context=spawn, initializer=_ignore_sigint
        ) as pool:
            running: dict[Any, int] = {}
            while (todo or running) and not stop.requested:
                late = args.seconds is not None and time.time() - t0 > args.seconds
                while todo and len(running) < args.workers and not late:
                    c = todo.pop(0)
                    running[pool.submit(label_chunk, args, c)] = c
                if not running:
                    break
                finished = [f for f in running if f.done()]
                if not finished:
                    time.sleep(0.05)
                    continue
                for f in finished:
                    del running[f]
                    done.append(f.result())
                    c, n, cpu = done[-1]
                    print(
                        f"chunk {c}: {n} decisions, {1e3 * cpu / max(n, 1):.2f} ms CPU each, "
                        f"{time.time() - t0:.0f}s",
                        flush=True,
                    )
                if late:
                    todo = []
            if stop.requested:
                pool.shutdown(cancel_futures=True)
    decisions = sum(n for _, n, _ in done)
    cpu = sum(c for _, _, c in done)
    stop.exit_if_requested(
        {"label chunks": args.output_dir}, progress=f"after {len(done)} chunks this run"
    )
    summary = {
        "chunks": len(done),
        "decisions": decisions,
        "cpu_s": round(cpu, 1),
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    run_script(main)
