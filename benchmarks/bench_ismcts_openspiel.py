"""OpenSpiel's IS-MCTS (`open_spiel.python.algorithms.ismcts`) on our OpenSpiel games against
our heuristic and search bots, at a few simulation budgets.

```
python benchmarks/bench_ismcts_openspiel.py                           # the docs' figures
python benchmarks/bench_ismcts_openspiel.py --budgets 10 --games 2 --opponents heuristic
```

Each cell plays `--games` games of one game with IS-MCTS at one seat and the opponent
bot (`kanaloa_env.openspiel.OpenSpielBot`) at every other seat, IS-MCTS's seat going round
the table (seat-balanced: the same number of games at each seat when `--games` is a
multiple of the table size). IS-MCTS: UCT constant 2, one random rollout per leaf
(`mcts.RandomRolloutEvaluator`), unlimited world samples (our `resample_from_infostate`,
the belief sampling of `Game.determinize`), the most visited action, keyed by the
information state string. Its score: a win 1, a draw 1/2 (Kahuna), otherwise 0, with a
95% Wilson interval; in Kanaloa a seat's fair share is 1/P. CPU per decision is IS-MCTS's
own (`time.process_time` around its `step`). Prints a table and writes `--out` (JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kanaloa_env.openspiel import OpenSpielBot

GAMES = {"kanaloa": "python_kanaloa(players=3)", "kahuna": "python_kahuna"}


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate `score / n`."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_cell(game_name: str, opponent: str, budget: int, games: int, seed: int) -> dict:
    """`games` games of IS-MCTS (`budget` simulations a decision) against `opponent`."""
    game = pyspiel.load_game(GAMES[game_name])
    P = game.num_players()
    rng = np.random.default_rng(seed)
    score = 0.0
    cpu = 0.0
    decisions = 0
    for g in range(games):
        seat = g % P
        rs = np.random.RandomState(seed * 1000 + g)
        searcher = ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, rs), 2.0, budget, random_state=rs
        )
        bots = {p: OpenSpielBot(game, p, opponent, seed=seed * 1000 + g) for p in range(P)}
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            player = state.current_player()
            if player == seat:
                start = time.process_time()
                action = searcher.step(state)
                cpu += time.process_time() - start
                decisions += 1
            else:
                action = bots[player].step(state)
            state.apply_action(action)
        mine = state.returns()[seat]
        best = max(state.returns())
        score += 1.0 if mine == best and mine > 0 else 0.5 if mine == best else 0.0
    lo, hi = wilson(score, games)
    return {
        "game": game_name,
        "opponent": opponent,
        "budget": budget,
        "games": games,
        "score": score / games,
        "interval": [lo, hi],
        "fair_share": 1.0 / P,
        "cpu_ms_per_decision": 1000 * cpu / max(decisions, 1),
        "decisions": decisions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--games", type=int, default=6, help="games per cell")
    parser.add_argument("--opponents", nargs="+", default=["heuristic", "search"])
    parser.add_argument("--only", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the cells as JSON")
    args = parser.parse_args()
    cells = []
    print(
        f"{'game':8s} {'opponent':10s} {'budget':>6s} {'games':>5s} {'score':>6s} "
        f"{'95% interval':>15s} {'fair':>5s} {'CPU ms/decision':>16s}"
    )
    for name in args.only:
        for opponent in args.opponents:
            for budget in args.budgets:
                c = play_cell(name, opponent, budget, args.games, args.seed)
                cells.append(c)
                lo, hi = c["interval"]
                print(
                    f"{name:8s} {opponent:10s} {budget:6d} {c['games']:5d} {c['score']:6.2f} "
                    f"  [{lo:.2f}, {hi:.2f}] {c['fair_share']:5.2f} "
                    f"{c['cpu_ms_per_decision']:16.1f}",
                    flush=True,
                )
    if args.out is not None:
        args.out.write_text(json.dumps(cells, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
