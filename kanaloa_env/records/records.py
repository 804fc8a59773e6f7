"""Game records: every game as JSON lines, replayed exactly and checked on replay.

A record file holds one or more games. Each game is a header line followed by one
line per decision and, once the game is over, a result line:

```
{"format": "kanaloa-record", "version": 2, "game": "kanaloa", "num_players": 4, "config": {}, "seed": 7, "deal": 0}
{"step": 0, "player": 2, "action": 17, "name": "play red-6"}
{"step": 1, "player": 3, "action": 48, "name": "play kanaloa"}
...
{"result": {"steps": 231, "winner": 1, "terminated": true, "truncated": false, "rewards": [...]}}
```

The header names the game (`"game"`: "kanaloa" or "kahuna") and the start:
`"seed"` (with `"deal"`, default 0) is game `deal` of the stream `seed`, i.e. game
`deal` of `init(cfg, B, seed)`; or `"scenario"`, a scenario dict dumped with
`include_key=True` so future chance events replay too. `"meta"` is free-form (who
played which seat, ...). Version 1 files (Kanaloa only; the deal under `"game"`)
are read as well.

Replay recomputes everything a record states and checks it: the acting player and
the name of every decision, the result line (winner, end flags, rewards, steps),
and, for a scenario start, that the header's `num_players` and `config` are the
scenario's. A record that disagrees raises `ReplayError` naming the step.

```python
from kanaloa_env.records import Recorder, load_record, replay_states
rec = Recorder(Config(num_players=4), seed=7)
rec.step(action)                 # as often as needed; rec.state is the live game
rec.record.save("game.jsonl")    # written whole or not at all
states = replay_states(load_record("game.jsonl"))   # raises ReplayError naming the step
```

`write_records` is the hook for tournaments that keep only seeds and actions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import numpy as np

from ..bots.call import bot_actions
from ..core.batch import GameState
from ..core.files import atomic_write_text
from ..core.rng import MAX_SEED, check_seed
from ..drawing.terminal import plural
from ..games import game_of_config, get_game
from ..games.protocol import Game

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Decision",
    "GameRecord",
    "RecordIndex",
    "Recorder",
    "ReplayError",
    "ReplayStep",
    "bot_action",
    "describe_step",
    "load_record",
    "load_records",
    "parse_records",
    "record_bot_game",
    "replay",
    "replay_states",
    "save_records",
    "write_records",
]

FORMAT = "kanaloa-record"
FORMAT_VERSION = 2
_READ_VERSIONS = (1, 2)


class ReplayError(ValueError):
    """A record does not replay: the message names the step; `step` holds it (-1: the header)."""

    def __init__(self, step: int, message: str) -> None:
        self.step = step
        where = "header" if step < 0 else f"step {step}"
        super().__init__(f"record diverges at {where}: {message}")


@dataclass(frozen=True)
class Decision:
    """One recorded decision: the step number (from 0), the acting player, the action and,
    when the record states it, the action's name (checked on replay)."""

    step: int
    player: int
    action: int
    name: str | None = None


def _is_int(x: object) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


@dataclass
class GameRecord:
    """One game: which game, how it starts and every decision taken since.

    Attributes:
        num_players: the table size.
        config: config overrides (`Game.config_overrides`, JSON-compatible).
        seed: the stream seed when the game starts fresh, else None.
        deal: the game's index in the stream `seed`, 0..2**64-1: game `deal` of the
            stream is game `i` of `init(config, B, seed)` (the record format's name).
        scenario: the start position (a scenario dict) when the game does not start
            fresh, else None.
        game: the game's name ("kanaloa", "kahuna").
        decisions: the decisions in order; `decisions[n].step == n`.
        meta: free-form JSON-compatible information (players, bots, date, ...).
        result: filled when the game is over: steps, winner, end flags, rewards.
    """

    num_players: int
    config: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    deal: int = 0
    scenario: dict[str, Any] | None = None
    game: str = "kanaloa"
    decisions: list[Decision] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Check the start fields.

        Raises:
            ValueError: an unknown game, not exactly one of `seed` and `scenario`, a
                seed or `deal` outside 0..2**64-1, or a table size the game does not
                allow.
            TypeError: `seed`, `deal` or `num_players` is not an int, `config` or
                `meta` not a dict, or `scenario` not a dict.
        """
        self.game = get_game(self.game).name
        if (self.seed is None) == (self.scenario is None):
            raise ValueError("a GameRecord starts from exactly one of 'seed' and 'scenario'")
        if self.scenario is not None and not isinstance(self.scenario, dict):
            raise TypeError(
                f"GameRecord.scenario must be a scenario dict, got {type(self.scenario).__name__}"
            )
        if self.scenario is not None and self.scenario.get("num_players", self.num_players) != (
            self.num_players
        ):
            raise ValueError(
                f"GameRecord.num_players is {self.num_players} but the scenario's is "
                f"{self.scenario.get('num_players')!r}"
            )
        if not _is_int(self.num_players):
            raise TypeError(f"GameRecord.num_players must be an int, got {self.num_players!r}")
        g = get_game(self.game)
        if self.num_players not in g.player_counts:
            raise ValueError(
                f"GameRecord.num_players must be in {g.player_counts_text()} for {g.name}, "
                f"got {self.num_players}"
            )
        self.num_players = int(self.num_players)
        for name in ("config", "meta"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(
                    f"GameRecord.{name} must be a dict, got {type(getattr(self, name)).__name__}"
                )
        if self.seed is not None:
            self.seed = check_seed(self.seed)
        if not _is_int(self.deal):
            raise TypeError(f"GameRecord.deal must be an int in 0..2**64-1, got {self.deal!r}")
        # Game indices are uint64 (game_keys): a larger one cannot be dealt.
        if not 0 <= self.deal <= MAX_SEED:
            raise ValueError(f"GameRecord.deal must be an int in 0..2**64-1, got {self.deal}")
        self.deal = int(self.deal)

    @property
    def actions(self) -> list[int]:
        """The actions in order."""
        return [d.action for d in self.decisions]

    @property
    def rules(self) -> Game[Any, Any]:
        """The `Game` this record is a game of."""
        return get_game(self.game)

    def make_config(self) -> Any:
        """The game's `Config` the game is played with."""
        return self.rules.config_from_overrides(self.num_players, self.config)

    def start_state(self) -> GameState:
        """A new batch-1 state at the record's start position."""
        g = self.rules
        if self.scenario is not None:
            return g.from_scenario(self.scenario)
        assert self.seed is not None  # __post_init__: exactly one of seed and scenario
        return g.init_game(self.make_config(), self.seed, self.deal)

    def header(self) -> dict[str, Any]:
        """The first line of the game as a dict."""
        head: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "game": self.game,
            "num_players": self.num_players,
            "config": self.config,
        }
        if self.scenario is not None:
            head["scenario"] = self.scenario
        else:
            head["seed"] = self.seed
            head["deal"] = self.deal
        if self.meta:
            head["meta"] = self.meta
        return head

    def lines(self) -> list[str]:
        """The game as JSON lines (no trailing newlines)."""
        g = self.rules
        out = [json.dumps(self.header())]
        out += [
            json.dumps(
                {
                    "step": d.step,
                    "player": d.player,
                    "action": d.action,
                    "name": g.action_name(d.action),
                }
            )
            for d in self.decisions
        ]
        if self.result is not None:
            out.append(json.dumps({"result": self.result}))
        return out

    def to_jsonl(self) -> str:
        """The game as one JSON-lines string."""
        return "\n".join(self.lines()) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the game to `path` (replaces the file whole, or leaves it as it was)."""
        save_records(path, [self])

    @classmethod
    def from_header(cls, head: dict[str, Any], where: str = "header") -> GameRecord:
        """A record without decisions from `head`, a header dict (untrusted input).

        A scenario start is built once here, so that a bad one is reported with the
        header's line rather than later, when the game is replayed; and its
        `num_players` and `config` must be the header's.

        Raises:
            ValueError: prefixed with `where`, naming the bad or missing key.
        """
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise ValueError(f"{where}: not a {FORMAT} header (key 'format' must be {FORMAT!r})")
        version = head.get("version")
        if version not in _READ_VERSIONS or isinstance(version, bool):
            raise ValueError(
                f"{where}: unsupported record version {version!r}; this reader knows versions "
                f"{list(_READ_VERSIONS)}"
            )
        for key in ("num_players", "config"):
            if key not in head:
                raise ValueError(f"{where}: key {key!r} is missing")
        if ("seed" in head) == ("scenario" in head):
            raise ValueError(f"{where}: needs exactly one of the keys 'seed' and 'scenario'")
        if version == 1:  # Kanaloa only; the deal was called "game"
            game, deal = "kanaloa", head.get("game", 0)
        else:
            name, deal = head.get("game"), head.get("deal", 0)
            if not isinstance(name, str):
                raise ValueError(f"{where}: key 'game' must name a game, got {name!r}")
            game = name
        try:
            rec = cls(
                num_players=head["num_players"],
                config=head["config"],
                seed=head.get("seed"),
                deal=deal,
                scenario=head.get("scenario"),
                game=game,
                meta=head.get("meta", {}),
            )
            cfg = rec.make_config()
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from None
        if rec.scenario is not None:
            try:
                state = rec.rules.from_scenario(rec.scenario)
            except (TypeError, ValueError, RecursionError) as e:
                raise ValueError(f"{where}: bad 'scenario': {e}") from None
            if state.config != cfg:
                raise ValueError(
                    f"{where}: the header's num_players and config "
                    f"({rec.num_players}, {rec.config}) are not the scenario's "
                    f"({rec.rules.num_players_of(state.config)}, "
                    f"{rec.rules.config_overrides(state.config)})"
                )
        return rec


def _parse_lines(lines: Iterable[str], source: str, first_line: int = 1) -> list[GameRecord]:
    """The games of a record file's lines; `first_line` numbers the first of them (for
    the messages of a part of a file)."""
    records: list[GameRecord] = []
    for lineno, text in enumerate(lines, start=first_line):
        if not text.strip():
            continue
        where = f"{source} line {lineno}"
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            msg = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise ValueError(f"{where}: not valid JSON ({msg})") from None
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
        if any(not _is_int(x) for x in (n, p, a)):
            raise ValueError(f"{where}: 'step', 'player' and 'action' must be integers")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"{where}: 'name' must be a string")
        if n != len(rec.decisions):
            raise ValueError(f"{where}: expected step {len(rec.decisions)}, got step {n}")
        A = rec.rules.num_actions
        if not 0 <= a < A:
            raise ValueError(f"{where}: action must be in 0..{A - 1}, got {a}")
        rec.decisions.append(Decision(n, p, a, name))
    return records


def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every game in the record file at `path` (JSON lines); `ValueError` naming the line if
    malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            records = _parse_lines(f, str(path))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a text (UTF-8) file: {e.reason}") from None
    if not records:
        raise ValueError(f"{path}: no game records in the file")
    return records


def parse_records(text: str, source: str = "record") -> list[GameRecord]:
    """Every game in the text of a record file (untrusted: a page's upload, say);
    `ValueError` naming `source` and the line if malformed, or if it holds no game."""
    if not isinstance(text, str):
        raise TypeError(f"a record's text must be a str, got {type(text).__name__}")
    records = _parse_lines(text.splitlines(), source)
    if not records:
        raise ValueError(f"{source}: no game records in it")
    return records


def _starts_a_game(line: str) -> bool:
    """Whether a line is a header line (`_parse_lines` starts a game there: a JSON object
    with the key "format"), read only where it can be one.

    A key decodes to "format" only if the line holds `"format"` or a `\\u` escape (no
    other JSON escape gives a letter), so other lines are not parsed at all.
    """
    if '"format"' not in line and "\\u" not in line:
        return False
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return False  # not a header; the game holding it reports it when it is built
    return isinstance(obj, dict) and "format" in obj


class RecordIndex:
    """The games of a record file's text (untrusted), found without building them: count
    them, then build only the one to show.

    `RecordIndex(text)[i]` is `parse_records(text)[i]` for a well-formed text, but only
    game `i`'s lines are checked and built, so a large file costs a scan of its lines
    plus one game; a fault in another game is reported when that game is built.

    Raises:
        TypeError: `text` is not a str.
        ValueError: naming `source` and the line: the text holds no game, or its first
            line that is not blank is not a header.
    """

    def __init__(self, text: str, source: str = "record") -> None:
        if not isinstance(text, str):
            raise TypeError(f"a record's text must be a str, got {type(text).__name__}")
        self.source = source
        self._lines = text.splitlines()  # the lines parse_records numbers
        self._starts = [k for k, line in enumerate(self._lines) if _starts_a_game(line)]
        first = next((k for k, line in enumerate(self._lines) if line.strip()), None)
        if first is None:
            raise ValueError(f"{source}: no game records in it")
        if not self._starts or first < self._starts[0]:
            # Not a header: _parse_lines says what is wrong with it, as parse_records does.
            _parse_lines(self._lines[first : first + 1], source, first + 1)
            raise ValueError(f"{source} line {first + 1}: the file must start with a header")

    def __len__(self) -> int:
        """The number of games in the text."""
        return len(self._starts)

    def __getitem__(self, i: int) -> GameRecord:
        """Game `i` (from 0), built and checked line by line as `parse_records` does.

        Raises:
            ValueError: `i` is not a game of the text, or the game is malformed (naming
                its line in the text).
        """
        if not _is_int(i) or not 0 <= i < len(self._starts):
            raise ValueError(
                f"{self.source} holds {plural(len(self), 'game')}; the game index must be in "
                f"0..{len(self) - 1}, got {i!r}"
            )
        start = self._starts[i]
        end = self._starts[i + 1] if i + 1 < len(self._starts) else len(self._lines)
        (record,) = _parse_lines(self._lines[start:end], self.source, start + 1)
        return record


def load_record(path: str | os.PathLike[str], i: int = 0) -> GameRecord:
    """Game number `i` (from 0) of the record file at `path`."""
    records = load_records(path)
    if not _is_int(i) or not 0 <= i < len(records):
        raise ValueError(
            f"{path} holds {plural(len(records), 'game')}; game index i must be in "
            f"0..{len(records) - 1}, got {i!r}"
        )
    return records[i]


def save_records(
    path: str | os.PathLike[str], records: Iterable[GameRecord], append: bool = False
) -> None:
    """Write `records`, the games, to one JSON-lines file at `path` (`append=True` adds to
    an existing file).

    The file is replaced whole or not at all: a failure (a full disk, Ctrl-C, a record
    JSON cannot write) leaves it as it was.

    Raises:
        TypeError: a record holds something JSON cannot write (e.g. a numpy number
            in `meta`).
        OSError: the file cannot be written.
    """
    text = "".join(rec.to_jsonl() for rec in records)
    if append and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read() + text
    atomic_write_text(path, text)


def _result(state: GameState, steps: int) -> dict[str, Any] | None:
    if not state.done[0]:
        return None
    return {
        "steps": steps,
        "winner": None if state.winner[0] < 0 else int(state.winner[0]),
        "terminated": bool(state.terminated[0]),
        "truncated": bool(state.truncated[0]),
        "rewards": [float(r) for r in state.rewards[0]],
    }


class Recorder:
    """Plays one game and records it: `step(action)` advances `state` and logs the decision.

    Start from a seed (`Recorder(config, seed=7)`, game 0 of the stream 7, or game
    `deal` of it) or from a position (`Recorder(scenario=sc, game="kahuna")`;
    `Recorder.from_state(state, i)` dumps game `i` of a batch with its key). The game
    is the config's (or `game`, default Kanaloa for a scenario). `meta` is free-form
    JSON-compatible information written into the record's header.
    """

    def __init__(
        self,
        config: Any = None,
        seed: int | None = None,
        *,
        deal: int = 0,
        scenario: dict[str, Any] | None = None,
        game: str | Game[Any, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if scenario is not None:
            if config is not None or seed is not None:
                raise ValueError("Recorder: give either a scenario or (config, seed), not both")
            g = get_game(game)
            self.state = g.from_scenario(scenario)
            cfg = self.state.config
        else:
            if config is None or seed is None:
                raise ValueError("Recorder: needs a config and a seed, or a scenario")
            g = game_of_config(config) if game is None else get_game(game)
            if not isinstance(config, g.config_class):
                raise TypeError(f"config must be a {g.name} Config, got {type(config).__name__}")
            cfg = config
            self.game = g
            self.state = g.init_game(config, check_seed(seed), deal)
        self.game = g
        self.record = GameRecord(
            num_players=g.num_players_of(cfg),
            config=g.config_overrides(cfg),
            seed=seed,
            deal=deal,
            scenario=scenario,
            game=g.name,
            meta=dict(meta or {}),
        )
        self.record.result = _result(self.state, 0)

    @classmethod
    def from_state(
        cls, state: GameState, i: int = 0, meta: dict[str, Any] | None = None
    ) -> Recorder:
        """Record game `i` of `state` from its current position (random key included), with
        `meta` in the header."""
        from ..games import game_of_state

        g = game_of_state(state)
        return cls(scenario=g.to_scenario(state, i, include_key=True), game=g, meta=meta)

    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return bool(self.state.done[0])

    def step(self, action: int) -> GameState:
        """Apply `action` for the player to act and record it; returns the new state.

        Raises:
            ValueError: the game is over or the action is illegal (nothing recorded).
            TypeError: the action is not an int.
        """
        if self.done:
            raise ValueError("Recorder.step: the game is over")
        A = self.game.num_actions
        if not _is_int(action):
            raise TypeError(f"action must be an int in 0..{A - 1}, got {action!r}")
        player = int(self.state.current_player[0])
        self.state = self.game.step(self.state, np.array([action], dtype=np.int64))
        self.record.decisions.append(Decision(len(self.record.decisions), player, int(action)))
        self.record.result = _result(self.state, len(self.record.decisions))
        return self.state


@dataclass(frozen=True)
class ReplayStep:
    """One replayed decision with the states around it (both batch 1, not shared)."""

    decision: Decision
    before: GameState
    after: GameState


def replay(record: GameRecord) -> Iterator[ReplayStep]:
    """Replay a record decision by decision, checking everything it states.

    Yields:
        a `ReplayStep` per decision.

    Raises:
        ReplayError: naming the step where the record leaves the game: the game is
            over, another player is to act, the action is illegal, a decision's name
            is not its action's, or the result line disagrees with the replayed end
            (winner, end flags, rewards, steps).
    """
    g = record.rules
    try:
        state = record.start_state()
    except (TypeError, ValueError) as e:
        raise ReplayError(-1, f"cannot build the start position: {e}") from None
    for n, d in enumerate(record.decisions):
        if d.step != n:
            raise ReplayError(n, f"step numbers must run 0, 1, 2, ...; found {d.step}")
        if state.done[0]:
            raise ReplayError(n, "the game is already over, yet the record goes on")
        to_act = int(state.current_player[0])
        if d.player != to_act:
            raise ReplayError(
                n, f"the record says player {d.player} acts, but player {to_act} is to act"
            )
        if not 0 <= d.action < g.num_actions or not state.legal[0, d.action]:
            what = g.action_name(d.action) if 0 <= d.action < g.num_actions else "out of range"
            raise ReplayError(n, f"action {d.action} ({what}) is illegal for player {to_act}")
        if d.name is not None and d.name != g.action_name(d.action):
            raise ReplayError(
                n,
                f"the record names action {d.action} {d.name!r}, but it is "
                f"{g.action_name(d.action)!r}",
            )
        after = g.step(state, np.array([d.action], dtype=np.int64))
        yield ReplayStep(d, state, after)
        state = after
    if record.result is not None:
        got = _result(state, len(record.decisions))
        if got is None:
            raise ReplayError(
                len(record.decisions), "the record has a result line but the game is not over"
            )
        unknown = sorted(set(record.result) - set(got))
        if unknown:
            raise ReplayError(len(record.decisions), f"unknown result keys {unknown}")
        for key, value in got.items():
            if key in record.result and record.result[key] != value:
                raise ReplayError(
                    len(record.decisions),
                    f"result {key!r} is {record.result[key]!r} in the record, "
                    f"{value!r} in the replay",
                )


def replay_states(record: GameRecord) -> list[GameState]:
    """Every position of a record: the start and the state after each decision."""
    states = [record.start_state()]
    for r in replay(record):
        states.append(r.after)
    return states


def write_records(
    path: str | os.PathLike[str],
    config: Any,
    seeds: int | Sequence[int],
    actions_per_game: Sequence[Sequence[int] | np.ndarray],
    games: Sequence[int] | None = None,
    meta: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
    append: bool = False,
    game: str | Game[Any, Any] | None = None,
) -> list[GameRecord]:
    """Save games known by their seeds and actions (the hook for tournaments).

    Each game is replayed once, which fills in the acting players and the result
    and proves that the record is sound.

    Args:
        path: the JSON-lines file to write (whole or not at all).
        config: the config of every game (a `Config` of the game).
        seeds: one seed per game (0..2**64-1); or one int: then the games are games 0..n-1 of
            `init(config, n, seeds)` (a batch), unless `games` says otherwise.
        actions_per_game: per game, its actions in order (ints; a numpy row works).
        games: per game, its index (deal) in its seed's stream; default 0 per game for
            a list of seeds, 0..n-1 for a single seed.
        meta: one dict for all games or one per game (e.g. the seats' bot names).
        append: add to the file instead of replacing it.
        game: the game (default: the config's).

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
    g = game_of_config(config) if game is None else get_game(game)
    n = len(actions_per_game)
    if _is_int(seeds):
        seed_list = [int(seeds)] * n
        game_list = list(range(n)) if games is None else _int_list(games, "games")
    else:
        seed_list = _int_list(seeds, "seeds", "an int or a sequence of ints")
        game_list = [0] * n if games is None else _int_list(games, "games")
    if len(seed_list) != n or len(game_list) != n:
        raise ValueError(
            f"write_records: {plural(n, 'game')} of actions but {plural(len(seed_list), 'seed')} "
            f"and {plural(len(game_list), 'game index', 'game indices')}"
        )
    metas = [dict(meta or {})] * n if meta is None or isinstance(meta, dict) else list(meta)
    if len(metas) != n:
        raise ValueError(
            f"write_records: {plural(n, 'game')} but {plural(len(metas), 'meta dict')}"
        )
    records = []
    for k, (seed, idx, actions, m) in enumerate(
        zip(seed_list, game_list, actions_per_game, metas, strict=True)
    ):
        try:
            rec = GameRecord(
                g.num_players_of(config),
                g.config_overrides(config),
                seed=seed,
                deal=idx,
                game=g.name,
                meta=m,
            )
        except (TypeError, ValueError) as e:
            raise type(e)(f"write_records: game {k}: {e}") from None
        state = rec.start_state()
        for j, a in enumerate(actions):
            # As in `Recorder.step`: int(2.7) would quietly record another game.
            if not _is_int(a):
                raise TypeError(
                    f"write_records: game {k}: action {j} must be an int in "
                    f"0..{g.num_actions - 1}, got {a!r}"
                )
            a = int(a)
            if state.done[0]:
                raise ReplayError(len(rec.decisions), f"game {k}: actions go on after the end")
            if not 0 <= a < g.num_actions or not state.legal[0, a]:
                raise ReplayError(len(rec.decisions), f"game {k}: action {a} is illegal")
            rec.decisions.append(Decision(len(rec.decisions), int(state.current_player[0]), a))
            state = g.step(state, np.array([a], dtype=np.int64))
        rec.result = _result(state, len(rec.decisions))
        records.append(rec)
    save_records(path, records, append=append)
    return records


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


def bot_action(bot: Any, state: GameState, rng: np.random.Generator, i: int = 0) -> int:
    """The action `bot` takes in game `i` of `state`, drawing on `rng`, checked
    (`kanaloa_env.bots.bot_actions`).

    Raises:
        ValueError: game `i` is over, or the bot returned an illegal action.
    """
    from ..games import game_of_state

    g = game_of_state(state)
    if state.current_player[i] < 0:
        raise ValueError(f"game {i} is over: nobody is to act")
    return int(bot_actions(bot, g, state, rng, rows=np.array([i]))[0])


def record_bot_game(
    config: Any,
    bots: Sequence[Any],
    seed: int = 0,
    rng: np.random.Generator | int | None = None,
    *,
    deal: int = 0,
    max_steps: int = 100_000,
) -> GameRecord:
    """Play game `deal` of the stream `seed` with one bot per seat and return its record.

    Args:
        config: the rules (a `Config` of the game to play).
        bots: one bot per seat, seat order.
        seed: the deal stream.
        rng: the bots' random generator (or a seed for one; default `seed`).
        max_steps: a safety stop; every game of the package ends well before.
    """
    g = game_of_config(config)
    P = g.num_players_of(config)
    if len(bots) != P:
        raise ValueError(f"need {P} bots (one per seat), got {len(bots)}")
    gen = (
        rng
        if isinstance(rng, np.random.Generator)
        else np.random.default_rng(seed if rng is None else rng)
    )
    names = [getattr(b, "name", type(b).__name__) for b in bots]
    rec = Recorder(config, seed, deal=deal, meta={"players": names})
    while not rec.done and len(rec.record.decisions) < max_steps:
        p = int(rec.state.current_player[0])
        rec.step(bot_action(bots[p], rec.state, gen))
    return rec.record


def describe_step(
    before: GameState,
    action: int,
    after: GameState,
    i: int = 0,
    names: Sequence[str] | None = None,
) -> list[str]:
    """Sentences telling what `action` did in game `i`, from the state `before` to the state
    `after` (the game's `describe_step`; `names`: the players' names, default their
    seats)."""
    from ..games import game_of_state

    return game_of_state(before).describe_step(
        before, action, after, i, None if names is None else list(names)
    )
