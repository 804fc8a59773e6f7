"""
# Kanaloa

A trick-taking game with a boat race: the winner of each trick sails their boat to
the next free field of a closed route of ocean cards, and the first boat to lap the
last one wins. Trump is the colour of the field under the leading boat. This is a
PettingZoo AEC environment over the batched rules engine `kanaloa_env.core` at
batch size 1 (the rules are in RULES.md; nothing is re-implemented here).

| Import             | `kanaloa_env.env(num_players=4)`; `pettingzoo.make("aec", "kanaloa_env/kanaloa-v0")` after `import kanaloa_env` |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | No                                                         |
| Manual Control     | `python -m kanaloa_env.play` (terminal, against bots)      |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`                |
| Agents             | 3, 4 or 5                                                  |
| Action Shape       | Discrete(66)                                               |
| Action Values      | [0, 65]                                                    |
| Observation Shape  | (416,)                                                     |
| Observation Values | [0, 1], except `progress` [-2, 2] and `lapping` [-1, 3.125] |

## Arguments

```python
import kanaloa_env

env = kanaloa_env.env(num_players=4, nil_announcement=False, dolphin="optional",
                      max_rounds=100, reward="win_loss", render_mode=None)
```

`num_players`: 3..5. Every other field of `kanaloa_env.core.Config` is an argument
too (`ocean_deck`, `nil_announcement`, `announced_boat_moves`, `dolphin`,
`dolphin_chain`, `max_rounds`, `reward`), or pass a whole `config=Config(...)`.
`render_mode`: `None`, `"human"` (prints the text table after every step),
`"ansi"` (returns it, with ANSI colours) or `"rgb_array"` (an (H, W, 3) uint8
picture, `kanaloa_env.render.image`). `env()` adds PettingZoo's classic wrappers
(`TerminateIllegalWrapper` → `AssertOutOfBoundsWrapper` → `OrderEnforcingWrapper`);
`raw_env()` has none and raises `ValueError` on an illegal action.

`reset(seed=s)` plays game 0 of `kanaloa_env.core.init(config, B, seed=s)` for any
`B`; `reset()` without a seed draws a fresh seed from the env's own generator
(itself reseeded by every seeded reset). `reset(options={"scenario": sc})` starts
from a position (SCENARIO.md; its config must equal the env's);
`raw_env.to_scenario()` dumps the current one.

### Observation Space

The observation is a dictionary with an `'observation'` element, the usual RL
observation, and an `'action_mask'` with the legal moves (next section).

The observation is the engine's encoding (`kanaloa_env.core.observe(state,
seat=...)`): a float32 vector of length 416, the same for 3, 4 and 5 players, from
the observing player's point of view (seats relative to the observer, the route read
from the observer's boat forward) and holding only what that player may know: the
own hand and public information, never another player's hand or a future deal.
Its parts, in order (offsets and every feature: `docs/observation.md`, generated
from `kanaloa_env.core.kanaloa.observation.OBS_LAYOUT`):

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

`kanaloa_env.core.decode(obs["observation"])` turns a vector into a readable dict.

#### Legal Actions Mask

The legal moves of the agent to act are the `action_mask` element of its
observation: an int8 vector of 66 entries, 1 where the action is legal. It is
exactly the engine's mask (`kanaloa_env.core.legal_action_mask`), the only code that
decides legality. The `action_mask` is all zeros for every agent except the one
whose turn it is, and all zeros for everyone once the game is over. With `env()`,
taking an illegal action ends the game with a reward of -1 for the agent that took
it and 0 for the others; `raw_env()` raises `ValueError` and leaves the game as it
was.

### Action Space

| Action ID | Action |
|:---------:|--------|
| 0 - 47    | play Tiki card `suit * 12 + (value - 1)`; suits blue=0, red=1, green=2, turquoise=3 |
| 48        | play a Kanaloa card |
| 49        | play an octopus card |
| 50 - 61   | remove the ocean card `action - 50` places ahead of the own boat (after an octopus, R4.4, or as winner of the 8th trick, R7.1) |
| 62        | announce no tricks (variant `nil_announcement`, R3.2) |
| 63        | do not announce |
| 64        | take the dolphin move (R6.3) |
| 65        | decline the dolphin move |

The agent to act may act twice in a row: after an octopus it removes an ocean
card, and a trick winner decides on the dolphin and then leads. `agent_selection`
always follows the engine's player to act.

### Rewards

With `reward="win_loss"` (default, R10.1):

| Winner | Each other player |
| :----: | :---------------: |
| +1     | -1/(P-1)          |

given at the step the game ends (a boat laps the last boat, R9.2); 0 at every other
step, and 0 for everyone when the game is truncated after `max_rounds` (R9.4).
With `reward="rank"` the rewards at the end (truncation included) spread linearly
from +1 for the boat furthest ahead to -1 for the last, ties sharing. Rewards sum
to 0 in both schemes. A won game sets every agent's `terminations` entry, a game
stopped after `max_rounds` every `truncations` entry.

### Version History

* v0: Initial release (kanaloa_env 0.1.0)
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core import NUM_ACTIONS, OBS_DIM, Config, from_scenario, init, observe, step_inplace
from .core import to_scenario as core_to_scenario
from .core.kanaloa.constants import PHASE_NAMES, action_name
from .core.kanaloa.observation import OFFSETS
from .core.kanaloa.state import State
from .core.rng import check_seed
from .render import RENDER_MODES, render_frame

__all__ = ["ENV_ID", "env", "raw_env"]

ENV_ID = "kanaloa_env/kanaloa-v0"  # the id in PettingZoo's registry (pettingzoo.make)
_CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(Config) if f.init)
# Observation bounds that are not [0, 1]. While a game runs every boat is less than a
# lap ahead of the last (R9.2), and the move that ends it adds at most one lap, so
# progress differences stay below 2 laps of at most 24 fields; the lapping distances
# are (lap + 1 - difference) / 24 with such differences (see OBS_LAYOUT).
_OBS_BOUNDS = {"progress": (-2.0, 2.0), "lapping": (-1.0, 3.125)}


def _observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_DIM, dtype=np.float32)
    high = np.ones(OBS_DIM, dtype=np.float32)
    for name, (lo, hi) in _OBS_BOUNDS.items():
        a, b = OFFSETS[name]
        low[a:b], high[a:b] = lo, hi
    return low, high


def env(**kwargs: Any) -> AECEnv:
    """The Kanaloa AEC env wrapped like PettingZoo's classic envs.

    `TerminateIllegalWrapper(illegal_reward=-1)` → `AssertOutOfBoundsWrapper` →
    `OrderEnforcingWrapper`. Arguments are those of `raw_env`.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped env)
    """The Kanaloa AEC env without wrappers (see the module docstring).

    Args:
        num_players: 3..5 (R1.4).
        render_mode: None, "human", "ansi" or "rgb_array".
        config: a whole `Config`; then no other config option may be given.
        **options: any other `Config` field (`nil_announcement=True`, ...).

    Raises:
        TypeError: an unknown keyword, or a config option of the wrong type.
        ValueError: a bad config value or render mode.
    """

    metadata: dict[str, Any] = {
        "name": "kanaloa_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int | None = None,
        render_mode: str | None = None,
        config: Config | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        unknown = sorted(set(options) - set(_CONFIG_FIELDS))
        if unknown:
            raise TypeError(
                f"kanaloa_env: unknown arguments {unknown}; allowed: num_players, render_mode, "
                f"config and the Config fields {list(_CONFIG_FIELDS)}"
            )
        if config is not None:
            if not isinstance(config, Config):
                raise TypeError(f"config must be a kanaloa_env.core.Config, got {type(config)}")
            if options or (num_players is not None and num_players != config.num_players):
                raise ValueError("pass either config=Config(...) or config options, not both")
            self.config = config
        else:
            self.config = Config(num_players=4 if num_players is None else num_players, **options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode

        P = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = _observation_bounds()
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()  # draws the seeds of unseeded resets
        self._state: State | None = None
        self._obs_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # agent -> view
        self._action = np.zeros(1, dtype=np.int64)
        self._no_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    # ---- spaces ------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of `agent` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """`Discrete(66)` (the same object on every call)."""
        return self.action_spaces[agent]

    # ---- reset -------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: 0..2**64-1: play game 0 of `init(config, B, seed=seed)` and reseed the
                env's generator; None: draw a fresh seed from that generator.
            options: `{"scenario": dict}` starts from that position (SCENARIO.md); the
                seed then fixes only future deals, unless the scenario has a `key`.
                Other keys are ignored with a warning.

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
            other = sorted(k for k in options if k != "scenario")
            if other:
                warnings.warn(f"kanaloa_env: ignoring unknown reset options {other}", stacklevel=2)
            scenario = options.get("scenario")
        if scenario is None:
            state = init(self.config, 1, seed=seed)
        else:
            state = from_scenario(scenario, seed=seed)
            if state.config != self.config:
                raise ValueError(
                    "reset options 'scenario': its config (num_players="
                    f"{state.config.num_players}, overrides {state.config.overrides()}) differs "
                    f"from the env's (num_players={self.config.num_players}, overrides "
                    f"{self.config.overrides()}); create the env with the scenario's options"
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
        """`agent`'s view now: {"observation": (OBS_DIM,) float32, "action_mask": (66,) int8}.

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
            obs = observe(s)[0]  # the default seat, the player to act, skips seat checks
            mask = s.legal[0].astype(np.int8)
        else:
            obs = observe(s, seat=seat)[0]
            mask = self._no_mask
        self._obs_cache[agent] = (obs, mask)
        return obs, mask

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's `last()`; a RuntimeError before the first `reset()`."""
        self._require_state()
        return super().last(observe)

    def _require_state(self) -> State:
        if self._state is None:
            raise RuntimeError("kanaloa_env: call reset() before using the env")
        return self._state

    # ---- step --------------------------------------------------------------------

    def step(self, action: int | np.integer | np.ndarray | None) -> None:
        """Apply `action` for `agent_selection` and select the next agent.

        Raises:
            TypeError: the action is not an integer.
            ValueError: the action is out of range 0..65 or illegal now (the game is
                then unchanged), or not None for an agent whose game is over.
        """
        s = self._require_state()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(agent, action)
        self._action[0] = a
        step_inplace(s, self._action, validate=False)  # _check_action checked it
        self._obs_cache.clear()

        agents = self.agents
        self._cumulative_rewards[agent] = 0.0
        r = s.rewards[0]
        if r.any():  # R10: only the step that ends the game pays
            self.rewards = dict(zip(agents, r.tolist(), strict=True))
            self._accumulate_rewards()
        else:
            self.rewards = dict.fromkeys(agents, 0.0)
        cp = int(s.current_player[0])
        if cp >= 0:
            self.agent_selection = self.possible_agents[cp]
        else:
            # R9.2 won (terminated) or R9.4 max_rounds (truncated): every agent is done.
            if s.terminated[0]:
                self.terminations = dict.fromkeys(agents, True)
            else:
                self.truncations = dict.fromkeys(agents, True)
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action: object) -> int:
        """The action as an int, or a TypeError/ValueError naming what is wrong."""
        if type(action) is int:  # the common case first
            a = action
        elif isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            a = int(action)
        elif (
            isinstance(action, np.ndarray)
            and action.size == 1
            and np.issubdtype(action.dtype, np.integer)
        ):
            a = int(action.reshape(()))
        else:
            raise TypeError(
                f"{agent}'s action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}"
            )
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(
                f"{agent}'s action {a} is out of range: the action space is "
                f"Discrete({NUM_ACTIONS}), actions 0..{NUM_ACTIONS - 1}"
            )
        legal = self._state.legal[0]  # type: ignore[union-attr]
        if not legal[a]:
            phase = PHASE_NAMES[int(self._state.phase[0])]  # type: ignore[union-attr]
            allowed = ", ".join(f"{b} ({action_name(b)})" for b in np.flatnonzero(legal).tolist())
            raise ValueError(
                f"{agent} cannot take action {a} ({action_name(a)}) in phase {phase}; "
                f"legal now: {allowed}"
            )
        return a

    # ---- positions, rendering ----------------------------------------------------

    @property
    def game_state(self) -> State:
        """The engine's batch-1 `State` of the current game (read it; do not modify it)."""
        return self._require_state()

    def to_scenario(self, include_key: bool = False) -> dict[str, Any]:
        """The current position as a scenario dict (SCENARIO.md).

        `include_key=True` adds the game's random key, so that
        `reset(options={"scenario": sc})` also replays the same future deals.
        """
        return core_to_scenario(self._require_state(), 0, include_key=include_key)

    def render(self) -> str | np.ndarray | None:
        """Draw the game per `render_mode`: "ansi" returns the text table, "human"
        prints it (plain when stdout is not a terminal or NO_COLOR is set),
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
