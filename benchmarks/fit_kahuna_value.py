"""Fit the Kahuna search bot's value of a position after scoring 1 or 2: a chance to win.

The search bot (`SearchBot(game="kahuna")`, pieces in `kanaloa_env.games.kahuna.search`)
plays rollouts to the next scoring and values the position there with `win_chance`:
a logistic model of `value_features` (points, stones and bridges of the seat less the
opponent's, and who is to act). This script plays heuristic self-play games, records
both players' features right after scorings 1 and 2 of every game still running,
labels each with whether that player went on to win (draws count one half), and fits
the weights per scoring by Newton's method (maximum likelihood, no intercept: the
features change sign with the seat, so a symmetric model needs none; a tiny L2
penalty). Games with even index train, odd ones test; it prints the test log-loss
against the constant guess 0.5 and the weights to paste into `VALUE_WEIGHTS`.

    python benchmarks/fit_kahuna_value.py                 # 4000 games
    python benchmarks/fit_kahuna_value.py --games 1000
"""

from __future__ import annotations

import argparse

import numpy as np

from kanaloa_env.core.kahuna import Config, init, step_inplace
from kanaloa_env.games.kahuna.heuristic import HeuristicBot
from kanaloa_env.games.kahuna.search import value_features

NO_OBS = np.zeros((0, 0), dtype=np.float32)  # the heuristic reads no observations


def play(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Heuristic self-play; per player and scoring 1 or 2 of a running game: (features,
    outcome 1/0.5/0 for that player, scorings done, game)."""
    state = init(Config(), games, seed=seed)
    bot = HeuristicBot()
    rng = np.random.default_rng(seed)
    feats, seat, when, game = [], [], [], []
    last = state.num_scorings.copy()
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        actions = np.zeros(games, dtype=np.int64)
        seats = sub.current_player.astype(np.int64)
        actions[live] = bot.act(NO_OBS, sub.legal, rng, view=sub, seats=seats)
        step_inplace(state, actions, validate=False)
        new = np.flatnonzero((state.num_scorings > last) & ~state.done)
        if new.size:
            sub = state.take(new)
            for p in (0, 1):
                feats.append(value_features(sub, np.full(len(new), p)))
                seat.append(np.full(len(new), p))
                when.append(sub.num_scorings.astype(np.int64))
                game.append(new)
        last = state.num_scorings.copy()
    g = np.concatenate(game)
    s = np.concatenate(seat)
    winner = state.winner[g].astype(np.int64)
    outcome = np.where(winner < 0, 0.5, (winner == s).astype(np.float64))
    return np.concatenate(feats), outcome, np.concatenate(when), g


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-4, iters: int = 30) -> np.ndarray:
    """Maximum-likelihood logistic weights (no intercept): X (N, F), y (N,) in [0, 1]."""
    N, F = X.shape
    w = np.zeros(F)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-X @ w))
        grad = X.T @ (y - p) - l2 * N * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + l2 * N * np.eye(F)
        w += np.linalg.solve(hess, grad)
    return w


def log_loss(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean cross-entropy of the outcomes under the model."""
    p = np.clip(1.0 / (1.0 + np.exp(-X @ w)), 1e-12, 1 - 1e-12)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4000, help="self-play games")
    p.add_argument("--seed", type=int, default=2025)
    args = p.parse_args()
    X, y, when, g = play(args.games, args.seed)
    weights = {}
    for k in (1, 2):
        rows = when == k
        train, test = rows & (g % 2 == 0), rows & (g % 2 == 1)
        w = fit(X[train], y[train])
        weights[k] = w
        print(
            f"after scoring {k}: {int(rows.sum())} rows; test log-loss "
            f"{log_loss(X[test], y[test], w):.4f} (constant 0.5: {np.log(2):.4f})"
        )
    print("VALUE_WEIGHTS = {")
    for k, w in weights.items():
        print(f"    {k}: np.array([{', '.join(f'{x:.3f}' for x in w)}]),")
    print("}")


if __name__ == "__main__":
    main()
