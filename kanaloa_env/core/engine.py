"""The plumbing around every engine's rules, written once: set-up, step and observation
entry points with their input checks, the checks of belief sampling, the preamble of
the invariant checkers and the random playthrough.

A game keeps its rules (compiled kernels or numpy) and hands them to these classes;
its public functions are their bound methods:

```python
_SETUP = Setup(State, Config, _reset)              # _reset(state, idx, keys, threads)
init, init_from_keys, reset_games = _SETUP.init, _SETUP.init_from_keys, _SETUP.reset_games
_STEP = Stepper(compiled_step(_step_range), describe)  # or any apply(state, actions, threads)
step, step_inplace, validate_actions = _STEP.step, _STEP.step_inplace, _STEP.validate_actions
observe = Observer(encode_game, OBS_DIM).observe   # encode_game(rules, arrays, g, seat, row)
random_playthrough = playthrough(init, step, check_invariants, PlaythroughStats, max_steps=...)
```

Every check runs before anything is written: a bad argument raises a TypeError or
ValueError naming it and leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from numba import types

from .batch import (
    GameState,
    InvariantError,
    check_actions,
    check_counts,
    check_positive_int,
    check_seats,
    seat_array,
)
from .kernels import Entry, check_threads, count_illegal, module_kernel, run_state
from .rng import check_keys, check_seed, game_keys, keys_from_generator

S = TypeVar("S", bound=GameState)

MAX_GAME = 2**64 - 1
"""The largest game index in a stream (indices are uint64)."""


def stream_keys(batch_size: object, seed: object, first_game: object) -> np.ndarray:
    """(B,) uint64 keys of games `first_game .. first_game + B - 1` of the stream `seed`
    (`rng.game_keys`), with the checks of the engines' `init` (on any target).

    Raises:
        TypeError: `batch_size` is not an int.
        ValueError: `batch_size < 1`, a bad `seed`, or `first_game` not an int in
            0..2**64-batch_size.
    """
    B = check_positive_int(batch_size, "batch_size")
    # The batch's game indices must fit in uint64: past that np.arange raises a bare
    # OverflowError (or, for a numpy first_game, wraps with only a warning).
    last = MAX_GAME - B + 1
    if (
        isinstance(first_game, bool)
        or not isinstance(first_game, (int, np.integer))
        or not 0 <= int(first_game) <= last
    ):
        raise ValueError(
            f"first_game must be an int in 0..{_power_form(last)} for a batch of {B}, "
            f"got {first_game!r}"
        )
    first = int(first_game)
    return game_keys(check_seed(seed), np.arange(first, first + B, dtype=np.uint64))


def _power_form(n: int) -> str:
    """`n` as `2**64-k` when it is near 2**64 (easier to read than 20 digits)."""
    return f"2**64-{2**64 - n}" if n > 2**63 else str(n)


class Batch(Protocol):
    """A batch of games on any target: a game's `State` or a `gpu.DeviceState`."""

    @property
    def batch_size(self) -> int:
        """B, the number of games."""


def game_indices(state: Batch, idx: object, who: str) -> np.ndarray:
    """(b,) int64 indices of games of `state` from `idx`, integer indices (negative ones
    count from the end, as in numpy) or a (B,) bool mask; an IndexError naming `who` for
    an index out of range (the kernels do not check bounds)."""
    B = state.batch_size
    g = np.asarray(idx)
    if g.dtype == bool:
        g = np.flatnonzero(g)
    elif g.size and g.dtype.kind not in "iu":
        raise TypeError(f"{who}: game indices must be integers or a bool mask, got {g.dtype}")
    g = g.astype(np.int64).reshape(-1)
    if g.size and (g.min() < -B or g.max() >= B):
        raise IndexError(f"{who}: game indices must be in -{B}..{B - 1}, got {g.tolist()[:10]}")
    return g % B if B else g  # type: ignore[no-any-return]


def new_game_keys(keys: object) -> np.ndarray:
    """`keys` as the non-empty (B,) uint64 array of one key per new game that
    `init_from_keys` takes (on any target), or a ValueError saying what is expected."""
    k = np.asarray(keys)
    if k.ndim != 1 or k.dtype != np.uint64 or len(k) == 0:
        raise ValueError(f"keys must be a non-empty (B,) uint64 array, got {k.dtype} {k.shape}")
    return k


def reset_keys(keys: object, games: int) -> np.ndarray:
    """The (b,) uint64 keys of a `reset_games` call for `games` games (its rows:
    `game_indices`), on any target; a ValueError when their numbers differ."""
    k = np.asarray(keys, dtype=np.uint64).reshape(-1)
    if len(k) != games:
        raise ValueError(f"reset_games: {games} games but {len(k)} keys")
    return k


def unchecked_actions(actions: object, batch_size: int) -> np.ndarray:
    """`actions` as (B,) int64 actions (B = `batch_size`) for
    `step_inplace(..., validate=False)` on any target: converted, not checked against
    the masks; a ValueError for another shape (the kernels do not check bounds)."""
    if type(actions) is not np.ndarray or actions.dtype != np.int64:
        actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (batch_size,):
        raise ValueError(f"actions must have shape {(batch_size,)}, got {actions.shape}")
    return actions  # type: ignore[no-any-return]


class Setup(Generic[S]):
    """A game's `init`, `init_from_keys` and `reset_games` over its set-up rules,
    `reset(state, idx, keys, threads)`: new games with keys (b,) uint64 in rows
    idx (b,) int64 of `state`, in place. `state_class` and `config_class` are the
    game's `State` and `Config`. `where` is the module users import the game's
    `Config` from, for the error messages (default: the engine's package)."""

    def __init__(
        self,
        state_class: type[S],
        config_class: type,
        reset: Callable[[S, np.ndarray, np.ndarray, int], None],
        where: str = "",
    ) -> None:
        self.state_class = state_class
        self.config_class = config_class
        self._reset = reset
        self._where = where or _package(state_class)

    def init(self, config: Any, batch_size: int, seed: int = 0, first_game: int = 0) -> S:
        """A batch of new games at their first decision.

        Args:
            config: the rules; one config for the whole batch.
            batch_size: number of games `B`.
            seed: 0..2**64-1. Game `i` of the batch is game `first_game + i` of the
                stream `seed`, the same whatever the batch size.
            first_game: index of the batch's first game in the stream; game indices
                are uint64, so `first_game + batch_size - 1 <= 2**64 - 1`.

        Returns:
            A new `State` of batch size `B`.

        Raises:
            TypeError: `config` is not the game's `Config`, or `batch_size` is not an int.
            ValueError: `batch_size < 1`, a bad `seed`, or `first_game` not an int in
                0..2**64-batch_size.
        """
        self.check_config(config)
        keys = stream_keys(batch_size, seed, first_game)
        return self.init_from_keys(config, keys)

    def init_from_keys(self, config: Any, keys: np.ndarray, threads: int = 1) -> S:
        """A batch of new games with the rules `config` (as for `init`), one per key of
        `keys`, a non-empty (B,) uint64 array (see `rng.game_keys`); `threads` as for
        `step` (the result does not depend on it)."""
        self.check_config(config)
        keys = new_game_keys(keys)
        state = self.state_class.empty(config, len(keys))
        if threads != 1 or type(threads) is not int:
            threads = check_threads(threads)
        self._reset(state, np.arange(len(keys), dtype=np.int64), keys, threads)  # (all rows)
        return state

    def reset_games(self, state: S, idx: np.ndarray, keys: np.ndarray, threads: int = 1) -> None:
        """Start new games with `keys` (b,) uint64 in positions `idx` (b,) of `state`, in
        place (the vector env's auto-reset). `idx` may also be a (B,) bool mask;
        `threads` as for `step`."""
        rows = game_indices(state, idx, "reset_games")
        keys = reset_keys(keys, len(rows))
        if threads != 1 or type(threads) is not int:
            threads = check_threads(threads)
        self._reset(state, rows, keys, threads)

    def check_config(self, config: object) -> None:
        """A TypeError unless `config` is the game's `Config` (the engines' first check,
        on any target)."""
        if not isinstance(config, self.config_class):
            raise TypeError(
                f"config must be a {self._where}.{self.config_class.__name__}, "
                f"got {type(config).__name__}"
            )


def _package(cls: type) -> str:
    """The package of the module that defines `cls` (the engine's, for its `State`)."""
    return cls.__module__.rsplit(".", 1)[0]


def compiled_reset(
    reset_range: Any,
) -> Callable[[GameState, np.ndarray, np.ndarray, int], None]:
    """The `reset` of a `Setup` for a compiled batch kernel `reset_range(config, arrays,
    idx, keys, lo, hi)`: the games `idx` set up with `keys` on `threads` threads."""

    def reset(state: GameState, idx: np.ndarray, keys: np.ndarray, threads: int) -> None:
        run_state(reset_range, len(idx), threads, state, idx, keys)

    return reset


def compiled_step(step_range: Any) -> Callable[[GameState, np.ndarray, int], None]:
    """The `apply` of a `Stepper` for a compiled batch kernel `step_range(rules, arrays,
    actions, lo, hi)`: it runs on `threads` threads, through its compiled code found
    once per state (`kernels.Entry`) where the actions allow."""
    entry = Entry(step_range, types.int64[::1])

    def apply(state: GameState, actions: np.ndarray, threads: int) -> None:
        f = actions.flags
        fn = entry(state) if f.c_contiguous and f.aligned else step_range
        run_state(fn, len(actions), threads, state, actions)

    return apply


class Stepper(Generic[S]):
    """A game's `step`, `step_inplace` and `validate_actions` over its rules,
    `apply(state, actions, threads)`: one decision per game with (B,) int64 actions
    checked against the mask (games that are over pass through, their rewards 0).

    `describe(state, g, a)` says what is wrong with action `a` in game `g` for the
    error message, e.g. "player 2 in phase play cannot take action 7 (blue-8)"; or
    give `action_names` (one per action) for "player 1 cannot bet now (legal: check,
    fold)".
    """

    def __init__(
        self,
        apply: Callable[[S, np.ndarray, int], None],
        describe: Callable[[S, int, int], str] | None = None,
        action_names: Sequence[str] = (),
    ) -> None:
        if describe is None and not action_names:
            raise TypeError("Stepper needs describe= or action_names= for its error messages")
        self._apply = apply
        self._describe = describe or self._with_names
        self._names = tuple(action_names)

    def _with_names(self, state: S, g: int, a: int) -> str:
        if not 0 <= a < len(self._names):
            return f"action {a} is out of range 0..{len(self._names) - 1}"
        allowed = ", ".join(self._names[b] for b in np.flatnonzero(state.legal[g]))
        who = int(state.current_player[g])
        return f"player {who} cannot {self._names[a]} now (legal: {allowed})"

    def step(self, state: S, actions: np.ndarray, threads: int = 1) -> S:
        """Apply one decision in every game of the batch and return the new state.

        Args:
            state: a batch of `B` games; not modified.
            actions: (B,) integer actions (the game's action table) for each game's
                `current_player`. Games that are over ignore their entry.
            threads: step the games on up to this many threads (batches of at least
                2048 games; `kanaloa_env.core.kernels`); the result does not depend on it.

        Returns:
            A new `State`: `rewards` holds this step's rewards, `terminated`,
            `truncated` and `winner` the end, `legal` the next mask.

        Raises:
            TypeError: `actions` is not an integer array.
            ValueError: wrong shape, out of range, or illegal in some game (the message
                names the games, players, phases and actions at fault); the state is
                then unchanged.
        """
        actions = self.validate_actions(state, actions)
        new = state.copy()
        self._run(new, actions, threads)
        return new

    def step_inplace(
        self, state: S, actions: np.ndarray, validate: bool = True, threads: int = 1
    ) -> S:
        """Like `step`, but updates `state`'s arrays in place and returns it.

        Faster (no copy); on an error nothing has been written. `validate=False` skips
        the checks, for callers that have already checked the actions against
        `state.legal` (an unchecked illegal action corrupts the state). `threads` as for
        `step`.
        """
        if validate:
            actions = self.validate_actions(state, actions)
        else:
            actions = unchecked_actions(actions, len(state.current_player))
        self._run(state, actions, threads)
        return state

    def validate_actions(self, state: S, actions: object) -> np.ndarray:
        """Check `actions` against the batch `state`; return them as a (B,) int64 array or
        raise.

        Raises:
            TypeError: not an integer array.
            ValueError: wrong shape, or an action out of range or illegal in a game that
                is not over (the message lists the games, players, phases and actions).
        """
        a = actions
        cur = state.current_player
        if (
            type(a) is not np.ndarray
            or a.dtype != np.int64
            or a.shape != cur.shape
            or count_illegal(a, state.legal, cur)
        ):
            # The one check with its messages (and the conversion of other integer types).
            a = check_actions(
                actions, state.legal, lambda: cur >= 0, lambda g, act: self._describe(state, g, act)
            )
        return a  # type: ignore[return-value]

    def _run(self, state: S, actions: np.ndarray, threads: int) -> None:
        if threads != 1 or type(threads) is not int:
            threads = check_threads(threads)
        self._apply(state, actions, threads)


def observer_seats(seat: object, batch_size: int, num_players: int) -> np.ndarray | None:
    """The (B,) int64 seats whose view `observe` encodes (B: `batch_size`; seats below
    `num_players`), None for each game's player to act; a TypeError or ValueError saying
    what a `seat` may be."""
    return None if seat is None else seat_array(seat, batch_size, num_players, "seat")


_NO_SEATS = np.zeros(0, dtype=np.int64)


def _encode_range(c, s, seats, to_act, out, lo, hi):  # type: ignore[no-untyped-def]
    """Rows lo..hi of the (B, obs_dim) `out`, game g from the view of `seats[g]`, or of
    its player to act (player 0 once over) when `to_act`: the batch loop of `Observer`,
    compiled per game around its `encode_game` (`kernels.module_kernel`)."""
    for g in range(lo, hi):
        me = max(np.int64(s.current_player[g]), 0) if to_act else seats[g]
        encode_game(c, s, g, me, out[g])  # noqa: F821 (the game's, bound by module_kernel)


class Observer(Generic[S]):
    """A game's `observe` over its compiled kernel `encode_game(rules, arrays, g, seat,
    row)`, which writes game g's observation from `seat`'s view into the (obs_dim,)
    float32 `row`; the batch loop around it is `_encode_range`, compiled as a function
    of the game's module (numba's cache keeps it there)."""

    def __init__(self, encode_game: Any, obs_dim: int) -> None:
        module = getattr(encode_game, "py_func", encode_game).__module__
        self._range = module_kernel(_encode_range, module, encode_game=encode_game)
        self._entry = Entry(self._range, types.int64[::1], types.boolean, types.float32[:, ::1])
        self.obs_dim = obs_dim

    def observe(
        self,
        state: S,
        seat: np.ndarray | int | None = None,
        out: np.ndarray | None = None,
        threads: int = 1,
    ) -> np.ndarray:
        """Encode each game from one player's point of view.

        Args:
            state: a batch of `B` games.
            seat: whose view: None for each game's player to act (player 0 once a
                game is over), one int for all games, or (B,) ints (Python or numpy
                integers; not floats or bools).
            out: optional (B, OBS_DIM) float32 array to write into (every entry is
                written).
            threads: encode the games on up to this many threads (batches of at least
                2048 games; `kanaloa_env.core.kernels`). The result does not depend on it.

        Returns:
            (B, OBS_DIM) float32 observations (`out` when given; the layout is the
            game's `OBS_LAYOUT`).

        Raises:
            TypeError: `seat` is not an integer or an integer array.
            ValueError: `seat` of the wrong shape or not a seat of the table, a bad `out`.
        """
        B, D = len(state.current_player), self.obs_dim
        if threads != 1 or type(threads) is not int:
            threads = check_threads(threads)
        if seat is None:  # (each game's player to act: the kernel reads it)
            seats, to_act = _NO_SEATS, True
        else:
            seats, to_act = seat_array(seat, B, state.num_players, "seat"), False
        if out is None:
            out = np.empty((B, D), dtype=np.float32)
            fn = self._entry(state)
        elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (B, D):
            raise ValueError(f"out must be a float32 array of shape ({B}, {D})")
        elif not out.flags.writeable:
            raise ValueError("out must be writeable")
        else:
            fn = self._entry(state) if out.flags.c_contiguous and out.flags.aligned else self._range
        run_state(fn, B, threads, state, seats, to_act, out)
        return out


class Sampler(Generic[S]):
    """A game's belief sampling, `determinize` and `determinize_from_keys`, over its
    `sample(state, seats, counts, keys)`: for game i of `state` (a state or a public
    view), `counts[i]` full states agreeing with what `seats[i]` knows, drawn from
    `keys[i]` alone; (sum counts) games, game-major. The arguments are checked here;
    `state_class` is the game's `State`, `where` as for `Setup`."""

    def __init__(
        self,
        state_class: type[S],
        sample: Callable[[S, np.ndarray, np.ndarray, np.ndarray], S],
        where: str = "",
    ) -> None:
        self.state_class = state_class
        self._sample = sample
        self._where = where or _package(state_class)

    def seats(self, state: S, seats: object) -> np.ndarray:
        """(B,) intp seats of the table from `seats`, one int or B ints, for `state`, a
        `State` of the game; a TypeError or ValueError otherwise."""
        if not isinstance(state, self.state_class):
            raise TypeError(f"state must be a {self._where}.State, got {type(state).__name__}")
        return check_seats(seats, state.batch_size, state.num_players)

    def determinize(
        self,
        state: S,
        seats: np.ndarray | Sequence[int] | int,
        n: int | np.ndarray | Sequence[int],
        rng: np.random.Generator | int,
    ) -> S:
        """Sample full states consistent with what `seats` knows, `n` per game (what
        is hidden and how it is drawn: the game's belief module).

        Args:
            state: a batch of `b` games: the real state or the seat's public view
                (`public_view(state, seats)`); only what the seat may know is read,
                never another player's hidden cards or the key.
            seats: (b,) ints or one int, the seat whose knowledge each game's samples
                respect (usually the player to act).
            n: samples per game, an int >= 1, or (b,) ints >= 1 (game i gets n[i]).
            rng: a `numpy.random.Generator` (or an int seed for one): one 64-bit draw
                per game seeds that game's samples (`determinize_from_keys`).

        Returns:
            A `State` of `b * n` games (`sum(n)` for per-game counts), game-major:
            rows `i*n .. i*n+n-1` are game i's samples. Each equals game i except what
            the seat cannot know (drawn uniformly among the placements consistent
            with its knowledge), the key (fresh, so later chance events differ between
            samples) and the cached legal mask (recomputed). Each passes the game's
            `check_invariants`, and `observe(sample, seat)` equals `observe(state, seat)`.

        Raises:
            TypeError: `state` is not a `State` of the game, `seats` or `n` are not
                integers, `rng` is neither a Generator nor an int.
            ValueError: a seat not at the table, `n < 1`, shapes that disagree, or a
                position no placement is consistent with (a state the rules cannot
                reach).
        """
        self.seats(state, seats)  # before the draw: bad arguments leave `rng` as it was
        check_counts(n, state.batch_size)
        keys = keys_from_generator(rng, state.batch_size)
        return self.determinize_from_keys(state, seats, n, keys)

    def determinize_from_keys(
        self,
        state: S,
        seats: np.ndarray | Sequence[int] | int,
        n: int | np.ndarray | Sequence[int],
        keys: np.ndarray,
    ) -> S:
        """`determinize` with one uint64 key per game instead of a generator.

        Game i's samples depend only on game i, `seats[i]`, `n[i]` and `keys[i]`, not
        on the other games of the batch: a batch gives the same samples as one call
        per game with the same keys.

        Args:
            state, seats, n: as for `determinize`.
            keys: (b,) uint64 keys (`rng.game_keys` makes them from a seed and ids).
        """
        seat = self.seats(state, seats)
        counts = check_counts(n, state.batch_size)
        return self._sample(state, seat, counts, check_keys(keys, state.batch_size))


# ---- invariant checkers ----------------------------------------------------------------


def fail(bad: np.ndarray | np.bool_, what: str) -> None:
    """Raise `InvariantError` naming `what` and the first ten games where `bad` (B,) holds."""
    if bad.any():  # (the common case, nothing bad, without np.flatnonzero's wrappers)
        raise InvariantError(f"{what}: games {np.flatnonzero(bad)[:10].tolist()}")


def check_ranges(state: GameState, ranges: tuple[tuple[str, int, int], ...]) -> None:
    """Every array of `state` named in `ranges` (name, lowest, highest) holds values in
    range: the
    first check of an invariant checker, so that a corrupt index is reported, not met
    as an IndexError by the checks after it."""
    B = state.batch_size
    for name, lo, hi in ranges:
        values = getattr(state, name).reshape(B, -1).astype(np.int64)
        fail(((values < lo) | (values > hi)).any(axis=1), f"{name} outside {lo}..{hi}")


def check_mask(state: GameState, fresh: np.ndarray, over: np.ndarray) -> None:
    """The cached mask `state.legal` equals a fresh computation `fresh` (B, A) and is
    non-empty exactly in the games that are not `over` (B,)."""
    fail((fresh != state.legal).any(axis=1), "cached mask differs from a fresh computation")
    fail(fresh.any(axis=1) == over, "mask must be non-empty exactly when the game is not over")


@dataclass
class PlaythroughStats:
    """What a game's `random_playthrough` saw (a game's subclass adds its own figures):
    the games, the decisions taken, how many ended by the rules or were cut short, and
    the final state."""

    games: int
    decisions: int
    terminated: int
    truncated: int
    final_state: Any

    @staticmethod
    def common(state: GameState, decisions: int) -> dict[str, Any]:
        """The fields of this class for the final `state` after `decisions` decisions."""
        return {
            "games": state.batch_size,
            "decisions": decisions,
            "terminated": int(state.terminated.sum()),
            "truncated": int(state.truncated.sum()),
            "final_state": state,
        }

    @staticmethod
    def figures(state: Any) -> dict[str, Any]:
        """The fields a game's subclass adds, for the final `state` (none here)."""
        return {}


def random_games(
    init: Callable[[Any, int, int], S],
    step: Callable[[S, np.ndarray], S],
    check: Callable[[S], None],
    config: Any,
    num_games: int,
    seed: int,
    max_steps: int,
    check_every: int,
    each_step: Callable[[S, S, np.ndarray], None] | None = None,
    why_long: str = "",
) -> tuple[S, int]:
    """The loop of a game's `random_playthrough`: `num_games` games of `config` from the
    stream `seed` (the game's `init`), played with the game's `step` and uniformly
    random legal actions to the end, under the invariant checker
    `check` (every `check_every` steps and at the end). Each step also checks that
    finished games stay unchanged and that rewards come only with the step that ends a
    game, then calls `each_step(before, after, done_before)` for the game's own checks.

    Returns:
        The final state and the number of decisions taken.

    Raises:
        InvariantError: a broken rule, or games still running after `max_steps` steps
            (`why_long` names the rule that bounds a game).
        TypeError, ValueError: `num_games`, `max_steps` or `check_every` not an int >= 1.
    """
    for name, value in (
        ("num_games", num_games),
        ("max_steps", max_steps),
        ("check_every", check_every),
    ):
        check_positive_int(value, name)
    state = init(config, num_games, seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    for t in range(max_steps):
        done = state.done
        if done.all():
            break
        mask = state.legal
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        before = state
        state = step(before, actions)
        decisions += int((~done).sum())
        if (done & ~before.game_equal(state.replace(rewards=before.rewards))).any():
            raise InvariantError("a finished game changed in step")
        ended = state.done & ~done
        if (state.rewards[~ended] != 0).any():
            raise InvariantError("a reward outside the step that ends a game")
        if each_step is not None:
            each_step(before, state, done)
        if t % check_every == 0:
            check(state)
    else:
        raise InvariantError(f"games still running after {max_steps} steps{why_long}")
    check(state)
    return state, decisions


Stats = TypeVar("Stats", bound=PlaythroughStats)


def playthrough(
    init: Callable[[Any, int, int], S],
    step: Callable[[S, np.ndarray], S],
    check: Callable[[S], None],
    stats: type[Stats],
    *,
    max_steps: int,
    each_run: Callable[[], Callable[[S, S, np.ndarray], None]] | None = None,
    why_long: str = "",
) -> Callable[..., Stats]:
    """A game's `random_playthrough(config, num_games=256, seed=0, max_steps=...,
    check_every=1)`: `random_games` of the game's `init` and `step` under the invariant
    checker `check`, its figures in the game's `stats` (a `PlaythroughStats` subclass:
    `common` and its `figures`).

    `max_steps` is the default bound of a run, `why_long` names the rule that bounds a
    game; `each_run()` makes the game's own check of each step for one run (so that it
    may count across the run's steps), or None.
    """

    def random_playthrough(
        config: Any,
        num_games: int = 256,
        seed: int = 0,
        max_steps: int = max_steps,
        check_every: int = 1,
    ) -> Stats:
        """Play `num_games` random legal games of the stream `seed` to the end under the
        invariant checker (every `check_every` steps and at the end), each step also
        checked by the engine's own step checks (`engine.random_games`).

        Raises:
            InvariantError: a broken rule, or a game running past `max_steps` decisions.
            TypeError, ValueError: `num_games`, `max_steps` or `check_every` is not an
                int >= 1.
        """
        each_step = None if each_run is None else each_run()
        state, decisions = random_games(
            init, step, check, config, num_games, seed, max_steps, check_every, each_step, why_long
        )
        return stats(**stats.common(state, decisions), **stats.figures(state))

    return random_playthrough
