"""
# Kanaloa and Kahuna: PettingZoo AEC environments

One AEC env for every game of the package, over the game's batched engine at batch
size 1 (nothing is re-implemented here; everything game-specific comes through the
game protocol, `kanaloa_env.games`).

**Kanaloa** (3-5 players): a trick-taking game with a boat race: the winner of each
trick sails their boat to the next free field of a closed route of ocean cards, and
the first boat to lap the last one wins. Trump is the colour of the field under the
leading boat. Rules: RULES.md (docs/spec), read as in docs/rules.md.

**Kahuna** (2 players): bridges between twelve islands; a majority of the lines at
an island claims it, removes the opponent's bridges there and scores at three
scorings. Rules: KAHUNA-RULES.md (docs/spec), as implemented in docs/kahuna.md.

| Import             | `kanaloa_env.env(game="kanaloa", num_players=4)`, `kanaloa_env.env(game="kahuna")`; `pettingzoo.make("aec", "kanaloa_env/kanaloa-v0")` / `"kanaloa_env/kahuna-v0"` after `import kanaloa_env` |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | No                                                         |
| Manual Control     | `python -m kanaloa_env.play [--game kahuna]` (terminal, against bots) |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`                |
| Agents             | Kanaloa 3, 4 or 5; Kahuna 2                                |
| Action Shape       | Kanaloa Discrete(66); Kahuna Discrete(153)                 |
| Observation Shape  | Kanaloa (416,); Kahuna (`kanaloa_env.core.kahuna.OBS_DIM`,) |
| State Shape        | (P * obs_dim,): every player's observation in seat order (`env.state()`, `env.state_space`) |
| Observation Values | the game's bounds (`Game.observation_bounds()`): Kanaloa [0, 1] except `progress` [-2, 2] and `lapping` [-1, 3.125] |

## Arguments

```python
import kanaloa_env

env = kanaloa_env.env(num_players=4, nil_announcement=False, dolphin="optional",
                      max_rounds=100, reward="win_loss", render_mode=None)
env = kanaloa_env.env(game="kahuna", discard_rule="any_time", render_mode="ansi")
```

`game`: "kanaloa" (default), "kahuna", or a game registered with
`kanaloa_env.games.register_game` (docs/adding-a-game.md). `num_players`: Kanaloa
3..5 (Kahuna: 2). Every field of the game's `Config` is an argument too (Kanaloa:
`ocean_deck`, `nil_announcement`, `announced_boat_moves`, `dolphin`,
`dolphin_chain`, `max_rounds`, `reward`; Kahuna: `stones_per_player`,
`first_player`, `discard_rule`, `early_end`, `max_turns`), or pass a whole
`config=Config(...)`. `render_mode`: `None` or one of the modes the game can draw
(`metadata["render_modes"]`, all three for Kanaloa and Kahuna): `"human"` (prints
the text table after every step), `"ansi"` (returns it, with ANSI colour codes,
also when printed to a pipe or a file: PettingZoo's ansi mode is a string for
terminals; `kanaloa_env.drawing.terminal.strip_ansi` removes them) or `"rgb_array"`
(an (H, W, 3) uint8 picture). `env()` adds PettingZoo's classic wrappers
(`TerminateIllegalWrapper` → `AssertOutOfBoundsWrapper` → `OrderEnforcingWrapper`,
with a check that an action is an integer or None in front); `raw_env()` has none
and raises `ValueError` on an illegal action.

`reset(seed=s)` plays game 0 of the engine's `init(config, B, seed=s)` for any `B`;
`reset()` without a seed draws a fresh seed from the env's own generator (itself
reseeded by every seeded reset). `reset(options={"scenario": sc})` starts from a
position (the game's scenario format; its config must equal the env's); other
option keys are ignored, as PettingZoo's envs do, except a misspelt "scenario".
`raw_env.to_scenario()` dumps the current position.

### Observation Space

The observation is a dictionary with an `'observation'` element, the usual RL
observation, and an `'action_mask'` with the legal moves (next section).

The observation is the engine's encoding (the game's `observe(state, seat=...)`):
a float32 vector from the observing player's point of view, holding only what that
player may know (never another player's hand or a future deal or pile order).
Kanaloa: 416 floats, the same for 3, 4 and 5 players (seats relative to the
observer, the route read from the observer's boat forward); Kahuna:
docs/observation-kahuna.md. `kanaloa_env.core.kanaloa.decode(v)` /
`kanaloa_env.core.kahuna.decode(v)` turn a vector into a readable dict. Kanaloa's
parts, in order (offsets and every feature: docs/observation.md, generated from
`kanaloa_env.core.kanaloa.observation.OBS_LAYOUT`):

| part | content |
|---|---|
| `hand`, `played`, `specials` | own cards; the cards played this round (public memory) |
| `lead_suit`, `trump`, `rules` | suit to follow, trump, the table's rule options |
| `decision`, `to_act` | the decision being taken (phase; what follows a dolphin move) and whether it is the observer's |
| `trick_leader`, `table_size`, `trick` | the current trick per relative seat, who led it, the number of players |
| `seats` | per relative seat: suits it showed it lacks, its announcement, tricks won this round |
| `route`, `boats` | route fields from the own boat forward (colour, dolphin, start, boats), where each boat stands |
| `progress`, `lapping` | progress differences; lap length and the distances to lapping / being lapped |
| `trick_number`, `round`, `ocean_cards` | where the game stands |

#### Legal Actions Mask

The legal moves of the agent to act are the `action_mask` element of its
observation: an int8 vector, 1 where the action is legal. It is exactly the
engine's mask, the only code that decides legality. The `action_mask` is all zeros
for every agent except the one whose turn it is, and all zeros for everyone once
the game is over. With `env()`, taking an illegal action ends the game with a
reward of -1 for the agent that took it and 0 for the others; `raw_env()` raises
`ValueError` and leaves the game as it was.

### State

`env.state()` is the whole game as one float32 vector, for centralised critics (MAPPO,
RLlib's centralized-critic pattern), and `env.state_space` its `Box`: the observations
of every player in seat order (block `p`, entries `p * obs_dim` to `(p + 1) * obs_dim`,
is `observe(state, seat=p)`, laid out as the observation above), so
`(P * obs_dim,)`: Kanaloa 416 x P, Kahuna 321 x 2. It holds every hand and everything
any player knows (Kahuna: each player's face-down discards too); what no player knows
is future chance (the order of the undealt cards or of the pile), which it leaves out.
Its bounds are the observation's, once per player (`Game.state_bounds`).

### Action Space

Kanaloa (`Discrete(66)`, DESIGN.md): 0-47 play Tiki card `suit * 12 + (value - 1)`
(suits blue=0, red=1, green=2, turquoise=3); 48 a Kanaloa card; 49 an octopus; 50-61
remove the ocean card `action - 50` places ahead of the own boat; 62/63 announce /
do not announce no tricks; 64/65 take / decline the dolphin move. Kahuna
(`Discrete(153)`, KAHUNA-RULES.md): 0-53 place a bridge, 54-134 remove one with
two cards, 135-146 discard (or hand back), 147 end play, 148-150 take a face-up
card, 151 draw, 152 skip the draw. `env.unwrapped.game.action_name(a)` names any
action.

The agent to act may act several times in a row (Kanaloa: after an octopus it
removes an ocean card, and a trick winner decides on the dolphin and then leads;
Kahuna: a turn is several decisions). `agent_selection` always follows the
engine's player to act.

### Rewards

At the step that ends the game (0 at every other step). Kanaloa with
`reward="win_loss"` (default, R10.1): +1 for the winner, -1/(P-1) for each other
player; 0 for everyone when the game is truncated after `max_rounds` (R9.4); with
`reward="rank"` the rewards spread linearly from +1 for the boat furthest ahead to
-1 for the last. Kahuna (K10.1): +1 winner, -1 loser, 0 each for a draw or a
truncation. Rewards sum to 0. A game ended by the rules sets every agent's
`terminations` entry, a game cut short every `truncations` entry.

### Version History

* v0: Initial release (kanaloa_env 0.1.0); Kahuna added in 0.2.0; unchanged in 1.0.0
  (docs/versioning.md: what would make a v1)
"""

from __future__ import annotations

import difflib
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._env_ids import aec_env_id
from .core.batch import GameState
from .core.rng import check_seed
from .games import get_game
from .games.protocol import Game
from .render import RENDER_MODES, render_frame, render_modes

__all__ = ["env", "raw_env", "registry_id"]


def registry_id(game: str | Game[Any, Any]) -> str:
    """The id of a game's env in PettingZoo's registry, e.g. "kanaloa_env/kahuna-v0"
    (known without importing the game)."""
    from .games import GAMES

    name = game.name if isinstance(game, Game) else str(game)
    if name not in GAMES:
        raise ValueError(f"unknown game {game!r}; the games are {sorted(GAMES)}")
    return aec_env_id(name, GAMES[name].version)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env of a game (`game="kanaloa"` default, or `"kahuna"`) wrapped like
    PettingZoo's classic envs.

    `TerminateIllegalWrapper(illegal_reward=-1)` → `AssertOutOfBoundsWrapper` →
    `OrderEnforcingWrapper` (which here also checks that the action is an integer).
    `kwargs` are the arguments of `raw_env`.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return _OrderEnforcing(e)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's `OrderEnforcingWrapper` that also rejects an action that is not an
    integer (or None for a finished agent) with a TypeError before the inner wrappers
    see it (a bool passes their checks as 1). One class rather than a wrapper of its
    own: each wrapper level adds attribute lookups to every `last()` and `step()`."""

    def step(self, action: Any) -> None:
        if (
            type(action) is not int
            and action is not None
            and _as_int(action) is None
            and self._has_reset
            and self.agents
        ):
            raise TypeError(
                f"{self.agent_selection}'s action must be an integer in "
                f"0..{self.action_space(self.agent_selection).n - 1} or None, got {action!r}"
            )
        super().step(action)


def _as_int(action: object) -> int | None:
    """The action as an int: a Python or numpy integer or a one-element integer array
    (not a bool); else None."""
    if type(action) is int:  # the common case first
        return action
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if (
        isinstance(action, np.ndarray)
        and action.size == 1
        and np.issubdtype(action.dtype, np.integer)
    ):
        return int(action.reshape(()))
    return None


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped env)
    """The AEC env of a game without wrappers (see the module docstring).

    Args:
        game: "kanaloa" (default), "kahuna", another registered game
            (`kanaloa_env.games.register_game`) or a `kanaloa_env.games.Game`.
        num_players: Kanaloa 3..5 (R1.4), default 4; Kahuna 2.
        render_mode: None, "human", "ansi" or "rgb_array".
        config: a whole `Config` of the game; then no other config option may be given.
        **options: any other `Config` field (`nil_announcement=True`, ...).

    Raises:
        TypeError: an unknown keyword (the message lists the allowed ones), or a
            config option of the wrong type.
        ValueError: an unknown game, a bad config value or render mode.
    """

    metadata: dict[str, Any] = {
        "name": "kanaloa_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str | Game[Any, Any] | None = None,
        num_players: int | None = None,
        render_mode: str | None = None,
        config: Any = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.game = get_game(game)
        g = self.game
        self.metadata = {
            **type(self).metadata,
            "name": f"{g.name}_{g.version}",
            "render_modes": render_modes(g),  # those the game can draw
        }
        unknown = sorted(set(options) - set(g.config_fields))
        if unknown:
            raise TypeError(
                f"kanaloa_env: unknown arguments {unknown}; allowed: game, num_players, "
                f"render_mode, config and the {g.title} Config fields {list(g.config_fields)}"
            )
        if config is not None and not isinstance(config, g.config_class):
            raise TypeError(f"config must be a {g.name} Config, got {type(config).__name__}")
        self.config = g.make_config(config, num_players, **options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode

        P = g.num_players_of(self.config)
        A = g.num_actions
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = g.observation_bounds()
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(A,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(A) for a in self.possible_agents}
        state_low, state_high = g.state_bounds(P)
        self.state_space = spaces.Box(state_low, state_high, dtype=np.float32)
        self._rng = np.random.default_rng()  # draws the seeds of unseeded resets
        self._state: GameState | None = None
        self._obs_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # agent -> view
        self._action = np.zeros(1, dtype=np.int64)
        self._no_mask = np.zeros(A, dtype=np.int8)

    # ---- spaces ------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of `agent` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """`Discrete(A)` of the game (the same object on every call, for every `agent`)."""
        return self.action_spaces[agent]

    # ---- reset -------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: 0..2**64-1: play game 0 of `init(config, B, seed=seed)` and reseed the
                env's generator; None: draw a fresh seed from that generator.
            options: `{"scenario": dict}` starts from that position (the game's
                scenario format); the seed then fixes only future chance events, unless
                the scenario has a `key`. Other keys are ignored (PettingZoo's own
                `api_test` passes one), except a misspelling of "scenario", which is a
                ValueError.

        Raises:
            ValueError: a bad seed, or a scenario that is invalid or whose config
                differs from the env's (the message names the key).
        """
        if seed is None:
            seed = int(self._rng.integers(0, 2**64, dtype=np.uint64))
        else:
            seed = check_seed(seed)
            self._rng = np.random.default_rng(seed)
        scenario = None
        if options is not None:
            if not isinstance(options, dict):
                raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
            for k in options:
                if k != "scenario" and difflib.get_close_matches(str(k), ["scenario"], cutoff=0.75):
                    raise ValueError(f"unknown reset option {k!r}; did you mean 'scenario'?")
            scenario = options.get("scenario")
        g = self.game
        if scenario is None:
            state = g.init(self.config, 1, seed)
        else:
            state = g.from_scenario(scenario, seed=seed)
            if state.config != self.config:
                raise ValueError(
                    "reset options 'scenario': its config (num_players="
                    f"{g.num_players_of(state.config)}, overrides "
                    f"{g.config_overrides(state.config)}) differs from the env's (num_players="
                    f"{g.num_players_of(self.config)}, overrides "
                    f"{g.config_overrides(self.config)}); create the env with the scenario's "
                    "options"
                )
        self._state = state
        self._obs_cache.clear()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, bool(state.terminated[0]))
        self.truncations = dict.fromkeys(self.agents, bool(state.truncated[0]))
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        cp = int(state.current_player[0])
        self.agent_selection = self.possible_agents[max(cp, 0)]
        self._deads_step_first()  # a scenario may start from a finished game

    # ---- observe -----------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """`agent`'s view now: {"observation": (obs_dim,) float32, "action_mask": (A,) int8}.

        The mask is the engine's for the agent to act and zeros for every other
        agent. Encoded on the first call after a step and cached for that step (so
        `last()` and the wrappers' own calls cost one encoding); every call returns
        fresh arrays.
        """
        cached = self._obs_cache.get(agent)
        if cached is None:
            cached = self._encode(agent)
        return {"observation": cached[0].copy(), "action_mask": cached[1].copy()}

    def _encode(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        s = self._require_state()
        if s.current_player[0] == seat:
            obs = self.game.observe(s)[0]  # the default seat, the player to act: no seat checks
            mask = s.legal[0].astype(np.int8)
        else:
            obs = self.game.observe(s, seat=seat)[0]
            mask = self._no_mask
        self._obs_cache[agent] = (obs, mask)
        return obs, mask

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's `last()` (the observation only if `observe`); a RuntimeError before
        the first `reset()` and once every agent is done (call `reset()`)."""
        self._require_live()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's `agent_iter()`, at most `max_iter` agents; a RuntimeError before the
        first `reset()`."""
        self._require_state()
        return super().agent_iter(max_iter)

    def _require_state(self) -> GameState:
        if self._state is None:
            raise RuntimeError("kanaloa_env: call reset() before using the env")
        return self._state

    def _require_live(self) -> GameState:
        s = self._require_state()
        if not self.agents:
            raise RuntimeError(
                "kanaloa_env: the game is over and every agent is done; call reset()"
            )
        return s

    # ---- step --------------------------------------------------------------------

    def step(self, action: int | np.integer | np.ndarray | None) -> None:
        """Apply `action` for `agent_selection` and select the next agent.

        Raises:
            TypeError: the action is not an integer.
            ValueError: the action is out of range or illegal now (the game is then
                unchanged), or not None for an agent whose game is over.
            RuntimeError: before `reset()`, or once every agent is done.
        """
        s = self._require_live()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(agent, action)
        self._action[0] = a
        self.game.step_inplace(s, self._action, validate=False)  # _check_action checked it
        self._obs_cache.clear()

        agents = self.agents
        self._cumulative_rewards[agent] = 0.0
        r = s.rewards[0]
        if r.any():  # only the step that ends a game pays (Kanaloa R10, Kahuna K10)
            self.rewards = dict(zip(agents, r.tolist(), strict=True))
            self._accumulate_rewards()
        else:
            self.rewards = dict.fromkeys(agents, 0.0)
        cp = int(s.current_player[0])
        if cp >= 0:
            self.agent_selection = self.possible_agents[cp]
        else:
            # Ended by the rules (terminated) or cut short (truncated): every agent is done.
            if s.terminated[0]:
                self.terminations = dict.fromkeys(agents, True)
            else:
                self.truncations = dict.fromkeys(agents, True)
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action: object) -> int:
        """The action as an int, or a TypeError/ValueError naming what is wrong."""
        a = _as_int(action)
        A = self.game.num_actions
        if a is None:
            raise TypeError(f"{agent}'s action must be an integer in 0..{A - 1}, got {action!r}")
        if not 0 <= a < A:
            raise ValueError(
                f"{agent}'s action {a} is out of range: the action space is "
                f"Discrete({A}), actions 0..{A - 1}"
            )
        legal = self._state.legal[0]  # type: ignore[union-attr]
        if not legal[a]:
            name = self.game.action_name
            allowed = ", ".join(f"{b} ({name(b)})" for b in np.flatnonzero(legal).tolist())
            raise ValueError(
                f"{agent} cannot take action {a} ({name(a)}) now; legal now: {allowed}"
            )
        return a

    # ---- positions, rendering ----------------------------------------------------

    def state(self) -> np.ndarray:
        """The whole game as one (P * obs_dim,) float32 vector in `state_space`, for
        centralised critics: every player's observation in seat order
        (`Game.state_vector`; see "State" in the module docstring)."""
        return self.game.state_vector(self._require_state())[0]

    @property
    def game_state(self) -> GameState:
        """The engine's batch-1 state of the current game (read it; do not modify it)."""
        return self._require_state()

    def to_scenario(self, include_key: bool = False) -> dict[str, Any]:
        """The current position as a scenario dict (the game's format).

        `include_key=True` adds the game's random key, so that
        `reset(options={"scenario": sc})` also replays the same future chance events.
        """
        return self.game.to_scenario(self._require_state(), 0, include_key=include_key)

    def render(self) -> str | np.ndarray | None:
        """Draw the game per `render_mode`: "ansi" returns the text table (with ANSI
        colour codes, also when printed to a pipe or a file), "human" prints it (plain when stdout is not a terminal or NO_COLOR is set),
        "rgb_array" returns an (H, W, 3) uint8 image."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        return render_frame(self._require_state(), 0, self.render_mode)

    def close(self) -> None:
        """Nothing to release (no window, no subprocess)."""

    def __str__(self) -> str:
        return self.metadata["name"]
