"""A search bot: determinized Monte-Carlo evaluation of every legal action, for any game.

For each decision the bot samples full states consistent with what it knows (the
game's belief sampling), applies every legal action to every sample and plays each
resulting game on with a default policy up to a horizon, all decisions of the batch,
all samples and all actions as one engine batch. It plays the action with the best
mean value (perfect-information Monte Carlo, "PIMC").

The search itself (`evaluate_actions` and `SearchBot`'s budget loop) knows nothing
of any game: it asks a `SearchGame` (`kanaloa_env.games.search`) for everything
game-specific (checking a call, keys from what a seat knows, sampling, stepping, the
default policy, the horizon, the value of a stopped game, a cheap prior for ties).
A game provides its pieces through the game protocol (`Game.search_pieces`, by
convention its `search.py`, e.g. `kanaloa_env.games.kanaloa.search`); a game
without them has no search bot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.batch import BatchedState
from ..core.rng import mix64
from ..games import DEFAULT_GAME, GAMES, get_game
from ..games.protocol import Game
from ..games.search import HORIZONS, POLICIES, SearchGame, check_act, keyed_legal

__all__ = [
    "SearchBot",
    "SearchGame",
    "SearchStats",
    "check_act",
    "evaluate_actions",
    "guided_search",
    "keyed_legal",
    "search_games",
    "search_pieces",
]

# Games played on in one engine batch: 2**17 states are 32 MB, the default policy's
# temporaries a few times that.
MAX_ROWS = 1 << 17
SELECTIONS = ("halving", "uniform")


@dataclass
class SearchStats:
    """What a `SearchBot` has done since it was made (assign a new `SearchStats()` to
    count afresh)."""

    calls: int = 0
    decisions: int = 0  # decisions asked for
    searched: int = 0  # of those, with more than one legal action
    rollouts: int = 0  # games played on from a sample and an action
    wall_s: float = 0.0  # time inside `act`
    cpu_s: float = 0.0  # CPU time of this process inside `act`

    @property
    def ms_per_decision(self) -> float:
        """Mean wall time per decision asked for, in milliseconds."""
        return 1e3 * self.wall_s / self.decisions if self.decisions else 0.0

    @property
    def cpu_ms_per_decision(self) -> float:
        """Mean CPU time per decision asked for, in milliseconds."""
        return 1e3 * self.cpu_s / self.decisions if self.decisions else 0.0


def evaluate_actions(
    game: SearchGame,
    view: BatchedState,
    seats: np.ndarray,
    masks: np.ndarray,
    samples: np.ndarray,
    keys: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean value of every legal action of b decisions, from `samples[i]` states each.

    Decision i's samples are drawn once and every legal action is tried on each of
    them (the same samples for all actions: common random numbers make the
    comparison sharper than independent draws). All decisions, samples and actions
    form one batch that the game steps under its default policy until every game
    has stopped (`SearchGame.stopped`); each stopped game is valued for the deciding
    seat (`SearchGame.value`).

    Args:
        game: the game's pieces (`SearchGame`).
        view: the b decisions' states as the deciding seats may see them.
        seats: (b,) deciding seats.
        masks: (b, A) bool legal actions; every row needs one.
        samples: (b,) ints >= 1, samples per decision.
        keys: (b,) uint64 per-decision keys; a decision's result depends only on
            its row of the inputs and its key.

    Returns:
        values: (b, A) float64 mean value per action, NaN for illegal ones.
        rollouts: (b,) int, the games played on per decision.
    """
    b, A = masks.shape
    decision, action = np.nonzero(masks)  # (K,) one entry per legal action
    k = np.bincount(decision, minlength=b)
    sims = game.determinize(view, seats, samples, keys)  # (S,) game-major
    s_dec = np.repeat(np.arange(b), samples)
    # Rows: per decision, per sample, per legal action.
    per_sample = k[s_dec]
    row_sample = np.repeat(np.arange(len(s_dec)), per_sample)
    first = np.cumsum(k) - k  # the decision's first entry in (decision, action)
    s_first = np.repeat(first[s_dec], per_sample)
    within = np.arange(len(row_sample)) - np.repeat(np.cumsum(per_sample) - per_sample, per_sample)
    entry = s_first + within  # index into (decision, action)
    state = sims.take(row_sample)
    row_dec = decision[entry]
    row_seat = seats[row_dec]
    index = np.arange(len(entry)) - np.repeat(
        np.cumsum(samples * k) - samples * k, samples * k
    )  # rank of the row inside its decision
    row_keys = mix64(keys[row_dec] ^ mix64(index.astype(np.uint64) + np.uint64(1 << 40)))
    marker = game.marker(state)
    game.step(state, action[entry].astype(np.int64))
    values = np.zeros(len(entry))
    alive = np.arange(len(entry))
    t = 0
    while alive.size:
        stop = game.stopped(state, marker)
        if np.count_nonzero(stop):
            done = np.flatnonzero(stop)
            values[alive[done]] = game.value(state.take(done), row_seat[alive[done]])
            keep = np.flatnonzero(~stop)
            state, alive, marker = state.take(keep), alive[keep], marker[keep]
            if alive.size == 0:
                break
        game.step(state, game.policy(state, row_keys[alive], t))
        t += 1
    sums = np.bincount(entry, weights=values, minlength=len(decision))
    out = np.full((b, A), np.nan)
    out[decision, action] = sums / samples[decision]
    return out, samples * k


@dataclass
class SearchBot:
    """Perfect-information Monte-Carlo search over sampled deals, batched.

    Per decision with more than one legal action: draw `samples` determinizations
    (full states consistent with the seat's knowledge, the game's belief sampling), try
    every legal action on each, play each game on with the `policy` up to the
    `horizon`, and take the action with the best mean value (`evaluate_actions`).
    A batch of b decisions is searched as one engine batch.

    Budget, per decision (a batch of b decisions gets b times it):

    - `rollouts`: games played on. `selection="uniform"` splits them evenly over
      the legal actions, `max(1, rollouts // legal)` samples each;
      `"halving"` (sequential halving) splits them over `ceil(log2 legal)`
      rounds, each round's share evenly over the actions still in the running
      (each on the same fresh samples), and after each round keeps the better
      half by mean value. Deterministic for a seed.
    - `time_ms`: wall time; samples of every legal action are added in rounds
      of `chunk` per decision until the next round would overrun (at least one
      round is played); with `rollouts` too, it also stops at the number of
      samples the uniform untimed search would take. Timed search depends on
      the machine's speed, so it is not reproducible.

    Value of a stopped game for the deciding seat: the game's (`SearchGame.value`):
    1 for a win, 0 for a loss, and at the horizon "round" an estimate of the chance
    to win (Kanaloa: `games.kanaloa.search.KanaloaSearch`, from the boats' positions
    at the end of the round; Kahuna: `games.kahuna.search.KahunaSearch`, from the
    points and the board after the next scoring).

    Randomness: each call draws one key from `rng`; a decision's samples and
    rollouts derive from that key and what the seat knows of its game, so a
    batch gives each decision the same action as a call with that decision alone
    (from the same generator state), and the same inputs give the same actions.

    Attributes:
        rollouts: games played on per decision (None: no limit, needs `time_ms`).
        time_ms: wall-time budget per decision (None: none, needs `rollouts`).
        policy: "heuristic" (the game's heuristic bot) or "random" default policy.
        horizon: "round" (to the end of the current round, in Kahuna the next
            scoring, then the value estimate) or "game" (to the end of the game).
        chunk: samples per decision per round of a timed search.
        selection: "uniform" or "halving" (see Budget).
        name: the bot's name in tournaments.
        game: the name of the game it plays (default Kanaloa), one whose `Game`
            provides `search_pieces` (`search_games()`); a `Game` is taken by its
            name. The defaults above are the bot's own (Kanaloa's); the game's
            "search" bot (`make_bot("search", game=...)`) is built with the game's
            `search_defaults()` (Kahuna: 24 rollouts).
        stats: counters of calls, decisions, rollouts and time (`SearchStats`).
        guide: None (plain search), or a policy network to guide it: an object with
            `logits(observations) -> (b, A)` and a `game`, such as a `PolicyBot`
            (`make_bot("guided")` is the search guided by the game's shipped network).
            Only the guide's `guide_top` most likely legal actions are searched, with
            the whole rollout budget, and the guide's choice breaks ties. The guide
            reads observations, so a guided bot needs them (`uses_observations`).
        guide_top: with a guide, the number of actions searched per decision (>= 1;
            a decision with fewer legal actions searches them all).
    """

    rollouts: int | None = 512
    time_ms: float | None = None
    policy: str = "heuristic"
    horizon: str = "round"
    chunk: int = 4
    selection: str = "halving"
    name: str = "search"
    game: str = DEFAULT_GAME
    stats: SearchStats = field(default_factory=SearchStats, repr=False)
    guide: Any = field(default=None, repr=False)
    guide_top: int = 3
    pieces: SearchGame = field(init=False, repr=False)

    uses_state = True
    uses_observations = False  # True for a guided search (set in __post_init__)

    def __post_init__(self) -> None:
        if self.rollouts is not None:
            if isinstance(self.rollouts, bool) or not isinstance(self.rollouts, (int, np.integer)):
                raise TypeError(f"rollouts must be an int >= 1 or None, got {self.rollouts!r}")
            if self.rollouts < 1:
                raise ValueError(f"rollouts must be >= 1, got {self.rollouts}")
        if self.time_ms is not None:
            if isinstance(self.time_ms, bool) or not isinstance(
                self.time_ms, (int, float, np.integer, np.floating)
            ):
                raise TypeError(f"time_ms must be a number > 0 or None, got {self.time_ms!r}")
            if not self.time_ms > 0 or not np.isfinite(self.time_ms):
                raise ValueError(f"time_ms must be a finite number > 0, got {self.time_ms}")
        if self.rollouts is None and self.time_ms is None:
            raise ValueError("give a budget: rollouts=, time_ms= or both")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {self.policy!r}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")
        if self.horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {HORIZONS}, got {self.horizon!r}")
        if isinstance(self.chunk, bool) or not isinstance(self.chunk, (int, np.integer)):
            raise TypeError(f"chunk must be an int >= 1, got {self.chunk!r}")
        if self.chunk < 1:
            raise ValueError(f"chunk must be >= 1, got {self.chunk}")
        self.pieces = search_pieces(self.game, self.policy, self.horizon)
        if isinstance(self.game, Game):
            self.game = self.game.name
        if isinstance(self.guide_top, bool) or not isinstance(self.guide_top, (int, np.integer)):
            raise TypeError(f"guide_top must be an int >= 1, got {self.guide_top!r}")
        if self.guide_top < 1:
            raise ValueError(f"guide_top must be >= 1, got {self.guide_top}")
        if self.guide is not None:
            if not callable(getattr(self.guide, "logits", None)):
                raise TypeError(
                    "guide must have logits(observations) (a PolicyBot), got "
                    f"{type(self.guide).__name__}"
                )
            own = getattr(self.guide, "game", self.game)
            if own != self.game:
                raise ValueError(f"the guide plays {own}, this search {self.game}")
            self.uses_observations = True

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        *,
        view: BatchedState | None = None,
        seats: np.ndarray | None = None,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for a batch of decisions.

        Args:
            observations: (b, obs_dim) the deciding seats' observations: read by the
                guide only (a plain search uses `view`).
            masks: (b, A) bool legal actions (A: the game's `num_actions`); every
                row needs one.
            rng: one 64-bit draw per call seeds the search.
            view: `public_view(state, seats)` of the b games.
            seats: (b,) the deciding seats, each game's `current_player`.
            kwargs: other callers' keywords, not read.

        Raises:
            TypeError: `view` or `seats` missing, `seats` not integers, `rng` not a
                Generator.
            ValueError: shapes disagree, a seat is not the player to act, or a
                mask row has no legal action or differs from the view's.
        """
        wall, cpu = time.perf_counter(), time.process_time()
        view, seats, masks = self.pieces.check(view, seats, masks)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        b = len(masks)
        base = rng.integers(0, np.iinfo(np.uint64).max, dtype=np.uint64, endpoint=True)
        if self.guide is None:
            actions = self.pieces.prior(view, seats, masks)
        else:
            actions, masks = self._guided(observations, masks)
        todo = np.flatnonzero(masks.sum(axis=1) > 1)
        if todo.size:
            budget = None if self.time_ms is None else b * self.time_ms / 1e3
            actions[todo] = self._search(
                view.take(todo), seats[todo], masks[todo], actions[todo], base, wall, budget
            )
        self.stats.calls += 1
        self.stats.decisions += b
        self.stats.searched += int(todo.size)
        self.stats.wall_s += time.perf_counter() - wall
        self.stats.cpu_s += time.process_time() - cpu
        return actions

    def _guided(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The guide's choice (b,) and its `guide_top` most likely legal actions (b, A)."""
        logits = np.asarray(self.guide.logits(observations), dtype=np.float64)
        if logits.shape != masks.shape:
            raise ValueError(f"the guide gave logits of shape {logits.shape}, not {masks.shape}")
        logits = np.where(masks, logits, -np.inf)
        order = np.argsort(-logits, axis=1, kind="stable")
        top = np.zeros_like(masks)
        np.put_along_axis(top, order[:, : self.guide_top], True, axis=1)
        return order[:, 0].astype(np.int64), top & masks

    def _search(
        self,
        view: BatchedState,
        seats: np.ndarray,
        masks: np.ndarray,
        prior: np.ndarray,
        base: np.uint64,
        start: float,
        budget_s: float | None,
    ) -> np.ndarray:
        """The best action of each decision (all have two or more legal actions);
        `prior` breaks ties, `budget_s` is the wall time from `start` (None: no limit)."""
        b = len(masks)
        keys = self.pieces.info_keys(view, seats, base)
        total = np.zeros(masks.shape)  # value sums per action
        count = np.zeros(masks.shape)  # samples per action
        alive = masks.copy()  # the actions still in the running
        k = masks.sum(axis=1)
        # Sequential halving: ceil(log2 k) rounds share the budget; after each round
        # the better half of the actions go on. Uniform: one round, every action.
        if self.selection == "halving":
            rounds = np.ceil(np.log2(k)).astype(np.int64)
        else:
            rounds = np.ones_like(k)
        deadline = None if budget_s is None else start + budget_s
        rnd = 0
        while True:
            n_alive = alive.sum(axis=1)
            if deadline is None:
                assert self.rollouts is not None
                want = np.where(rnd < rounds, np.maximum(1, self.rollouts // (rounds * n_alive)), 0)
            else:
                want = np.full(b, self.chunk)
                if self.rollouts is not None:  # the cap: as many samples as untimed
                    cap = np.maximum(1, self.rollouts // k)
                    want = np.minimum(want, cap - count.max(axis=1).astype(np.int64))
            live = np.flatnonzero(want > 0)
            if live.size == 0:
                break
            t0 = time.perf_counter()
            # Decisions in parts of at most MAX_ROWS games played on (memory; the
            # engine's speed per game is flat well below that).
            rows = np.cumsum(want[live] * n_alive[live])
            part = (rows - 1) // MAX_ROWS
            for p in np.unique(part):
                g = live[part == p]
                values, used = evaluate_actions(
                    self.pieces,
                    view.take(g),
                    seats[g],
                    alive[g],
                    want[g],
                    mix64(keys[g] ^ np.uint64(rnd)),
                )
                total[g] += np.nan_to_num(values) * want[g, None]
                count[g] += alive[g] * want[g, None]
                self.stats.rollouts += int(used.sum())
            rnd += 1
            if deadline is None:
                halve = live[rnd < rounds[live]]
                if halve.size:
                    alive[halve] = _better_half(total[halve], count[halve], alive[halve])
                continue
            now = time.perf_counter()
            if now + (now - t0) > deadline:
                break
        mean = np.where(alive, total / np.maximum(count, 1), -np.inf)
        best = mean.max(axis=1)
        # Among actions tied for the best value, the prior's choice (else the first).
        tied = mean >= best[:, None] - 1e-12
        keep_prior = tied[np.arange(b), prior]
        return np.where(keep_prior, prior, np.argmax(tied, axis=1)).astype(np.int64)


def guided_search(game: str | Game[Any, Any] = DEFAULT_GAME, **kwargs: Any) -> SearchBot:
    """The game's search bot guided by its shipped network: `make_bot("guided", game)`.

    The game's search defaults (`Game.search_defaults`), the guide the game's shipped
    policy files (`PolicyBot.shipped`), named "guided"; `kwargs` override any field.

    Raises:
        ValueError: the game has no search pieces or ships no policy files.
        ImportError: torch is missing (the guide is a torch network).
    """
    from .policy_bot import PolicyBot

    g = get_game(game)
    fields: dict[str, Any] = {"name": "guided", **g.search_defaults(), **kwargs}
    fields.setdefault("guide", PolicyBot.shipped(g))
    return SearchBot(game=g.name, **fields)


def search_games() -> list[str]:
    """The registered games that have a search bot (`Game.provides("search_pieces")`)."""
    return [name for name in GAMES if get_game(name).provides("search_pieces")]


def search_pieces(game: str | Game[Any, Any], policy: str, horizon: str) -> SearchGame:
    """The `SearchGame` of a game (a name or `Game`) with the default `policy` and
    `horizon`: the game's `search_pieces` (the game protocol).

    Raises:
        ValueError: an unknown game or one without search pieces (the message lists
            the games with them).
    """
    try:
        g = get_game(game)
    except ValueError:
        g = None
    if g is None or not g.provides("search_pieces"):
        raise ValueError(
            f"game must be one of {search_games()} (the games with search), got {game!r}"
        )
    return g.search_pieces(policy, horizon)


def _better_half(total: np.ndarray, count: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """(b, A) bool: of each row's `alive` actions, the ceil(n / 2) best by mean value
    (equal means: the lower action id)."""
    mean = np.where(alive, total / np.maximum(count, 1), -np.inf)
    order = np.argsort(-mean, axis=1, kind="stable")
    keep = np.zeros_like(alive)
    n = (alive.sum(axis=1) + 1) // 2
    rank = np.arange(alive.shape[1])[None, :] < n[:, None]
    np.put_along_axis(keep, order, rank, axis=1)
    return keep & alive
