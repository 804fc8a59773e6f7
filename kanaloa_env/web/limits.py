"""What one request, one client and all of them together may take from the web server.

`Limits` holds every bound with its default; `python -m kanaloa_env.web` sets each with a
flag (`FLAGS`, listed by `--help`), and docs/web.md explains them. No web framework is
imported here, so the command line can name the limits before it imports one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = [
    "FLAGS",
    "GAME_IDLE_SECONDS",
    "MAX_RECORD_BYTES",
    "MAX_SESSIONS",
    "MAX_SESSIONS_TOTAL",
    "Limits",
]

MIB = 2**20
KIB = 2**10
#: The largest record file the page may open or upload.
MAX_RECORD_BYTES = 32 * MIB
#: The most sessions the server keeps for one client (a browser tab; each session
#: holds every position of its game).
MAX_SESSIONS = 32
#: The most sessions the server keeps for all clients together.
MAX_SESSIONS_TOTAL = 128
#: A session nobody has asked about for this long may be dropped for another client's.
GAME_IDLE_SECONDS = 3600.0


@dataclass(frozen=True)
class Limits:
    """The server's bounds (all positive).

    Attributes:
        max_record_bytes: the largest record file the page opens, from a `--records`
            folder or uploaded (its text in UTF-8).
        max_request_bytes: the largest body of a request other than an upload (a new
            game, a move: a few hundred bytes in practice).
        max_opening: how many requests may open a game at once (a new game, a game among
            bots, a record: reading the upload, checking it, replaying it); others wait.
        busy_wait_seconds: how long a request waits for one of those places before it
            is answered 503 (busy).
        games_per_tab: the games the server keeps for one page (a browser tab): the tab's
            least recently used game is dropped for its next one.
        max_games: the games it keeps for all tabs together; beyond it a new game
            replaces a game left alone for `game_idle_seconds`, or is refused (503).
        game_idle_seconds: see `max_games`.
        head_seconds: how long a connection may take to send a request's head (its
            first line and headers), from when it opens or from its first byte.
        body_seconds: how long a request may take to send its body once its head is in.
        keep_alive_seconds: how long an idle connection is kept open after an answer.
    """

    max_record_bytes: int = MAX_RECORD_BYTES
    max_request_bytes: int = 64 * KIB
    max_opening: int = 2
    busy_wait_seconds: float = 10.0
    games_per_tab: int = MAX_SESSIONS
    max_games: int = MAX_SESSIONS_TOTAL
    game_idle_seconds: float = GAME_IDLE_SECONDS
    head_seconds: float = 10.0
    body_seconds: float = 60.0
    keep_alive_seconds: float = 5.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive number, got {value!r}")
        if self.games_per_tab > self.max_games:
            raise ValueError(
                f"games per tab ({self.games_per_tab}) cannot exceed the games of all tabs "
                f"({self.max_games})"
            )

    @property
    def max_upload_bytes(self) -> int:
        """The largest body of `POST /api/replay`: a record, as JSON (its text escaped in
        a JSON string, with 1 MiB for the escapes and the other keys) or as is."""
        return self.max_record_bytes + MIB


#: The command line's flags: (flag, Limits field, unit as the flag takes it, its size in
#: the field's unit, help text).
FLAGS: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "--max-record-mib",
        "max_record_bytes",
        "MiB",
        MIB,
        "the largest record file the page opens (a --records file or an upload)",
    ),
    (
        "--max-request-kib",
        "max_request_bytes",
        "KiB",
        KIB,
        "the largest body of a request other than a record upload (413 beyond)",
    ),
    (
        "--max-opening",
        "max_opening",
        "requests",
        1,
        "requests that may open a game at once (a new game, a record: read, checked, "
        "replayed); others wait",
    ),
    (
        "--busy-wait",
        "busy_wait_seconds",
        "s",
        1,
        "how long a request waits for one of those places before it is answered 503",
    ),
    (
        "--games-per-tab",
        "games_per_tab",
        "games",
        1,
        "the games kept for one browser tab; its least recently used goes for its next",
    ),
    (
        "--max-games",
        "max_games",
        "games",
        1,
        "the games kept for all tabs together; beyond it a new game replaces one left "
        "alone for --game-idle minutes, else it is refused (503)",
    ),
    (
        "--game-idle",
        "game_idle_seconds",
        "min",
        60,
        "see --max-games",
    ),
    (
        "--head-timeout",
        "head_seconds",
        "s",
        1,
        "a connection that has not sent a request's head (first line, headers) within "
        "this is closed",
    ),
    (
        "--body-timeout",
        "body_seconds",
        "s",
        1,
        "a request whose body has not all arrived this long after its head is closed",
    ),
    (
        "--keep-alive",
        "keep_alive_seconds",
        "s",
        1,
        "an idle connection is closed this long after its last answer",
    ),
)
