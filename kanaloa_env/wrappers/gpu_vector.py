"""A vector env on the GPU for PyTorch users: N games, one learner seat each, the
opponents played on the device, observations and rewards handed over as tensors.

```python
import torch
from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

env = GpuVectorEnv(65536, game="kahuna", opponents="random", seed=0)
obs = env.reset()                         # (N, obs_dim) float32 CUDA tensor
while training:
    mask = env.action_masks()             # (N, A) bool tensor
    actions = policy(obs, mask)           # (N,) int64 CUDA tensor
    obs, reward, done, info = env.step(actions)
```

The games are a `kanaloa_env.core.gpu.DeviceState` (the game's `gpu_engine()`); one
`step(actions)` runs on the device (the kernels: `gpu_learner`):

1. the learner actions are applied in every game (one thread a game, the game's own
   rule function; checked against the masks first unless `validate=False`);
2. the opponents play up to each learner's next decision: `"random"` opponents
   inside one kernel (a uniformly random legal action, drawn from a hash of the
   game's key and a counter: the same actions on any device and batch size); a torch
   policy `opponent(obs, mask) -> actions` in rounds, each round encoding the
   positions of the games whose opponent is to act, asking the policy for all games
   at once and applying its actions where an opponent was to act; a bot the game
   plays on the device (`Game.gpu_bot`: both games' "heuristic") in rounds likewise;
   any other bot (a `kanaloa_env.bots.make_bot` spec such as "net" or "search")
   through a copy of the batch to the host in each round, for evaluation rather than
   speed; a mixture (`opponents` a list of such policies and bots, not "random"),
   one member for all the opponent seats of each game slot (`opponent_slots`), in
   the same rounds: each torch policy asked on its own slots' rows only, each bot
   where a game of its slots is pending;
3. a game that ended reports its end in `info` and starts again in place: slot `i`'s
   `k`-th game is game `k * N + i` of the stream `seed` (`rng.game_keys`), its learner
   in seat `game % P` (`learner_seat="rotate"`) or the given seat.

The learner's reward is its seat's reward (R10, K10.1) accumulated over its own step
and the opponents' steps that followed. The returned tensors are the env's buffers
(no copy): the next `step` overwrites them, so clone what must be kept. Without a
GPU it runs under numba-cuda's simulator with CPU tensors (`kanaloa_env.core.gpu`),
for tests on small batches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import gpu
from ..core.batch import check_positive_int
from ..core.rng import check_seed, seed_base
from ..drawing.terminal import plural
from ..games import get_game
from ..games.protocol import Game

MAX_ROUNDS = 10_000
"""Rounds of a torch or CPU opponent per step at most (a guard against a policy loop)."""

Opponent = str | Callable[[Any, Any], Any] | Any


class GpuVectorEnv:
    """N games on the GPU, one learner seat each, opponents played on the device.

    Args:
        num_envs: N, the games played at once.
        config: the game's `Config`, a dict of its fields, or None (defaults).
        game: a game name or `Game` with a GPU engine (`Game.gpu_engine`).
        num_players: the table size; must agree with `config`.
        opponents: `"random"` (inside the kernels), a torch policy
            `opponent(obs, mask) -> actions` ((N, obs_dim) float32 and (N, A) bool
            tensors of the players to act; (N,) integer actions, read where an
            opponent is to act), or any other `make_bot` spec ("heuristic", a policy
            file): on the device where the game gives it (`Game.gpu_bot`: the
            heuristics), else on the CPU through a copy of the batch. Or a mixture: a
            list (or tuple) of members, each a torch policy or a `make_bot` spec as
            above but not "random" (random opponents play inside the kernel for every
            game); a torch member is called with the (n_m, obs_dim) and (n_m, A)
            tensors of the n_m slots it plays and returns (n_m,) integer actions. A
            torch module the caller updates in place plays its new weights from the
            next round on.
        opponent_slots: with a mixture, (N,) integers in 0..M-1 (a numpy array, a
            sequence or a tensor): the member that plays all the opponent seats of
            each game slot, for all of that slot's games; None (default) gives slot
            g member g % M. Only with a mixture. Read back as the `opponent_slots`
            attribute.
        learner_seat: `"rotate"` (game `k` of the stream: seat `k % P`) or a seat.
        seed: the stream of the games (0..2**64-1).
        validate: check the learner's actions against the masks in every step (one
            copy of a count to the host); False for actions sampled from the masks.
        **options: further config fields.

    Raises:
        TypeError / ValueError: a bad argument, naming it.
        ModuleNotFoundError / RuntimeError: no numba-cuda, or no GPU (`core.gpu`).
    """

    def __init__(
        self,
        num_envs: int,
        config: Any = None,
        *,
        game: str | Game[Any, Any] | None = None,
        num_players: int | None = None,
        opponents: Opponent | Sequence[Opponent] = "random",
        opponent_slots: Any = None,
        learner_seat: str | int = "rotate",
        seed: int = 0,
        validate: bool = True,
        **options: Any,
    ) -> None:
        self.num_envs = check_positive_int(num_envs, "num_envs")
        self.game = get_game(game)
        self.config = self.game.make_config(config, num_players, **options)
        self.num_players = self.game.num_players_of(self.config)
        self.engine = self.game.gpu_engine()
        if learner_seat == "rotate":
            self._seat = -1
        elif (
            isinstance(learner_seat, (int, np.integer))
            and not isinstance(learner_seat, bool)
            and 0 <= learner_seat < self.num_players
        ):
            self._seat = int(learner_seat)
        else:
            raise ValueError(
                f"learner_seat must be 'rotate' or a seat in 0..{self.num_players - 1}, "
                f"got {learner_seat!r}"
            )
        self.learner_seat = learner_seat
        self.seed = check_seed(seed)
        self.validate = bool(validate)
        self.opponents = opponents
        self._random = isinstance(opponents, str) and opponents == "random"
        self._bot: Any = None
        self._bot_player: Any = None
        self._policy: Callable[[Any, Any], Any] | None = None
        self._mixture: list[tuple[Callable[[Any, Any], Any] | None, Any]] | None = None
        self._slots: np.ndarray | None = None
        if isinstance(opponents, (list, tuple)):
            self._mixture = _mixture_members(opponents, self.game)
            self._slots = _check_slots(opponent_slots, self.num_envs, len(self._mixture))
            self.opponents = tuple(opponents)
        elif opponent_slots is not None:
            raise ValueError(
                "opponent_slots is for a mixture of opponents (opponents a list of members); "
                f"got opponents={opponents!r}: pass opponent_slots=None, or opponents as a list"
            )
        elif not self._random:
            if callable(opponents) and not hasattr(opponents, "act"):
                self._policy = opponents
            else:
                from ..bots.registry import make_bot

                self._bot = make_bot(opponents, game=self.game)
        self.state: gpu.DeviceState | None = None
        self._device: Any = None  # `gpu_learner` and its kernels for this game, from reset
        self._kernels: Any = None

    # ---- the episode API ------------------------------------------------------------

    def reset(self, seed: int | None = None) -> Any:
        """Start N new games (games 0..N-1 of the stream of `seed`, default the env's) and
        play the opponents up to each learner's first decision; the (N, obs_dim) float32
        learner observations."""
        if seed is not None:
            self.seed = check_seed(seed)
        cuda = gpu.cuda_module()
        from . import gpu_learner as learner  # (imports numba.cuda: once CUDA is usable)

        self._device, self._kernels = learner, learner.learner_kernels(self.engine)
        N, P = self.num_envs, self.num_players
        ids = np.arange(N, dtype=np.int64)
        self.state = self.engine.init(self.config, N, self.seed)
        seats = ids % P if self._seat < 0 else np.full(N, self._seat)
        self._learner = cuda.to_device(seats.astype(np.int8))
        self._acc = cuda.to_device(np.zeros(N, np.float32))
        self._ret = cuda.to_device(np.zeros(N, np.float32))
        self._length = cuda.to_device(np.zeros(N, np.int32))
        self._draws = cuda.to_device(np.zeros(N, np.int64))
        self._next_id = cuda.to_device(ids + N)
        self._pending = cuda.to_device(np.zeros(N, bool))
        self._out = cuda.to_device(np.zeros((N, len(learner.COLUMNS)), np.float32))
        self._obs = cuda.device_array((N, self.engine.obs_dim), np.float32)
        self._opp_obs = cuda.device_array((N, self.engine.obs_dim), np.float32)
        self._opp_actions = cuda.to_device(np.zeros(N, np.int64))
        if self._bot is not None:
            self._bot_player = bot_player(self.game, self._bot, np.random.default_rng(self.seed))
        if self._mixture is not None:
            self._place_mixture()
        self._play_opponents()
        if self._out.copy_to_host()[:, learner.ENDED].any():
            raise RuntimeError("a game ended before the learner's first decision")
        return self._observe()

    def action_masks(self) -> Any:
        """(N, A) bool tensor: the learner's legal actions (the state's mask itself)."""
        return gpu.as_torch(self._require().legal)

    def observations(self) -> Any:
        """(N, obs_dim) float32 tensor: the learner observations of the current games."""
        self._require()
        return self._observe()

    def step(self, actions: Any) -> tuple[Any, Any, Any, dict[str, Any]]:
        """Apply the learner actions, play the opponents, restart finished games.

        Args:
            actions: (N,) integer actions, a tensor (on the device: no copy) or array.

        Returns:
            `(obs, reward, done, info)`: (N, obs_dim) float32 observations (of the new
            game where one ended), (N,) float32 rewards, (N,) bool ended games, and
            `info` with (N,) tensors `terminated`, `truncated`, `won` (the learner won
            the game that ended), `episode_return` and `episode_length` (learner
            decisions), each meaningful where `done`.

        Raises:
            TypeError / ValueError: actions of the wrong type or shape, or illegal
                (with `validate`): nothing is applied then.
            RuntimeError: a game did not come back to its learner (a bug).
        """
        state = self._require()
        a = gpu.from_torch(actions) if _is_tensor(actions) else actions
        if self.validate:
            a = self.engine.validate_actions(state, a)
        else:
            a = self.engine.unchecked_actions(state, a)
        gpu.launch(
            self._kernels.learner_step,
            self.num_envs,
            state.rules,
            state.arrays,
            a,
            self._learner,
            self._acc,
            self._length,
            self._out,
        )
        self._play_opponents()
        gpu.launch(self._device.collect, self.num_envs, self._acc, self._ret, self._out)
        reward, done, info = self._device.read_report(gpu.as_torch(self._out))
        return self._observe(), reward, done, info

    @property
    def learner_seats(self) -> Any:
        """(N,) int8 tensor: each game's learner seat."""
        self._require()
        return gpu.as_torch(self._learner)

    @property
    def opponent_slots(self) -> np.ndarray | None:
        """(N,) int64 read-only numpy array: the member of the mixture `opponents` that
        plays the opponent seats of each game slot; None when `opponents` is not a list."""
        return self._slots

    # ---- internals ------------------------------------------------------------------

    def _require(self) -> gpu.DeviceState:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        return self.state

    def _observe(self) -> Any:
        self.engine.observe(self._require(), seat=self._learner, out=self._obs)
        return gpu.as_torch(self._obs)

    def _play_opponents(self) -> None:
        """Advance every game to its learner's next decision (restarting ended games)."""
        state = self._require()
        cuda = gpu.cuda_module()
        k = self._kernels
        N = self.num_envs
        for _ in range(MAX_ROUNDS):
            count = cuda.to_device(np.zeros(2, np.int64))
            gpu.launch(
                k.advance,
                N,
                state.rules,
                state.arrays,
                self._learner,
                self._acc,
                self._ret,
                self._length,
                self._draws,
                self._next_id,
                self._out,
                self._pending,
                count,
                np.uint64(seed_base(self.seed)),
                np.int64(N),
                np.int64(self._seat),
                self._random,
            )
            pending, stuck = count.copy_to_host()
            if stuck:
                raise RuntimeError(f"{stuck} games did not come back to their learner")
            if pending == 0:
                return
            actions = self._opponent_actions(state)
            gpu.launch(
                k.opponents_step,
                N,
                state.rules,
                state.arrays,
                actions,
                self._pending,
                self._learner,
                self._acc,
            )
        raise RuntimeError(f"the opponents took more than {MAX_ROUNDS} rounds in one step")

    def _opponent_actions(self, state: gpu.DeviceState) -> Any:
        """(N,) device actions of the opponents to act (read where `_pending`)."""
        if self._mixture is not None:
            return self._mixture_actions(state)
        if self._policy is not None:
            obs = gpu.as_torch(self.engine.observe(state, out=self._opp_obs))
            got = self._policy(obs, gpu.as_torch(state.legal))
            actions = gpu.from_torch(got) if _is_tensor(got) else gpu.to_device_array(got)
            shape, kind = tuple(actions.shape), np.dtype(actions.dtype).kind
            if shape != (self.num_envs,) or kind not in "iu":
                raise ValueError(
                    f"the opponent policy must return ({self.num_envs},) integer actions, "
                    f"got {actions.dtype} {tuple(actions.shape)}"
                )
            bad = self._device.count_illegal_where(actions, state.legal, self._pending)
            if bad:
                raise ValueError(f"the opponent policy chose {bad} illegal actions")
            return actions
        return self._bot_player.actions(state, self._pending, self._opp_actions)

    def _place_mixture(self) -> None:
        """The device side of the mixture, once per `reset`: for each member owning some
        slots, its flags over the N games and, for a torch policy, its rows (both None
        when it owns every slot: it then plays as it would alone); the torch views the
        rounds write through."""
        import torch

        assert self._mixture is not None and self._slots is not None
        N = self.num_envs
        self._pending_t = gpu.as_torch(self._pending)
        self._actions_t = gpu.as_torch(self._opp_actions)
        self._where = gpu.cuda_module().to_device(np.zeros(N, bool))
        self._where_t = gpu.as_torch(self._where)
        device = self._pending_t.device
        rng = np.random.default_rng(self.seed)  # the host bots' generator, as for one bot
        self._policies: list[tuple[int, Callable[[Any, Any], Any], Any, Any]] = []
        self._players: list[tuple[Any, Any]] = []
        policy_flags = np.zeros(N, bool)
        for m, (policy, bot) in enumerate(self._mixture):
            mine = self._slots == m
            if not mine.any():
                continue
            flags = None if mine.all() else torch.from_numpy(mine).to(device)
            if policy is not None:
                policy_flags |= mine
                rows = None if mine.all() else torch.from_numpy(np.flatnonzero(mine)).to(device)
                self._policies.append((m, policy, rows, flags))
            else:
                self._players.append((bot_player(self.game, bot, rng), flags))
        self._policy_flags = torch.from_numpy(policy_flags).to(device)

    def _mixture_actions(self, state: gpu.DeviceState) -> Any:
        """(N,) device actions of the mixture's opponents to act: each torch policy asked
        on the rows of its slots only, each bot where a game of its slots is pending."""
        import torch

        if self._policies:
            obs = gpu.as_torch(self.engine.observe(state, out=self._opp_obs))
            mask = gpu.as_torch(state.legal)
            for m, policy, rows, _ in self._policies:
                got = policy(obs, mask) if rows is None else policy(obs[rows], mask[rows])
                self._scatter(m, got, rows)
            torch.logical_and(self._pending_t, self._policy_flags, out=self._where_t)
            bad = self._device.count_illegal_where(self._opp_actions, state.legal, self._where)
            if bad:
                raise ValueError(
                    f"the opponent policies chose {plural(bad, 'illegal action')} "
                    f"({self._blame(state)})"
                )
        for player, flags in self._players:
            if flags is None:
                player.actions(state, self._pending, self._opp_actions)
            else:
                torch.logical_and(self._pending_t, flags, out=self._where_t)
                player.actions(state, self._where, self._opp_actions)
        return self._opp_actions

    def _scatter(self, m: int, got: Any, rows: Any) -> None:
        """Member `m`'s actions `got` (a policy's answer for `rows`, None: all N) into the
        (N,) int64 opponent actions, after checking their shape and kind."""
        import torch

        if not _is_tensor(got):
            got = torch.as_tensor(gpu.host_array(got))
        n = self.num_envs if rows is None else len(rows)
        kind = got.dtype
        if (
            tuple(got.shape) != (n,)
            or kind.is_floating_point
            or kind.is_complex
            or kind == torch.bool
        ):
            raise ValueError(
                f"the opponent policy opponents[{m}] must return ({n},) integer actions "
                f"(one for each game slot it plays), got {got.dtype} {tuple(got.shape)}"
            )
        got = got.to(self._actions_t.device, torch.int64)
        if rows is None:
            self._actions_t.copy_(got)
        else:
            self._actions_t[rows] = got

    def _blame(self, state: gpu.DeviceState) -> str:
        """Which torch members chose the illegal actions, and how many (after a failed
        check: one count a member)."""
        import torch

        parts = []
        for m, _, _, flags in self._policies:
            if flags is None:
                self._where_t.copy_(self._pending_t)
            else:
                torch.logical_and(self._pending_t, flags, out=self._where_t)
            bad = self._device.count_illegal_where(self._opp_actions, state.legal, self._where)
            if bad:
                parts.append(f"opponents[{m}] chose {bad}")
        return ", ".join(parts)


def bot_player(game: Game[Any, Any], bot: Any, rng: np.random.Generator) -> Any:
    """`bot` playing the games of a `DeviceState`: an object with `actions(state, where,
    out)` that writes the bot's action for the player to act in every game flagged in
    the (B,) bool device array `where` into the (B,) int64 device array `out` (others
    left as they were) and returns `out`. On the device where the game gives the bot a
    GPU form (`Game.gpu_bot`), else through a copy of the batch to the host (`rng`: the
    CPU bot's random generator)."""
    on_device = game.gpu_bot(bot)
    return on_device if on_device is not None else _HostBotPlayer(game, bot, rng)


class _HostBotPlayer:
    """A CPU bot playing device games through host copies (`bot_player`)."""

    def __init__(self, game: Game[Any, Any], bot: Any, rng: np.random.Generator) -> None:
        self.game, self.bot, self.rng = game, bot, rng

    def actions(self, state: gpu.DeviceState, where: Any, out: Any) -> Any:
        from ..bots.call import bot_actions

        rows = np.flatnonzero(where.copy_to_host())
        actions = out.copy_to_host()
        actions[rows] = bot_actions(self.bot, self.game, state.to_host(), self.rng, rows=rows)
        out.copy_to_device(actions)
        return out


def _is_tensor(value: object) -> bool:
    return type(value).__module__.startswith("torch")


def _mixture_members(
    opponents: list[Any] | tuple[Any, ...], game: Game[Any, Any]
) -> list[tuple[Callable[[Any, Any], Any] | None, Any]]:
    """The members of a mixture `opponents` as (torch policy, None) or (None, bot) pairs,
    each checked (`GpuVectorEnv`'s `opponents`)."""
    if not opponents:
        raise ValueError(
            "opponents is an empty list: a mixture needs at least one member (a torch "
            "policy or a make_bot spec)"
        )
    from ..bots.registry import make_bot

    members: list[tuple[Callable[[Any, Any], Any] | None, Any]] = []
    for i, member in enumerate(opponents):
        if isinstance(member, str) and member == "random":
            raise ValueError(
                f'opponents[{i}] is "random": random opponents play inside the kernel for '
                'every game, so they cannot be one member of a mixture; pass opponents="random" '
                "alone, or a random bot object (make_bot('random'), played on the host)"
            )
        if isinstance(member, (list, tuple, dict, set)) or member is None:
            raise TypeError(
                f"opponents[{i}] must be a torch policy opponent(obs, mask) -> actions or a "
                f"make_bot spec (a name, a policy file, a bot), got {type(member).__name__}"
            )
        if callable(member) and not hasattr(member, "act"):
            members.append((member, None))
            continue
        try:
            members.append((None, make_bot(member, game=game)))
        except TypeError as exc:
            raise TypeError(f"opponents[{i}]: {exc}") from exc
        except ValueError as exc:
            raise ValueError(f"opponents[{i}]: {exc}") from exc
    return members


def _check_slots(slots: Any, n: int, m: int) -> np.ndarray:
    """The (n,) int64 read-only member index of each game slot: `slots` checked (integers
    in 0..m-1), or slot g % m when None."""
    if slots is None:
        out = np.arange(n, dtype=np.int64) % m
    else:
        try:
            values = gpu.host_array(slots)
        except ValueError as exc:  # a ragged list, say
            raise TypeError(f"opponent_slots must be ({n},) integers in 0..{m - 1}: {exc}") from exc
        if values.dtype.kind not in "iu":
            raise TypeError(
                f"opponent_slots must be ({n},) integers in 0..{m - 1} (a member of opponents "
                f"for each game slot), got {values.dtype}"
            )
        if values.shape != (n,):
            raise ValueError(
                f"opponent_slots must have shape ({n},) (one member for each game slot), "
                f"got {values.shape}"
            )
        outside = (values < 0) | (values >= m)
        if outside.any():
            at = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"opponent_slots must be in 0..{m - 1} (indices into the "
                f"{plural(m, 'member')} of opponents), got {values[at]} at slot {at}"
            )
        out = values.astype(np.int64)
    out.flags.writeable = False
    return out
