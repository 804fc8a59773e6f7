"""Tournaments between bots on the batched core, with win rates and multiplayer ratings.

```
python -m kanaloa_env.arena --bots heuristic random random random --players 4 \
    --games 2000 --seed 0 --out arena_results
```

```python
from kanaloa_env.arena import run_tournament
result = run_tournament(["heuristic", "random", "random", "random"], num_players=4,
                        num_games=2000, seed=0)
print(result.table())
result.write("arena_results")          # results.json, results.csv, games.csv, ratings.png
```

**Seating.** Entrants (a bot may appear several times; identical bots are distinct
entrants `random`, `random#2`, ...) are seated in blocks of `P` games. A block
takes one set of `P` entrants and one cyclic order of them and plays its `P`
rotations on the same deal (game `block` of the seed's stream, "duplicate"
style), so within a block every entrant sits in every seat once and plays every
hand. Blocks cycle through every set of entrants (when there are more entrants
than seats) and every cyclic order, in an order shuffled by the seed. With
`num_games` a multiple of `P` every entrant sits in every seat equally often.

**Batching.** All games of a batch (`batch_size`, default 8192) are stepped
together whatever their seating; at each step every bot acts once, on the
sub-batch of games where a seat it controls is to act. Finished games are
dropped from the batch as it goes. Observations are encoded only for bots that
read them (`kanaloa_env.bots.needs_observations`); bots with `uses_state = True`
get `view = public_view(state, seats)`.

**Results.** Per entrant: games, wins, win rate with a 95% Wilson interval, mean
finishing rank (the winner first, then by progress at the end; ties share the
mean of their places) and an openskill Plackett-Luce rating updated game by game
in game order from the finishing order (mu, sigma and ordinal = mu - 3 sigma).
The table is sorted by ordinal, best first (entrants that played no game last).

**Reproducibility and records.** The same arguments give the same results (the
bots draw from one generator seeded by `seed`; the deals are the core's stream
`seed`). Every game is known by `(seed, deal)`: it starts as
`init(config, 1, seed, first_game=deal)`. With `record_games=True` the result
also keeps every game's actions, so `TournamentResult.replay(i)` rebuilds game `i`
and `TournamentResult.records()` / `save_records(path)` hand them to
`kanaloa_env.records`.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._cli import positive_int
from .bots import make_bot, needs_observations, public_view
from .bots.base import Bot
from .bots.registry import bot_label
from .core import OBS_DIM, Config, init, observe, step_inplace
from .core.batch import check_positive_int
from .core.kanaloa.config import DOLPHIN_MODES
from .core.kanaloa.constants import MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS
from .core.kanaloa.setup import init_from_keys
from .core.kanaloa.state import State
from .core.rng import check_seed, game_keys
from .stats import wilson_interval

__all__ = [
    "EntrantStats",
    "TournamentResult",
    "finishing_ranks",
    "main",
    "run_tournament",
    "seat_schedule",
    "wilson_interval",
]

DEFAULT_BATCH_SIZE = 8192
MAX_ENTRANTS = 16
_COMPACT_FRACTION = 0.2  # drop finished games once this share of the batch is done
_SEATING_STREAM = 0x5EA7  # seeds the seating order apart from the bots' generator
_BOT_STREAM = 0xB075
_NO_OBS = np.zeros(OBS_DIM, dtype=np.float32)


@dataclass
class EntrantStats:
    """One row of the results table."""

    name: str
    spec: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float
    mu: float
    sigma: float
    ordinal: float
    seat_games: list[int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible row."""
        return dict(self.__dict__)


@dataclass
class TournamentResult:
    """Everything a tournament produced; per-game arrays have one row per game.

    Attributes:
        entrants: entrant names (unique), in the order given.
        specs: what each entrant was built from (bot name, model path, object name).
        config: the rules of every game.
        seed: the tournament seed (deals are the core's stream `seed`).
        batch_size: games stepped together.
        seating: (G, P) int16 entrant index per seat.
        deal: (G,) int64 index of each game in the stream `seed`.
        winner: (G,) int8 winning seat, -1 when the game was truncated (R9.4).
        progress: (G, P) int32 progress of each seat at the end (R9.1).
        rounds: (G,) int16 rounds played.
        decisions: (G,) int32 decisions taken.
        ranks: (G, P) float64 finishing rank per seat, 1 = first, ties share.
        stats: the table rows, best first.
        play_seconds: wall time spent playing; rating_seconds: rating the games.
        actions: with `record_games`, per game its actions (int16 arrays), else None.
    """

    entrants: list[str]
    specs: list[str]
    config: Config
    seed: int
    batch_size: int
    seating: np.ndarray
    deal: np.ndarray
    winner: np.ndarray
    progress: np.ndarray
    rounds: np.ndarray
    decisions: np.ndarray
    ranks: np.ndarray
    stats: list[EntrantStats] = field(default_factory=list)
    play_seconds: float = 0.0
    rating_seconds: float = 0.0
    actions: list[np.ndarray] | None = None

    @property
    def num_games(self) -> int:
        return int(len(self.deal))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def games_per_second(self) -> float:
        """Complete games per second of play (ratings not included)."""
        return self.num_games / self.play_seconds if self.play_seconds > 0 else float("inf")

    def seat_counts(self) -> np.ndarray:
        """(E, P) int: games each entrant played in each seat."""
        counts = np.zeros((len(self.entrants), self.num_players), dtype=np.int64)
        for s in range(self.num_players):
            counts[:, s] = np.bincount(self.seating[:, s], minlength=len(self.entrants))
        return counts

    def table(self) -> str:
        """The results table as text, best first."""
        head = (
            f"{'#':>2}  {'bot':<16} {'games':>7} {'win rate':>9} {'95% CI':>17} "
            f"{'mean rank':>9} {'mu':>7} {'sigma':>6} {'ordinal':>8}"
        )
        lines = [head, "-" * len(head)]
        for i, s in enumerate(self.stats, 1):
            lines.append(
                f"{i:>2}  {s.name:<16} {s.games:>7} {100 * s.win_rate:>8.1f}% "
                f"[{100 * s.ci_low:>5.1f}%, {100 * s.ci_high:>5.1f}%] "
                f"{s.mean_rank:>9.3f} {s.mu:>7.2f} {s.sigma:>6.2f} {s.ordinal:>8.2f}"
            )
        trunc = int((self.winner < 0).sum())
        lines.append(
            f"{self.num_games} games, {self.num_players} players, seed {self.seed}, "
            f"{trunc} truncated; {self.games_per_second:,.0f} games/s "
            f"({self.play_seconds:.2f} s play, {self.rating_seconds:.2f} s ratings)"
        )
        return "\n".join(lines)

    def game_info(self, i: int) -> dict[str, Any]:
        """Game `i`: how to rebuild its start, who sat where and how it ended."""
        i = int(i)
        if not 0 <= i < self.num_games:
            raise IndexError(f"game must be in 0..{self.num_games - 1}, got {i}")
        w = int(self.winner[i])
        info: dict[str, Any] = {
            "game": i,
            "seed": self.seed,
            "deal": int(self.deal[i]),
            "num_players": self.num_players,
            "config": self.config.overrides(),
            "seats": [self.entrants[e] for e in self.seating[i]],
            "winner_seat": None if w < 0 else w,
            "winner": None if w < 0 else self.entrants[self.seating[i, w]],
            "progress": self.progress[i].tolist(),
            "ranks": self.ranks[i].tolist(),
            "rounds": int(self.rounds[i]),
            "decisions": int(self.decisions[i]),
        }
        if self.actions is not None:
            info["actions"] = self.actions[i].tolist()
        return info

    def records(self) -> list[dict[str, Any]]:
        """`game_info` of every game (with actions when recorded)."""
        return [self.game_info(i) for i in range(self.num_games)]

    def replay(self, i: int) -> State:
        """Rebuild game `i` from its seed, deal and recorded actions; its final batch-1 state.

        Raises:
            ValueError: the games were not recorded (`record_games=False`).
            IndexError: `i` is not in 0..num_games-1.
        """
        if self.actions is None:
            raise ValueError("replay needs the actions: run the tournament with record_games=True")
        i = int(i)
        if not 0 <= i < self.num_games:
            raise IndexError(f"game must be in 0..{self.num_games - 1}, got {i}")
        state = init(self.config, 1, self.seed, first_game=int(self.deal[i]))
        for a in self.actions[i]:
            step_inplace(state, np.array([a], dtype=np.int64))
        return state

    def save_records(self, path: str | os.PathLike[str]) -> None:
        """Write every recorded game as `kanaloa_env.records` JSON lines (replays each once)."""
        if self.actions is None:
            raise ValueError("save_records needs record_games=True")
        from .records import write_records  # the game-record format lives there

        meta = [
            {"players": [self.entrants[e] for e in self.seating[g]], "arena_game": g}
            for g in range(self.num_games)
        ]
        write_records(
            path,
            self.config,
            [self.seed] * self.num_games,
            self.actions,
            games=self.deal.tolist(),
            meta=meta,
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-compatible data (per-game rows go to games.csv)."""
        counts = self.seat_counts()
        return {
            "format": "kanaloa-arena",
            "version": 1,
            "seed": self.seed,
            "num_players": self.num_players,
            "config": self.config.overrides(),
            "games": self.num_games,
            "truncated": int((self.winner < 0).sum()),
            "batch_size": self.batch_size,
            "entrants": [
                {"name": n, "spec": s} for n, s in zip(self.entrants, self.specs, strict=True)
            ],
            "rating": {"model": "openskill PlackettLuce", "ordinal": "mu - 3 sigma"},
            "table": [s.to_dict() for s in self.stats],
            "seat_games": {n: counts[e].tolist() for e, n in enumerate(self.entrants)},
            "play_seconds": self.play_seconds,
            "rating_seconds": self.rating_seconds,
            "games_per_second": self.games_per_second,
        }

    def write(self, out_dir: str | os.PathLike[str], records: bool = False) -> dict[str, str]:
        """Write results.json, results.csv (the table), games.csv and ratings.png to
        `out_dir`; with `records`, also every game as records in games.jsonl
        (`save_records`, needs `record_games=True`). results.json lists the files.

        Returns:
            The paths written, by kind.
        """
        if records and self.actions is None:
            raise ValueError("records need the actions: run the tournament with record_games=True")
        os.makedirs(out_dir, exist_ok=True)
        paths = {
            "json": os.path.join(out_dir, "results.json"),
            "csv": os.path.join(out_dir, "results.csv"),
            "games": os.path.join(out_dir, "games.csv"),
            "plot": os.path.join(out_dir, "ratings.png"),
        }
        if records:
            paths["records"] = os.path.join(out_dir, "games.jsonl")
            self.save_records(paths["records"])
        data = self.to_dict()
        data["files"] = {k: os.path.basename(v) for k, v in paths.items()}
        with open(paths["json"], "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        cols = [
            "rank",
            "bot",
            "spec",
            "games",
            "wins",
            "win_rate",
            "ci_low",
            "ci_high",
            "mean_rank",
            "mu",
            "sigma",
            "ordinal",
        ]
        with open(paths["csv"], "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for i, s in enumerate(self.stats, 1):
                w.writerow(
                    [
                        i,
                        s.name,
                        s.spec,
                        s.games,
                        s.wins,
                        f"{s.win_rate:.6f}",
                        f"{s.ci_low:.6f}",
                        f"{s.ci_high:.6f}",
                        f"{s.mean_rank:.6f}",
                        f"{s.mu:.6f}",
                        f"{s.sigma:.6f}",
                        f"{s.ordinal:.6f}",
                    ]
                )
        P = self.num_players
        with open(paths["games"], "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(
                ["game", "seed", "deal", "winner_seat", "winner", "rounds", "decisions"]
                + [f"seat{s}" for s in range(P)]
                + [f"progress{s}" for s in range(P)]
                + [f"rank{s}" for s in range(P)]
            )
            for g in range(self.num_games):
                win = int(self.winner[g])
                w.writerow(
                    [g, self.seed, int(self.deal[g])]
                    # as game_info: the winning seat and the entrant sitting there
                    + (["", ""] if win < 0 else [win, self.entrants[self.seating[g, win]]])
                    + [int(self.rounds[g]), int(self.decisions[g])]
                    + [self.entrants[e] for e in self.seating[g]]
                    + self.progress[g].tolist()
                    + [f"{r:g}" for r in self.ranks[g]]
                )
        self.plot(paths["plot"])
        return paths

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Save a PNG of each entrant's rating: mu with a +-3 sigma bar, the ordinal marked."""
        # The Agg canvas directly: no pyplot, so the caller's matplotlib backend is untouched.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        stats = self.stats[::-1]  # best on top
        fig = Figure(figsize=(7, 1.2 + 0.45 * len(stats)))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        y = np.arange(len(stats))
        mu = np.array([s.mu for s in stats])
        sig = np.array([s.sigma for s in stats])
        ax.errorbar(mu, y, xerr=3 * sig, fmt="o", capsize=4, label="mu ± 3 sigma")
        ax.plot([s.ordinal for s in stats], y, "|", markersize=14, label="ordinal (mu - 3 sigma)")
        ax.set_yticks(y, [s.name for s in stats])
        ax.set_xlabel("openskill Plackett-Luce rating")
        ax.set_title(
            f"Kanaloa arena: {self.num_games} games, {self.num_players} players, seed {self.seed}"
        )
        ax.grid(axis="x", alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        fig.tight_layout()
        fig.savefig(path, dpi=100)


# ---- seating, ranks, statistics ----------------------------------------------------


def seat_schedule(
    num_entrants: int, num_players: int, num_games: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Who sits where in each game, and which deal each game plays.

    Games come in blocks of `num_players`: one set of entrants in one cyclic
    order, rotated through every seat, all on the same deal (the block index).
    Blocks cycle through every set of entrants, and within each set through every
    cyclic order, in a seeded random order.

    Returns:
        seating: (G, P) int16 entrant index per seat.
        deal: (G,) int64 deal (stream game index) of each game.
    """
    E, P, G = num_entrants, num_players, num_games
    if E < P:
        raise ValueError(f"need at least {P} entrants for {P} seats, got {E}")
    rng = np.random.default_rng([check_seed(seed), _SEATING_STREAM])
    subsets = np.array(list(itertools.combinations(range(E), P)), dtype=np.int16)
    orders = np.array([(0, *p) for p in itertools.permutations(range(1, P))], dtype=np.intp)
    sub_perm = rng.permutation(len(subsets))
    ord_perm = rng.permutation(len(orders))
    n_blocks = -(-G // P)
    blocks = np.arange(n_blocks)
    members = subsets[sub_perm[blocks % len(subsets)]]
    order = orders[ord_perm[(blocks // len(subsets)) % len(orders)]]
    members = np.take_along_axis(members, order, axis=1)  # (n_blocks, P) in cyclic order
    g = np.arange(G)
    block, rot = g // P, g % P
    pos = (np.arange(P)[None, :] - rot[:, None]) % P  # seat s holds member (s - rot) % P
    seating = members[block[:, None], pos].astype(np.int16)
    return seating, block.astype(np.int64)


def finishing_ranks(progress: np.ndarray, winner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finishing places per seat: the winner first, the rest by progress at the end.

    Args:
        progress: (G, P) progress at the end (R9.1).
        winner: (G,) winning seat, -1 for a truncated game (ranked by progress only).

    Returns:
        fractional: (G, P) float64 places 1..P, tied seats sharing the mean place.
        competition: (G, P) int places for ratings: 1 + seats strictly ahead (ties equal).
    """
    G, P = progress.shape
    key = progress.astype(np.float64)
    has = winner >= 0
    key[np.flatnonzero(has), winner[has]] = np.inf
    ahead = (key[:, None, :] > key[:, :, None]).sum(axis=2)
    tied = (key[:, None, :] == key[:, :, None]).sum(axis=2) - 1
    return 1.0 + ahead + tied / 2.0, 1 + ahead


# ---- playing -------------------------------------------------------------------------


@dataclass
class _Group:
    """One bot object and how to call it."""

    bot: Bot
    label: str
    wants_obs: bool
    wants_state: bool


def _entrants(
    bots: Sequence[str | os.PathLike[str] | Bot],
) -> tuple[list[str], list[str], list[_Group], np.ndarray]:
    """Entrant names and specs, the distinct bot objects and each entrant's group."""
    groups: list[_Group] = []
    by_key: dict[Any, int] = {}
    labels: list[str] = []
    specs: list[str] = []
    group_of: list[int] = []
    for spec in bots:
        # The same name or path is one bot object (bots are stateless batch policies).
        key = os.fspath(spec) if isinstance(spec, (str, os.PathLike)) else id(spec)
        if key not in by_key:
            bot = make_bot(spec)
            by_key[key] = len(groups)
            groups.append(
                _Group(
                    bot=bot,
                    label=bot_label(spec, bot),
                    wants_obs=needs_observations(bot),
                    wants_state=bool(getattr(bot, "uses_state", False)),
                )
            )
        gi = by_key[key]
        labels.append(groups[gi].label)
        specs.append(key if isinstance(key, str) else groups[gi].label)
        group_of.append(gi)
    return _unique_names(labels), specs, groups, np.array(group_of, dtype=np.intp)


def _unique_names(labels: list[str]) -> list[str]:
    """Each label, numbered `label#2`, `label#3`, ... from its second use, skipping
    numbers that another entrant's label already is (a bot may be named "random#2")."""
    taken, names = set(labels), []
    used: set[str] = set()
    for label in labels:
        name, k = label, 1
        while name in used or (name != label and name in taken):
            k += 1
            name = f"{label}#{k}"
        used.add(name)
        names.append(name)
    return names


def _act(group: _Group, state: State, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The actions of `group`'s bot in games `idx` of `state`, checked for legality."""
    masks = state.legal[idx]
    # The bot's games as a batch of their own; a bot that reads neither observations
    # nor the state never sees them, so it skips the copy.
    sub = state.take(idx) if group.wants_obs or group.wants_state else state
    if group.wants_obs:
        obs = observe(sub)
    else:
        # The bot declared it does not read them: a read-only zero view costs nothing.
        obs = np.broadcast_to(_NO_OBS, (len(idx), OBS_DIM))
    kwargs: dict[str, Any] = {}
    if group.wants_state:
        seats = sub.current_player.astype(np.int64)
        kwargs = {"view": public_view(sub, seats), "seats": seats}
    actions = np.asarray(group.bot.act(obs, masks, rng, **kwargs))
    if actions.shape != (len(idx),) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"bot {group.label!r} returned {actions.dtype} actions of shape {actions.shape}, "
            f"expected ({len(idx)},) integers"
        )
    actions = actions.astype(np.int64)
    ok = (actions >= 0) & (actions < NUM_ACTIONS)
    ok[ok] = masks[np.flatnonzero(ok), actions[ok]]
    if not ok.all():
        bad = np.flatnonzero(~ok)[0]
        raise ValueError(
            f"bot {group.label!r} chose illegal action {int(actions[bad])} "
            f"(phase {int(state.phase[idx[bad]])}, legal: {np.flatnonzero(masks[bad]).tolist()})"
        )
    return actions


def _play_batch(
    config: Config,
    seed: int,
    deals: np.ndarray,
    seat_group: np.ndarray,
    groups: list[_Group],
    rng: np.random.Generator,
    record: bool,
    bar: Any,
) -> dict[str, Any]:
    """Play the games with `deals` to the end; `seat_group` (n, P) names the group per seat."""
    n, P = seat_group.shape
    state = init_from_keys(config, game_keys(seed, deals))
    pos = np.arange(n)  # batch row -> game of this batch
    out: dict[str, Any] = {
        "winner": np.full(n, -1, dtype=np.int8),
        "progress": np.zeros((n, P), dtype=np.int32),
        "rounds": np.zeros(n, dtype=np.int16),
        "decisions": np.zeros(n, dtype=np.int32),
    }
    log: list[tuple[np.ndarray, np.ndarray]] = []
    reported = 0

    def finish(rows: np.ndarray) -> None:
        g = pos[rows]
        out["winner"][g] = state.winner[rows]
        out["progress"][g] = state.progress[rows]
        out["rounds"][g] = state.round[rows]

    while True:
        done = state.terminated | state.truncated
        n_done = int(done.sum())
        if n_done > reported:
            bar.update(n_done - reported)
            reported = n_done
        if n_done == len(pos):
            finish(np.arange(len(pos)))
            break
        if n_done >= max(1, _COMPACT_FRACTION * len(pos)):
            finish(np.flatnonzero(done))
            keep = np.flatnonzero(~done)
            state, pos, seat_group = state.take(keep), pos[keep], seat_group[keep]
            done = np.zeros(len(keep), dtype=bool)
            reported = 0
        cp = state.current_player.astype(np.intp)
        live = ~done
        rows = np.arange(len(pos))
        who = np.where(live, seat_group[rows, np.maximum(cp, 0)], -1)
        actions = np.zeros(len(pos), dtype=np.int64)
        for gi, group in enumerate(groups):
            idx = np.flatnonzero(who == gi)
            if idx.size:
                actions[idx] = _act(group, state, idx, rng)
        step_inplace(state, actions)
        out["decisions"][pos[live]] += 1
        if record:
            log.append((pos[live], actions[live].astype(np.int16)))
    if record:
        if log:
            g_all = np.concatenate([g for g, _ in log])
            a_all = np.concatenate([a for _, a in log])
        else:
            g_all = np.zeros(0, dtype=np.intp)
            a_all = np.zeros(0, dtype=np.int16)
        order = np.argsort(g_all, kind="stable")  # per game, in step order
        counts = np.bincount(g_all, minlength=n)
        out["actions"] = np.split(a_all[order], np.cumsum(counts)[:-1])
    return out


def _make_config(num_players: int | None, config: Config | Mapping[str, Any] | None) -> Config:
    if isinstance(config, Config):
        if num_players is not None and config.num_players != num_players:
            raise ValueError(
                f"config.num_players is {config.num_players} but num_players is {num_players}"
            )
        return config
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(f"config must be a Config or a dict of overrides, got {type(config)}")
    n = 4 if num_players is None else num_players
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"num_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}")
    return Config.from_dict(int(n), dict(config or {}))


def run_tournament(
    bots: Sequence[str | os.PathLike[str] | Bot],
    num_players: int | None = None,
    num_games: int = 1000,
    seed: int = 0,
    config: Config | Mapping[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    record_games: bool = False,
    progress: bool = False,
) -> TournamentResult:
    """Play a seat-balanced tournament among `bots` and rate them.

    Args:
        bots: at least `num_players` bot specs (`make_bot`: "random", "heuristic",
            a model path, or bot objects); repeats are distinct entrants.
        num_players: table size 3..5 (default: the config's, else 4).
        num_games: games to play; a multiple of `num_players` balances the seats.
        seed: seeds the deals, the seating order and the bots' random generator.
        config: a `Config`, or a dict of `Config` overrides (e.g.
            `{"nil_announcement": True}`).
        batch_size: games stepped together (memory grows with it).
        record_games: keep every game's actions (`TournamentResult.replay`).
        progress: show a tqdm progress bar on stderr.

    Returns:
        A `TournamentResult`.

    Raises:
        ValueError / TypeError: a bad bot spec, table size, game count, seed,
            batch size or config, naming what is wrong.
    """
    cfg = _make_config(num_players, config)
    P = cfg.num_players
    seed = check_seed(seed)
    check_positive_int(num_games, "num_games")
    check_positive_int(batch_size, "batch_size")
    if not isinstance(bots, (Sequence, np.ndarray)) or isinstance(bots, (str, os.PathLike)):
        raise TypeError(f"bots must be a list of bot specs, got {type(bots).__name__}")
    if len(bots) < P:
        raise ValueError(f"need at least {P} bots for {P} seats, got {bots!r}")
    if len(bots) > MAX_ENTRANTS:
        raise ValueError(f"at most {MAX_ENTRANTS} bots per tournament, got {len(bots)}")
    names, specs, groups, group_of = _entrants(bots)
    seating, deal = seat_schedule(len(names), P, int(num_games), seed)
    rng = np.random.default_rng([seed, _BOT_STREAM])
    G = int(num_games)
    winner = np.full(G, -1, dtype=np.int8)
    prog = np.zeros((G, P), dtype=np.int32)
    rounds = np.zeros(G, dtype=np.int16)
    decisions = np.zeros(G, dtype=np.int32)
    actions: list[np.ndarray] | None = [] if record_games else None

    from tqdm import tqdm  # plain text bar on stderr, also under Jupyter

    start = time.perf_counter()
    with tqdm(
        total=G, file=sys.stderr, disable=not progress, unit="game", desc="arena", leave=False
    ) as bar:
        for lo in range(0, G, int(batch_size)):
            hi = min(G, lo + int(batch_size))
            out = _play_batch(
                cfg, seed, deal[lo:hi], group_of[seating[lo:hi]], groups, rng, record_games, bar
            )
            winner[lo:hi] = out["winner"]
            prog[lo:hi] = out["progress"]
            rounds[lo:hi] = out["rounds"]
            decisions[lo:hi] = out["decisions"]
            if actions is not None:
                actions.extend(out["actions"])
    play_seconds = time.perf_counter() - start

    frac, comp = finishing_ranks(prog, winner.astype(np.intp))
    result = TournamentResult(
        entrants=names,
        specs=specs,
        config=cfg,
        seed=seed,
        batch_size=int(batch_size),
        seating=seating,
        deal=deal,
        winner=winner,
        progress=prog,
        rounds=rounds,
        decisions=decisions,
        ranks=frac,
        play_seconds=play_seconds,
        actions=actions,
    )
    start = time.perf_counter()
    mu, sigma, ordinal = _ratings(seating, comp, len(names))
    result.rating_seconds = time.perf_counter() - start
    result.stats = _stats(result, mu, sigma, ordinal)
    return result


def _ratings(
    seating: np.ndarray, ranks: np.ndarray, num_entrants: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """openskill Plackett-Luce ratings after rating every game in order; (E,) mu, sigma, ordinal."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(num_entrants)]
    for seats, rank in zip(seating.tolist(), ranks.tolist(), strict=True):
        new = model.rate([[ratings[e]] for e in seats], ranks=rank)
        for e, team in zip(seats, new, strict=True):
            ratings[e] = team[0]
    mu = np.array([r.mu for r in ratings])
    sigma = np.array([r.sigma for r in ratings])
    return mu, sigma, np.array([r.ordinal() for r in ratings])


def _stats(
    result: TournamentResult, mu: np.ndarray, sigma: np.ndarray, ordinal: np.ndarray
) -> list[EntrantStats]:
    E, P = len(result.entrants), result.num_players
    games = np.bincount(result.seating.ravel(), minlength=E)
    won = result.winner >= 0
    win_ent = result.seating[np.flatnonzero(won), result.winner[won].astype(np.intp)]
    wins = np.bincount(win_ent, minlength=E)
    rank_sum = np.bincount(result.seating.ravel(), weights=result.ranks.ravel(), minlength=E)
    counts = result.seat_counts()
    rows = []
    for e in range(E):
        lo, hi = wilson_interval(int(wins[e]), int(games[e]))
        rows.append(
            EntrantStats(
                name=result.entrants[e],
                spec=result.specs[e],
                games=int(games[e]),
                wins=int(wins[e]),
                win_rate=float(wins[e] / games[e]) if games[e] else 0.0,
                ci_low=lo,
                ci_high=hi,
                mean_rank=float(rank_sum[e] / games[e]) if games[e] else float(P),
                mu=float(mu[e]),
                sigma=float(sigma[e]),
                ordinal=float(ordinal[e]),
                seat_games=counts[e].tolist(),
            )
        )
    # An entrant that played no game has the prior rating, which would place it above
    # every entrant whose games lowered theirs: it goes last.
    rows.sort(key=lambda s: (s.games == 0, -s.ordinal, -s.win_rate, s.name))
    return rows


# ---- command line ------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kanaloa_env.arena",
        description="Play a seat-balanced Kanaloa tournament among bots and rate them "
        "(win rate with 95% Wilson interval, mean finishing rank, openskill "
        "Plackett-Luce rating).",
        epilog="example: python -m kanaloa_env.arena --bots heuristic random random random "
        "--players 4 --games 2000 --seed 0 --out arena_results",
    )
    p.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="entrants: 'random', 'heuristic', 'ppo' (the shipped trained policy), a policy "
        "file (.npz) or a saved MaskablePPO model (.zip, unpickled: trusted files only); "
        "at least --players of them, repeats allowed (named bot#2, ...)",
    )
    p.add_argument(
        "--players",
        type=int,
        default=4,
        choices=range(MIN_PLAYERS, MAX_PLAYERS + 1),
        metavar="P",
        help="table size 3..5 (default 4)",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        default=1000,
        help="games to play (default 1000); a multiple of --players balances the seats",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of deals, seating and bots")
    p.add_argument(
        "--out",
        default="arena_results",
        help="directory for results.json, results.csv, games.csv, ratings.png "
        "(default arena_results)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=DEFAULT_BATCH_SIZE,
        help=f"games stepped together (default {DEFAULT_BATCH_SIZE})",
    )
    p.add_argument(
        "--announce", action="store_true", help="play the 'announce no tricks' variant (R3.2)"
    )
    p.add_argument(
        "--announced-boat-moves",
        action="store_true",
        help="a player who announced still moves for tricks won (R7.4)",
    )
    p.add_argument("--dolphin", choices=DOLPHIN_MODES, default=None, help="dolphin move (R6.3)")
    p.add_argument(
        "--dolphin-chain", action="store_true", help="a dolphin bonus move may chain (R6.3)"
    )
    p.add_argument(
        "--max-rounds", type=positive_int, default=None, help="truncate after N rounds (R9.4)"
    )
    p.add_argument(
        "--config",
        default=None,
        metavar="JSON",
        help='further Config overrides as JSON, e.g. \'{"dolphin": "automatic"}\'',
    )
    p.add_argument(
        "--record",
        action="store_true",
        help="also save every game (seed, deal, actions) to OUT/games.jsonl "
        "in the kanaloa_env.records format",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def _cli_config(args: argparse.Namespace) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    if args.config:
        try:
            extra = json.loads(args.config)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--config is not valid JSON: {exc}") from None
        if not isinstance(extra, dict):
            raise ValueError("--config must be a JSON object of Config overrides")
        overrides.update(extra)
    if args.announce:
        overrides["nil_announcement"] = True
    if args.announced_boat_moves:
        overrides["announced_boat_moves"] = True
    if args.dolphin is not None:
        overrides["dolphin"] = args.dolphin
    if args.dolphin_chain:
        overrides["dolphin_chain"] = True
    if args.max_rounds is not None:
        overrides["max_rounds"] = args.max_rounds
    return overrides


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (2 for bad arguments, with a message)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if len(args.bots) < args.players:
        parser.error(
            f"--bots needs at least --players={args.players} entries, got {len(args.bots)}"
        )
    try:
        result = run_tournament(
            args.bots,
            num_players=args.players,
            num_games=args.games,
            seed=args.seed,
            config=_cli_config(args),
            batch_size=args.batch_size,
            record_games=args.record,
            progress=not args.no_progress,
        )
    except (ValueError, TypeError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.games % args.players:
        print(
            f"note: {args.games} games is not a multiple of {args.players}; "
            "seats are balanced only up to the last partial block",
            file=sys.stderr,
        )
    try:
        # Files first: the results are kept even if stdout is closed early (a pipe to head).
        paths = result.write(args.out, records=args.record)
    except OSError as exc:
        print(f"{parser.prog}: error: cannot write results to {args.out!r}: {exc}", file=sys.stderr)
        return 2
    print(result.table())
    print("wrote " + ", ".join(paths.values()))
    return 0


def _run_cli() -> None:
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); results are already written.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    _run_cli()
