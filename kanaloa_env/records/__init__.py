"""Game records of any game: JSON lines that replay exactly, checked on replay.

See `kanaloa_env.records.records` for the format; its API (`records.__all__`) is
this package's.
"""

from . import records
from .records import *  # noqa: F403 (the module's API, `records.__all__`, is this package's)

__all__ = list(records.__all__)
