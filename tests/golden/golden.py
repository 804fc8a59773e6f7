"""Golden trajectories: what the engines did when these files were recorded, kept to prove
that a rewrite of an engine (numpy to compiled kernels) changes no game.

For each recorded config, `GAMES` seeded games run side by side in one batch; at every
step each game takes a random legal action chosen by a counter-based hash of (game,
step), so game `g`'s actions depend only on its own masks (a difference in one game does
not change the others' actions). After each step the digest of a game takes in its
action, its rows of every `State` array (the whole state, cached mask and rewards
included), the observation of every seat and the end flags. A game is followed up to
one step past its end (the step that must pass it through unchanged).

Stored per game: the number of steps, the 128-bit digest of its whole trajectory and,
for the first `TRACED` games, a 16-bit hash of every step so that a failing test can
say at which step a game first went another way.

Further records: belief sampling (`determinize`) at positions along the trajectories,
whole games between the heuristic bots (their actions' digest) and the heuristic bot's
choice at every position of 60 random-legal games per config, so that the bots that
read the engine also keep their behaviour.

    python tests/golden/golden.py            # (re)record every file: only on purpose
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kanaloa_env.core.rng import mix64

HERE = Path(__file__).resolve().parent
GAMES = 200
TRACED = 16
_STEP_MULT = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Case:
    """One recorded config: a file name, the game, and its config's keywords."""

    name: str
    game: str
    options: dict[str, Any]
    seed: int = 0

    def config(self) -> Any:
        from kanaloa_env.games import get_game

        game = get_game(self.game)
        opts = dict(self.options)
        players = opts.pop("num_players", None)
        return game.make_config(None, players, **opts)


# A deck with a dolphin on most fields (dolphin chains and automatic moves happen often).
_DOLPHIN_DECK = [
    ["blue(start)", "red*"],
    ["red*", "blue*"],
    ["blue*", "green*"],
    ["green*", "blue*"],
    ["blue*", "turquoise*"],
    ["turquoise*", "blue*"],
    ["red*", "green"],
    ["green*", "red*"],
    ["red*", "turquoise*"],
    ["turquoise", "red*"],
    ["green*", "turquoise*"],
    ["turquoise*", "green*"],
]

CASES = (
    Case("kanaloa_p3", "kanaloa", {"num_players": 3}),
    Case("kanaloa_p4", "kanaloa", {"num_players": 4}),
    Case("kanaloa_p5", "kanaloa", {"num_players": 5}),
    Case("kanaloa_p4_nil", "kanaloa", {"num_players": 4, "nil_announcement": True}, seed=1),
    Case(
        "kanaloa_p3_nil_moves",
        "kanaloa",
        {"num_players": 3, "nil_announcement": True, "announced_boat_moves": True},
        seed=2,
    ),
    Case("kanaloa_p4_auto", "kanaloa", {"num_players": 4, "dolphin": "automatic"}, seed=3),
    Case(
        "kanaloa_p5_chain_deck",
        "kanaloa",
        {"num_players": 5, "dolphin_chain": True, "ocean_deck": _DOLPHIN_DECK},
        seed=4,
    ),
    Case(
        "kanaloa_p4_auto_chain_deck_nil",
        "kanaloa",
        {
            "num_players": 4,
            "dolphin": "automatic",
            "dolphin_chain": True,
            "ocean_deck": _DOLPHIN_DECK,
            "nil_announcement": True,
        },
        seed=5,
    ),
    Case(
        "kanaloa_p5_rank_short",
        "kanaloa",
        {"num_players": 5, "reward": "rank", "max_rounds": 2, "nil_announcement": True},
        seed=6,
    ),
    Case("kanaloa_p3_rank", "kanaloa", {"num_players": 3, "reward": "rank"}, seed=7),
    Case("kahuna", "kahuna", {}),
    Case("kahuna_no_legal_play", "kahuna", {"discard_rule": "no_legal_play"}, seed=1),
    Case(
        "kahuna_unplayable_12",
        "kahuna",
        {"discard_rule": "unplayable_cards", "stones_per_player": 12, "first_player": 1},
        seed=2,
    ),
    Case("kahuna_no_early_end", "kahuna", {"early_end": False, "first_player": 0}, seed=3),
    Case("kahuna_short", "kahuna", {"max_turns": 40, "stones_per_player": 11}, seed=4),
)


def choose(legal: np.ndarray, games: np.ndarray, step: int, salt: int = 0) -> np.ndarray:
    """(b,) a legal action per row of (b, A) `legal` (0 for a row with none), picked by a
    hash of (game index, step, salt) alone."""
    h = mix64(games.astype(np.uint64) * _STEP_MULT ^ np.uint64(step * 1_000_003 + salt))
    u = (h >> np.uint64(11)).astype(np.float64) / float(2**53)
    n = legal.sum(axis=1)
    k = np.minimum((u * n).astype(np.int64), np.maximum(n - 1, 0))
    # The k-th legal action of each row.
    rank = np.cumsum(legal, axis=1) - 1
    pick = (rank == k[:, None]) & legal
    return np.where(n > 0, pick.argmax(axis=1), 0).astype(np.int64)


def _rows(state: Any, observe: Callable[..., np.ndarray]) -> list[np.ndarray]:
    """Per game, the bytes that go into a step's digest: (B, n) uint8 blocks."""
    B, P = state.batch_size, state.num_players
    out = []
    for name in state.array_names():
        a = np.ascontiguousarray(getattr(state, name))
        out.append(a.reshape(B, -1).view(np.uint8).reshape(B, -1))
    for seat in range(P):
        obs = observe(state, seat=np.full(B, seat, dtype=np.int64))
        out.append(np.ascontiguousarray(obs).view(np.uint8).reshape(B, -1))
    return out


class _Host:
    """How `trajectories` plays a batch on the CPU engine."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def init(self, cfg: Any, games: int, seed: int, first: int) -> Any:
        return self.game.engine.init(cfg, games, seed, first_game=first)

    def step(self, state: Any, actions: np.ndarray) -> Any:
        """Apply `actions`; return the batch as a CPU state."""
        return self.game.step_inplace(state, actions)

    def rows(self, state: Any) -> list[np.ndarray]:
        return _rows(state, self.game.observe)


class _Device(_Host):
    """How `trajectories` plays a batch on the GPU engine (`kanaloa_env.core.<game>.gpu`,
    a real device or numba-cuda's simulator): the same actions, the state and the
    observations copied back after every step."""

    def __init__(self, game: Any) -> None:
        import importlib

        super().__init__(game)
        self.gpu = importlib.import_module(game.engine.__name__ + ".gpu")
        self.device: Any = None

    def init(self, cfg: Any, games: int, seed: int, first: int) -> Any:
        self.device = self.gpu.init(cfg, games, seed, first_game=first)
        return self.device.to_host()

    def step(self, state: Any, actions: np.ndarray) -> Any:
        self.gpu.step_inplace(self.device, actions)
        return self.device.to_host()

    def rows(self, state: Any) -> list[np.ndarray]:
        def observe(_: Any, seat: np.ndarray) -> np.ndarray:
            return self.gpu.observe(self.device, seat=seat).copy_to_host()  # type: ignore[no-any-return]

        return _rows(state, observe)


def trajectories(
    case: Case, games: int = GAMES, first: int = 0, device: bool = False
) -> dict[str, np.ndarray]:
    """Play `games` games of `case` (game indices `first`, ...) in one batch; the record.
    `device`: on the GPU engine (a real device or the simulator) instead of the CPU's."""
    from kanaloa_env.games import get_game

    game = get_game(case.game)
    run = _Device(game) if device else _Host(game)
    cfg = case.config()
    state = run.init(cfg, games, case.seed, first)
    ids = np.arange(first, first + games)
    digests = [hashlib.blake2b(digest_size=16) for _ in range(games)]
    traces: list[list[int]] = [[] for _ in range(min(games, TRACED))]
    steps = np.zeros(games, dtype=np.int32)
    finished_at = np.full(games, -1)
    t = 0
    for g, blocks in enumerate(zip(*run.rows(state), strict=True)):
        digests[g].update(b"".join(b.tobytes() for b in blocks))
    while True:
        live = finished_at < 0
        follow = live | (finished_at == t - 1)  # one more step past the end
        if not follow.any():
            break
        actions = choose(state.legal, ids, t)
        state = run.step(state, actions)
        t += 1
        rows = run.rows(state)
        for g in np.flatnonzero(follow):
            data = actions[g].tobytes() + b"".join(r[g].tobytes() for r in rows)
            digests[g].update(data)
            steps[g] += 1
            if g < len(traces):
                traces[g].append(int.from_bytes(hashlib.blake2b(data, digest_size=2).digest()))
        done = state.done & (finished_at < 0)
        finished_at[done] = t - 1
    width = max(len(tr) for tr in traces)
    trace = np.zeros((len(traces), width), dtype=np.uint16)
    for g, tr in enumerate(traces):
        trace[g, : len(tr)] = tr
    return {
        "steps": steps,
        "digest": np.array([np.frombuffer(d.digest(), np.uint8) for d in digests]),
        "trace": trace,
    }


def beliefs(case: Case, games: int = 24) -> np.ndarray:
    """(positions, 16) uint8: digests of `determinize` samples at positions along the games."""
    from kanaloa_env.games import get_game

    game = get_game(case.game)
    state = game.init(case.config(), games, case.seed + 100)
    ids = np.arange(games)
    out = []
    for t in range(0, 400):
        if state.done.all():
            break
        if t % 7 == 3:
            live = np.flatnonzero(~state.done)
            sub = state.take(live)
            seats = (sub.current_player.astype(np.int64) + t) % sub.num_players
            view = game.public_view(sub, seats)
            samples = game.determinize(view, seats, 3, np.random.default_rng(t))
            h = hashlib.blake2b(digest_size=16)
            for block in _rows(samples, game.observe):
                h.update(block.tobytes())
            out.append(np.frombuffer(h.digest(), np.uint8))
        game.step_inplace(state, choose(state.legal, ids, t, salt=7))
    return np.array(out)


def bot_games(case: Case, bot: str, games: int = 40) -> np.ndarray:
    """(games, 16) uint8: digests of each game's actions with `bot` in every seat."""
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.games import get_game

    game = get_game(case.game)
    player = make_bot(bot, game=case.game)
    state = game.init(case.config(), games, case.seed + 200)
    rng = np.random.default_rng(case.seed)
    digests = [hashlib.blake2b(digest_size=16) for _ in range(games)]
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = bot_actions(player, game, state, rng, rows=live)
        game.step_inplace(state, actions)
        for g in live:
            digests[g].update(actions[g].tobytes() + state.rewards[g].tobytes())
    return np.array([np.frombuffer(d.digest(), np.uint8) for d in digests])


def bot_decisions(case: Case, bot: str, games: int = 60) -> np.ndarray:
    """(games, 16) uint8: per game, the digest of `bot`'s action for the player to act
    (from the public view) at every position of a random-legal game; the bot is asked
    at each position, its answers are not played."""
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.call import bot_actions
    from kanaloa_env.games import get_game

    game = get_game(case.game)
    player = make_bot(bot, game=case.game)
    state = game.init(case.config(), games, case.seed + 300)
    ids = np.arange(games)
    rng = np.random.default_rng(case.seed)
    digests = [hashlib.blake2b(digest_size=16) for _ in range(games)]
    t = 0
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        got = bot_actions(player, game, state, rng, rows=live)
        for g, a in zip(live, got, strict=True):
            digests[g].update(np.int64(a).tobytes())
        game.step_inplace(state, choose(state.legal, ids, t, salt=11))
        t += 1
    return np.array([np.frombuffer(d.digest(), np.uint8) for d in digests])


BOT_CASES = {"kanaloa_p4": "heuristic", "kanaloa_p3_nil_moves": "heuristic", "kahuna": "heuristic"}


def record(case: Case) -> dict[str, np.ndarray]:
    """Everything stored for `case`."""
    out = trajectories(case)
    out["beliefs"] = beliefs(case)
    if case.name in BOT_CASES:
        out["bots"] = bot_games(case, BOT_CASES[case.name])
    out["heuristic"] = bot_decisions(case, "heuristic")
    return out


def path_of(case: Case) -> Path:
    return HERE / f"{case.name}.npz"


def main() -> None:
    import sys

    if sys.argv[1:] == ["--add-heuristic"]:  # (how the `heuristic` entries were added)
        for case in CASES:
            with np.load(path_of(case)) as data:
                old = {k: data[k] for k in data.files}
            old["heuristic"] = bot_decisions(case, "heuristic")
            np.savez_compressed(path_of(case), **old)
        return
    for case in CASES:
        data = record(case)
        np.savez_compressed(path_of(case), **data)
        print(
            f"{case.name}: {len(data['steps'])} games, {int(data['steps'].sum())} steps, "
            f"{path_of(case).stat().st_size // 1024} KiB"
        )


if __name__ == "__main__":
    main()
