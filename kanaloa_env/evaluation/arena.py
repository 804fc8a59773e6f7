"""Tournaments between bots on the batched engines, with win rates and multiplayer ratings.

```
python -m kanaloa_env.arena --bots heuristic random random random --players 4 \
    --games 2000 --seed 0 --out runs/arena/kanaloa
python -m kanaloa_env.arena --game kahuna --bots heuristic random --games 2000
```

```python
from kanaloa_env.arena import run_tournament
result = run_tournament(["heuristic", "random", "random", "random"], num_players=4,
                        num_games=2000, seed=0)
result = run_tournament(["heuristic", "random"], game="kahuna", num_games=2000, seed=0)
print(result.table())
result.write("runs/arena/mine")      # results.json, results.csv, games.csv, ratings.png
```

Any game of the package (`game="kanaloa"`, the default, or `"kahuna"`); everything
game-specific comes through the game protocol.

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
finishing rank (the game's `final_ranks`: Kanaloa ranks the winner first, then by
progress at the end; Kahuna the winner first; ties share the mean of their
places) and an openskill Plackett-Luce rating updated game by game in game order
from the finishing order (mu, sigma and ordinal = mu - 3 sigma). The table is
ordered by what it shows first: the win rate, best first, ties broken by the mean
rank (lower first), then by the ordinal (entrants that played no game last). The
rating can order the entrants differently (it weighs every place, not only wins,
and later games more than earlier ones): the ordinal is a column, and the table's
last lines say what orders it.

**Reproducibility and records.** The same arguments give the same results (the
bots draw from one generator seeded by `seed`; the deals are the engine's stream
`seed`). Every game is known by `(seed, deal)`: it starts as game `deal` of the
stream `seed` (`Game.init_game(config, seed, deal)`). With `record_games=True` the result
also keeps every game's actions, so `TournamentResult.replay(i)` rebuilds game `i`
and `TournamentResult.records()` / `save_records(path)` hand them to
`kanaloa_env.records`.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..bots.base import Bot
from ..bots.call import bot_actions
from ..bots.registry import bot_label, make_bot
from ..core.batch import GameState, check_positive_int
from ..core.files import atomic_output_dir
from ..core.rng import check_seed, game_keys
from ..drawing.terminal import plural
from ..games import get_game
from ..games.protocol import Game
from .ratings import competition_ranks, openskill_ratings
from .stats import wilson_interval

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "EntrantStats",
    "TournamentResult",
    "run_tournament",
    "seat_schedule",
    "wilson_interval",
]

DEFAULT_BATCH_SIZE = 8192
MAX_ENTRANTS = 16
_COMPACT_FRACTION = 0.2  # drop finished games once this share of the batch is done
_SEATING_STREAM = 0x5EA7  # seeds the seating order apart from the bots' generator
_BOT_STREAM = 0xB075
#: The table's last-but-one lines: what orders the rows, and why the rating may disagree.
ORDER_NOTE = (
    "ordered by win rate, best first (ties: mean rank, then ordinal); win rates count wins only\n"
    "the rating (ordinal = mu - 3 sigma) weighs every place, later games more: its order may differ"
)


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
        game: the game (`kanaloa_env.games.Game`).
        entrants: entrant names (unique), in the order given.
        specs: what each entrant was built from (bot name, model path, object name).
        config: the rules of every game.
        seed: the tournament seed (deals are the engine's stream `seed`).
        batch_size: games stepped together.
        seating: (G, P) int16 entrant index per seat.
        deal: (G,) int64 index of each game in the stream `seed`.
        winner: (G,) int8 winning seat, -1 when nobody won (a draw, or a game cut
            short: Kanaloa's `max_rounds`, R9.4).
        decisions: (G,) int32 decisions taken.
        ranks: (G, P) float64 finishing rank per seat, 1 = first, ties share.
        summary: the game's per-game figures (`Game.game_summary`; Kanaloa:
            `rounds` (G,) and `progress` (G, P) at the end, R9.1).
        stats: the table rows, best first (by win rate, then mean rank, then ordinal).
        play_seconds: wall time spent playing; rating_seconds: rating the games.
        actions: with `record_games`, per game its actions (int16 arrays), else None.
    """

    game: Game[Any, Any]
    entrants: list[str]
    specs: list[str]
    config: Any
    seed: int
    batch_size: int
    seating: np.ndarray
    deal: np.ndarray
    winner: np.ndarray
    decisions: np.ndarray
    ranks: np.ndarray
    summary: dict[str, np.ndarray] = field(default_factory=dict)
    stats: list[EntrantStats] = field(default_factory=list)
    play_seconds: float = 0.0
    rating_seconds: float = 0.0
    actions: list[np.ndarray] | None = None

    @property
    def num_games(self) -> int:
        """The number of games played."""
        return int(len(self.deal))

    @property
    def num_players(self) -> int:
        """The players at each table."""
        return self.game.num_players_of(self.config)

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
        """The results table as text, in the order of `stats` (win rate, best first)."""
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
        nobody = int((self.winner < 0).sum())
        lines.append(ORDER_NOTE)
        rate = self.games_per_second
        speed = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"  # slow bots: 0.16, not 0
        lines.append(
            f"{self.game.title}: {plural(self.num_games, 'game')}, {self.num_players} players, "
            f"seed {self.seed}, {nobody} without a winner; {speed} games/s "
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
            "config": self.game.config_overrides(self.config),
            "seats": [self.entrants[e] for e in self.seating[i]],
            "winner_seat": None if w < 0 else w,
            "winner": None if w < 0 else self.entrants[self.seating[i, w]],
            "ranks": self.ranks[i].tolist(),
            "decisions": int(self.decisions[i]),
        }
        for k, v in self.summary.items():
            info[k] = v[i].tolist()
        if self.actions is not None:
            info["actions"] = self.actions[i].tolist()
        return info

    def records(self) -> list[dict[str, Any]]:
        """`game_info` of every game (with actions when recorded)."""
        return [self.game_info(i) for i in range(self.num_games)]

    def replay(self, i: int) -> GameState:
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
        state = self.game.init_game(self.config, self.seed, int(self.deal[i]))
        for a in self.actions[i]:
            self.game.step_inplace(state, np.array([a], dtype=np.int64))
        return state

    def save_records(self, path: str | os.PathLike[str]) -> None:
        """Write every recorded game to `path` as `kanaloa_env.records` JSON lines (replays
        each once)."""
        if self.actions is None:
            raise ValueError("save_records needs record_games=True")
        from ..records import write_records  # the game-record format lives there

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
            game=self.game,
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-compatible data (per-game rows go to games.csv)."""
        counts = self.seat_counts()
        return {
            "format": "kanaloa-arena",
            "version": 2,
            "game": self.game.name,
            "seed": self.seed,
            "num_players": self.num_players,
            "config": self.game.config_overrides(self.config),
            "games": self.num_games,
            "no_winner": int((self.winner < 0).sum()),
            "batch_size": self.batch_size,
            "entrants": [
                {"name": n, "spec": s} for n, s in zip(self.entrants, self.specs, strict=True)
            ],
            "rating": {"model": "openskill PlackettLuce", "ordinal": "mu - 3 sigma"},
            "order": "table rows by win rate, best first; ties by mean rank, then ordinal",
            "table": [s.to_dict() for s in self.stats],
            "seat_games": {n: counts[e].tolist() for e, n in enumerate(self.entrants)},
            "play_seconds": self.play_seconds,
            "rating_seconds": self.rating_seconds,
            "games_per_second": self.games_per_second,
        }

    def write(
        self,
        out_dir: str | os.PathLike[str],
        records: bool = False,
        overwrite: bool = False,
        make_parents: bool = True,
    ) -> dict[str, str]:
        """Write results.json, results.csv (the table), games.csv and ratings.png to
        `out_dir`; with `records`, also every game as records in games.jsonl
        (`save_records`, needs `record_games=True`). results.json lists the files.

        The folder is written whole or not at all (built beside `out_dir`, then moved
        into place), so it never mixes two runs' files. An `out_dir` that already holds
        files is replaced only with `overwrite=True`; else ValueError. Missing parent
        folders are created unless `make_parents=False`.

        Returns:
            The paths written, by kind.
        """
        if records and self.actions is None:
            raise ValueError("records need the actions: run the tournament with record_games=True")
        names = {
            "json": "results.json",
            "csv": "results.csv",
            "games": "games.csv",
            "plot": "ratings.png",
        }
        if records:
            names["records"] = "games.jsonl"
        with atomic_output_dir(out_dir, overwrite=overwrite, make_parents=make_parents) as tmp:
            paths = {k: os.path.join(tmp, v) for k, v in names.items()}
            if records:
                self.save_records(paths["records"])
            data = self.to_dict()
            data["files"] = dict(names)
            with open(paths["json"], "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2)
                f.write("\n")
            self._write_table(paths["csv"])
            self._write_games(paths["games"])
            self.plot(paths["plot"])
        return {k: os.path.join(os.fspath(out_dir), v) for k, v in names.items()}

    def _write_table(self, path: str) -> None:
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
        with open(path, "w", encoding="utf-8", newline="") as f:
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

    def _write_games(self, path: str) -> None:
        P = self.num_players
        per_game = [k for k, v in self.summary.items() if v.ndim == 1]
        per_seat = [k for k, v in self.summary.items() if v.ndim == 2]
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(
                ["game", "seed", "deal", "winner_seat", "winner", *per_game, "decisions"]
                + [f"seat{s}" for s in range(P)]
                + [f"{k}{s}" for k in per_seat for s in range(P)]
                + [f"rank{s}" for s in range(P)]
            )
            for g in range(self.num_games):
                win = int(self.winner[g])
                w.writerow(
                    [g, self.seed, int(self.deal[g])]
                    # as game_info: the winning seat and the entrant sitting there
                    + (["", ""] if win < 0 else [win, self.entrants[self.seating[g, win]]])
                    + [self.summary[k][g].item() for k in per_game]
                    + [int(self.decisions[g])]
                    + [self.entrants[e] for e in self.seating[g]]
                    + [x for k in per_seat for x in self.summary[k][g].tolist()]
                    + [f"{r:g}" for r in self.ranks[g]]
                )

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Save a PNG of the ladder (`ratings_figure`) to `path`."""
        self.ratings_figure().savefig(path, dpi=100)

    def ratings_figure(self) -> Figure:
        """The ladder as a matplotlib figure: one row per entrant, best on top.

        Rows are in the table's order (win rate, best on top), each labelled with
        the entrant's place in the table, its name and its win rate with the 95%
        interval; it shows the rating mu (dot, value written beside it) with a
        +-3 sigma bar and the ordinal mu - 3 sigma (a tick). Rows are joined by a
        faint line, so where the rating disagrees with the win rates the line
        turns back; the legend sits below the axes, never on the data.
        """
        # The Agg canvas directly: no pyplot, so the caller's matplotlib backend is untouched.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        stats = self.stats[::-1]  # best on top
        fig = Figure(figsize=(8, 1.9 + 0.55 * len(stats)))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        y = np.arange(len(stats))
        mu = np.array([s.mu for s in stats])
        sig = np.array([s.sigma for s in stats])
        ax.plot(mu, y, "-", color="0.8", zorder=1)
        ax.errorbar(mu, y, xerr=3 * sig, fmt="o", capsize=4, zorder=2, label="mu ± 3 sigma")
        ax.plot(
            [s.ordinal for s in stats],
            y,
            "|",
            markersize=14,
            markeredgewidth=2,
            zorder=3,
            label="ordinal (mu - 3 sigma)",
        )
        for yi, m in zip(y, mu, strict=True):
            ax.annotate(f"{m:.1f}", (m, yi), xytext=(0, 7), textcoords="offset points", ha="center")
        ax.set_yticks(y, ratings_labels(self.stats)[::-1])
        ax.set_ylim(-0.6, len(stats) - 0.4)
        ax.set_xlabel("openskill Plackett-Luce rating")
        ax.set_title(
            f"{self.game.title} arena: {plural(self.num_games, 'game')}, "
            f"{self.num_players} players, seed {self.seed}"
        )
        ax.grid(axis="x", alpha=0.3)
        height = fig.get_figheight()
        fig.legend(loc="lower center", ncol=2, fontsize="small", frameon=False)
        fig.tight_layout(rect=(0, 0.3 / height, 1, 1))  # the legend's strip, 0.3 inch
        return fig


def ratings_labels(stats: Sequence[EntrantStats]) -> list[str]:
    """Row labels of the ratings plot, in table order: place, name, win rate [95% CI]."""
    return [
        f"{i}. {s.name}\nwins {100 * s.win_rate:.1f}% [{100 * s.ci_low:.1f}, {100 * s.ci_high:.1f}]"
        for i, s in enumerate(stats, 1)
    ]


# ---- seating, ranks, statistics ----------------------------------------------------


def seat_schedule(
    num_entrants: int, num_players: int, num_games: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Who sits where in each game, and which deal each game plays.

    Games come in blocks of `num_players`: one set of entrants in one cyclic
    order, rotated through every seat, all on the same deal (the block index).
    Blocks cycle through every set of `num_players` of the `num_entrants`, and within
    each set through every cyclic order, in a random order fixed by `seed`, until
    `num_games` games are scheduled.

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


# ---- playing -------------------------------------------------------------------------


@dataclass
class _Group:
    """One bot object and how to call it."""

    bot: Bot
    label: str


def _entrants(
    bots: Sequence[Any], game: Game[Any, Any]
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
            bot = make_bot(spec, game)
            by_key[key] = len(groups)
            groups.append(_Group(bot=bot, label=bot_label(spec, bot)))
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


def _play_batch(
    game: Game[Any, Any],
    config: Any,
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
    state = game.init_from_keys(config, game_keys(seed, deals))
    pos = np.arange(n)  # batch row -> game of this batch
    out: dict[str, Any] = {
        "winner": np.full(n, -1, dtype=np.int8),
        "ranks": np.zeros((n, P), dtype=np.float64),
        "decisions": np.zeros(n, dtype=np.int32),
        "summary": {},
    }
    log: list[tuple[np.ndarray, np.ndarray]] = []
    reported = 0

    def finish(rows: np.ndarray) -> None:
        g = pos[rows]
        ended = state.take(rows)
        out["winner"][g] = ended.winner
        out["ranks"][g] = game.final_ranks(ended)
        for k, v in game.game_summary(ended).items():
            if k not in out["summary"]:
                out["summary"][k] = np.zeros((n, *v.shape[1:]), dtype=v.dtype)
            out["summary"][k][g] = v

    while True:
        done = state.done
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
                actions[idx] = bot_actions(group.bot, game, state, rng, rows=idx, label=group.label)
        game.step_inplace(state, actions, validate=False)  # bot_actions checked every action
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


def run_tournament(
    bots: Sequence[Any],
    num_players: int | None = None,
    num_games: int = 1000,
    seed: int = 0,
    config: Any = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    record_games: bool = False,
    progress: bool = False,
    game: str | Game[Any, Any] | None = None,
    before_play: Callable[[], None] | None = None,
) -> TournamentResult:
    """Play a seat-balanced tournament among `bots` and rate them.

    Args:
        bots: at least `num_players` bot specs (`make_bot`: "random", "heuristic",
            a model path, or bot objects); repeats are distinct entrants.
        num_players: table size (Kanaloa 3..5, default the config's, else 4; Kahuna 2).
        num_games: games to play; a multiple of `num_players` balances the seats.
        seed: seeds the deals, the seating order and the bots' random generator.
        config: the game's `Config`, or a dict of its fields (e.g.
            `{"nil_announcement": True}`).
        batch_size: games stepped together (memory grows with it).
        record_games: keep every game's actions (`TournamentResult.replay`).
        progress: show a tqdm progress bar on stderr.
        game: `"kanaloa"` (default), `"kahuna"` or a `Game`.
        before_play: called once every argument is checked and every bot built,
            before the first game; what it raises ends the tournament (the command
            line checks its output folder there, so a bad bot name is reported first
            and a refused folder before hours of play).

    Returns:
        A `TournamentResult`.

    Raises:
        ValueError / TypeError: a bad bot spec, table size, game count, seed,
            batch size or config, naming what is wrong.
    """
    g = get_game(game)
    cfg = g.make_config(config, num_players)
    P = g.num_players_of(cfg)
    seed = check_seed(seed)
    check_positive_int(num_games, "num_games")
    check_positive_int(batch_size, "batch_size")
    if not isinstance(bots, (Sequence, np.ndarray)) or isinstance(bots, (str, os.PathLike)):
        raise TypeError(f"bots must be a list of bot specs, got {type(bots).__name__}")
    if len(bots) < P:
        raise ValueError(f"need at least {P} bots for {P} seats, got {bots!r}")
    if len(bots) > MAX_ENTRANTS:
        raise ValueError(f"at most {MAX_ENTRANTS} bots per tournament, got {len(bots)}")
    names, specs, groups, group_of = _entrants(bots, g)
    seating, deal = seat_schedule(len(names), P, int(num_games), seed)
    if before_play is not None:
        before_play()
    rng = np.random.default_rng([seed, _BOT_STREAM])
    G = int(num_games)
    winner = np.full(G, -1, dtype=np.int8)
    ranks = np.zeros((G, P), dtype=np.float64)
    decisions = np.zeros(G, dtype=np.int32)
    summary: dict[str, np.ndarray] = {}
    actions: list[np.ndarray] | None = [] if record_games else None

    from tqdm import tqdm  # plain text bar on stderr, also under Jupyter

    start = time.perf_counter()
    with tqdm(
        total=G, file=sys.stderr, disable=not progress, unit="game", desc="arena", leave=False
    ) as bar:
        for lo in range(0, G, int(batch_size)):
            hi = min(G, lo + int(batch_size))
            out = _play_batch(
                g, cfg, seed, deal[lo:hi], group_of[seating[lo:hi]], groups, rng, record_games, bar
            )
            winner[lo:hi] = out["winner"]
            ranks[lo:hi] = out["ranks"]
            decisions[lo:hi] = out["decisions"]
            for k, v in out["summary"].items():
                if k not in summary:
                    summary[k] = np.zeros((G, *v.shape[1:]), dtype=v.dtype)
                summary[k][lo:hi] = v
            if actions is not None:
                actions.extend(out["actions"])
    play_seconds = time.perf_counter() - start

    result = TournamentResult(
        game=g,
        entrants=names,
        specs=specs,
        config=cfg,
        seed=seed,
        batch_size=int(batch_size),
        seating=seating,
        deal=deal,
        winner=winner,
        decisions=decisions,
        ranks=ranks,
        summary=summary,
        play_seconds=play_seconds,
        actions=actions,
    )
    start = time.perf_counter()
    mu, sigma, ordinal = openskill_ratings(seating, competition_ranks(ranks), len(names))
    result.rating_seconds = time.perf_counter() - start
    result.stats = _stats(result, mu, sigma, ordinal)
    return result


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
    # What the table shows first orders it: the win rate, then the mean rank; the rating
    # breaks the remaining ties. An entrant that played no game has no win rate: it goes last.
    rows.sort(key=lambda s: (s.games == 0, -s.win_rate, s.mean_rank, -s.ordinal, s.name))
    return rows
