"""Search labels of heuristic self-play: making them, and their chunk files.

Heuristic bots play whole games against each other; at every decision the search bot
(plain, or guided by policy files) says what it would play in the seat to act. The
heuristic's move is the one played, so a chunk of games is fully described by its
deal seed, its games and the heuristic's moves, and a chunk file `chunk_NNNNN.npz`
holds only

- `heuristic`: (D,) int16, the moves played, decision by decision (rows of the batch
  in order, finished games dropped),
- `search`: (D,) int16, the search bot's choice at the same decisions,
- `meta`: JSON (game, num_players, seed, first_game, num_games, rollouts, cpu_s; for a
  guided search also `guide`, the policy files' names, and `guide_top`).

The observations and masks are recomputed by replaying the moves (`replay_chunk`),
which also checks that every stored move is this engine's heuristic's.

```python
job = LabelJob(game="kanaloa", num_players=4, rollouts=128, seed=0, games_per_chunk=64)
label_chunks(job, "runs/labels/kanaloa_4p", chunks=100, workers=2)   # resumable
data = replay_chunk("runs/labels/kanaloa_4p/chunk_00000.npz")
data["obs"], data["masks"], data["labels"]   # (D, obs_dim), (D, A), (D,)
```
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import multiprocessing
import os
import signal
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from kanaloa_env.training.interrupt import GracefulStop

__all__ = [
    "LabelJob",
    "add_label_options",
    "chunk_files",
    "chunk_path",
    "label_chunk",
    "label_chunks",
    "make_labeler",
    "read_chunk",
    "replay",
    "replay_chunk",
    "self_play",
    "write_chunk",
]

_LABEL_STREAM = 5  # mixed with the seed into the search bot's generator of a chunk


@dataclasses.dataclass(frozen=True)
class LabelJob:
    """What a chunk's labels depend on (and nothing else: not the worker, not the order).

    Attributes:
        game: a registered game with a search bot.
        num_players: the table size.
        rollouts: the search's rollouts a decision.
        seed: the deal stream; chunk c plays games `c * games_per_chunk ..` of it.
        games_per_chunk: games in one chunk file.
        guide: policy files (.npz) that guide the search (None: the plain search).
        guide_top: the actions a guided search searches.
    """

    game: str
    num_players: int
    rollouts: int
    seed: int
    games_per_chunk: int
    guide: Sequence[str] | None = None
    guide_top: int = 3

    @classmethod
    def from_args(cls, args: Any) -> LabelJob:
        """The job of `args`, a parsed command line with options of the fields' names."""
        return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})


def add_label_options(
    parser: argparse.ArgumentParser | Any,
    *,
    chunks: int,
    chunks_help: str,
    workers: int,
    workers_help: str = "processes labelling chunks",
) -> None:
    """Add the labelling options to `parser` (or an argument group): `--chunks` (default
    `chunks`, help `chunks_help`), `--games-per-chunk` (64), `--rollouts` (128),
    `--guide-top` (3) and `--workers` (default `workers`, help `workers_help`)."""
    parser.add_argument("--chunks", type=int, default=chunks, help=chunks_help)
    parser.add_argument("--games-per-chunk", type=int, default=64, help="games in one chunk file")
    parser.add_argument("--rollouts", type=int, default=128, help="search rollouts per decision")
    parser.add_argument("--guide-top", type=int, default=3, help="actions a guided search searches")
    parser.add_argument("--workers", type=int, default=workers, help=workers_help)


def make_labeler(job: LabelJob) -> Any:
    """The search bot that labels: plain, or guided by the job's `guide` policy files."""
    from kanaloa_env.bots import make_bot

    plain: Any = make_bot("search", job.game)  # a SearchBot, a dataclass
    search = dataclasses.replace(plain, rollouts=job.rollouts)
    if not job.guide:
        return search
    from kanaloa_env.bots.policy_bot import PolicyBot

    guide = PolicyBot.load(list(job.guide))
    return dataclasses.replace(search, guide=guide, guide_top=job.guide_top, name="guided")


def chunk_path(output_dir: str, chunk: int) -> str:
    """The file of chunk `chunk` in `output_dir`: `chunk_NNNNN.npz`."""
    return os.path.join(output_dir, f"chunk_{chunk:05d}.npz")


def chunk_files(folders: Sequence[str]) -> list[str]:
    """The chunk files (`chunk_*.npz`) of every folder in `folders`, sorted by path."""
    return sorted(f for d in folders for f in glob.glob(os.path.join(d, "chunk_*.npz")))


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
    """Heuristic self-play of `num_games` games `first_game ..` of deal stream `seed` of
    the game `game_name` at `num_players` players, recorded; with `labeler` (a bot)
    each decision is also labelled by its choice, drawn with `label_rng`.

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

    Raises:
        ValueError: `moves` are not the heuristic's moves of these games.
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


def write_chunk(path: str, meta: dict[str, Any], heuristic: np.ndarray, search: np.ndarray) -> None:
    """Write the chunk file `path` (see the module), whole or not at all: the (D,)
    `heuristic` moves played and the (D,) `search` labels, stored as int16, and `meta`
    as JSON."""
    from kanaloa_env.core.files import atomic_write_path

    with atomic_write_path(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(
            f,
            heuristic=np.asarray(heuristic).astype(np.int16),
            search=np.asarray(search).astype(np.int16),
            meta=np.array(json.dumps(meta)),
        )


def label_chunk(job: LabelJob, output_dir: str, chunk: int) -> tuple[int, int, float]:
    """Label chunk `chunk` of `job` and write its file into `output_dir`;
    (chunk, decisions, CPU seconds)."""
    cpu = time.process_time()
    search = make_labeler(job)
    rng = np.random.default_rng([job.seed, _LABEL_STREAM, chunk])
    first = chunk * job.games_per_chunk
    data = self_play(job.game, job.num_players, job.seed, first, job.games_per_chunk, search, rng)
    cpu = time.process_time() - cpu
    meta: dict[str, Any] = {
        "game": job.game,
        "num_players": job.num_players,
        "seed": job.seed,
        "first_game": first,
        "num_games": job.games_per_chunk,
        "rollouts": job.rollouts,
        "cpu_s": round(cpu, 2),
    }
    if job.guide:
        meta["guide"] = [os.path.basename(p) for p in job.guide]
        meta["guide_top"] = job.guide_top
    write_chunk(chunk_path(output_dir, chunk), meta, data["heuristic"], data["labels"])
    return chunk, len(data["heuristic"]), cpu


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the main process, which stops starting chunks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def label_chunks(
    job: LabelJob,
    output_dir: str,
    chunks: int,
    workers: int = 1,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Label chunks `0 .. chunks - 1` of `job` into `output_dir` in `workers` processes,
    skipping those whose file exists; print a line a chunk and the summary as JSON.

    `seconds`: start no chunk after that many seconds (the chunks under way finish).
    Ctrl-C stops starting chunks and drops those under way (`GracefulStop`): the script
    is told what was kept and exits 130.

    Returns:
        chunks, decisions (labelled by this call), cpu_s (theirs), wall_s.
    """
    os.makedirs(output_dir, exist_ok=True)
    t0 = time.time()
    todo = [c for c in range(chunks) if not os.path.exists(chunk_path(output_dir, c))]
    done: list[tuple[int, int, float]] = []
    with GracefulStop() as stop:
        # Spawned, not forked: a parent that has run torch (a guide, an earlier step of
        # expert iteration) can leave its thread pool locked in a forked child.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=spawn, initializer=_ignore_sigint) as pool:
            running: dict[Any, int] = {}
            while (todo or running) and not stop.requested:
                late = seconds is not None and time.time() - t0 > seconds
                while todo and len(running) < workers and not late:
                    c = todo.pop(0)
                    running[pool.submit(label_chunk, job, output_dir, c)] = c
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
        {"label chunks": output_dir}, progress=f"after {len(done)} chunks this run"
    )
    summary = {
        "chunks": len(done),
        "decisions": decisions,
        "cpu_s": round(cpu, 1),
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(summary), flush=True)
    return summary


def read_chunk(path: str) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """(meta, heuristic moves, search labels) of the chunk file at `path` (untrusted:
    checked, a `ValueError` naming the file and the problem; nothing in it is
    unpickled). The moves and labels come as (D,) int64."""
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
    """The decisions of a chunk (`read_chunk`'s parts: its `meta`, its (D,) heuristic
    `moves` and (D,) search `labels`) with observations and masks, replayed (see
    `self_play`); each label is checked to be a legal move (a `ValueError` otherwise).
    `where` names the chunk in errors."""
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
