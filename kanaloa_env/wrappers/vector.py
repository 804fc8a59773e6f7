"""The vector driver: N games of any game of the package as a learning environment for one learner.

In every game one seat is the learner's (chosen per game: rotating, random or
fixed); the other seats are played *inside* `step` by opponent policies that act
on batches: bots (`act(observations, masks, rng) -> actions`), plain callables with
that signature, or frozen copies of a learner policy (`kanaloa_env.bots.model`)
for self-play. This module is the only code that steps opponents; the SB3
`VecEnv` (`sb3.py`), the Gymnasium vector env (`gym_vector.py`) and the
single-agent Gymnasium env (`single.py`, the driver at N = 1) only translate
return conventions.

One `step(actions)`:

1. checks the learner actions (shape, type, legality; illegal ones are handled
   per `illegal_action`) and applies them to every game in one core step;
2. loops over *pending decisions*, never over games: the games whose player to
   act is not the learner form a sub-batch; each opponent policy acts on its part
   of it, and one core step applies them all; repeat until every game waits for
   its learner;
3. games that ended (by the game's rules, cut short, or forfeited by an illegal
   learner action) report their final observation and are started again in place
   with the game's `reset_games` and fresh keys `game_keys(seed, counter)`
   (auto-reset; off for the single-agent env).

The learner's reward is its seat's reward (the game's `rewards`) accumulated over
every core step since its previous decision: its own move and the opponents' moves
that followed.

Randomness: game `k` started since `reset(seed)` is the core game `k` of the
stream `seed`; learner seats, opponent draws and the opponents' own sampling
use one `numpy.random.Generator` seeded from the same seed. Same seed, same
actions, same opponents: same trajectories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from ..bots.base import sample_legal
from ..bots.call import bot_actions, needs_observations
from ..bots.registry import make_bot
from ..core.batch import GameState, as_actions, check_positive_int, legal_entries
from ..core.rng import check_seed, game_keys
from ..games import get_game
from ..games.protocol import Game

LEARNER_SEAT_MODES = ("rotate", "random")
OPPONENT_SAMPLING = ("seat", "random")
ILLEGAL_ACTION_MODES = ("raise", "lose", "random")


def observation_space(game: str | Game[Any, Any] | None = None) -> spaces.Box:
    """The Box of one learner observation: (obs_dim,) float32 within the game's bounds."""
    g = get_game(game)
    low, high = g.observation_bounds()
    return spaces.Box(low, high, dtype=np.float32)


def action_space(game: str | Game[Any, Any] | None = None) -> spaces.Discrete:
    """`Discrete(A)`: the game's action table (`Game.num_actions`)."""
    return spaces.Discrete(get_game(game).num_actions)


OpponentSpec = Any  # anything `kanaloa_env.bots.make_bot` takes: a name, a path, a bot, ...


@dataclass(frozen=True)
class StepResult:
    """What one `VectorDriver.step` returns; every array is new (never a driver buffer).

    `N` is the number of games, `E` the number of games that ended in this step.

    Attributes:
        obs: (N, obs_dim) float32 learner observations; for a game that ended and
            was auto-reset, the first observation of its new game.
        rewards: (N,) float32 learner rewards since its previous decision.
        terminated: (N,) bool, the game ended by its rules or was forfeited by an
            illegal learner action.
        truncated: (N,) bool, the game was cut short (the game's own limit).
        ended: (E,) int64 indices of the games that ended.
        final_obs: (E, obs_dim) float32 learner observations of the final states.
        winner: (E,) int8 winning seat, -1 for a draw, truncation or forfeit.
        learner_seat: (E,) int8 the learner's seat in the game that ended.
        illegal: (E,) bool, the game ended because the learner acted illegally.
        episode_return: (E,) float32 learner return over the whole game.
        episode_length: (E,) int64 learner decisions in the game.
        replaced: (N,) bool, the learner action was illegal and a random legal one
            was played instead (`illegal_action="random"`).
    """

    obs: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    ended: np.ndarray
    final_obs: np.ndarray
    winner: np.ndarray
    learner_seat: np.ndarray
    illegal: np.ndarray
    episode_return: np.ndarray
    episode_length: np.ndarray
    replaced: np.ndarray

    @property
    def dones(self) -> np.ndarray:
        """(N,) bool: terminated or truncated."""
        return self.terminated | self.truncated

    @property
    def won(self) -> np.ndarray:
        """(E,) bool: the learner won the game that ended."""
        return self.winner == self.learner_seat


def _entropy_seed() -> int:
    """A fresh seed (0..2**64-1) from the operating system's entropy: the stream of an
    env that was given no seed, which Gymnasium and SB3 users expect to be random."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class VectorDriver:
    """N games, one learner seat each, opponents played inside `step`.

    Args:
        num_envs: number of games `N` (>= 1).
        config: the game's `Config`, a dict of its fields, or None (defaults).
        game: a registered game's name (default `"kanaloa"`) or a `kanaloa_env.games.Game`.
        num_players: the table size; must agree with `config` (one of the game's
            `player_counts`).
        **options: further config fields (`nil_announcement=True`, ...), as the AEC
            env takes them.
        opponents: one opponent spec for every non-learner seat, or a sequence of
            specs (see `opponent_sampling`). A spec is anything
            `kanaloa_env.bots.make_bot` takes: a bot object, a callable
            `act(observations, masks, rng) -> actions`, a name such as `"random"` or
            `"heuristic"`, or a model path.
        opponent_sampling: with a sequence of opponents: `"seat"` (the default)
            gives the seat `k` places after the learner (turn order) opponent
            `k - 1`, so the sequence needs P - 1 entries; `"random"` draws every
            non-learner seat of every new game uniformly from the sequence (a pool,
            as in self-play against past versions). An object listed k times is
            drawn k times as often and still acts once per step (a weighted pool).
        learner_seat: `"rotate"` (game number `k` of the stream gets seat `k % P`),
            `"random"` (uniform per game) or a fixed seat `0..P-1`.
        seed: the default seed of the first `reset` (0..2**64-1); None draws one from
            the OS (the default of the Gymnasium and SB3 vector envs, so that
            unseeded envs play different games).
        autoreset: start finished games again inside `step` (vector envs); when
            False (single-agent env, evaluation) a finished game stays over, reports
            nothing more, ignores its action and has an all-False mask.
        illegal_action: what an illegal or out-of-range learner action does:
            `"raise"` (ValueError naming the games, nothing applied), `"lose"`
            (that game ends at once: terminated, the learner gets `illegal_reward`)
            or `"random"` (a uniformly random legal action is played instead).
        illegal_reward: the learner's reward for a game lost by `"lose"`.
        progress_shaping: weight `c` of potential-based reward shaping (0: off, the
            default; rewards are then exactly the game's). With the game's potential
            (`Game.shaping_potential`), `phi = c * potential` at each learner decision
            and `phi = 0` at the end of a game, the learner also gets `phi(now) -
            phi(previous decision)` per step. The shaping sums to zero over every
            game, so episode returns and the best policies are unchanged (Ng et al.
            1999); it only rewards progress (as the game's potential measures it)
            when it happens instead of at the end.
        threads: threads that step, reset and encode the games of large batches
            (the game's `step_inplace`, `reset_games` and `observe` with `threads=`;
            1, the default, runs on the calling thread). Results are the same for
            any count. Opponent bots' own decisions are not split.

    Raises:
        ValueError / TypeError: on a bad argument, naming it and what is allowed.
    """

    def __init__(
        self,
        num_envs: int,
        config: Any = None,
        *,
        game: str | Game[Any, Any] | None = None,
        num_players: int | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        opponent_sampling: str = "seat",
        learner_seat: str | int = "rotate",
        seed: int | None = 0,
        autoreset: bool = True,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        progress_shaping: float = 0.0,
        threads: int = 1,
        **options: Any,
    ) -> None:
        self.num_envs = check_positive_int(num_envs, "num_envs")
        self.game = get_game(game)
        self.config = self.game.make_config(config, num_players, **options)
        self.num_players = self.game.num_players_of(self.config)
        P = self.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in LEARNER_SEAT_MODES:
                raise ValueError(
                    f"learner_seat must be one of {LEARNER_SEAT_MODES} or a seat 0..{P - 1}, "
                    f"got {learner_seat!r}"
                )
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)):
            raise TypeError(
                f"learner_seat must be 'rotate', 'random' or an int seat, got {learner_seat!r}"
            )
        elif not 0 <= learner_seat < P:
            raise ValueError(f"learner_seat must be in 0..{P - 1}, got {learner_seat}")
        self.learner_seat_mode = learner_seat
        if opponent_sampling not in OPPONENT_SAMPLING:
            raise ValueError(
                f"opponent_sampling must be one of {OPPONENT_SAMPLING}, got {opponent_sampling!r}"
            )
        self.opponent_sampling = opponent_sampling
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if isinstance(progress_shaping, bool) or not isinstance(progress_shaping, (int, float)):
            raise TypeError(f"progress_shaping must be a number, got {progress_shaping!r}")
        if not np.isfinite(progress_shaping):
            raise ValueError(f"progress_shaping must be finite, got {progress_shaping}")
        self.progress_shaping = float(progress_shaping)
        if not isinstance(autoreset, bool):
            raise TypeError(f"autoreset must be a bool, got {autoreset!r}")
        self.autoreset = autoreset
        self.threads = check_positive_int(threads, "threads")
        self._seed = _entropy_seed() if seed is None else check_seed(seed)
        self._state: GameState | None = None
        self._policies: list[Any] = []
        self.set_opponents(opponents, opponent_sampling)

        N = self.num_envs
        self._rng = np.random.default_rng(self._seed)
        self._next_game = 0
        self._learner = np.zeros(N, dtype=np.int8)
        self._assign = np.zeros((N, P), dtype=np.int16)  # policy index per seat; -1 learner
        self._acc = np.zeros(N, dtype=np.float32)  # learner reward since its last decision
        self._return = np.zeros(N, dtype=np.float32)
        self._phi = np.zeros(N, dtype=np.float32)  # shaping potential at the last decision
        self._length = np.zeros(N, dtype=np.int64)
        self._over = np.zeros(N, dtype=bool)  # finished and not restarted (autoreset off)
        self._forfeit = np.zeros(N, dtype=bool)  # lost by an illegal action in this step

    # ---- configuration -----------------------------------------------------------

    def set_opponents(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec],
        opponent_sampling: str | None = None,
    ) -> None:
        """Replace the opponent policies (e.g. grow a self-play pool).

        Games already running get their opponents drawn again at once; see the
        class docstring for `opponents` and `opponent_sampling`.
        """
        sampling = self.opponent_sampling if opponent_sampling is None else opponent_sampling
        if sampling not in OPPONENT_SAMPLING:
            raise ValueError(
                f"opponent_sampling must be one of {OPPONENT_SAMPLING}, got {sampling!r}"
            )
        if isinstance(opponents, (list, tuple)):
            specs = list(opponents)
            if not specs:
                raise ValueError("opponents must not be an empty sequence")
        else:
            specs = [opponents]
        P = self.num_players
        if sampling == "seat" and len(specs) not in (1, P - 1):
            raise ValueError(
                f"with opponent_sampling='seat', opponents needs 1 or {P - 1} entries "
                f"(one per other seat), got {len(specs)}"
            )
        self._policies = [make_bot(s, self.game) for s in specs]
        # One object listed k times is drawn k times as often (a pool weight) but acts
        # once per step on all its seats: one call for all of them, not one per entry.
        first = {id(bot): k for k, bot in reversed(list(enumerate(self._policies)))}
        self._acting = np.array([first[id(bot)] for bot in self._policies], dtype=np.int16)
        self.opponent_sampling = sampling
        if self._state is not None:
            self._draw_opponents(np.arange(self.num_envs))

    @property
    def opponents(self) -> list[Any]:
        """The opponent policies (bot objects)."""
        return list(self._policies)

    @property
    def learner_seats(self) -> np.ndarray:
        """(N,) int8 copy: the learner's seat in each current game."""
        return self._learner.copy()

    @property
    def state(self) -> GameState:
        """A copy of the current core state (for inspection, rendering, scenarios)."""
        return self._require_state().copy()

    @property
    def live_state(self) -> GameState:
        """The driver's own current state, not a copy: read it, never modify it (for
        callers that act for the learner, e.g. `kanaloa_env.evaluation.evaluate`)."""
        return self._require_state()

    @property
    def game_over(self) -> np.ndarray:
        """(N,) bool copy: games that are over and not restarted (only without autoreset)."""
        return self._over.copy()

    # ---- the episode API ------------------------------------------------------------

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start N new games and play the opponents up to each learner's first decision.

        Args:
            seed: a new seed (restarts the game stream and the driver's generator),
                or None to continue the stream (the constructor's seed at first).

        Returns:
            (N, obs_dim) float32 learner observations.
        """
        if seed is not None:
            self._seed = check_seed(seed)
            self._rng = np.random.default_rng(self._seed)
            self._next_game = 0
        N = self.num_envs
        ids = self._take_game_ids(N)
        self._state = self.game.init_from_keys(
            self.config, game_keys(self._seed, ids), threads=self.threads
        )
        self._start_games(np.arange(N), ids)
        self._acc[:] = 0
        self._return[:] = 0
        self._phi[:] = self._potential()
        self._length[:] = 0
        self._over[:] = False
        ended = self._play_opponents()
        if ended:
            raise RuntimeError("a game ended before the learner's first decision")
        return self._observe()

    def action_masks(self) -> np.ndarray:
        """(N, A) bool copy: the learner's legal actions. A game that is over (autoreset
        off) has an all-True row, as in pgx: its action is ignored, and a policy that
        masks logits never sees a row without a legal action."""
        legal = self._require_state().legal.copy()
        legal[self._over] = True
        return legal

    def observations(self) -> np.ndarray:
        """(N, obs_dim) float32: the learner observations of the current games."""
        self._require_state()
        return self._observe()

    def step(self, actions: np.ndarray) -> StepResult:
        """Apply the learner actions, play the opponents, auto-reset finished games.

        Args:
            actions: (N,) integer actions (the game's action table), one per game; a game
                that is over (autoreset off) ignores its entry.

        Returns:
            A `StepResult` (fresh arrays).

        Raises:
            TypeError: non-integer actions.
            ValueError: wrong shape; illegal actions when `illegal_action="raise"`
                (nothing is applied then).
        """
        s = self._require_state()
        N = self.num_envs
        a, raw = as_actions(actions, N)
        a = a.copy() if a is actions else a  # (written below: never the caller's array)
        live = ~self._over
        ok = ~live | legal_entries(a, s.legal)
        forfeit = np.zeros(N, dtype=bool)
        replaced = np.zeros(N, dtype=bool)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            if self.illegal_action == "raise":
                shown = ", ".join(f"game {g}: action {int(raw[g])}" for g in bad[:10])
                more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
                raise ValueError(
                    f"illegal learner actions: {shown}{more}; use action_masks() for the legal "
                    "actions, or illegal_action='lose'|'random'"
                )
            if self.illegal_action == "random":
                a[bad] = sample_legal(s.legal[bad], self._rng)
                replaced[bad] = True
            else:  # "lose": the game ends here, the state is left as it was
                forfeit[bad] = True
        a[~live] = 0  # ignored by the core; any in-range value
        apply = live & ~forfeit
        self._length[apply] += 1
        step = self.game.step_inplace
        if apply.all():
            step(s, a, validate=False, threads=self.threads)  # checked against s.legal above
            self._acc += s.rewards[np.arange(N), self._learner]
        elif apply.any():
            idx = np.flatnonzero(apply)
            sub = s.take(idx)
            step(sub, a[idx], validate=False, threads=self.threads)
            s.put(idx, sub)
            self._acc[idx] += sub.rewards[np.arange(len(idx)), self._learner[idx]]
        self._forfeit = forfeit
        try:
            ended = self._play_opponents()
        finally:
            self._forfeit = np.zeros(N, dtype=bool)
        return self._result(ended, replaced)

    # ---- internals ------------------------------------------------------------------

    def _require_state(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        return self._state

    def _take_game_ids(self, k: int) -> np.ndarray:
        ids = np.arange(self._next_game, self._next_game + k, dtype=np.uint64)
        self._next_game += k
        return ids

    def _start_games(self, idx: np.ndarray, ids: np.ndarray) -> None:
        """Choose learner seats and opponents of new games `idx` (game numbers `ids`)."""
        P = self.num_players
        mode = self.learner_seat_mode
        if mode == "rotate":
            self._learner[idx] = (ids % np.uint64(P)).astype(np.int8)
        elif mode == "random":
            self._learner[idx] = self._rng.integers(0, P, size=len(idx), dtype=np.int8)
        else:
            self._learner[idx] = int(mode)
        self._draw_opponents(idx)

    def _draw_opponents(self, idx: np.ndarray) -> None:
        P = self.num_players
        rel = (np.arange(P)[None, :] - self._learner[idx, None]) % P  # 0 = learner
        if self.opponent_sampling == "random" and len(self._policies) > 1:
            pick = self._rng.integers(0, len(self._policies), size=(len(idx), P), dtype=np.int16)
        elif len(self._policies) == 1:
            pick = np.zeros((len(idx), P), dtype=np.int16)
        else:
            pick = np.maximum(rel - 1, 0).astype(np.int16)
        pick[rel == 0] = -1
        self._assign[idx] = pick

    def _potential(self) -> np.ndarray:
        """(N,) float32 shaping potential of the current states (see `progress_shaping`)."""
        if not self.progress_shaping:
            return np.zeros(self.num_envs, dtype=np.float32)
        phi = self.game.shaping_potential(self._require_state(), self._learner)
        return (self.progress_shaping * phi).astype(np.float32)

    def _observe(self) -> np.ndarray:
        return self.game.observe(self._require_state(), seat=self._learner, threads=self.threads)

    def _play_opponents(self) -> dict[str, list[Any]]:
        """Loop over pending opponent decisions until every game waits for its learner.

        Ends (and auto-resets) finished games on the way; returns their records.
        """
        s = self._require_state()
        ended: dict[str, list[Any]] = {}
        done_once = np.zeros(self.num_envs, dtype=bool)
        while True:
            finished = ~self._over & (s.done | self._forfeit)
            if finished.any():
                fidx = np.flatnonzero(finished)
                if done_once[fidx].any():
                    raise RuntimeError("a restarted game ended before its learner's first decision")
                done_once[fidx] = True
                self._finish(fidx, ended)
            cp = s.current_player
            pending = (cp >= 0) & (cp != self._learner) & ~self._over
            idx = np.flatnonzero(pending)
            if idx.size == 0:
                return ended
            full = idx.size == self.num_envs
            sub = s if full else s.take(idx)
            seats = cp[idx].astype(np.intp)
            actions = self._opponent_actions(sub, idx, seats)
            # (bot_actions checked the actions)
            self.game.step_inplace(sub, actions, validate=False, threads=self.threads)
            if not full:
                s.put(idx, sub)
            self._acc[idx] += sub.rewards[np.arange(len(idx)), self._learner[idx]]

    def _opponent_actions(self, sub: GameState, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(b,) actions of the opponents to act in `sub` (games `idx` of the batch)."""
        b = len(idx)
        pol = self._acting[self._assign[idx, seats]]
        if len(self._policies) == 1:
            return bot_actions(self._policies[0], self.game, sub, self._rng, threads=self.threads)
        actions = np.empty(b, dtype=np.int64)
        # One encoding for every policy that reads observations, sliced per policy.
        obs: np.ndarray | None = None
        for k in np.unique(pol).tolist():
            bot = self._policies[k]
            sel = np.flatnonzero(pol == k)
            o = None
            if needs_observations(bot):
                if obs is None:
                    obs = self.game.observe(sub, threads=self.threads)
                o = obs[sel]
            actions[sel] = bot_actions(bot, self.game, sub, self._rng, rows=sel, observations=o)
        return actions

    def _finish(self, idx: np.ndarray, ended: dict[str, list[Any]]) -> None:
        """Record the games `idx` that just ended, then restart them (autoreset) or freeze them."""
        s = self._require_state()
        forfeit = self._forfeit[idx]
        seat = self._learner[idx].copy()
        # The potential of a finished game is 0: the step that ends it gives back phi.
        reward = (
            self._acc[idx] + np.where(forfeit, self.illegal_reward, 0.0) - self._phi[idx]
        ).astype(np.float32)
        winner = np.where(forfeit, -1, s.winner[idx]).astype(np.int8)
        rec = {
            "ended": idx.astype(np.int64),
            "final_state": s.take(idx),  # encoded once per step in `_result`
            "reward": reward,
            "terminated": s.terminated[idx] | forfeit,
            "truncated": s.truncated[idx] & ~forfeit,
            "winner": winner,
            "learner_seat": seat,
            "illegal": forfeit.copy(),
            "episode_return": self._return[idx] + reward,
            "episode_length": self._length[idx].copy(),
        }
        for k, v in rec.items():
            ended.setdefault(k, []).append(v)
        self._acc[idx] = 0
        self._return[idx] = 0
        self._length[idx] = 0
        self._forfeit[idx] = False  # recorded; a restarted game starts clean
        if self.autoreset:
            ids = self._take_game_ids(len(idx))
            self.game.reset_games(s, idx, game_keys(self._seed, ids), threads=self.threads)
            self._start_games(idx, ids)
        else:
            self._over[idx] = True

    def _result(self, ended: dict[str, list[Any]], replaced: np.ndarray) -> StepResult:
        N = self.num_envs
        rewards = self._acc.copy()
        terminated = np.zeros(N, dtype=bool)
        truncated = np.zeros(N, dtype=bool)
        if ended:
            finals = ended.pop("final_state")
            rec = {k: np.concatenate(v) for k, v in ended.items()}
            final = finals[0] if len(finals) == 1 else type(finals[0]).concatenate(finals)
            rec["final_obs"] = self.game.observe(
                final, seat=rec["learner_seat"], threads=self.threads
            )
            e = rec["ended"]
            rewards[e] = rec["reward"]
            terminated[e] = rec["terminated"]
            truncated[e] = rec["truncated"]
        else:
            rec = {
                "ended": np.zeros(0, np.int64),
                "final_obs": np.zeros((0, self.game.obs_dim), np.float32),
                "winner": np.zeros(0, np.int8),
                "learner_seat": np.zeros(0, np.int8),
                "illegal": np.zeros(0, bool),
                "episode_return": np.zeros(0, np.float32),
                "episode_length": np.zeros(0, np.int64),
            }
        # Games not ended hand their accumulated reward over now. An ended game that
        # was restarted keeps what its new game earned before the learner's first
        # decision for the next step (zero under the rules: no game ends that fast).
        ended_now = np.zeros(N, dtype=bool)
        ended_now[rec["ended"]] = True
        going = ~ended_now & ~self._over
        if self.progress_shaping:
            phi = self._potential()
            rewards[going] += phi[going] - self._phi[going]
            self._acc[going] += phi[going] - self._phi[going]  # counted in the return below
            restarted = ended_now & ~self._over
            self._phi[going | restarted] = phi[going | restarted]
        self._return[~ended_now] += self._acc[~ended_now]
        self._acc[~ended_now] = 0
        if not self.autoreset:
            rewards[self._over & ~ended_now] = 0
        return StepResult(
            obs=self._observe(),
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            ended=rec["ended"],
            final_obs=rec["final_obs"],
            winner=rec["winner"],
            learner_seat=rec["learner_seat"],
            illegal=rec["illegal"],
            episode_return=rec["episode_return"],
            episode_length=rec["episode_length"],
            replaced=replaced,
        )
