"""Game records of any game: JSON lines that replay exactly, checked on replay.

See `kanaloa_env.records.records` for the format.
"""

from .records import (
    FORMAT,
    FORMAT_VERSION,
    Decision,
    GameRecord,
    Recorder,
    RecordIndex,
    ReplayError,
    ReplayStep,
    bot_action,
    describe_step,
    load_record,
    load_records,
    parse_records,
    record_bot_game,
    replay,
    replay_states,
    save_records,
    write_records,
)

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
