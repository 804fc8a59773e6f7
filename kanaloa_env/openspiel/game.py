"""Our games as OpenSpiel Python games, through the game protocol.

`register("kanaloa")` registers `python_kanaloa` with `pyspiel.register_game`: a
`pyspiel.Game` subclass whose parameters are the engine's `Config` fields (and `players`
for a game with several table sizes) and whose states step our engine, a batch of one,
with every random event a chance node (`kanaloa_env.openspiel.chance`). Any game of
`kanaloa_env.games.GAMES` registers the same way given its `ChanceModel`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pyspiel

from ..games import get_game
from ..games.protocol import Game
from .chance import ChanceModel
from .single import Kernels, OneGame

__all__ = ["OpenSpielGame", "OpenSpielObserver", "OpenSpielState", "register", "short_name"]

PREFIX = "python_"
# Rewards' denominators are small (P - 1, the rank scheme's 2(P - 1)); float32's error
# (6e-8) is far below the gap 1e-6 between fractions of denominators up to 1000.
_DENOMINATOR = 1000


def short_name(game: str | Game[Any, Any]) -> str:
    """The OpenSpiel name of one of our games: "python_" + its name.

    Args:
        game: a game name of `kanaloa_env.games.GAMES` or its `Game`.
    """
    return PREFIX + get_game(game).name


class _Shared:
    """A value every clone of a state shares (the config): `copy.deepcopy` keeps it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __getstate__(self) -> tuple[Any]:
        return (self.value,)  # a tuple: pickle skips __setstate__ for a false state

    def __setstate__(self, value: tuple[Any]) -> None:
        self.value = value[0]


class _Engine:
    """The engine's state (a batch of one) in a box whose deep copy is `State.copy`
    (OpenSpiel clones a Python state by deep-copying its attributes), with its compiled
    calls (`single.OneGame`, made on first use for each engine state object)."""

    __slots__ = ("calls", "state")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.calls: Any = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(None if self.state is None else self.state.copy())

    def __getstate__(self) -> tuple[Any]:
        return (self.state,)  # a tuple: pickle skips __setstate__ for a false state

    def __setstate__(self, state: tuple[Any]) -> None:
        self.state = state[0]
        self.calls = None


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_NO_REWARDS: dict[int, bytes] = {}  # by player count: the bytes of (P,) float32 zeros


@functools.lru_cache(maxsize=8)
def _zeros(players: int) -> np.ndarray:
    """A read-only (P,) float64 of zeros (the rewards of a transition without any)."""
    out = np.zeros(players)
    out.flags.writeable = False
    return out


def exact_rewards(rewards: np.ndarray) -> np.ndarray:
    """(P,) float64: the engine's float32 rewards as the fractions they stand for (-1/3,
    not float32's -0.33333334; every scheme's rewards are fractions with small
    denominators), so that they sum to 0 in float64 as OpenSpiel checks (to 1e-9)."""
    return np.array([float(Fraction(float(x)).limit_denominator(_DENOMINATOR)) for x in rewards])


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """One game in OpenSpiel's state API over our engine.

    Attributes:
        engine: the engine's state, a batch of one (None until the set-up's chance
            nodes are done); at a chance node, the position before the event.
        pending: the chance event under way (the `ChanceModel`'s record), None at a
            decision node and at the end.
        config: the engine's `Config`.
        round: the game's count of the events after which chance deals again (the
            `ChanceModel`'s; Kanaloa's round, Kahuna's scorings).
    """

    ours: ClassVar[Game[Any, Any]]
    chance: ClassVar[ChanceModel]
    kernels: ClassVar[Kernels]

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        self._config = _Shared(game.config)
        self._engine = _Engine(None)
        # The ChanceModel's record (a list), None at a decision node: see its docstring.
        self.pending: Any = self.chance.begin(game.config)
        self.round = 0
        self._player = int(pyspiel.PlayerId.CHANCE)  # cached: OpenSpiel asks often
        self._returns = self._rewards = _zeros(game.num_players())
        self._legal: list[int] | None = None  # the legal actions, listed on first use

    @property
    def config(self) -> Any:
        """The engine's `Config` of this game (shared by every clone)."""
        return self._config.value

    @property
    def engine(self) -> Any:
        """The engine's state, a batch of one (its arrays have a leading axis of 1);
        None until the set-up's chance nodes are done."""
        return self._engine.state

    @engine.setter
    def engine(self, state: Any) -> None:
        self._engine.state = state
        self._engine.calls = None
        self._legal = None

    def _calls(self) -> OneGame:
        """The compiled calls of the engine state (made once per engine state object)."""
        box = self._engine
        if box.calls is None:
            box.calls = self.kernels.bind(box.state)
        return box.calls  # type: ignore[no-any-return]

    # ---- what the ChanceModel calls ---------------------------------------------

    def step_engine(self, action: int) -> None:
        """Step the engine with the legal `action` and collect its rewards."""
        box = self._engine
        if box.calls is None:
            box.calls = self.kernels.bind(box.state)
        box.calls.step(action)
        rewards = box.state.rewards  # (1, P)
        zero = _NO_REWARDS.get(rewards.size)
        if zero is None:
            zero = _NO_REWARDS[rewards.size] = np.zeros_like(rewards).tobytes()
        if rewards.tobytes() != zero:  # (faster than rewards.any(); a -0.0 adds 0)
            r = exact_rewards(rewards[0])
            self._rewards = self._rewards + r
            self._returns = self._returns + r

    # ---- OpenSpiel's state API --------------------------------------------------

    def _find_player(self) -> None:
        """Cache the player to act after a transition (`current_player`), and forget the
        legal actions of the position before."""
        self._legal = None
        if self.pending is not None:
            self._player = _CHANCE
            return
        s = self._engine.state
        # `.item()` of the one-game arrays: a Python value, faster than int(a[0]).
        self._player = (
            _TERMINAL if s.terminated.item() or s.truncated.item() else s.current_player.item()
        )

    def current_player(self) -> int:
        """The player to act, `PlayerId.CHANCE` at a chance node, `TERMINAL` at the end."""
        return self._player

    def is_terminal(self) -> bool:
        """Whether the game is over (terminated or truncated by the engine)."""
        return self._player == _TERMINAL

    def is_chance_node(self) -> bool:
        """Whether a chance event is under way (`current_player()` is `PlayerId.CHANCE`):
        OpenSpiel's `is_chance_node`, answered without a call into C++ and back."""
        return self._player == _CHANCE

    def is_player_node(self) -> bool:
        """Whether a player is to act: OpenSpiel's `is_player_node`, answered here."""
        return self._player >= 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of `player` (default: the player to act), in increasing
        order: OpenSpiel's `legal_actions`, whose answer at a decision node is listed
        once per position here instead of in a call from C++ back into Python; at a
        chance node the outcomes' actions, at the end none, and for another player none.
        """
        if player is None or player == self._player:
            if self._player >= 0:
                got = self._legal
                if got is None:
                    got = self._legal = self._engine.state.legal[0].nonzero()[0].tolist()
                return got[:]
            return pyspiel.State.legal_actions(self)  # type: ignore[no-any-return]
        return pyspiel.State.legal_actions(self, player)  # type: ignore[no-any-return]

    def _legal_list(self) -> list[int]:
        """The legal actions of the player to act at a decision node (kept until the next
        transition; callers copy it)."""
        got = self._legal
        if got is None:
            got = self._legal = self._engine.state.legal[0].nonzero()[0].tolist()
        return got

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._player or player < 0:
            return []
        return self._legal_list()[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) of each outcome of this chance node."""
        if self.pending is None:
            return []
        return self.chance.outcomes(self)

    def _apply_action(self, action: int) -> None:
        legal = self._legal
        if legal is not None and type(action) is int and action in legal:
            # A legal decision by the list `legal_actions` made (its usual caller's path).
            self._rewards = _zeros(len(self._rewards))
            self.chance.apply_action(self, action)
            self._find_player()
            return
        if self.pending is not None:
            if not self.chance.is_possible(self, action):
                outcomes = [a for a, _ in self.chance.outcomes(self)]
                raise ValueError(
                    f"{self.ours.name}: chance outcome {action!r} is not possible here; the "
                    f"outcomes are {outcomes}"
                )
            self._rewards = _zeros(len(self._rewards))
            self.chance.apply_outcome(self, int(action))
            self._find_player()
            return
        if self._player == _TERMINAL:
            raise ValueError(f"{self.ours.name}: the game is over; no action is legal")
        s = self._engine.state
        legal = s.legal[0]
        if not (
            isinstance(action, (int, np.integer)) and 0 <= action < len(legal) and legal[action]
        ):
            p = int(s.current_player[0])
            names = [f"{a} ({self.ours.action_name(int(a))})" for a in np.flatnonzero(legal)]
            what = (
                f"{action} ({self.ours.action_name(action)})"
                if isinstance(action, (int, np.integer)) and 0 <= action < len(legal)
                else repr(action)
            )
            raise ValueError(
                f"{self.ours.name}: action {what} is not legal for player_{p}; legal: "
                + ", ".join(names)
            )
        self._rewards = _zeros(len(self._rewards))
        self.chance.apply_action(self, int(action))
        self._find_player()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.pending is None:
                return f"chance outcome {action}"
            return self.chance.outcome_name(self, action)
        return self.ours.action_name(action)

    def returns(self) -> list[float]:
        """Each player's rewards summed over the game so far (our engine's rewards)."""
        return self._returns.tolist()  # type: ignore[no-any-return]

    def rewards(self) -> list[float]:
        """Each player's reward of the last transition (our engine's `rewards`)."""
        return self._rewards.tolist()  # type: ignore[no-any-return]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A state drawn from player `player_id`'s beliefs: a clone whose engine position
        is our belief sampling's (`Game.determinize` of the player's `public_view`:
        the hidden cards drawn uniformly among those consistent with everything the
        player knows). `probability_sampler()` (OpenSpiel's, a float in [0, 1)) seeds it.

        The clone keeps this state's `history()`: the OpenSpiel history records the
        real chance outcomes, so a resampled state is a state to search from (OpenSpiel's
        IS-MCTS), not one to serialize.

        Raises:
            ValueError: at a chance node, or a player out of range.
        """
        if self.pending is not None or self.is_terminal():
            raise ValueError("resample_from_infostate: only at a decision node")
        P = len(self._returns)
        if not isinstance(player_id, (int, np.integer)) or not 0 <= player_id < P:
            raise ValueError(f"player_id must be 0..{P - 1}, got {player_id!r}")
        seed = int(float(probability_sampler()) * 2**53)
        rng = np.random.default_rng(seed)
        seats = np.array([player_id])
        view = self.ours.public_view(self._engine.state, seats)
        out: OpenSpielState = self.clone()
        out.engine = self.ours.determinize(view, seats, 1, rng)
        return out

    def __str__(self) -> str:
        """The position in our notation (`Game.render_text` for the player to act), with
        the chance event under way."""
        lines: list[str] = []
        s = self._engine.state
        if s is not None:
            seat = max(int(s.current_player[0]), 0)
            lines.append(self.ours.render_text(s, 0, color=False, seat=seat, legal=False))
        if self.pending is not None:
            lines.append(f"chance: {self.pending[0]}")
        return "\n".join(lines)


class OpenSpielObserver:
    """OpenSpiel's observer (`make_py_observer`) over our observation.

    `tensor` is our game's observation from the player's seat (`Game.observe`; the
    information state tensor is the same: our observations are not perfect-recall,
    see docs/integrations.md); `string_from` is the position in our notation
    (`Game.render_text` for the player, legal actions listed when it acts), and, for the
    information state, a digest of the observation, so that two different observations
    never share an information state string.

    Args:
        game: the game observed.
        iig_obs_type: OpenSpiel's `IIGObservationType` (None: the observation); ours is
            one player's view (`public_info=True`, `private_info=SINGLE_PLAYER`), the
            information state when `perfect_recall` is set.
        params: observation parameters; none are supported (None or empty).

    Attributes:
        tensor: (obs_dim,) float32, the last observation written by `set_from`.
        dict: {"observation": tensor}, OpenSpiel's named view of `tensor`.

    Raises:
        ValueError: `params` given, or an observation type other than one player's.
    """

    def __init__(self, game: OpenSpielGame, iig_obs_type: Any, params: Mapping[str, Any] | None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {dict(params)}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            # Our observation is one player's: public information with that player's own
            # private cards. A public-only or all-players view would need another encoder.
            raise ValueError(
                f"{game.ours.name} observes for one player (public_info=True, "
                f"private_info=SINGLE_PLAYER); got {iig_obs_type}"
            )
        self._ours = game.ours
        self._info = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.ours.obs_dim, dtype=np.float32)
        self.dict = {"observation": self.tensor}
        self._row = self.tensor.reshape(1, -1)  # the tensor as the kernels' (1, obs_dim)

    def set_from(self, state: OpenSpielState, player: int) -> None:
        """Write `player`'s observation of `state` into `tensor` (zeros before the set-up
        is dealt)."""
        s = state.engine
        if s is None:
            self.tensor.fill(0)
        elif (
            type(player) is int
            and 0 <= player < len(state._returns)
            and state.ours is self._ours
            and self._row.base is self.tensor
        ):
            calls = state._engine.calls
            (calls or state._calls()).observe(player, self._row)
        else:  # the engine's checks and their messages
            self.tensor[:] = self._ours.observe(s, seat=int(player))[0]

    def string_from(self, state: OpenSpielState, player: int) -> str:
        """`player`'s view of `state` in our notation."""
        s = state.engine
        if s is None:
            text = f"setting up ({state.pending[0] if state.pending else ''})"
        else:
            to_act = int(s.current_player[0]) == player and state.pending is None
            text = self._ours.render_text(s, 0, color=False, seat=int(player), legal=to_act)
            if state.pending is not None:
                text += f"\nchance: {state.pending[0]}"
        if self._info:
            self.set_from(state, player)
            digest = hashlib.blake2b(self.tensor.tobytes(), digest_size=8).hexdigest()
            text += f"\nplayer_{player} observation #{digest}"
        return text


class OpenSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games as a `pyspiel.Game` (subclassed per game by `register`).

    Args:
        params: the game's OpenSpiel parameters (`players` and the engine's `Config`
            fields, `parameter_specification`); None or missing ones take the defaults.

    Raises:
        ValueError, TypeError: a parameter the engine's `Config` rejects, naming it.
    """

    ours: ClassVar[Game[Any, Any]]
    chance: ClassVar[ChanceModel]
    game_type: ClassVar[Any]
    state_class: ClassVar[type[OpenSpielState]]
    decoders: ClassVar[dict[str, Callable[[Any], Any]]]

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        config = config_from_parameters(self.ours, params, self.decoders)
        ours, chance = self.ours, self.chance
        P = ours.num_players_of(config)
        decisions = chance.max_decisions(config)
        low, high = chance.utility_bounds(config)  # type: ignore[attr-defined]
        info = pyspiel.GameInfo(
            num_distinct_actions=ours.num_actions,
            max_chance_outcomes=chance.max_chance_outcomes,
            num_players=P,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0,
            # Python games cannot set MaxChanceNodesInHistory, which is this bound.
            max_game_length=max(decisions, chance.max_chance_nodes(config, decisions)),
        )
        super().__init__(self.game_type, info, params)
        self.config = config

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        # By its game string, as OpenSpiel pickles its own games; `load` registers our
        # games in a new process (a game from elsewhere must be registered there first).
        return load, (str(self),)

    def new_initial_state(self) -> OpenSpielState:
        """A new game at its first chance node (the set-up)."""
        return self.state_class(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> OpenSpielObserver:
        """The observer OpenSpiel's observation and information-state calls use.

        Args:
            iig_obs_type: OpenSpiel's `IIGObservationType`, None for the observation
                (see `OpenSpielObserver`).
            params: observation parameters; none are supported.
        """
        return OpenSpielObserver(self, iig_obs_type, params)


def load(game_string: str) -> Any:
    """`pyspiel.load_game(game_string)` with our games registered (unpickling a game)."""
    import kanaloa_env.openspiel  # noqa: F401  registers Kanaloa and Kahuna

    return pyspiel.load_game(game_string)


def _encodable(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str))


def parameter_specification(
    ours: Game[Any, Any], encoders: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The OpenSpiel parameters of our game and their defaults: `players` for a game
    with several table sizes, and every field of its `Config` (a field whose value is
    not a bool, int, float or str by its text form in `encoders`)."""
    encoders = dict(encoders or {})
    spec: dict[str, Any] = {}
    if len(ours.player_counts) > 1:
        spec["players"] = int(ours.default_num_players)
    default = ours.config_class()
    for f in dataclasses.fields(ours.config_class):
        if not f.init or f.name == "num_players":
            continue
        if f.name in encoders:
            spec[f.name] = encoders[f.name]
        elif _encodable(getattr(default, f.name)):
            spec[f.name] = getattr(default, f.name)
        else:
            raise TypeError(
                f"{ours.name}: Config.{f.name} is not a bool, int, float or str; the game's "
                "ChanceModel must give its text form (parameter_defaults and "
                "parameter_decoders)"
            )
    return spec


def config_from_parameters(
    ours: Game[Any, Any], params: Mapping[str, Any], decoders: Mapping[str, Callable[[Any], Any]]
) -> Any:
    """The engine `Config` an OpenSpiel game's parameters ask for (the engine's own
    checks: ValueError/TypeError naming the field)."""
    options = {}
    num_players = None
    for name, value in params.items():
        if name == "players":
            num_players = value
        elif name in decoders:
            options[name] = decoders[name](value)
        else:
            options[name] = value
    return ours.make_config(num_players=num_players, **options)


_REGISTERED: dict[str, type[OpenSpielGame]] = {}


def register(game: str | Game[Any, Any], chance: ChanceModel | None = None) -> type[OpenSpielGame]:
    """Register one of our games with OpenSpiel as `python_<name>`.

    Args:
        game: a game name of `kanaloa_env.games.GAMES` (or its `Game`).
        chance: how the game's random events become chance nodes; default the built-in
            one of Kanaloa and Kahuna (`kanaloa_env.openspiel.chance`). A game of
            another package passes its own.

    Returns:
        The registered `pyspiel.Game` subclass (`pyspiel.load_game("python_<name>")`
        makes one). Registering a game again returns the class registered first.

    Raises:
        TypeError: no `ChanceModel` for the game, or a `Config` field without a text form.
        ValueError: another OpenSpiel game holds the name already.
    """
    ours = get_game(game)
    name = PREFIX + ours.name
    if name in _REGISTERED:
        return _REGISTERED[name]
    if chance is None:
        chance = _builtin_chance(ours)
    if not isinstance(chance, ChanceModel):
        raise TypeError(f"chance must be a ChanceModel, got {type(chance).__name__}")
    if name in pyspiel.registered_names():
        raise ValueError(f"an OpenSpiel game named {name!r} is registered already")
    encoders = dict(getattr(chance, "parameter_defaults", {}))
    decoders = dict(getattr(chance, "parameter_decoders", {}))
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Python {ours.title} (kanaloa_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(ours.player_counts),
        min_num_players=min(ours.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(ours, encoders),
    )
    title = "".join(w.capitalize() for w in ours.name.split("_"))
    state_class = type(
        f"{title}OpenSpielState",
        (OpenSpielState,),
        {"ours": ours, "chance": chance, "kernels": Kernels(ours), "__module__": __name__},
    )
    game_class = type(
        f"{title}OpenSpielGame",
        (OpenSpielGame,),
        {
            "ours": ours,
            "chance": chance,
            "game_type": game_type,
            "state_class": state_class,
            "decoders": decoders,
            "__module__": __name__,
        },
    )
    pyspiel.register_game(game_type, game_class)
    _REGISTERED[name] = game_class
    return game_class


def _builtin_chance(ours: Game[Any, Any]) -> ChanceModel:
    from .chance import KahunaChance, KanaloaChance

    models: dict[str, Callable[[Any], ChanceModel]] = {
        "kanaloa": KanaloaChance,
        "kahuna": KahunaChance,
    }
    if ours.name not in models:
        raise TypeError(
            f"{ours.title} has no built-in OpenSpiel chance model: pass "
            "register(game, chance=...), a kanaloa_env.openspiel.ChanceModel that turns "
            "its random events into chance nodes"
        )
    return models[ours.name](ours)
