"""The GPU engines' correctness checks, for a real device or numba-cuda's simulator.

- `golden`: the recorded golden trajectories (`tests/golden`) replayed on the GPU
  engine, exactly: every state array, mask, observation of every seat, reward and
  end flag after every step.
- `differential`: random legal games on the GPU and the CPU engines side by side,
  finished games restarted with fresh keys on both, compared after every step (the
  whole state, and the observations of the players to act); counts the decisions.
- `heuristic`: the heuristics deciding on the device and on the CPU in the same
  positions, and how often they agree.

The simulator tests (`test_gpu_simulator.py`) call them on a few games; on a GPU
`benchmarks/gpu_session.sh` runs

    python tests/gpu/device_checks.py --games 200 --decisions 1000000 --out checks.json

which replays every golden case in full and compares >= 1M decisions of each game,
writing what it found to the JSON file (and exiting 1 if anything differs).
The environment must already name the target: nothing here sets NUMBA_ENABLE_CUDASIM.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "golden"))

import golden  # noqa: E402

from kanaloa_env.core.rng import game_keys  # noqa: E402
from kanaloa_env.games import get_game  # noqa: E402


def golden_replay(
    games: int, first: int = 0, names: list[str] | None = None
) -> list[dict[str, Any]]:
    """Replay games `first..first + games - 1` of every golden case (or those named) on
    the GPU engine; per case its name, whether it matched and the steps replayed."""
    out = []
    for case in golden.CASES:
        if names is not None and case.name not in names:
            continue
        t = time.perf_counter()
        with np.load(golden.path_of(case)) as data:
            want_steps = data["steps"][first : first + games]
            want_digest = data["digest"][first : first + games]
        got = golden.trajectories(case, games=len(want_steps), first=first, device=True)
        same = np.array_equal(got["steps"], want_steps) and np.array_equal(
            got["digest"], want_digest
        )
        out.append(
            {
                "case": case.name,
                "games": len(want_steps),
                "first": first,
                "match": bool(same),
                "steps": int(got["steps"].sum()),
                "seconds": round(time.perf_counter() - t, 2),
            }
        )
    return out


def _random_legal(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) one uniformly random legal action per row of (B, A) `legal` (0 for none)."""
    n = legal.sum(axis=1)
    k = (rng.random(len(legal)) * np.maximum(n, 1)).astype(np.int64)
    rank = np.cumsum(legal, axis=1) - 1
    pick = (rank == k[:, None]) & legal
    return np.where(n > 0, pick.argmax(axis=1), 0).astype(np.int64)


def differential(
    game_name: str, batch: int, decisions: int, seed: int = 0, **options: Any
) -> dict[str, Any]:
    """Play random legal games of `game_name` (config `options`) on both engines until
    `decisions` decisions were taken (games that end restart with the next keys of the
    stream `seed`), comparing after every step; what happened, as a dict."""
    import importlib

    game = get_game(game_name)
    gpu = importlib.import_module(game.engine.__name__ + ".gpu")
    players = options.pop("num_players", None)
    cfg = game.make_config(None, players, **options)
    t0 = time.perf_counter()
    host = game.engine.init(cfg, batch, seed)
    dev = gpu.init(cfg, batch, seed)
    next_game = batch
    rng = np.random.default_rng(seed)
    taken = steps = finished = 0
    first_bad: str | None = None
    while taken < decisions:
        back = dev.to_host()
        if back != host:
            diff = [
                n
                for n in host.array_names()
                if not np.array_equal(getattr(back, n), getattr(host, n))
            ]
            first_bad = f"step {steps}: state arrays {diff} differ"
            break
        obs_dev = gpu.observe(dev).copy_to_host()
        if not np.array_equal(obs_dev, game.observe(host)):
            first_bad = f"step {steps}: observations differ"
            break
        done = host.done
        if done.any():
            idx = np.flatnonzero(done)
            keys = game_keys(seed, np.arange(next_game, next_game + len(idx), dtype=np.uint64))
            next_game += len(idx)
            finished += len(idx)
            game.reset_games(host, idx, keys)
            gpu.reset_games(dev, idx, keys)
            continue
        actions = _random_legal(host.legal, rng)
        game.step_inplace(host, actions)
        gpu.step_inplace(dev, actions)
        taken += batch
        steps += 1
    return {
        "game": game_name,
        "options": {"num_players": players, **options},
        "batch": batch,
        "decisions": taken,
        "steps": steps,
        "games_finished": finished,
        "match": first_bad is None,
        "first_difference": first_bad,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def heuristic_agreement(
    game_name: str, batch: int, decisions: int, seed: int = 0, **options: Any
) -> dict[str, Any]:
    """The game's heuristic on the device (`Game.gpu_bot`) against the CPU bot, position
    by position: games where the heuristic plays game g's moves for even g and random
    legal moves for odd g, both bots asked in every position; how often they agree. The
    rules are integer arithmetic, but the bots' values are floats, which a GPU may round
    differently (numba-cuda lets NVVM fuse a multiply and an add): near-ties may split."""
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.core import gpu as core_gpu

    game = get_game(game_name)
    players = options.pop("num_players", None)
    cfg = game.make_config(None, players, **options)
    bot = make_bot("heuristic", game=game)
    device_bot = game.gpu_bot(bot)
    engine = game.gpu_engine()
    cuda = core_gpu.cuda_module()
    t0 = time.perf_counter()
    host = game.engine.init(cfg, batch, seed)
    rng = np.random.default_rng(seed)
    out = cuda.to_device(np.zeros(batch, np.int64))
    next_game, asked, agreed = batch, 0, 0
    first_split: str | None = None
    while asked < decisions:
        done = host.done
        if done.any():
            idx = np.flatnonzero(done)
            keys = game_keys(seed, np.arange(next_game, next_game + len(idx), dtype=np.uint64))
            next_game += len(idx)
            game.reset_games(host, idx, keys)
        cpu = bot_actions(bot, game, host, rng)  # (every game has a player to act here)
        live = ~host.done
        device_bot.actions(engine.to_device(host), cuda.to_device(live), out)
        dev = out.copy_to_host()
        same = dev == cpu
        asked += batch
        agreed += int(same.sum())
        if first_split is None and not same.all():
            g = int(np.flatnonzero(~same)[0])
            first_split = f"game {g}: CPU {int(cpu[g])}, GPU {int(dev[g])}"
        actions = np.where(np.arange(batch) % 2 == 0, cpu, _random_legal(host.legal, rng))
        game.step_inplace(host, actions)
    rate = agreed / max(asked, 1)
    return {
        "game": game_name,
        "options": {"num_players": players, **options},
        "positions": asked,
        "agreed": agreed,
        "agreement": round(rate, 6),
        "first_split": first_split,
        "ok": rate >= HEURISTIC_AGREEMENT,
        "seconds": round(time.perf_counter() - t0, 2),
    }


HEURISTIC_AGREEMENT = 0.99
"""The least agreement of the device heuristic with the CPU bot that passes (a bug in
reading the state would show far below it; float rounding only in near-ties)."""

# The configs of the heuristics' agreement: each game, Kanaloa's decision phases all.
HEURISTIC_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("kahuna", {}),
    ("kanaloa", {"num_players": 4, "nil_announcement": True}),
    ("kanaloa", {"num_players": 3}),
    ("kanaloa", {"num_players": 5}),
)

# The configs of the differential: every table size and rule option of each game.
DIFFERENTIAL_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("kanaloa", {"num_players": 4}),
    ("kanaloa", {"num_players": 3, "nil_announcement": True, "dolphin": "automatic"}),
    ("kanaloa", {"num_players": 5, "dolphin_chain": True, "reward": "rank", "max_rounds": 3}),
    ("kahuna", {}),
    ("kahuna", {"discard_rule": "unplayable_cards", "stones_per_player": 12, "max_turns": 60}),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="golden games per case (200: all)")
    parser.add_argument(
        "--decisions",
        type=int,
        default=1_000_000,
        help="decisions of the differential per game, split over its configs (default 1000000)",
    )
    parser.add_argument("--batch", type=int, default=8192, help="differential batch size")
    parser.add_argument("--cases", nargs="+", help="golden cases to replay (default: every one)")
    parser.add_argument(
        "--heuristic-decisions",
        type=int,
        default=200_000,
        help="positions where the heuristics decide on both targets, split over the configs "
        "(0: none)",
    )
    parser.add_argument("--out", type=Path, help="write the results to this JSON file")
    args = parser.parse_args(argv)
    from kanaloa_env.core import gpu as core_gpu

    report: dict[str, Any] = {
        "simulator": core_gpu.simulator(),
        "python": platform.python_version(),
        "golden": golden_replay(args.games, names=args.cases),
        "differential": [],
    }
    per_game: dict[str, int] = {}
    for name, _ in DIFFERENTIAL_CASES:
        per_game[name] = per_game.get(name, 0) + 1
    for name, options in DIFFERENTIAL_CASES:
        want = -(-args.decisions // per_game[name])
        report["differential"].append(differential(name, args.batch, want, **dict(options)))
    totals: dict[str, int] = {}
    for d in report["differential"]:
        totals[d["game"]] = totals.get(d["game"], 0) + d["decisions"]
    report["differential_decisions"] = totals
    report["heuristic"] = []
    if args.heuristic_decisions > 0:
        for name, options in HEURISTIC_CASES:
            want = -(-args.heuristic_decisions // len(HEURISTIC_CASES))
            batch = min(args.batch, want)
            report["heuristic"].append(heuristic_agreement(name, batch, want, **dict(options)))
    ok = (
        all(g["match"] for g in report["golden"])
        and all(d["match"] for d in report["differential"])
        and all(h["ok"] for h in report["heuristic"])
    )
    report["ok"] = ok
    text = json.dumps(report, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n")
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
