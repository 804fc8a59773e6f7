"""Fit the search bot's value of a round boundary: each seat's chance to win the game.

The search bot (`kanaloa_env.bots.search`, with Kanaloa's pieces
`kanaloa_env.games.kanaloa.search`) plays rollouts to the end of the current round
and values the position there with `win_chances`: a conditional logit over the
seats, seat p's chance proportional to exp(w . f_p), with the features of
`kanaloa_env.games.kanaloa.search._features` (lead over the best other boat
and margin over the last other boat, in laps of the current route, and whether
the boat is last). This script plays heuristic self-play games, records the
boats at the start of every round after the first, labels each record with the
game's eventual winner, and fits `w` per table size by Newton's method (maximum
likelihood, a tiny L2 penalty). Games with even index train, odd ones test; it
prints the test log-loss against the uniform guess and the weights to paste into
`WIN_WEIGHTS`.

    python benchmarks/fit_search_value.py                 # 4000 games per table size
    python benchmarks/fit_search_value.py --games 1000 --players 4
"""

from __future__ import annotations

import argparse

import numpy as np

from kanaloa_env.core.kanaloa import Config, init, route, step
from kanaloa_env.games.kanaloa.heuristic import HeuristicBot
from kanaloa_env.games.kanaloa.search import _features


def play(players: int, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heuristic self-play; per round start after the first: (features, winner, game)."""
    state = init(Config(num_players=players), games, seed=seed)
    bot = HeuristicBot()
    rng = np.random.default_rng(seed)
    feats, game = [], []
    last_round = state.round.copy()
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        actions = np.zeros(games, dtype=np.int64)
        seats = sub.current_player.astype(np.int64)
        actions[live] = bot.act(None, sub.legal, rng, view=sub, seats=seats)
        state = step(state, actions)
        new = np.flatnonzero((state.round > last_round) & ~state.done)
        if new.size:
            lap = route.lap_length(state, new).astype(np.float64)
            feats.append(_features(state.progress[new].astype(np.float64), lap))
            game.append(new)
        last_round = state.round.copy()
    g = np.concatenate(game)
    return np.concatenate(feats), state.winner[g].astype(np.int64), g


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-4, iters: int = 30) -> np.ndarray:
    """Maximum-likelihood weights of a conditional logit: X (N, P, F), y (N,) seats."""
    N, _, F = X.shape
    w = np.zeros(F)
    rows = np.arange(N)
    for _ in range(iters):
        p = _probs(X, w)
        mean = (p[:, :, None] * X).sum(axis=1)  # (N, F)
        grad = (X[rows, y] - mean).sum(axis=0) - l2 * N * w
        hess = np.einsum("np,npf,npg->fg", p, X, X) - mean.T @ mean + l2 * N * np.eye(F)
        w += np.linalg.solve(hess, grad)
    return w


def _probs(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    z = X @ w
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def log_loss(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean negative log-likelihood of the winners."""
    return float(-np.log(_probs(X, w)[np.arange(len(y)), y]).mean())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=[3, 4, 5])
    p.add_argument("--games", type=int, default=4000, help="self-play games per table size")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args()
    weights = {}
    for players in args.players:
        X, y, g = play(players, args.games, args.seed + players)
        ok = y >= 0  # (a truncated game has no winner)
        train, test = ok & (g % 2 == 0), ok & (g % 2 == 1)
        w = fit(X[train], y[train])
        weights[players] = w
        print(
            f"{players} players: {len(y)} round starts; test log-loss "
            f"{log_loss(X[test], y[test], w):.4f} (uniform {np.log(players):.4f})"
        )
    print("WIN_WEIGHTS = {")
    for players, w in weights.items():
        print(f"    {players}: np.array([{', '.join(f'{x:.3f}' for x in w)}]),")
    print("}")


if __name__ == "__main__":
    main()
