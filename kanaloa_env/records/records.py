"""Game records: every game as JSON lines, replayed exactly; and a readable account of each step.

A record file holds one or more games. Each game is a header line followed by one
line per decision and, once the game is over, a result line:

```
{"format": "kanaloa-record", "version": 1, "num_players": 4, "config": {}, "seed": 7, "game": 0}
{"step": 0, "player": 2, "action": 17, "name": "play red-6"}
{"step": 1, "player": 3, "action": 48, "name": "play kanaloa"}
...
{"result": {"steps": 231, "winner": 1, "terminated": true, "truncated": false, "rewards": [...]}}
```

The header names the start: `"seed"` (with `"game"`, default 0) is game `game` of
the stream `seed`, i.e. game 0 of `init(cfg, 1, seed)` when `game` is 0 and game
`i` of `init(cfg, B, seed)` in general; or `"scenario"`, a scenario dict
(SCENARIO.md) dumped with `include_key=True` so future deals replay too. `"meta"`
is free-form (who played which seat, ...). `"name"` and the result line are for
readers and checks; replay needs only the actions.

```python
from kanaloa_env.records import Recorder, load_record, replay_states
rec = Recorder(Config(num_players=4), seed=7)
rec.step(action)                 # as often as needed; rec.state is the live game
rec.record.save("game.jsonl")
states = replay_states(load_record("game.jsonl"))   # raises ReplayError naming the step
```

`write_records` is the hook for tournaments that keep only seeds and actions.
`describe_step` tells in words what one decision did (trick results, boat moves,
removals, new rounds) for the terminal game and `python -m kanaloa_env.replay`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import numpy as np

from .core import Config, from_scenario, init, legal_action_mask, observe, step, to_scenario
from .core.kanaloa.constants import (
    ANNOUNCE,
    CARD_NAMES,
    DOLPHIN_TAKE,
    NUM_ACTIONS,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    Phase,
    action_name,
)
from .core.kanaloa.route import slot_ahead
from .core.kanaloa.setup import MAX_GAME
from .core.kanaloa.state import State
from .core.rng import check_seed

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Decision",
    "GameRecord",
    "Recorder",
    "ReplayError",
    "ReplayStep",
    "bot_action",
    "describe_action",
    "describe_step",
    "load_record",
    "load_records",
    "ocean_card_ahead",
    "record_bot_game",
    "replay",
    "replay_states",
    "save_records",
    "write_records",
]

FORMAT = "kanaloa-record"
FORMAT_VERSION = 1


class ReplayError(ValueError):
    """A record does not replay: the message names the step; `step` holds it (-1: the header)."""

    def __init__(self, step: int, message: str) -> None:
        self.step = step
        where = "header" if step < 0 else f"step {step}"
        super().__init__(f"record diverges at {where}: {message}")


@dataclass(frozen=True)
class Decision:
    """One recorded decision: the step number (from 0), the acting player and the action."""

    step: int
    player: int
    action: int

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "player": self.player,
            "action": self.action,
            "name": action_name(self.action),
        }


@dataclass
class GameRecord:
    """One game: how it starts and every decision taken since.

    Attributes:
        num_players: 3..5.
        config: config overrides (`Config.overrides()`, JSON-compatible).
        seed: the stream seed when the game starts fresh, else None.
        game: the game's index in the stream `seed` (0 = `init(cfg, 1, seed)`),
            0..2**64-1.
        scenario: the start position (a scenario dict) when the game does not start
            fresh, else None.
        decisions: the decisions in order; `decisions[n].step == n`.
        meta: free-form JSON-compatible information (players, bots, date, ...).
        result: filled when the game is over: steps, winner, end flags, rewards.
    """

    num_players: int
    config: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    game: int = 0
    scenario: dict[str, Any] | None = None
    decisions: list[Decision] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Check the start fields.

        Raises:
            ValueError: not exactly one of `seed` and `scenario`, a seed outside
                0..2**64-1, `game` outside 0..2**64-1, or a scenario for another
                number of players.
            TypeError: `seed` or `game` is not an int, or `scenario` is not a dict.
        """
        if (self.seed is None) == (self.scenario is None):
            raise ValueError("a GameRecord starts from exactly one of 'seed' and 'scenario'")
        if self.scenario is not None and not isinstance(self.scenario, dict):
            raise TypeError(
                "GameRecord.scenario must be a scenario dict (SCENARIO.md), "
                f"got {type(self.scenario).__name__}"
            )
        if self.scenario is not None and self.scenario.get("num_players") != self.num_players:
            raise ValueError(
                f"GameRecord.num_players is {self.num_players} but the scenario's is "
                f"{self.scenario.get('num_players')!r}"
            )
        if self.seed is not None:
            self.seed = check_seed(self.seed)
        if isinstance(self.game, bool) or not isinstance(self.game, (int, np.integer)):
            raise TypeError(f"GameRecord.game must be an int in 0..2**64-1, got {self.game!r}")
        # Game indices are uint64 (`init`'s first_game): a larger one cannot be dealt.
        if not 0 <= self.game <= MAX_GAME:
            raise ValueError(f"GameRecord.game must be an int in 0..2**64-1, got {self.game}")
        self.game = int(self.game)

    @property
    def actions(self) -> list[int]:
        """The actions in order."""
        return [d.action for d in self.decisions]

    def make_config(self) -> Config:
        """The `Config` the game is played with."""
        return Config.from_dict(self.num_players, self.config)

    def start_state(self) -> State:
        """A new batch-1 `State` at the record's start position."""
        if self.scenario is not None:
            return from_scenario(self.scenario)
        assert self.seed is not None  # __post_init__: exactly one of seed and scenario
        return init(self.make_config(), 1, seed=self.seed, first_game=self.game)

    def header(self) -> dict[str, Any]:
        """The first line of the game as a dict."""
        head: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "num_players": self.num_players,
            "config": self.config,
        }
        if self.scenario is not None:
            head["scenario"] = self.scenario
        else:
            head["seed"] = self.seed
            head["game"] = self.game
        if self.meta:
            head["meta"] = self.meta
        return head

    def lines(self) -> list[str]:
        """The game as JSON lines (no trailing newlines)."""
        out = [json.dumps(self.header())]
        out += [json.dumps(d.to_json()) for d in self.decisions]
        if self.result is not None:
            out.append(json.dumps({"result": self.result}))
        return out

    def to_jsonl(self) -> str:
        """The game as one JSON-lines string."""
        return "\n".join(self.lines()) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the game to `path` (overwrites)."""
        save_records(path, [self])

    @classmethod
    def from_header(cls, head: dict[str, Any], where: str = "header") -> GameRecord:
        """A record without decisions from a header dict.

        A scenario start is built once here, so that a bad one is reported with the
        header's line rather than later, when the game is replayed.

        Raises:
            ValueError: prefixed with `where`, naming the bad or missing key.
        """
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise ValueError(f"{where}: not a {FORMAT} header (key 'format' must be {FORMAT!r})")
        if head.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{where}: unsupported record version {head.get('version')!r}; "
                f"this reader knows version {FORMAT_VERSION}"
            )
        for key in ("num_players", "config"):
            if key not in head:
                raise ValueError(f"{where}: key {key!r} is missing")
        if ("seed" in head) == ("scenario" in head):
            raise ValueError(f"{where}: needs exactly one of the keys 'seed' and 'scenario'")
        try:
            rec = cls(
                num_players=head["num_players"],
                config=head["config"],
                seed=head.get("seed"),
                game=head.get("game", 0),
                scenario=head.get("scenario"),
                meta=head.get("meta", {}),
            )
            rec.make_config()
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from None
        if rec.scenario is not None:
            try:
                from_scenario(rec.scenario)
            except (TypeError, ValueError) as e:
                raise ValueError(f"{where}: bad 'scenario': {e}") from None
        return rec


def _parse_lines(lines: Iterable[str], source: str) -> list[GameRecord]:
    records: list[GameRecord] = []
    for lineno, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        where = f"{source} line {lineno}"
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}: not valid JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{where}: each line must be a JSON object")
        if "format" in obj:
            records.append(GameRecord.from_header(obj, where))
            continue
        if not records:
            raise ValueError(f"{where}: the file must start with a {FORMAT} header line")
        rec = records[-1]
        if rec.result is not None:
            raise ValueError(f"{where}: a line after the game's result line")
        if "result" in obj:
            if not isinstance(obj["result"], dict):
                raise ValueError(f"{where}: 'result' must be an object")
            rec.result = obj["result"]
            continue
        try:
            n, p, a = obj["step"], obj["player"], obj["action"]
        except KeyError as e:
            raise ValueError(f"{where}: decision line lacks key {e.args[0]!r}") from None
        if any(isinstance(x, bool) or not isinstance(x, int) for x in (n, p, a)):
            raise ValueError(f"{where}: 'step', 'player' and 'action' must be integers")
        if n != len(rec.decisions):
            raise ValueError(f"{where}: expected step {len(rec.decisions)}, got step {n}")
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"{where}: action must be in 0..{NUM_ACTIONS - 1}, got {a}")
        rec.decisions.append(Decision(n, p, a))
    return records


def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every game in a record file (JSON lines); `ValueError` naming the line if malformed."""
    with open(path, encoding="utf-8") as f:
        records = _parse_lines(f, str(path))
    if not records:
        raise ValueError(f"{path}: no game records in the file")
    return records


def load_record(path: str | os.PathLike[str], game: int = 0) -> GameRecord:
    """Game number `game` (from 0) of a record file."""
    records = load_records(path)
    if not 0 <= game < len(records):
        raise ValueError(
            f"{path} holds {len(records)} game(s); game must be in 0..{len(records) - 1}"
        )
    return records[game]


def save_records(
    path: str | os.PathLike[str], records: Iterable[GameRecord], append: bool = False
) -> None:
    """Write games to one JSON-lines file (`append=True` adds to an existing file).

    Raises:
        TypeError: a record holds something JSON cannot write (e.g. a numpy number
            in `meta`); the file is then left as it was.
    """
    # Serialised first: a failure must not leave the file truncated or half written.
    text = "".join(rec.to_jsonl() for rec in records)
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        f.write(text)


def _result(state: State) -> dict[str, Any] | None:
    if not (state.terminated[0] or state.truncated[0]):
        return None
    return {
        "winner": None if state.winner[0] < 0 else int(state.winner[0]),
        "terminated": bool(state.terminated[0]),
        "truncated": bool(state.truncated[0]),
        "rewards": [float(r) for r in state.rewards[0]],
    }


class Recorder:
    """Plays one game and records it: `step(action)` advances `state` and logs the decision.

    Start from a seed (`Recorder(config, seed=7)`, game 0 of `init(config, 1, 7)`,
    or game `game` of that stream) or from a position (`Recorder(scenario=sc)`;
    `Recorder.from_state(state, i)` dumps game `i` of a batch with its key).
    """

    def __init__(
        self,
        config: Config | None = None,
        seed: int | None = None,
        *,
        game: int = 0,
        scenario: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if scenario is not None:
            if config is not None or seed is not None:
                raise ValueError("Recorder: give either a scenario or (config, seed), not both")
            self.state = from_scenario(scenario)
            cfg = self.state.config
        else:
            if config is None or seed is None:
                raise ValueError("Recorder: needs a config and a seed, or a scenario")
            if not isinstance(config, Config):
                raise TypeError(f"config must be a Config, got {type(config).__name__}")
            cfg = config
            self.state = init(config, 1, seed=seed, first_game=game)
        self.record = GameRecord(
            num_players=cfg.num_players,
            config=cfg.overrides(),
            seed=seed,
            game=game,
            scenario=scenario,
            meta=dict(meta or {}),
        )
        self.record.result = _result(self.state)

    @classmethod
    def from_state(cls, state: State, i: int = 0, meta: dict[str, Any] | None = None) -> Recorder:
        """Record game `i` of `state` from its current position (deal key included)."""
        return cls(scenario=to_scenario(state, i, include_key=True), meta=meta)

    @property
    def done(self) -> bool:
        return bool(self.state.terminated[0] or self.state.truncated[0])

    def step(self, action: int) -> State:
        """Apply `action` for the player to act and record it; returns the new state.

        Raises:
            ValueError: the game is over or the action is illegal (nothing recorded).
        """
        if self.done:
            raise ValueError("Recorder.step: the game is over")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
        player = int(self.state.current_player[0])
        self.state = step(self.state, np.array([action], dtype=np.int64))
        self.record.decisions.append(Decision(len(self.record.decisions), player, int(action)))
        self.record.result = _result(self.state)
        if self.record.result is not None:
            self.record.result["steps"] = len(self.record.decisions)
        return self.state


@dataclass(frozen=True)
class ReplayStep:
    """One replayed decision with the states around it (both batch 1, not shared)."""

    decision: Decision
    before: State
    after: State


def replay(record: GameRecord) -> Iterator[ReplayStep]:
    """Replay a record decision by decision.

    Yields:
        a `ReplayStep` per decision.

    Raises:
        ReplayError: naming the step where the record leaves the game: the game is
            over, another player is to act, the action is illegal, or the result
            line disagrees with the replayed end.
    """
    try:
        state = record.start_state()
    except (TypeError, ValueError) as e:
        raise ReplayError(-1, f"cannot build the start position: {e}") from None
    for n, d in enumerate(record.decisions):
        if d.step != n:
            raise ReplayError(n, f"step numbers must run 0, 1, 2, ...; found {d.step}")
        if state.terminated[0] or state.truncated[0]:
            raise ReplayError(n, "the game is already over, yet the record goes on")
        to_act = int(state.current_player[0])
        if d.player != to_act:
            raise ReplayError(
                n, f"the record says player {d.player} acts, but player {to_act} is to act"
            )
        if not 0 <= d.action < NUM_ACTIONS or not state.legal[0, d.action]:
            phase = Phase(int(state.phase[0])).name.lower()
            what = action_name(d.action) if 0 <= d.action < NUM_ACTIONS else "out of range"
            raise ReplayError(
                n, f"action {d.action} ({what}) is illegal for player {to_act} in phase {phase}"
            )
        after = step(state, np.array([d.action], dtype=np.int64))
        yield ReplayStep(d, state, after)
        state = after
    if record.result is not None:
        got = _result(state)
        if got is None:
            raise ReplayError(
                len(record.decisions), "the record has a result line but the game is not over"
            )
        for key in ("winner", "terminated", "truncated"):
            if key in record.result and record.result[key] != got[key]:
                raise ReplayError(
                    len(record.decisions),
                    f"result {key!r} is {record.result[key]!r} in the record, "
                    f"{got[key]!r} in the replay",
                )


def replay_states(record: GameRecord) -> list[State]:
    """Every position of a record: the start and the state after each decision."""
    states = [record.start_state()]
    for r in replay(record):
        states.append(r.after)
    return states


def write_records(
    path: str | os.PathLike[str],
    config: Config,
    seeds: int | Sequence[int],
    actions_per_game: Sequence[Sequence[int] | np.ndarray],
    games: Sequence[int] | None = None,
    meta: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
    append: bool = False,
) -> list[GameRecord]:
    """Save games known by their seeds and actions (the hook for tournaments).

    Each game is replayed once, which fills in the acting players and the result
    and proves that the record is sound.

    Args:
        path: the JSON-lines file to write.
        config: the config of every game.
        seeds: one seed per game (0..2**64-1); or one int: then the games are games 0..n-1 of
            `init(config, n, seeds)` (a batch), unless `games` says otherwise.
        actions_per_game: per game, its actions in order (ints; a numpy row works).
        games: per game, its index in its seed's stream (`init(..., first_game=)`);
            default 0 per game for a list of seeds, 0..n-1 for a single seed.
        meta: one dict for all games or one per game (e.g. the seats' bot names).
        append: add to the file instead of overwriting it.

    Returns:
        The records written.

    Raises:
        ReplayError: a game's actions do not replay (names the step).
        TypeError: a seed, game index or action is not an int (bools and floats
            included; names the game and the value), or `seeds` is neither an int
            nor a sequence of ints.
        ValueError: the lengths of `seeds`, `games`, `meta` and `actions_per_game`
            differ, or a seed or game index is out of range (0..2**64-1).
    """
    n = len(actions_per_game)
    if _is_int(seeds):
        seed_list = [int(seeds)] * n
        game_list = list(range(n)) if games is None else _int_list(games, "games")
    else:
        seed_list = _int_list(seeds, "seeds", "an int or a sequence of ints")
        game_list = [0] * n if games is None else _int_list(games, "games")
    if len(seed_list) != n or len(game_list) != n:
        raise ValueError(
            f"write_records: {n} games of actions but {len(seed_list)} seeds and "
            f"{len(game_list)} game indices"
        )
    metas = [dict(meta or {})] * n if meta is None or isinstance(meta, dict) else list(meta)
    if len(metas) != n:
        raise ValueError(f"write_records: {n} games but {len(metas)} meta dicts")
    records = []
    for g, (seed, idx, actions, m) in enumerate(
        zip(seed_list, game_list, actions_per_game, metas, strict=True)
    ):
        try:
            rec = GameRecord(config.num_players, config.overrides(), seed=seed, game=idx, meta=m)
        except (TypeError, ValueError) as e:
            raise type(e)(f"write_records: game {g}: {e}") from None
        state = rec.start_state()
        for k, a in enumerate(actions):
            # As in `Recorder.step`: int(2.7) would quietly record another game.
            if not _is_int(a):
                raise TypeError(
                    f"write_records: game {g}: action {k} must be an int in "
                    f"0..{NUM_ACTIONS - 1}, got {a!r}"
                )
            a = int(a)
            if state.terminated[0] or state.truncated[0]:
                raise ReplayError(len(rec.decisions), f"game {g}: actions go on after the end")
            if not 0 <= a < NUM_ACTIONS or not state.legal[0, a]:
                raise ReplayError(len(rec.decisions), f"game {g}: action {a} is illegal")
            rec.decisions.append(Decision(len(rec.decisions), int(state.current_player[0]), a))
            state = step(state, np.array([a], dtype=np.int64))
        rec.result = _result(state)
        if rec.result is not None:
            rec.result["steps"] = len(rec.decisions)
        records.append(rec)
    save_records(path, records, append=append)
    return records


def _is_int(x: object) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _int_list(values: object, what: str, allowed: str = "a sequence of ints") -> list[int]:
    """`values` (a sequence or 1-d array of ints) as a list of ints.

    Raises:
        TypeError: `values` is a string, not a sequence or not 1-d, or an element is
            not an int (naming `what`, the index and the element).
    """
    # A str is a sequence too: "12" must not pass as the seeds 1 and 2.
    if (
        isinstance(values, (str, bytes))
        or not isinstance(values, (Sequence, np.ndarray))
        or (isinstance(values, np.ndarray) and values.ndim != 1)
    ):
        raise TypeError(f"write_records: {what} must be {allowed}, got {values!r}")
    out = []
    for k, v in enumerate(values):
        if not _is_int(v):
            raise TypeError(f"write_records: {what}[{k}] must be an int, got {v!r}")
        out.append(int(v))
    return out


# ---- bots and readable accounts ---------------------------------------------------------


def bot_action(bot: Any, state: State, rng: np.random.Generator, i: int = 0) -> int:
    """The action `bot` takes in game `i` of `state` (the bot protocol of `kanaloa_env.bots`).

    Bots with `uses_state = True` also get `view` (what the player may know) and `seats`.
    """
    from .bots import public_view

    sub = state.take([i])
    seat = sub.current_player.astype(np.int64)
    if seat[0] < 0:
        raise ValueError(f"game {i} is over: nobody is to act")
    kwargs: dict[str, Any] = {}
    if getattr(bot, "uses_state", False):
        kwargs = {"view": public_view(sub, seat), "seats": seat}
    out = np.asarray(bot.act(observe(sub), legal_action_mask(sub), rng, **kwargs))
    return int(out.reshape(-1)[0])


def record_bot_game(
    config: Config,
    bots: Sequence[Any],
    seed: int = 0,
    rng: np.random.Generator | int | None = None,
    *,
    game: int = 0,
    max_steps: int = 100_000,
) -> GameRecord:
    """Play game `game` of the stream `seed` with one bot per seat and return its record.

    Args:
        config: the rules.
        bots: `config.num_players` bots, seat order.
        seed: the deal stream.
        rng: the bots' random generator (or a seed for one; default `seed`).
        max_steps: a safety stop; `Config.max_rounds` ends every game well before.
    """
    if len(bots) != config.num_players:
        raise ValueError(f"need {config.num_players} bots (one per seat), got {len(bots)}")
    gen = (
        rng
        if isinstance(rng, np.random.Generator)
        else np.random.default_rng(seed if rng is None else rng)
    )
    names = [getattr(b, "name", type(b).__name__) for b in bots]
    rec = Recorder(config, seed, game=game, meta={"players": names})
    while not rec.done and len(rec.record.decisions) < max_steps:
        p = int(rec.state.current_player[0])
        rec.step(bot_action(bots[p], rec.state, gen))
    return rec.record


def ocean_card_ahead(state: State, action: int, i: int = 0) -> tuple[int, int]:
    """(slot, deck card id) of the ocean card a removal `action` (50..61) names in game `i`."""
    k = int(action) - REMOVE_BASE
    if not 0 <= k < NUM_ACTIONS - REMOVE_BASE:
        raise ValueError(f"a removal action is in {REMOVE_BASE}..{ANNOUNCE - 1}, got {action}")
    idx = np.array([i])
    seat = state.current_player[idx].astype(np.intp)
    slot = int(slot_ahead(state, idx, seat, np.array([k]))[0])
    return slot, int(state.route[i, 2 * slot]) // 2


def _card_colors(state: State, slot: int, i: int) -> str:
    codes = state.route[i, 2 * slot : 2 * slot + 2]
    deck = state.config.deck
    return "/".join(SUIT_NAMES[deck.color[c]] + ("*" if deck.dolphin[c] else "") for c in codes)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe_action(state: State, action: int, i: int = 0) -> str:
    """What `action` means for the player to act in game `i`, in words.

    Removal actions name the ocean card (its id and field colours, `*` = dolphin).
    """
    a = int(action)
    if REMOVE_BASE <= a < ANNOUNCE:
        slot, cid = ocean_card_ahead(state, a, i)
        k = a - REMOVE_BASE
        where = "the next card ahead" if k == 0 else f"the {_ordinal(k + 1)} card ahead"
        return f"remove ocean card {cid} ({_card_colors(state, slot, i)}), {where}"
    return action_name(a)


def _who(p: int, names: Sequence[str] | None) -> str:
    return names[p] if names is not None else f"player {p}"


def describe_step(
    before: State,
    action: int,
    after: State,
    i: int = 0,
    names: Sequence[str] | None = None,
) -> list[str]:
    """Sentences telling what one decision in game `i` did.

    The decision itself, a finished trick and its winner, every boat move (with the
    fields sailed and where it ends), removed ocean cards, a dolphin decision that
    is now due, a new round and its trump, and the end of the game.

    Args:
        before, after: the states around the decision (`after = step(before, ...)`).
        action: the action taken by `before.current_player[i]`.
        names: optional display names per seat (default `"player p"`).
    """
    P = before.num_players
    a = int(action)
    p = int(before.current_player[i])
    phase = int(before.phase[i])
    out: list[str] = []
    if phase == Phase.PLAY:
        out.append(f"{_who(p, names)} plays {CARD_NAMES[a]}")
    elif phase in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END):
        what = describe_action(before, a, i).replace("remove", "removes", 1)
        left = int(after.present[i].sum())
        out.append(f"{_who(p, names)} {what}; {left} ocean cards remain")
    elif phase == Phase.ANNOUNCE:
        out.append(
            f"{_who(p, names)} " + ("announces no tricks" if a == ANNOUNCE else "does not announce")
        )
    elif phase == Phase.DOLPHIN:
        out.append(
            f"{_who(p, names)} "
            + ("takes the dolphin move" if a == DOLPHIN_TAKE else "declines the dolphin move")
        )

    # A trick is complete once every player has played to it; an octopus played
    # last keeps it open until its removal (R4.4).
    tn = int(before.trick_number[i])
    cards = [int(c) for c in before.history[i, tn * P : int(before.num_played[i])]]
    if phase == Phase.PLAY:
        cards.append(a)
    waits = phase == Phase.PLAY and after.phase[i] == Phase.REMOVE_OCTOPUS
    if phase in (Phase.PLAY, Phase.REMOVE_OCTOPUS) and len(cards) == P and not waits:
        w = int(after.leader[i])  # the engine makes the trick's winner the next leader (R3.3)
        out.append(
            f"{_who(w, names)} wins the trick ({', '.join(CARD_NAMES[c] for c in cards)}; "
            f"trump {SUIT_NAMES[int(before.trump[i])]})"
        )
        if before.announced[i, w] == 1 and not before.config.announced_boat_moves:
            out.append(f"{_who(w, names)} announced no tricks: the boat stays (R7.4)")

    pres = np.repeat(after.present[i], 2)
    F = len(pres)
    deck = before.config.deck
    for q in range(P):
        f0, f1 = int(before.boat_field[i, q]), int(after.boat_field[i, q])
        if f0 == f1 and after.progress[i, q] <= before.progress[i, q]:
            continue
        # Fields sailed on the route after the step (a removal in the same step
        # happens before any move; R9.1).
        dist = (f1 - f0) % F or F
        sailed = int(pres[(f0 + 1 + np.arange(dist)) % F].sum())
        code = after.route[i, f1]
        where = SUIT_NAMES[deck.color[code]] + (" dolphin" if deck.dolphin[code] else "")
        out.append(
            f"{_who(q, names)} sails {sailed} field{'s' if sailed != 1 else ''} to a {where} field"
        )

    if after.terminated[i] and not before.terminated[i]:
        out.append(f"{_who(int(after.winner[i]), names)} laps the last boat and wins the game!")
    elif after.truncated[i] and not before.truncated[i]:
        out.append(f"the game stops after {int(after.round[i])} rounds (max_rounds, R9.4)")
    elif after.round[i] != before.round[i]:
        out.append(
            f"round {int(after.round[i])} starts: {_who(int(after.starting_player[i]), names)} "
            f"leads, trump is {SUIT_NAMES[int(after.trump[i])]}"
        )
    elif after.trump[i] != before.trump[i]:
        out.append(f"trump is now {SUIT_NAMES[int(after.trump[i])]}")
    if after.phase[i] == Phase.DOLPHIN:
        out.append(f"{_who(int(after.current_player[i]), names)} may take a dolphin move")
    if after.phase[i] == Phase.REMOVE_ROUND_END and before.phase[i] != Phase.REMOVE_ROUND_END:
        out.append(
            f"round {int(after.round[i])} is over: {_who(int(after.current_player[i]), names)} "
            "removes an ocean card (R7.1)"
        )
    if phase == Phase.PLAY and a == OCTOPUS and after.phase[i] == Phase.REMOVE_OCTOPUS:
        out.append(f"{_who(p, names)} must remove an ocean card (R4.4)")
    return out
