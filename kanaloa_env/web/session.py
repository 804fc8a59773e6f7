"""What the web page plays and shows, without the web: games at the table, replays, their views.

Everything goes through the game protocol (`kanaloa_env.games`), the bots' registry
(`kanaloa_env.bots`) and the records (`kanaloa_env.records`), so every registered game
works here; nothing game-specific is imported. `kanaloa_env.web.app` serves these as
JSON and pictures.

- `Catalogue`: what the server offers: the games with their table sizes, variant
  options (each game's command-line flags, `Game.add_cli_options`) and bots (the
  arena's names, `bots.bot_names`, and the policy files given on the command line),
  and the record files in the folders given on the command line.
- `Session`: one game in the page: `"play"` (a human at one seat, bots at the others),
  `"live"` (bots only, one move per `advance`) or `"replay"` (a record, checked on
  replay). It keeps every position, so any step can be shown again.
- `SessionStore`: the sessions of the server, kept per client (a browser tab):
  `MAX_SESSIONS` a client, `MAX_SESSIONS_TOTAL` in all (docs/web.md).

Network bots share one copy of each policy file's weights per process
(`shared_policy_bot`), and a record file's games are counted, only the one shown built
(`kanaloa_env.records.RecordIndex`).

Bad input from the page (an unknown bot, an illegal move, a malformed record) raises
`WebError`, whose message the page shows.
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..games import GAMES, get_game
from ..games.protocol import Game
from ..records import (
    GameRecord,
    Recorder,
    RecordIndex,
    ReplayError,
    bot_action,
    describe_step,
    replay,
)
from .limits import GAME_IDLE_SECONDS, MAX_RECORD_BYTES, MAX_SESSIONS, MAX_SESSIONS_TOTAL

__all__ = [
    "GAME_IDLE_SECONDS",
    "MAX_RECORD_BYTES",
    "MAX_SESSIONS",
    "MAX_SESSIONS_TOTAL",
    "MAX_STEPS",
    "Catalogue",
    "PolicyEntry",
    "ServerFull",
    "Session",
    "SessionStore",
    "WebError",
    "ascii_int",
    "png_bytes",
    "shared_policy_bot",
]

#: The longest game a session plays or replays, in decisions.
MAX_STEPS = 20_000
RECORD_SUFFIX = ".jsonl"
_MAX_LISTED = 500  # record files listed per folder
_ASCII_INT = re.compile(r"[0-9]+")


class WebError(ValueError):
    """A request the server cannot serve; the message is shown in the page."""


class ServerFull(WebError):
    """The server holds as many games as it may, none of them idle: a new one must wait."""


def ascii_int(value: object) -> object:
    """`value` as an int if it is a string of ASCII digits ("12"), else `value` unchanged
    (the caller's check then names what is allowed). Other digits ("²", "３", "٣") are
    not numbers here: `str.isdigit` takes them and `int` takes some of them."""
    if isinstance(value, str) and _ASCII_INT.fullmatch(value):
        return int(value)
    return value


@dataclass(frozen=True)
class PolicyEntry:
    """A policy file given on the command line: its label in the page, path and game."""

    label: str
    path: str
    game: str
    num_players: tuple[int, ...]


class _Parser(argparse.ArgumentParser):
    """A parser of a game's variant flags that raises instead of exiting."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise WebError(message)


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


class _SharedPolicyBots:
    """Policy bots (`PolicyBot`: a policy file's weights and their torch network) built
    once per process and shared by every seat of every game that seats them.

    A `PolicyBot` keeps nothing between calls (the caller's generator draws its
    random numbers), so one serves any number of seats and threads. Its weights are
    made read-only, and a file changed on disk (another size or modification time) is
    loaded again, replacing the old bot for new seats.
    """

    def __init__(self) -> None:
        self._bots: dict[tuple[str, ...], tuple[tuple[Any, ...], Any]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _file_key(path: str) -> tuple[str, int, int]:
        st = os.stat(path)
        return (os.path.realpath(path), st.st_size, st.st_mtime_ns)

    def get(self, paths: Sequence[str], name: str | None = None) -> Any:
        """The shared bot playing the policy files `paths` (named `name`, default the
        first file's name).

        Raises:
            ValueError: a file cannot be read or is not a policy file.
            ImportError: torch is not installed.
        """
        from ..bots.policy_bot import PolicyBot

        spec = (name or "", *paths)
        try:
            key = tuple(self._file_key(p) for p in paths)
        except OSError as e:
            raise ValueError(f"cannot read {e.filename}: {e.strerror}") from None
        with self._lock:  # one load at a time: two seats never load one file twice
            held = self._bots.get(spec)
            if held is not None and held[0] == key:
                return held[1]
            bot = PolicyBot.load(list(paths), name=name)
            for weights in bot.weights.values():
                for w, b in weights.layers:
                    w.flags.writeable = False
                    b.flags.writeable = False
            self._bots[spec] = (key, bot)
            return bot


_POLICY_BOTS = _SharedPolicyBots()


def shared_policy_bot(paths: Sequence[str], name: str | None = None) -> Any:
    """The process's one `PolicyBot` for the policy files `paths`, named `name` (default
    the first file's name; see `_SharedPolicyBots`)."""
    return _POLICY_BOTS.get(paths, name)


def _option_parser(game: Game[Any, Any]) -> _Parser:
    parser = _Parser(prog=game.name, add_help=False, exit_on_error=False)
    game.add_cli_options(parser)
    return parser


def _option_specs(game: Game[Any, Any]) -> list[dict[str, Any]]:
    """The game's variant flags as form fields: a checkbox for a switch, a choice list
    for a flag with choices, a number or text field for the rest (default: not given)."""
    out = []
    for act in _option_parser(game)._actions:
        if not act.option_strings:
            continue
        flag = max(act.option_strings, key=len)
        spec: dict[str, Any] = {"flag": flag, "help": act.help or ""}
        if isinstance(act, argparse._StoreTrueAction):
            spec["kind"] = "switch"
        elif act.choices is not None:
            spec["kind"] = "choice"
            spec["choices"] = [str(c) for c in act.choices]
        elif act.type is int:
            spec["kind"] = "int"
        else:
            spec["kind"] = "text"
        out.append(spec)
    return out


def _config(game: Game[Any, Any], num_players: object, options: object) -> Any:
    """The game's `Config` for a table size and the page's variant options
    ({flag: value}: True for a switch, a string or number for the others)."""
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise WebError(f"num_players must be an int, got {num_players!r}")
    if num_players not in game.player_counts:
        raise WebError(
            f"{game.title} is played by {game.player_counts_text()} players, got {num_players}"
        )
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise WebError("options must be an object of {flag: value}")
    known = {s["flag"]: s for s in _option_specs(game)}
    argv: list[str] = []
    for flag, value in options.items():
        if flag not in known:
            raise WebError(f"{game.title} has no option {flag!r}; its options are {list(known)}")
        if known[flag]["kind"] == "switch":
            if not isinstance(value, bool):
                raise WebError(f"option {flag} is a switch: true or false, got {value!r}")
            if value:
                argv.append(flag)
        elif value is not None and value != "":
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise WebError(f"option {flag} takes a number or a word, got {value!r}")
            argv += [flag, str(value)]
    parser = _option_parser(game)
    try:
        args = parser.parse_args(argv)
        return game.make_config(game.cli_overrides(args), num_players=num_players)
    except argparse.ArgumentError as e:
        raise WebError(str(e)) from None
    except (TypeError, ValueError) as e:
        raise WebError(str(e)) from None


def _seed(value: object) -> int:
    """The page's seed, or a fresh one when it gives none."""
    if value is None or value == "":
        return secrets.randbelow(2**31)
    if isinstance(value, str):
        value = ascii_int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise WebError(f"a seed is an int in 0..2**63-1, got {value!r}")
    return value


@dataclass
class Catalogue:
    """What the server offers the page (fixed when it starts).

    Attributes:
        policies: the policy files (`.npz`) given on the command line.
        record_dirs: the folders whose record files (`*.jsonl`, in sub-folders too)
            the page may open; nothing outside them.
    """

    policies: list[PolicyEntry] = field(default_factory=list)
    record_dirs: list[str] = field(default_factory=list)
    max_record_bytes: int = MAX_RECORD_BYTES

    @classmethod
    def from_paths(
        cls,
        policies: Sequence[str] = (),
        record_dirs: Sequence[str] = (),
        max_record_bytes: int = MAX_RECORD_BYTES,
    ) -> Catalogue:
        """Check the command line's files: each of `policies` must be a readable policy file
        (`.npz`, loaded without pickle); each of `record_dirs` must be an existing folder. Record files
        larger than `max_record_bytes` are refused when the page opens them.

        Raises:
            ValueError: naming the file or folder and what is wrong with it.
        """
        entries: list[PolicyEntry] = []
        for path in policies:
            if not str(path).endswith(".npz"):
                raise ValueError(
                    f"--policy {path}: only policy files (.npz, weights only) are served; "
                    "a model .zip is unpickled when it loads, which can run code"
                )
            if not os.path.isfile(path):
                raise ValueError(f"--policy {path}: no such file")
            try:
                bot = shared_policy_bot([path])
            except (ImportError, ValueError) as e:
                raise ValueError(f"--policy {path}: {e}") from None
            label = os.path.basename(path)[: -len(".npz")]
            taken = {e.label for e in entries}
            k = 2
            base = label
            while label in taken:
                label, k = f"{base}-{k}", k + 1
            entries.append(PolicyEntry(label, os.path.abspath(path), bot.game, bot.num_players))
        dirs = []
        for d in record_dirs:
            if not os.path.isdir(d):
                raise ValueError(f"--records {d}: no such folder")
            dirs.append(os.path.realpath(d))
        return cls(entries, dirs, max_record_bytes)

    # ---- games and bots --------------------------------------------------------------

    def bot_names(self, game: Game[Any, Any]) -> list[str]:
        """The bots the page may seat in `game`: the arena's names, then policy files."""
        from ..bots import bot_names

        return list(bot_names(game)) + [
            f"file:{p.label}" for p in self.policies if p.game == game.name
        ]

    def games(self) -> list[dict[str, Any]]:
        """Every registered game as the page's setup form needs it."""
        out = []
        for name in GAMES:
            g = get_game(name)
            out.append(
                {
                    "name": g.name,
                    "title": g.title,
                    "player_counts": list(g.player_counts),
                    "default_num_players": g.default_num_players,
                    "bots": self.bot_names(g),
                    "default_bot": "heuristic" if "heuristic" in self.bot_names(g) else "random",
                    "options": _option_specs(g),
                    "clickable": g.provides("action_regions"),
                    "pictures": g.provides("render_rgb"),
                }
            )
        return out

    def make_bot(self, game: Game[Any, Any], name: object, num_players: int) -> tuple[Any, str]:
        """The bot named `name` for `game` at a table of `num_players`, and its label; only
        names of `bot_names`, so a page can never name a file (policy files are
        `file:<label>`)."""
        from ..bots import make_bot

        if not isinstance(name, str) or name not in self.bot_names(game):
            raise WebError(
                f"unknown bot {name!r} for {game.title}; the bots are {self.bot_names(game)}"
            )
        try:
            bot = self._shared_bot(game, name)
            if bot is None:
                bot = make_bot(name, game)
        except ImportError as e:
            raise WebError(f"cannot make bot {name!r}: {e}") from None
        except (TypeError, ValueError) as e:
            raise WebError(f"cannot make bot {name!r}: {e}") from None
        sizes = getattr(bot, "num_players", None)
        if isinstance(sizes, tuple) and num_players not in sizes:
            raise WebError(
                f"bot {name!r} plays tables of {', '.join(map(str, sizes))} players, "
                f"not {num_players}"
            )
        return bot, name

    def _shared_bot(self, game: Game[Any, Any], name: str) -> Any:
        """The bot `name` built on the process's shared policy bots (`shared_policy_bot`)
        where it plays policy files: a `file:` bot, "net" (the game's shipped files) and
        "guided" (the search guided by them); None for the others (`make_bot` builds
        those, each seat its own)."""
        from ..bots.policy_bot import shipped_paths

        if name.startswith("file:"):
            entry = next(p for p in self.policies if f"file:{p.label}" == name)
            bot = shared_policy_bot([entry.path])
            if bot.game != game.name:
                raise ValueError(f"policy file {entry.path!r} plays {bot.game}, not {game.name}")
            return bot
        if name not in ("net", "guided") or name in game.bot_factories():
            return None  # the game's own bot of that name
        paths = list(shipped_paths(game).values())
        if not paths:
            return None  # make_bot explains
        net = shared_policy_bot(paths, name="net")
        if name == "net":
            return net
        from ..bots.search import guided_search

        return guided_search(game, guide=net)

    # ---- record files ------------------------------------------------------------------

    def record_files(self) -> list[dict[str, Any]]:
        """The record files (`*.jsonl`) in the allowed folders: folder index, path
        relative to it, size in bytes (at most `_MAX_LISTED` a folder)."""
        return self.record_listing()[0]

    def record_listing(self) -> tuple[list[dict[str, Any]], int]:
        """(`record_files()`, how many more record files the folders hold, not listed
        beyond `_MAX_LISTED` a folder).

        A record file is a regular file `*.jsonl` inside its folder once links are
        followed: a link out of the folder, a dangling link, a link loop or an entry
        that vanishes while the folder is read is skipped, never an error.
        """
        out: list[dict[str, Any]] = []
        not_listed = 0
        for k, root in enumerate(self.record_dirs):
            found = 0
            for here, dirs, files in os.walk(root):
                dirs.sort()
                for name in sorted(files):
                    if not name.endswith(RECORD_SUFFIX):
                        continue
                    full = os.path.join(here, name)
                    size = self._record_size(full, root)
                    if size is None:
                        continue
                    if found >= _MAX_LISTED:
                        not_listed += 1
                        continue
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    out.append({"folder": k, "path": rel, "bytes": size})
                    found += 1
        return out, not_listed

    @classmethod
    def _record_size(cls, path: str, root: str) -> int | None:
        """The size of `path` if it is a regular file inside `root` (links followed),
        else None."""
        if cls._inside(path, root) is None:
            return None  # a link out of the folder
        try:
            st = os.stat(path)  # a dangling link or a loop raises
        except OSError:
            return None
        return st.st_size if stat.S_ISREG(st.st_mode) else None

    @staticmethod
    def _inside(path: str, root: str) -> str | None:
        """`path` resolved (links followed), if it lies inside `root`; else None."""
        real = os.path.realpath(path)
        return real if os.path.commonpath([real, root]) == root else None

    def read_record_file(self, folder: object, path: object) -> tuple[str, str]:
        """(text, display name) of a record file the page names by folder index and
        relative path; only `*.jsonl` files inside the allowed folders."""
        if isinstance(folder, bool) or not isinstance(folder, int):
            raise WebError(f"folder must be an index, got {folder!r}")
        if not 0 <= folder < len(self.record_dirs):
            raise WebError(
                "no such record folder"
                if self.record_dirs
                else "the server was started "
                "without --records folders: upload a record file instead"
            )
        if not isinstance(path, str) or not path.endswith(RECORD_SUFFIX) or "\0" in path:
            raise WebError(f"a record file is a *{RECORD_SUFFIX} file, got {path!r}")
        root = self.record_dirs[folder]
        real = self._inside(os.path.join(root, path), root)
        if real is None or os.path.isabs(path):
            raise WebError(f"{path!r} is not inside the record folder")
        size = self._record_size(real, root)
        if size is None:
            raise WebError(f"no record file {path!r} in the record folder")
        if size > self.max_record_bytes:
            raise WebError(f"{path}: larger than {_mib(self.max_record_bytes)}")
        try:
            with open(real, encoding="utf-8") as f:
                # At most the limit, should the file grow after the check.
                text = f.read(self.max_record_bytes + 1)
            if len(text) > self.max_record_bytes:
                raise WebError(f"{path}: larger than {_mib(self.max_record_bytes)}")
            return text, path
        except UnicodeDecodeError as e:
            raise WebError(f"{path}: not a text (UTF-8) file: {e.reason}") from None
        except OSError as e:
            raise WebError(f"{path}: cannot be read: {e.strerror or e}") from None


def _names(num_players: int, human: int | None) -> list[str]:
    """The players as the move log names them (as terminal play does)."""
    return [f"player_{p}" + (" (you)" if p == human else "") for p in range(num_players)]


def png_bytes(image: np.ndarray) -> bytes:
    """`image`, an (H, W, 3) uint8 picture, as PNG bytes (fast compression: pictures are
    made on every move)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class Session:
    """One game in the page: its positions, its move log and who sits where.

    Make one with `play`, `live` or `from_record`. `states[k]` is the position after
    `k` decisions (batch 1); `log[k]` tells decision `k`. Not thread-safe by itself:
    `lock` serialises the requests of one session.

    The constructor's arguments: `kind` ("play", "live" or "replay"), the `game`, the
    `record` being made or replayed, `states` so far, the `players`' labels by seat,
    the `human` seat (None: none), the `bots` by seat, the `rng` they draw from, and
    the `recorder` that logs a game being played.
    """

    def __init__(
        self,
        kind: str,
        game: Game[Any, Any],
        record: GameRecord,
        states: list[Any],
        players: list[str],
        human: int | None = None,
        bots: dict[int, Any] | None = None,
        rng: np.random.Generator | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.id = secrets.token_urlsafe(12)
        self.kind = kind
        self.game = game
        self.record = record
        self.states = states
        self.players = players
        self.human = human
        self.bots = bots or {}
        self.rng = rng or np.random.default_rng()
        self.recorder = recorder
        P = len(players)
        self.names = _names(P, human)
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.file_games = 1  # games in the record file a replay came from
        self.file_index = 0

    # ---- making sessions ------------------------------------------------------------

    @classmethod
    def play(
        cls,
        catalogue: Catalogue,
        game: object,
        num_players: object,
        seat: object,
        bots: object,
        options: object = None,
        seed: object = None,
    ) -> Session:
        """A new game of `game` (a name) at a table of `num_players`, with the variant
        `options` and `seed` (default: a random one), the bots made by `catalogue`: a
        human at `seat`, `bots` (one name per other seat, in seat order; a human seat of
        None: bots everywhere, a "live" session) at the others. The bots move at once up
        to the human's first decision."""
        g = _game(game)
        cfg = _config(g, num_players, options)
        P = g.num_players_of(cfg)
        human: int | None
        if seat is None:
            human = None
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P:
            raise WebError(f"seat must be in 0..{P - 1}, got {seat!r}")
        else:
            human = seat
        others = [p for p in range(P) if p != human]
        if not isinstance(bots, list) or len(bots) != len(others):
            raise WebError(f"give one bot for each of the seats {others}, got {bots!r}")
        made = {p: catalogue.make_bot(g, b, P) for p, b in zip(others, bots, strict=True)}
        players = ["human" if p == human else made[p][1] for p in range(P)]
        s = _seed(seed)
        rec = Recorder(cfg, s, meta={"players": players, "made_by": "kanaloa_env.web"})
        session = cls(
            "live" if human is None else "play",
            g,
            rec.record,
            [rec.state],
            players,
            human=human,
            bots={p: b for p, (b, _) in made.items()},
            rng=np.random.default_rng(s),
            recorder=rec,
        )
        if human is not None:
            session.run_bots()
        return session

    @classmethod
    def from_record(
        cls,
        text: object,
        source: object,
        index: object = 0,
        max_bytes: int = MAX_RECORD_BYTES,
    ) -> Session:
        """A replay of game `index` of a record file's `text` (untrusted, at most
        `max_bytes` in UTF-8, named after `source` in messages): every decision of that game is checked as
        `python -m kanaloa_env.replay` checks it. The file's other games are counted,
        not built (`RecordIndex`)."""
        if not isinstance(text, str):
            raise WebError("a record is the text of a .jsonl file")
        # A character is 1..4 bytes in UTF-8: encode only when the length leaves a doubt.
        if len(text) > max_bytes or (
            4 * len(text) > max_bytes and len(text.encode("utf-8", errors="replace")) > max_bytes
        ):
            raise WebError(f"the record is larger than {_mib(max_bytes)}")
        name = source if isinstance(source, str) and source else "record"
        if isinstance(index, bool) or not isinstance(index, int):
            raise WebError(f"the game index is an int, got {index!r}")
        try:
            records = RecordIndex(text, name)
        except (TypeError, ValueError) as e:
            raise WebError(f"not a game record: {e}") from None
        if not 0 <= index < len(records):
            raise WebError(f"{name} holds {len(records)} games: the index is 0..{len(records) - 1}")
        try:
            rec = records[index]
        except (TypeError, ValueError) as e:
            raise WebError(f"not a game record: {e}") from None
        if len(rec.decisions) > MAX_STEPS:
            raise WebError(f"game {index} has {len(rec.decisions)} decisions; at most {MAX_STEPS}")
        g = rec.rules
        P = rec.num_players
        meta_players = rec.meta.get("players")
        players = (
            [str(x)[:40] for x in meta_players]
            if isinstance(meta_players, list) and len(meta_players) == P
            else ["?"] * P
        )
        try:
            start = rec.start_state()
        except (TypeError, ValueError) as e:
            raise WebError(f"{name}, game {index}: cannot build the start position: {e}") from None
        session = cls("replay", g, rec, [start], players)
        session.file_games, session.file_index = len(records), index
        try:
            for r in replay(rec):
                session._append(r.decision.action, r.before, r.after)
        except ReplayError as e:
            raise WebError(f"{name}, game {index}: {e}") from None
        return session

    # ---- moves ------------------------------------------------------------------------

    @property
    def last(self) -> int:
        """The index of the last position."""
        return len(self.states) - 1

    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return bool(self.states[-1].done[0])

    def _append(self, action: int, before: Any, after: Any) -> None:
        p = int(before.current_player[0])
        self.log.append(
            {
                "step": len(self.log),
                "player": p,
                "action": int(action),
                "name": self.game.action_name(int(action)),
                "lines": describe_step(before, int(action), after, names=self.names),
            }
        )
        self.states.append(after)

    def _step(self, action: int) -> None:
        if self.last >= MAX_STEPS:
            raise WebError(f"the game reached {MAX_STEPS} decisions: the server stops it here")
        assert self.recorder is not None
        before = self.recorder.state
        after = self.recorder.step(action)
        self._append(action, before, after)

    def run_bots(self) -> int:
        """Let the bots move until the human is to act or the game is over; the number
        of moves made."""
        n = 0
        while not self.done and int(self.states[-1].current_player[0]) != self.human:
            self.advance()
            n += 1
        return n

    def advance(self) -> None:
        """One bot move (a live game, or the bots' turns in play)."""
        if self.recorder is None:
            raise WebError("a replay has no moves to make")
        if self.done:
            raise WebError("the game is over")
        state = self.states[-1]
        p = int(state.current_player[0])
        if p == self.human:
            raise WebError("it is your move")
        try:
            action = bot_action(self.bots[p], state, self.rng)
        except ValueError as e:
            raise WebError(f"bot {self.players[p]!r} failed: {e}") from None
        self._step(action)

    def move(self, action: object, step: object) -> None:
        """The human's `action` at position `step` (a stale page's move is refused), then
        the bots' moves up to the human's next decision."""
        if self.kind != "play":
            raise WebError("only a game you play takes moves")
        if step != self.last:
            raise WebError(f"the page shows step {step!r}, the game is at step {self.last}")
        state = self.states[-1]
        if self.done or int(state.current_player[0]) != self.human:
            raise WebError("it is not your move")
        A = self.game.num_actions
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < A:
            raise WebError(f"a move is an action in 0..{A - 1}, got {action!r}")
        if not state.legal[0, action]:
            raise WebError(f"{self.game.action_name(action)!r} is not a legal move now")
        self._step(action)
        self.run_bots()

    # ---- views ------------------------------------------------------------------------

    def shown_seat(self, seat: object) -> int | None:
        """The seat whose hand a view shows: in play always the human's; else `seat`
        (None: the player to act)."""
        if self.kind == "play":
            return self.human
        if seat is None or seat == "":
            return None
        seat = ascii_int(seat)
        P = len(self.players)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P:
            raise WebError(f"seat must be in 0..{P - 1}, got {seat!r}")
        return seat

    def check_step(self, step: object) -> int:
        """`step` (from a request: an int, or a string of ASCII digits) if it is a position of the game."""
        step = ascii_int(step)
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.last:
            raise WebError(f"step must be in 0..{self.last}, got {step!r}")
        return step

    def picture(self, step: object, seat: object) -> np.ndarray:
        """The game's picture of position `step` from `seat`'s side."""
        if not self.game.provides("render_rgb"):
            raise WebError(f"{self.game.title} has no pictures")
        return self.game.render_rgb(self.states[self.check_step(step)], 0, self.shown_seat(seat))

    def info(self) -> dict[str, Any]:
        """What does not change from step to step (the move log, which grows, comes with
        each answer that adds to it)."""
        return {
            "session": self.id,
            "kind": self.kind,
            "game": self.game.name,
            "title": self.game.title,
            "players": [
                {"seat": p, "name": self.names[p], "who": who} for p, who in enumerate(self.players)
            ],
            "human": self.human,
            "seed": self.record.seed,
            "deal": self.record.deal,
            "file_games": self.file_games,
            "file_index": self.file_index,
            "pictures": self.game.provides("render_rgb"),
        }

    def view(self, step: object = None, seat: object = None) -> dict[str, Any]:
        """Position `step` (default the last) as the page shows it from the side of
        `shown_seat(seat)`: the text view, the
        legal moves and clickable regions when it is the human's move, the result at
        the end. The picture is fetched separately (`picture`)."""
        k = self.last if step is None else self.check_step(step)
        shown = self.shown_seat(seat)
        state = self.states[k]
        g = self.game
        to_act = int(state.current_player[0])
        out: dict[str, Any] = {
            "step": k,
            "last": self.last,
            "log_length": len(self.log),
            "to_act": to_act,
            "done": bool(state.done[0]),
            "seat": shown,
            "text": g.render_text(state, 0, color=False, seat=shown, legal=False)
            if g.provides("render_text")
            else "",
            "moves": [],
            "regions": [],
            "prompt": None,
            "result": None,
        }
        if self.kind == "play" and k == self.last and to_act == self.human and not out["done"]:
            out["prompt"] = g.turn_prompt(state) if g.provides("turn_prompt") else "your move"
            if g.provides("legal_moves"):
                out["moves"] = [
                    {"action": m.action, "label": m.label} for m in g.legal_moves(state)
                ]
            else:
                out["moves"] = [
                    {"action": int(a), "label": g.action_name(int(a))}
                    for a in np.flatnonzero(state.legal[0])
                ]
            if g.provides("action_regions") and g.provides("render_rgb"):
                out["regions"] = [
                    {
                        "action": r.action,
                        "shape": r.shape,
                        "points": [[round(x, 1), round(y, 1)] for x, y in r.points],
                        "width": r.width,
                    }
                    for r in g.action_regions(state, 0, shown)
                ]
        if out["done"]:
            ranks = g.final_ranks(state)[0]
            out["result"] = {
                "ranks": [float(r) for r in ranks],
                "winner": None if state.winner[0] < 0 else int(state.winner[0]),
                "lines": g.final_lines(state, self.names) if g.provides("final_lines") else [],
            }
        return out

    def record_text(self) -> str:
        """The game so far as a record file (`python -m kanaloa_env.replay` replays it)."""
        return self.record.to_jsonl()

    def record_filename(self) -> str:
        """The file name a downloaded record gets: the game, its seed and its length."""
        start = f"seed{self.record.seed}" if self.record.seed is not None else "scenario"
        return f"{self.game.name}-{start}-{self.last}steps.jsonl"


def _game(name: object) -> Game[Any, Any]:
    if not isinstance(name, str) or name.lower() not in GAMES:
        raise WebError(f"unknown game {name!r}; the games are {sorted(GAMES)}")
    return get_game(name)


class SessionStore:
    """The server's sessions by id, kept per client (a browser tab).

    Each client (`owner`: the page's tab id, "" for a client without one) keeps its
    latest `per_client` sessions: its least recently used is dropped for its next one,
    never another client's. All clients together keep at most `total`: beyond it, a
    new session replaces the least recently used one of any client only if nobody has
    asked about that one for `idle_seconds`; otherwise it is refused (`ServerFull`).
    `clock` gives the time in seconds (default `time.monotonic`; a test passes a fake).
    """

    def __init__(
        self,
        per_client: int = MAX_SESSIONS,
        total: int = MAX_SESSIONS_TOTAL,
        idle_seconds: float = GAME_IDLE_SECONDS,
        clock: Any = time.monotonic,
    ) -> None:
        if per_client < 1 or total < per_client:
            raise ValueError(
                f"need 1 <= per_client <= total, got per_client={per_client}, total={total}"
            )
        self.limit = per_client
        self.total = total
        self.idle_seconds = idle_seconds
        self._clock = clock
        # Least recently used first: id -> (session, owner, last use).
        self._sessions: collections.OrderedDict[str, tuple[Session, str, float]] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()

    def add(self, session: Session, owner: str = "") -> Session:
        """Keep `session` for `owner`, dropping as the class says.

        Raises:
            ServerFull: the server holds `total` sessions and none is idle.
        """
        with self._lock:
            now = self._clock()
            mine = [sid for sid, (_, o, _) in self._sessions.items() if o == owner]
            if len(mine) >= self.limit:
                del self._sessions[mine[0]]
            elif len(self._sessions) >= self.total:
                sid, (_, _, used) = next(iter(self._sessions.items()))
                if now - used < self.idle_seconds:
                    raise ServerFull(
                        f"the server holds {self.total} games, the most it keeps for all "
                        "pages together, and none has been left alone for "
                        f"{self.idle_seconds / 60:g} minutes: try again later, or ask whoever "
                        "runs the server to raise --max-games"
                    )
                del self._sessions[sid]
            self._sessions[session.id] = (session, owner, now)
        return session

    def get(self, sid: str) -> Session:
        """The session `sid`, now the most recently used.

        Raises:
            KeyError: no such session (never made, or dropped).
        """
        with self._lock:
            held = self._sessions.get(sid)
            if held is None:
                raise KeyError(sid)
            self._sessions[sid] = (held[0], held[1], self._clock())
            self._sessions.move_to_end(sid)
            return held[0]

    def owned(self, owner: str) -> int:
        """How many sessions `owner` holds."""
        with self._lock:
            return sum(o == owner for _, o, _ in self._sessions.values())

    def __len__(self) -> int:
        return len(self._sessions)
