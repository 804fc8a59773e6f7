"""Single-agent Gymnasium env: one learner seat, the other seats played by bots, any game.

```python
import gymnasium as gym
import kanaloa_env  # registers kanaloa_env/Kanaloa-v0 and kanaloa_env/Kahuna-v0

env = gym.make("kanaloa_env/Kanaloa-v0", num_players=4, opponents="random")
env = gym.make("kanaloa_env/Kahuna-v0", opponents="heuristic")
obs, info = env.reset(seed=0)
mask = env.unwrapped.action_masks()            # or info["action_mask"]
obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
```

It is the vector driver (`VectorDriver`) at N = 1 without auto-reset, not a
second implementation. Observation: a `Box` of the game's observation (the
learner's view; Kanaloa (416,), Kahuna: `kanaloa_env.core.kahuna.OBS_DIM`) within
the game's bounds; action: `Discrete(A)` (Kanaloa 66, Kahuna 153);
`action_masks()` for sb3-contrib's MaskablePPO and `info["action_mask"]` ((A,)
bool; all True once the game is over, as in pgx, so that no policy is handed a row
without a legal action). Reward: the learner's reward accumulated since its
previous decision, a Python float; flags are Python bools; every array is new.

Illegal actions. Generic checkers and unmasked agents send illegal actions, so by
default (`illegal_action="lose"`, as PettingZoo's classic envs do) an illegal
or out-of-range action ends the game at once: `terminated=True`, reward
`illegal_reward` (-1), `info["illegal_action"] = True`, the state left as it
was. `"raise"` raises ValueError instead; `"random"` plays a random legal
action in its place (with `info["illegal_action"] = True`).

Seeding: every random choice (deal, learner seat, bots) comes from the seed
given to `reset`; `reset(seed=s)` starts game 0 of the stream `s`, later
`reset()` calls play games 1, 2, ... of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..core.batch import GameState
from ..games import get_game
from ..render import RENDER_MODES, render_frame, render_modes
from .vector import OpponentSpec, VectorDriver, action_space, observation_space

__all__ = ["SingleAgentEnv"]

_MAX_SEED = 2**63 - 1


class SingleAgentEnv(gym.Env):
    """One learner against bots, for any game (the entry point of `kanaloa_env/Kanaloa-v0`
    and `kanaloa_env/Kahuna-v0`).

    Args:
        num_players: the table size (Kanaloa 3..5; Kahuna 2); must agree with `config`.
        opponents: one spec for every other seat or a sequence (see `VectorDriver`):
            a bot object, a callable `act(obs, masks, rng)`, a name such as
            `"random"`/`"heuristic"`, or a model path.
        config: the game's `Config` or a dict of its fields.
        game: `"kanaloa"` (default) or `"kahuna"`.
        illegal_action: `"lose"` (default), `"raise"` or `"random"` (module docstring).
        render_mode: None, `"human"` (prints the text table at every reset and
            step), `"ansi"` (`render()` returns that table, with ANSI colour codes
            also when printed to a pipe or a file; `drawing.terminal.strip_ansi`
            removes them) or `"rgb_array"` (`render()` returns an (H, W, 3) uint8
            picture), as the AEC env; each shows the table with the hand of the
            player to act.
        **options: every other keyword of `VectorDriver` (`opponent_sampling`,
            `learner_seat`, `illegal_reward`, `progress_shaping`, `threads`)
            and of the game's `Config` (`nil_announcement=True`, ...).
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        num_players: int | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        config: Any = None,
        *,
        game: Any = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        # The modes this game can draw (all three for a game with both views).
        self.metadata = {**type(self).metadata, "render_modes": render_modes(get_game(game))}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        for fixed in ("autoreset", "num_envs", "seed"):
            if fixed in options:
                raise TypeError(f"SingleAgentEnv takes no {fixed!r} (one game, seeded by reset)")
        self.render_mode = render_mode
        self.driver = VectorDriver(
            1,
            config,
            game=game,
            num_players=num_players,
            opponents=opponents,
            autoreset=False,
            illegal_action=illegal_action,
            **options,
        )
        self.game = self.driver.game
        self.config = self.driver.config
        self.observation_space = observation_space(self.game)
        self.action_space = action_space(self.game)
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game.

        Args:
            seed: seeds the game stream (None: the next game of the current
                stream; at the very first reset, a stream drawn by Gymnasium's
                `np_random`, itself random unless seeded).
            options: none are supported; any given are ignored with a warning.

        Returns:
            The (obs_dim,) float32 observation and an info dict with
            `action_mask` and `learner_seat`.
        """
        if options:
            warnings.warn(f"kanaloa_env: ignoring reset options {sorted(options)}", stacklevel=2)
        super().reset(seed=seed)
        if seed is None and not self._started:
            seed = int(self.np_random.integers(0, _MAX_SEED))
        obs = self.driver.reset(seed=seed)
        self._started = True
        if self.render_mode == "human":
            self.render()
        return obs[0], self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's `action`, then the bots until the learner's next decision.

        Returns:
            observation (obs_dim,) float32, reward (float), terminated (bool),
            truncated (bool), info (`action_mask`, `learner_seat`; at the end also
            `winner`, `is_success`, `illegal_action`).

        Raises:
            RuntimeError: the game is over (call `reset`) or never started.
            TypeError: the action is not an integer.
            ValueError: an illegal action with `illegal_action="raise"`.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.driver.game_over[0]:
            raise RuntimeError("the game is over; call reset() to start a new one")
        a = np.asarray(action)
        if a.size != 1:
            raise ValueError(f"action must be one integer, got shape {a.shape}")
        r = self.driver.step(a.reshape(1))
        info = self._info()
        info["illegal_action"] = bool(r.replaced[0])
        if len(r.ended):
            info.update(
                winner=int(r.winner[0]),
                is_success=bool(r.won[0]),
                illegal_action=bool(r.illegal[0] or r.replaced[0]),
                episode_return=float(r.episode_return[0]),
                episode_length=int(r.episode_length[0]),
            )
            obs = r.final_obs[0]
        else:
            obs = r.obs[0]
        if self.render_mode == "human":
            self.render()
        return obs, float(r.rewards[0]), bool(r.terminated[0]), bool(r.truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """(A,) bool copy: the learner's legal actions (all True once the game is over: the
        action is then ignored)."""
        return self.driver.action_masks()[0]

    @property
    def state(self) -> GameState:
        """A copy of the batch-1 core state (e.g. for the game's `to_scenario`)."""
        return self.driver.state

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current game."""
        return int(self.driver.learner_seats[0])

    def render(self) -> str | np.ndarray | None:
        """Draw the game per `render_mode` (see the class docstring); None for "human"
        (which has printed it) and for no render mode.

        Raises:
            RuntimeError: before the first `reset()`.
        """
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if not self._started:
            raise RuntimeError("call reset() before render()")
        return render_frame(self.driver.state, 0, self.render_mode)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "learner_seat": self.learner_seat}
