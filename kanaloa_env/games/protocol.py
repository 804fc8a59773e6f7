"""The game protocol: everything a layer above the engines may ask of a game.

The batched analogue of pgx's `Env` or OpenSpiel's `Game`. Each game implements one
`Game` subclass in its own sub-package of `kanaloa_env.games` over its engine in
`kanaloa_env.core`; the AEC env, the vector driver and its Gymnasium/SB3/RLlib faces,
the bots, records, rendering, the arena and the command-line tools depend on this
class and on nothing game-specific. Adding a game adds its engine
(`kanaloa_env/core/<game>/`), its sub-package here (`kanaloa_env/games/<game>/`: the
`Game` subclass in `__init__.py`, and by convention the modules `text.py`,
`image.py`, `describe.py`, `moves.py`, `heuristic.py`, `gpu_heuristic.py` and
`search.py` that the default methods below import on first use) and one line in
`kanaloa_env.games.GAMES`. The calls into the engine default to the functions of the
same names in the engine package.

A game's state is a `kanaloa_env.core.batch.GameState`: arrays with a leading batch
axis `B`, among them `key`, `current_player`, `legal`, `rewards`, `terminated`,
`truncated` and `winner` (its docstring has the table), with the properties
`batch_size`, `num_players` and `done`. `Game` is generic in the engine's state and
config types (`Game[State, Config]`); the layers above hold a `Game[Any, Any]`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from ..core.batch import GameState

if TYPE_CHECKING:
    from .search import SearchGame

__all__ = ["ConfigFlag", "Game", "Move", "Region"]


@dataclasses.dataclass(frozen=True)
class Move:
    """One legal move as the terminal game lists it: its number, action and label."""

    number: int
    action: int
    label: str


@dataclasses.dataclass(frozen=True)
class Region:
    """A part of the game's picture (`Game.render_rgb`) that stands for one legal action,
    so that a page can make it clickable (`kanaloa_env.web`).

    Attributes:
        action: the action the region plays.
        shape: "rect" (`points` are the corners (x0, y0) and (x1, y1)), "polygon" (its
            corners) or "line" (a polyline `width` pixels wide, e.g. a bridge).
        points: pixel coordinates on the (H, W) picture, x to the right and y down.
        width: the width of a "line"; 0 for the other shapes.

    Several regions may share an action (two cards of a kind in a hand), and several
    actions may share a region (a bridge paid for with one card or another): a page
    then asks which.
    """

    action: int
    shape: str
    points: tuple[tuple[float, float], ...]
    width: float = 0.0


@dataclasses.dataclass(frozen=True)
class ConfigFlag:
    """A command-line flag that sets one config field (`Game.config_flags`).

    Attributes:
        flag: the option, e.g. "--max-turns" (its argparse dest: "max_turns").
        field: the `Config` field it sets.
        help: the help text.
        switch: for a flag without a value (`store_true`), the field's value when given;
            None for a flag that takes a value.
        type, choices, metavar: argparse's, for a flag that takes a value.
        convert: the field's value from the flag's (default: the flag's as is).
    """

    flag: str
    field: str
    help: str
    switch: Any = None
    type: Callable[[str], Any] | None = None
    choices: Any = None
    metavar: str | None = None
    convert: Callable[[Any], Any] | None = None

    @property
    def dest(self) -> str:
        """The attribute argparse gives the flag's value: its name without the dashes,
        "-" read as "_"."""
        return self.flag.lstrip("-").replace("-", "_")


S = TypeVar("S", bound=GameState)
C = TypeVar("C")

# The methods of `Game` whose defaults call a function of the game's `engine` module, and
# that function's name: a game provides the method when its engine module defines it.
_ENGINE_FUNCTIONS = {
    "init": "init",
    "init_from_keys": "init_from_keys",
    "init_game": "init",
    "reset_games": "reset_games",
    "step_inplace": "step_inplace",
    "step": "step",
    "validate_actions": "validate_actions",
    "observe": "observe",
    "action_name": "action_name",
    "public_view": "public_view",
    "determinize": "determinize",
    "check_invariants": "check_invariants",
    "random_playthrough": "random_playthrough",
    "to_scenario": "to_scenario",
    "from_scenario": "from_scenario",
}
# The class attributes a game with an `engine` module may leave to it, and their names there.
_ENGINE_ATTRIBUTES = {
    "num_actions": "NUM_ACTIONS",
    "obs_dim": "OBS_DIM",
    "config_class": "Config",
    "state_class": "State",
}
# The engine functions every game needs (the others are optional pieces).
_REQUIRED_ENGINE_METHODS = (
    "init",
    "init_from_keys",
    "init_game",
    "reset_games",
    "step_inplace",
    "step",
    "validate_actions",
)
# The views and the modules of the game's package their defaults import.
_VIEW_MODULES = {
    "describe_action": "describe",
    "describe_step": "describe",
    "render_text": "text",
    "render_rgb": "image",
    "action_regions": "image",
    "legal_moves": "moves",
    "parse_move": "moves",
    "move_help": "moves",
    "turn_prompt": "moves",
    "final_lines": "moves",
    "bot_factories": "heuristic",
    "search_pieces": "search",
    "gpu_bot": "gpu_heuristic",
}

# View functions that a game's module may leave out while it has the others (a picture
# without clickable regions): a game provides one only if its module defines it
# (checking imports the module).
_OPTIONAL_VIEW_FUNCTIONS = frozenset({"action_regions"})


def parse_listed_move(text: str, moves: Sequence[Move]) -> int:
    """The action of the move among `moves` that `text` names by its number or its label
    (case-insensitive); ValueError saying which moves there are."""
    word = text.strip().lower()
    if word.isascii() and word.isdigit():
        for m in moves:
            if m.number == int(word):
                return m.action
        raise ValueError(f"no move {word}: the moves are 1..{len(moves)}")
    for m in moves:
        if m.label.lower() == word:
            return m.action
    allowed = ", ".join(m.label for m in moves)
    raise ValueError(f"{text.strip()!r} is not a legal move now; legal: {allowed}")


class Game(Generic[S, C]):
    """One game's implementation of the protocol (subclass it).

    What a game must give and what it may leave out is written down in three class
    attributes, and `kanaloa_env.games.register_game` (and the first `get_game` of a
    built-in game) refuses a game that lacks a required piece, naming it
    (`missing_pieces`):

    - `REQUIRED_ATTRIBUTES`: the class attributes below;
    - `REQUIRED_METHODS`: the engine methods, `observe`, `observation_bounds`,
      `final_ranks` and `action_name`; a game with several table sizes also
      `observed_table_sizes`;
    - `OPTIONAL_METHODS`: the rest, each with what needs it. A game without one
      raises NotImplementedError (or ModuleNotFoundError for a view module) where it
      is called, and `provides(name)` is False; the conformance suite
      (`tests/games/conformance/`) skips what a game does not provide.

    A class that sets `engine` and not `num_actions`, `obs_dim`, `config_class` or
    `state_class` gets them from the engine module's `NUM_ACTIONS`, `OBS_DIM`, `Config`
    and `State` where it has them. Every call into the engine (`init`, ..., `observe`,
    `action_name`, `public_view`,
    `determinize`, `check_invariants`, `random_playthrough`, `to_scenario`,
    `from_scenario`) has a default that calls the function of the same name in the
    game's `engine` module (`init_game` calls its `init`), so a game provides one by
    its engine defining it or by overriding the method.

    The other methods (config helpers, `game_summary`, `shaping_potential`, the
    command-line flags, `search_defaults`) have defaults that serve any game.

    Class attributes:
        name: the id used everywhere (`"kanaloa"`, `"kahuna"`).
        title: the display name.
        version: the env version (`"v0"`); env ids are `kanaloa_env/<name>-<version>`.
        num_actions: A, the size of the `Discrete` action space (every phase).
        obs_dim: the length of an observation vector.
        player_counts: the allowed numbers of players.
        default_num_players: the table size when none is given.
        config_class: the engine's frozen `Config` dataclass.
        state_class: the engine's `GameState` subclass.
        engine: the engine package (`kanaloa_env.core.<game>`), whose `init(config, B,
            seed, first_game=0)`, `init_from_keys(..., threads=)`, `reset_games(...,
            threads=)`, `step(..., threads=)`, `step_inplace(..., validate=, threads=)`,
            `validate_actions`, `observe(state, seat=, threads=)`, `action_name`,
            `public_view`, `determinize`, `check_invariants`, `random_playthrough(config,
            num_games=, seed=, ...)`, `to_scenario(state, i, include_key=)` and
            `from_scenario(scenario, seed=)` the engine methods below call.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[str] = "v0"
    num_actions: ClassVar[int]
    obs_dim: ClassVar[int]
    player_counts: ClassVar[tuple[int, ...]]
    default_num_players: ClassVar[int]
    config_class: ClassVar[type]
    state_class: ClassVar[type]
    engine: ClassVar[ModuleType]

    REQUIRED_ATTRIBUTES: ClassVar[tuple[str, ...]] = (
        "name",
        "title",
        "version",
        "num_actions",
        "obs_dim",
        "player_counts",
        "default_num_players",
        "config_class",
        "state_class",
    )
    REQUIRED_METHODS: ClassVar[tuple[str, ...]] = (
        *_REQUIRED_ENGINE_METHODS,
        "observe",
        "observation_bounds",
        "final_ranks",
        "action_name",
    )
    OPTIONAL_METHODS: ClassVar[dict[str, str]] = {
        "public_view": "bots that read the state (uses_state), belief sampling",
        "determinize": "belief sampling (search bots, the hidden-information check)",
        "to_scenario": "positions: env.to_scenario(), records from a position",
        "from_scenario": "positions: reset(options={'scenario': ...}), records from a position",
        "check_invariants": "the invariant checker",
        "random_playthrough": "random games under the invariant checker",
        "render_text": "render modes 'ansi' and 'human', terminal play, replay (text.py)",
        "render_rgb": "render mode 'rgb_array', pictures and GIFs (image.py)",
        "action_regions": "clickable pictures in the web page (image.py)",
        "describe_action": "terminal play (describe.py)",
        "describe_step": "terminal play, replay (describe.py)",
        "legal_moves": "terminal play (moves.py)",
        "parse_move": "terminal play (moves.py)",
        "move_help": "terminal play (moves.py)",
        "turn_prompt": "terminal play (moves.py)",
        "final_lines": "terminal play (moves.py)",
        "bot_factories": "the game's own bots, by convention 'heuristic' (heuristic.py)",
        "search_pieces": "the search bot, make_bot('search') and SearchBot (search.py)",
        "gpu_engine": "the GPU engine and env (the engine package's gpu module)",
        "gpu_bot": "bots that decide on the GPU, GpuVectorEnv's fast opponents",
    }

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        engine = vars(cls).get("engine")
        for attr, name in _ENGINE_ATTRIBUTES.items():
            if engine is not None and attr not in vars(cls) and hasattr(engine, name):
                setattr(cls, attr, getattr(engine, name))

    # ---- the contract ----------------------------------------------------------------

    def provides(self, method: str) -> bool:
        """Whether this game gives `method` (a name of `REQUIRED_METHODS` or
        `OPTIONAL_METHODS`): its own override, for an engine method the `engine`
        module's function, for a view its module in the game's package.

        Raises:
            ValueError: `method` is neither required nor optional.
        """
        if method not in self.REQUIRED_METHODS and method not in self.OPTIONAL_METHODS:
            raise ValueError(
                f"{method!r} is not a method of the game protocol; the methods are "
                f"{list(self.REQUIRED_METHODS) + list(self.OPTIONAL_METHODS)}"
            )
        if getattr(type(self), method) is not getattr(Game, method):
            return True
        if method in _ENGINE_FUNCTIONS:
            return hasattr(getattr(self, "engine", None), _ENGINE_FUNCTIONS[method])
        if method == "gpu_engine":
            return self._gpu_module() is not None
        if method in _VIEW_MODULES:
            module = _VIEW_MODULES[method]
            if method in _OPTIONAL_VIEW_FUNCTIONS:
                return self._has_view(module) and hasattr(self._view(module), method)
            return self._has_view(module)
        return False

    def missing_pieces(self) -> list[str]:
        """The required class attributes and methods this game lacks (empty when complete)."""
        missing = [a for a in self.REQUIRED_ATTRIBUTES if not hasattr(self, a)]
        missing += [m for m in self.REQUIRED_METHODS if not self.provides(m)]
        several = len(getattr(self, "player_counts", ())) > 1
        if several and type(self).observed_table_sizes is Game.observed_table_sizes:
            missing.append("observed_table_sizes (the game has several table sizes)")
        return missing

    def _engine_function(self, method: str, missing: str | None = None) -> Callable[..., Any]:
        """The function of the `engine` module that `method`'s default calls, or
        NotImplementedError (`missing`, else a message naming the function) without one."""
        name = _ENGINE_FUNCTIONS[method]
        fn = getattr(getattr(self, "engine", None), name, None)
        if fn is None:
            raise NotImplementedError(
                missing or f"{self.title} has no {method}: its engine module defines no {name}()"
            )
        return fn  # type: ignore[no-any-return]

    # ---- config ------------------------------------------------------------------

    @property
    def config_fields(self) -> tuple[str, ...]:
        """The keyword options of the config (every `Config` field a caller may set)."""
        return tuple(f.name for f in dataclasses.fields(self.config_class) if f.init)

    def make_config(
        self,
        config: Any = None,
        num_players: int | None = None,
        **options: Any,
    ) -> C:
        """The one way every layer builds a config from what a caller passed.

        Args:
            config: a `Config` of this game, a mapping of its fields, or None.
            num_players: the table size; must agree with `config` when both are given.
            **options: further `Config` fields (not together with a `Config` object).

        Raises:
            TypeError: an unknown option (the message lists the allowed ones), or
                `config` of the wrong type.
            ValueError: conflicting or bad values (from the `Config`'s own checks).
        """
        fields = self.config_fields
        if isinstance(config, self.config_class):
            cfg: C = config  # type: ignore[assignment]
            if options:
                raise ValueError(
                    f"pass either config={self.config_class.__name__}(...) or config options "
                    f"{sorted(options)}, not both"
                )
            if num_players is not None and num_players != self.num_players_of(cfg):
                raise ValueError(
                    f"num_players={num_players} disagrees with the config's "
                    f"{self.num_players_of(cfg)}"
                )
            return cfg
        if config is None:
            kwargs: dict[str, Any] = {}
        elif isinstance(config, Mapping):
            kwargs = dict(config)
        else:
            raise TypeError(
                f"config must be a {self.name} Config, a dict of its fields or None, "
                f"got {type(config).__name__}"
            )
        clash = sorted(set(kwargs) & set(options))
        if clash:
            raise ValueError(f"config options given twice: {clash}")
        kwargs.update(options)
        unknown = sorted(k for k in kwargs if k not in fields)
        if unknown:
            raise TypeError(
                f"{self.name}: unknown config options {unknown}; allowed: {list(fields)}"
            )
        if num_players is not None:
            if "num_players" in kwargs and kwargs["num_players"] != num_players:
                raise ValueError(
                    f"num_players={num_players} disagrees with config num_players="
                    f"{kwargs['num_players']}"
                )
            if "num_players" in fields:
                kwargs["num_players"] = num_players
            elif num_players not in self.player_counts:
                raise ValueError(
                    f"{self.name} is played by {self.player_counts_text()} players, "
                    f"got num_players={num_players}"
                )
        return self.config_class(**kwargs)  # type: ignore[no-any-return]

    def player_counts_text(self) -> str:
        """The allowed table sizes as text ("3..5", "2")."""
        lo, hi = min(self.player_counts), max(self.player_counts)
        return str(lo) if lo == hi else f"{lo}..{hi}"

    def num_players_of(self, config: C) -> int:
        """The table size of a config."""
        return int(getattr(config, "num_players", self.default_num_players))

    def config_overrides(self, config: C) -> dict[str, Any]:
        """The config's fields that differ from the defaults, JSON-compatible (records,
        scenarios); `num_players` is not among them. The config's own `overrides()`
        when it has one, else its dataclass fields that differ from `config_class()`'s."""
        own = getattr(config, "overrides", None)
        if own is not None:
            return dict(own())
        default = self.config_class()
        return {
            f.name: getattr(config, f.name)
            for f in dataclasses.fields(config)  # type: ignore[arg-type]
            if f.init
            and f.name != "num_players"
            and getattr(config, f.name) != getattr(default, f.name)
        }

    def config_from_overrides(self, num_players: int, overrides: Mapping[str, Any]) -> C:
        """Rebuild a config from a table size, `num_players`, and `overrides`, the output of
        `config_overrides` (untrusted: ValueError/TypeError naming the bad key)."""
        if not isinstance(overrides, Mapping):
            raise TypeError(f"config overrides must be an object, got {type(overrides).__name__}")
        if "num_players" in overrides:
            raise ValueError("config overrides must not hold 'num_players'")
        return self.make_config(dict(overrides), num_players=num_players)

    # The game's config flags for the command-line tools (`add_cli_options`).
    config_flags: ClassVar[tuple[ConfigFlag, ...]] = ()

    def add_cli_options(self, parser: argparse.ArgumentParser) -> None:
        """Add this game's config flags to a command-line parser (e.g. `--announce`): by
        default those of `config_flags`."""
        for f in self.config_flags:
            if f.switch is not None:
                parser.add_argument(f.flag, action="store_true", help=f.help)
                continue
            extra = {"type": f.type, "choices": f.choices, "metavar": f.metavar}
            given = {k: v for k, v in extra.items() if v is not None}
            parser.add_argument(f.flag, default=None, help=f.help, **given)

    def cli_overrides(self, args: argparse.Namespace) -> dict[str, Any]:
        """The config overrides that the flags of `add_cli_options` asked for in `args`: by
        default those of `config_flags` that were given."""
        out: dict[str, Any] = {}
        for f in self.config_flags:
            value = getattr(args, f.dest)
            if f.switch is not None:
                if value:
                    out[f.field] = f.switch
            elif value is not None:
                out[f.field] = f.convert(value) if f.convert is not None else value
        return out

    # ---- the engine ----------------------------------------------------------------

    def init(self, config: C, batch_size: int, seed: int) -> S:
        """A batch of `batch_size` new games of `config`; game i is game i of the stream
        `seed` at any batch size."""
        return self.engine.init(config, batch_size, seed)  # type: ignore[no-any-return]

    def init_from_keys(self, config: C, keys: np.ndarray, threads: int = 1) -> S:
        """New games of `config` with the given (B,) uint64 `keys` (`kanaloa_env.core.rng.game_keys`),
        set up on up to `threads` threads (the result does not depend on it)."""
        return self.engine.init_from_keys(config, keys, threads=threads)  # type: ignore[no-any-return]

    def init_game(self, config: C, seed: int, i: int = 0) -> S:
        """A batch of one: game `i` of the stream `seed` (as in `init(config, B, seed)`)."""
        return self.engine.init(config, 1, seed, first_game=i)  # type: ignore[no-any-return]

    def reset_games(self, state: S, idx: np.ndarray, keys: np.ndarray, threads: int = 1) -> None:
        """Start new games with `keys` in rows `idx` of `state`, in place (auto-reset), on up
        to `threads` threads."""
        self.engine.reset_games(state, idx, keys, threads=threads)

    def step_inplace(
        self, state: S, actions: np.ndarray, validate: bool = True, threads: int = 1
    ) -> S:
        """Apply one decision per game, in place; finished games ignore their entry.
        `threads`: step the games on up to this many threads (the result does not
        depend on it).

        Raises (with `validate`): TypeError/ValueError naming the games at fault, the
        state then unchanged. `validate=False` is for callers that checked the
        actions against `state.legal` already.
        """
        return self.engine.step_inplace(state, actions, validate=validate, threads=threads)  # type: ignore[no-any-return]

    def step(self, state: S, actions: np.ndarray, threads: int = 1) -> S:
        """Like `step_inplace` with `actions` on `threads` threads, on a copy: `state` is not
        modified."""
        return self.engine.step(state, actions, threads=threads)  # type: ignore[no-any-return]

    def validate_actions(self, state: S, actions: object) -> np.ndarray:
        """`actions` checked against `state`: (B,) int64 actions, or TypeError/ValueError
        naming the games, players and actions at fault (finished games may hold
        anything)."""
        return self.engine.validate_actions(state, actions)  # type: ignore[no-any-return]

    def observe(
        self,
        state: S,
        seat: np.ndarray | int | None = None,
        threads: int = 1,
    ) -> np.ndarray:
        """(B, obs_dim) float32 observations of `state` from `seat`'s point of view
        (default: each game's player to act); only what that player may know. On up to
        `threads` threads (the result does not depend on it)."""
        return self._engine_function("observe")(state, seat=seat, threads=threads)  # type: ignore[no-any-return]

    def observed_table_sizes(self, observations: np.ndarray) -> np.ndarray:
        """(b,) int64: the table size each row of `observations`, (b, obs_dim), was encoded
        for (a policy file's network is chosen by it). The default serves a game with one
        table size; a game with several reads it from the observation (ValueError for a
        row that does not say)."""
        if len(self.player_counts) != 1:
            raise NotImplementedError(f"{self.name} must read the table size from observations")
        return np.full(len(observations), self.player_counts[0], dtype=np.int64)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(obs_dim,) float32 low and high: every observation lies inside (checked by tests)."""
        raise NotImplementedError

    def public_view(self, state: S, seats: np.ndarray) -> S:
        """A copy of `state` holding only what player `seats[i]` may know in game `i`
        (what a bot that reads the state may see)."""
        return self._engine_function("public_view")(state, seats)  # type: ignore[no-any-return]

    def determinize(self, view: S, seats: np.ndarray, n: int, rng: np.random.Generator) -> S:
        """Belief sampling: for each of the b games of `view` (a state or its public view
        for `seats`), `n` full states that agree with everything `seats[i]` knows, the
        hidden information drawn uniformly among the consistent ones (from `rng`) and
        future chance fresh; (b * n) games, game-major."""
        fn = self._engine_function("determinize", f"{self.name} has no belief sampling")
        return fn(view, seats, n, rng)  # type: ignore[no-any-return]

    def final_ranks(self, state: S) -> np.ndarray:
        """(B, P) float64 finishing ranks of the finished games of `state`: 1 is best, tied
        players share
        the mean of their places (for ratings and mean ranks)."""
        raise NotImplementedError

    def state_vector(self, state: S) -> np.ndarray:
        """(B, P * obs_dim) float32: the whole of each game as one vector, for centralised
        critics (MAPPO, RLlib's centralized-critic pattern; the AEC env's `state()`).

        Block `p` (columns `p * obs_dim` to `(p + 1) * obs_dim`) is player `p`'s
        observation (`observe(state, seat=p)`, the game's observation layout), in seat
        order. Together the blocks hold every hand and everything any player knows; what
        no player knows is future chance (the order of the undealt cards or the pile),
        which is not part of the state. Within `state_bounds`.
        """
        P = int(state.num_players)
        return np.concatenate([self.observe(state, seat=p) for p in range(P)], axis=1)

    def state_bounds(self, num_players: int) -> tuple[np.ndarray, np.ndarray]:
        """(P * obs_dim,) float32 low and high of `state_vector` at a table of `num_players`:
        the observation's bounds once per player."""
        low, high = self.observation_bounds()
        return np.tile(low, num_players), np.tile(high, num_players)

    def game_summary(self, state: S) -> dict[str, np.ndarray]:
        """Per-game figures of the finished games of `state` worth a column in tournament
        results,
        each a (B,) or (B, P) array (e.g. rounds played, boat progress)."""
        return {}

    def shaping_potential(self, state: S, seats: np.ndarray) -> np.ndarray:
        """(B,) float32 potential of each game of `state` for the player `seats[i]`, for
        optional
        potential-based reward shaping in the learning envs (0 where not offered)."""
        return np.zeros(state.batch_size, dtype=np.float32)

    def check_invariants(self, state: S) -> None:
        """Raise an `AssertionError` subclass naming the game and rule a state breaks."""
        self._engine_function("check_invariants")(state)

    def random_playthrough(self, config: C, num_games: int, seed: int, **kwargs: Any) -> Any:
        """Play `num_games` random legal games of `config` from `seed` to the end, checking
        invariants (the engine's own `random_playthrough`, which takes `kwargs`; its
        statistics returned)."""
        fn = self._engine_function("random_playthrough")
        return fn(config, num_games=num_games, seed=seed, **kwargs)

    # ---- positions -------------------------------------------------------------------

    def to_scenario(self, state: S, i: int = 0, include_key: bool = False) -> dict[str, Any]:
        """Game `i` of `state` as a JSON-compatible scenario dict, with the key of future
        chance if `include_key`."""
        return self._engine_function("to_scenario")(state, i, include_key=include_key)  # type: ignore[no-any-return]

    def from_scenario(self, scenario: Mapping[str, Any], seed: int | None = None) -> S:
        """A batch of one from `scenario` (untrusted: ValueError/TypeError naming the key);
        `seed` fixes later chance where it has no key."""
        return self._engine_function("from_scenario")(scenario, seed=seed)  # type: ignore[no-any-return]

    # ---- words and pictures ---------------------------------------------------------------

    def _gpu_module(self) -> str | None:
        """The name of the engine package's `gpu` module, or None where it has none."""
        engine = getattr(self, "engine", None)
        if engine is None or not hasattr(engine, "__path__"):
            return None
        name = f"{engine.__name__}.gpu"
        return name if importlib.util.find_spec(name) is not None else None

    def gpu_engine(self) -> Any:
        """The game's engine on a GPU (a `kanaloa_env.core.gpu.DeviceEngine`): the `ENGINE`
        of the engine package's `gpu` module (`kanaloa_env.core.<game>.gpu`), which runs
        the engine's own rule functions in CUDA kernels. Importing it imports no CUDA.

        Raises:
            NotImplementedError: the game has no GPU engine.
        """
        name = self._gpu_module()
        if name is None:
            raise NotImplementedError(f"{self.title} has no GPU engine (no gpu module)")
        return importlib.import_module(name).ENGINE

    def gpu_bot(self, bot: Any) -> Any | None:
        """`bot` deciding on the GPU, or None where the game has no such form of it (the
        GPU env then plays it on the CPU through a copy of the batch). The object has
        `actions(state, where, out)`: for a `DeviceState`, the bot's action for the
        player to act in every game flagged in the (B,) bool device array `where`,
        written into the (B,) int64 device array `out`. Imports CUDA when it returns one.

        The default serves the game's heuristic (`heuristic.py`'s `HeuristicBot`, that
        class exactly) by its package's `gpu_heuristic.py`, `gpu_heuristic(bot)`."""
        if not self._has_view("gpu_heuristic") or not self._has_view("heuristic"):
            return None
        if type(bot) is not self._view("heuristic").HeuristicBot:
            return None
        return self._view("gpu_heuristic").gpu_heuristic(bot)

    def action_name(self, action: int) -> str:
        """A short name of an action index, without context (e.g. "play red-7")."""
        return self._engine_function("action_name")(action)  # type: ignore[no-any-return]

    # A game's sub-package holds these views by convention, imported on first use (so a
    # game's pictures do not load Pillow until drawn): `describe.py` (describe_action,
    # describe_step), `text.py` (render_text), `image.py` (render_rgb), `moves.py`
    # (legal_moves, parse_move, turn_prompt, final_lines, HELP_TEXT), `heuristic.py`
    # (HeuristicBot), `gpu_heuristic.py` (gpu_heuristic), `search.py` (search_pieces,
    # SEARCH_DEFAULTS).

    def _package(self) -> str:
        # The package of the module that defines the game's class (the class may live in
        # the package's __init__.py or in a module of it).
        module = sys.modules.get(type(self).__module__)
        return getattr(module, "__package__", None) or type(self).__module__

    def _view(self, module: str) -> Any:
        return importlib.import_module(f"{self._package()}.{module}")

    def _has_view(self, module: str) -> bool:
        try:
            return importlib.util.find_spec(f"{self._package()}.{module}") is not None
        except ImportError:  # the game's module is not a package
            return False

    def describe_action(self, state: S, action: int, i: int = 0) -> str:
        """What `action` means for the player to act in game `i` of `state`, in words (with
        context)."""
        return self._view("describe").describe_action(state, action, i)  # type: ignore[no-any-return]

    def describe_step(
        self,
        before: S,
        action: int,
        after: S,
        i: int = 0,
        names: Sequence[str] | None = None,
    ) -> list[str]:
        """Sentences telling what `action` did in game `i`, from the state `before` to the
        state `after`, the players called by `names` (records, replay, play)."""
        return self._view("describe").describe_step(before, action, after, i, names)  # type: ignore[no-any-return]

    def render_text(
        self,
        state: S,
        i: int = 0,
        color: bool = True,
        seat: int | None = None,
        legal: bool = True,
    ) -> str:
        """Game `i` of `state` as a text table (ANSI colours when `color`); `seat`'s hand shown
        (default the player to act), with the legal actions listed when `legal` and that
        is the player to act."""
        return self._view("text").render_text(state, i, color=color, seat=seat, legal=legal)  # type: ignore[no-any-return]

    def render_rgb(self, state: S, i: int = 0, seat: int | None = None) -> np.ndarray:
        """Game `i` of `state` as an (H, W, 3) uint8 picture, `seat`'s hand shown (None:
        the game's default)."""
        return self._view("image").render_rgb(state, i, seat)  # type: ignore[no-any-return]

    def action_regions(self, state: S, i: int = 0, seat: int | None = None) -> list[Region]:
        """The parts of `render_rgb(state, i, seat)` that stand for the legal actions of
        game `i`'s player to act (none when `seat` is another player or the game is
        over); actions without a place on the picture (a yes/no choice) have none."""
        return self._view("image").action_regions(state, i, seat)  # type: ignore[no-any-return]

    def legal_moves(self, state: S, color: bool = False) -> list[Move]:
        """The legal moves of the player to act in game 0 of `state`, numbered for a human
        (terminal play), in ANSI colours if `color`."""
        return self._view("moves").legal_moves(state, color)  # type: ignore[no-any-return]

    def parse_move(self, text: str, state: S) -> int:
        """The action that `text`, a human's typed move, names in game 0 of `state` (a move
        number or the game's own notation); ValueError with a hint when it names none or an illegal one.
        A `moves.py` without `parse_move` takes a move's number or its label."""
        own = getattr(self._view("moves"), "parse_move", None)
        if own is not None:
            return own(text, state)  # type: ignore[no-any-return]
        return parse_listed_move(text, self.legal_moves(state))

    def move_help(self) -> str:
        """What a human may type in the terminal game."""
        return self._view("moves").HELP_TEXT  # type: ignore[no-any-return]

    def turn_prompt(self, state: S) -> str:
        """What the player to act in game 0 of `state` decides now, addressed to them ("you
        play a card")."""
        return self._view("moves").turn_prompt(state)  # type: ignore[no-any-return]

    def final_lines(self, state: S, names: Sequence[str], color: bool = False) -> list[str]:
        """The end of game 0 of `state` for a human: who won and the final standing, the
        players called by `names`, in ANSI colours if `color`."""
        return self._view("moves").final_lines(state, names, color)  # type: ignore[no-any-return]

    # ---- bots ---------------------------------------------------------------------------

    def bot_factories(self) -> dict[str, Callable[[], Any]]:
        """The game's own bots by name: its `heuristic.py`'s `HeuristicBot` as "heuristic"
        ("random" is every game's); none without that module."""
        if not self._has_view("heuristic"):
            return {}
        return {"heuristic": self._view("heuristic").HeuristicBot}

    def search_pieces(self, policy: str, horizon: str) -> SearchGame:
        """The game's `kanaloa_env.games.search.SearchGame` for the search bot, with the
        rollouts' default `policy` ("heuristic" or "random") and `horizon` ("round" or
        "game"): its `search.py`'s `search_pieces(policy, horizon)`. A game without it
        has no "search" bot."""
        return self._view("search").search_pieces(policy, horizon)  # type: ignore[no-any-return]

    def search_defaults(self) -> dict[str, Any]:
        """The `SearchBot` fields of the game's "search" bot (`make_bot("search")`: its
        budget, policy, horizon): its `search.py`'s `SEARCH_DEFAULTS`, else none (the
        bot's own defaults)."""
        if not self._has_view("search"):
            return {}
        return dict(getattr(self._view("search"), "SEARCH_DEFAULTS", {}))
