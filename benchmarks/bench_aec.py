"""Random legal decisions per second through the PettingZoo AEC env, both games, against
PettingZoo's own envs and against the bare engine at batch size 1.

```
python benchmarks/bench_aec.py                      # 3 s per row in 3 turns, Kanaloa at 4 players
python benchmarks/bench_aec.py --seconds 5 --num-players 3 --profile
python benchmarks/bench_aec.py --cpu-time           # CPU time: steadier on a shared machine
```

Every env row plays whole games the same way: `for agent in env.agent_iter()`, read
observation and mask with `env.last()`, pick a uniformly random legal action from
the observation's `action_mask` (`None` for a finished agent), `env.step(action)`.
A decision is one step with an action. Rows: Kanaloa and Kahuna through
`kanaloa_env.env(game=...)` (PettingZoo's classic wrappers) and
`kanaloa_env.raw_env(game=...)`, each game's engine alone at batch size 1 doing the
same work per decision (observe the player to act, read the mask, pick, step with the
action checked), then PettingZoo's `texas_holdem_v4`, `leduc_holdem_v4` (need
`rlcard`) and `hanabi_v5` (needs `hanabi_learning_environment`) through their `env()`
and `raw_env()`; a reference that cannot be imported is skipped with a message. The
ratio column divides by `texas_holdem_v4` through the same entry (env or raw_env);
the last column is what the env adds to a decision over its engine alone, in
microseconds.

`--profile` runs cProfile over our Kanaloa `env()` loop and prints where the time
goes: the engine calls (`observe`, `step_inplace`), the rest of `kanaloa_env/aec.py`,
and PettingZoo's wrappers; then the engine functions with the most own time.
Each row runs in `--rounds` slices, the rows taking turns, and keeps its best slice
(`benchmarks/turns.py`).
Figures depend on the machine and its load; compare rows of one run.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script


def play(
    make: Callable[[], Any],
    seconds: float,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, int, float]:
    """Play random legal games for about `seconds` of `clock`; return (decisions, games, time)."""
    env = make()
    rnd = random.Random(seed)
    env.reset(seed=seed)
    decisions = games = 0
    start = clock()
    deadline = start + seconds
    while True:
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rnd.randrange(len(legal))])
                decisions += 1
            env.step(action)
            del agent
        games += 1
        if clock() >= deadline:
            break
        env.reset()
    env.close()
    return decisions, games, clock() - start


def play_engine(
    game_name: str,
    num_players: int | None,
    seconds: float,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, int, float]:
    """The AEC loop's work on the bare engine at batch size 1: (decisions, games, time)."""
    from kanaloa_env.games import get_game

    game = get_game(game_name)
    cfg = game.make_config(None, num_players)
    rnd = random.Random(seed)
    state = game.init(cfg, 1, seed)
    action = np.zeros(1, dtype=np.int64)
    decisions = games = 0
    start = clock()
    deadline = start + seconds
    while True:
        while not state.done[0]:
            game.observe(state)
            legal = np.flatnonzero(state.legal[0])
            action[0] = legal[rnd.randrange(len(legal))]
            game.step_inplace(state, action)
            decisions += 1
        games += 1
        if clock() >= deadline:
            break
        state = game.init(cfg, 1, seed + games)
    return decisions, games, clock() - start


def _reference(env_id: str) -> tuple[Callable[[], Any], Callable[[], Any]] | str:
    """(env(), raw_env()) makers of a PettingZoo classic env, or why it cannot be loaded.

    Both come from the env's entry in PettingZoo's registry (`pettingzoo.make`), whose
    module also holds its `raw_env`.
    """
    import pettingzoo

    try:
        module_name = pettingzoo.spec("aec", env_id).entry_point.split(":")[0]
        module = importlib.import_module(module_name)
        # Some envs import but need more to start (hanabi_v5: shimmy and OpenSpiel).
        module.raw_env().close()
    except Exception as e:  # noqa: BLE001 (any import failure means: skip this reference)
        return f"{type(e).__name__}: {e}"
    return module.env, module.raw_env


def _env_run(
    make: Callable[[], Any], clock: Callable[[], float]
) -> Callable[[float], tuple[int, int, float]]:
    return lambda seconds: play(make, seconds, clock=clock)


def profile(num_players: int, seconds: float, top: int) -> None:
    """cProfile our `env()` loop and print the time split and the top engine functions."""
    import kanaloa_env

    prof = cProfile.Profile()
    prof.enable()
    decisions, _, _ = play(lambda: kanaloa_env.env(num_players=num_players), seconds)
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values())  # own time of everything profiled
    cum = {
        (f, name): v[3]
        for (f, _, name), v in stats.stats.items()  # type: ignore[attr-defined]
    }

    def cumulative(file_end: str, name: str) -> float:
        return sum(t for (f, n), t in cum.items() if f.endswith(file_end) and n == name)

    own_by_file: dict[str, float] = {}
    for (f, _, _), v in stats.stats.items():  # type: ignore[attr-defined]
        own_by_file[f] = own_by_file.get(f, 0.0) + v[2]
    t_obs = cumulative("core/kanaloa/observation.py", "observe")
    t_step = cumulative("core/kanaloa/step.py", "step_inplace")
    t_env = sum(t for f, t in own_by_file.items() if f.endswith("kanaloa_env/aec.py"))
    t_pz = sum(t for f, t in own_by_file.items() if "/pettingzoo/" in f)
    us = 1e6 / max(decisions, 1)
    print(f"\ncProfile of kanaloa_env.env(num_players={num_players}): {decisions} decisions")
    print(f"{'part':<44s} {'us/decision':>11s} {'share':>6s}")
    rows = [
        ("core.observe (cumulative)", t_obs),
        ("core.step_inplace (cumulative)", t_step),
        ("kanaloa_env/aec.py own time", t_env),
        ("pettingzoo wrappers/base own time", t_pz),
        ("everything (profiled, incl. the benchmark loop)", total),
    ]
    for label, t in rows:
        print(f"{label:<44s} {t * us:>11.1f} {100 * t / total:>5.1f}%")
    print(f"\nTop {top} engine functions by own time (kanaloa_env/core, numpy calls inside):")
    core = [
        (v[2], v[3], v[1], f, n)
        for (f, _, n), v in stats.stats.items()  # type: ignore[attr-defined]
        if "kanaloa_env/core/" in f
    ]
    core.sort(reverse=True)
    print(f"{'function':<40s} {'calls/dec':>9s} {'own us/dec':>10s} {'cum us/dec':>10s}")
    for own, cumt, calls, f, n in core[:top]:
        where = f.split("kanaloa_env/core/")[1] + ":" + n
        print(f"{where:<40s} {calls / decisions:>9.2f} {own * us:>10.1f} {cumt * us:>10.1f}")
    print("\nTop numpy / builtin calls by own time (all callers):")
    other = [
        (v[2], v[1], n, f)
        for (f, _, n), v in stats.stats.items()  # type: ignore[attr-defined]
        if f == "~" or "numpy" in f
    ]
    other.sort(reverse=True)
    for own, calls, n, f in other[:top]:
        label = n if f == "~" else f"{f.split('site-packages/')[-1]}:{n}"
        print(f"{label[:60]:<60s} {calls / decisions:>6.2f}/dec {own * us:>7.1f} us/dec")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_turn_options(parser, "row")
    parser.add_argument("--num-players", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument(
        "--no-references", action="store_true", help="only our env (skip PettingZoo's envs)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile our env() loop too")
    parser.add_argument("--top", type=int, default=15, help="rows of the profile tables")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with this process's CPU time instead of wall-clock (steadier on a busy machine)",
    )
    args = parser.parse_args()

    import kanaloa_env

    P = args.num_players
    clock = time.process_time if args.cpu_time else time.perf_counter
    rows: list[tuple[str, str, Callable[[float], tuple[int, int, float]]]] = []
    for game, players, label in (
        ("kanaloa", P, f"kanaloa_v0 ({P} players)"),
        ("kahuna", None, "kahuna_v0"),
    ):
        kw = {"game": game} if players is None else {"game": game, "num_players": players}
        rows += [
            (label, "env()", _env_run(lambda kw=kw: kanaloa_env.env(**kw), clock)),
            (label, "raw_env()", _env_run(lambda kw=kw: kanaloa_env.raw_env(**kw), clock)),
            (label, "engine", lambda t, g=game, p=players: play_engine(g, p, t, clock=clock)),
        ]
    if not args.no_references:
        for name in ("texas_holdem_v4", "leduc_holdem_v4", "hanabi_v5"):
            ref = _reference(f"classic/{name}")
            if isinstance(ref, str):
                print(f"skipping {name}: cannot import it ({ref})")
                continue
            rows += [
                (name, "env()", _env_run(ref[0], clock)),
                (name, "raw_env()", _env_run(ref[1], clock)),
            ]

    def measure(
        run: Callable[[float], tuple[int, int, float]],
    ) -> Callable[[float], tuple[float, ...]]:
        def rates(seconds: float) -> tuple[float, ...]:
            d, g, t = run(seconds)
            return d / t, g / t

        return rates

    results = best_in_turns([measure(run) for _, _, run in rows], args.seconds, args.rounds)
    measured = [(name, entry, *r) for (name, entry, _), r in zip(rows, results, strict=True)]
    rate = {(name, entry): r for name, entry, r, _ in measured}
    print(
        f"{'env':<26s} {'entry':<10s} {'decisions/s':>12s} {'games/s':>9s} {'vs texas':>9s} "
        f"{'env adds':>10s}"
    )
    for name, entry, r, gps in measured:
        texas = rate.get(("texas_holdem_v4", entry))
        ratio = f"{r / texas:>8.2f}x" if texas else ""
        engine = rate.get((name, "engine"))
        adds = f"{1e6 / r - 1e6 / engine:>7.1f} us" if engine and entry != "engine" else ""
        print(f"{name:<26s} {entry:<10s} {r:>12,.0f} {gps:>9,.1f} {ratio:>9s} {adds:>10s}")
    print(
        "(vs texas: decisions/s over texas_holdem_v4's through the same entry; env adds: "
        "microseconds per decision over the engine alone; "
        f"{'CPU' if args.cpu_time else 'wall-clock'} time)"
    )
    if args.profile:
        profile(P, args.seconds, args.top)


if __name__ == "__main__":
    main()
