"""Decisions per second of random games through OpenSpiel's state API: our games
(`python_kanaloa`, `python_kahuna`, `kanaloa_env.openspiel`) against OpenSpiel's C++
`hearts`, driven from Python the same way, in one run: with the information state
read at each decision (as `bench_core.py` drives hearts) and without.

```
python benchmarks/bench_openspiel.py                 # 3 s per row in 3 turns
python benchmarks/bench_openspiel.py --seconds 6 --rounds 3 --num-players 4
python benchmarks/bench_openspiel.py --floor         # and a Python game with no rules
```

Every row plays whole games with one driver: at a chance node, draw an outcome by its
probability from `chance_outcomes()`; at a decision, read the player's information
state tensor (`open_spiel.python.observation.make_observation` with perfect recall,
public and single-player private information: hearts' own; ours our observation),
take `legal_actions()`, apply a uniformly random one (the rows "observe no" skip the
tensor). A decision is one player move;
the time includes the chance nodes (hearts deals 52 cards and a pass direction per
game, Kanaloa 8 per player per round). The ratio column divides by hearts. Target:
Kanaloa >= 0.5x hearts. `--floor` adds rows of `python_floor`
(`benchmarks/openspiel_floor.py`), a Python game without rules of Kanaloa's shape: what
the driver and OpenSpiel's calls into a Python game cost alone. Each row runs in `--rounds` slices, the rows taking turns, and
keeps its best slice (`benchmarks/turns.py`). Figures depend on the machine and its
load; compare rows of one run.
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel
from open_spiel.python.observation import make_observation
from openspiel_floor import NAME as FLOOR  # benchmarks/openspiel_floor.py
from openspiel_floor import register as register_floor
from turns import add_turn_options, best_in_turns  # benchmarks/turns.py, next to this script

import kanaloa_env.openspiel  # noqa: F401  registers python_kanaloa and python_kahuna


def pick(outcomes: list[tuple[int, float]], u: float) -> int:
    """The outcome whose probability interval holds `u` (a uniform draw in [0, 1))."""
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if u < acc:
            return action
    return outcomes[-1][0]


def play(
    game_string: str, seconds: float, observe: bool = True, seed: int = 0
) -> tuple[float, float, float]:
    """Random games of `game_string` for about `seconds`, reading the information state
    tensor of each decision when `observe`: (decisions per second, games per second,
    microseconds per decision)."""
    game = pyspiel.load_game(game_string)
    obs_type = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    observation = make_observation(game, obs_type)
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pick(state.chance_outcomes(), rng.random()))
                continue
            if observe:
                observation.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed, 1e6 * elapsed / max(decisions, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_turn_options(parser, "row")
    parser.add_argument("--num-players", type=int, default=4, help="Kanaloa's table size")
    parser.add_argument(
        "--floor", action="store_true", help="add python_floor, a Python game without rules"
    )
    args = parser.parse_args()
    games = ["hearts", f"python_kanaloa(players={args.num_players})", "python_kahuna"]
    if args.floor:
        register_floor()
        games.append(FLOOR)
    rows = [(g, observe) for observe in (True, False) for g in games]
    results = best_in_turns(
        [lambda s, g=g, o=o: play(g, s, o) for g, o in rows], args.seconds, args.rounds
    )
    head = f"{'game':32s} {'observe':>8s} {'decisions/s':>12s} {'games/s':>9s}"
    print(f"{head} {'us/decision':>12s} {'x hearts':>9s}")
    hearts = {o: r[0] for (g, o), r in zip(rows, results, strict=True) if g == "hearts"}
    for (g, o), (rate, per_s, us) in zip(rows, results, strict=True):
        print(
            f"{g:32s} {'yes' if o else 'no':>8s} {rate:12.0f} {per_s:9.2f} {us:12.1f} "
            f"{rate / hearts[o]:9.2f}"
        )


if __name__ == "__main__":
    main()
