"""A search bot: determinized Monte-Carlo evaluation of every legal action.

For each decision the bot samples full states consistent with what it knows
(`core.kanaloa.belief.determinize`, `core.kahuna.belief.determinize`), applies every
legal action to every sample
and plays each resulting game on with a default policy up to a horizon, all
decisions of the batch, all samples and all actions as one engine batch. It plays
the action with the best mean value (perfect-information Monte Carlo, "PIMC").

The search itself (`evaluate_actions` and `SearchBot`'s budget loop) knows
nothing of Kanaloa: it asks a `SearchGame` for everything game-specific (checking
a call, keys from what a seat knows, sampling, stepping, the default policy, the
horizon, the value of a stopped game, a cheap prior for ties). `KanaloaSearch`
is Kanaloa's; Kahuna's is `kanaloa_env.games.kahuna.search.KahunaSearch`.
`SearchBot(game=...)` picks the pieces of the game it plays (`search_pieces`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..core.batch import BatchedState
from ..core.kanaloa import route
from ..core.kanaloa.belief import determinize_from_keys
from ..core.kanaloa.constants import NUM_ACTIONS
from ..core.kanaloa.state import State
from ..core.kanaloa.step import step_inplace
from ..core.rng import draws, mix64
from ..games.kanaloa.heuristic import HeuristicBot

__all__ = [
    "KanaloaSearch",
    "SearchBot",
    "SearchGame",
    "SearchStats",
    "evaluate_actions",
    "keyed_legal",
    "search_pieces",
]

POLICIES = ("heuristic", "random")
# Games played on in one engine batch: 2**17 states are 32 MB, the default policy's
# temporaries a few times that.
MAX_ROWS = 1 << 17
SELECTIONS = ("halving", "uniform")
HORIZONS = ("round", "game")
SEARCH_GAMES = ("kanaloa", "kahuna")


class SearchGame(Protocol):
    """What the search needs from a game (states are a `BatchedState` of that game)."""

    def check(self, view: Any, seats: Any, masks: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        """Validate a bot call's `view`, (b,) `seats` and (b, A) `masks`; return them
        as the game's state, intp seats and a bool array (TypeError/ValueError)."""
        ...

    def info_keys(self, view: Any, seats: np.ndarray, base: np.uint64) -> np.ndarray:
        """(b,) uint64 keys from `base` and only what each seat knows of its game."""
        ...

    def determinize(
        self, view: Any, seats: np.ndarray, counts: np.ndarray, keys: np.ndarray
    ) -> Any:
        """`counts[i]` full states consistent with what `seats[i]` knows in game i of
        `view`, game-major, seeded by the (b,) uint64 `keys`."""
        ...

    def step(self, state: Any, actions: np.ndarray) -> None:
        """Apply (R,) actions in place."""
        ...

    def marker(self, state: Any) -> np.ndarray:
        """(R,) int: what `stopped` compares against (e.g. the round number)."""
        ...

    def stopped(self, state: Any, marker: np.ndarray) -> np.ndarray:
        """(R,) bool: the game is over or has reached the horizon set at `marker`."""
        ...

    def value(self, state: Any, seats: np.ndarray) -> np.ndarray:
        """(R,) float in [0, 1]: how good a stopped position is for `seats`."""
        ...

    def policy(self, state: Any, keys: np.ndarray, step: int) -> np.ndarray:
        """(R,) legal actions of the default policy in the live games `state`;
        `keys` (R,) uint64 and `step` seed any randomness."""
        ...

    def prior(self, view: Any, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(b,) the action preferred among equal values (a cheap policy's choice)."""
        ...


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

    Value of a stopped game for the deciding seat: 1 for a win, 0 for a loss, and
    at the horizon "round" (the end of the current round) an estimate of the
    chance to win: Kanaloa's from the boats' positions (`KanaloaSearch.value`; a
    truncated game 0), Kahuna's from the points and the board after the next
    scoring (`KahunaSearch.value`; a draw or truncated game 0.5).

    Randomness: each call draws one key from `rng`; a decision's samples and
    rollouts derive from that key and what the seat knows of its game, so a
    batch gives each decision the same action as a call with that decision alone
    (from the same generator state), and the same inputs give the same actions.

    Attributes:
        rollouts: games played on per decision (None: no limit, needs `time_ms`).
        time_ms: wall-time budget per decision (None: none, needs `rollouts`).
        policy: "heuristic" (the game's `HeuristicBot`) or "random" default policy.
        horizon: "round" (to the end of the current round, in Kahuna the next
            scoring, then the value estimate) or "game" (to the end of the game).
        chunk: samples per decision per round of a timed search.
        selection: "uniform" or "halving" (see Budget).
        name: the bot's name in tournaments.
        game: the game it plays, "kanaloa" or "kahuna" (`SEARCH_GAMES`); the
            defaults above are Kanaloa's, Kahuna's "search" bot
            (`make_bot("search", game="kahuna")`) is built with
            `games.kahuna.search.KAHUNA_SEARCH_DEFAULTS`.
        stats: counters of calls, decisions, rollouts and time (`SearchStats`).
    """

    rollouts: int | None = 512
    time_ms: float | None = None
    policy: str = "heuristic"
    horizon: str = "round"
    chunk: int = 4
    selection: str = "halving"
    name: str = "search"
    game: str = "kanaloa"
    stats: SearchStats = field(default_factory=SearchStats, repr=False)
    pieces: SearchGame = field(init=False, repr=False)

    uses_state = True
    uses_observations = False

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
        if self.game not in SEARCH_GAMES:
            raise ValueError(f"game must be one of {SEARCH_GAMES}, got {self.game!r}")
        self.pieces = search_pieces(self.game, self.policy, self.horizon)

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
            observations: not read (the bot uses `view`).
            masks: (b, A) bool legal actions (A: the game's action count, 66 for
                Kanaloa, 153 for Kahuna); every row needs one.
            rng: one 64-bit draw per call seeds the search.
            view: `public_view(state, seats)` of the b games.
            seats: (b,) the deciding seats, each game's `current_player`.

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
        actions = self.pieces.prior(view, seats, masks)
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


def search_pieces(game: str, policy: str, horizon: str) -> SearchGame:
    """The `SearchGame` of a game by name ("kanaloa": `KanaloaSearch`, "kahuna":
    `kanaloa_env.games.kahuna.search.KahunaSearch`) with its default policy and horizon.

    Raises:
        ValueError: a game without search pieces (the message lists those with them).
    """
    if game == "kanaloa":
        return KanaloaSearch(rollout_policy=policy, horizon=horizon)
    if game == "kahuna":
        # Imported here: Kahuna's pieces import this module.
        from ..games.kahuna.search import KahunaSearch

        return KahunaSearch(rollout_policy=policy, horizon=horizon)
    raise ValueError(f"game must be one of {SEARCH_GAMES} (the games with search), got {game!r}")


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


# ---- Kanaloa's pieces ------------------------------------------------------------------


@dataclass
class KanaloaSearch:
    """Kanaloa's `SearchGame`: belief sampling, the default policy, horizon and value.

    `value` at the horizon "round" estimates the deciding seat's chance to win
    from the boats' positions at the start of the next round (`win_chances`).
    """

    rollout_policy: str = "heuristic"
    horizon: str = "round"
    _heuristic: HeuristicBot = field(default_factory=HeuristicBot, repr=False)

    def check(
        self, view: object, seats: object, masks: object
    ) -> tuple[State, np.ndarray, np.ndarray]:
        return check_act(view, seats, masks, State, NUM_ACTIONS, "kanaloa_env.core.State")

    def info_keys(self, view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
        return decision_keys(view, seats, base)

    def determinize(
        self, view: State, seats: np.ndarray, counts: np.ndarray, keys: np.ndarray
    ) -> State:
        return determinize_from_keys(view, seats, counts, keys)

    def step(self, state: State, actions: np.ndarray) -> None:
        step_inplace(state, actions)

    def marker(self, state: State) -> np.ndarray:
        return state.round.astype(np.int64)

    def stopped(self, state: State, marker: np.ndarray) -> np.ndarray:
        done = state.terminated | state.truncated
        if self.horizon == "game":
            return done
        return done | (state.round > marker)

    def value(self, state: State, seats: np.ndarray) -> np.ndarray:
        rows = np.arange(state.batch_size)
        won = (state.winner == seats).astype(np.float64)
        over = state.terminated | state.truncated
        if over.all():
            return won
        chances = win_chances(state)[rows, seats]
        return np.where(over, won, chances)

    def policy(self, state: State, keys: np.ndarray, step: int) -> np.ndarray:
        if self.rollout_policy == "random":
            return keyed_legal(state.legal, draws(keys, step, 1)[:, 0])
        seats = state.current_player.astype(np.int64)
        # The full sampled state as the view: the heuristic reads only its own hand.
        return self._heuristic.act(_NO_OBS, state.legal, _NO_RNG, view=state, seats=seats)

    def prior(self, view: State, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self._heuristic.act(_NO_OBS, masks, _NO_RNG, view=view, seats=seats)


# The heuristic reads neither observations nor its generator (it is deterministic).
_NO_OBS = np.zeros((0, 0), dtype=np.float32)
_NO_RNG = np.random.default_rng(0)


def keyed_legal(masks: np.ndarray, words: np.ndarray) -> np.ndarray:
    """(R,) a uniformly random legal action per row, the k-th legal one for
    k = floor(u * count) with u from the row's random word."""
    count = masks.sum(axis=1)
    u = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    k = (u * count).astype(np.int64)
    return np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1).astype(np.int64)


def win_chances(state: State) -> np.ndarray:
    """(B, P) estimated chance of each seat to win from the boats' positions.

    A conditional logit over the seats: seat p's chance is proportional to
    exp(w . f_p) with features of its boat relative to the others (`_features`);
    the weights `WIN_WEIGHTS` were fitted on heuristic self-play (see there).
    """
    lap = route.lap_length(state, np.arange(state.batch_size)).astype(np.float64)
    f = _features(state.progress.astype(np.float64), lap)
    w = WIN_WEIGHTS[state.num_players]
    z = f @ w
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _features(progress: np.ndarray, lap: np.ndarray) -> np.ndarray:
    """(B, P, F) per seat: lead over the best other boat and margin over the last
    other boat, both in laps, and whether it is the last boat."""
    P = progress.shape[1]
    others = np.where(np.eye(P, dtype=bool)[None], np.nan, progress[:, None, :])
    best = np.nanmax(others, axis=2)
    last = np.nanmin(others, axis=2)
    lead = (progress - best) / lap[:, None]
    margin = (progress - last) / lap[:, None]
    is_last = (progress < last).astype(np.float64)
    return np.stack([lead, margin, is_last], axis=2)


# Fitted by `python benchmarks/fit_search_value.py` (4000 heuristic self-play games per
# table size, seed 2024 + P; test log-loss 0.999, 1.262, 1.472 at 3, 4, 5 players against
# 1.099, 1.386, 1.609 for a uniform guess). Features: lead, margin, is last (`_features`).
WIN_WEIGHTS: dict[int, np.ndarray] = {
    3: np.array([0.199, 1.606, 0.172]),
    4: np.array([0.468, 1.622, 0.035]),
    5: np.array([0.315, 2.258, 0.103]),
}


def decision_keys(view: State, seats: np.ndarray, base: np.uint64) -> np.ndarray:
    """(b,) uint64: a key per decision from `base` and what the seat knows of its game
    (its hand and the public fields), so equal decisions get equal keys whatever
    else is in the batch."""
    b = view.batch_size
    rows = np.arange(b)
    h = mix64(np.full(b, base, dtype=np.uint64) ^ seats.astype(np.uint64))
    parts = [view.hands[rows, seats]]
    for name in (
        "phase",
        "round",
        "current_player",
        "leader",
        "num_played",
        "played",
        "trump",
        "pending",
        "present_slots",
    ):
        parts.append(getattr(view, name))
    for name in ("history", "progress", "boat_field", "announced", "voids", "tricks_won", "route"):
        parts.extend(getattr(view, name).T)
    for col in parts:
        h = mix64(h ^ col.astype(np.int64).view(np.uint64))
    return h


def check_act(
    view: object,
    seats: object,
    masks: object,
    state_type: type[BatchedState],
    num_actions: int,
    state_name: str,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """A search bot call's arguments checked against each other (see `SearchBot.act`):
    `view` a `state_type` of b games (named `state_name` in errors), (b,) integer `seats`
    that are the players to act, (b, `num_actions`) bool `masks` within the view's legal
    mask with a legal action in every row. Returns them as the state, intp seats and
    the mask array."""
    if view is None or seats is None:
        raise TypeError(
            "SearchBot needs view=public_view(state, seats) and seats= (uses_state=True)"
        )
    if not isinstance(view, state_type):
        raise TypeError(f"view must be a {state_name}, got {type(view).__name__}")
    masks = np.asarray(masks)
    seats = np.asarray(seats)
    if seats.dtype.kind not in "iu":
        raise TypeError(f"seats must be integers, got dtype {seats.dtype}")
    b = len(masks) if masks.ndim else -1
    if masks.shape != (b, num_actions) or masks.dtype != bool:
        raise ValueError(f"masks must be a (b, {num_actions}) bool array, got {masks.shape}")
    current = view.current_player  # type: ignore[attr-defined]
    if view.batch_size != b or seats.shape != (b,):
        raise ValueError(
            f"view ({view.batch_size} games), seats {seats.shape} and masks ({b} rows) disagree"
        )
    if (seats != current).any():
        raise ValueError(
            f"seats must be each game's player to act {current.tolist()}, got {seats.tolist()}"
        )
    if b and not masks.any(axis=1).all():
        raise ValueError("every mask row needs at least one legal action")
    if (masks & ~view.legal).any():  # type: ignore[attr-defined]
        raise ValueError("masks allow an action the view's legal mask does not")
    return view, seats.astype(np.intp), masks
